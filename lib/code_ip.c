/* lib/code_ip.c - struct memphis__code, per sampled IP: from a sampled IP of this process to
 * the execution predecessor and its decoded memory access (lib/insn.h, DESIGN §3.1), with
 * one linear sweep per function and a bounded table of answers. Where code lies (maps,
 * symbols, bytes) comes from lib/code.c; the caches are described there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libelf.h>

#include "memphis/format.h"
#include "code.h"
#include "io.h"

/* ---- per-function sweeps ------------------------------------------------------------ */

static uint32_t hash64(uint64_t x, uint32_t mask)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (uint32_t)x & mask;
}

static void funcs_clear(struct memphis__code *c)
{
	if (!c->funcs)
		return;
	for (uint32_t i = 0; i < CODE_FUNCS_SLOTS; i++) {
		if (c->funcs[i].start)
			memphis__sweep_release(&c->funcs[i].sweep);
		c->funcs[i].start = 0;
	}
	c->funcs_used = 0;
	c->sweep_bytes = 0;
}

/* The sweep of the function [start, start + size), decoding it on first use. Returns
 * NULL when its bytes cannot be read or memory is short (the caller votes). */
static const struct memphis__sweep *func_sweep(struct memphis__code *c, uint64_t start,
					       uint64_t size)
{
	uint32_t mask = CODE_FUNCS_SLOTS - 1, h;
	struct memphis__sweep s;
	size_t got;

	if (!c->funcs) {
		c->funcs = calloc(CODE_FUNCS_SLOTS, sizeof(*c->funcs));
		if (!c->funcs)
			return NULL;
	}
	for (h = hash64(start, mask); c->funcs[h].start; h = (h + 1) & mask)
		if (c->funcs[h].start == start)
			return &c->funcs[h].sweep;

	if (size > c->scratch_cap) {
		size_t cap = c->scratch_cap ? c->scratch_cap : 4096;
		uint8_t *p;

		while (cap < size)
			cap *= 2;
		p = realloc(c->scratch, cap);
		if (!p)
			return NULL;
		c->scratch = p;
		c->scratch_cap = cap;
	}
	got = memphis__code_read(c, start, c->scratch, size);
	if (!got || memphis__insn_sweep(c->scratch, got, start, &s) < 0)
		return NULL;
	c->st.sweeps++;
	if (c->funcs_used >= CODE_FUNCS_MAX ||
	    c->sweep_bytes + memphis__sweep_bytes(&s) > CODE_SWEEP_BYTES) {
		c->st.flushes++;
		funcs_clear(c);
		for (h = hash64(start, mask); c->funcs[h].start; h = (h + 1) & mask)
			;
	}
	c->funcs[h].start = start;
	c->funcs[h].sweep = s;
	c->funcs_used++;
	c->sweep_bytes += memphis__sweep_bytes(&s);
	return &c->funcs[h].sweep;
}

/* ---- resolving one sampled IP ------------------------------------------------------- */

/* Vote for the predecessor of ip over the CODE_VOTE_BYTES before it, not reaching below
 * `floor` (the start of its mapping or function). Returns it or 0. */
static uint64_t vote(struct memphis__code *c, uint64_t ip, uint64_t floor)
{
	uint8_t buf[CODE_VOTE_BYTES];
	uint64_t from = ip - floor < CODE_VOTE_BYTES ? floor : ip - CODE_VOTE_BYTES;
	size_t n = (size_t)(ip - from);

	if (!n || memphis__code_read(c, from, buf, n) != n)
		return 0;
	return memphis__insn_predecessor_vote(buf, n, ip);
}

