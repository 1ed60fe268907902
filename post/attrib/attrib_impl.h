/* post/attrib/attrib_impl.h - the internals of struct mr_attrib, shared by its pieces:
 *   attrib.c          open and close: the executable, thread stacks, TLS blocks
 *   attrib_objects.c  the ELF objects of the maps snapshots and where they lie over time
 *   attrib_catalog.c  the id -> name catalog of variables and source lines (ip -> line)
 *   attrib_resolve.c  the resolver: sample -> variable and page home, with its cache
 *   attrib_caller.c   the line of runtime code told by its caller (STACKS entries)
 *   attrib_locals.c   stack data by local variable (STACKS entries)
 *   attrib_runtime.c  the runtimes' data and wait loops, the program's fences and poll loops
 *   attrib_poll.c     the variable a poll loop polls (STACKS entries)
 *   attrib_self.c     libmemphis's own work among a sample's frames; the library linked
 *                     into the executable
 *   attrib_heapvar.c  heap objects named by the variable receiving the pointer
 *   attrib_layout.c   a variable's member layout (binary/layout.h)
 * Not for other files of post/: they use attrib.h.
 */
#ifndef MR_ATTRIB_IMPL_H
#define MR_ATTRIB_IMPL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "attrib.h"
#include "binary/debuginfo.h"
#include "chunks.h"
#include "maps.h"
#include "run/heap.h"
#include "run/pages.h"
#include "u64map.h"
struct mr_layout;
#define IP_CACHE_BITS 16
#define NOT_YET UINT32_MAX
/* data_resolve's answer for data of libmemphis itself, and the ip cache's line for its
 * code (never catalog ids) */
#define SELF_VAR (UINT32_MAX - 1)
#define SELF_LINE UINT32_MAX

/* One ELF object seen in the maps. */
struct obj {
	char *path;               /* as in the maps */
	char *file;               /* file read (differs for the executable with --exe) */
	char *base;               /* basename of path cut to its soname form, for names */
	struct mr_debuginfo *di;  /* NULL until opened or when unreadable */
	int tried;
	int is_exe;
	int is_self;              /* libmemphis itself (see attrib_obj_for_path) */
	int runtime_code;         /* a runtime library (attrib_obj_for_path): its code is
				   * never the line the user must change, and is named by
				   * its ELF symbols (mr_debuginfo_code_by_symbols) */
	int data_file;            /* mapped but no ELF object (a locale archive, gconv's cache,
				   * a database file): not unreadable, its bytes are data
				   * (attrib_file_var) */
	char *unreadable;         /* opened in a parallel pass and unreadable: the warning,
				   * told to each pass context that needs the object */
	uint64_t v0, o0;          /* lowest PT_LOAD vaddr and its file offset */
	uint64_t code_seen;       /* time of the first snapshot with an executable mapping of
				   * it (0: none) */
	struct attrib_self *self; /* what it tells of libmemphis (attrib_self.c), NULL: nothing */
	int self_tried;
};

/* Where one object lies in one snapshot: [lo, hi) (its bss included). */
struct span {
	uint64_t lo, hi;
	uint64_t file_hi;         /* end of its file's mappings: hi without the anonymous
				   * mapping after them (the bss, maybe merged with more) */
	uint64_t bias;            /* runtime address - vaddr, valid once the object is open */
	uint64_t base_start, base_off; /* the mapping with the lowest file offset */
	uint32_t obj;
	int bias_known;
};

struct snap {
	struct mph_maps maps;
	struct span *span;        /* sorted by lo */
	size_t nspan;
};

/* Direct-mapped per-ip cache of the last resolutions made for that instruction: its line,
 * up to IP_CACHE_WAYS data ranges (an instruction often walks a few objects: one stack or TLS
 * block per thread) and its wait kind. The 1 << IP_CACHE_BITS sets hold an index into a
 * dense array of slots that grows with the instructions seen: a run samples hundreds to
 * thousands of distinct instructions, and a table of 65,536 slots (16 MB) touched a page
 * per instruction, each first read as the zero page and then copied on write, a TLB
 * shoot-down across the other workers' CPUs each time. */
#define IP_CACHE_WAYS 4
struct ip_cache_slot {
	uint64_t ip;
	uint64_t lt0, lt1; /* when line holds */
	uint32_t line;     /* SELF_LINE: ip is in libmemphis's code */
	uint8_t valid, nrange, next; /* valid: line, lt0, lt1 and r[] are ip's */
	uint8_t has_wait;
	uint16_t wait;           /* attrib_wait_kind of ip */
	struct mr_var_range r[IP_CACHE_WAYS];
};

