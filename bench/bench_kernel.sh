#!/usr/bin/env bash
# spgo gen --kernel on a real vmlinux (issue 31, acceptance 1 and 5): Debian's
# linux-image-*-amd64-dbg (vmlinux with DWARF, ~850 MB download, kept in
# $BENCH_CACHE/kernel), a system-wide capture synthesized by walking that
# vmlinux's real control flow (tests/integration/lib/kwalk.py: system calls
# entered from user space, 32-entry LBR as Intel's :k records it, user
# samples of another process mixed in, a KASLR offset), written as perf.data
# (kperf) with its samples repeated up to BENCH_GIB GiB.
#
#   spgo gen --kernel --perf-data              (KASLR'd capture)
#   perf script -F ip,brstack | llvm-profgen-19 (its twin without KASLR:
#                                               llvm-profgen 19 has no
#                                               --kernel, LLVM 20's #92831)
#
# The profiles must be byte-identical.  Wall time and peak RSS from
# /usr/bin/time; spgo: median of REPEATS runs, the peers one run.
set -euo pipefail
: "${SPGO:?}" "${SPGO_SRC:?}" "${SPGO_BUILD:?}" "${BENCH_WORK:?}"
need() { command -v "$1" >/dev/null || { echo "bench_kernel: skip: $1 not installed"; exit 0; }; }
need llvm-profgen-19; need llvm-objdump-19; need perf; need python3; need dpkg-deb
REPEATS=${REPEATS:-3}
GIB=${BENCH_GIB:-1}
DISTINCT=${KERNEL_SAMPLES:-100000}
PKG=${KERNEL_DBG_PKG:-linux-image-6.1.0-50-amd64-dbg}
cache="${BENCH_CACHE:-$BENCH_WORK/cache}/kernel"
w="$BENCH_WORK/kernel"
mkdir -p "$cache" "$w"
cd "$cache"
vmlinux=$(ls usr/lib/debug/boot/vmlinux-* 2>/dev/null | head -1 || true)
if [ -z "$vmlinux" ]; then
  ls "$PKG"_*.deb >/dev/null 2>&1 || apt-get download "$PKG" ||
    { echo "bench_kernel: skip: cannot download $PKG"; exit 0; }
  dpkg-deb --fsys-tarfile "$PKG"_*.deb |
    tar -x --wildcards './usr/lib/debug/boot/vmlinux-*' './usr/lib/debug/lib/modules/*/kernel/fs/ext4/ext4.ko'
  vmlinux=$(ls usr/lib/debug/boot/vmlinux-* | head -1)
fi
vmlinux="$cache/$vmlinux"
[ -s "$cache/vmlinux.brs" ] ||
  llvm-objdump-19 -d --no-show-raw-insn --section=.text "$vmlinux" |
  awk -f "$SPGO_SRC/bench/kernel_brs.awk" > "$cache/vmlinux.brs"
cd "$w"
bid=$(readelf -n "$vmlinux" | awk '/Build ID/ { print $3 }')
entries=$(awk '$1 == "S" && $3 ~ /^__x64_sys_(read|write|getpid|openat|close|futex|epoll_wait|newfstat|mmap|brk|ioctl|poll|sendto|recvfrom|lseek|clock_gettime|nanosleep)$/ { print $3 }' \
  "$cache/vmlinux.brs" | paste -sd, -)
kaslr=1c000000
if [ ! -s walk.spec ]; then
  echo "walking $vmlinux ($DISTINCT samples) ..."
  python3 "$SPGO_SRC/tests/integration/lib/kwalk.py" --vmlinux "$vmlinux" --brs "$cache/vmlinux.brs" \
    --entry "$entries" --samples "$DISTINCT" --build-id "$bid" --max-steps 20000 --seed 3 \
    --kaslr "$kaslr" > walk.spec.tmp && mv walk.spec.tmp walk.spec
  # its twin without KASLR (vmlinux's own addresses), for llvm-profgen-19
  python3 -c '