/* Work out the predecessor of e->ip and decode it into e (pred 0: none). */
static void resolve(struct memphis__code *c, struct ipent *e)
{
	uint64_t ip = e->ip, start = 0, size = 0, pred = 0;
	uint8_t buf[16];
	struct module *mod;
	struct map *m;
	size_t got;
	int have = 0, linear;

	e->pred = 0;
	if (ip >= CODE_USER_END)
		return; /* not a user-space address: do not re-read maps for it */
	m = memphis__code_map_find(c, ip);
	if (!m)
		return; /* unmapped: NOPRED|NOADDR */
	/* A rep string instruction is interrupted between its iterations and resumed at its
	 * own address: the sample is its own, and rsi/rdi are where the next iteration reads
	 * and writes (glibc's memcpy/memset copy large blocks so, with rep movsb/stosb). */
	got = memphis__code_read(c, ip, buf, sizeof(buf) - 1);
	if (got && memphis__insn_decode(buf, got, ip, &e->insn) == 0 && e->insn.rep_string &&
	    e->insn.is_mem) {
		e->insn.clobbers = 0;
		e->pred = ip;
		c->st.rep_string++;
		return;
	}
	mod = memphis__code_map_module(c, m);
	if (mod && memphis__code_module_func(mod, ip, &start, &size) && size <= CODE_FUNC_MAX) {
		const struct memphis__sweep *s = func_sweep(c, start, size);

		if (s) {
			int r = memphis__sweep_predecessor(s, ip, &pred);

			if (r == 0) {
				c->st.by_sweep++;
				return; /* function entry, or after call/jmp/ret */
			}
			have = r > 0;
		}
		if (have)
			c->st.by_sweep++;
	}
	if (!have) {
		pred = vote(c, ip, mod && start > m->start && start <= ip ? start : m->start);
		c->st.by_vote++;
	}
	/* The predecessor either ends at ip (linear) or is a branch whose target is ip (a
	 * back-edge, possibly after ip); only a linear one is refused for breaking the flow. */
	got = pred ? memphis__code_read(c, pred, buf, sizeof(buf) - 1) : 0;
	if (!got || memphis__insn_decode(buf, got, pred, &e->insn) < 0)
		return;
	linear = pred + e->insn.length == ip;
	if (!(e->insn.is_branch && e->insn.branch_target == ip) &&
	    (!linear || e->insn.breaks_flow))
		return;
	e->pred = pred;
}

/* ---- the IP table ------------------------------------------------------------------- */

static void ips_clear(struct memphis__code *c)
{
	if (c->ips)
		memset(c->ips, 0, c->ips_cap * sizeof(*c->ips));
	c->ips_used = 0;
}

/* Double the IP table (rehashing) up to CODE_IPS_MAX; at the cap, empty it instead.
 * Returns 0 or -ENOMEM (the table is then as before). */
static int ips_grow(struct memphis__code *c)
{
	uint32_t ncap = c->ips ? c->ips_cap * 2 : CODE_IPS_MIN;
	struct ipent *n;

	if (c->ips && ncap > CODE_IPS_MAX) {
		c->st.flushes++;
		ips_clear(c);
		return 0;
	}
	n = calloc(ncap, sizeof(*n));
	if (!n)
		return -ENOMEM;
	for (uint32_t i = 0; c->ips && i < c->ips_cap; i++) {
		uint32_t h;

		if (!c->ips[i].ip)
			continue;
		for (h = hash64(c->ips[i].ip, ncap - 1); n[h].ip; h = (h + 1) & (ncap - 1))
			;
		n[h] = c->ips[i];
	}
	free(c->ips);
	c->ips = n;
	c->ips_cap = ncap;
	return 0;
}

/* ---- public (internal) API ---------------------------------------------------------- */

/* Contract in insn.h. */
struct memphis__code *memphis__code_new(void)
{
	struct memphis__code *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->elf_ok = elf_version(EV_CURRENT) != EV_NONE;
	c->pipefd[0] = c->pipefd[1] = -1;
	if (ips_grow(c) < 0) {
		free(c);
		return NULL;
	}
	return c;
}

/* Contract in insn.h. */
void memphis__code_invalidate(struct memphis__code *c)
{
	if (!c)
		return;
	ips_clear(c);
	funcs_clear(c);
	memphis__code_forget_files(c);
}

/* The code pipe is the I/O thread's (code.c). */
static long close_pipe(void *arg)
{
	struct memphis__code *c = arg;

	memphis__fd_close(&c->pipefd[0], &c->pipeid[0]);
	memphis__fd_close(&c->pipefd[1], &c->pipeid[1]);
	return 0;
}

/* Contract in insn.h. */
void memphis__code_free(struct memphis__code *c)
{
	if (!c)
		return;
	memphis__code_invalidate(c);
	free(c->funcs);
	free(c->ips);
	free(c->scratch);
	memphis__io_read(close_pipe, c);
	free(c);
}

/* The IP table slot for ip: its entry, or a free slot to fill (growing or emptying the
 * table first when it is too full), or NULL when neither is possible. *found says which. */
static struct ipent *ips_slot(struct memphis__code *c, uint64_t ip, int *found)
{
	uint32_t mask, h;

