/* common/stacks2.c - STACKS layout 2's DELTA entries (stacks2.h). */
#include <errno.h>
#include <string.h>

#include "stacks2.h"

static size_t words_of(uint32_t stack_len)
{
	return ((size_t)stack_len + 7) / 8;
}

size_t mph_stk2_delta(const struct memphis_rec_stack *e, const unsigned char *bytes,
		      const struct memphis_rec_stack *base, const unsigned char *base_bytes,
		      uint32_t base_index, unsigned char *out)
{
	struct memphis_rec_stack_delta d = { .time = e->time, .tid = e->tid, .kind = e->kind,
					     .form = MPH_STACK_DELTA, .base = base_index,
					     .stack_len = e->stack_len };
	size_t words = words_of(e->stack_len), nmap = (words + 63) / 64, o = sizeof(d);

	for (unsigned r = 0; r < MEMPHIS_STACK_NREGS; r++)
		if (e->regs[r] != base->regs[r]) {
			d.regmask |= 1u << r;
			if (out)
				memcpy(out + o, &e->regs[r], 8);
			o += 8;
		}
	for (size_t w = 0; w < words; w++)
		d.nwords += memcmp(bytes + 8 * w, base_bytes + 8 * w, 8) != 0;
	if (d.nwords) {
		size_t at = o + 8 * nmap;
		if (out)
			memset(out + o, 0, 8 * nmap);
		for (size_t w = 0; w < words; w++) {
			if (!memcmp(bytes + 8 * w, base_bytes + 8 * w, 8))
				continue;
			if (out) {
				uint64_t m;
				memcpy(&m, out + o + 8 * (w / 64), 8);
				m |= 1ull << (w % 64);
				memcpy(out + o + 8 * (w / 64), &m, 8);
				memcpy(out + at, bytes + 8 * w, 8);
			}
			at += 8;
		}
		o = at;
	}
	if (out)
		memcpy(out, &d, sizeof(d));
	return o;
}

long mph_stk2_base(const struct mph_stk2_key *own, size_t n, const struct mph_stk2_key *e)
{
	long last = -1;

	for (size_t i = n; i-- > 0;) {
		if (own[i].tid != e->tid || own[i].len != e->len)
			continue;
		if (own[i].sp == e->sp)
			return (long)i;
		if (last < 0)
			last = (long)i;
	}
	return last;
}

int mph_stk2_parse(const unsigned char *p, size_t avail, struct memphis_rec_stack_delta *d,
		   size_t *size, const char **why)
{
	size_t words, nmap, o = sizeof(*d), bits = 0;

	if (avail < sizeof(*d)) {
		*why = "a DELTA entry beyond the block";
		return -EINVAL;
	}
	memcpy(d, p, sizeof(*d));
	words = words_of(d->stack_len);
	nmap = (words + 63) / 64;
	if (d->regmask >> MEMPHIS_STACK_NREGS) {
		*why = "a DELTA entry giving registers that do not exist";
		return -EINVAL;
	}
	if (d->stack_len > 8 * MPH_STK2_WORDS_MAX || d->nwords > words) {
		*why = "a DELTA entry giving more stack words than its stack has";
		return -EINVAL;
	}
	o += 8 * (size_t)__builtin_popcount(d->regmask);
	if (d->nwords) {
		if (avail < o + 8 * nmap) {
			*why = "a DELTA entry beyond the block";
			return -EINVAL;
		}
		for (size_t i = 0; i < nmap; i++) {
			uint64_t m;
			memcpy(&m, p + o + 8 * i, 8);
			if (i == nmap - 1 && words % 64 && m >> (words % 64)) {
				*why = "a DELTA entry's word map marks words past its stack";
				return -EINVAL;
			}
			bits += (size_t)__builtin_popcountll(m);
		}
		if (bits != d->nwords) {
			*why = "a DELTA entry's word map does not count its words";
			return -EINVAL;
		}
		o += 8 * nmap + 8 * (size_t)d->nwords;
	}
	if (avail < o) {
		*why = "a DELTA entry beyond the block";
		return -EINVAL;
	}
	*size = o;
	return 0;
}

void mph_stk2_apply(const unsigned char *p, const struct memphis_rec_stack_delta *d,
		    struct memphis_rec_stack *out_hdr, unsigned char *out_bytes)
{
	size_t words = words_of(d->stack_len), nmap = (words + 63) / 64, o = sizeof(*d), at;

	out_hdr->time = d->time;
	out_hdr->tid = d->tid;
	out_hdr->kind = d->kind;
	out_hdr->reserved = 0;
	out_hdr->reserved2 = 0;
	/* by the set bits only: a DELTA gives a few of 17 registers and of 128 words, and a
	 * test of every bit cost the report 170 ns an entry */
	for (uint32_t m = d->regmask; m; m &= m - 1) {
		memcpy(&out_hdr->regs[__builtin_ctz(m)], p + o, 8);
		o += 8;
	}
	if (!d->nwords)
		return;
	at = o + 8 * nmap;
	for (size_t i = 0; i < nmap; i++) {
		uint64_t m;

		memcpy(&m, p + o + 8 * i, 8);
		for (; m; m &= m - 1) {
			memcpy(out_bytes + 8 * (64 * i + (size_t)__builtin_ctzll(m)), p + at, 8);
			at += 8;
		}
	}
}
