# The setup the integration tests share; each sources it first:
#   . "$(dirname "$0")/lib/common.sh" || exit 1
#   need TOOL...   skip the test (exit 77) unless every TOOL is installed
#   scratch        a temporary directory, removed at exit, made current ($tmp)
#   bad MSG...     report a failure and go on; the test ends with exit $fail
#   minivm_captures N   ./minivm and e1.data..eN.data (N <= 3) here: see
#                  lib/minivm_captures.sh
# (Not a test itself: ctest runs integration/*.sh only.)
set -uo pipefail
# No test asks a debuginfod server unless it starts one (debuginfod.sh).
unset DEBUGINFOD_URLS
fail=0
need() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null || { echo "skip: $t not installed"; exit 77; }
	done
}
scratch() {
	tmp=$(mktemp -d) || exit 1
	trap 'rm -rf "$tmp"' EXIT
	cd "$tmp" || exit 1
}
bad() {
	echo "FAIL: $*"
	fail=1
}
minivm_captures() {
	# From the ctest fixture when the test requires it (SPGO_FIXTURES set
	# by tests/CMakeLists.txt, the directory made anew by this ctest run),
	# else made here, the same way.  Linked, not copied: they are only read.
	local n=$1 d="${SPGO_FIXTURES:-}/minivm_captures" s
	if [ -z "${SPGO_FIXTURES:-}" ]; then
		d=$tmp/.minivm_captures
		bash "$SPGO_SRC/tests/integration/lib/minivm_captures.sh" "$d" "$n" > "$tmp/.captures.out"
		s=$?
		[ $s = 0 ] || { cat "$tmp/.captures.out"; [ $s = 77 ] && exit 77; echo "FAIL: lib/minivm_captures.sh"; exit 1; }
	fi
	[ -f "$d/.done" ] && [ -s "$d/minivm" ] || { echo "FAIL: no $d/minivm (fixture minivm_captures)"; exit 1; }
	ln -s "$d/minivm" minivm || exit 1
	for s in $(seq 1 "$n"); do
		[ -s "$d/e$s.data" ] || { echo "FAIL: no $d/e$s.data (fixture minivm_captures)"; exit 1; }
		ln -s "$d/e$s.data" e$s.data || exit 1
	done
}
