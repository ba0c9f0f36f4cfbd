#!/usr/bin/env bash
# spgo overlap on hand-made text profiles, where the answer is known:
#   - --cs-truth against a profile with no body samples: one error line and
#     exit 1, with nothing left allocated (make check runs this under ASan
#     with detect_leaks=1, where a leak on that path ends spgo otherwise).
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

exit $fail
