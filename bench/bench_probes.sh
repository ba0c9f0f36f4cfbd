#!/usr/bin/env bash
# Pseudo-probe decoding benchmark: Debian's sqlite3 shell built from its
# source package by clang-19 with -O2 -g -fpseudo-probe-for-profiling, its
# probes listed by
#   spgo symbolize --binary sqlite3 --probes --all-instructions   (every probe)
#   spgo symbolize --binary sqlite3 --probes --functions          (decode, list descriptors)
#   llvm-profgen-19 --show-disassembly-only --show-pseudo-probe   (the probes
#       above each instruction of the whole disassembly: more work than spgo's,
#       but the only way llvm-profgen-19 lists them)
# Reports wall time and peak RSS (/usr/bin/time -v's figure; median of
# REPEATS runs),
# and whether the probe listings agree (llvm-profgen's normalized as
# tests/integration/symbolize_probes.sh does).  Writes
# bench/results/probes.md.
#
# The source is fetched into BENCH_WORK by scripts/debian-source.sh, never
# committed (shared with bench_symbolize.sh).
set -euo pipefail
: "${SPGO:?}" "${SPGO_SRC:?}" "${BENCH_WORK:?}"
REPEATS=${REPEATS:-5}
work="$BENCH_WORK/sqlite3"
mkdir -p "$work"
cd "$work"

srcdir=$("$SPGO_SRC/scripts/debian-source.sh" sqlite3 "$work")
srcdir=$(basename "$srcdir")

bin="$work/build-probes/sqlite3"
if ! head -c 4 "$bin" 2>/dev/null | grep -q ELF; then
  rm -rf build-probes
  echo "bench: building the sqlite3 shell with clang-19 -O2 -g -fpseudo-probe-for-profiling (a few minutes)"
  mkdir -p build-probes
  (cd build-probes && "../$srcdir/configure" CC=clang-19 CFLAGS="-O2 -g -fpseudo-probe-for-profiling" \
     --disable-tcl --disable-shared > configure.log 2>&1 &&
     make -j2 sqlite3 > make.log 2>&1) || { tail -20 build-probes/make.log; exit 1; }
fi

# One run of "$@" > $out: appends "wall rss" to $name.runs: wall time (s,
# to the millisecond) from bash's `time`, peak RSS (KB) from /usr/bin/time.
run_once() {
  local name=$1 out=$2; shift 2
  local TIMEFORMAT='%3R'
  rm -f "$out"
  { time /usr/bin/time -f '%M' -o rss.txt "$@" > "$out" 2>/dev/null; } 2> wall.txt
  echo "$(tail -1 wall.txt) $(tail -1 rss.txt)" >> "$name.runs"
}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

load_before=$(cut -d' ' -f1 /proc/loadavg)
rm -f all.runs funcs.runs llvm.runs
for _ in $(seq "$REPEATS"); do
  run_once all out.spgo "$SPGO" symbolize --binary "$bin" --probes --all-instructions
  run_once funcs out.funcs "$SPGO" symbolize --binary "$bin" --probes --functions
  run_once llvm out.llvm llvm-profgen-19 --show-disassembly-only --show-pseudo-probe --binary "$bin" --output /dev/null
done
for t in all funcs llvm; do
  read -r "${t}_wall" "${t}_rss" < <(echo "$(cut -d' ' -f1 $t.runs | median) $(cut -d' ' -f2 $t.runs | median)")
done

# The listings: llvm-profgen's probe lines attached to the next instruction.
awk '
  /^ \[Probe\]:/ { sub(/^ \[Probe\]:[ \t]*/, ""); gsub(/[ \t]+/, " "); sub(/ $/, ""); held[n++] = $0; next }
  /^ *[0-9a-f]+:\t/ { a = $1; sub(/:$/, "", a); sub(/^0+/, "", a)
                      for (i = 0; i < n; i++) print "0x" a " " held[i]; n = 0 }' out.llvm > llvm.probes
nprobes=$(wc -l < out.spgo)
ndescs=$(wc -l < out.funcs)
if cmp -s out.spgo llvm.probes; then
  same="identical ($nprobes probes)"
else
  same="different: $(diff out.spgo llvm.probes | grep -c '^[<>]' || true) lines differ"
fi
inlined=$(grep -c ' Inlined: ' out.spgo || true)
secsize=$((16#$(llvm-readelf-19 -S "$bin" | awk '$2 == ".pseudo_probe" { print $6 }')))
descsize=$((16#$(llvm-readelf-19 -S "$bin" | awk '$2 == ".pseudo_probe_desc" { print $6 }')))
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "inf" }'; }
mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
cpu=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)

result="$SPGO_SRC/bench/results/probes.md"
tmpres=$(mktemp "$result.tmp.XXXXXX")
cat > "$tmpres" <<EOF
# Pseudo-probe decoding: spgo symbolize --probes vs llvm-profgen-19

Debian's $srcdir shell built with \`clang-19 -O2 -g
-fpseudo-probe-for-profiling\`: .pseudo_probe $secsize bytes,
.pseudo_probe_desc $descsize bytes, $nprobes probes ($inlined of them
inlined copies), $ndescs function descriptors.  Wall time from bash's \`time\`,
peak RSS from \`/usr/bin/time -f %M\`, median of $REPEATS runs each, output to a
file.  Machine: $cpu, $(nproc) cores shared with other jobs,
$(date -u +%Y-%m-%d); load average $load_before before the runs and
$(cut -d' ' -f1 /proc/loadavg) after.

llvm-profgen-19 has no way to list probes without disassembling the whole
binary (\`--show-disassembly-only --show-pseudo-probe\`), so its figure is
decoding plus disassembly and printing every instruction: an upper bound
on its decoder's cost, not a like-for-like time.  spgo's --functions run
decodes everything (descriptors, records, the inline tree, the
address-sorted table) and prints only the descriptors.

| run | wall (s) | peak RSS (MB) |
| --- | ---: | ---: |
| spgo symbolize --probes --all-instructions | $all_wall | $(mb "$all_rss") |
| spgo symbolize --probes --functions | $funcs_wall | $(mb "$funcs_rss") |
| llvm-profgen-19 --show-disassembly-only --show-pseudo-probe | $llvm_wall | $(mb "$llvm_rss") |

Listing every probe, spgo takes $(ratio "$llvm_wall" "$all_wall")x less wall time and
$(ratio "$llvm_rss" "$all_rss")x less memory.  Probe listings: $same.
EOF
mv "$tmpres" "$result"
cat "$result"
echo "bench: RATIO (llvm-profgen-19 / spgo --probes --all-instructions, median wall): $(ratio "$llvm_wall" "$all_wall")x; listings $same"
