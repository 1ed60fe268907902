/* post/binary/runtime.c - the runtimes whose data and waiting the report keeps apart (see
 * runtime.h): tables of object names, wait functions and user-facing allocators, and the
 * spin-loop test on code bytes. */
#include "runtime.h"

#include <string.h>

struct runtime_desc {
	const char *name, *title, *label, *key;
	const char *const *objects;   /* file name prefixes of its shared objects */
	const char *const *waits;     /* wait functions, by name prefix */
	const char *const *user_allocs; /* functions that allocate for the program (prefixes);
					 * NULL with own_only: only these are the runtime's */
	const char *const *own_only;
};

static const char *const gomp_objects[] = { "libgomp.so", NULL };
/* libgomp's config/linux/{wait.h,bar.c,mutex.c,sem.c,ptrlock.c} and its doacross and
 * task waits (local symbols: named where a debug file is installed) */
static const char *const gomp_waits[] = { "do_spin", "do_wait", "futex_wait", "gomp_barrier_wait",
					  "gomp_team_barrier_wait", "gomp_mutex_lock_slow",
					  "gomp_sem_wait_slow", "gomp_ptrlock_get_slow",
					  "GOMP_doacross_wait", "GOMP_barrier",
					  NULL };
/* the OpenMP allocators the program calls (omp_alloc and friends, the allocate directive) */
static const char *const gomp_user[] = { "omp_", "GOMP_alloc", NULL };

static const char *const mpi_objects[] = { "libmpi.so", "libmpich.so", "libmpi_mpifh.so",
					   "libopen-pal.so", "libopen-rte.so", "libucp.so",
					   "libuct.so", "libucs.so", "libfabric.so", NULL };
/* the progress engines MPI_Wait, MPI_Barrier and friends poll in (untested here: no MPI
 * run is part of the tests) */
static const char *const mpi_waits[] = { "opal_progress", "ompi_request_default_wait",
					 "ompi_sync_wait", "ucp_worker_progress", "uct_",
					 "MPIDI_CH3I_Progress", "MPID_Progress_wait", NULL };
static const char *const mpi_user[] = { "MPI_Alloc_mem", "PMPI_Alloc_mem", NULL };

static const char *const c_objects[] = { "libc.so", "libpthread.so", "ld-linux", NULL };
static const char *const c_waits[] = { "__lll_lock_wait", "pthread_spin_lock",
				       "__pthread_spin_lock", "pthread_barrier_wait",
				       "__futex_abstimed_wait", "__GI___lll_lock_wait", NULL };
/* libc allocates for the program in many functions (strdup, getline, qsort, fopen's
 * FILE is the program's stream...): only the stdio buffers and streams are its own */
static const char *const c_own[] = { "_IO_file_doallocate", "_IO_wfile_doallocate",
				     "__GI__IO_file_doallocate", "_IO_new_file_doallocate",
				     "__fopen_internal", "_IO_new_fdopen", "fdopen", NULL };

static const struct runtime_desc runtimes[MR_RT_COUNT] = {
	[MR_RT_OPENMP] = { "libgomp", "OpenMP runtime (libgomp)",
			   "<OpenMP runtime (libgomp): barrier/team state>", "openmp",
			   gomp_objects, gomp_waits, gomp_user, NULL },
	[MR_RT_MPI] = { "MPI", "MPI runtime", "<MPI runtime: buffers and state>", "mpi",
			mpi_objects, mpi_waits, mpi_user, NULL },
	[MR_RT_C] = { "libc", "C runtime (libc)",
		      "<C runtime (libc): stdio buffers, malloc arenas, static data>", "c",
		      c_objects, c_waits, NULL, c_own },
};

static const struct runtime_desc *desc(enum mr_runtime rt)
{
	return rt > MR_RT_NONE && rt < MR_RT_COUNT && runtimes[rt].name ? &runtimes[rt] : NULL;
}

/* Does s start with one of the prefixes of list (NULL-terminated)? */
static int has_prefix(const char *s, const char *const *list)
{
	for (size_t i = 0; s && list && list[i]; i++)
		if (!strncmp(s, list[i], strlen(list[i])))
			return 1;
	return 0;
}

enum mr_runtime mr_runtime_of_object(const char *base)
{
	for (int rt = MR_RT_NONE + 1; rt < MR_RT_COUNT; rt++)
		if (desc((enum mr_runtime)rt) && has_prefix(base, runtimes[rt].objects))
			return (enum mr_runtime)rt;
	return MR_RT_NONE;
}

const char *mr_runtime_name(enum mr_runtime rt)
{
	return desc(rt) ? desc(rt)->name : "";
}

const char *mr_runtime_label(enum mr_runtime rt)
{
	return desc(rt) ? desc(rt)->label : "";
}

const char *mr_runtime_title(enum mr_runtime rt)
{
	return desc(rt) ? desc(rt)->title : "";
}

const char *mr_runtime_key(enum mr_runtime rt)
{
	return desc(rt) ? desc(rt)->key : "";
}

int mr_runtime_owns_alloc(enum mr_runtime rt, const char *func)
{
	const struct runtime_desc *d = desc(rt);

	if (!d)
		return 0;
	if (d->own_only)
		return has_prefix(func, d->own_only);
	return !has_prefix(func, d->user_allocs);
}

int mr_runtime_wait_function(enum mr_runtime rt, const char *func)
{
	const struct runtime_desc *d = desc(rt);

	return d && has_prefix(func, d->waits);
}

int mr_runtime_spin_code(const uint8_t *code, size_t len, size_t at)
{
	for (size_t p = at; p + 1 < len && p <= at + MR_RUNTIME_SPIN_BYTES; p++) {
		int jcc = (code[p] & 0xf0) == 0x70 || code[p] == 0xeb;
		int8_t rel = (int8_t)code[p + 1];
		size_t target;

		if (!jcc || rel >= 0 || (size_t)(-rel) > p + 2)
			continue;
		target = p + 2 - (size_t)(-rel);
		if (target > at)
			continue;
		for (size_t q = target; q + 1 < p; q++)
			if (code[q] == 0xf3 && code[q + 1] == 0x90)
				return 1;
	}
	return 0;
}
