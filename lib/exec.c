/* lib/exec.c - the exec family, interposed: a successful exec replaces the image and with
 * it every sample the library still buffers (up to a second of them), so the run is
 * finished first (api.h). The real function then runs with the program's exact arguments
 * and environment; a failure returns its own errno. Top of the library's layers: calls
 * api.c, nothing calls it.
 *
 * glibc's execv, execvp, execl... call its internal execve, not ours, so each is
 * interposed; the variadic ones gather their arguments and call the real array form.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

#include "api.h"

#define EXPORT __attribute__((visibility("default")))

typedef int execve_fn(const char *, char *const[], char *const[]);
typedef int execv_fn(const char *, char *const[]);
typedef int fexecve_fn(int, char *const[], char *const[]);

static execve_fn *real_execve, *real_execvpe;
static execv_fn *real_execv, *real_execvp;
static fexecve_fn *real_fexecve;

/* Resolved at load, not at the call: exec may be called from a signal handler, where
 * dlsym (it allocates) is not safe. */
__attribute__((constructor)) static void exec_resolve(void)
{
	real_execve = (execve_fn *)dlsym(RTLD_NEXT, "execve");
	real_execvpe = (execve_fn *)dlsym(RTLD_NEXT, "execvpe");
	real_execv = (execv_fn *)dlsym(RTLD_NEXT, "execv");
	real_execvp = (execv_fn *)dlsym(RTLD_NEXT, "execvp");
	real_fexecve = (fexecve_fn *)dlsym(RTLD_NEXT, "fexecve");
}

static int no_real(void)
{
	errno = ENOSYS;
	return -1;
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	if (!real_execve)
		return no_real();
	memphis__finish_now("exec");
	return real_execve(path, argv, envp);
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	if (!real_execvpe)
		return no_real();
	memphis__finish_now("exec");
	return real_execvpe(file, argv, envp);
}

EXPORT int execv(const char *path, char *const argv[])
{
	if (!real_execv)
		return no_real();
	memphis__finish_now("exec");
	return real_execv(path, argv);
}

EXPORT int execvp(const char *file, char *const argv[])
{
	if (!real_execvp)
		return no_real();
	memphis__finish_now("exec");
	return real_execvp(file, argv);
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	if (!real_fexecve)
		return no_real();
	memphis__finish_now("exec");
	return real_fexecve(fd, argv, envp);
}

/* Number of arguments from arg0 up to the terminating NULL, at most a bound the stack
 * holds (E2BIG beyond it, as the kernel would say for so many). */
#define MAX_ARGS 65536
static size_t count_args(const char *arg0, va_list ap)
{
	size_t n = 1;

	if (!arg0)
		return 0;
	while (va_arg(ap, const char *) && n <= MAX_ARGS)
		n++;
	return n;
}

/* The variadic forms, through the array forms above. `envp` of execle follows the NULL. */
#define GATHER(arg0, last, argv, n)                                                        \
	va_list ap;                                                                        \
	va_start(ap, last);                                                                \
	size_t n = count_args(arg0, ap);                                                   \
	va_end(ap);                                                                        \
	if (n > MAX_ARGS) {                                                                \
		errno = E2BIG;                                                             \
		return -1;                                                                 \
	}                                                                                  \
	char *argv[n + 1];                                                                 \
	va_start(ap, last);                                                                \
	argv[0] = (char *)arg0;                                                            \
	for (size_t i = 1; i <= n; i++)                                                    \
		argv[i] = i < n ? va_arg(ap, char *) : NULL;                               \
	if (n == 0)                                                                        \
		argv[0] = NULL;

EXPORT int execl(const char *path, const char *arg0, ...)
{
	GATHER(arg0, arg0, argv, n)
	va_end(ap);
	return execv(path, argv);
}

EXPORT int execlp(const char *file, const char *arg0, ...)
{
	GATHER(arg0, arg0, argv, n)
	va_end(ap);
	return execvp(file, argv);
}

EXPORT int execle(const char *path, const char *arg0, ...)
{
	GATHER(arg0, arg0, argv, n)
	if (n)
		(void)va_arg(ap, char *); /* the NULL that ends the arguments */
	char *const *envp = va_arg(ap, char *const *);
	va_end(ap);
	return execve(path, argv, envp);
}
