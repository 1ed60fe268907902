/* post/run/rundir_impl.h - the internals of reading a run directory, shared by its pieces:
 *   rundir.c          the run: open (meta.mph and the cpu files), close, metadata lookups
 *   rundir_blocks.c   framed blocks read one by one from a file, with their checks;
 *                     damage/warning messages
 *   rundir_meta.c     meta.mph's blocks into struct mr_run
 *   rundir_samples.c  the sample stream over the cpu files, read block by block
 *   rundir_stacks.c   STACKS entries: checked, copied, found by (kind, tid, time)
 * Not for other files of post/: they use rundir.h.
 */
#ifndef MR_RUNDIR_IMPL_H
#define MR_RUNDIR_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "rundir.h"

/* One file being read block by block. */
struct blockfile {
	int fd;
	const char *name;   /* file name for messages */
	uint64_t off;       /* offset of the next block header */
	uint64_t blocks;    /* complete blocks read */
	unsigned char *buf; /* payload of the last block */
	size_t cap;
	unsigned char *ra;  /* read ahead of off: ra[ra_pos, ra_len) (rundir_bf_next) */
	size_t ra_pos, ra_len, ra_cap;
};

/* Free what bf holds (not its fd). */
void rundir_bf_free(struct blockfile *bf);

/* What rundir_bf_next() found. */
enum bf_result { BF_BLOCK = 1, BF_EOF = 0, BF_DAMAGE = -1, BF_IOERR = -2 };

/* ---- shared between the pieces ---- */

/* Open a file of the run directory for reading, safely for a directory that is not ours:
 * never follows a symbolic link (O_NOFOLLOW), never blocks (O_NONBLOCK: a FIFO), and keeps
 * only a regular file. Returns the fd (the caller closes it) or -errno: -ELOOP for a
 * symbolic link, -EINVAL for anything but a regular file. */
int rundir_open_file(const char *path);

/* The words for a failure of rundir_open_file (static text). */
const char *rundir_open_strerror(int rc);

/* Read the next framed block of bf into hdr and bf->buf. Returns BF_BLOCK, BF_EOF at a
 * clean end of file, or BF_DAMAGE / BF_IOERR with a message (without the file name and
 * offset, which the caller adds: the block starts at bf->off) in what. */
int rundir_bf_next(struct blockfile *bf, struct memphis_block *hdr, char *what, size_t wlen);

/* rundir_bf_next, the payload left where it was read (*payload, valid until the next
 * call on bf; any alignment, not NUL-terminated): in the read-ahead buffer (read 128 KiB
 * at a time, a block up to 1 MiB whole), or in bf->buf for a larger block. The cpu files are read so: mapped, their page faults
 * and unmapping cost as much as copying them out of the page cache, and the checksum
 * then read them from memory, not from the cache a copy leaves them in (examples/cg
 * -i 900, 46 MB of cpu files: the report's CPU time 58.3 -> 56.2 ms, medians of 15); a
 * file truncated by someone else while mapped ended the report with SIGBUS. */
int rundir_bf_view(struct blockfile *bf, struct memphis_block *hdr, const unsigned char **payload,
		   char *what, size_t wlen);

/* File fd mapped whole, read-only (its size in *size), or NULL when it cannot be (empty,
 * a file system without mmap): read() it then. A mapping holds what the file held when it
 * was made; a file truncated meanwhile by someone else ends the report with SIGBUS. */
const unsigned char *rundir_map_file(int fd, size_t *size);
/* Set: rundir_map_file maps nothing (tests/unit/unit_rundir.c tests the read() path so). */
extern int rundir_no_map;
/* The whole pages of [p, p + len), in the run's read-only mapping of meta.mph, dropped from
 * the process (read again from the page cache when touched): a block read once now and
 * again later is not resident in between (ALLOCS and FREES: 96 and 24 bytes a record). */
void rundir_drop_pages(const unsigned char *p, size_t len);

