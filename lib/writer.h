/* lib/writer.h - the run directory: creation, framed and checksummed blocks, and the NOTE
 * record (a logged message kept in the run). Owns its files and its lock; the drain thread
 * and the region close are its main callers. Below it: self, log, fd, rank. */
#ifndef MEMPHIS_WRITER_H
#define MEMPHIS_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct memphis__rank;

/* Create the run directory (never following a planted symlink) and meta.mph with its FILE
 * block. Not a rank (rank NULL or its launcher NULL): `path` when given (an existing
 * directory of ours is used), else memphis-EXE-PID, or .1 .. .99 after it when that
 * exists. A rank: rank-R (or rank-R.N when that exists) in the job directory, which is
 * `path` when given, else memphis-EXE-job-JOBID; the job directory may exist already (the
 * other ranks make it too) but must be ours. Returns 0 or -errno. */
int memphis__writer_open(const char *path_or_empty, const char *exe_name,
			 const struct memphis__rank *rank, pid_t pid, uint64_t start_time);
/* Append one block to meta.mph (cpu < 0) or cpuNNN.mph: a copy written by the I/O thread
 * (io.h) after every block asked before it, the caller not waiting. Returns 0 or -errno;
 * after the first failure every later call fails with the same error (sampling stops,
 * one warning). */
int memphis__writer_block(int cpu, uint16_t type, const void *payload, size_t len);
/* Same, with the payload in two pieces (header + array). */
int memphis__writer_block2(int cpu, uint16_t type, const void *a, size_t alen,
			   const void *b, size_t blen);
/* Write END blocks and close every file. */
void memphis__writer_close(void);
/* The first write error, 0 if none. */
int memphis__writer_error(void);
/* The run directory's path ("" before open). */
const char *memphis__writer_path(void);

/* Log a message at `level` (enum memphis__level) and keep it in the run as a NOTE block
 * (time + text, at most 511 bytes). A write failure is the writer's sticky error. */
void memphis__note(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* MEMPHIS_WRITER_H */
