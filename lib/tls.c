/* lib/tls.c - thread-local storage of the loaded modules: where each module's static TLS
 * block lies relative to a thread's fs_base (so the report can name `__thread` variables
 * of the executable and of shared libraries), and how much static TLS every thread carries
 * (glibc places it inside each thread's stack, so the drain thread's stack must hold it). */
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "memphis/format.h"
#include "self.h"
#include "tls.h"
#include "writer.h"

struct tls_walk {
	uintptr_t tp;
	char *buf;
	size_t len, cap;
	uint64_t total;
};

static const ElfW(Phdr) *tls_phdr(const struct dl_phdr_info *info)
{
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_TLS)
			return &info->dlpi_phdr[i];
	return NULL;
}

static int add_module(struct dl_phdr_info *info, size_t size, void *ctx)
{
	struct tls_walk *w = ctx;
	const ElfW(Phdr) *ph = tls_phdr(info);
	const char *path = info->dlpi_name;
	struct memphis_rec_tls r;

	if (!ph || !info->dlpi_tls_data)
		return 0;
	w->total += ph->p_memsz + ph->p_align;
	if (!w->buf)
		return 0;
	if (!path[0]) /* the executable */
		path = "";
	r.tp_offset = (int64_t)((uintptr_t)info->dlpi_tls_data - w->tp);
	r.memsz = ph->p_memsz;
	r.modid = (uint32_t)info->dlpi_tls_modid;
	r.path_len = (uint32_t)strlen(path);
	size_t need = sizeof(r) + ((r.path_len + 7u) & ~7u);
	if (w->len + need > w->cap) {
		size_t ncap = (w->cap ? w->cap * 2 : 4096) + need;
		char *n = realloc(w->buf, ncap);
		if (!n)
			return 1;
		w->buf = n;
		w->cap = ncap;
	}
	memcpy(w->buf + w->len, &r, sizeof(r));
	memset(w->buf + w->len + sizeof(r), 0, need - sizeof(r));
	memcpy(w->buf + w->len + sizeof(r), path, r.path_len);
	w->len += need;
	return 0;
}

void memphis__tls_write(void)
{
	struct tls_walk w = { .tp = (uintptr_t)pthread_self() }; /* x86-64: the TCB is at fs_base */

	memphis__enter(); /* dl_iterate_phdr's callback reallocates */
	w.buf = malloc(4096);
	w.cap = w.buf ? 4096 : 0;
	if (w.buf) {
		dl_iterate_phdr(add_module, &w);
		if (w.len)
			memphis__writer_block(-1, MPH_BLK_TLS, w.buf, w.len);
	}
	free(w.buf);
	memphis__leave();
}

uint64_t memphis__tls_static_size(void)
{
	struct tls_walk w = { 0 };

	dl_iterate_phdr(add_module, &w);
	return w.total;
}

/* glibc carves every thread's static TLS out of its stack: a program with large __thread
 * data would leave a default-sized library thread almost no stack. */
size_t memphis__tls_thread_stack(void)
{
	pthread_attr_t attr;
	size_t stack = 0;

	if (pthread_getattr_default_np(&attr) == 0) {
		pthread_attr_getstacksize(&attr, &stack);
		pthread_attr_destroy(&attr);
	}
	if (stack < (1u << 20))
		stack = 1u << 20;
	stack += (size_t)memphis__tls_static_size();
	return (stack + 4095) & ~(size_t)4095;
}
