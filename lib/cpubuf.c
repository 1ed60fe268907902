/* lib/cpubuf.c - the per-CPU sample buffers (contract in cpubuf.h). */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "cpubuf.h"
#include "samples3.h"
#include "self.h"
#include "stack.h"
#include "writer.h"

#define CPU_BUF 1170 /* samples per block: ~64 KiB in layout 2 */

struct cpu_buf {
	size_t n;
	uint64_t written;             /* the open region's samples handed to the writer */
	struct memphis_rec_sample s[CPU_BUF];
	struct memphis__stackbuf stk; /* STACKS entries of samples in s (stack.h) */
};

static struct cpu_buf **bufs; /* per CPU, allocated on first sample */
static int nbufs;

int memphis__cpubuf_start(void)
{
	nbufs = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (nbufs < 1)
		nbufs = 1;
	bufs = calloc((size_t)nbufs, sizeof(*bufs));
	return bufs ? 0 : -ENOMEM;
}

/* The SAMPLES payload of b's samples in the run's layout: *p and its length (layout 3:
 * encoded into `enc`, allocated once). 0, or -ENOMEM. */
static int samples_payload(const struct cpu_buf *b, const void **p, size_t *len)
{
	static unsigned char *enc;

	if (memphis__writer_layout(MPH_BLK_SAMPLES) < 3) {
		*p = b->s;
		*len = b->n * sizeof(b->s[0]);
		return 0;
	}
	if (!enc)
		enc = memphis__lib_malloc(MPH_S3_BOUND(CPU_BUF));
	if (!enc)
		return -ENOMEM;
	*len = mph_s3_encode(b->s, b->n, enc);
	*p = enc;
	return 0;
}

static void flush_cpu(int cpu, uint64_t *dropped)
{
	struct cpu_buf *b = bufs[cpu];
	const void *p;
	size_t len;

	if (!b || b->n == 0)
		return;
	/* the entries first: a reader finds them before their samples (format.h) */
	memphis__stackbuf_write(&b->stk, cpu);
	if (samples_payload(b, &p, &len) < 0 ||
	    memphis__writer_block(cpu, MPH_BLK_SAMPLES, p, len) < 0)
		*dropped += b->n;
	else
		b->written += b->n;
	b->n = 0;
}

/* Keep u as the STACKS entry of sample s in the buffer of `cpu` (writing the buffer first
 * when the entries fill it) and flag s; without memory the sample goes without. */
static void keep_stack(int cpu, struct memphis__thread *t, struct memphis_rec_sample *s,
		       const struct memphis__ustack *u, uint64_t *dropped)
{
	struct memphis__stackbuf *stk = &bufs[cpu]->stk;
	int err = memphis__stackbuf_add(stk, MPH_STACK_SAMPLE, s->time, t, s->tid, u);

	if (err == -ENOSPC) {
		flush_cpu(cpu, dropped);
		err = memphis__stackbuf_add(stk, MPH_STACK_SAMPLE, s->time, t, s->tid, u);
	}
	if (err == 0)
		s->flags |= MPH_S_STACK;
}

void memphis__cpubuf_add(struct memphis__thread *t, struct memphis_rec_sample *s,
			 const struct memphis__ustack *u, uint64_t *dropped)
{
	int cpu = s->cpu;

	if (cpu >= nbufs) {
		++*dropped;
		return;
	}
	if (!bufs[cpu]) {
		bufs[cpu] = calloc(1, sizeof(**bufs));
		if (!bufs[cpu]) {
			++*dropped;
			return;
		}
	}
	if (u)
		keep_stack(cpu, t, s, u, dropped);
	bufs[cpu]->s[bufs[cpu]->n++] = *s;
	if (bufs[cpu]->n == CPU_BUF)
		flush_cpu(cpu, dropped);
}

void memphis__cpubuf_flush(uint64_t *dropped)
{
	for (int c = 0; c < nbufs; c++)
		flush_cpu(c, dropped);
}

void memphis__cpubuf_region_end(uint32_t seq)
{
	struct memphis_rec_cpu_samples *r = calloc((size_t)nbufs + 1, sizeof(*r));
	size_t n = 0;

	for (int cpu = 0; cpu < nbufs; cpu++) {
		if (!bufs[cpu] || !bufs[cpu]->written)
			continue;
		if (r)
			r[n++] = (struct memphis_rec_cpu_samples){ seq, (uint32_t)cpu,
								   bufs[cpu]->written };
		bufs[cpu]->written = 0;
	}
	if (n)
		memphis__writer_block(-1, MPH_BLK_CPU_SAMPLES, r, n * sizeof(*r));
	free(r);
}