/* A context's page homes and the variable last given with each page (the report notes
 * a variable's page once: mr_resolved.same_page), in chunks of 2 MiB of address space,
 * an 8-byte slot a base page, made as samples reach them. A page's home is the same in
 * every region unless it moved (mr_pagemap_home). A direct-mapped cache of pages keyed
 * by page and region (64 KiB) missed at nearly every sample of examples/cg (14 k pages
 * sampled, a region per iteration), the page map and the noted pages were looked up each
 * time, half the sample pass; the chunks of cg's arrays take 112 KiB. A chunk is found
 * through a direct-mapped cache of chunks (4 KiB), else a map. At most PAGE_CHUNK_MAX
 * chunks (32 MiB, 16 GiB of address space sampled): beyond, pages are asked each time. */
#define PAGE_CHUNK_SHIFT 21
#define PAGE_CHUNK_PAGES 512
#define PAGE_CHUNK_MAX 8192
#define PAGE_CHUNK_CACHE_BITS 8
#define PAGE_UNSEEN INT32_MIN
struct page_slot {
	int32_t node; /* mr_pagemap_home (MR_PAGEMAP_VARIES: ask the region's), PAGE_UNSEEN */
	uint32_t var;
};
struct page_chunk_ref {
	uint64_t id; /* addr >> PAGE_CHUNK_SHIFT, MPH_U64MAP_EMPTY: none */
	struct page_slot *p;
};

struct range {
	uint64_t lo, hi, t0, t1;
	uint32_t tid;
	int valid;
};

struct mr_attrib {
	struct mr_run *run;
	char *exe_path;             /* RUN exe (or --exe) */
	const char *self_path;      /* RUN lib: libmemphis's file ("": linked into the exe) */
	const char *self_name;      /* RUN lib_name, NULL when absent */
	int heap_sampled;           /* RUN heap_sample_every > 1 without heap_map: not every
				     * allocation's bytes named by a record */
	char exe_bid[128];

	struct obj *obj;
	size_t nobj;
	struct mph_u64map obj_by_path; /* hash of path -> index */
	uint32_t exe_obj;           /* index of the executable, NOT_YET if not in the maps */
	uint64_t exe_tls;           /* roundup(tls memsz, align) of the executable */
	struct tlsmod {
		int64_t off;            /* block at fs_base + off */
		uint64_t memsz;
		uint32_t obj;
	} *tls;                     /* static TLS blocks of the modules (TLS records, else the exe's) */
	size_t ntls;
	int64_t tls_lo;             /* lowest off: static TLS is [fs_base + tls_lo, fs_base) */

	struct snap *snap;          /* sorted by time */
	size_t nsnap;

	struct mr_heap heap;        /* heap objects over time (tag: the variable) */
	struct mr_heap stacks;      /* thread stacks over time (tag: the thread index) */
	struct mph_u64map thread_by_tid; /* tid -> index in run->threads of its last START */

	struct mr_varinfo *vars;
	uint64_t *var_keys;         /* [id]: the key of var_by_key it was added under */
	size_t nvars, capvars;
	struct mph_u64map var_by_key;
	struct attrib_hv *hv;       /* the receivers of heap pointers (attrib_heapvar.c) */
	struct mph_u64map layouts;  /* variable key (var_keys) -> its struct mr_layout *, 1: none
				     * (attrib_layout.c); mask 0: not made yet */

	char **lines;
	char **line_funcs;          /* [id]: the function holding the line's code, first seen
				     * (NULL: not known); for the exports */
	size_t nlines, caplines;
	struct mph_u64map line_by_hash;
	struct mph_u64map line_by_ip;
	struct mph_u64map code_kinds; /* ip -> code_kind (attrib_runtime.c), for all contexts */

	struct mr_pagemap pages;

	/* Parallel passes: heap objects, page homes, threads, TLS blocks and the
	 * snapshots' spans are only read; what resolution may create or open (ids, objects,
	 * debug information, spans' bias) is changed under lock by the context holder. */
	pthread_mutex_t lock;
	struct mr_attrib_ctx *holder; /* the context holding lock, NULL outside a pass */
	struct attrib_locals *locals; /* attrib_locals.c's caches, NULL until used */
	struct attrib_callers *callers; /* mr_attrib_caller's unwinder and caches, or NULL */
};

/* One pass's (one thread's) own state: the per-instruction cache, and for the renumbering
 * at the end of a parallel pass the first use of each id and unreadable object. */
