/* tests/callers/fpframe.S - runtime code with frame pointers for tests/callers/fpframe.c:
 * built into a library without debug information (no source line: its samples take their
 * callers' lines), its frames' CFA given by BP, so that a caller's line depends on BP.
 *
 * uint64_t fp_flat(const uint64_t *buf, size_t words, uint64_t target, uint64_t fill,
 *                  uint64_t rec[2]);
 *   Its frame's bottom (SP) at target when that is not 0 and lies 64 bytes or more
 *   below its BP, else at BP - 128 (16-aligned either way), the words between filled with
 *   fill; then reads every eighth word of buf[0 .. words). rec[0] = SP, rec[1] = BP.
 *   Returns its return address.
 * uint64_t fp_nested(same arguments);
 *   The same frame, and the reading done by a second function with a BP frame of its own
 *   (its CFA from its BP, the outer BP saved in its frame). */
	.text

/* The BP frame's prologue: the CFA from BP from here on. */
	.macro	BP_FRAME
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	.endm

/* Function NAME: a BP frame whose bottom (SP) is moved to target (or BP - 128) and
 * filled, SP and BP into rec, then a call of READ; returns its return address. */
	.macro	FRAME_FN name, read
	.globl	\name
	.type	\name, @function
\name:
	.cfi_startproc
	BP_FRAME
	leaq	-64(%rbp), %rax
	testq	%rdx, %rdx
	jz	0f
	cmpq	%rax, %rdx
	jb	1f
0:	leaq	-128(%rbp), %rdx
1:	andq	$-16, %rdx
	movq	%rdx, %rsp
	movq	%rsp, %rax
2:	cmpq	%rbp, %rax
	jae	3f
	movq	%rcx, (%rax)
	addq	$8, %rax
	jmp	2b
3:	movq	%rsp, (%r8)
	movq	%rbp, 8(%r8)
	call	\read
	movq	8(%rbp), %rax
	leave
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	\name, .-\name
	.endm

	FRAME_FN fp_flat, fp_read
	FRAME_FN fp_nested, fp_inner

/* The reading, in a BP frame of its own. */
	.type	fp_inner, @function
fp_inner:
	.cfi_startproc
	BP_FRAME
	call	fp_read
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	fp_inner, .-fp_inner

/* Every eighth word of buf[0 .. words) read; a leaf without a frame: its samples are
 * unwound by its caller's rule after its own (CFA = SP + 8). */
	.type	fp_read, @function
fp_read:
	.cfi_startproc
	xorl	%eax, %eax
	movq	%rdi, %r10
	leaq	(%rdi,%rsi,8), %r11
4:	addq	(%r10), %rax
	addq	$64, %r10
	cmpq	%r11, %r10
	jb	4b
	ret
	.cfi_endproc
	.size	fp_read, .-fp_read

	.section .note.GNU-stack,"",@progbits
