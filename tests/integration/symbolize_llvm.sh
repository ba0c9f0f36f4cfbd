#!/usr/bin/env bash
# spgo symbolize against llvm-symbolizer-19 and llvm-objdump-19, on every
# instruction address of:
#   - tests/data/inline_demo.c by clang-19 -O2 -g -fdebug-info-for-profiling
#     (DWARF 5, lld), gcc -O2 -g (DWARF 5) and gcc -O2 -gdwarf-4;
#   - the same by gcc -gdwarf-3 and -gdwarf-2 -gstrict-dwarf, with zlib- and
#     zstd-compressed debug sections, as a non-PIE
#     lld layout with a separate code segment, and stripped with the DWARF in
#     a separate file (given with --debug-binary, and found by build-id);
#   - ../shared/data/autofdo-gzip/test.binary (GCC 4.6, DWARF 2);
#   - the system's libc.so.6 with its libc6-dbg DWARF, if installed.
# For each address, the inline frames (linkage name, file, line, column) must
# equal `llvm-symbolizer-19 --inlines --functions=linkage`; with --verbose the
# decl line (Function start line) and discriminators too.  Instruction
# boundaries, classes and direct targets must equal llvm-objdump-19 -d.
#
# Known differences: none; every address of these binaries agrees.
set -uo pipefail
: "${SPGO:?}" "${SPGO_SRC:?}"
for t in clang-19 gcc llvm-symbolizer-19 llvm-objdump-19 objcopy; do
  command -v "$t" >/dev/null || { echo "skip: $t not installed"; exit 77; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src="$SPGO_SRC/tests/data/inline_demo.c"
cd "$tmp"
set -e
clang-19 -O2 -g -fdebug-info-for-profiling -fuse-ld=lld -o clang-dwarf5 "$src"
gcc -O2 -g -o gcc-dwarf5 "$src"
gcc -O2 -gdwarf-4 -o gcc-dwarf4 "$src"
gcc -O2 -gdwarf-3 -o gcc-dwarf3 "$src"
gcc -O2 -gdwarf-2 -gstrict-dwarf -o gcc-dwarf2 "$src"
gcc -O2 -g -gz=zlib -o gcc-zlib "$src"
clang-19 -O2 -g -gz=zstd -fuse-ld=lld -o clang-zstd "$src"
clang-19 -O2 -gdwarf-4 -no-pie -fuse-ld=lld -Wl,-z,separate-code -o clang-nopie "$src"
set +e

failed=0
fail() { echo "FAIL: $*"; failed=1; }

# Frames of each address, spgo vs llvm-symbolizer, in both output modes.
# $1 the binary for llvm-symbolizer, $2 a name, then the spgo options.
compare_frames() {
  local obj=$1 name=$2; shift 2
  "$SPGO" symbolize "$@" --all-instructions > "$name.insns" || { fail "$name: --all-instructions"; return; }
  awk '{print $1}' "$name.insns" > "$name.addrs"
  local n; n=$(wc -l < "$name.addrs")
  [ "$n" -gt 100 ] || { fail "$name: only $n instructions"; return; }
  "$SPGO" symbolize "$@" < "$name.addrs" > "$name.spgo" || { fail "$name: spgo symbolize"; return; }
  llvm-symbolizer-19 --inlines --functions=linkage --obj="$obj" ${LLVM_EXTRA:-} < "$name.addrs" > "$name.llvm"
  if ! cmp -s "$name.spgo" "$name.llvm"; then
    fail "$name: frames differ from llvm-symbolizer-19:"; diff "$name.spgo" "$name.llvm" | head -20
  fi
  "$SPGO" symbolize --verbose "$@" < "$name.addrs" > "$name.spgo-v"
  llvm-symbolizer-19 --verbose --inlines --functions=linkage --obj="$obj" ${LLVM_EXTRA:-} < "$name.addrs" |
    grep -v -e '^  Function start filename:' -e '^  Function start address:' > "$name.llvm-v"
  if ! cmp -s "$name.spgo-v" "$name.llvm-v"; then
    fail "$name: --verbose differs from llvm-symbolizer-19 --verbose:"; diff "$name.spgo-v" "$name.llvm-v" | head -20
  fi
  local frames; frames=$(awk 'NF == 0 {next} /:[0-9]+:[0-9]+$/ {n++} END {print n+0}' "$name.spgo")
  echo "$name: $n addresses, $frames frames, equal to llvm-symbolizer-19"
}

# Instruction boundaries, classes and targets, spgo vs llvm-objdump.
compare_insns() {
  local obj=$1 name=$2
  llvm-objdump-19 -d --no-show-raw-insn "$obj" | awk -f "$SPGO_SRC/tests/integration/objdump_classes.awk" > "$name.objdump"
  awk '{ print $1, $3 (NF > 3 ? " " $4 : "") }' "$name.insns" > "$name.classes"
  if ! cmp -s "$name.classes" "$name.objdump"; then
    fail "$name: instructions differ from llvm-objdump-19 -d:"; diff "$name.classes" "$name.objdump" | head -20
  else
    echo "$name: $(wc -l < "$name.classes") instructions, boundaries and classes equal to llvm-objdump-19"
  fi
}

for b in clang-dwarf5 gcc-dwarf5 gcc-dwarf4 gcc-dwarf3 gcc-dwarf2 gcc-zlib clang-zstd clang-nopie; do
  compare_frames "$b" "$b" --binary "$b"
  compare_insns "$b" "$b"
done

# Relative compilation directories (reproducible builds): paths stay
# relative, as llvm-symbolizer composes them ("././inline_demo.h" included).
cp "$src" "$SPGO_SRC/tests/data/inline_demo.h" .
clang-19 -O2 -g -fdebug-compilation-dir=. -o rel-clang inline_demo.c
gcc -O2 -g -fdebug-prefix-map="$tmp=build/x" -o rel-gcc5 inline_demo.c
gcc -O2 -gdwarf-4 -fdebug-prefix-map="$tmp=." -o rel-gcc4 inline_demo.c
for b in rel-clang rel-gcc5 rel-gcc4; do
  compare_frames "$b" "$b" --binary "$b"
done
grep -q '^  Filename: \./inline_demo.c$' rel-clang.spgo-v || fail "rel-clang: no relative path"
grep -q '^  Filename: build/x/inline_demo.c$' rel-gcc5.spgo-v || fail "rel-gcc5: no relative path"

# Builds whose discriminators do not fit 24 bits, which libdw 0.188 rejects
# (a whole CU's line table, silently): pseudo-probe builds (probe ids in
# the discriminators of calls), also with frame pointers, and flow-
# sensitive discriminators; every test program.  Probe builds give static
# functions unique mangled names (_ZL5scorePKc.__uniq.N): both demangled
# as llvm-symbolizer prints them by default ("score(char const*)
# (.__uniq.N)") and with --no-demangle on both sides.
wide=0
for p in inline_demo profile_prog perf_prog switch_prog icall_prog; do
  for v in probe probe-fp fsdisc; do
    case $v in
      probe) flags="-fpseudo-probe-for-profiling" ;;
      probe-fp) flags="-fpseudo-probe-for-profiling -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer" ;;
      fsdisc) flags="-fdebug-info-for-profiling -mllvm -enable-fs-discriminator=true" ;;
    esac
    # shellcheck disable=SC2086
    clang-19 -O2 -g $flags -fuse-ld=lld -o "$p-$v" "$SPGO_SRC/tests/data/$p.c" -lm || { fail "build $p-$v"; continue; }
    compare_frames "$p-$v" "$p-$v" --binary "$p-$v"
    LLVM_EXTRA=--no-demangle compare_frames "$p-$v" "$p-$v-raw" --binary "$p-$v" --no-demangle
    # The test must be able to fail: discriminators above 2^24 are there.
    wide=$((wide + $(awk '$1 == "Discriminator:" && $2 > 16777215' "$p-$v.spgo-v" | wc -l)))
  done
