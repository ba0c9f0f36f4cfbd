# llvm-objdump -d --no-show-raw-insn of a big image: its branch instructions as
# "addr mnemonic target next" (target "-" when indirect), its symbols as
# "S addr name"; the table bench_kernel.sh walks (tests/integration/lib/kwalk.py --brs).
/^[0-9a-f]+ <.*>:$/ { a = $1; n = $2; gsub(/[<>:]/, "", n); print "S", a, n; next }
/^ *[0-9a-f]+:/ {
	addr = $1; sub(/:$/, "", addr)
	if (pend != "") { print pend, addr; pend = "" }
	m = $2
	if (m ~ /^(j|call|ret|ud2|int3|hlt)/) {
		t = "-"
		if ($3 ~ /^0x[0-9a-f]+$/ || $3 ~ /^[0-9a-f]+$/) { t = $3; sub(/^0x/, "", t) }
		if ($0 ~ /\*/) t = "-"
		pend = addr " " m " " t
	}
}
END { if (pend != "") print pend, "0" }