import re, sys
k = int(sys.argv[1], 16)
for ln in sys.stdin:
    sys.stdout.write(re.sub(r"0x(ffffffff[0-9a-f]{8})", lambda m: "0x%x" % (int(m.group(1), 16) - k), ln))
' "$kaslr" < walk.spec > walk0.spec
fi
want=$((GIB * 1024 * 1024 * 1024))
if [ ! -s big.data ] || [ "$(stat -c %s big.data)" -lt "$want" ]; then
  "$SPGO_BUILD/tests/kperf" once.data < walk.spec
  rep=$(( (want + $(stat -c %s once.data) - 1) / $(stat -c %s once.data) ))
  "$SPGO_BUILD/tests/kperf" big.data "$rep" < walk.spec
  "$SPGO_BUILD/tests/kperf" big0.data "$rep" < walk0.spec
  rm -f once.data
fi
mb=$(( $(stat -c %s big.data) / 1024 / 1024 ))
nsamples=$(awk '$1 == "sample"' walk.spec | wc -l)

source "$SPGO_SRC/bench/measure_lib.sh"
MEASURE_DIR=$PWD
load=$(cut -d' ' -f1-3 /proc/loadavg)
read -r t_spgo m_spgo _ < <(measure "$REPEATS" "$SPGO" gen --kernel --binary "$vmlinux" --perf-data big.data \
  -o spgo.txt --format text --quiet)
read -r t_ps m_ps _ < <(measure 1 sh -c 'perf script -i big0.data -F ip,brstack > big.script')
read -r t_pg m_pg _ < <(measure 1 llvm-profgen-19 --binary="$vmlinux" --perfscript=big.script --format=text -o profgen.txt)
[ -n "$t_spgo" ] && [ -n "$t_ps" ] && [ -n "$t_pg" ] ||
  { echo "kernel: a timed run failed (its error above)" >&2; exit 1; }
rm -f big.script
same="differ"
cmp -s spgo.txt profgen.txt && same="byte-identical"
nfun=$(grep -c '^[^ ]' spgo.txt || true)

