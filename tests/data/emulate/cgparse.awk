# Per-instruction Ir counts in [lo, hi) (hex, no 0x, same width) from a
# callgrind file written with --dump-instr=yes --dump-line=no
# --compress-pos=no --compress-strings=no --skip-plt=no.  Valgrind files
# .init/.plt/.fini code under "ob=???", so objects are not used: addresses
# are.  The cost line after "calls=" is the call's inclusive cost: skipped.
/^calls=/ { skip = 1; next }
/^0x[0-9a-f]+ [0-9]+$/ {
	if (skip) { skip = 0; next }
	a = substr($1, 3)
	if (length(a) == length(lo) && a >= lo && a < hi) c[a] += $2
	next
}
{ skip = 0 }
END { for (a in c) print a, c[a] }