	*found = 0;
	if (!c->ips)
		return NULL;
	mask = c->ips_cap - 1;
	for (h = hash64(ip, mask); c->ips[h].ip; h = (h + 1) & mask)
		if (c->ips[h].ip == ip) {
			*found = 1;
			return &c->ips[h];
		}
	if ((c->ips_used + 1) * 2 > c->ips_cap) {
		if (ips_grow(c) < 0 && (c->ips_used + 1) * 4 > c->ips_cap * 3)
			return NULL; /* no memory to grow and too full to insert */
		mask = c->ips_cap - 1;
		for (h = hash64(ip, mask); c->ips[h].ip; h = (h + 1) & mask)
			;
	}
	return &c->ips[h];
}

/* Contract in insn.h. */
unsigned memphis__code_attribute(struct memphis__code *c, uint64_t sampled_ip,
				 const struct memphis__regs *regs, uint64_t *ip,
				 uint64_t *data_addr)
{
	struct ipent local, *e;
	const struct memphis__insn *in;
	struct memphis__insn other;
	unsigned f;
	int found;

	*ip = sampled_ip;
	*data_addr = 0;
	if (!c || !regs || !sampled_ip)
		return MPH_S_NOPRED | MPH_S_NOADDR;
	e = ips_slot(c, sampled_ip, &found);
	if (found) {
		c->st.hits++;
	} else {
		if (!e)
			e = &local; /* no room and no memory: answer without caching */
		else
			c->ips_used++;
		memset(e, 0, sizeof(*e));
		e->ip = sampled_ip;
		resolve(c, e);
		c->st.misses++;
		c->st.no_pred += !e->pred;
	}
	if (!e->pred)
		return MPH_S_NOPRED | MPH_S_NOADDR;
	*ip = e->pred;
	in = &e->insn;
	if (in->rep_string && in->base2 != MEMPHIS__REG_NONE && (e->second ^= 1)) {
		/* rep movs reads and writes as much: every other sample is the write's */
		other = *in;
		other.base = other.base2;
		other.is_load = !other.store2;
		other.is_store = other.store2;
		in = &other;
	}
	f = memphis__insn_address(in, e->pred, regs, data_addr);
	if (in->is_load)
		f |= MPH_S_LOAD;
	if (in->is_store)
		f |= MPH_S_STORE;
	return f;
}

/* Contract in insn.h. The answers share the IP table, keyed by user_ip with bit 63 set
 * (no user address has it). */
unsigned memphis__code_attribute_entry(struct memphis__code *c, uint64_t user_ip,
				       const struct memphis__regs *regs, uint64_t *ip,
				       uint64_t *data_addr)
{
	struct ipent local, *e;
	uint8_t b[16];
	size_t n;
	unsigned f;
	int found;

	*ip = user_ip;
	*data_addr = 0;
	if (!c || !regs || !user_ip || user_ip >= CODE_USER_END)
		return MPH_S_NOPRED | MPH_S_NOADDR;
	e = ips_slot(c, user_ip | 1ull << 63, &found);
	if (!e)
		e = &local;
	if (!found) {
		if (e != &local)
			c->ips_used++;
		memset(e, 0, sizeof(*e));
		e->ip = user_ip | 1ull << 63;
		if (user_ip >= 2 && memphis__code_read(c, user_ip - 2, b, 2) == 2 && b[0] == 0x0f &&
		    b[1] == 0x05) {
			e->pred = user_ip - 2; /* insn zeroed: no memory operand */
		} else if ((n = memphis__code_read(c, user_ip, b, sizeof(b))) > 0 &&
			   memphis__insn_decode(b, n, user_ip, &e->insn) == 0) {
			e->pred = user_ip;
		}
	}
	if (!e->pred)
		return MPH_S_NOPRED | MPH_S_NOADDR;
	*ip = e->pred;
	if (e->pred != user_ip)
		return MPH_S_NONMEM | MPH_S_SYSCALL;
	f = memphis__insn_address(&e->insn, e->pred, regs, data_addr);
	if (e->insn.is_load)
		f |= MPH_S_LOAD;
	if (e->insn.is_store)
		f |= MPH_S_STORE;
	return f;
}

/* Contract in insn.h. */
void memphis__code_stats(const struct memphis__code *c, struct memphis__code_stats *out)
{
	if (c)
		*out = c->st;
	else
		memset(out, 0, sizeof(*out));
}
