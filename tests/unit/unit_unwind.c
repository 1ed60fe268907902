/* tests/unit/unit_unwind.c - post/binary/unwind.c on real input: nested functions of this program
 * capture their own registers (inline asm) and copy their live stack into a STACKS entry,
 * as the library does for a sample; unwinding it must give the known callers, and the
 * chain must end where the copied bytes end. One capture goes through libc (a qsort
 * comparator), so a second object is reported to the unwinder on the way. */
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binary/debuginfo.h"
#include "tap.h"
#include "binary/unwind.h"

#define COPY 4096

static struct {
	struct memphis_rec_stack st;
	uint8_t bytes[COPY];
} cap;
static uint64_t ra[3]; /* return addresses of f3, f2, f1 as they saw them */

static uintptr_t stack_hi; /* the end of the main thread's stack */

/* The live stack from sp upward, word by word, as the kernel copies it: across the
 * frames' red zones too, so not checked by ASan; at most COPY bytes, and not past the end
 * of the stack (little may lie above main's frame). Returns the bytes copied. */
__attribute__((noinline, no_sanitize("address"))) static uint32_t copy_stack(uint8_t *dst, uintptr_t sp)
{
	const volatile uint64_t *s = (const volatile uint64_t *)sp;
	size_t n = stack_hi - sp < COPY ? (stack_hi - sp) / 8 : COPY / 8;

	for (size_t i = 0; i < n; i++) {
		uint64_t w = s[i];

		memcpy(dst + 8 * i, &w, 8);
	}
	return (uint32_t)(n * 8);
}

/* Registers in perf's order (AX BX CX DX SI DI BP SP IP R8..R15), IP the label after the
 * lea: the stack pointer there is the one stored. Then the stack from SP upward. */
#define CAPTURE()                                                                          \
	do {                                                                               \
		uint64_t *r_ = cap.st.regs;                                                \
		__asm__ volatile("mov %%rax, 0(%0)\n\tmov %%rbx, 8(%0)\n\t"                \
				 "mov %%rcx, 16(%0)\n\tmov %%rdx, 24(%0)\n\t"              \
				 "mov %%rsi, 32(%0)\n\tmov %%rdi, 40(%0)\n\t"              \
				 "mov %%rbp, 48(%0)\n\tmov %%rsp, 56(%0)\n\t"              \
				 "mov %%r8, 72(%0)\n\tmov %%r9, 80(%0)\n\t"                \
				 "mov %%r10, 88(%0)\n\tmov %%r11, 96(%0)\n\t"              \
				 "mov %%r12, 104(%0)\n\tmov %%r13, 112(%0)\n\t"            \
				 "mov %%r14, 120(%0)\n\tmov %%r15, 128(%0)\n\t"            \
				 "lea 1f(%%rip), %%rax\n"                                  \
				 "1:\tmov %%rax, 64(%0)\n\t"                               \
				 : : "r"(r_) : "rax", "memory");                           \
		cap.st.stack_len = copy_stack(cap.bytes, (uintptr_t)r_[7]);                \
		cap.st.tid = 1;                                                            \
		cap.st.kind = MPH_STACK_SAMPLE;                                            \
	} while (0)

static volatile int sink;

__attribute__((noinline)) static int f3(int x)
{
	volatile int local[8];

	ra[0] = (uint64_t)(uintptr_t)__builtin_return_address(0);
	for (int i = 0; i < 8; i++)
		local[i] = x + i;
	CAPTURE();
	return local[3] + sink;
}

__attribute__((noinline)) static int f2(int x)
{
	ra[1] = (uint64_t)(uintptr_t)__builtin_return_address(0);
	return f3(x + 1) + sink;
}

__attribute__((noinline)) static int f1(int x)
{
	ra[2] = (uint64_t)(uintptr_t)__builtin_return_address(0);
	return f2(x + 1) + sink;
}

static int captured;

static int cmp_capture(const void *x, const void *y)
{
	if (!captured) {
		CAPTURE();
		captured = 1;
	}
	return *(const int *)x - *(const int *)y;
}

__attribute__((noinline)) static int sort_caller(void)
{
	int v[4] = { 3, 1, 2, 0 };

	qsort(v, 4, sizeof(v[0]), cmp_capture);
	return v[0] + sink;
}

/* module_at: the object holding pc among this process's (dl_iterate_phdr). */
struct find {
	uint64_t pc, bias;
	const char *file;
	int found;
};

static int find_phdr(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find *f = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || f->pc < lo || f->pc >= lo + ph->p_memsz)
			continue;
		if (info->dlpi_name[0] && info->dlpi_name[0] != '/')
			return 0; /* the vDSO: no file */
		f->file = info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";
		f->bias = info->dlpi_addr;
		f->found = 1;
		return 1;
	}
	return 0;
}

static int asked;

static int module_at(void *arg, uint64_t pc, const char **file, uint64_t *bias)
{
	struct find f = { .pc = pc };

	(void)arg;
	asked++;
	dl_iterate_phdr(find_phdr, &f);
	if (!f.found)
		return -1;
	*file = f.file;
	*bias = f.bias;
	return 0;
}

static int no_module(void *arg, uint64_t pc, const char **file, uint64_t *bias)
{
	(void)arg, (void)pc, (void)file, (void)bias;
	return -1;
}

/* The CFA of the frame whose return address is ret: just above the first stack word
 * holding it. */
