/* lib/api.h - the library's lifecycle as the files above api.c see it (exec.c, exit.c). */
#ifndef MEMPHIS_API_H
#define MEMPHIS_API_H

/* The process is about to exec or to end without exit's handlers (_exit, _Exit,
 * quick_exit): close the open region and finish the run directory as at exit (REGION
 * record, every buffered sample and record written, END blocks), so nothing buffered is
 * lost with the image. `how` names the call in the run's log. Does nothing outside the
 * profiled process (a fork child) or when the locks are not free within a bounded time
 * (the call came from a signal handler that interrupted the library). If an exec then
 * fails, the rest of the program runs unprofiled (memphis_mark returns -ENOTSUP). errno is
 * preserved. */
void memphis__finish_now(const char *how);

#endif /* MEMPHIS_API_H */
