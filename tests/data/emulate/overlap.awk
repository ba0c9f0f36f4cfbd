# Block-level overlap between the ground truth (first file: a spgo
# ground-truth file, its first dso section) and the execution counts that
# LBR ranges estimate (second file: `perf script -F brstack` lines).
#
# Each sample's branch stack, newest first, gives ranges [to of entry j+1,
# from of entry j]: straight-line code executed once between two taken
# branches.  Counting the ranges over each instruction (and scaling by the
# mean period, which normalization makes irrelevant here) estimates the
# instruction's execution count.  Blocks are cut at branch targets and after
# branches; a block's estimate is the mean over its instructions.  Overlap is
# sum over blocks of min(truth share, estimate share).  Prints
# "overlap BLOCKS RANGES VALUE".
function hex(s,   i, v) { sub(/^0x/, "", s); v = 0
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v }
FNR == 1 { file++ }
file == 1 && $1 == "dso" { nd++; next }
file == 1 && nd == 1 && $1 == "e" { if ($3 != "-" && $5 == "T") target[$3] = 1; next }
file == 1 && nd == 1 && $1 == "i" { n++; a[n] = hex($2); key[$2] = n; sz[n] = $3; cnt[n] = $4; cls[n] = $5; next }
file == 2 {
	k = 0
	for (f = 1; f <= NF; f++) {
		if ($f !~ /^0x[0-9a-f]+\/0x[0-9a-f]+\//) continue
		split($f, p, "/"); k++; from[k] = p[1]; to[k] = p[2]
	}
	for (j = 1; j < k; j++) {
		s = to[j + 1]; sub(/^0x/, "", s)
		if (!(s in key)) continue
		e = hex(from[j])
		for (x = key[s]; x <= n && a[x] <= e; x++) hits[x]++
		nr++
	}
}
END {
	nb = 0
	for (x = 1; x <= n; x++) {
		hx = sprintf("%x", a[x])
		if (x == 1 || (hx in target) || cls[x - 1] != "-" || a[x - 1] + sz[x - 1] != a[x]) nb++
		bt[nb] = cnt[x]; bh[nb] += hits[x] + 0; bl[nb]++
	}
	T = 0; E = 0
	for (b = 1; b <= nb; b++) { be[b] = bh[b] / bl[b]; T += bt[b]; E += be[b] }
	ov = 0
	for (b = 1; b <= nb; b++) { t = bt[b] / T; u = E ? be[b] / E : 0; ov += t < u ? t : u }
	printf "overlap %d %d %.4f\n", nb, nr, ov
}