done
[ "$wide" -gt 0 ] || fail "no discriminator above 2^24 in the probe and FS builds"
echo "probe and FS builds: $wide frames with a discriminator above 2^24"
grep -q '^score(char const\*) (\.__uniq\.[0-9]*)$' inline_demo-probe.spgo ||
  fail "inline_demo-probe: no demangled score(char const*) (.__uniq.N)"

# Static functions of every parameter shape C has, in a probe build: each
# gets a unique internal name (_ZL...__uniq.N) that must print as
# llvm-symbolizer-19 demangles it -- builtins, pointers, const, volatile,
# restrict, arrays, pointers to arrays and functions, structs, unions,
# enums (and their substitutions S_, S0_...), variadic, (void).
cat > statics.c <<'EOF'
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
struct node { int v; struct node *next; };
union cell { int i; float f; };
enum color { RED, GREEN };
typedef int (*binop)(int, int);
static int add(int a, int b) { return a + b; }
static int __attribute__((noinline)) mid(int x) { return x / 2 + (x & 1); }
static long __attribute__((noinline)) sum(const struct node *n, struct node *m) { long s = 0; for (; n; n = n->next) s += n->v; return s + (m ? m->v : 0); }
static double __attribute__((noinline)) cells(union cell *c, const union cell *d, enum color k) { return c->f + d->i + k; }
static int __attribute__((noinline)) apply(binop f, int (*g)(int), int a) { return f(a, g(a)); }
static int __attribute__((noinline)) rows(int (*m)[4], const char *const *names, volatile unsigned *flag) { *flag = 1; return m[1][2] + names[0][0]; }
static int __attribute__((noinline)) total(int n, ...) { va_list ap; va_start(ap, n); int s = 0; for (int i = 0; i < n; i++) s += va_arg(ap, int); va_end(ap); return s; }
static unsigned char __attribute__((noinline)) bytes(char *restrict a, unsigned short b, long long c, unsigned long d, signed char e, _Bool f) { return (unsigned char)(a[0] + b + c + d + e + f); }
static void __attribute__((noinline)) nothing(void) { puts("x"); }
int main(int argc, char **argv)
{
	struct node b = {argc, NULL}, a = {2, &b};
	union cell c = {.f = 1.5f}, d = {.i = 3};
	int m[2][4] = {{0}, {1, 2, 3, 4}};
	const char *names[] = {argv[0]};
	volatile unsigned flag = 0;
	char buf[2] = {1, 0};
	nothing();
	long r = sum(&a, &b) + (long)cells(&c, &d, GREEN) + apply(add, mid, argc) + rows(m, names, &flag) +
		 total(3, 1, 2, argc) + bytes(buf, 1, 2, 3, 4, 1);
	return (int)(r & 1) + (argc > 5 ? mid(atoi(argv[1])) : 0);
}
EOF
if clang-19 -O1 -g -fpseudo-probe-for-profiling -fuse-ld=lld -o statics statics.c; then
  compare_frames statics statics --binary statics
  mangled=$(nm statics | grep -c ' _ZL.*__uniq')
  [ "$mangled" -ge 8 ] || fail "statics: only $mangled unique internal names"
  for want in 'mid(int) (.__uniq.' 'sum(node const*, node*) (.__uniq.' 'apply(int (*)(int, int), int (*)(int), int) (.__uniq.' \
    'rows(int (*) [4], char const* const*, unsigned int volatile*) (.__uniq.' 'total(int, ...) (.__uniq.' 'nothing() (.__uniq.'; do
    grep -qF "$want" statics.spgo || fail "statics: no frame named '$want...'"
  done
