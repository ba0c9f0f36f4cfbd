#!/usr/bin/env bash
# Symbolization benchmark: every instruction address of a large real binary,
# Debian's sqlite3 shell built from its source package with -O2 -g, through
# `spgo symbolize` and `llvm-symbolizer-19 --inlines --functions=linkage`,
# fed the same address list on stdin.  Reports wall time and peak RSS
# (/usr/bin/time, median of REPEATS runs) of both, the ratios, and whether
# the two outputs are identical.  Writes bench/results/symbolize.md.
#
# The source is fetched into BENCH_WORK by scripts/debian-source.sh
# (apt-get source; deb-src enabled from the machine's own deb sources if it
# is not yet), never committed.
set -euo pipefail
: "${SPGO:?}" "${SPGO_SRC:?}" "${BENCH_WORK:?}"
REPEATS=${REPEATS:-7}
work="$BENCH_WORK/sqlite3"
mkdir -p "$work"
cd "$work"

srcdir=$("$SPGO_SRC/scripts/debian-source.sh" sqlite3 "$work")
srcdir=$(basename "$srcdir")

bin="$work/build/sqlite3"
if ! head -c 4 "$bin" 2>/dev/null | grep -q ELF; then
  rm -rf build
  echo "bench: building the sqlite3 shell with -O2 -g (a few minutes)"
  mkdir -p build
  (cd build && "../$srcdir/configure" CFLAGS="-O2 -g" --disable-tcl --disable-shared > configure.log 2>&1 &&
     make -j2 sqlite3 > make.log 2>&1) || { tail -20 build/make.log; exit 1; }
fi

# The same shell by clang-19 with pseudo-probes: discriminators above 24
# bits on every call (libdw 0.188 rejected such line tables).  Checked
# for identical output, every instruction, with --verbose (not timed).
probe="$work/build/sqlite3-probe"
if ! head -c 4 "$probe" 2>/dev/null | grep -q ELF; then
  echo "bench: building the sqlite3 shell with clang-19 -O2 -g -fpseudo-probe-for-profiling"
  (cd build && clang-19 -O2 -g -fpseudo-probe-for-profiling -fno-omit-frame-pointer -DSQLITE_OS_UNIX=1 \
     -DSQLITE_THREADSAFE=1 -DSQLITE_ENABLE_MATH_FUNCTIONS -DHAVE_READLINE=0 -I. -o sqlite3-probe \
     shell.c sqlite3.c -lm -lpthread -ldl)
fi
"$SPGO" symbolize --binary "$probe" --all-instructions | awk '{print $1}' > probe.addrs
"$SPGO" symbolize --verbose --binary "$probe" < probe.addrs > probe.spgo
llvm-symbolizer-19 --no-demangle --verbose --inlines --functions=linkage --obj="$probe" < probe.addrs |
  grep -v -e '^  Function start filename:' -e '^  Function start address:' > probe.llvm
probe_n=$(wc -l < probe.addrs)
probe_wide=$(awk '$1 == "Discriminator:" && $2 > 16777215' probe.spgo | wc -l)
if cmp -s probe.spgo probe.llvm; then probe_same=identical; else probe_same=DIFFERENT; fi
echo "bench: probe build: $probe_n instructions, $probe_wide frames with discriminators above 2^24, --verbose output $probe_same"

"$SPGO" symbolize --binary "$bin" --all-instructions | awk '{print $1}' > addrs
naddrs=$(wc -l < addrs)
echo "bench: $naddrs instruction addresses in $bin"

# One run of "$@" < addrs > $out: appends "wall rss cpu" to $name.runs.
# Wall and user+system CPU (s, to the millisecond) from bash's `time`,
# peak RSS (KB) from /usr/bin/time.
run_once() {
  local name=$1 out=$2; shift 2
  local TIMEFORMAT='%3R %3U %3S' wall user sys
  rm -f "$out" # not timed: freeing the previous run's output
  { time /usr/bin/time -f '%M' -o rss.txt "$@" < addrs > "$out"; } 2> times.txt
  read -r wall user sys < <(tail -1 times.txt)
  echo "$wall $(tail -1 rss.txt) $(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.3f", u + s}')" >> "$name.runs"
}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# The two tools take turns, so that both see the same load on the machine;
# one untimed run of each first brings the files into the page cache.
load_before=$(cut -d' ' -f1 /proc/loadavg)
"$SPGO" symbolize --binary "$bin" < addrs > out.spgo
llvm-symbolizer-19 --inlines --functions=linkage --obj="$bin" < addrs > out.llvm
rm -f spgo.runs llvm.runs
for _ in $(seq "$REPEATS"); do
  run_once spgo out.spgo "$SPGO" symbolize --binary "$bin"
  run_once llvm out.llvm llvm-symbolizer-19 --inlines --functions=linkage --obj="$bin"
