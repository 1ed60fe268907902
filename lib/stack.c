/* lib/stack.c - registers and top of the user stack of samples and first touches: which
 * records keep them, their perf record tail, and buffered STACKS entries (stack.h). */
#include <errno.h>
#include <link.h>
#include <string.h>

#include "hash.h"
#include "insn.h"
#include "self.h"
#include "stack.h"
#include "stacks2.h"
#include "writer.h"

_Static_assert(MEMPHIS_STACK_NREGS == MPH_NREGS, "STACKS entries hold the sampled registers");

static unsigned stack_bytes;
static uint64_t exe_lo, exe_hi; /* the executable's loaded image, [lo, hi) */

/* The executable is the first object dl_iterate_phdr reports: its PT_LOAD extent. */
static int find_exe(struct dl_phdr_info *info, size_t size, void *ctx)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		if (ph->p_vaddr < lo)
			lo = ph->p_vaddr;
		if (ph->p_vaddr + ph->p_memsz > hi)
			hi = ph->p_vaddr + ph->p_memsz;
	}
	if (hi > lo) {
		exe_lo = info->dlpi_addr + lo;
		exe_hi = info->dlpi_addr + hi;
	}
	return 1;
}

void memphis__stack_init(unsigned bytes)
{
	stack_bytes = bytes;
	if (bytes) {
		memphis__enter(); /* the loader may allocate */
		dl_iterate_phdr(find_exe, NULL);
		memphis__leave();
	}
}

unsigned memphis__stack_bytes(void)
{
	return stack_bytes;
}

unsigned memphis__fault_stack_bytes(void)
{
	return stack_bytes < MEMPHIS__FAULT_STACK_BYTES ? stack_bytes : MEMPHIS__FAULT_STACK_BYTES;
}

unsigned memphis__stack_record_extra(int have_regs, unsigned nregs, unsigned bytes)
{
	if (!bytes)
		return 0;
	return (have_regs ? 0 : 8 + 8 * nregs) + 8 + bytes + 8;
}

int memphis__stack_parse(const void *p, size_t len, uint64_t mask, struct memphis__ustack *u)
{
	const unsigned char *c = p;
	uint64_t abi, size, dyn;
	size_t off = 8, n = (size_t)__builtin_popcountll(mask);

	memset(u, 0, sizeof(*u));
	if (len < 8)
		return -EINVAL;
	memcpy(&abi, c, 8);
	if (abi != 0) { /* PERF_SAMPLE_REGS_ABI_NONE: no registers follow */
		if (len - off < 8 * n)
			return -EINVAL;
		if (mask == MEMPHIS__REGS_MASK) {
			u->regs = (const uint64_t *)(c + off);
		} else { /* perf's order is the bits' order: placed as in the full mask */
			for (unsigned b = 0, k = 0; b < 64; b++)
				if (mask >> b & 1)
					memcpy(&u->some[__builtin_popcountll(MEMPHIS__REGS_MASK &
									     ((1ull << b) - 1))],
					       c + off + 8 * k++, 8);
			u->regs = u->some;
		}
		off += 8 * n;
	}
	if (!stack_bytes)
		return 0;
	if (len - off < 8)
		return -EINVAL;
	memcpy(&size, c + off, 8);
	off += 8;
	if (size == 0) /* no stack copied (no user context): no dyn_size either */
		return 0;
	if (size > len - off || len - off - size < 8)
		return -EINVAL;
	memcpy(&dyn, c + off + size, 8);
	u->bytes = c + off;
	u->len = dyn < size ? dyn : size;
	return 0;
}

int memphis__stack_wanted_ip(uint64_t ip)
{
	return stack_bytes && (ip < exe_lo || ip >= exe_hi);
}

int memphis__stack_wanted_addr(const struct memphis__thread *t, uint64_t addr, uint64_t sp)
{
	uint64_t hi = t->stack_hi > sp ? t->stack_hi : sp + (8u << 20);

	if (!stack_bytes)
		return 0;
	if (t->stack_hi && addr >= t->stack_lo && addr < t->stack_hi)
		return 1;
	return sp >= 128 && addr >= sp - 128 && addr < hi;
}

/* The bytes of u an entry of thread t keeps: not past the thread's stack, whose top
 * ends its frames. */
static uint64_t kept_len(const struct memphis__thread *t, const struct memphis__ustack *u)
{
	uint64_t len = u->bytes ? u->len : 0, sp = u->regs[MPH_SP];

	if (t && t->stack_hi > sp && len > t->stack_hi - sp)
		len = t->stack_hi - sp;
	return len;
}

