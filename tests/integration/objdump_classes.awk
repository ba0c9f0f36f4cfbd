# Turn `llvm-objdump -d --no-show-raw-insn` output into the lines of
# `spgo symbolize --all-instructions` without the size column:
# "0xADDR CLASS [0xTARGET]".
function hex(s) { sub(/^0x/, "", s); return "0x" s }
/^ *[0-9a-f]+: *\t/ {
	split($0, f, "\t")
	addr = f[1]; sub(/^ */, "", addr); sub(/:.*/, "", addr)
	text = f[2]
	for (i = 3; i in f; i++) text = text " " f[i]
	if (text ~ /<unknown>/) next
	n = split(text, t, /[ \t]+/)
	k = 1
	while (k < n && t[k] ~ /^(rep|repz|repe|repne|repnz|notrack|bnd|lock|data16|cs|ds|es|ss|fs|gs|addr32)$/) k++
	m = t[k]; op = (k + 1 <= n) ? t[k + 1] : ""
	cls = "other"; target = ""
	if (m ~ /^(ret|retq|retl|retw|lret|lretq|lretl|iret|iretq|iretl|sysret|sysretq)$/) cls = "return"
	else if (m ~ /^(ud2|hlt|int3)$/) cls = "trap"
	else if (m ~ /^(jmp|jmpq|ljmp|ljmpq)$/) { if (op ~ /^\*/) cls = "indirect_jump"; else { cls = "jump"; target = op } }
	else if (m ~ /^(call|callq|lcall|lcallq)$/) { if (op ~ /^\*/) cls = "indirect_call"; else { cls = "call"; target = op } }
	else if (m ~ /^(j[a-z]+|loop|loope|loopne|loopz|loopnz)$/) { cls = "cond_branch"; target = op }
	printf "0x%s %s%s\n", addr, cls, target == "" ? "" : " " hex(target)
}
