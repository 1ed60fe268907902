/* lib/self.c - the calling thread: the in-library flag and the tid cache (contracts in
 * self.h). Depends on nothing of the library. */
#include <sys/syscall.h>
#include <unistd.h>

#include "self.h"

__thread int memphis__self_depth __attribute__((tls_model("initial-exec")));

pid_t memphis__gettid(void)
{
	static __thread pid_t cached __attribute__((tls_model("initial-exec")));

	if (!cached)
		cached = (pid_t)syscall(SYS_gettid);
	return cached;
}
