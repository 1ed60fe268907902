/* post/attrib/attrib.h - attribution of samples: data address -> program variable, instruction ->
 * file:line, page -> home node.
 *
 * Data addresses are tried in this order: heap objects live at the sample's time (grouped
 * by allocation call site), thread stacks, the executable's TLS block of the sample's
 * thread, globals and statics of the ELF object mapped at the address in the last maps
 * snapshot before the sample (executable and shared libraries), else <unknown> (id 0).
 * What the OpenMP, MPI and C runtimes own (their allocations for themselves, their static
 * and TLS data, what their wait loops and libgomp's code read outside every recorded
 * allocation) is one variable per runtime of kind MR_VAR_RUNTIME (attrib_runtime.c).
 * Results are cached per instruction address and per object, so a warm lookup costs a
 * few hash probes.
 *
 * libmemphis's own accesses are no program variable: a sample whose instruction is in the
 * library's code, or whose data address is in the library's object (its data, bss,
 * read-only data) or in its static TLS block, is marked self and attributed to nothing.
 * The library is the object the run names (RUN lib, lib_name; older runs: a file named
 * libmemphis.so*), or its sections in the executable when it was linked in (RUN lib="").
 * A sample in runtime code called by the library's own work (not by an interposer passing
 * the program's call on) is set aside too: mr_attrib_ctx_caller says so (attrib_self.c).
 */
#ifndef MR_ATTRIB_H
#define MR_ATTRIB_H

#include <stddef.h>
#include <stdint.h>

#include "base/varkind.h"
#include "run/rundir.h"


struct mr_varinfo {
	char *name;        /* "colidx", "cg.c:a", "malloc at cg.c:120 in main", "<stack of
			    * thread 2>": one name per variable (DWARF: mr_var's name) */
	unsigned kind;     /* enum mr_var_kind */
	/* DWARF variables: what qualifies the name and the name without it (mr_var's scope
	 * and base: "cg.c" and "a"), NULL when it has no scope; owned by the object's debug
	 * information */
	const char *scope, *base_name;
	char *decl;        /* "cg.c:40" where declared, NULL if unknown */
	const char *object;/* ELF object path it belongs to, NULL for heap/stack/unknown */
	uint64_t lo, hi;   /* address range for globals and TLS offsets (0/0 otherwise) */
	uint64_t objects;  /* heap: allocations from this call site */
	uint64_t bytes;    /* heap: bytes allocated from this call site; others: size */
	/* heap, when the naming frame has a line: the call site's file (base name), line and
	 * function, and the functions of the recorded frames outside it (its callers as the
	 * first allocation from the site recorded them), '\n'-separated; NULL/0 otherwise */
	char *site_file, *site_func, *site_callers;
	unsigned site_line;
	/* heap, with site_file: every recorded frame's return address as a vaddr of the
	 * executable in hex, "-" for a frame outside it, space-separated (JSON site.chain) */
	char *site_chain;
	/* heap named by the variable receiving the pointer (attrib_heapvar.c), NULL otherwise:
	 * the variable ("x", "g.m", "main::m"), what it is ("global", "static", "function
	 * static", "member", "local"), the functions that returned the pointer to it
	 * ('\n'-separated; a library's frames first), the line of the call it was received
	 * from when that is not the call site ("cg.c:152") */
	char *recv_name, *recv_via, *recv_from;
	const char *recv_how;
};

struct mr_attrib_opts {
	const char *exe;   /* use this file for the executable instead of RUN key exe */
	int force;         /* accept a build-id mismatch */
};

struct mr_attrib;

/* Prepare attribution for run. Returns 0, or -errno with a one-line message in err:
 * -ENOENT executable missing (names the path, suggests --exe), -ESTALE build-id of the file
 * differs from the run's (suggests --force), or another error opening it. Warnings (a
 * library that cannot be read, a build-id overridden by --force) go to run->warnings. */
int mr_attrib_open(struct mr_run *run, const struct mr_attrib_opts *o, struct mr_attrib **out,
		   char *err, size_t errlen);