# A real module: ext4.ko as the -dbg package ships it (relocatable, with
# DWARF), entered from the kernel's indirect calls in a capture of its own.
# Reference: llvm-profgen-19 on ext4.ko linked with its .text at the
# module's address, merged with its vmlinux profile (llvm-profdata-19).
ko=$(ls "$cache"/usr/lib/debug/lib/modules/*/kernel/fs/ext4/ext4.ko 2>/dev/null | head -1 || true)
mod="no ext4.ko in the package"
if [ -n "$ko" ]; then
  ext4_entries=ext4_file_read_iter,ext4_file_write_iter,ext4_lookup,ext4_getattr,ext4_readdir,ext4_map_blocks,ext4_da_write_begin,ext4_da_write_end,ext4_dirty_inode,ext4_file_open,ext4_release_file,ext4_sync_file
  [ -s ext4.spec ] || python3 "$SPGO_SRC/tests/integration/lib/kwalk.py" --vmlinux "$vmlinux" \
    --brs "$cache/vmlinux.brs" --entry __x64_sys_read,__x64_sys_write,__x64_sys_openat --module "$ko" \
    --modname ext4 --modentry "$ext4_entries" --samples 20000 --build-id "$bid" --max-steps 20000 \
    --seed 5 > ext4.spec
  "$SPGO_BUILD/tests/kperf" ext4.data < ext4.spec
  "$SPGO" gen --kernel --binary "$vmlinux" --module "$ko" --perf-data ext4.data -o ext4_spgo.txt --format text --quiet
  printf 'SECTIONS { . = 0xffffffffc0a00000; .text : { *(.text) } }\n' > ext4.lds
  ld -T ext4.lds --unresolved-symbols=ignore-all -e 0 -o ext4_linked "$ko" 2>/dev/null
  perf script -F ip,brstack -i ext4.data > ext4.script 2>/dev/null
  llvm-profgen-19 --binary=ext4_linked --perfscript=ext4.script --format=text -o ext4_pgm.txt 2>/dev/null
  llvm-profgen-19 --binary="$vmlinux" --perfscript=ext4.script --format=text -o ext4_pgv.txt 2>/dev/null
  llvm-profdata-19 merge --sample --text ext4_pgv.txt ext4_pgm.txt -o ext4_ref.txt
  llvm-profdata-19 merge --sample --text ext4_spgo.txt -o ext4_spgo.n.txt
  nmod=$(grep -cE '^ext4_' ext4_spgo.txt || true)
  lost=$(grep -cE '^ext4_' ext4_pgv.txt || true)
  if cmp -s ext4_ref.txt ext4_spgo.n.txt; then same_mod="byte-identical"; else same_mod="differ"; fi
  mod="ext4.ko: $nmod of its functions in spgo's merged profile, $lost in llvm-profgen-19's of vmlinux;
the merged profiles $same_mod to llvm-profgen-19's of ext4.ko linked at the module's address"
  rm -f ext4.script
fi

t_peer=$(awk -v a="$t_ps" -v b="$t_pg" 'BEGIN { print a + b }')
m_peer=$(( m_ps > m_pg ? m_ps : m_pg ))
x() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "n/a" }'; }
x2() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3fx", a / b; else print "n/a" }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
out="$SPGO_SRC/bench/results/kernel.md"
# KERNEL_BUILD=1: clang-19 builds kernel objects with the profile (bench/kernel_build.sh,
# many minutes); without it, the last such section of kernel.md is kept.
build_md="$w/build.md"
rm -f "$build_md"
if [ "${KERNEL_BUILD:-0}" = 1 ]; then
  # (the profile of a gcc-built vmlinux in clang's format: spgo warns about it)
  "$SPGO" gen --kernel --binary "$vmlinux" --perf-data big.data -o spgo.prof --format extbinary --quiet 2> /dev/null
  bash "$SPGO_SRC/bench/kernel_build.sh" "$w/spgo.prof" "$w/spgo.txt" "$vmlinux" "$build_md" ||
    echo "bench_kernel: the kernel build failed"
fi
[ -s "$build_md" ] || awk '/^## Building the kernel/ { p = 1 } p' "$out" > "$build_md" 2> /dev/null || true
{
  echo "# spgo gen --kernel: a real vmlinux, a ${mb} MiB system-wide capture"
  echo
  echo "$(basename "$vmlinux") from Debian's $PKG ($(( $(stat -c %s "$vmlinux") / 1024 / 1024 )) MiB with DWARF,"
  echo "gcc-built); $nsamples distinct samples walked on its control flow (kwalk.py: system calls"
  echo "from user space, 32-entry LBR as Intel's :k, user samples mixed in, KASLR offset 0x$kaslr),"
  echo "repeated to the size above.  $(nproc) cores shared with other work (load average $load"
  echo "at the start); $(date -u +%Y-%m-%d)."
  echo "spgo: median of $REPEATS runs; peers: 1 run.  llvm-profgen-19 (no --kernel) reads the"
  echo "same samples without KASLR.  Profiles ($nfun functions): $same."
  echo
  echo "| tool | wall s | peak RSS MiB | spgo faster by | spgo RSS share |"
  echo "| --- | ---: | ---: | ---: | ---: |"
  echo "| spgo gen --kernel --perf-data | $t_spgo | $(mib "$m_spgo") | | |"
  echo "| perf script -F ip,brstack | $t_ps | $(mib "$m_ps") | | |"
  echo "| llvm-profgen-19 (on that text) | $t_pg | $(mib "$m_pg") | | |"
  echo "| perf script + llvm-profgen-19 | $t_peer | $(mib "$m_peer") | $(x "$t_peer" "$t_spgo") | $(x2 "$m_spgo" "$m_peer") |"
  echo
  echo "Target (issue 31): 10x faster than perf script + llvm-profgen-19."
  echo
  echo "Module (a capture of 20000 samples entering ext4 from the kernel's indirect calls):"
  echo "$mod."
  if [ -s "$build_md" ]; then
    echo
    cat "$build_md"
  fi
} > "$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
