#!/usr/bin/env bash
# spgo infer on the documented text CFG format: counts, --eval, errors.
set -euo pipefail
: "${SPGO:?}"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# The paper's Figure 2a (hot loop, entry and exit unsampled) and 2b.
cat > "$t/in.cfg" <<'CFG'
cfg fig2a
block s 0 truth=1
block h 1000 truth=1001
block l 1000 truth=1000
block t 0 truth=1
edge s h truth=1
edge h l truth=1000
edge l h truth=1000
edge h t truth=1
cfg fig2b
block r 3000 truth=3000
block a 900 truth=2700
block b 100 truth=300
edge r a truth=2700
edge r b truth=300
CFG
"$SPGO" infer --cfg "$t/in.cfg" > "$t/out"
grep -qx 'block s 1' "$t/out" || fail "fig2a entry not connected: $(cat "$t/out")"
grep -qx 'edge l h 1000' "$t/out" || fail "fig2a back edge"
# fig2b with the paper's coefficients: the entry's 3000 stays, the leaves
# grow in the observed 9:1 ratio
paper="--k-inc 10 --k-dec 20 --k-inc0 11 --k-entry-inc 10 --k-entry-dec 20 --dec-floor 0 --k-unknown-inc 0 --k-layout 0"
"$SPGO" infer $paper --cfg "$t/in.cfg" > "$t/out.paper"
a=$(awk '$1=="block" && $2=="a" {print $3}' "$t/out.paper")
[ "$a" -ge 2690 ] && [ "$a" -le 2710 ] || fail "fig2b: a=$a, want ~2700"
# with spgo's defaults (k_entry_dec below k_inc) the entry comes down
# instead, the leaves keep the 9:1 ratio
read -r r a b < <(awk '$1=="block" { c[$2] = $3 } END { print c["r"], c["a"], c["b"] }' "$t/out")
[ "$r" -eq $((a + b)) ] && [ $((a * 10)) -ge $((r * 89 / 10)) ] && [ $((a * 10)) -le $((r * 91 / 10)) ] ||
  fail "fig2b defaults: r=$r a=$a b=$b"

# stdin and -o give the same; all algorithms give valid flows (no warning)
"$SPGO" infer --algo mcf -o "$t/mcf.out" < "$t/in.cfg" 2> "$t/err"
[ -s "$t/mcf.out" ] && [ ! -s "$t/err" ] || fail "mcf: $(cat "$t/err")"
for a in profi mcf fp quadratic; do
  "$SPGO" infer --algo "$a" --cfg "$t/in.cfg" > /dev/null 2> "$t/err"
  [ ! -s "$t/err" ] || fail "$a: $(cat "$t/err")"
done

# --eval against truth=: profi reproduces both figures' truth exactly
"$SPGO" infer --eval --cfg "$t/in.cfg" > "$t/eval"
grep -q '^overlap fig2a 4 1.000000 1.000000 1.000000$' "$t/eval" || fail "eval fig2a: $(cat "$t/eval")"
grep -q '^mean profi cfgs=2 ' "$t/eval" || fail "eval mean: $(cat "$t/eval")"
"$SPGO" infer --time 3 --cfg "$t/in.cfg" | grep -q '^time fig2b 3 2 ' || fail "--time"

# errors: file and line named, non-zero exit, no output file left behind
printf 'block A 1\nedge A B\n' > "$t/bad.cfg"
if "$SPGO" infer --cfg "$t/bad.cfg" -o "$t/bad.out" 2> "$t/err"; then fail "bad CFG accepted"; fi
grep -q "bad.cfg: line 2: edge names an undeclared block 'B'" "$t/err" || fail "message: $(cat "$t/err")"
[ ! -e "$t/bad.out" ] || fail "output left behind"
if "$SPGO" infer --algo nope --cfg "$t/in.cfg" 2> "$t/err"; then fail "bad algo accepted"; fi
grep -q "unknown algorithm 'nope'" "$t/err" || fail "algo message"
if "$SPGO" infer --cfg "$t/missing.cfg" 2> "$t/err"; then fail "missing file accepted"; fi
grep -q "missing.cfg" "$t/err" || fail "missing message"
echo "infer_cli: ok"
