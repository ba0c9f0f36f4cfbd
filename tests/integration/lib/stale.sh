# Shared steps of the stale-profile tests (sourced after common.sh).

# stale_exact_pair OLD.c NEW.c: binaries old and new (pseudo-probe builds,
# each from V.d/prog.c, since static names depend on the file name) and
# their exact-count probe profiles old.prof and new.prof (`spgo emulate
# --ground-truth` of `./V 300`, then `spgo gen`).
stale_exact_pair() {
	local v src
	for v in old new; do
		src=$1; [ $v = new ] && src=$2
		mkdir -p $v.d && cp "$src" $v.d/prog.c &&
			(cd $v.d && clang-19 -O2 -g -fpseudo-probe-for-profiling -fno-pie -no-pie -o ../$v prog.c) ||
			{ echo "FAIL: clang-19 ($v)"; exit 1; }
		"$SPGO" emulate -c 2000 -o $v.data --ground-truth $v.gt -- ./$v 300 > /dev/null 2>> err.txt &&
			"$SPGO" gen --binary $v --ground-truth $v.gt -o $v.prof --format text --quiet ||
			{ cat err.txt; echo "FAIL: spgo emulate/gen ($v)"; exit 1; }
	done
}

# stale_checksum PROF: the CFG checksum of hot's profile in PROF
stale_checksum() { awk '/^hot:/ { w = 1 } w && /CFGChecksum/ { print $2; exit }' "$1"; }
