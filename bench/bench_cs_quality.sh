#!/usr/bin/env bash
# CS profile quality against exact ground truth (#15, acceptance 2).  One
# `spgo emulate --ground-truth-cs` run per program and build gives both the
# LBR + call-stack capture and the exact per-context counts; from that one
# capture:
#  - spgo gen --cs (flat), with --cs-call-estimate entry (line-keyed only),
#    and --preinline (nested, pre-inlined);
#  - llvm-profgen-19 CS, flat (--csspgo-preinliner=false
#    --gen-cs-nested-profile=false) and its default (pre-inlined, nested),
#    fed `spgo script --raw-stacks`;
#  - spgo gen (the non-CS AutoFDO profile; probe-keyed on probe builds);
# each scored by `spgo overlap --cs-truth` against the reference profile of
# the exact counts (`spgo gen --ground-truth-cs`: probe-keyed on a probe
# build, true view, as the probe profiles infer tail-call frames; DWARF
# lines on a DWARF build, frame-pointer view, as line profiles do not):
# the context view and the post-inline view (flat profiles and AutoFDO:
# every inlinee/context inlined, --inline all; pre-inlined profiles: what
# they mark ShouldBeInlined), each weighted by the profile's samples (the
# paper's D(P)) and by the reference's.
# Programs: the demo (minivm 6), sqlite3's speedtest1 (--size 10 --memdb),
# bzip2 (-9 on 4 MB of text) and Lua 5.4 (a mixed script), built by clang-19
# -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-pie
# -no-pie, with -fpseudo-probe-for-profiling (probe) or
# -fdebug-info-for-profiling (dwarf).  Writes bench/results/cs_quality.md.
set -euo pipefail
: "${SPGO:?}" "${SPGO_SRC:?}" "${BENCH_WORK:?}"
source "$SPGO_SRC/bench/gen_programs.sh"
w="$BENCH_WORK/cs_quality"
mkdir -p "$w"
cd "$w"
base="-O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-pie -no-pie"
# overlap REF PROFILE VIEW-ARGS...: "profile-weighted ref-weighted" (percent)
overlap() {
  "$SPGO" overlap --cs-truth "$1" "$2" "${@:3}" 2>/dev/null |
    sed -n 's/^CS block overlap: \([0-9.]*\)% .*, \([0-9.]*\)% .*/\1 \2/p'
}

rows=()
one() {  # NAME "SOURCES" "ARGS"
  local name=$1 srcs=$2 args=$3
  for kind in probe dwarf; do
    local b="$name-$kind" flags="$base -fpseudo-probe-for-profiling" view=true
    [ "$kind" = dwarf ] && flags="$base -fdebug-info-for-profiling" view=fp
    echo "-- $b"
    # shellcheck disable=SC2086
    [ -x "$b" ] || clang-19 $flags -o "$b" $srcs
    if [ ! -s "$b.data" ] || [ "$b" -nt "$b.data" ]; then
      # shellcheck disable=SC2086
      "$SPGO" emulate --ground-truth-cs "$b.truth" -o "$b.data" -- "./$b" $args >/dev/null 2>"$b.emulate"
    fi
    "$SPGO" script -i "$b.data" -F ip,brstack --raw-stacks > "$b.script"
    "$SPGO" gen --binary "$b" --ground-truth-cs "$b.truth" --truth-view $view -o "$b.ref" --format text
    local g=("$SPGO" gen --quiet --binary "$b" --perf-data "$b.data" --format text)
    "${g[@]}" --cs --cs-flat --no-preinline -o "$b.cs"
    "${g[@]}" --preinline -o "$b.csp"
    "${g[@]}" --no-cs -o "$b.afdo"
    local pg=(llvm-profgen-19 --binary="$b" --perfscript="$b.script" --format=text)
    "${pg[@]}" -o "$b.pgcs" --csspgo-preinliner=false --gen-cs-nested-profile=false >/dev/null 2>&1 || : > "$b.pgcs"
    "${pg[@]}" -o "$b.pgcsp" >/dev/null 2>&1 || : > "$b.pgcsp"
    local profs="cs csp pgcs pgcsp afdo"
    if [ "$kind" = dwarf ]; then
      "${g[@]}" --cs --cs-flat --no-preinline --cs-call-estimate entry -o "$b.cse"
      "${g[@]}" --preinline --cs-call-estimate entry -o "$b.cspe"
      profs="cs cse csp cspe pgcs pgcsp afdo"
    fi
    local samples
    samples=$(sed -n 's/.*: \([0-9]*\) samples,.*/\1/p' "$b.emulate" 2>/dev/null | head -1)
    for p in $profs; do
      local label inl=(--inline all) c i
      case $p in
        cs) label="spgo CS, flat" ;;
        cse) label="spgo CS, flat, --cs-call-estimate entry" ;;
        csp) label="spgo CS, --preinline"; inl=() ;;
        cspe) label="spgo CS, --preinline --cs-call-estimate entry"; inl=() ;;
        pgcs) label="llvm-profgen CS, flat" ;;
        pgcsp) label="llvm-profgen CS, pre-inlined (default)"; inl=() ;;
        afdo) label="spgo AutoFDO (non-CS)" ;;
      esac
      c=$(overlap "$b.ref" "$b.$p" --view context)
      i=$(overlap "$b.ref" "$b.$p" --view inline "${inl[@]}")
      [ -n "$c" ] || c="- -"
      [ -n "$i" ] || i="- -"
      # shellcheck disable=SC2086
      rows+=("$(printf '| %s | %s | %s | %s | %s %s | %s %s |' "$name" "$kind" "${samples:-?}" "$label" $c $i |
                sed 's/ \([0-9.]*\) \([0-9.]*\) |/ \1% | \2% |/g')")
    done
  done
}