void mr_attrib_close(struct mr_attrib *a);

struct mr_resolved {
	uint32_t var;    /* variable id, 0 = <unknown> */
	uint32_t line;   /* line id, 0 = unknown code */
	int page_node;   /* home node of the data page, -1 unknown */
	int same_page;   /* this context gave var with this page before (mr_agg_add_page: done) */
	int self;        /* libmemphis's own access (its code or its data), to be set aside:
			  * var 0, page_node -1 (line 0 when the code is the library's) */
};

/* Attribution by several threads at once: each has a context (its cache). The ids a
 * context makes depend on what the others made before; mr_attrib_pass_end gives them the
 * numbers one pass over all samples in the contexts' order would have given. */
struct mr_attrib_ctx;

/* A warning of the pass (an object whose debug information cannot be read), handed to the
 * context that needs the object, when it first needs it (NULL: appended to run->warnings
 * by the context that tried to open it). */
typedef void mr_attrib_warn_fn(void *arg, const char *msg);

/* A context for one thread's samples. NULL when out of memory. */
struct mr_attrib_ctx *mr_attrib_ctx_new(struct mr_attrib *a, mr_attrib_warn_fn *warn, void *arg);
void mr_attrib_ctx_free(struct mr_attrib_ctx *c);

/* Attribute one sample: its instruction always, its data address when use_addr. Contexts
 * of one mr_attrib may be used by as many threads at once. */
void mr_attrib_sample(struct mr_attrib_ctx *c, const struct memphis_rec_sample *s, int use_addr,
		      struct mr_resolved *r);

/* mr_attrib_sample for a sample with STACKS entry st (NULL: none) and its stack bytes: a
 * data address in the sampling thread's own stack is named by the local variable that
 * holds it ("function::var", MR_VAR_LOCAL) of the sampled frame or of a caller's, as far
 * as the bytes let the chain be unwound, when there is one. */
void mr_attrib_sample_stack(struct mr_attrib_ctx *c, const struct memphis_rec_sample *s,
			    const struct memphis_rec_stack *st, const uint8_t *bytes,
			    int use_addr, struct mr_resolved *r);

/* mr_attrib_sample_stack's variable (use_addr 1) and page home left out: r->page_node -1,
 * nothing noted of the page (a sample the tables leave out must not make the next one's
 * page seen: mr_resolved.same_page). */
void mr_attrib_sample_var(struct mr_attrib_ctx *c, const struct memphis_rec_sample *s,
			  const struct memphis_rec_stack *st, const uint8_t *bytes,
			  struct mr_resolved *r);

/* The report's pass, one lookup of s's instruction, returned: the runtime (enum mr_runtime
 * of runtime.h) whose wait loop holds it, 0 when none (the program's code, or a runtime's
 * other code); in the program's own code (pollloop.h), MR_WAIT_FENCE when it is a fence
 * and MR_WAIT_POLL when a poll loop holds it. When want, and the instruction is no fence,
 * mr_attrib_sample_stack of s (use_addr 1) into *r; else in a poll loop, its line (use_addr
 * 0). */
#define MR_WAIT_RUNTIME 0xffu
#define MR_WAIT_FENCE 0x200u
#define MR_WAIT_POLL 0x400u
unsigned mr_attrib_sample_wait(struct mr_attrib_ctx *c, const struct memphis_rec_sample *s,
			       const struct memphis_rec_stack *st, const uint8_t *bytes, int want,
			       struct mr_resolved *r);

/* The first instruction of the poll loop that holds ip at time t (MR_WAIT_POLL), 0 when
 * none: one loop's instructions have the same. */
uint64_t mr_attrib_poll_head(struct mr_attrib_ctx *c, uint64_t ip, uint64_t t);

/* The variable the poll loop holding s's instruction polls, from s's registers and stack
 * (its STACKS entry st and bytes; NULL: none): the first variable that one pass of the
 * loop reads (binary/pollloop.h: mr_poll_reads) outside the thread's own stack, else the
 * first it reads there (as a stack, not a local); 0 when none is known. */
