#!/usr/bin/env bash
# Run every test in the normal build, then every test again (unit,
# integration and the fuzz corpora's replay) against the ASan+UBSan build of
# spgo, and close with one line CI reads: "check: N passed, N failed".
set -uo pipefail
build=${1:-build}; asan=${2:-build-asan}
jobs=$(nproc)
log=$(mktemp)
trap 'rm -f "$log"' EXIT

run() {  # run ctest, echo its output, collect pass/fail numbers
  ctest --test-dir "$@" --output-on-failure -j "$jobs" 2>&1 | tee -a "$log"
}
echo "== tests ($build)"
run "$build"
echo "== all tests under ASan+UBSan ($asan), but those labelled normal-build-only"
# handle_sigbus=0: SIGBUS is spgo's own to report (a mapped input cut while
# read: src/common/file.c); spgo leaves a handler it finds in place, ASan's.
# normal-build-only: tests whose spgo commands other tests run under ASan
# too, their time all in other programs (the list and why: tests/CMakeLists.txt).
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:handle_sigbus=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run "$asan" -LE '^normal-build-only$'

# ctest prints "N% tests passed, F tests failed out of T" per run.
read -r passed failed < <(awk '/tests passed, .* tests failed out of/ {
    t=$NF; f=$4; p+=t-f; fl+=f } END { print p+0, fl+0 }' "$log")
runs=$(grep -c 'tests failed out of' "$log")
if [ "$runs" -lt 2 ]; then failed=$((failed + 1)); echo "check: a test run did not complete"; fi
echo "check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
