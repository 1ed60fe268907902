/* tests/programs/layouts.h - SAMPLES and STACKS payloads rewritten between their layout
 * versions (include/memphis/format.h), for the tools that rewrite a run into another
 * format (tool_v1, tool_format), through common/samples3.c and common/stacks2.c; which
 * STACKS entries become DELTA entries is chosen here as lib/stack.c chooses, apart from it,
 * so that t_format3's round trip checks the two agree. Static functions; include once per tool. Each returns a payload
 * from malloc (the caller frees it) and its length, or NULL when the payload does not
 * parse or memory is short. */
#ifndef MEMPHIS_TESTS_LAYOUTS_H
#define MEMPHIS_TESTS_LAYOUTS_H

#include <stdlib.h>
#include <string.h>

#include "samples3.h"
#include "stacks2.h"
#include <memphis/format.h>

/* The records of a SAMPLES payload of layout 1, 2 or 3 as layout 2 records: *n of them. */
static struct memphis_rec_sample *layout_samples(uint16_t version, const unsigned char *p,
						 size_t len, size_t *n)
{
	struct memphis_rec_sample *s;
	struct mph_s3_error e;
	size_t size = version == 1 ? MEMPHIS_SAMPLE_V1_SIZE : sizeof(*s);

	if (version == 3) {
		if (mph_s3_count(p, len, n, &e))
			return NULL;
		s = malloc((*n ? *n : 1) * sizeof(*s));
		if (s && mph_s3_decode(p, len, s, *n, &e)) {
			free(s);
			return NULL;
		}
		return s;
	}
	if ((version != 1 && version != 2) || len % size)
		return NULL;
	*n = len / size;
	s = calloc(*n ? *n : 1, sizeof(*s));
	for (size_t i = 0; s && i < *n; i++)
		memcpy(&s[i], p + i * size, size);
	return s;
}

/* A SAMPLES payload of layout `to` (1, 2 or 3) from one of layout `from`. */
static unsigned char *layout_samples_to(uint16_t to, uint16_t from, const unsigned char *p,
					size_t len, size_t *out_len)
{
	size_t n;
	struct memphis_rec_sample *s = layout_samples(from, p, len, &n);
	unsigned char *o;

	if (!s)
		return NULL;
	o = malloc(to == 3 ? MPH_S3_BOUND(n) : n * sizeof(*s) + 1);
	if (o && to == 3) {
		*out_len = mph_s3_encode(s, n, o);
	} else if (o) {
		size_t size = to == 1 ? MEMPHIS_SAMPLE_V1_SIZE : sizeof(*s);
		for (size_t i = 0; i < n; i++)
			memcpy(o + i * size, &s[i], size);
		*out_len = n * size;
	}
	free(s);
	return o;
}

/* A STACKS payload of layout `to` (1: every entry whole; 2: an entry becomes a DELTA of the
 * own entry mph_stk2_base picks where that takes at most a quarter of its bytes, as
 * lib/stack.c does) from one of layout `from` (1 or 2). */
static unsigned char *layout_stacks_to(uint16_t to, uint16_t from, const unsigned char *p,
				       size_t len, size_t *out_len)
{
	/* every entry takes at least a DELTA header: no more entries than that */
	size_t maxe = len / sizeof(struct memphis_rec_stack_delta) + 1, nin = 0, nout = 0;
	size_t off = 0, o = 0, cap = len + 1;
	size_t *in_own = malloc(maxe * sizeof(size_t)), *out_own = malloc(maxe * sizeof(size_t));
	struct mph_stk2_key *out_key = malloc(maxe * sizeof(*out_key)), key;
	unsigned char *out = malloc(cap), *grown, *bytes = malloc(65536 + 8);

	if (!in_own || !out_own || !out_key || !out || !bytes)
		goto fail;
	while (off < len) {
		struct memphis_rec_stack e;
		struct memphis_rec_stack_delta d;
		const char *why;
		size_t pad, need;
		long base;

		if (len - off < 16)
			goto fail;
		memcpy(&d, p + off, 16);
		if (from == 2 && d.form == MPH_STACK_DELTA) {
			if (mph_stk2_parse(p + off, len - off, &d, &need, &why) || d.base >= nin)
				goto fail;
			memcpy(&e, p + in_own[d.base], sizeof(e)); /* p: any alignment */
			if (e.stack_len != d.stack_len)
				goto fail;
			pad = ((size_t)d.stack_len + 7) & ~(size_t)7;
			memcpy(bytes, p + in_own[d.base] + sizeof(e), pad);
			mph_stk2_apply(p + off, &d, &e, bytes);
			off += need;
		} else {
			if (len - off < sizeof(e))
				goto fail;
			memcpy(&e, p + off, sizeof(e));
			pad = ((size_t)e.stack_len + 7) & ~(size_t)7;
			if (e.stack_len > 65536 || pad > len - off - sizeof(e))
				goto fail;
			memcpy(bytes, p + off + sizeof(e), pad);
			if (from == 2)
				in_own[nin++] = off;
			off += sizeof(e) + pad;
		}
		e.reserved = 0;
		e.reserved2 = 0;
		need = sizeof(e) + pad;
		if (cap - o < need) {
			cap = 2 * cap + need;
			grown = realloc(out, cap);
			if (!grown)
				goto fail;
			out = grown;
		}
		key = (struct mph_stk2_key){ e.regs[7], e.tid, e.stack_len };
		if (to == 2 && e.stack_len && e.stack_len <= 8192 &&
		    (base = mph_stk2_base(out_key, nout, &key)) >= 0) {
			const struct memphis_rec_stack *b = (const void *)(out + out_own[base]);
			size_t size = mph_stk2_delta(&e, bytes, b, (const unsigned char *)(b + 1),
						     (uint32_t)base, NULL);

			if (4 * size <= need) {
				mph_stk2_delta(&e, bytes, b, (const unsigned char *)(b + 1),
					       (uint32_t)base, out + o);
				o += size;
				continue;
			}
		}
		if (to == 2) {
			out_key[nout] = key;
			out_own[nout++] = o;
		}
		memcpy(out + o, &e, sizeof(e));
		memcpy(out + o + sizeof(e), bytes, pad);
		o += need;
	}
	free(in_own);
	free(out_own);
	free(out_key);
	free(bytes);
	*out_len = o;
	return out;
fail:
	free(in_own);
	free(out_own);
	free(out_key);
	free(bytes);
	free(out);
	return NULL;
}

#endif
