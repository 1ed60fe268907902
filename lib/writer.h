/* lib/writer.h - the run directory: creation, framed and checksummed blocks, and the NOTE
 * record (a logged message kept in the run). Owns its files and its lock; the drain thread
 * and the region close are its main callers. Below it: self, log. */
#ifndef MEMPHIS_WRITER_H
#define MEMPHIS_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Create the run directory (never following a planted symlink) and meta.mph with its FILE
 * block. Returns 0 or -errno. */
int memphis__writer_open(const char *path_or_empty, const char *exe_name, pid_t pid,
			 uint64_t start_time);
/* Append one block to meta.mph (cpu < 0) or cpuNNN.mph. Returns 0 or -errno; after the
 * first failure every later call fails with the same error (sampling stops, one warning). */
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