else
  fail "build statics.c"
fi

# The test must be able to fail: the inline frames from the header, the
# discriminators of -fdebug-info-for-profiling and GCC's split cold part.
grep -q 'inline_demo.h:[0-9]*:[0-9]*$' clang-dwarf5.spgo || fail "no frame in inline_demo.h"
grep -q '^  Discriminator: ' clang-dwarf5.spgo-v || fail "no discriminator in the clang build"
grep -q '^work.cold$' gcc-dwarf5.spgo || fail "no work.cold frame in the gcc build"
[ "$("$SPGO" symbolize --binary clang-dwarf5 0x0 | head -2 | tr '\n' ' ')" = "?? ??:0:0 " ] || fail "unknown address"

# Odd input lines: spaces, decimal, upper-case hex, an empty line, a word.
start=$(nm clang-dwarf5 | awk '$3 == "work" {print $1}' | sed 's/^0*//')
printf '0x%s\nfoo\n\n  0x%s  \n%d\n0X%s\n' "$start" "$start" "$((16#$start))" "$start" > odd.txt
"$SPGO" symbolize --binary clang-dwarf5 < odd.txt > odd.spgo
llvm-symbolizer-19 --inlines --functions=linkage --obj=clang-dwarf5 < odd.txt > odd.llvm
cmp -s odd.spgo odd.llvm || { fail "odd input lines:"; diff odd.spgo odd.llvm; }

