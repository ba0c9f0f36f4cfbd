#!/usr/bin/env bash
# spgo overlap on hand-made text profiles, where the answer is known:
#   - --cs-truth against a profile with no body samples: one error line and
#     exit 1, with nothing left allocated (make check runs this under ASan
#     with detect_leaks=1, where a leak on that path ends spgo otherwise);
#   - counts near 2^64, whose sums do not fit 64 bits: the figures are
#     those of the exact sums (they wrapped, giving -200% similarity), and
#     the totals say that they saturate; the same for --cs-truth.
. "$(dirname "$0")/lib/common.sh" || exit 1
: "${SPGO:?}"
scratch

# --cs-truth: the measured profile (or the reference) has no body samples.
printf 'main:10:0\n 1: 10\n' > ref.txt
printf 'main:0:0\n' > empty.txt
printf 'main:10:0\n 1: foo:10\n' > calls.txt # a call target is no body sample
for p in empty.txt calls.txt; do
  "$SPGO" overlap --cs-truth ref.txt "$p" > out 2> err; rc=$?
  [ "$rc" -eq 1 ] || bad "--cs-truth ref.txt $p: exit $rc, not 1: $(cat err)"
  [ "$(cat err)" = "spgo: the measured profile has no body samples" ] ||
    bad "--cs-truth ref.txt $p: $(cat err)"
done
"$SPGO" overlap --cs-truth empty.txt ref.txt > out 2> err; rc=$?
[ "$rc" -eq 1 ] && grep -q 'reference profile has no body samples' err ||
  bad "--cs-truth empty.txt ref.txt: exit $rc: $(cat err)"

# Counts near 2^64.  X = 2^64-1, T = X/3 (exact).  base: f {1: X, 2: X},
# g {1: X}; test: f {1: X, 2: T}, g {1: X}.  Exact figures:
#   f: blocks 1/2, 1/2 against 3/4, 1/4: internal similarity 3/4; weights
#      2/3 (base) and 4/7 (test): similarity 3/4 * (1 - 2/21) = 67.86%;
#   g: one block each: internal 1; weights 1/3 and 3/7: 1 - 2/21 = 90.48%;
#   program: 3/4 * 19/21 * 13/21 + 19/21 * 8/21 = 337.25/441 = 76.474%;
#   sample overlap: (X + T + X) / (2X + X) = 7/9 = 77.778%.
X=18446744073709551615 T=6148914691236517205
printf 'f:%s:0\n 1: %s\n 2: %s\ng:%s:0\n 1: %s\n' $X $X $X $X $X > big-base.txt
printf 'f:%s:0\n 1: %s\n 2: %s\ng:%s:0\n 1: %s\n' $X $X $T $X $X > big-test.txt
"$SPGO" overlap big-base.txt big-test.txt --top 2 > big.out 2> err || bad "overlap near 2^64: $(cat err)"
want() { grep -qF -- "$1" big.out || bad "overlap near 2^64: no '$1'"; }
want "Whole program profile similarity: 76.474%"
want "Whole program sample overlap: 77.778%"
want "total samples in base profile: 18446744073709551615 (or more: the sum saturates)"
awk '$1 ~ /%$/ && $NF == "f" && $3 == "67.86%" && $4 == "66.67%" { ok = 1 } END { exit !ok }' big.out ||
  bad "overlap near 2^64: function f is not 67.86% similar, 66.67% overlap"
awk '$1 ~ /%$/ && $NF == "g" && $3 == "90.48%" && $4 == "100.00%" { ok = 1 } END { exit !ok }' big.out ||
  bad "overlap near 2^64: function g is not 90.48% similar, 100% overlap"
# Every percentage printed is within [0, 100].
grep -o -- '-\?[0-9.e+]*%' big.out | tr -d '%' | awk '$1 < 0 || $1 > 100 { exit 1 }' ||
  bad "overlap near 2^64: a figure outside [0, 100]%"

# --cs-truth near 2^64: unit main, blocks 1/2, 1/2 (reference) against
# 3/4, 1/4: D = 1/2 + 1/4 = 75% (it wrapped to 200%).
printf 'main:%s:0\n 1: %s\n 2: %s\n' $X $X $X > big-ref.txt
printf 'main:%s:0\n 1: %s\n 2: %s\n' $X $X $T > big-cs.txt
"$SPGO" overlap --cs-truth big-ref.txt big-cs.txt > cs.out 2> err || bad "--cs-truth near 2^64: $(cat err)"
grep -qF "CS block overlap: 75.00% (weighted by the profile's samples), 75.00% (by the reference's)" cs.out ||
  bad "--cs-truth near 2^64: $(head -1 cs.out)"

# Samples where the other profile has zero: base f {1: 100, 2: 50, 3: 50},
# test f {1: 100, 2: 0, 4: 25}, and h only in test.  f: base's 2 (at 0
# in test) and 3 (absent) = 100 of 200 = 50%; test's 4 = 25 of 125 = 20%.
# Program: base 100 of 200 = 50%; test 25 + h's 75 of 200 = 50%.
printf 'f:200:0\n 1: 100\n 2: 50\n 3: 50\n' > z-base.txt
printf 'f:125:0\n 1: 100\n 2: 0\n 4: 25\nh:75:0\n 1: 75\n' > z-test.txt
"$SPGO" overlap z-base.txt z-test.txt --function f > z.out 2> err || bad "overlap zeros: $(cat err)"
grep -qx '  base samples where test has zero: 50.000%' z.out &&
  grep -qx '  test samples where base has zero: 50.000%' z.out || bad "overlap zeros, program: $(grep -A2 '^Samples where' z.out)"
awk '/^Function-level samples/ { on = 1 } on && $NF == "f" && $1 == "50.00%" && $2 == "20.00%" { ok = 1 } END { exit !ok }' z.out ||
  bad "overlap zeros of f: $(tail -1 z.out), not 50.00% 20.00%"

exit $fail