done
for t in spgo llvm; do
  read -r "${t}_wall" "${t}_rss" "${t}_cpu" < <(
    echo "$(cut -d' ' -f1 $t.runs | median) $(cut -d' ' -f2 $t.runs | median) $(cut -d' ' -f3 $t.runs | median)")
done

if cmp -s out.spgo out.llvm; then
  same="identical"
else
  ndiff=$(diff <(awk 'BEGIN{RS=""} {gsub(/\n/, "|"); print}' out.spgo) \
               <(awk 'BEGIN{RS=""} {gsub(/\n/, "|"); print}' out.llvm) | grep -c '^<' || true)
  same="different for $ndiff addresses"
fi
frames=$(grep -c ':[0-9]*:[0-9]*$' out.spgo || true)

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "inf" }'; }
speedup=$(ratio "$llvm_wall" "$spgo_wall")
cpu_ratio=$(ratio "$llvm_cpu" "$spgo_cpu")
rss_ratio=$(ratio "$llvm_rss" "$spgo_rss")
cpu=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)
textsz=$(size -A "$bin" | awk '$1 == ".text" {print $2}')
version=$(basename "$srcdir")

result="$SPGO_SRC/bench/results/symbolize.md"
tmpres=$(mktemp "$result.tmp.XXXXXX")
cat > "$tmpres" <<EOF
# Symbolization: spgo symbolize vs llvm-symbolizer-19

Every instruction address of Debian's $version shell built with \`-O2 -g\`
(gcc $(gcc -dumpversion), .text $textsz bytes): $naddrs addresses, $frames
inline frames printed.  Both read the same address list on stdin;
\`llvm-symbolizer-19 --inlines --functions=linkage --obj=sqlite3\` against
\`spgo symbolize --binary sqlite3\`, output to a file, the two taking
turns.  Wall time and CPU time (user + system) from bash's \`time\`, peak
RSS from \`/usr/bin/time -f %M\`, median of $REPEATS runs each (after one
untimed run of each).  Machine: $cpu, $(nproc) cores shared with other
jobs, $(date -u +%Y-%m-%d); load average $load_before before the runs and
$(cut -d' ' -f1 /proc/loadavg) after.  On a loaded machine the wall times, spgo's more (it
uses both cores), are worth less than the CPU times.

How spgo works here: spgo reads the line tables itself (the 247k rows of
sqlite3.c straight into its tables) while a second thread walks the DIEs
(the inline tree) with elfutils libdw; the tables are address-sorted, its
heap in transparent huge pages (fewer page faults).  Then two threads
format the addresses, in chunks, each answer reused while the next address
is in the same line row, scope and symbol, and a third writes the chunks
in order.

The same shell built by clang-19 \`-O2 -g -fpseudo-probe-for-profiling\`
(discriminators above 24 bits on every call, which libdw 0.188 rejected):
$probe_n instructions, $probe_wide frames with such discriminators; spgo's
\`--verbose\` output against \`llvm-symbolizer-19 --no-demangle --verbose\`:
$probe_same.

| tool | wall (s) | CPU (s) | peak RSS (MB) |
| --- | ---: | ---: | ---: |
| spgo symbolize | $spgo_wall | $spgo_cpu | $(awk -v k="$spgo_rss" 'BEGIN{printf "%.1f", k/1024}') |
| llvm-symbolizer-19 | $llvm_wall | $llvm_cpu | $(awk -v k="$llvm_rss" 'BEGIN{printf "%.1f", k/1024}') |

Wall time: spgo is **${speedup}x** faster (target: 20x); CPU time: ${cpu_ratio}x
less; memory: ${rss_ratio}x less.  Outputs: $same.
EOF
mv "$tmpres" "$result"
cat "$result"
echo
echo "bench: spgo $spgo_wall s wall, $spgo_cpu s CPU, $spgo_rss KB; llvm-symbolizer-19 $llvm_wall s wall, $llvm_cpu s CPU, $llvm_rss KB"
echo "bench: RATIO (llvm-symbolizer-19 / spgo, median wall): ${speedup}x (target 20x); CPU ${cpu_ratio}x; outputs $same"