uint32_t mr_attrib_poll_var(struct mr_attrib_ctx *c, const struct memphis_rec_sample *s,
			    const struct memphis_rec_stack *st, const uint8_t *bytes);

/* After a pass whose samples went through ctx[0], ctx[1], ... in that order (all of
 * ctx[0]'s samples before ctx[1]'s), made when the catalog held nvars0 variables and
 * nlines0 lines: renumber the ids made since as one context would have made them, and
 * return *var_map and *line_map (malloc'd, the caller frees; [old id] = new id, covering
 * every id of the pass). Returns 0 or -ENOMEM. */
int mr_attrib_pass_end(struct mr_attrib *a, struct mr_attrib_ctx *const *ctx, size_t n,
		       size_t nvars0, size_t nlines0, uint32_t **var_map, uint32_t **line_map);

/* Whether an object of runtime rt (enum mr_runtime) is in the run's maps snapshots. */
int mr_attrib_runtime_loaded(const struct mr_attrib *a, unsigned rt);

/* Variable id of data address addr accessed by thread tid at time t (0 = <unknown>, also
 * for libmemphis's own data). */
uint32_t mr_attrib_data(struct mr_attrib *a, uint64_t addr, uint64_t t, uint32_t tid);
/* Variable var holds for data addresses in [lo, hi) at times in [t0, t1), and only for
 * thread tid when it is non-zero (what one data resolution tells, for a cache). */
struct mr_var_range {
	uint64_t lo, hi, t0, t1;
	uint32_t tid;
	uint32_t var;
};

static inline int mr_var_range_holds(const struct mr_var_range *r, uint64_t addr, uint64_t t,
				     uint32_t tid)
{
	return addr >= r->lo && addr < r->hi && t >= r->t0 && t < r->t1 &&
	       (!r->tid || r->tid == tid);
}

/* The last answers of mr_attrib_touch_data outside the stacks and of mr_attrib_touch_code,
 * and where and when they hold (the consecutive pages of one array or heap object are
 * touched one after the other, mostly by one instruction). Zeroed before the first call;
 * one per caller. */
struct mr_touch_cache {
	struct mr_var_range data;
	int data_ok;
	uint64_t ip, lt0, lt1; /* line holds for ip at times in [lt0, lt1) */
	uint32_t line;
	int line_ok;
};
/* The same for a first touch by instruction ip with STACKS entry st (NULL: none), after
 * the sample pass: a local variable of ip's frame when addr is one in tid's own stack
 * (mr_attrib_sample_stack), else the local the samples found on addr's page of a stack
 * (the page's first touch is then that local's), else as mr_attrib_data (through *tc). */
uint32_t mr_attrib_touch_data(struct mr_attrib *a, struct mr_touch_cache *tc, uint64_t addr,
			      uint64_t t, uint32_t tid, uint64_t ip,
			      const struct memphis_rec_stack *st, const uint8_t *bytes);
/* Where a data address lies, for the pattern views (pattern.c): the memory that holds it,
 * [lo, hi) (the variable for globals, statics and a thread's TLS; the heap object; the
 * stack), valid for times [t0, t1), and for a heap object its index in the order of
 * mr_attrib_heap_object (SIZE_MAX otherwise). lo = hi = 0 when not known. */
struct mr_extent {
	uint64_t lo, hi, t0, t1;
	size_t heap_index;
};
/* mr_attrib_data of addr, with its extent in *e. */
uint32_t mr_attrib_data_extent(struct mr_attrib *a, uint64_t addr, uint64_t t, uint32_t tid,
			       struct mr_extent *e);
/* The member layout (binary/layout.h) of variable var: a static of a struct type or an
 * array of them, or a heap variable named by the typed pointer that receives its objects;
 * NULL when it has none (a scalar or unknown type: no member rows, no guessing). Made once
 * per variable, owned by a; not during a parallel pass. */
