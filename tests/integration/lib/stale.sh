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

# stale_count FILE ID: hot's count at probe ID in text profile FILE ("" if none)
stale_count() { awk -v id="$2" '/^hot:/ { w = 1; next } /^[^ ]/ { w = 0 } w && $1 == id ":" { print $2; exit }' "$1"; }

# stale_ids FILE: hot's probe ids in text profile FILE
stale_ids() { awk '/^hot:/ { w = 1; next } /^[^ ]/ { w = 0 } w && $1 ~ /^[0-9]+:$/ { sub(":", "", $1); print $1 }' "$1"; }

# stale_carry_cn: carry old.prof (old -> new) to text profiles c.prof (with
# inference) and n.prof (--no-infer), at --min-confidence 0, and check hot
# is carried under NEW's checksum
stale_carry_cn() {
	local v opt
	for v in c n; do
		opt=; [ $v = n ] && opt=--no-infer
		"$SPGO" carry --profile old.prof --old-binary old --binary new -o $v.prof --format text --min-confidence 0 $opt \
			> $v.out 2>&1 || { cat $v.out; echo "FAIL: carry $opt"; exit 1; }
	done
	[ "$(stale_checksum c.prof)" = "$(stale_checksum new.prof)" ] ||
		bad "hot carried under checksum $(stale_checksum c.prof), not NEW's"
}