static uint64_t cfa_of(uint64_t ret)
{
	for (uint32_t k = 0; k + 8 <= cap.st.stack_len; k += 8) {
		uint64_t w;

		memcpy(&w, cap.bytes + k, 8);
		if (w == ret)
			return cap.st.regs[7] + k + 8;
	}
	return 0;
}

int main(void)
{
	struct mr_frame f[MR_UNWIND_MAX_FRAMES];
	struct mr_unwind *u = mr_unwind_new(module_at, NULL);
	struct mr_unwind *none = mr_unwind_new(no_module, NULL);
	struct memphis_rec_stack cut;
	uint64_t ip, in_caller = 0;
	struct mr_debuginfo *self = NULL;
	char err[256];
	int n, libc_frame = 0, was_cut = -1;

	pthread_attr_t attr;
	void *lo;
	size_t size;

	if (!ok(u && none, "unwinders made"))
		return tap_done();
	if (!ok(pthread_getattr_np(pthread_self(), &attr) == 0 &&
		pthread_attr_getstack(&attr, &lo, &size) == 0, "the main thread's stack"))
		return tap_done();
	pthread_attr_destroy(&attr);
	stack_hi = (uintptr_t)lo + size;
	if (mr_debuginfo_open("/proc/self/exe", &self, err, sizeof(err)) < 0)
		self = NULL;

	f1(1);
	ip = cap.st.regs[8];
	n = mr_unwind_chain(u, &cap.st, cap.bytes, f, MR_UNWIND_MAX_FRAMES, NULL);
	ok(n >= 4, "f3 <- f2 <- f1 <- main: %d frames", n);
	ok(n >= 1 && f[0].pc == ip, "frame 0 is the captured instruction");
	ok(n >= 2 && f[1].pc == ra[0], "frame 1 returns into f2");
	ok(n >= 3 && f[2].pc == ra[1], "frame 2 returns into f1");
	ok(n >= 4 && f[3].pc == ra[2], "frame 3 returns into main");
	ok(n >= 2 && f[0].cfa && f[0].cfa == cfa_of(ra[0]), "frame 0's CFA: above f3's return address");
	ok(n >= 3 && f[1].cfa && f[1].cfa == cfa_of(ra[1]), "frame 1's CFA: above f2's return address");

	{
		uint64_t sp = cap.st.regs[7], bp = cap.st.regs[6], w = 0;
		struct mr_unwind_rule r;
		int good = n >= 3, i;

		/* f3 and f2 replayed by their CFI rules on the captured words give the unwinder's
		 * return addresses and CFAs (built with frame pointers, the sanitizer builds,
		 * their CFA is BP-based and BP saved below it) */
		for (i = 0; i < 2 && good; i++)
			good = mr_unwind_rule(u, i ? ra[i - 1] - 1 : ip, &r) == 0 &&
			       mr_unwind_replay(&r, &cap.st, cap.bytes, &sp, &bp, &w) == 0 &&
			       w == ra[i] && sp == f[i].cfa;
		ok(good, "f3's and f2's rules replayed: their return addresses and CFAs (%d of 2)",
		   good ? 2 : i - 1);
	}
	n = mr_unwind_chain(u, &cap.st, cap.bytes, f, 2, NULL);
	ok(n == 2 && f[1].pc == ra[0] && f[1].cfa == cfa_of(ra[1]), "max 2 frames: 2, the last with its CFA");

	cut = cap.st;
	cut.stack_len = 0;
	n = mr_unwind_chain(u, &cut, cap.bytes, f, MR_UNWIND_MAX_FRAMES, &was_cut);
	ok(n == 1 && f[0].pc == ip && f[0].cfa == 0, "no stack bytes: the sampled frame only (%d)", n);
	ok(was_cut == 1, "... and the chain says it was cut");
	n = mr_unwind_chain(u, &cap.st, cap.bytes, f, 3, &was_cut);
	ok(n == 3 && was_cut == 0, "3 frames of a whole stack: not cut (%d)", was_cut);

	n = mr_unwind_chain(none, &cap.st, cap.bytes, f, MR_UNWIND_MAX_FRAMES, NULL);
	ok(n == 0, "instruction in no object: no frame (%d)", n);

	/* a fresh unwinder: the executable first, libc when the chain reaches it */
	mr_unwind_free(u);
	u = mr_unwind_new(module_at, NULL);
	asked = 0;
	sort_caller();
	n = u ? mr_unwind_chain(u, &cap.st, cap.bytes, f, MR_UNWIND_MAX_FRAMES, NULL) : 0;
	for (int i = 1; i < n && !in_caller; i++) {
		struct find fi = { .pc = f[i].pc - 1 };
		struct mr_line ln = { 0 };

		dl_iterate_phdr(find_phdr, &fi);
		if (fi.found && strstr(fi.file, "libc"))
			libc_frame = libc_frame ? libc_frame : i;
		else if (libc_frame && fi.found && self &&
			 (mr_debuginfo_line(self, fi.pc - fi.bias, &ln), ln.function) &&
			 !strcmp(ln.function, "sort_caller"))
			in_caller = (uint64_t)i;
	}
	ok(libc_frame > 0, "comparator called from libc's qsort (frame %d)", libc_frame);
	ok(in_caller > 0, "after libc's frames: sort_caller, which called qsort (frame %d)", (int)in_caller);
	ok(asked >= 2, "the executable, then libc reported to the unwinder when the chain reached it (%d asks)", asked);

	mr_unwind_free(u);
	mr_unwind_free(none);
	mr_unwind_free(NULL);
	mr_debuginfo_close(self);
	return tap_done();
}