struct mr_layout;
const struct mr_layout *mr_attrib_layout(struct mr_attrib *a, uint32_t var);
/* The heap objects of the run in address order (then allocation time): their count, and
 * object i's variable id, address in *addr and size in *bytes. */
size_t mr_attrib_heap_count(const struct mr_attrib *a);
uint32_t mr_attrib_heap_object(const struct mr_attrib *a, size_t i, uint64_t *addr,
			       uint64_t *bytes);
/* Line id of the instruction at ip (0 = unknown). */
uint32_t mr_attrib_code(struct mr_attrib *a, uint64_t ip, uint64_t t);
/* The same through *tc (mr_attrib_touch_data's). */
uint32_t mr_attrib_touch_code(struct mr_attrib *a, struct mr_touch_cache *tc, uint64_t ip,
			      uint64_t t);
/* Home node of the page of addr: the PAGES blocks of region, then those of region 0
 * (first touches), then any region; -1 if unknown. */
int mr_attrib_page_node(struct mr_attrib *a, uint32_t region, uint64_t addr);

const struct mr_varinfo *mr_attrib_var(const struct mr_attrib *a, uint32_t id);
size_t mr_attrib_nvars(const struct mr_attrib *a);
const char *mr_attrib_line(const struct mr_attrib *a, uint32_t id);
size_t mr_attrib_nlines(const struct mr_attrib *a);
/* The function holding line id's code (DWARF or the ELF symbols), NULL when not known (a
 * caller's line, code without symbols). */
const char *mr_attrib_line_function(const struct mr_attrib *a, uint32_t id);

/* The line of a sample or first touch at instruction ip that has a STACKS entry st (its
 * stack bytes at bytes) and line id `line`: when ip is in a runtime library (libc, libm,
 * libgomp, libgfortran, ...) or has no source line, the first caller in the unwound chain
 * with a source line outside them, named "cg.c:391 (in memmove)" (ip's function in
 * parentheses); else, or when no caller has one, line. The ctx form is for a pass's
 * context (as mr_attrib_sample); the other takes the attribution's lock and sets *runtime
 * (may be NULL) when ip is runtime code and no caller had a line: line is then the
 * runtime's own (a tail call took the user's frame off the stack). The ctx form returns
 * MR_ATTRIB_SELF when a frame of libmemphis's own work called ip (the sample is the
 * library's, to be set aside as mr_resolved.self says); the other then returns line. */
#define MR_ATTRIB_SELF UINT32_MAX
uint32_t mr_attrib_ctx_caller(struct mr_attrib_ctx *c, uint64_t ip, const struct memphis_rec_stack *st,
			      const uint8_t *bytes, uint32_t line);
/* The sample at addr that context c attributed last is not counted (mr_attrib_ctx_caller
 * said MR_ATTRIB_SELF): its page is no longer taken as noted with its variable
 * (mr_resolved.same_page), so the next sample of that variable there notes it, as if this
 * one never came. Without it, one thread reading the files in turn and several reading
 * them at once noted different pages (t_report_jobs beside four CPU hogs, 5 runs in 169). */
void mr_attrib_ctx_forget_page(struct mr_attrib_ctx *c, uint64_t addr);
uint32_t mr_attrib_caller(struct mr_attrib *a, uint64_t ip, const struct memphis_rec_stack *st,
			  const uint8_t *bytes, uint32_t line,
			  int *runtime);
/* The function a caller's line names ("cg.c:391 (in memmove)" -> "memmove") into buf;
 * returns 0 when line name is no caller's line. */
int mr_attrib_line_via(const char *name, char *buf, size_t len);

/* Thread index (0 = main) of tid from the THREADS records, -1 if unknown. */
int mr_attrib_thread_index(const struct mr_attrib *a, uint32_t tid);
/* Base page size of the run (RUN key page_size, default 4096). */
uint64_t mr_attrib_page_size(const struct mr_attrib *a);
/* The executable as read (path and build-id). */
const char *mr_attrib_exe(const struct mr_attrib *a);
const char *mr_attrib_exe_build_id(const struct mr_attrib *a);


#endif /* MR_ATTRIB_H */
