#!/usr/bin/env bash
# The pre-inliner on DWARF-line CS profiles where its decisions depend on
# more than the counts: spgo gen --preinline byte-identical to
# llvm-profgen-19's default output (pre-inliner on, nested), for clang-19
# -O2 -fdebug-info-for-profiling builds:
#  - sizes (tests/integration/lib/preinline_frame.c, captured by spgo
#    emulate): llvm-profgen takes the code sizes of the functions a range
#    starts in or a branch touches, and of the call stacks' frames only
#    with probes; mid, only ever a frame, has no size of its own, so its
#    context [main:3 @ mid] takes the size of the first child of the size
#    trie (big4025's), which spends main's budget: work stays a top-level
#    profile (spgo used mid's own 14 bytes and inlined work into main too);
#  - candidates of equal priority (tests/integration/lib/preinline_ties.c,
#    hand-written samples): helper at three call sites of base, 10 calls
#    each, room for one copy; std::priority_queue hands out equal ones in
#    an order that follows the pushes, which follow the trie's child order
#    (by call-site hash): base:2 @ helper is inlined (spgo pushed in its
#    own trie order and inlined base:4 @ helper).
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}" "${SPGO_SRC:?}"
need clang-19 llvm-profgen-19 llvm-objdump-19 qemu-x86_64
scratch
flags="-O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-pie -no-pie -fdebug-info-for-profiling"
# same NAME SPGO-INPUT... -- LLVM-PROFGEN-INPUT...: both pre-inlined profiles compared
same() {
  local name=$1 sp=() pg=()
  shift
  while [ "$1" != -- ]; do sp+=("$1"); shift; done
  shift
  pg=("$@")
  "$SPGO" gen --preinline --quiet "${sp[@]}" -o "sp-$name.txt" --format text || { bad "$name: spgo gen --preinline"; return; }
  llvm-profgen-19 "${pg[@]}" --format=text -o "pg-$name.txt" 2>/dev/null || { bad "$name: llvm-profgen-19"; return; }
  if cmp -s "pg-$name.txt" "sp-$name.txt"; then
    echo "ok   $name: byte-identical to llvm-profgen-19's"; sed 's/^/     /' "sp-$name.txt" | head -20
  else
    bad "$name: differs from llvm-profgen-19's"; diff "pg-$name.txt" "sp-$name.txt" | head -12
  fi
}

# --- sizes: a function seen only as a frame
# shellcheck disable=SC2086
clang-19 $flags -o fr "$SPGO_SRC/tests/integration/lib/preinline_frame.c" || { bad "clang-19"; exit 1; }
# (a fixed environment: its size moves the program's stack and the
# instructions its start-up runs, so the sampled branches differ with it,
# and the case below holds for most environments but not all; ctest's
# CTEST_INTERACTIVE_DEBUG_MODE=1 was one that broke it)
env -i PATH=/usr/bin:/bin "$SPGO" emulate -c 2000 -o fr.data -- ./fr 300000 >/dev/null 2>&1 || { bad "spgo emulate"; exit 1; }
"$SPGO" script -i fr.data -F ip,brstack --raw-stacks > fr.script
same frame --binary fr --perf-data fr.data -- --binary=fr --perfscript=fr.script
# The case is there: mid in no LBR entry (no range starts in it, no branch
# leaves or enters it), inlined into main with work left out.
m=$(nm fr | awk '$3 == "mid" { print $1 }'); ms=$(nm -S fr | awk '$4 == "mid" { print $2 }')
lo=$((16#$m)); hi=$((16#$m + 16#$ms)); inmid=0
while read -r a; do
  ((16#$a >= lo && 16#$a < hi)) && inmid=$((inmid + 1))
done < <(grep -oE '0x[0-9a-f]+/0x[0-9a-f]+/' fr.script | tr '/' '\n' | sed -n 's/^0x//p')
[ "$inmid" = 0 ] || bad "frame: mid in $inmid LBR entries: not the case under test"
grep -q '^ [0-9]*: mid:' pg-frame.txt && grep -q '^work:' pg-frame.txt ||
  bad "frame: llvm-profgen-19 did not inline mid into main and keep work out: not the case under test"

# --- ties: one callee at several call sites, equal counts
# shellcheck disable=SC2086
clang-19 $flags -o ties "$SPGO_SRC/tests/integration/lib/preinline_ties.c" || { bad "clang-19"; exit 1; }
dis() { llvm-objdump-19 -d --no-show-raw-insn ties --disassemble-symbols="$1"; }
helper=$(nm ties | awk '$3 == "helper" { print $1 }' | sed 's/^0*//')
hret=$(dis helper | awk '/\tret/ { a = $1 } END { sub(/:$/, "", a); print a }')
mapfile -t calls < <(dis base | awk '/call.*<helper>/ { sub(/:$/, "", $1); print $1 }')
mapfile -t rets < <(dis base | awk 'f { sub(/:$/, "", $1); print $1; f = 0 } /call.*<helper>/ { f = 1 }')
[ ${#calls[@]} = 4 ] && [ ${#rets[@]} = 4 ] && [ -n "$hret" ] ||
  { bad "ties: the code is not as expected: calls of helper '${calls[*]}', its ret '$hret'"; exit 1; }
# COUNT samples after the return from helper to the call site: leaf there,
# stack base <- libc; the LBR holds that return and the call before it.
site() {
  for ((i = 0; i < $3; i++)); do
    printf '\t%16s\n\t%16s\n 0x%s/0x%s/P/-/-/0/  0x%s/0x%s/P/-/-/0/  0x7f0000002000/0x7f0000003000/P/-/-/0/\n\n' \
      "$2" 7f0000001234 "$hret" "$2" "$1" "$helper"
  done
}
{ for k in 0 1 2; do site "${calls[$k]}" "${rets[$k]}" 10; done; site "${calls[3]}" "${rets[3]}" 2; } > ties.script
same ties --binary ties --perf-script ties.script -- --binary=ties --perfscript=ties.script
# The case is there: one of the three copies inlined, the budget spent.
[ "$(grep -c '^ [0-9]*: helper:' pg-ties.txt)" = 1 ] && [ "$(grep -c '^ [0-9]*: 10 helper:10' pg-ties.txt)" = 2 ] ||
  bad "ties: not one of three equal call sites inlined in llvm-profgen-19's output: not the case under test"
[ $fail -eq 0 ] && echo "gen_cs_preinline_dwarf: ok"
exit $fail
