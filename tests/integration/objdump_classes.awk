# Turn `llvm-objdump -d --no-show-raw-insn` output into the lines of
# `spgo symbolize --all-instructions` without the size column:
# "0xADDR CLASS [0xTARGET]".  x86 and AArch64 mnemonics (the file format
# line says which).
function hex(s) { sub(/^0x/, "", s); return "0x" s }
/file format elf64-littleaarch64/ { arm = 1 }
/^ *[0-9a-f]+: *\t/ {
	split($0, f, "\t")
	addr = f[1]; sub(/^ */, "", addr); sub(/:.*/, "", addr)
	text = f[2]
	for (i = 3; i in f; i++) text = text " " f[i]
	# x86: bytes that do not decode are skipped; AArch64: one word each,
	# falling through.
	if (text ~ /<unknown>/ && !arm) next
	n = split(text, t, /[ \t]+/)
	k = 1
	if (arm) {
		while (k < n && t[k] == "") k++
		m = t[k]; cls = "other"; target = ""
		if (m ~ /^\./) next # .word: data of a $d mapping symbol
		# The direct target: the last bare address operand.
		for (j = k + 1; j <= n && t[j] !~ /^</; j++) { o = t[j]; sub(/,$/, "", o); if (o ~ /^0x[0-9a-f]+$/) target = o }
		if (m ~ /^(ret|retaa|retab|eret|eretaa|eretab)$/) cls = "return"
		else if (m ~ /^(brk|udf|hlt)$/) cls = "trap"
		else if (m == "b") cls = "jump"
		else if (m == "bl") cls = "call"
		else if (m ~ /^(b|bc)\.[a-z]+$/ || m ~ /^(cbz|cbnz|tbz|tbnz)$/) cls = "cond_branch"
		else if (m ~ /^(br|braa|brab|braaz|brabz)$/) cls = "indirect_jump"
		else if (m ~ /^(blr|blraa|blrab|blraaz|blrabz)$/) cls = "indirect_call"
		if (cls !~ /^(jump|call|cond_branch)$/) target = ""
		printf "0x%s %s%s\n", addr, cls, target == "" ? "" : " " hex(target)
		next
	}
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