# A file of many addresses (over two 32 KB chunks) is formatted on two
# threads in chunks: the same text as llvm-symbolizer and as one thread,
# odd lines included, in order.
for _ in $(seq 60); do cat clang-dwarf5.addrs odd.txt; done > many.txt
[ "$(wc -c < many.txt)" -gt 100000 ] || fail "many.txt is too small to be cut into chunks"
"$SPGO" symbolize --binary clang-dwarf5 < many.txt > many.spgo
SPGO_THREADS=1 "$SPGO" symbolize --binary clang-dwarf5 < many.txt > many.spgo1
llvm-symbolizer-19 --inlines --functions=linkage --obj=clang-dwarf5 < many.txt > many.llvm
cmp -s many.spgo many.llvm || { fail "many addresses, two threads:"; diff many.spgo many.llvm | head; }
cmp -s many.spgo1 many.llvm || { fail "many addresses, one thread:"; diff many.spgo1 many.llvm | head; }

# As a coprocess (the way tools drive llvm-symbolizer): each answer must
# come before the next question is asked; with and without helper threads.
for threads in "" 1; do
  coproc SYM { SPGO_THREADS=$threads "$SPGO" symbolize --binary clang-dwarf5; }
  echo "0x$start" >&"${SYM[1]}"
  read -r -t 10 -u "${SYM[0]}" answer || answer="(no answer)"
  [ "$answer" = work ] || fail "coprocess (SPGO_THREADS=$threads): got '$answer' for 0x$start"
  exec {SYM[1]}>&-
  wait "$SYM_PID" 2>/dev/null
done

# The function table: GCC's split cold part is tied to its parent, starts
# where its symbol does, and decl lines are those llvm-symbolizer reports.
"$SPGO" symbolize --binary gcc-dwarf5 --functions > gcc-functions || fail "--functions"
cold=$(nm gcc-dwarf5 | awk '$3 == "work.cold" {print $1}' | sed 's/^0*//')
grep -q "^0x$cold 0x[0-9a-f]* work work.cold decl_line=[0-9]* parent=work$" gcc-functions ||
  { fail "work.cold is not tied to work:"; cat gcc-functions; }
# Without symbols (strip --strip-all, DWARF from the debug file), the part
# is still tied to work: it is the second range of work's DIE.
objcopy --strip-all gcc-dwarf5 gcc-nosyms
objcopy --only-keep-debug gcc-dwarf5 gcc-nosyms.debug
"$SPGO" symbolize --binary gcc-nosyms --debug-binary gcc-nosyms.debug --functions > gcc-nosyms-functions
grep -q "^0x$cold 0x[0-9a-f]* work work decl_line=[0-9]* parent=work$" gcc-nosyms-functions ||
  { fail "stripped: the cold part is not tied to work:"; cat gcc-nosyms-functions; }
