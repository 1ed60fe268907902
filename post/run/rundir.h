/* post/run/rundir.h - reading a memphis run directory (format: include/memphis/format.h).
 *
 * mr_run_open() reads meta.mph whole (metadata is small next to the samples) and checks the
 * first block of every cpuNNN.mph; samples are then streamed block by block with
 * mr_samples_next(), so memory stays flat in the number of samples.
 *
 * Damage (bad magic, short header or payload, oversized block, checksum mismatch, a record
 * array of the wrong length) stops the reading of that file at the last complete block; a
 * message naming the file and byte offset is appended to run->damage and everything read
 * before it is kept. Unknown block types are skipped. A file written by a newer format
 * version is refused by mr_run_open().
 */
#ifndef MR_RUNDIR_H
#define MR_RUNDIR_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include <memphis/format.h>

#include "base/infile.h"

struct mr_kv {
	char *key;
	char *value;
};

struct mr_maps_snap {
	uint64_t time;
	char *text; /* NUL-terminated text of /proc/self/maps */
	size_t len;
};

/* One ALLOCS or FREES block's records, left where they were read: in the run's mapping of
 * meta.mph (mapped), or copied to a buffer of their own (a file read, not mapped). Of any
 * alignment: read them with memcpy. They are most of a run's metadata (96 bytes an
 * allocation), needed once, to index the heap (mr_attrib_open), and given back block by
 * block as that goes (mr_run_recs_release). */
struct mr_recs {
	const unsigned char *raw;  /* NULL once released */
	size_t n, len;             /* records, bytes */
	int mapped;
};

struct mr_pages {
	struct memphis_rec_pages_hdr hdr;
	const unsigned char *raw; /* hdr.count records as written, of any alignment: read
				   * them with mr_pages_at() */
	int mapped;               /* raw points into the run's mapping of meta.mph */
};

/* Record k of pg (k < pg->hdr.count). */
static inline struct memphis_rec_page mr_pages_at(const struct mr_pages *pg, uint32_t k)
{
	struct memphis_rec_page r;

	memcpy(&r, pg->raw + (size_t)k * sizeof(r), sizeof(r));
	return r;
}

struct mr_note {
	uint64_t time;
	char *text;
};

/* A module's static TLS block: at fs_base + tp_offset, memsz bytes, in every thread. */
struct mr_tls_mod {
	int64_t tp_offset;
	uint64_t memsz;
	uint32_t modid;
	char *path;
};

struct mr_cpufile {
	char *name;           /* "cpu001.mph" */
	char *path;
	int cpu;              /* from the file name */
	uint64_t size;        /* bytes on disk */
	uint64_t expected;    /* samples meta.mph says were written to it (CPU_SAMPLES), 0
			       * when it does not say */
	uint64_t samples;     /* samples read so far by the sample iterator */
	uint64_t stack_blocks, stacks, stack_bytes; /* STACKS blocks, their entries and
				 * payload bytes read so far by the sample iterator */
	int stacks_damaged;   /* a damaged STACKS block was noted (once, over all passes) */
	int damaged;          /* a damage message was recorded for this file */
	int clean_end;        /* an END block was seen */
};

struct mr_run {
	char *dir;
	struct mr_in_owner owner;     /* the directory's owner: whose sources may be read */
	struct memphis_rec_file meta_file;
	int have_meta_file;
	int meta_clean_end;           /* meta.mph ended with an END block */
	uint64_t meta_blocks;         /* complete blocks read from meta.mph */
	const unsigned char *meta_map; /* meta.mph mapped whole (NULL: it was read), kept
					* for the PAGES records left in it */
	size_t meta_msize;
	uint64_t unknown_blocks;      /* blocks of unknown type or layout version, skipped */

	struct mr_kv *kv;             /* RUN keys in file order (repeats kept) */
	size_t nkv;

	int have_topology;
	uint32_t ncpus, nnodes;
	int32_t *cpu_node;            /* [ncpus] */
	uint32_t *distance;           /* [nnodes * nnodes] */

