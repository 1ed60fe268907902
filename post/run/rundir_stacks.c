/* post/run/rundir_stacks.c - STACKS blocks (include/memphis/format.h): their entries checked,
 * copied and indexed by (kind, tid, time), for the sample stream (the entries of one
 * SAMPLES block at a time) and for the run's first touches (all of meta.mph's). */
#include "rundir_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/radix.h"
#include "stacks2.h"

/* The longest stack an entry may claim: perf copies at most 64 KiB into a record. */
#define STACK_LEN_MAX 65536u

struct stack_key {
	uint64_t time;
	uint32_t tid;
	uint16_t kind;
	size_t off; /* of the entry in mr_stacks.buf */
};

struct mr_stacks {
	unsigned char *buf; /* entries as written, 8-aligned */
	size_t n, cap;
	struct stack_key *key;
	size_t nkey, capkey;
	int sorted;
	/* by thread (tid % 8): the key after the one found last. A block's samples ask for
	 * their entries in the order written, each thread's in time: the next one is most
	 * often that key, found without a binary search (a mispredicted branch a level). */
	size_t hint[8];
};

/* Room in s for `need` more bytes and one more key. 0 or -ENOMEM. */
static int stacks_room(struct mr_stacks *s, size_t need)
{
	if (s->n + need > s->cap) {
		size_t ncap = s->cap ? s->cap : 65536;
		while (ncap < s->n + need)
			ncap *= 2;
		unsigned char *nb = realloc(s->buf, ncap);
		if (!nb)
			return -ENOMEM;
		s->buf = nb;
		s->cap = ncap;
	}
	if (s->nkey == s->capkey) {
		size_t ncap = s->capkey ? s->capkey * 2 : 256;
		struct stack_key *nk = realloc(s->key, ncap * sizeof(*nk));
		if (!nk)
			return -ENOMEM;
		s->key = nk;
		s->capkey = ncap;
	}
	return 0;
}

int rundir_stacks_add(struct mr_stacks **sp, uint16_t version, const unsigned char *p,
		      size_t len, char *what, size_t wlen)
{
	struct mr_stacks *s = *sp;
	size_t off = 0, i = 0, nown = 0, capown = 0, *own = NULL; /* own: offsets in s->buf */
	int rc = 0;

	if (!s) {
		s = *sp = calloc(1, sizeof(*s));
		if (!s)
			return -ENOMEM;
	}
	while (off < len) {
		struct memphis_rec_stack e;
		struct memphis_rec_stack_delta d;
		const char *why;
		size_t need, pad;
		int delta;

		delta = 0;
		if (version >= 2 && len - off >= 16) {
			memcpy(&d, p + off, 16);
			delta = d.form == MPH_STACK_DELTA;
		}
		if (delta) {
			if (mph_stk2_parse(p + off, len - off, &d, &need, &why)) {
				snprintf(what, wlen, "STACKS block: the entry at byte %zu: %s", off, why);
				rc = -EINVAL;
				break;
			}
			if (d.base >= nown || ((const struct memphis_rec_stack *)(void *)
					       (s->buf + own[d.base]))->stack_len != d.stack_len) {
				snprintf(what, wlen, "STACKS block: the entry at byte %zu is a DELTA of "
					 "entry %" PRIu32 ", which is not an earlier own entry of %"
					 PRIu32 " bytes", off, d.base, d.stack_len);
				rc = -EINVAL;
				break;
			}
			pad = ((size_t)d.stack_len + 7) & ~(size_t)7;
		} else {
			if (len - off < sizeof(e)) {
				snprintf(what, wlen, "STACKS block: %zu stray bytes after its %zu "
					 "entries", len - off, i);
				rc = -EINVAL;
				break;
			}
			memcpy(&e, p + off, sizeof(e));
			pad = ((size_t)e.stack_len + 7) & ~(size_t)7;
			need = sizeof(e) + pad;
			if (version >= 2 && e.reserved != MPH_STACK_OWN) {
				snprintf(what, wlen, "STACKS block: the entry at byte %zu has form %u, "
					 "not 0 or 1", off, e.reserved);
				rc = -EINVAL;
				break;
			}
			if (e.stack_len > STACK_LEN_MAX || need > len - off) {
				snprintf(what, wlen, "STACKS block: the entry at byte %zu claims %"
					 PRIu32 " stack bytes, beyond the block", off, e.stack_len);
				rc = -EINVAL;
				break;
			}
			if (version >= 2 && nown == capown) {
				size_t ncap = capown ? capown * 2 : 64;
				size_t *no = realloc(own, ncap * sizeof(*no));
				if (!no) {
					rc = -ENOMEM;
					break;
				}
				own = no;
				capown = ncap;
			}
		}
		if (stacks_room(s, sizeof(e) + pad)) {
			rc = -ENOMEM;
			break;
		}
		if (delta) {
			memcpy(s->buf + s->n, s->buf + own[d.base], sizeof(e) + pad);
			memcpy(&e, s->buf + s->n, sizeof(e));
			mph_stk2_apply(p + off, &d, &e, s->buf + s->n + sizeof(e));
		} else {
			if (version >= 2)
				own[nown++] = s->n;
			e.reserved = 0;
			e.reserved2 = 0;
			memcpy(s->buf + s->n + sizeof(e), p + off + sizeof(e), pad);
		}
		memcpy(s->buf + s->n, &e, sizeof(e));
		s->key[s->nkey++] = (struct stack_key){ e.time, e.tid, e.kind, s->n };
		s->n += sizeof(e) + pad;
		s->sorted = 0;
		off += need;
		i++;
	}
	free(own);
	return rc;
}

