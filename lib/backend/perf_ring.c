/* lib/backend/perf_ring.c - PERF_RECORD_SAMPLE and the loss/throttle records, parsed. The
 * field order is the kernel's perf_output_sample(); every field is a multiple of 8 bytes,
 * RAW included (its u32 size and payload are padded together to 8). */
#include <errno.h>
#include <string.h>

#include "perf_ring.h"

struct cursor {
	const unsigned char *p, *end;
	int bad;
};

static uint64_t u64(struct cursor *c)
{
	uint64_t v = 0;

	if (c->bad || (size_t)(c->end - c->p) < 8) {
		c->bad = 1;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

static void skip(struct cursor *c, uint64_t n)
{
	if (c->bad || (uint64_t)(c->end - c->p) < n) {
		c->bad = 1;
		return;
	}
	c->p += n;
}

int memphis__perf_sample_parse(const void *rec, size_t len, uint64_t st,
			       struct memphis__perf_sample *s)
{
	const struct perf_event_header *h = rec;
	struct cursor c = { (const unsigned char *)rec + sizeof(*h), (const unsigned char *)rec + len, 0 };
	uint64_t v;

	memset(s, 0, sizeof(*s));
	if (len < sizeof(*h) || h->type != PERF_RECORD_SAMPLE || h->size > len ||
	    (st & ~(uint64_t)MEMPHIS__PERF_SAMPLE_KNOWN))
		return -EINVAL;
	c.end = (const unsigned char *)rec + h->size;
	if (st & PERF_SAMPLE_IDENTIFIER)
		s->id = u64(&c);
	if (st & PERF_SAMPLE_IP)
		s->ip = u64(&c);
	if (st & PERF_SAMPLE_TID) {
		v = u64(&c);
		s->pid = (uint32_t)v;
		s->tid = (uint32_t)(v >> 32);
	}
	if (st & PERF_SAMPLE_TIME)
		s->time = u64(&c);
	if (st & PERF_SAMPLE_ADDR)
		s->addr = u64(&c);
	if (st & PERF_SAMPLE_ID)
		s->id = u64(&c);
	if (st & PERF_SAMPLE_STREAM_ID)
		s->stream_id = u64(&c);
	if (st & PERF_SAMPLE_CPU)
		s->cpu = (uint32_t)u64(&c);
	if (st & PERF_SAMPLE_PERIOD)
		s->period = u64(&c);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		v = u64(&c);
		if (v > (1u << 16))
			c.bad = 1;
		skip(&c, v * 8);
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t n;
		if (c.bad || c.end - c.p < 4) {
			c.bad = 1;
		} else {
			memcpy(&n, c.p, 4);
			c.p += 4;
			s->raw = c.p;
			s->raw_size = n;
			/* the u32 and the payload together are padded to 8 bytes */
			skip(&c, ((uint64_t)n + 4 + 7) / 8 * 8 - 4);
		}
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		s->weight = u64(&c);
		if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
			s->lat = (uint32_t)s->weight;          /* var1_dw */
			s->ins_lat = (uint16_t)(s->weight >> 32); /* var2_w */
		} else {
			s->lat = s->weight > UINT32_MAX ? UINT32_MAX : (uint32_t)s->weight;
		}
	}
	if (st & PERF_SAMPLE_DATA_SRC)
		s->data_src = u64(&c);
	if (st & PERF_SAMPLE_TRANSACTION)
		s->transaction = u64(&c);
	if (st & PERF_SAMPLE_PHYS_ADDR)
		s->phys_addr = u64(&c);
	if (st & PERF_SAMPLE_CGROUP)
		s->cgroup = u64(&c);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		s->data_page_size = u64(&c);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		s->code_page_size = u64(&c);
	if (c.bad) {
		s->raw = NULL;
		s->raw_size = 0;
		return -EINVAL;
	}
	return 0;
}

int memphis__perf_record_count(const void *rec, size_t len, struct memphis__perf_losses *l)
{
	const struct perf_event_header *h = rec;
	uint64_t v[2];

	if (len < sizeof(*h))
		return -1;
	switch (h->type) {
	case PERF_RECORD_LOST: /* u64 id, u64 lost */
		if (len < sizeof(*h) + 16)
			return -1;
		memcpy(v, h + 1, 16);
		l->lost += v[1];
		break;
	case PERF_RECORD_LOST_SAMPLES: /* u64 lost */
		if (len < sizeof(*h) + 8)
			return -1;
		memcpy(v, h + 1, 8);
		l->lost_samples += v[0];
		break;
	case PERF_RECORD_THROTTLE:
		l->throttle++;
		break;
	case PERF_RECORD_UNTHROTTLE:
		l->unthrottle++;
		break;
	default:
		break;
	}
	return (int)h->type;
}