uint64_t memphis__stack_signature(const struct memphis__thread *t, const struct memphis__ustack *u)
{
	static const int regs[] = { MPH_IP, MPH_SP, MPH_BX, MPH_BP, MPH_R12, MPH_R13, MPH_R14,
				    MPH_R15 };
	uint64_t len = kept_len(t, u), h = len, w;

	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		h = mph_hash64(h ^ u->regs[regs[i]]);
	for (uint64_t o = 0; o < len; o += 8) {
		w = 0;
		memcpy(&w, u->bytes + o, len - o < 8 ? len - o : 8);
		h = (h ^ w) * MPH_GOLDEN64;
		h ^= h >> 29;
	}
	h = mph_hash64(h);
	return h ? h : 1;
}

/* Most own entries a buffer holds: each takes at least its header. */
#define MAX_OWN (MEMPHIS__STACK_BUF_MAX / sizeof(struct memphis_rec_stack))
/* The largest DELTA entry built: header, every register, word map and word. */
#define DELTA_MAX (sizeof(struct memphis_rec_stack_delta) + 8 * MEMPHIS_STACK_NREGS + \
		   8 * (MEMPHIS__STACK_BYTES_MAX / 8 / 64 + 1) + MEMPHIS__STACK_BYTES_MAX)

/* In STACKS layout 2, the entry e just written whole at b->n (need bytes) rewritten as a
 * DELTA of the own entry mph_stk2_base picks where that takes at most a quarter of need;
 * else remembered as an own entry. Returns the entry's bytes. */
static size_t as_delta(struct memphis__stackbuf *b, const struct memphis_rec_stack *e, size_t need)
{
	const unsigned char *bytes = b->p + b->n + sizeof(*e);
	struct mph_stk2_key key = { e->regs[MPH_SP], e->tid, e->stack_len };
	long i;

	if (memphis__writer_layout(MPH_BLK_STACKS) < 2)
		return need;
	if (!b->own && !b->nodelta) {
		b->own = memphis__lib_malloc(MAX_OWN * sizeof(*b->own));
		b->own_key = memphis__lib_malloc(MAX_OWN * sizeof(*b->own_key));
		b->delta = memphis__lib_malloc(DELTA_MAX);
		if (!b->own || !b->own_key || !b->delta) {
			memphis__lib_free(b->own);
			memphis__lib_free(b->own_key);
			memphis__lib_free(b->delta);
			b->own = NULL;
			b->own_key = NULL;
			b->delta = NULL;
		}
	}
	/* an own entry the table misses shifts the indices: none after it in this buffer */
	if (!b->own || b->nodelta || b->nown >= MAX_OWN) {
		b->nodelta = 1;
		return need;
	}
	if (e->stack_len && e->stack_len <= MEMPHIS__STACK_BYTES_MAX &&
	    (i = mph_stk2_base(b->own_key, b->nown, &key)) >= 0) {
		const struct memphis_rec_stack *base =
			(const struct memphis_rec_stack *)(b->p + b->own[i]);
		size_t size = mph_stk2_delta(e, bytes, base, (const unsigned char *)(base + 1),
					     (uint32_t)i, b->delta);

		if (4 * size <= need) {
			memcpy(b->p + b->n, b->delta, size);
			return size;
		}
	}
	b->own[b->nown] = (uint32_t)b->n;
	b->own_key[b->nown++] = key;
	return need;
}

int memphis__stackbuf_add(struct memphis__stackbuf *b, uint16_t kind, uint64_t time,
			  const struct memphis__thread *t, uint32_t tid,
			  const struct memphis__ustack *u)
{
	struct memphis_rec_stack e = { .time = time, .tid = tid, .kind = kind };
	uint64_t len;
	size_t need;

	if (!u->regs)
		return -EINVAL;
	memcpy(e.regs, u->regs, sizeof(e.regs));
	len = kept_len(t, u);
	e.stack_len = (uint32_t)len;
	need = sizeof(e) + ((len + 7) & ~7ull);
	if (b->n + need > MEMPHIS__STACK_BUF_MAX)
		return -ENOSPC;
	if (!b->p) {
		b->p = memphis__lib_malloc(MEMPHIS__STACK_BUF_MAX);
		if (!b->p)
			return -ENOMEM;
	}
	memcpy(b->p + b->n, &e, sizeof(e));
	if (len)
		memcpy(b->p + b->n + sizeof(e), u->bytes, len);
	memset(b->p + b->n + sizeof(e) + len, 0, need - sizeof(e) - len);
	need = as_delta(b, &e, need);
	b->n += need;
	b->count++;
	return 0;
}

int memphis__stackbuf_write(struct memphis__stackbuf *b, int cpu)
{
	int err = 0;

	if (b->n)
		err = memphis__writer_block(cpu, MPH_BLK_STACKS, b->p, b->n);
	b->n = 0;
	b->count = 0;
	b->nown = 0;
	b->nodelta = 0;
	return err;
}

void memphis__stackbuf_free(struct memphis__stackbuf *b)
{
	memphis__lib_free(b->p);
	memphis__lib_free(b->own);
	memphis__lib_free(b->own_key);
	memphis__lib_free(b->delta);
	memset(b, 0, sizeof(*b));
}