static int key_cmp(const void *a, const void *b)
{
	const struct stack_key *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* s's keys in key_cmp's order by a radix sort (a run's first touches: hundreds of
 * thousands, where qsort was a tenth of the report): by kind and thread, then each
 * thread's by time (most often in order already), then by offset, that is, as added.
 * -ENOMEM (s unchanged) or 0. */
static int radix_keys(struct mr_stacks *s)
{
	size_t n = s->nkey;
	struct mr_keyidx *a, *b;
	struct stack_key *sorted;

	if (mr_keyidx_alloc(n, &a, &b))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		a[i] = (struct mr_keyidx){ (uint64_t)s->key[i].kind << 32 | s->key[i].tid, i };
	sorted = mr_keyidx_gather(s->key, sizeof(*s->key),
				  mr_radix_sort_then(a, b, n, s->key, sizeof(*s->key),
						     offsetof(struct stack_key, time)), n);
	free(a);
	free(b);
	if (!sorted)
		return -ENOMEM;
	free(s->key);
	s->key = sorted;
	s->capkey = n;
	return 0;
}

/* A SAMPLES block's STACKS entries number a few to tens, most often in key order already
 * (one thread's): sorted in place below this many, without the radix sort's buffers. */
#define FEW_KEYS 64

void rundir_stacks_seal(struct mr_stacks *s)
{
	if (!s || s->sorted)
		return;
	if (s->nkey <= FEW_KEYS) {
		for (size_t i = 1; i < s->nkey; i++) {
			struct stack_key k = s->key[i];
			size_t j = i;

			for (; j > 0 && key_cmp(&s->key[j - 1], &k) > 0; j--)
				s->key[j] = s->key[j - 1];
			s->key[j] = k;
		}
	} else if (radix_keys(s)) {
		/* qsort where memory for the radix sort is short */
		qsort(s->key, s->nkey, sizeof(*s->key), key_cmp);
	}
	s->sorted = 1;
}

size_t rundir_stacks_count(const struct mr_stacks *s)
{
	return s ? s->nkey : 0;
}

/* The index of the first key after (kind, tid, time) in the sorted keys. */
static size_t after(const struct mr_stacks *s, uint16_t kind, uint32_t tid, uint64_t time)
{
	size_t lo = 0, hi = s->nkey;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct stack_key *k = &s->key[mid];
		if (k->kind < kind || (k->kind == kind && (k->tid < tid ||
		    (k->tid == tid && k->time <= time))))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int key_is(const struct stack_key *k, uint16_t kind, uint32_t tid, uint64_t time)
{
	return k->kind == kind && k->tid == tid && k->time == time;
}

const struct memphis_rec_stack *rundir_stacks_find(struct mr_stacks *s, uint16_t kind,
						   uint32_t tid, uint64_t time,
						   const uint8_t **bytes)
{
	size_t i;

	*bytes = NULL;
	if (!s || !s->sorted)
		return NULL;
	/* the hint's key, when it is the last of (kind, tid, time) */
	i = s->hint[tid % 8];
	if (i >= s->nkey || !key_is(&s->key[i], kind, tid, time) ||
	    (i + 1 < s->nkey && key_is(&s->key[i + 1], kind, tid, time))) {
		if ((i = after(s, kind, tid, time)) == 0)
			return NULL;
		i--; /* the last key <= (kind, tid, time) */
		if (!key_is(&s->key[i], kind, tid, time))
			return NULL;
	}
	s->hint[tid % 8] = i + 1;
	*bytes = s->buf + s->key[i].off + sizeof(struct memphis_rec_stack);
	return (const struct memphis_rec_stack *)(s->buf + s->key[i].off);
}

const struct memphis_rec_stack *rundir_stacks_latest(const struct mr_stacks *s, uint16_t kind,
						     uint32_t tid, uint64_t time, uint64_t ip,
						     const uint8_t **bytes)
{
	const struct memphis_rec_stack *e;
	size_t i;

	*bytes = NULL;
	if (!s || !s->sorted || (i = after(s, kind, tid, time)) == 0)
		return NULL;
	i--;
	if (s->key[i].kind != kind || s->key[i].tid != tid)
		return NULL;
	e = (const struct memphis_rec_stack *)(s->buf + s->key[i].off);
	if (e->regs[8] != ip)
		return NULL;
	*bytes = s->buf + s->key[i].off + sizeof(*e);
	return e;
}

void rundir_stacks_clear(struct mr_stacks *s)
{
	if (s) {
		s->n = 0;
		s->nkey = 0;
		s->sorted = 0;
	}
}

void rundir_stacks_free(struct mr_stacks *s)
{
	if (!s)
		return;
	free(s->buf);
	free(s->key);
	free(s);
}

const struct memphis_rec_stack *mr_run_touch_stack(const struct mr_run *run,
						   const struct memphis_rec_touch *t,
						   const uint8_t **bytes)
{
	*bytes = NULL;
	if (!(t->flags & MPH_TOUCH_STACK))
		return NULL;
	/* its own entry, or the thread's last before it, written for a fault that unwinds
	 * alike (docs/format.md) */
	return rundir_stacks_latest(run->touch_stacks, MPH_STACK_TOUCH, t->tid, t->time, t->ip,
				    bytes);
}
