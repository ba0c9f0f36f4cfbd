# preinline_decisions.awk: the pre-inliner's decisions in a nested text
# sample profile (llvm-profgen 19's default output, spgo gen --preinline):
# one line per context, "CONTEXT ATTRS" -- top-level profiles as their
# name, inlinees as "top:loc @ callee:loc @ ... @ leaf" -- with the
# context's !Attributes (0 when none; 2 = ShouldBeInlined, 1 = the binary
# had it inlined).  Sorted by the caller (sort the output for diffs).
function flush_to(d) {
	while (depth > d) {
		print ctx[depth], attr[depth] + 0
		depth--
	}
}
/^[^ ]/ {
	flush_to(0)
	name = $0
	sub(/:[0-9]+:[0-9]+$/, "", name)
	depth = 1; ctx[1] = name; attr[1] = 0
	next
}
{
	match($0, /^ */); ind = RLENGTH
	line = substr($0, ind + 1)
	if (line ~ /^!Attributes: /) {
		# belongs to the profile at depth ind
		flush_to(ind)
		attr[ind] = substr(line, 14) + 0
		next
	}
	if (line ~ /^!/) next
	# an inlinee: "LOC: NAME:TOTAL" (a body line has a count after "LOC: ")
	if (line ~ /^[0-9]+(\.[0-9]+)?: [^0-9 ][^ ]*:[0-9]+$/) {
		flush_to(ind)
		loc = line; sub(/:.*/, "", loc)
		nm = line; sub(/^[0-9.]+: /, "", nm); sub(/:[0-9]+$/, "", nm)
		# the caller's context, with the call site on its leaf frame
		depth = ind + 1
		ctx[depth] = ctx[ind] ":" loc " @ " nm
		attr[depth] = 0
	}
}
END { flush_to(0) }