struct mr_attrib_ctx {
	struct mr_attrib *a;
	uint32_t *set;              /* [1 << IP_CACHE_BITS]: slot index + 1 of the set's ip, 0: none */
	struct ip_cache_slot *slot; /* the cached instructions, dense */
	uint32_t nslot, cap_slot;
	struct page_chunk_ref *chunk_cache; /* [1 << PAGE_CHUNK_CACHE_BITS] */
	struct mph_chunks chunks;       /* by chunk id: PAGE_CHUNK_PAGES slots each */
	uint64_t pos;               /* samples attributed so far */
	uint64_t *var_first, *line_first; /* [id]: pos + 1 at the first use, 0: none */
	size_t cap_var, cap_line;
	unsigned char *told;        /* [object]: its unreadable warning was handed to warn */
	size_t cap_told;
	mr_attrib_warn_fn *warn;
	void *warn_arg;
	int oom;                    /* a first use could not be recorded */
	struct mph_u64map waits;    /* ip -> its runtime and whether a wait loop (attrib_runtime.c) */
	struct attrib_callers *callers; /* mr_attrib_ctx_caller's unwinder and caches, or NULL */
	struct attrib_unwind *locals_uw; /* attrib_locals.c's unwinder of callers' frames, or NULL */
};

/* ---- shared between the pieces ---- */

/* Whether addr lies at time t in the stack of thread tid itself. Reads only what no pass
 * changes (no lock). */
int attrib_on_own_stack(const struct mr_attrib *a, uint64_t addr, uint64_t t, uint32_t tid);

/* Under the lock: the variable id of the local of the frame running instruction ip (with
 * the registers of STACKS entry st) that holds data address addr at time t, 0 if none
 * (then resolve addr as usual). count: a sample's, kept for attrib_local_on_page. *cfa0:
 * the frame's CFA, 0 when not known. */
uint32_t attrib_local_at(struct mr_attrib *a, uint64_t ip, uint64_t addr, uint64_t t,
			 const struct memphis_rec_stack *st, int count, uint64_t *cfa0);
/* Not under the lock: attrib_local_at for the callers of frame 0, as far as the entry's
 * stack (bytes) lets them be unwound; c: the context (NULL: none). 0 if none. */
uint32_t attrib_local_in_callers(struct mr_attrib *a, struct mr_attrib_ctx *c, uint64_t ip,
				 uint64_t addr, uint64_t t, const struct memphis_rec_stack *st,
				 const uint8_t *bytes, int count);
/* Under the lock, after the sample pass: the local whose instance (where samples found
 * it) in the stack holding addr at time t overlaps addr's page most sampled, 0 if none. */
uint32_t attrib_local_on_page(struct mr_attrib *a, uint64_t addr, uint64_t t);
/* Free attrib_locals.c's caches (NULL: nothing). */
void attrib_locals_free(struct attrib_locals *L);
/* Free an unwinder of attrib_locals.c (NULL: nothing). */
void attrib_unwind_free(struct attrib_unwind *uw);
/* attrib_caller.c's state of one user (ctx, NULL for the attribution's own). */
struct attrib_callers *attrib_callers_new(struct mr_attrib *a, struct mr_attrib_ctx *ctx);
void attrib_callers_free(struct attrib_callers *cs);

/* libmemphis in object oi at address v (oi's vaddr), from its ELF (attrib_self.c), under
 * the lock. attrib_self_code: v is the library's code (oi is the library, or the executable
 * it is linked into and v in its memphis_text section). attrib_self_data: linked into the
 * executable, v is in one of its data sections, [*lo, *hi). attrib_self_work: a frame at v
 * does the library's own work (its code, no interposer passing the program's call on). */
struct attrib_self;
int attrib_self_code(struct mr_attrib *a, uint32_t oi, uint64_t v);
int attrib_self_data(struct mr_attrib *a, uint32_t oi, uint64_t v, uint64_t *lo, uint64_t *hi);
int attrib_self_work(struct mr_attrib *a, uint32_t oi, uint64_t v);
void attrib_self_free(struct attrib_self *s);

/* The line of instruction ip with STACKS entry st (mr_attrib_ctx_caller, mr_attrib_caller);
 * *runtime (may be NULL) as mr_attrib_caller's. */
uint32_t attrib_caller_line(struct attrib_callers *cs, uint64_t ip, const struct memphis_rec_stack *st,
			    const uint8_t *bytes, uint32_t line, int *runtime);

/* Add a variable; returns its id, or NOT_YET when out of memory (name is then freed). */
uint32_t attrib_add_var(struct mr_attrib *a, uint64_t key, struct mr_varinfo *v);