/* The next block of bf's file mapped whole at map (size bytes), with rundir_bf_next's
 * checks and results; the payload stays in place: *payload points into map (any
 * alignment, not NUL-terminated). */
int rundir_mem_next(struct blockfile *bf, const unsigned char *map, size_t size,
		    struct memphis_block *hdr, const unsigned char **payload, char *what, size_t wlen);

/* Copy len bytes at p into bf->buf, NUL-terminated as rundir_bf_next leaves a payload.
 * 0 or -ENOMEM. */
int rundir_bf_hold(struct blockfile *bf, const unsigned char *p, size_t len);

/* Advance past the block just read. */
void rundir_bf_done(struct blockfile *bf, const struct memphis_block *hdr);

/* Append cnt records of size sz to the array *arr of *n records (grown by doubling: the
 * array must have come from rundir_append, or be NULL with *n 0). Returns 0 or -ENOMEM. */
int rundir_append(void *arrp, size_t *n, const void *src, size_t cnt, size_t sz);

/* Check that a record-array payload is a whole number of records; describe it if not. */
int rundir_check_array(const struct memphis_block *h, size_t recsz, char *what, size_t wlen);

/* Read meta.mph. Returns 0 (damage recorded in run), or -errno with err set. */
int rundir_read_meta(struct mr_run *run, char *err, size_t errlen);

/* A message of damage (or a warning) about the run: to note(arg, damage, text) when note
 * is given, else appended to run->damage (run->warnings). Returns 0 or -ENOMEM. */
int rundir_note(struct mr_run *run, mr_sample_note_fn *note, void *arg, int damage,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* "dir/name" in a malloc'd string (the caller frees), NULL when out of memory. */
char *rundir_path_join(const char *dir, const char *name);

/* Open cpu file cf and read its FILE block. Returns 0 with bf->fd open (positioned after
 * the block, bf->off set); -ENODATA when the file cannot be read (damage recorded through
 * rundir_note(run, note, arg, ...) unless cf->damaged was set, which it then is); -EPROTO
 * for a future format version (message in err); -ENOMEM. On failure bf->fd is closed
 * (-1). */
int rundir_open_cpufile(struct mr_run *run, struct mr_cpufile *cf, struct blockfile *bf,
			mr_sample_note_fn *note, void *arg, char *err, size_t errlen);

/* ---- STACKS entries (rundir_stacks.c) ---- */

/* Check the entries of a STACKS payload (p, len bytes) of layout `version` (1 or 2) and
 * append copies to *s (created when NULL), a layout 2 MPH_STACK_SHARED entry with the
 * bytes it shares (every copy has its bytes, reserved and reserved2 0). 0; -EINVAL with
 * `what` set at the first entry that does not fit the block (the ones before it are
 * kept); -ENOMEM. */
int rundir_stacks_add(struct mr_stacks **s, uint16_t version, const unsigned char *p,
		      size_t len, char *what, size_t wlen);
/* Index what was added, for rundir_stacks_find (which finds nothing before). */
void rundir_stacks_seal(struct mr_stacks *s);
/* The entry of (kind, tid, time) and *bytes its stack, or NULL. NULL s: none. Remembers
 * where it found it, for the next one of the thread. */
const struct memphis_rec_stack *rundir_stacks_find(struct mr_stacks *s, uint16_t kind,
						   uint32_t tid, uint64_t time,
						   const uint8_t **bytes);
/* The last entry of (kind, tid) at or before `time` when its IP register is ip (an
 * entry that stands for the records of its thread after it: first touches), or NULL. */
const struct memphis_rec_stack *rundir_stacks_latest(const struct mr_stacks *s, uint16_t kind,
						     uint32_t tid, uint64_t time, uint64_t ip,
						     const uint8_t **bytes);
/* Entries held. */
size_t rundir_stacks_count(const struct mr_stacks *s);
/* Forget the entries, keeping the memory. NULL: nothing. */
void rundir_stacks_clear(struct mr_stacks *s);
void rundir_stacks_free(struct mr_stacks *s);

#endif /* MR_RUNDIR_IMPL_H */
