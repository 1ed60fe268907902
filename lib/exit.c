/* lib/exit.c - the ways to end a process that skip exit's handlers, and with them the
 * library's destructor: _exit and _Exit are interposed, quick_exit gets a handler of its
 * own. Each finishes the run first (api.h), so the samples still buffered (up to a second
 * of them) are written instead of being reported as possibly missing. abort and fatal
 * signals are left alone: nothing can be written safely from them, and the report says
 * how much may be missing. Top of the library's layers: calls api.c, nothing calls it.
 *
 * glibc's exit paths call its internal _exit, not ours: exit itself ends through the
 * destructor as before, and quick_exit through the handler registered here. */
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "api.h"

#define EXPORT __attribute__((visibility("default")))

typedef void exit_fn(int);

static exit_fn *real__exit;

static void finish_at_quick_exit(void)
{
	memphis__finish_now("quick_exit");
}

/* Resolved at load, not at the call: _exit may be called from a signal handler, where
 * dlsym (it allocates) is not safe. The quick_exit handler, registered before any of the
 * program's, runs after them. */
__attribute__((constructor)) static void exit_resolve(void)
{
	real__exit = (exit_fn *)dlsym(RTLD_NEXT, "_exit");
	at_quick_exit(finish_at_quick_exit);
}

/* The process ends with status, as the real _exit does (the system call when the real one
 * could not be found). */
static _Noreturn void end(int status)
{
	if (real__exit)
		real__exit(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

EXPORT _Noreturn void _exit(int status)
{
	memphis__finish_now("_exit");
	end(status);
}

EXPORT _Noreturn void _Exit(int status)
{
	memphis__finish_now("_Exit");
	end(status);
}