/* Intern a line name; returns its id (0 on out of memory: "??"). */
uint32_t attrib_intern_line(struct mr_attrib *a, const char *name);

/* What names an allocation: its naming frame (the first that is not the allocator's),
 * and the frames of libraries without lines skipped before it (issue 16 item 5). */
struct alloc_site {
	uint64_t site;      /* return address of the naming frame, 0 when none */
	uint32_t idx;       /* its index in the record's frames */
	unsigned fkind;     /* its kind (attrib_catalog.c's enum frame_kind) */
	int inlined;        /* the C++ library's allocator is inlined into its function */
	const char *alloc;  /* the allocation's kind: "malloc", "mmap", ... */
	char libs[1024];    /* the library frames skipped, described ("libx.so:f"),
			     * '\n'-separated; "" for none */
};

/* The program's own line ("file:line", and its function) that the C++ library's code
 * inlined at return address ret's call came from (mr_debuginfo_own_line). 0, or -ENOENT. */
int attrib_own_line(struct mr_attrib *a, uint64_t ret, uint64_t t, char *where, size_t wlen,
		    char *func, size_t flen);
/* The alloc_site of ALLOCS record r into *s. */
void attrib_alloc_site(struct mr_attrib *a, const struct memphis_rec_alloc *r,
		       struct alloc_site *s);

/* Variable id of the call site s of ALLOCS record r (created on first sight): "malloc at
 * cg.c:74 in vector", one per site and kind (Fortran sites: allocsite's names). */
uint32_t attrib_site_var(struct mr_attrib *a, const struct memphis_rec_alloc *r,
			 const struct alloc_site *s);

/* Line id of code address ip at time t, valid for [*t0, *t1) (0: "??"). */
uint32_t attrib_code_at(struct mr_attrib *a, uint64_t ip, uint64_t t, uint64_t *t0,
			uint64_t *t1);

/* Variable id of ALLOCS record r (created on first sight): named by the variable that
 * receives its pointer (attrib_heapvar.c), else by its call site (attrib_site_var). */
uint32_t attrib_heap_var(struct mr_attrib *a, const struct memphis_rec_alloc *r);
void attrib_heapvar_free(struct mr_attrib *a);
/* The libdw handle of object oi (heapvar_dwarf.h), opened once; NULL when it has no
 * DWARF. */
struct mr_hvdw *attrib_obj_dw(struct mr_attrib *a, uint32_t oi);
/* The layout of heap variable var's objects: the pointee type of the pointer its receiver
 * holds (layout.h mr_layout_pointee's returns; -ENOENT: no such receiver). */
int attrib_heap_layout(struct mr_attrib *a, uint32_t var, struct mr_layout **out);
/* Free attrib_layout.c's layouts. */
void attrib_layouts_free(struct mr_attrib *a);

/* The structured site of heap variable v (site_file, site_line, site_func, site_callers)
 * from the naming frame idx of r described as where ("file:line") and func. */
void attrib_site_parts(struct mr_attrib *a, const struct memphis_rec_alloc *r, uint32_t idx,
		       const char *where, const char *func, struct mr_varinfo *v);

/* Variable id for a stack of thread index idx. */
uint32_t attrib_stack_var(struct mr_attrib *a, uint32_t idx);

/* Variable id for a debuginfo variable of object oi. */
uint32_t attrib_dwarf_var(struct mr_attrib *a, uint32_t oi, const struct mr_var *mv);

/* Variable id for the unnamed read-only data of object oi: the literal constants compilers
 * keep in .rodata without a symbol (gfortran -O2 loads every real constant from there). */
uint32_t attrib_constants_var(struct mr_attrib *a, uint32_t oi);
/* The variable "<mapped file NAME>" of data file object oi (obj.data_file), made on first
 * use; 0 when out of memory. */
uint32_t attrib_file_var(struct mr_attrib *a, uint32_t oi);

/* The file name of path p (after its last '/'); points into p. */
const char *attrib_base_name(const char *p);

/* Open the debug information of object i once. Returns it or NULL (warning recorded). */
struct mr_debuginfo *attrib_obj_di(struct mr_attrib *a, uint32_t i);

/* Index of the object for a maps path, created if new. NOT_YET when out of memory. */
uint32_t attrib_obj_for_path(struct mr_attrib *a, const char *path, size_t len);

/* Build the object spans of one parsed snapshot. Returns 0 or -ENOMEM. */
int attrib_build_spans(struct mr_attrib *a, struct snap *s);

/* A run warning for each object but the executable (its build-id is checked) whose file
 * was modified after the program had it mapped as code: it is read as it is now, so its
 * lines, functions and variables may not be the run's. After the spans. */
