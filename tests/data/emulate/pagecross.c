/* pagecross.c: instructions that straddle a page boundary in the middle of
 * a translation block.  QEMU 7.2 stops decoding such an instruction when its
 * bytes cross into the next page and retranslates it as the first
 * instruction of a new block, but the plugin API has already been shown the
 * partial instruction as the last of the first block: it would run twice
 * per execution (and a partial call opcode would push a frame).  Ground
 * truth must still equal callgrind's counts.  Three loops, each with one
 * straddling instruction: a 5-byte mov, a 7-byte load and a 5-byte call. */
#include <stdio.h>

long straddle(long n);
long leaf(long x);

__asm__(".text\n"
	".p2align 12\n"
	".globl straddle\n"
	"straddle:\n"
	"  xorl %eax, %eax\n"
	"  movq %rdi, %rcx\n"
	"  .skip 4096 - 100 - (. - straddle), 0x90\n"
	"1:\n"
	"  .skip 4096 - 2 - (. - straddle), 0x90\n"  /* a page ends 2 bytes into the mov */
	"  movl $0x12345678, %edx\n"
	"  addq %rdx, %rax\n"
	"  decq %rcx\n"
	"  jnz 1b\n"
	"  movq %rdi, %rcx\n"
	"  .skip 2 * 4096 - 60 - (. - straddle), 0x90\n"
	"2:\n"
	"  .skip 2 * 4096 - 3 - (. - straddle), 0x90\n" /* 3 of the load's 7 bytes before the page end */
	"  movzbl straddle(%rip), %edx\n"
	"  addq %rdx, %rax\n"
	"  decq %rcx\n"
	"  jnz 2b\n"
	"  movq %rdi, %rcx\n"
	"  .skip 3 * 4096 - 60 - (. - straddle), 0x90\n"
	"3:\n"
	"  pushq %rcx\n"
	"  .skip 3 * 4096 - 1 - (. - straddle), 0x90\n" /* the call's opcode ends the page */
	"  call leaf\n"
	"  popq %rcx\n"
	"  decq %rcx\n"
	"  jnz 3b\n"
	"  ret\n"
	"leaf:\n"
	"  leaq 1(%rdi), %rax\n"
	"  ret\n");

int main(void)
{
	printf("%ld\n", straddle(1000));
	return 0;
}
