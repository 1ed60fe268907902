/* lib/writer.h - the run directory: creation, framed and checksummed blocks, and the NOTE
 * record (a logged message kept in the run). Owns its files and its lock; the drain thread
 * and the region close are its main callers. Below it: self, log, fd, outdir. */
#ifndef MEMPHIS_WRITER_H
#define MEMPHIS_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct memphis__rank;

/* Create the run directory where outdir.h's rule puts it (0700, files 0600) and meta.mph
 * with its FILE block; on failure, one line naming the path and why. max_bytes: the run's
 * size cap (MEMPHIS_MAX_BYTES; -1 unset: min(4 GiB, a quarter of the file system's free
 * space), 0 none); writing also stops before the free space falls under a quarter of what
 * it was (at most 1 GiB). Returns 0 or -errno. */
int memphis__writer_open(const char *path_or_empty, const char *exe_name,
			 const struct memphis__rank *rank, pid_t pid, uint64_t start_time,
			 int64_t max_bytes);
/* The run's format version (MEMPHIS_FORMAT: 2 or MEMPHIS_FORMAT_VERSION, the default):
 * its FILE blocks' and the layouts memphis__writer_layout gives. Before
 * memphis__writer_open. */
void memphis__writer_set_format(unsigned version);
/* The layout version the run's blocks of `type` have (format.h): SAMPLES 3 and STACKS 2
 * in format 3, SAMPLES 2 and STACKS 1 in format 2, 1 for the others. Their payload must
 * be encoded in it. */
uint16_t memphis__writer_layout(uint16_t type);
/* Append one block to meta.mph (cpu < 0) or cpuNNN.mph: a copy written by the I/O thread
 * (io.h) after every block asked before it, the caller not waiting. Returns 0 or -errno;
 * after the first failure every later call fails with the same error (sampling stops,
 * one warning). */
int memphis__writer_block(int cpu, uint16_t type, const void *payload, size_t len);
/* Same, with the payload in two pieces (header + array). */
int memphis__writer_block2(int cpu, uint16_t type, const void *a, size_t alen,
			   const void *b, size_t blen);
/* What a run must hold to stay after memphis__writer_close: a REGION or FIRST_TOUCH
 * record (0, the default: a process that opened no region and recorded no first touch,
 * as with MEMPHIS_FIRST_TOUCH=0, leaves nothing), or samples (1: set when
 * the run ends by exec, so that a shell or wrapper on its way to the program, which took
 * none, leaves no directory, and the exec'd image may take its name). A run stopped by
 * an error or a limit always stays, and so does a directory that was there before it. */
void memphis__writer_keep_if(int sampled);
/* Write the NOTE of what a limit left unwritten and END blocks, close every file; remove
 * the run by memphis__writer_keep_if's rule. */
void memphis__writer_close(void);
/* The first write error, 0 if none; -EDQUOT: the size cap or the free-space reserve. */
int memphis__writer_error(void);
/* The run directory's path ("" before open). */
const char *memphis__writer_path(void);

/* Log a message at `level` (enum memphis__level) and keep it in the run as a NOTE block
 * (time + text, at most 511 bytes). A write failure is the writer's sticky error. */
void memphis__note(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* MEMPHIS_WRITER_H */