void attrib_warn_changed(struct mr_attrib *a);

/* The span containing addr at time t (or, if in none, in the next snapshot: mapped
 * between the two) with its object open and bias known, or NULL; [*t0, *t1) is the time
 * the snapshot in force holds. */
struct span *attrib_span_at(struct mr_attrib *a, uint64_t addr, uint64_t t, uint64_t *t0,
			    uint64_t *t1);

/* The span containing addr at time t as attrib_span_at finds it, without opening its
 * object (bias maybe unknown): enough to ask a->obj[sp->obj].is_self. */
struct span *attrib_span_find(struct mr_attrib *a, uint64_t addr, uint64_t t, uint64_t *t0,
			      uint64_t *t1);

/* The widest [*lo, *hi) around addr that no span holds at time t as attrib_span_find sees
 * them (the snapshot in force and the next) and that lies in addr's mapping of the
 * snapshot in force (attrib_mapping_at), or between two of its mappings; valid for
 * [*t0, *t1). 1, or 0 when a span holds addr. */
int attrib_maps_gap(struct mr_attrib *a, uint64_t addr, uint64_t t, uint64_t *lo, uint64_t *hi,
		    uint64_t *t0, uint64_t *t1);

/* The mapping holding addr in the maps snapshot in force at time t, or NULL; [*t0, *t1)
 * is the time that snapshot holds. */
const struct mph_mapping *attrib_mapping_at(struct mr_attrib *a, uint64_t addr, uint64_t t,
					    uint64_t *t0, uint64_t *t1);

/* post/attrib/attrib_runtime.c: the runtimes' own data and wait loops (runtime.h) */
/* The variable of runtime rt's own data (created on first use); 0 when out of memory. */
uint32_t attrib_runtime_var(struct mr_attrib *a, unsigned rt);
/* The runtime variable of ALLOCS record r when its allocator's caller (frames[0]) is a
 * runtime allocating for itself, else 0. */
uint32_t attrib_alloc_runtime(struct mr_attrib *a, const struct memphis_rec_alloc *r);
/* The runtime variable for data address addr in object span sp (valid [t0, t1)) when the
 * object is a runtime's, with *rg set; else 0. */
uint32_t attrib_span_runtime(struct mr_attrib *a, struct span *sp, uint64_t addr, uint64_t t0,
			     uint64_t t1, struct range *rg);
/* The runtime variable for the static TLS block of object oi when it is a runtime's,
 * else 0. */
uint32_t attrib_tls_runtime(struct mr_attrib *a, uint32_t oi);
/* For a sample of instruction ip at time t whose data address nothing explains (an
 * allocation left unrecorded by heap sampling, memory mapped after the last maps
 * snapshot): the runtime variable when ip is in a runtime's wait loop (what a spin loop
 * reads is the runtime's lock or barrier word) or anywhere in libgomp's code (which
 * reaches the program's data only on its stacks and in recorded arrays), else 0. Takes
 * a->lock. */
uint32_t attrib_wait_data(struct mr_attrib_ctx *c, uint64_t ip, uint64_t t);
/* mr_attrib_data by context c (0 also for libmemphis's own data). */
uint32_t attrib_data_ctx(struct mr_attrib_ctx *c, uint64_t addr, uint64_t t, uint32_t tid);
/* The runtime whose wait loop ip is in (ip at time t), MR_RT_NONE if none, or the program's
 * MR_WAIT_FENCE and MR_WAIT_POLL: what mr_attrib_sample_wait caches in the instruction's
 * slot. */
unsigned attrib_wait_kind(struct mr_attrib_ctx *c, uint64_t ip, uint64_t t);
/* The runtime variable for an address no object, stack, TLS block or object file holds:
 * libc's malloc arenas when it is heap memory ([heap] or an anonymous mapping) and the
 * run recorded every allocation (else it may be an unrecorded one: 0). Only memory that
 * the maps snapshot in force has: the library snapshots the maps at start and at
 * dlopen/dlclose, so the brk heap's later growth and the threads' arenas mapped later
 * stay unknown. */
uint32_t attrib_unknown_runtime(struct mr_attrib *a, uint64_t addr, uint64_t t, struct range *rg);

/* Format the source position of runtime address pc as "file:line" (or a fallback) into
 * buf. Returns 1 if a file:line was found, 0 otherwise. */
int attrib_describe_code(struct mr_attrib *a, uint64_t pc, uint64_t t, char *buf, size_t len,
			 char *func, size_t flen);

#endif /* MR_ATTRIB_IMPL_H */
