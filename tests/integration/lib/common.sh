# The setup the integration tests share; each sources it first:
#   . "$(dirname "$0")/lib/common.sh" || exit 1
#   need TOOL...   skip the test (exit 77) unless every TOOL is installed
#   scratch        a temporary directory, removed at exit, made current ($tmp)
#   bad MSG...     report a failure and go on; the test ends with exit $fail
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
