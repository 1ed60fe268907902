/* lib/percpu.c - events of every CPU, read back for one process (percpu.h). */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "percpu.h"
#include "self.h"

/* The ring of p->cpu[k], opened (again) as p->attr says. */
static int ring_open(struct memphis__percpu *p, int k)
{
	struct perf_event_attr a = *p->attr;

	return memphis__ring_open_on(&p->ring[k], &a, -1, p->cpu[k], -1, p->pages,
				     p->watermark_div);
}

int memphis__percpu_open(struct memphis__percpu *p, const struct perf_event_attr *attr,
			 pid_t pid, unsigned data_pages, unsigned watermark_div)
{
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	int err = 0;

	memset(p, 0, sizeof(*p));
	if (ncpus < 1)
		ncpus = 1;
	p->cpu = memphis__lib_calloc((size_t)ncpus, sizeof(*p->cpu));
	p->ring = memphis__lib_calloc((size_t)ncpus, sizeof(*p->ring));
	p->attr = memphis__lib_calloc(1, sizeof(*p->attr));
	if (!p->cpu || !p->ring || !p->attr) {
		err = -ENOMEM;
		goto fail;
	}
	*p->attr = *attr;
	p->pid = pid;
	p->pages = data_pages;
	p->watermark_div = watermark_div;
	for (int c = 0; c < ncpus; c++) {
		p->cpu[p->n] = c;
		err = ring_open(p, p->n);
		if (err == -ENODEV || err == -ENXIO)
			continue; /* an offline CPU */
		if (err < 0)
			goto fail;
		p->n++;
	}
	if (p->n == 0) {
		err = err ? err : -ENODEV;
		goto fail;
	}
	return 0;
fail:
	memphis__percpu_close(p);
	return err;
}

struct filter {
	pid_t pid;
	memphis__record_fn fn;
	void *ctx;
};

/* Samples start with the ip and then the pid (percpu.h's contract on the attr). */
static void keep_own(const void *rec, size_t len, void *ctx)
{
	const struct filter *f = ctx;
	const struct perf_event_header *h = rec;
	uint32_t pid;

	if (h->type == PERF_RECORD_SAMPLE) {
		if (len < sizeof(*h) + 8 + 4)
			return;
		memcpy(&pid, (const char *)rec + sizeof(*h) + 8, sizeof(pid));
		if (pid != (uint32_t)f->pid)
			return;
	}
	f->fn(rec, len, f->ctx);
}

size_t memphis__percpu_drain(struct memphis__percpu *p, memphis__record_fn fn, void *ctx)
{
	struct filter f = { p->pid, fn, ctx };
	size_t n = 0;

	for (int k = 0; k < p->n; k++)
		n += memphis__ring_drain(&p->ring[k], keep_own, &f);
	return n;
}

int memphis__percpu_enable(struct memphis__percpu *p, int on, memphis__record_fn fn, void *ctx)
{
	int first = 0;

	for (int k = 0; k < p->n; k++) {
		int err = memphis__ring_enable(&p->ring[k], on);
		if (err == -EBADF) {
			/* the program closed the descriptor: the event lives on through its
			 * mapping but takes no ioctl; read it, end it, open a new one */
			struct filter f = { p->pid, fn, ctx };
			memphis__ring_drain(&p->ring[k], keep_own, &f);
			memphis__ring_close(&p->ring[k]);
			err = ring_open(p, k);
			if (err == 0)
				err = memphis__ring_enable(&p->ring[k], on);
		}
		if (err < 0 && !first)
			first = err;
	}
	return first;
}

uint64_t memphis__percpu_lost(struct memphis__percpu *p)
{
	uint64_t n = 0;

	for (int k = 0; k < p->n; k++)
		n += memphis__ring_lost(&p->ring[k]);
	return n;
}

void memphis__percpu_fds(struct memphis__percpu *p, void (*add)(int fd, void *ctx), void *ctx)
{
	for (int k = 0; k < p->n; k++)
		if (memphis__ring_check(&p->ring[k]))
			add(p->ring[k].fd, ctx);
}

void memphis__percpu_close(struct memphis__percpu *p)
{
	for (int k = 0; k < p->n; k++)
		memphis__ring_close(&p->ring[k]);
	memphis__lib_free(p->cpu);
	memphis__lib_free(p->ring);
	memphis__lib_free(p->attr);
	memset(p, 0, sizeof(*p));
}
