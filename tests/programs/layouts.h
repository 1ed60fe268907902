/* tests/programs/layouts.h - SAMPLES and STACKS payloads rewritten between their layout
 * versions (include/memphis/format.h), for the tools that rewrite a run into another
 * format (tool_v1, tool_format). SAMPLES layout 3 goes through common/samples3.c; STACKS
 * layout 2 is built and expanded here, apart from the library's lib/stack.c, so that the
 * two check each other. Static functions; include once per tool. Each returns a payload
 * from malloc (the caller frees it) and its length, or NULL when the payload does not
 * parse or memory is short. */
#ifndef MEMPHIS_TESTS_LAYOUTS_H
#define MEMPHIS_TESTS_LAYOUTS_H

#include <stdlib.h>
#include <string.h>

#include "samples3.h"
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

/* A STACKS payload of layout `to` (1: every entry with its bytes; 2: an entry whose
 * stack_len and bytes equal an earlier own entry's shares them) from one of layout
 * `from` (1 or 2). */
static unsigned char *layout_stacks_to(uint16_t to, uint16_t from, const unsigned char *p,
				       size_t len, size_t *out_len)
{
	/* every entry takes at least a header: no more own entries than that */
	size_t maxe = len / sizeof(struct memphis_rec_stack) + 1, nin = 0, nout = 0, off = 0, o = 0;
	size_t *in_own = malloc(maxe * sizeof(size_t)), *out_own = malloc(maxe * sizeof(size_t));
	size_t cap = len + 1;
	unsigned char *out = malloc(cap), *grown;

	if (!in_own || !out_own || !out)
		goto fail;
	while (off < len) {
		struct memphis_rec_stack e;
		const unsigned char *bytes;
		size_t pad, k;

		if (len - off < sizeof(e))
			goto fail;
		memcpy(&e, p + off, sizeof(e));
		pad = ((size_t)e.stack_len + 7) & ~(size_t)7;
		if (e.stack_len > 65536)
			goto fail;
		if (from == 2 && e.reserved == MPH_STACK_SHARED) {
			if (e.reserved2 >= nin)
				goto fail;
			bytes = p + in_own[e.reserved2] + sizeof(e);
			off += sizeof(e);
		} else {
			if (pad > len - off - sizeof(e))
				goto fail;
			bytes = p + off + sizeof(e);
			if (from == 2 && e.stack_len)
				in_own[nin++] = off;
			off += sizeof(e) + pad;
		}
		e.reserved = 0;
		e.reserved2 = 0;
		if (cap - o < sizeof(e) + pad) {
			cap = 2 * cap + sizeof(e) + pad;
			grown = realloc(out, cap);
			if (!grown)
				goto fail;
			out = grown;
		}
		for (k = 0; to == 2 && e.stack_len && k < nout; k++) {
			const struct memphis_rec_stack *x = (const void *)(out + out_own[k]);
			if (x->stack_len == e.stack_len && !memcmp(x + 1, bytes, e.stack_len))
				break;
		}
		if (to == 2 && e.stack_len && k < nout) {
			e.reserved = MPH_STACK_SHARED;
			e.reserved2 = (uint32_t)k;
			memcpy(out + o, &e, sizeof(e));
			o += sizeof(e);
			continue;
		}
		if (to == 2 && e.stack_len)
			out_own[nout++] = o;
		memcpy(out + o, &e, sizeof(e));
		memcpy(out + o + sizeof(e), bytes, pad);
		o += sizeof(e) + pad;
	}
	free(in_own);
	free(out_own);
	*out_len = o;
	return out;
fail:
	free(in_own);
	free(out_own);
	free(out);
	return NULL;
}

#endif
