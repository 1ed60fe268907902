/* tests/unit/unit_runtime.c - post/binary/runtime.c: which objects are runtimes, which of their
 * allocations are their own, their wait functions, and spin loops found in code bytes
 * (libgomp 12's do_spin as this machine's libgomp.so.1 has it, and code that is not a
 * spin loop). Table-driven; TAP output. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "binary/runtime.h"

#include "tap.h"

static void test_objects(void)
{
	static const struct {
		const char *base;
		enum mr_runtime want;
	} cases[] = {
		{ "libgomp.so.1", MR_RT_OPENMP },
		{ "libc.so.6", MR_RT_C },
		{ "ld-linux-x86-64.so.2", MR_RT_C },
		{ "libmpi.so.40", MR_RT_MPI },
		{ "libopen-pal.so.40", MR_RT_MPI },
		{ "libmpich.so.12", MR_RT_MPI },
		{ "libm.so.6", MR_RT_NONE },
		{ "libgfortran.so.5", MR_RT_NONE },
		{ "libcrypto.so.3", MR_RT_NONE }, /* "libc" is a prefix of its name, not libc.so */
		{ "cg", MR_RT_NONE },
		{ NULL, MR_RT_NONE },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ok(mr_runtime_of_object(cases[i].base) == cases[i].want, "object %s: runtime %d",
		   cases[i].base ? cases[i].base : "(null)", (int)cases[i].want);
	ok(!strcmp(mr_runtime_label(MR_RT_OPENMP), "<OpenMP runtime (libgomp): barrier/team state>"),
	   "the OpenMP group's name: %s", mr_runtime_label(MR_RT_OPENMP));
	ok(!strcmp(mr_runtime_label(MR_RT_NONE), "") && !strcmp(mr_runtime_key(MR_RT_COUNT), ""),
	   "no name for no runtime or one out of range");
}

static void test_allocs(void)
{
	static const struct {
		enum mr_runtime rt;
		const char *func;
		int want;
	} cases[] = {
		{ MR_RT_OPENMP, "gomp_malloc", 1 },        /* team, barrier, work shares */
		{ MR_RT_OPENMP, NULL, 1 },                 /* libgomp has no local symbols */
		{ MR_RT_OPENMP, "omp_aligned_alloc", 0 },  /* the program's, by omp_alloc */
		{ MR_RT_OPENMP, "GOMP_alloc", 0 },         /* the allocate directive */
		{ MR_RT_C, "_IO_file_doallocate", 1 },     /* stdio buffer */
		{ MR_RT_C, "__fopen_internal", 1 },        /* FILE */
		{ MR_RT_C, "__strdup", 0 },                /* the program's string */
		{ MR_RT_C, NULL, 0 },
		{ MR_RT_MPI, "ompi_free_list_grow", 1 },
		{ MR_RT_MPI, "PMPI_Alloc_mem", 0 },
		{ MR_RT_NONE, "gomp_malloc", 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ok(mr_runtime_owns_alloc(cases[i].rt, cases[i].func) == cases[i].want,
		   "allocation by %s of runtime %d: own %d", cases[i].func ? cases[i].func : "(null)",
		   (int)cases[i].rt, cases[i].want);
}

static void test_wait_functions(void)
{
	ok(mr_runtime_wait_function(MR_RT_OPENMP, "gomp_team_barrier_wait_end"), "gomp_team_barrier_wait_end waits");
	ok(mr_runtime_wait_function(MR_RT_OPENMP, "do_spin"), "do_spin waits");
	ok(!mr_runtime_wait_function(MR_RT_OPENMP, "gomp_thread_start"), "gomp_thread_start does not");
	ok(!mr_runtime_wait_function(MR_RT_OPENMP, NULL), "no name: not by name");
	ok(mr_runtime_wait_function(MR_RT_C, "__lll_lock_wait"), "libc's __lll_lock_wait waits");
	ok(!mr_runtime_wait_function(MR_RT_C, "memcpy"), "memcpy does not");
}

static void test_spin_code(void)
{
	/* libgomp.so.1 (GCC 12) 0x1f7cb: the team barrier's spin, do_spin inlined:
	 * 1f7d8: pause; add $1,%rax; cmp %rdx,%rax; je out; mov 0(%rbp),%ecx; cmp %ecx,%ebx;
	 * je 1f7d8 */
	static const uint8_t gomp[] = {
		0x31, 0xc0, 0x48, 0x85, 0xd2, 0x75, 0x11, 0xeb, 0x3c, 0x0f, 0x1f, 0x40, 0x00,
		0xf3, 0x90, 0x48, 0x83, 0xc0, 0x01, 0x48, 0x39, 0xd0, 0x74, 0x2d, 0x8b, 0x4d,
		0x00, 0x39, 0xcb, 0x74, 0xee, 0x8b, 0x45, 0x00, 0xa8, 0x01, 0x75, 0x67, 0x89,
		0xc2, 0x83, 0xe2, 0x02, 0x09, 0xd3, 0xc3,
	};
	/* a copy loop: movsd (%rsi,%rax,8),%xmm0; movsd %xmm0,(%rdi,%rax,8); add $1,%rax;
	 * cmp %rax,%rdx; jne back (no pause) */
	static const uint8_t copy[] = {
		0xf2, 0x0f, 0x10, 0x04, 0xc6, 0xf2, 0x0f, 0x11, 0x04, 0xc7, 0x48, 0x83, 0xc0,
		0x01, 0x48, 0x39, 0xc2, 0x75, 0xed, 0xc3,
	};
	/* a pause outside any loop: pause; ret */
	static const uint8_t lone[] = { 0xf3, 0x90, 0xc3, 0x90, 0x90 };

	ok(mr_runtime_spin_code(gomp, sizeof(gomp), 13), "libgomp: the pause is in a spin loop");
	ok(mr_runtime_spin_code(gomp, sizeof(gomp), 24), "libgomp: the load of the barrier word too");
	ok(mr_runtime_spin_code(gomp, sizeof(gomp), 29), "libgomp: the loop's branch too");
	ok(!mr_runtime_spin_code(gomp, sizeof(gomp), 31), "libgomp: the code after the loop is not");
	ok(!mr_runtime_spin_code(gomp, sizeof(gomp), 0), "libgomp: the code before it is not");
	ok(!mr_runtime_spin_code(copy, sizeof(copy), 0), "a copy loop without pause is no spin");
	ok(!mr_runtime_spin_code(lone, sizeof(lone), 0), "a pause outside a loop is no spin");
	ok(!mr_runtime_spin_code(gomp, 14, 13), "the loop's branch beyond the bytes given: none");
}

int main(void)
{
	test_objects();
	test_allocs();
	test_wait_functions();
	test_spin_code();
	return tap_done();
}