	struct mr_maps_snap *maps;    /* in file order (time ascending as written) */
	size_t nmaps;
	struct memphis_rec_thread *threads;
	size_t nthreads;
	struct mr_recs *alloc_recs;   /* ALLOCS blocks in file order (struct memphis_rec_alloc) */
	size_t nalloc_recs, nallocs;  /* blocks, records */
	struct mr_recs *free_recs;    /* FREES blocks in file order (struct memphis_rec_free) */
	size_t nfree_recs, nfrees;
	struct memphis_rec_touch *touches;
	size_t ntouches;
	struct memphis_rec_region *regions;
	size_t nregions;
	uint64_t *region_by_seq;      /* seq << 32 | index into regions, sorted: ties in
				       * file order (mr_run_region) */
	struct memphis_rec_loss *losses;
	size_t nlosses;
	struct mr_pages *pages;
	size_t npages;
	struct mr_note *notes;
	size_t nnotes;
	struct memphis_rec_counter *counters; /* COUNTERS records, as written */
	size_t ncounters;
	struct mr_tls_mod *tls;       /* TLS blocks, one per module path (the last record wins) */
	size_t ntls;
	struct mr_stacks *touch_stacks; /* meta.mph's STACKS entries (mr_run_touch_stack) */
	uint64_t meta_stack_blocks, meta_stacks, meta_stack_bytes; /* meta.mph's STACKS blocks,
				       * their entries and payload bytes */
	struct memphis_rec_cpu_samples *cpu_samples; /* CPU_SAMPLES records (per region and
				       * cpu file, as written) */
	size_t ncpu_samples;
	struct memphis_rec_thread_cpu *thread_cpu; /* THREAD_CPU records (per region and
				       * thread, as written) */
	size_t nthread_cpu;

	struct mr_cpufile *cpus;      /* sorted by cpu */
	size_t ncpufiles;

	char **damage;                /* messages "FILE: offset N: what; what was kept" */
	size_t ndamage;
	char **warnings;              /* non-fatal remarks (file not closed cleanly, ...) */
	size_t nwarnings;
};

/* Open the run directory `dir`: read meta.mph and check every cpuNNN.mph. Returns 0 with
 * *out owned by the caller (mr_run_close), possibly with damage recorded; or -errno with a
 * one-line message in err when nothing useful can be read: not a directory, no meta.mph,
 * meta.mph unreadable from its first byte, or a file of a newer format version. */
int mr_run_open(const char *dir, struct mr_run **out, char *err, size_t errlen);
void mr_run_close(struct mr_run *run);

/* Give the memory of block r's records back (its record count stays, its records are gone):
 * a buffer freed, the pages of the mapping dropped (read again from the page cache if
 * touched). For callers that have read them (mr_attrib_open, block by block). */
void mr_run_recs_release(struct mr_run *run, struct mr_recs *r);
/* mr_run_recs_release of every ALLOCS and FREES block (nallocs/nfrees stay). */
void mr_run_drop_heap_records(struct mr_run *run);

/* Last value of RUN key `key` (NULL if absent). */
const char *mr_run_get(const struct mr_run *run, const char *key);
/* RUN key as an unsigned number, `dflt` if absent or not a number. */
uint64_t mr_run_get_u64(const struct mr_run *run, const char *key, uint64_t dflt);
/* CLOCK_MONOTONIC time t of the run as nanoseconds since the epoch, through RUN
 * start_realtime and the meta file's start time (taken together): 0 and *ns; -ERANGE
 * when t is before the start (*ns the start's); -ENOENT when the run lacks either. */
int mr_run_realtime(const struct mr_run *run, uint64_t t, uint64_t *ns);

/* The library's note that it stopped writing the run ("write error: ..."), NULL if it did
 * not (or could not even write that note). Valid until mr_run_close. */
const char *mr_run_write_error(const struct mr_run *run);

/* Node of `cpu` from the topology, -1 if unknown. */
int mr_run_cpu_node(const struct mr_run *run, unsigned cpu);

/* The region record with sequence number seq, NULL if none was written. */
const struct memphis_rec_region *mr_run_region(const struct mr_run *run, uint32_t seq);

