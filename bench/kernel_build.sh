#!/usr/bin/env bash
# KERNEL_BUILD=1 part of bench/bench_kernel.sh (issue 31, acceptance 3):
# clang-19 compiles kernel objects of the vmlinux the capture was walked on
# with spgo's profile of that capture, and once without it.
#
#   kernel_build.sh PROFILE.prof PROFILE.txt VMLINUX OUT.md
#
# PROFILE.prof is spgo's profile in extbinary (what -fprofile-sample-use
# reads), PROFILE.txt the same as text (its function names).  The source is
# Debian's `linux` source package of the image's version (KERNEL_SRC_VERSION,
# default 6.1.176-1: .orig tarball and Debian's patches, dpkg-source -x),
# fetched at bench time into $BENCH_CACHE/kernel/src and kept there (never in
# the repository); the config is Debian's own for the image, taken from
# linux-headers-$KERNEL_ABI (its .config), made clang's by olddefconfig, with
# BTF off (no pahole step for objects) and the signing key paths reset.
#
# Objects (KERNEL_OBJS overrides): kernel/sched/ (its four objects), and the
# objects of mm/ and net/core/ that hold a profile function (by vmlinux's
# line table: nm + addr2line of each profiled function's address).
# Flags: CONFIG_AUTOFDO_CLANG's (Linux 6.13 scripts/Makefile.autofdo) through
# KCFLAGS, as 6.1 has no such option: -fdebug-info-for-profiling and the
# flow-sensitive discriminators, plus -fprofile-sample-use=PROFILE in the
# profiled build, which also saves the sample loader's remarks
# (-fsave-optimization-record, passes sample-profile*) to count the
# functions the profile reached.  Each build in its own output tree, after
# its `make prepare` (not timed); timed: `make -j2 OBJS`.
# Build trees are removed at the end (KERNEL_BUILD_KEEP=1 keeps them).
set -euo pipefail
prof=$1 ptxt=$2 vmlinux=$3 out=$4
: "${SPGO_SRC:?}" "${BENCH_WORK:?}"
need() { command -v "$1" >/dev/null || { echo "kernel_build: skip: $1 not installed"; exit 0; }; }
need clang-19; need ld.lld-19; need llvm-nm-19; need flex; need bison; need bc; need dpkg-source
need addr2line; need make
VER=${KERNEL_SRC_VERSION:-6.1.176-1}
ABI=${KERNEL_ABI:-6.1.0-50-amd64}
up=${VER%-*}
src="${BENCH_CACHE:-$BENCH_WORK/cache}/kernel/src"
w="$BENCH_WORK/kernel/build"
mkdir -p "$src" "$w"
skip() { echo "kernel_build: skip: $*"; exit 0; }

# Source and config, cached.
cd "$src"
if [ ! -d "linux-$up" ]; then
  if [ ! -e "linux_$VER.dsc" ]; then
    "$SPGO_SRC/scripts/debian-source.sh" --enable-only || skip "no deb-src entries"
    apt-get source --download-only -qq "linux=$VER" > /dev/null 2>&1 ||
      skip "cannot download the linux $VER source package"
  fi
  dpkg-source --no-check -x "linux_$VER.dsc" "linux-$up" > dpkg-source.log 2>&1 ||
    { tail -5 dpkg-source.log; skip "dpkg-source -x linux_$VER.dsc failed"; }
fi
if [ ! -s "config-$ABI" ]; then
  ls "linux-headers-${ABI}_${VER}"_*.deb > /dev/null 2>&1 || apt-get download -qq "linux-headers-$ABI=$VER" ||
    skip "cannot download linux-headers-$ABI $VER (for Debian's .config)"
  dpkg-deb --fsys-tarfile "linux-headers-${ABI}_${VER}"_*.deb |
    tar -xO "./usr/src/linux-headers-$ABI/.config" > "config-$ABI.tmp" && mv "config-$ABI.tmp" "config-$ABI"
fi
tree="$src/linux-$up"

