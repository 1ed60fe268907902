/* lib/io.h - the library's own descriptor table: one thread that opens, uses and closes
 * the files the library reads and writes while the program runs.
 *
 * An open(2) takes the lowest free number of the process's table and holds it reserved
 * until the file is installed. A program thread that closed that number to dup2 a file
 * onto it (a shell's `cmd > file`: close(1), dup2(file, 1)) gets EBUSY meanwhile (dup2(2),
 * Linux) or its file replaced by ours; no check after our open can undo either. The I/O
 * thread has unshared its table (unshare(CLONE_FILES)) and closed the program's copies, so
 * what it opens takes none of the program's numbers, is not reached by the program's
 * close_range, dup2 or fork, and counts against none of its descriptors.
 *
 * So every descriptor of the run's files (writer.c), of /proc/self/{maps,pagemap,task,...}
 * and of the mapped ELF files read for symbols lives in that table only: it is used only
 * inside a function the thread runs (memphis__io_call, memphis__io_post). Without the
 * thread (unshare refused: a container without CAP_SYS_ADMIN) those functions run in the
 * caller, in the process's table, where fd.c keeps them apart from the program's as it
 * can. Descriptors the program's threads or the drain thread use themselves (perf events,
 * the kick pipe, the module's device) stay in the process's table. The thread's fd 2 is
 * not the program's stderr: what it logs is written by the next thread whose call returns
 * (log.c). Below it: self, log. */
#ifndef MEMPHIS_IO_H
#define MEMPHIS_IO_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Start the I/O thread, with a stack of `stack` bytes (the process's first thread to call,
 * before any file of the library is opened). 0, or -errno when it cannot: then
 * memphis__io_call runs functions in the caller, in the process's table. */
int memphis__io_start(size_t stack);
/* Stop it (the library's end); its descriptors close with its table. */
void memphis__io_stop(void);
/* fn(arg) in the I/O thread, the caller waiting (not cancellable meanwhile); in the caller
 * itself when there is no I/O thread (not started, a fork child) or the caller is it.
 * Calls from several threads run one at a time. Returns what fn returns. */
long memphis__io_call(long (*fn)(void *arg), void *arg);
/* The same for a call that does not depend on posted work (a read of /proc, of an ELF
 * file): it runs before the posted work still waiting, after at most the item running. */
long memphis__io_read(long (*fn)(void *arg), void *arg);
/* fn on one copy of the iovcnt pieces of iov, put end to end, in the I/O thread; the
 * caller does not wait: posted work runs in the order posted and before any call asked
 * later (so memphis__io_call also waits for what was posted before it). The copy goes in
 * a ring of 4 MiB mapped at the start: the caller waits only for room there, and never
 * allocates. Returns 0, or -EAGAIN where nothing is posted (no I/O thread, the caller is
 * it, a piece of more than 1 MiB): then the caller runs fn itself (memphis__io_call). */
int memphis__io_post(long (*fn)(void *arg), const struct iovec *iov, int iovcnt);
/* Posted work wakes the I/O thread only once the ring is a quarter full while a thread
 * that comes by often (the drain: every pass, 100 ms apart at most) promised to call
 * memphis__io_kick: lazy 1 from then on, 0 when it stops. A wake-up at every post put the
 * I/O thread on the poster's CPU each time: 8 of them at every memphis_print in a region
 * of examples/cg. */
void memphis__io_lazy(int on);
/* Wake the I/O thread when work was posted. */
void memphis__io_kick(void);
/* The I/O thread's id, 0 when it does not run. */
pid_t memphis__io_tid(void);

#endif /* MEMPHIS_IO_H */
