/* lib/log.h - the library's only writer to stderr. Below it: self. */
#ifndef MEMPHIS_LOG_H
#define MEMPHIS_LOG_H

#include <stdint.h>

enum memphis__level { MPH_LOG_ERROR = 0, MPH_LOG_WARN = 1, MPH_LOG_INFO = 2, MPH_LOG_DEBUG = 3 };

/* Set the verbosity (MEMPHIS_VERBOSE, parsed once by config.c): messages of a level above
 * it are not written. 0 (errors only) until called. */
void memphis__log_set_level(int level);
/* Log a message at `level` when the verbosity is >= level (default: nothing). One write(2)
 * per line; never allocates. */
void memphis__log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A line a user always sees whatever the verbosity, prefixed "memphis: ": a bad setting
 * and what is used instead, a limit that made the library stop something. The caller
 * makes sure each thing is said once. */
void memphis__warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The one line a user always sees (e.g. why sampling is impossible): printed once per
 * process whatever the verbosity, prefixed "memphis: ". Later calls are logged only. */
void memphis__warn_once(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Write lines to fd (the library's copy of the program's stderr at its start, the file
 * dev/ino), checked before each line: once it is not that file any more, or fd is -1,
 * nothing is written. Until called, lines go to fd 2 (the library's start, before the
 * program's own code has run). Control characters in a line are written as '?'. */
void memphis__log_set_fd(int fd, uint64_t dev, uint64_t ino);
/* Keep the calling thread's lines instead of writing them (the I/O thread, io.h), until
 * memphis__log_flush. */
void memphis__log_keep_thread(void);
/* Write the lines kept so far, from the calling thread (io.c: when a call returns). */
void memphis__log_flush(void);

#endif /* MEMPHIS_LOG_H */
