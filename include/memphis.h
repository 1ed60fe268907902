/* memphis.h - the whole public API of libmemphis, a data-centric NUMA memory profiler.
 *
 * Bracket a region of interest with memphis_mark() and memphis_print(). While a region is
 * open, memory accesses of every thread of the process are sampled; each print writes the
 * region's samples to the run directory (memphis-<exe>-<pid>/ in the working directory, or
 * $MEMPHIS_OUTPUT), which memphis-report(1) turns into per-NUMA-node tables.
 *
 * No initialisation call is needed. The library never exits, never writes to stdout, and
 * never changes the program's results: every function returns 0 or a negative errno value
 * (see memphis_strerror()), and a profiling failure only ever turns profiling off.
 * All functions are thread-safe and may be called from any thread. C and C++.
 *
 * Signal handlers and cancellation: memphis_mark*() and memphis_print() never hang when
 * called from a signal handler. If the handler interrupted its thread inside memphis
 * (inside one of these functions, an allocation, or a new thread's start), they do nothing
 * and return -EDEADLK; otherwise they run, taking locks and allocating memory (through the
 * same allocator: a handler that interrupted an allocation gets -EDEADLK). They are not
 * cancellation points: a pending pthread_cancel acts at the caller's next one.
 */
#ifndef MEMPHIS_H
#define MEMPHIS_H

#ifdef __cplusplus
extern "C" {
#endif

#define MEMPHIS_VERSION_MAJOR 0
#define MEMPHIS_VERSION_MINOR 1
#define MEMPHIS_VERSION_PATCH 0

/* Open an unnamed region (its name is "default"): start sampling all threads of the
 * process. If a region is already open it is closed first, exactly as memphis_print()
 * would, so no samples are lost. Returns 0, or -errno when sampling cannot start (the
 * reason is also logged once); the program continues either way. */
int memphis_mark(void);

/* Same as memphis_mark() for a region called `name` (at most 63 bytes are kept; NULL or ""
 * means "default"). Regions with the same name accumulate in the report, which can select
 * them with --region NAME. */
int memphis_mark_named(const char *name);

/* Same as memphis_mark_named() for a name given by pointer and length, not NUL-terminated
 * (the form Fortran passes). Trailing blanks are ignored. */
int memphis_mark_named_len(const char *name, unsigned long len);

/* Close the open region: stop sampling, drain every thread's buffer, record the home NUMA
 * node of every sampled page and write the region to the run directory. Without an open
 * region it does nothing, logs a warning and returns -EINVAL. */
int memphis_print(void);

/* The library's version as "MAJOR.MINOR.PATCH"; a static string, never NULL. */
const char *memphis_version(void);

/* A static, human-readable description of a value returned by a memphis function
 * (negative errno values included); never NULL. */
const char *memphis_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* MEMPHIS_H */