decl=$(llvm-symbolizer-19 --verbose --functions=linkage --obj=gcc-dwarf5 "0x$cold" | awk '/Function start line/ {print $4}')
grep -q "^0x[0-9a-f]* 0x[0-9a-f]* work work decl_line=$decl\$" gcc-functions || fail "decl line of work is not $decl"

# Separate debug file: stripped binary + its DWARF, given and by build-id.
objcopy --only-keep-debug gcc-dwarf5 gcc.debug
objcopy --strip-debug gcc-dwarf5 gcc-stripped
id=$(readelf -n gcc-dwarf5 | awk '/Build ID/ {print $3}')
mkdir -p "dbg/.build-id/${id:0:2}" && cp gcc.debug "dbg/.build-id/${id:0:2}/${id:2}.debug"
LLVM_EXTRA="--debug-file-directory=$tmp/dbg" compare_frames gcc-stripped gcc-debug-binary --binary gcc-stripped --debug-binary gcc.debug
SPGO_DEBUG_ROOT="$tmp/dbg" LLVM_EXTRA="--debug-file-directory=$tmp/dbg" compare_frames gcc-stripped gcc-build-id --binary gcc-stripped

# Debian's libc.so.6, when libc6-dbg provides its DWARF (found by build-id):
# a large GCC 12 DWARF 5 binary with AVX-512 code.  Frames of every 7th
# instruction against llvm-symbolizer-19; instruction boundaries and classes
# against GNU objdump, since llvm-objdump-19 -d disassembles nothing in this
# symbol-less shared object.
libc=$(ldd "$SPGO" | awk '$1 == "libc.so.6" {print $3}')
libc_id=$([ -n "$libc" ] && readelf -n "$libc" | awk '/Build ID/ {print $3}')
if [ -n "$libc_id" ] && [ -f "/usr/lib/debug/.build-id/${libc_id:0:2}/${libc_id:2}.debug" ]; then
  "$SPGO" symbolize --binary "$libc" --all-instructions > libc.insns
  awk 'NR % 7 == 0 {print $1}' libc.insns > libc.addrs
  "$SPGO" symbolize --verbose --binary "$libc" < libc.addrs > libc.spgo-v
  llvm-symbolizer-19 --verbose --inlines --functions=linkage --obj="$libc" < libc.addrs |
    grep -v -e '^  Function start filename:' -e '^  Function start address:' > libc.llvm-v
  if cmp -s libc.spgo-v libc.llvm-v; then
    echo "libc: $(wc -l < libc.addrs) addresses, equal to llvm-symbolizer-19 --verbose"
  else
    fail "libc: frames differ from llvm-symbolizer-19:"; diff libc.spgo-v libc.llvm-v | head -20
  fi
  objdump -d --no-show-raw-insn "$libc" | awk -f "$SPGO_SRC/tests/integration/objdump_classes.awk" > libc.objdump
  awk '{ print $1, $3 (NF > 3 ? " " $4 : "") }' libc.insns > libc.classes
  if cmp -s libc.classes libc.objdump; then
    echo "libc: $(wc -l < libc.classes) instructions, boundaries and classes equal to GNU objdump"
  else
    fail "libc: instructions differ from objdump -d:"; diff libc.classes libc.objdump | head -20
  fi
else
  echo "note: no libc6-dbg debug file for $libc, skipping libc"
fi

# The real-world binary of the shared data.
gz="${SPGO_SHARED:-}/data/autofdo-gzip/test.binary"
if [ -f "$gz" ]; then
  compare_frames "$gz" gzip --binary "$gz"
  compare_insns "$gz" gzip
else
  echo "note: $gz not found, skipping the GCC 4.6 binary"
fi
exit $failed
