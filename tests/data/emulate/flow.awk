# Check flow conservation in the first dso section of a spgo ground-truth
# file, by the rule spgo/ground_truth.h states.  Prints violations and a
# summary "flow: N instructions, M violations".
$1 == "dso" { nd++; next }
nd != 1 { next }
$1 == "e" {
	if ($3 != "-") in_e[$3] += $4
	if ($2 != "-") { out_e[$2] += $4; if ($5 == "X") x_e[$2] += $4 }
	next
}
$1 == "i" { n++; addr[n] = $2; size[n] = $3; cnt[n] = $4; cls[n] = $5 }
function hex(s,   i, v, d) { v = 0; for (i = 1; i <= length(s); i++) { d = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + d } return v }
END {
	bad = 0
	for (k = 1; k <= n; k++) {
		inflow = in_e[addr[k]] + 0
		if (k > 1 && hex(addr[k-1]) + size[k-1] == hex(addr[k]) && (cls[k-1] == "-" || cls[k-1] == "s"))
			inflow += cnt[k-1] - x_e[addr[k-1]]
		if (inflow != cnt[k]) { bad++; print "in  " addr[k] ": count " cnt[k] ", inflow " inflow }
		if (cls[k] != "-" && cls[k] != "s" && out_e[addr[k]] + 0 != cnt[k]) {
			bad++; print "out " addr[k] ": count " cnt[k] ", outflow " out_e[addr[k]] + 0
		}
	}
	print "flow: " n " instructions, " bad " violations"
}