one minivm "$SPGO_SRC/examples/minivm/minivm.c" 6
sq="$BENCH_WORK/gen/sqlite"
if gen_fetch_sqlite "$sq"; then
  one speedtest1 "-DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_THREADSAFE=0 -I$sq $sq/speedtest1.c $sq/sqlite3.c -lm" \
    "--size 10 --memdb"
fi
if gen_fetch_bzip2 "$BENCH_WORK/gen"; then
  bz="$BENCH_WORK/gen/bzip2"
  [ -f bzin ] || { cat "$bz"/*.c "$bz"/*.h /usr/include/*.h 2>/dev/null | head -c 4000000 > bzin; }
  one bzip2 "-D_FILE_OFFSET_BITS=64 -I$bz $bz/bzip2.c $bz/blocksort.c $bz/huffman.c $bz/crctable.c $bz/randtable.c $bz/compress.c $bz/decompress.c $bz/bzlib.c" \
    "-kf9c bzin"
fi
if gen_fetch_lua "$BENCH_WORK/gen"; then
  lu="$BENCH_WORK/gen/lua"
  cat > bench.lua <<'EOF'
-- a small mixed workload: recursion, closures, tables, strings, sort
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local t = {}
for i = 1, 50000 do t[i] = (i * 7919) % 10007 end
table.sort(t, function(a, b) return a > b end)
local parts = {}
for i = 1, 20000 do parts[#parts + 1] = string.format("%d:%s", i, tostring(t[i])) end
local s = table.concat(parts, ",")
local n = 0
for w in s:gmatch("%d+") do n = n + #w end
local acc = 0
for i = 1, 1000000 do acc = acc + (i % 3 == 0 and i or -i) end
local obj = setmetatable({}, {__index = function(_, k) return k * 2 end})
local m = 0
for i = 1, 100000 do m = m + obj[i] end
print(fib(25), n, acc, m)
EOF
  one lua "-DLUA_USE_LINUX $(ls "$lu"/*.c | grep -v -e '/luac\.c$' -e '/onelua\.c$' | tr '\n' ' ') -lm -ldl" bench.lua
fi

out="$SPGO_SRC/bench/results/cs_quality.md"
{
  echo "# CS profile quality against exact ground truth"
  echo
  echo "Generated by bench/bench_cs_quality.sh on $(date -u +%Y-%m-%d).  One \`spgo emulate"
  echo "--ground-truth-cs\` run per program and build (default period, 32-entry LBR + call"
  echo "stacks) gives the capture every profile is made from and the exact per-context"
  echo "counts they are scored against (\`spgo gen --ground-truth-cs\`: probe-keyed, true view"
  echo "on probe builds; DWARF lines, frame-pointer view on DWARF builds).  Block overlap"
  echo "(\`spgo overlap --cs-truth\`), each figure weighted by the profile's samples (the"
  echo "paper's D(P)) / by the reference's.  Context view: a reference context is counted in"
  echo "the longest suffix of it the profile has, else in its leaf's base.  Post-inline view:"
  echo "flat profiles and AutoFDO with every context or inlinee inlined (--inline all),"
  echo "pre-inlined ones as they mark ShouldBeInlined."
  echo
  echo "| program | build | samples | profile | context view | (ref-weighted) | post-inline view | (ref-weighted) |"
  echo "|---|---|---:|---|---:|---:|---:|---:|"
  printf '%s\n' "${rows[@]}"
  echo
  cat "$SPGO_SRC/bench/cs_quality_notes.md"
} > "$out.new"
mv "$out.new" "$out"
cat "$out"
