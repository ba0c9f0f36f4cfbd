# Hand-made perf script samples on tests/integration/lib/noreturn.c, for the
# tests that compare spgo with llvm-profgen-19 on inputs other projects make.
# Source it after common.sh, in the scratch directory:
#   hm_build [FLAGS...]   compile noreturn.c as ./hm (frame pointers; non-PIE
#                   unless FLAGS say otherwise) and set the addresses below
#                   from its disassembly
#   hm_lbr          print one LBR line (newest first) of a sample in mix's
#                   loop, called from driver's loop:
#                     mix's loop branch, driver's call of mix, driver's
#                     loop branch, the return from mix to driver
#   hm_lbr_printf   print the LBR line of a sample in printf (a library),
#                   called from finish's loop end:
#                     finish's call of printf@plt, the return from mix to
#                     finish, mix's loop branch, finish's call of mix,
#                     finish's loop branch
#   hm_stack IND    print the call stack of that sample (leaf first: mix,
#                   driver, main, libc), each line indented by IND
#   hm_profgen OUT ARGS...   llvm-profgen-19 on ./hm, text profile in OUT
# Addresses are hex without 0x: mix_jne mix_loop mix_ret mix_leaf call_mix
# after_mix drv_jne drv_loop call_driver after_driver fin_call_printf
# fin_call_mix fin_after_mix fin_jne fin_loop.
hm_addr() {  # hm_addr SYMBOL PATTERN: SYMBOL's last instruction matching PATTERN
	llvm-objdump-19 -d --no-show-raw-insn hm --disassemble-symbols="$1" |
		awk -v p="$2" '$0 ~ p { a = $1 } END { sub(/:$/, "", a); print a }'
}
hm_next() {  # hm_next SYMBOL ADDR: the address of the instruction after ADDR
	llvm-objdump-19 -d --no-show-raw-insn hm --disassemble-symbols="$1" |
		awk -v a="$2:" 'f { sub(/:$/, "", $1); print $1; exit } $1 == a { f = 1 }'
}
hm_target() {  # hm_target SYMBOL ADDR: the target of the branch at ADDR
	llvm-objdump-19 -d --no-show-raw-insn hm --disassemble-symbols="$1" |
		awk -v a="$2:" '$1 == a { for (i = 2; i <= NF; i++) if ($i ~ /^0x/) { sub(/^0x/, "", $i); print $i } }'
}
hm_build() {
	[ $# -gt 0 ] || set -- -fno-pie -no-pie
	clang-19 -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer "$@" \
		-o hm "$SPGO_SRC/tests/integration/lib/noreturn.c" || return 1
	mix_jne=$(hm_addr mix 'j[a-z]*[ \t]+0x'); mix_loop=$(hm_target mix "$mix_jne")
	mix_ret=$(hm_addr mix 'ret'); call_mix=$(hm_addr driver 'call.*<mix>')
	after_mix=$(hm_next driver "$call_mix")
	drv_jne=$(hm_addr driver 'jne'); drv_loop=$(hm_target driver "$drv_jne")
	call_driver=$(hm_addr main 'call.*<driver>')
	after_driver=$(printf '%x' $((0x$call_driver + 5)))
	mix_leaf=$(hm_next mix "$mix_loop")
	fin_call_printf=$(hm_addr finish 'call.*<printf'); fin_call_mix=$(hm_addr finish 'call.*<mix>')
	fin_after_mix=$(hm_next finish "$fin_call_mix")
	fin_jne=$(hm_addr finish 'jne'); fin_loop=$(hm_target finish "$fin_jne")
	printf_plt=$(hm_target finish "$fin_call_printf")
	local v
	for v in mix_jne mix_loop mix_ret call_mix after_mix drv_jne drv_loop call_driver mix_leaf \
		fin_call_printf fin_call_mix fin_after_mix fin_jne fin_loop printf_plt; do
		[ -n "${!v}" ] || { echo "hm_build: no $v in the code"; return 1; }
	done
	mix_entry=$(nm hm | awk '$3 == "mix" { sub(/^0+/, "", $1); print $1 }')
}
hm_lbr() {
	printf ' 0x%s/0x%s/P/-/-/0  0x%s/0x%s/P/-/-/0  0x%s/0x%s/P/-/-/0  0x%s/0x%s/P/-/-/0\n' \
		"$mix_jne" "$mix_loop" "$call_mix" "$mix_entry" "$drv_jne" "$drv_loop" "$mix_ret" "$after_mix"
}
hm_lbr_printf() {
	printf ' 0x%s/0x%s/P/-/-/0  0x%s/0x%s/P/-/-/0  0x%s/0x%s/P/-/-/0  0x%s/0x%s/P/-/-/0  0x%s/0x%s/P/-/-/0\n' \
		"$fin_call_printf" "$printf_plt" "$mix_ret" "$fin_after_mix" "$mix_jne" "$mix_loop" \
		"$fin_call_mix" "$mix_entry" "$fin_jne" "$fin_loop"
}
hm_stack() {
	printf "$1%16s\n" "$mix_leaf" "$after_mix" "$after_driver" 7f0000001234
}
hm_profgen() {
	local out=$1
	shift
	llvm-profgen-19 --binary=hm --format=text -o "$out" "$@" 2>/dev/null
}
