#!/usr/bin/env bash
# The inline decisions clang-19 makes in the PGO variants of one program of
# the PGO suite (#17: "what clang's loader does with what we write").
#
#   bench/pgo_inlines.sh NAME [VARIANT...]
#
# (defaults: c-instr c-exact c-lbr c-record c-perf, and c-cs-spgo c-cs-ip
# when built).  Each variant's cached compiler command
# (BENCH_WORK/pgo/NAME/bin/VARIANT.cmd, written by bench/bench_pgo.sh) is run
# again with -Rpass="^(sample-profile-)?inline$", output thrown away.
# A decision is "callee <- caller at callsite chain"; the sample loader's
# replayed inlines (-Rpass=sample-profile-inline: "to match profiling
# context") are told apart from the CGSCC inliner's.  Prints, per variant,
# how many of each, and the decisions it shares with c-instr and with
# c-exact; the lists are in BENCH_WORK/pgo/NAME/inlines/VARIANT.
set -uo pipefail
: "${SPGO_SRC:?}" "${BENCH_WORK:?}"
name=${1:?usage: pgo_inlines.sh NAME [VARIANT...]}
shift
W="$BENCH_WORK/pgo"
pd="$W/$name"
[ -d "$pd/bin" ] || { echo "pgo_inlines: no builds in $pd (run make bench BENCH=pgo first)" >&2; exit 1; }
vars=("$@")
if [ ${#vars[@]} -eq 0 ]; then
  for v in c-O2 c-instr c-exact c-lbr c-record c-perf c-cs-spgo c-cs-profgen c-cs-ip; do
    [ -s "$pd/bin/$v.cmd" ] && vars+=("$v")
  done
fi
mkdir -p "$pd/inlines"
SRCROOT="$W/src"
source "$SPGO_SRC/bench/gen_programs.sh"
source "$SPGO_SRC/bench/pgo_lib.sh"
(
  HALF="" CSSPGO=0 LANG_CXX=0 TRAIN="" TIME=""
  source "$SPGO_SRC/bench/pgo/$name.sh"
  S=$(pgo_fetch) || exit 1
  for v in "${vars[@]}"; do
    [ -s "$pd/bin/$v.cmd" ] || { echo "pgo_inlines: $name: variant $v was not built (no bin/$v.cmd)" >&2; exit 1; }
    read -r cc flags < "$pd/bin/$v.cmd"
    tmp=$(mktemp -d)
    if ! (cd "$tmp" && CC=$cc CFLAGS="$flags -Rpass=^(sample-profile-)?inline$" LDFLAGS="" \
            pgo_build "$tmp/a.out") > "$tmp/remarks" 2>&1; then
      echo "pgo_inlines: $name $v: the build failed: $(grep -m1 -E 'error' "$tmp/remarks")" >&2
      rm -rf "$tmp"
      exit 1
    fi
    sed -n "s/.*remark: '\([^']*\)' inlined into '\([^']*\)'\( to match profiling context\)\{0,1\}.* at callsite \([^;]*\);.*/\2 <- \1 @ \4|\3/p" "$tmp/remarks" |
      awk -F'|' '{print $1 ($2 != "" ? "\treplay" : "\tcgscc")}' | LC_ALL=C sort -u > "$pd/inlines/$v"
    rm -rf "$tmp"
  done
) || exit 1
ref() { [ -s "$pd/inlines/$1" ] && cut -f1 "$pd/inlines/$1" | LC_ALL=C sort -u; }
printf '%-14s %8s %8s %8s %12s %12s\n' variant inlines replay cgscc "with instr" "with exact"
for v in "${vars[@]}"; do
  f="$pd/inlines/$v"
  n=$(wc -l < "$f")
  r=$(grep -c $'\treplay$' "$f")
  wi=$(LC_ALL=C comm -12 <(cut -f1 "$f" | LC_ALL=C sort -u) <(ref c-instr) | wc -l)
  we=$(LC_ALL=C comm -12 <(cut -f1 "$f" | LC_ALL=C sort -u) <(ref c-exact) | wc -l)
  printf '%-14s %8d %8d %8d %12d %12d\n' "$v" "$n" "$r" $((n - r)) "$wi" "$we"
done
