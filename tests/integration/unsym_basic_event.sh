#!/usr/bin/env bash
# Unsymbolized IP samples in newer llvm-profgen's basic-event form (issue
# 25; llvm-project #222624, --basic-events --skip-symbolization):
#   # llvm-profgen-content: basic-event
#   N
#   OFFSET:COUNT      (N lines, hex offsets without 0x, ascending)
#  - spgo gen --skip-symbolization and spgo aggregate --format profgen on a
#    cpu-clock capture (no LBR) write it (spgo wrote "0" and "0", an empty
#    list of ranges and branches, with exit status 0);
#  - spgo gen --unsymbolized of it writes the profile spgo gen writes from
#    the capture, byte for byte; so does spgo's older text form (# ips);
#  - --mode ip on LBR data writes the IP samples the same way;
#  - repeated offsets add up (as llvm-profgen's reader); bad files (unknown
#    content, a short list, trailing lines, a bad line, a count overflowing)
#    are refused with FILE:LINE.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need perf clang-19
scratch
perf record -q -e cpu-clock:u -o probe.data -- true 2>/dev/null || { echo "skip: perf cannot record"; exit 77; }
clang-19 -O2 -g -fdebug-info-for-profiling -o minivm "$SPGO_SRC/examples/minivm/minivm.c" || { bad "build"; exit 1; }
perf record -q -e cpu-clock:u -F 20000 -o vm.data -- ./minivm 20 >/dev/null 2>&1
[ -s vm.data ] || { bad "perf record"; exit 1; }
gen() { "$SPGO" gen --quiet --binary minivm --format text "$@"; }

gen --perf-data vm.data -o direct.txt || bad "gen from perf.data"
"$SPGO" gen --quiet --binary minivm --perf-data vm.data --skip-symbolization -o ip.unsym ||
	bad "gen --skip-symbolization"
head -1 ip.unsym | grep -qx '# llvm-profgen-content: basic-event' ||
	bad "gen --skip-symbolization of IP samples: no basic-event header: $(head -2 ip.unsym | tr '\n' ' ')"
awk 'NR == 2 { n = $1; if (n < 10) bad = 1; next }
     NR > 2 { if ($0 !~ /^[1-9a-f][0-9a-f]*:[0-9]+$/) bad = 1; split($0, f, ":"); o = f[1]
              # ascending hex: shorter first, then by characters
              if (NR > 3 && (length(o) < length(prev) || (length(o) == length(prev) && ("x" o) <= ("x" prev)))) bad = 1
              prev = o; m++ }
     END { exit bad || m != n }' ip.unsym ||
	bad "the basic-event lines are not N ascending OFFSET:COUNT lines"
echo "basic-event file: $(sed -n 2p ip.unsym) offsets, $(awk -F: 'NR > 2 { s += $2 } END { print s }' ip.unsym) samples"
gen --unsymbolized ip.unsym -o from_unsym.txt || bad "gen --unsymbolized of the basic-event file"
cmp -s direct.txt from_unsym.txt || bad "gen from the basic-event file differs from gen from perf.data"
"$SPGO" aggregate --quiet --binary minivm --format profgen -o agg.unsym vm.data || bad "aggregate --format profgen"
cmp -s agg.unsym ip.unsym || bad "aggregate --format profgen differs from gen --skip-symbolization"
# spgo's own text form (with '# ips') reads as before
"$SPGO" aggregate --quiet --binary minivm --format text -o agg.txt vm.data && gen --unsymbolized agg.txt -o from_text.txt &&
	cmp -s direct.txt from_text.txt || bad "gen from spgo's text form differs from gen from perf.data"

# --mode ip on LBR samples: their IPs, in the same form
if command -v qemu-x86_64 >/dev/null; then
	"$SPGO" emulate -c 4001 -o e.data -- ./minivm 1 >/dev/null 2>&1 || bad "spgo emulate"
	gen --mode ip --perf-data e.data -o e_direct.txt 2>/dev/null || bad "gen --mode ip"
	"$SPGO" gen --quiet --mode ip --binary minivm --perf-data e.data --skip-symbolization -o e.unsym 2>/dev/null ||
		bad "gen --mode ip --skip-symbolization"
	head -1 e.unsym | grep -qx '# llvm-profgen-content: basic-event' || bad "--mode ip: no basic-event header"
	gen --mode ip --unsymbolized e.unsym -o e_unsym.txt 2>/dev/null && cmp -s e_direct.txt e_unsym.txt ||
		bad "--mode ip: gen from the basic-event file differs from gen from perf.data"
fi

# Repeated offsets add up: the file with its lines doubled gives the
# profile of the capture counted twice (spgo's text form merged with itself)
{ echo '# llvm-profgen-content: basic-event'; echo $(($(sed -n 2p ip.unsym) * 2))
  tail -n +3 ip.unsym; tail -n +3 ip.unsym; } > twice.unsym
"$SPGO" merge -o w2.txt --format text agg.txt agg.txt || bad "merge"
gen --unsymbolized twice.unsym -o twice.txt && gen --unsymbolized w2.txt -o w2.prof &&
	cmp -s twice.txt w2.prof || bad "repeated offsets are not added up"

# Errors name the file and line
check_err() {  # NAME PATTERN CONTENT
	printf "$3" > "$1.unsym"
	if gen --unsymbolized "$1.unsym" -o x.txt 2>err.txt; then
		bad "$1: accepted"
	elif grep -q "$1.unsym:$2" err.txt; then
		echo "ok   $1: $(cat err.txt)"
	else
		bad "$1: error without FILE:LINE $2: $(cat err.txt)"
	fi
}
check_err unknown '1: unknown llvm-profgen content' '# llvm-profgen-content: unknown\n1\n40:1\n'
check_err short '3: missing basic-event sample' '# llvm-profgen-content: basic-event\n2\n40:1\n'
check_err trailing '4: unexpected content' '# llvm-profgen-content: basic-event\n1\n40:1\n0\n'
check_err badline '3: bad basic-event sample' '# llvm-profgen-content: basic-event\n1\n40-41:1\n'
check_err overflow '4: the sample count overflows' \
	'# llvm-profgen-content: basic-event\n2\n40:18446744073709551615\n40:1\n'
check_err nocount '2: expected a count' '# llvm-profgen-content: basic-event\nx\n'
[ $fail -eq 0 ] && echo "unsym_basic_event: ok"
exit $fail