# The objects: kernel/sched/ and the mm/, net/core/ objects holding a profile function.
grep '^[^ ]' "$ptxt" | cut -d: -f1 | sort -u > "$w/pfuncs"
nm "$vmlinux" > "$w/nm"
# Profile functions gcc compiled only as clones (foo.constprop.0, .isra.N,
# .part.N), and as a clone besides foo: named foo in the profile all the
# same (llvm-profgen's and spgo's names are DWARF's, the clone's
# DW_AT_abstract_origin), which is clang's name.
read -r nclone nboth < <(awk 'NR == FNR { want[$1] = 1; next }
    $2 == "T" || $2 == "t" { n = $3; b = n; sub(/\..*/, "", b); if (!(b in want)) next
      if (n == b) plain[b] = 1; else clone[b] = 1 }
    END { for (f in clone) if (f in plain) both++; else only++; print only + 0, both + 0 }' "$w/pfuncs" "$w/nm")
if [ -n "${KERNEL_OBJS:-}" ]; then
  objs=$KERNEL_OBJS
else
  awk 'NR == FNR { want[$1] = 1; next }
      ($2 == "T" || $2 == "t") && ($3 in want) && !seen[$3]++ { print $1 }' "$w/pfuncs" "$w/nm" |
    addr2line -e "$vmlinux" | sed -E 's/:[0-9?]+( .*)?$//; s@.*/build_amd64_none_amd64/@@; s@.*/linux-[0-9.]+/@@' |
    grep -E '^(mm|net/core)/[^/]+\.c$' | sort -u | sed 's/\.c$/.o/' > "$w/hot"
  objs="kernel/sched/core.o kernel/sched/fair.o kernel/sched/build_policy.o kernel/sched/build_utility.o $(tr '\n' ' ' < "$w/hot")"
fi
nobj=$(echo $objs | wc -w)

afdo="-fdebug-info-for-profiling -mllvm -enable-fs-discriminator=true -mllvm -improved-fs-discriminator=true"
kbuild() {  # kbuild TAG KCFLAGS: configure, prepare, then the timed build of $objs
  local o="$w/obj-$1" kc=$2
  rm -rf "$o"; mkdir -p "$o"
  cp "$src/config-$ABI" "$o/.config"
  "$tree/scripts/config" --file "$o/.config" -d DEBUG_INFO_BTF -d DEBUG_INFO_BTF_MODULES \
    --set-str MODULE_SIG_KEY certs/signing_key.pem --set-str SYSTEM_TRUSTED_KEYS "" \
    --set-str SYSTEM_REVOCATION_KEYS ""
  make -s -C "$tree" LLVM=-19 O="$o" olddefconfig > "$w/$1.config.log" 2>&1
  make -C "$tree" -j2 LLVM=-19 O="$o" KCFLAGS="$kc" prepare > "$w/$1.prepare.log" 2>&1 ||
    { tail -20 "$w/$1.prepare.log"; return 1; }
  echo "$(cut -d' ' -f1-3 /proc/loadavg)" > "$w/$1.load"
  /usr/bin/time -f '%e %U %S' -o "$w/$1.time" make -C "$tree" -j2 LLVM=-19 O="$o" KCFLAGS="$kc" $objs \
    > "$w/$1.log" 2>&1 || { tail -20 "$w/$1.log"; return 1; }
  cut -d' ' -f1-3 /proc/loadavg >> "$w/$1.load"
}
echo "kernel_build: linux $VER, $nobj objects, without and with the profile ..."
kbuild base "$afdo" || skip "the baseline build failed (log: $w/base.log)"
kbuild prof "$afdo -fprofile-sample-use=$prof -fsave-optimization-record -foptimization-record-passes=sample-profile" ||
  skip "the build with the profile failed (log: $w/prof.log)"

# Warnings: all, those naming the profile, and those the profile added.
warns() { grep -E 'warning:' "$w/$1.log" | sed 's/^[^ ]*warning:/warning:/' | sort -u; }
wb=$(grep -c 'warning:' "$w/base.log" || true)
wp=$(grep -c 'warning:' "$w/prof.log" || true)
pw=$(grep -ciE 'warning:.*(profile|sample|debug info|discriminator)' "$w/prof.log" || true)
new=$(comm -13 <(warns base) <(warns prof) | wc -l)

# Profile functions clang emitted in these objects, and those the sample
# loader applied samples to (its AppliedSamples remarks name the function).
o="$w/obj-prof"
for ob in $objs; do llvm-nm-19 --defined-only "$o/$ob" 2>/dev/null; done |
  awk '$2 == "T" || $2 == "t" { print $3 }' | sort -u > "$w/defined"
comm -12 "$w/pfuncs" "$w/defined" > "$w/inobjs"
for ob in $objs; do y="$o/${ob%.o}.opt.yaml"; [ -e "$y" ] && cat "$y"; done |
  awk '/^Name: +AppliedSamples/ { a = 1 } /^Function:/ && a { print $2; a = 0 } /^\.\.\./ { a = 0 }' |
  sort -u > "$w/applied"
nin=$(wc -l < "$w/inobjs")
nused=$(comm -12 "$w/inobjs" "$w/applied" | wc -l)
napplied=$(wc -l < "$w/applied")
nprof=$(wc -l < "$w/pfuncs")
# Where the code went: .text.hot and .text.unlikely are clang's sections
# for the functions a profile finds hot and cold (none without a profile).
secs() {  # secs TAG: bytes in .text, .text.hot*, .text.unlikely* of the objects
  for ob in $objs; do llvm-readelf-19 -SW "$w/obj-$1/$ob"; done |
    awk 'function hex(x,   i, v) { for (i = 1; i <= length(x); i++) v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1; return v }
         { for (i = 1; i < NF; i++) if ($i ~ /^\.text/) { n = $i; z = hex($(i + 4)); break } }
         n == ".text" { t += z } n ~ /^\.text\.hot/ { h += z } n ~ /^\.text\.unlikely/ { u += z }
         { n = "" } END { printf "%d %d %d\n", t, h, u }'
}
read -r tx_b hot_b unl_b < <(secs base)
read -r tx_p hot_p unl_p < <(secs prof)
# The whole kernel (vmlinux and modules) of this config: the C objects a
# `make -n all` of the base tree would still compile, and these.
# (make -n stops at the first rule whose input a real build would have made
# first: -k goes on, and its status says nothing here)
make -C "$tree" -n -k LLVM=-19 O="$w/obj-base" KCFLAGS="$afdo" all > "$w/dryrun" 2>&1 || true
nall=$(( $(grep -oE ' -c -o [^ ]+\.o [^ ]+\.c' "$w/dryrun" | awk '{ print $3 }' | sort -u | wc -l) + nobj ))
rm -f "$w/dryrun"
read -r tb ub sb < "$w/base.time"
read -r tp up_ sp < "$w/prof.time"
cpu() { awk -v u="$1" -v s="$2" 'BEGIN { printf "%.0f", u + s }'; }
clangv=$(clang-19 --version | head -1)
{
  echo "## Building the kernel with the profile (KERNEL_BUILD=1)"
  echo
  echo "Debian's \`linux\` $VER source package (.orig and Debian's patches), Debian's config for"
  echo "linux-image-$ABI (from linux-headers-$ABI), made clang's by olddefconfig (BTF off);"
  echo "$clangv, \`make LLVM=-19\`, KCFLAGS as CONFIG_AUTOFDO_CLANG (Linux 6.13) passes them;"
  echo "$(nproc) cores shared with other work; $(date -u +%Y-%m-%d)."
  echo "Objects ($nobj): $objs"
  echo
  echo "| build | wall s | CPU s (user+sys) | warnings | load average before; after |"
  echo "| --- | ---: | ---: | ---: | --- |"
  echo "| without the profile | $tb | $(cpu "$ub" "$sb") | $wb | $(paste -sd';' "$w/base.load") |"
  echo "| -fprofile-sample-use=spgo's | $tp | $(cpu "$up_" "$sp") | $wp | $(paste -sd';' "$w/prof.load") |"
  echo
  echo "Code bytes (.text; .text.hot; .text.unlikely): without the profile $tx_b; $hot_b; $unl_b,"
  echo "with it $tx_p; $hot_p; $unl_p."
  echo "The whole kernel of this config (vmlinux and modules) is $nall C objects: at these"
  echo "objects' $(awk -v c="$(cpu "$ub" "$sb")" -v n="$nobj" 'BEGIN { printf "%.1f", c / n }') CPU s each, $(awk -v c="$(cpu "$ub" "$sb")" -v n="$nobj" -v a="$nall" 'BEGIN { printf "%.1f", c / n * a / 3600 }') CPU hours for one build:"
  echo "too long for make bench, so no whole build and no run against exact counts of it."
  echo
  echo "Warnings naming the profile, samples, debug info or discriminators: $pw;"
  echo "warnings in the profiled build and not in the other: $new."
  echo "Profile functions ($nprof) that clang emitted in these objects: $nin; of them, $nused got"
  echo "samples applied (the sample loader's AppliedSamples remarks; $napplied functions in all)."
  echo "Names: $nclone profile functions exist in vmlinux only as gcc clones (.constprop.N, .isra.N,"
  echo ".part.N) and $nboth also as one; the profile names them all by DWARF (as llvm-profgen does),"
  echo "which is clang's name: no suffix to strip."
} > "$out"
[ "${KERNEL_BUILD_KEEP:-0}" = 1 ] || rm -rf "$w/obj-base" "$w/obj-prof"
cat "$out"
