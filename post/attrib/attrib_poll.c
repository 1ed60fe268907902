/* post/attrib/attrib_poll.c - the variable a poll loop of the program polls (attrib.h:
 * mr_attrib_poll_var), from a sample's registers and stack: above attrib_resolve.c, whose
 * data attribution it asks, and attrib_runtime.c, which finds the loops. */
#include "attrib_impl.h"

#include "binary/debuginfo.h"
#include "binary/pollloop.h"

uint32_t mr_attrib_poll_var(struct mr_attrib_ctx *c, const struct memphis_rec_sample *s,
			    const struct memphis_rec_stack *st, const uint8_t *bytes)
{
	/* perf's register order (format.h) -> x86's: rax rcx rdx rbx rsp rbp rsi rdi r8-r15 */
	static const uint8_t from_perf[16] = { 0, 2, 3, 1, 7, 6, 4, 5, 9, 10, 11, 12, 13, 14, 15, 16 };
	uint8_t code[MR_POLL_MAX_BYTES + 16];
	struct mr_poll_regs r = { .stack = bytes, .stack_len = st ? st->stack_len : 0 };
	uint64_t head = mr_attrib_poll_head(c, s->ip, s->time), addr[4], t0, t1;
	struct mr_attrib *a = c->a;
	uint32_t first = 0;
	struct span *sp;
	ssize_t n = -1;
	size_t k;

	if (!head || !st || st->kind != MPH_STACK_SAMPLE)
		return 0;
	for (int i = 0; i < 16; i++)
		r.gpr[i] = st->regs[from_perf[i]];
	pthread_mutex_lock(&a->lock);
	a->holder = c;
	sp = attrib_span_at(a, head, s->time, &t0, &t1);
	if (sp)
		n = mr_debuginfo_code(a->obj[sp->obj].di, head - sp->bias, code, sizeof(code));
	a->holder = NULL;
	pthread_mutex_unlock(&a->lock);
	if (n <= 0)
		return 0;
	k = mr_poll_reads(code, (size_t)n, 0, head, &r, addr, sizeof(addr) / sizeof(addr[0]));
	for (size_t i = 0; i < k; i++) {
		int own = attrib_on_own_stack(a, addr[i], s->time, s->tid);
		uint32_t v;

		if (own && first)
			continue;
		v = attrib_data_ctx(c, addr[i], s->time, s->tid);
		if (v && !own)
			return v;
		first = first ? first : v;
	}
	return first;
}
