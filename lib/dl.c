/* lib/dl.c - dlclose, interposed: the soft backend rebuilds each sample's data address from
 * the code at its IP when the drain thread reads the sample, so samples taken in a library
 * must be read before the library is unmapped, or they lose their address. The samples of
 * every thread are drained first, the layout they were taken in is written as a MAPS block
 * if objects came or went since the last one, the real dlclose runs, and the new layout is
 * written at once. Top of the library's layers beside exec.c: calls drain.c and
 * topology.c, nothing calls it.
 *
 * dlopen is not interposed: glibc resolves its search path ($ORIGIN, the caller's
 * RUNPATH) and namespace from the caller's address, which a wrapper would change. New
 * objects are noticed instead by the drain thread (memphis__maps_poll every pass) and at
 * each region start; the report looks an address missing from one snapshot up in the next.
 */
#include <dlfcn.h>

#include "drain.h"
#include "self.h"
#include "topology.h"

#define EXPORT __attribute__((visibility("default")))

typedef int dlclose_fn(void *);

static dlclose_fn *real_dlclose;

__attribute__((constructor)) static void dl_resolve(void)
{
	real_dlclose = (dlclose_fn *)dlsym(RTLD_NEXT, "dlclose");
}

EXPORT int dlclose(void *handle)
{
	int profiled = !memphis__inside() && memphis__drain_sampling();
	int r;

	if (!real_dlclose)
		return -1; /* no C library's dlclose to call: the object stays loaded */
	if (profiled) {
		memphis__drain_lock();
		memphis__drain_all();
		memphis__drain_unlock();
		/* the layout those samples were taken in: an object dlopen'd since the last
		 * snapshot is in none otherwise when the drain thread's poll did not run
		 * between the dlopen and now */
		memphis__maps_poll();
	}
	r = real_dlclose(handle);
	if (profiled)
		memphis__maps_poll();
	return r;
}
