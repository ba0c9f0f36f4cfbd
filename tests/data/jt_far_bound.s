# Jump tables whose bound is not in the straight-line code before the
# indirect jump (tests/integration/layout_bolt.sh):
#  - op1's dispatch: the index is made by `lea` after a block jumps there,
#    the bound check sits elsewhere (clang's form in sqlite3VdbeExec);
#  - op2's dispatch: only an `and $7` mask bounds the index; the table has
#    5 entries, followed by data that is no code.
# The two tables are adjacent: op1's must stop where op2's starts.
# long run(long n): sum over i < n of ops picked by i; main runs 3,000,000.
	.text
	.globl	run
	.type	run,@function
run:
	xor	%eax, %eax
	xor	%ecx, %ecx
.Lloop:
	cmp	%rdi, %rcx
	jge	.Ldone
	mov	%rcx, %rdx
	and	$3, %rdx
	cmp	$2, %rdx
	ja	.Lop2
	jmp	.Ldisp1
.Lskip:
	add	$3, %rax
	xor	%edx, %edx
	jmp	.Lnext
.Ldisp1:
	lea	1(%rdx), %rsi
	jmp	*.Ltab1(,%rsi,8)
.La:
	add	$1, %rax
	add	%rcx, %rax
	jmp	.Lnext
.Lb:
	add	$2, %rax
	jmp	.Lnext
.Lc:
	sub	$1, %rax
.Lc2:
	xor	$5, %rax
	jmp	.Lnext
.Lop2:
	mov	%rcx, %rsi
	shr	$2, %rsi
	imul	$7, %rsi, %rsi
	and	$3, %rsi
	add	%rsi, %rax
	and	$7, %rsi
	jmp	*.Ltab2(,%rsi,8)
.Ld:
	add	$4, %rax
	jmp	.Lnext
.Le:
	add	$5, %rax
.Le2:
	add	%rcx, %rax
.Lnext:
	inc	%rcx
	jmp	.Lloop
.Ldone:
	ret
	.size	run, .-run

	.globl	main
	.type	main,@function
main:
	mov	$3000000, %edi
	call	run
	and	$1, %eax
	ret
	.size	main, .-main

	.section .rodata
	.p2align 3
.Ltab1:
	.quad	.Lskip, .La, .Lb, .Lc
.Ltab2:
	.quad	.Ld, .Le, .Le2, .Ld, .Lc2
	.quad	0, 1, 2
	.section .note.GNU-stack,"",@progbits