/* Append a formatted message to run->damage (or run->warnings). Returns 0 or -ENOMEM. */
int mr_run_add_damage(struct mr_run *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int mr_run_add_warning(struct mr_run *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Streaming of samples over every cpu file in CPU order, one block at a time. */
struct mr_sample_iter;

/* Start a pass over the samples. Returns 0 or -ENOMEM. Damage found while streaming is
 * appended to run->damage (once per file, however many passes are made). */
int mr_samples_begin(struct mr_run *run, struct mr_sample_iter **out);
/* What a pass found wrong in a file, for mr_samples_begin_files: damage (a message of
 * run->damage) or a warning (of run->warnings), in the words mr_samples_begin's pass
 * would append to the run. */
typedef void mr_sample_note_fn(void *arg, int damage, const char *msg);

/* A pass over cpu files [first, end) only (indexes into run->cpus), for one of several
 * threads reading a run at once: it writes only the counts of its own files, and hands
 * damage and warnings to note(arg, ...) instead of appending them to run (NULL: appends
 * them). Passes over disjoint ranges may run in parallel; mr_samples_end then in one
 * thread. Returns 0 or -ENOMEM. */
int mr_samples_begin_files(struct mr_run *run, size_t first, size_t end, mr_sample_note_fn *note,
			   void *arg, struct mr_sample_iter **out);
/* The next block of samples: returns their count (> 0) with *recs pointing into a buffer
 * owned by the iterator and valid until the next call, 0 at the end. */
size_t mr_samples_next(struct mr_sample_iter *it, const struct memphis_rec_sample **recs);
/* End the pass: the unknown blocks it skipped are added to run->unknown_blocks. */
void mr_samples_end(struct mr_sample_iter *it);

/* STACKS entries (format.h): the user registers and top of the user stack kept with a
 * sample (MPH_S_STACK) or a first touch (MPH_TOUCH_STACK). A damaged STACKS block of a cpu
 * file or of meta.mph is recorded as damage (file, offset, what) with the entries before
 * the bad one kept; the blocks after it are read on. */
struct mr_stacks;
/* The STACKS entry of sample s of the batch mr_samples_next returned last (s one of its
 * records), with *bytes its stack_len bytes of stack (from regs[7], SP, upward); NULL
 * (and *bytes NULL) when s is not flagged MPH_S_STACK or its entry is missing. Valid until
 * the next mr_samples_next. */
const struct memphis_rec_stack *mr_samples_stack(struct mr_sample_iter *it,
						 const struct memphis_rec_sample *s,
						 const uint8_t **bytes);
/* The STACKS entry of first-touch record t of the run, as mr_samples_stack; valid until
 * mr_run_close. Safe from several threads at once. */
const struct memphis_rec_stack *mr_run_touch_stack(const struct mr_run *run,
						   const struct memphis_rec_touch *t,
						   const uint8_t **bytes);

/* One framed block of a file of the run: its header at byte `off` of the file and its
 * payload (h->length bytes, any alignment). */
typedef void mr_block_fn(void *arg, uint64_t off, const struct memphis_block *h,
			 const unsigned char *payload);
/* Call fn for each block of the run's file `name` (meta.mph, cpuNNN.mph) in file order,
 * up to the end or the first block whose framing is damaged. 0 at the end; -EINVAL with
 * `what` naming the offset and the damage; -errno with `what` when the file does not
 * open. */
int mr_run_walk_blocks(const struct mr_run *run, const char *name, mr_block_fn *fn, void *arg,
		       char *what, size_t wlen);

/* Name of a block type ("SAMPLES"), "type N" for unknown ones (static or per-thread buf). */
const char *mr_block_name(unsigned type);
/* Name of a COUNTERS record's source ("papi", "numastat", ...), NULL for unknown ones. */
const char *mr_counter_source_name(unsigned source);

/* Format v with thousands separators ("1,234,567") into buf (at least 27 bytes). */
char *mr_fmt_count(char *buf, uint64_t v);

/* For the commands (open_run.c): a run opened and its problems printed, with the error
 * printer of base/err.h. */
/* Print the damage and warning messages of run on stderr (text mode). */
void mr_print_problems(const struct mr_run *run, FILE *f, const char *prefix);

/* One line on stderr, not an error, when the directory dir is another user's (the library
 * makes runs private, 0700: someone gave it to us, or we read it as root): what it names,
 * the binaries and their sources included, is what that user wrote there. */
void mr_note_owner(const char *dir);

/* Open a run directory, printing the error itself and mr_note_owner's line (not for a rank
 * of a merged job). Returns the run or NULL (exit code 2). */
struct mr_run *mr_open_run(const char *dir);

#endif /* MR_RUNDIR_H */
