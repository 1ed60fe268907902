/* post/attrib/attrib_caller.c - the line of a sample or first touch in runtime code, told by its
 * caller: when the instruction is in a runtime library (libc, libm, libgomp, libgfortran,
 * ...) or has no source line, and the record has a STACKS entry, its line is the first
 * frame of the unwound chain with source in no runtime library, "cg.c:391 (in memmove)"
 * (the function of the sampled instruction in parentheses).
 *
 * Each user of it (a pass context, or the attribution itself for first touches) has its
 * own struct attrib_callers: an unwinder for the maps snapshot in force and caches: what
 * each instruction is (own line, or runtime code), how each frame gives its caller's (its
 * CFI's rule, when it is SP or BP plus a constant), and the answer for a chain of return
 * addresses. An entry is answered by replaying the rules on a few of its stack words: from
 * the chains cached, else up to its first frame with a user line; libdw unwinds only what
 * the rules cannot replay. An entry whose registers and stack words that answer depends on
 * equal those of an entry answered from the chains before has its answer (the memo: a
 * thread waiting in one system call over and over). The catalog and the objects are used
 * under the attribution's lock, the unwinding not.
 *
 * A frame of libmemphis's own work met before any user line (attrib_self.c: not one of its
 * interposers) makes the sample the library's: SELF_LINE is the answer, and the pass sets
 * it aside (libgcc_s unwinding an allocation's call site, memcpy copying its record). */
#include "attrib_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binary/unwind.h"
#include "u64map.h"

/* what an instruction is (struct attrib_callers' kind map) */
#define KIND_OWN 1u     /* it has its own source line: no caller asked */
#define KIND_RUNTIME 2u /* runtime code, or no source line: its caller tells the line */
#define KIND_SELF 3u    /* libmemphis's own work: what it called is the library's */

/* The memo's sets (by ip, SP and thread) and ways: one wait in a runtime library called
 * from several lines in turn (cg's three barriers, at one depth) has an answer per line;
 * and the stack words a slot compares: two a frame (return address, saved BP) */
#define MEMO_BITS 6
#define MEMO_WAYS 4
#define MEMO_WORDS (2 * MR_UNWIND_MAX_FRAMES)

/* An entry answered from the chains: what its replay read, and the answer. */
struct caller_memo {
	uint64_t ip, pc, sp, bp; /* the sample's ip, the entry's IP, SP and BP */
	uint32_t stack_len, id;
	uint32_t nw;              /* words read; 0: the slot is empty */
	uint32_t use_bp;          /* a frame's CFA came from the entry's BP: bp compared */
	uint32_t off[MEMO_WORDS]; /* their offsets in the stack bytes */
	uint64_t w[MEMO_WORDS];   /* their values */
};

struct attrib_callers {
	struct mr_attrib *a;
	struct mr_attrib_ctx *ctx;  /* the lock holder's context (NULL: the attribution's own) */
	struct mr_unwind *u;        /* NULL until needed */
	uint64_t t;                 /* the time of the entry being unwound */
	uint64_t t0, t1;            /* the snapshot the unwinder and the maps hold for */
	struct mph_u64map kind;     /* ip -> KIND_* */
	struct mph_u64map rule;     /* frame's code address (sampled ip, or return address - 1)
				     * -> its rule packed (rule_of); 0: none to replay */
	struct mph_u64map by_chain; /* mix of (ip, return addresses up to the answer) -> line id
				     * (0: no frame with a user line) */
	struct caller_memo memo[MEMO_WAYS << MEMO_BITS]; /* set s: [s * MEMO_WAYS ...) */
	uint8_t memo_next[1u << MEMO_BITS];               /* each set's way to replace next */
};

/* Under the lock: code address pc (at time t) has a source line in no runtime library
 * (nor libmemphis: its interposers and thread start are no line of the user's); its
 * "file:line" into buf and its function into func. */
static int user_line(struct mr_attrib *a, uint64_t pc, uint64_t t, char *buf, size_t len,
		     char *func, size_t flen)
{
	uint64_t t0, t1;
	struct span *sp = attrib_span_at(a, pc, t, &t0, &t1);

	if (!sp || a->obj[sp->obj].runtime_code || a->obj[sp->obj].is_self ||
	    attrib_self_code(a, sp->obj, pc - sp->bias))
		return 0;
	return attrib_describe_code(a, pc, t, buf, len, func, flen);
}

/* Under the lock: code address pc (at time t) is in libmemphis's own work (attrib_self.c). */
static int self_work(struct mr_attrib *a, uint64_t pc, uint64_t t)
{
	uint64_t t0, t1;
	struct span *sp = attrib_span_at(a, pc, t, &t0, &t1);

	return sp && attrib_self_work(a, sp->obj, pc - sp->bias);
}

static void lock(struct attrib_callers *cs)
{
	pthread_mutex_lock(&cs->a->lock);
	cs->a->holder = cs->ctx;
}

static void unlock(struct attrib_callers *cs)
{
	cs->a->holder = NULL;
	pthread_mutex_unlock(&cs->a->lock);
}

/* mr_unwind_module_fn: the object at pc in the snapshot of the entry's time. */
static int module_at(void *arg, uint64_t pc, const char **file, uint64_t *bias)
{
	struct attrib_callers *cs = arg;
	uint64_t t0, t1;
	struct span *sp;
	int rc = -1;

	lock(cs);
	sp = attrib_span_at(cs->a, pc, cs->t, &t0, &t1);
	if (sp) {
		*file = cs->a->obj[sp->obj].file;
		*bias = sp->bias;
		rc = 0;
	}
	unlock(cs);
	return rc;
}

static int maps_init(struct attrib_callers *cs)
{
	if (mph_u64map_init(&cs->kind, 256) || mph_u64map_init(&cs->rule, 256) ||
	    mph_u64map_init(&cs->by_chain, 1024))
		return -ENOMEM;
	return 0;
}

static void maps_free(struct attrib_callers *cs)
{
	mph_u64map_free(&cs->kind);
	mph_u64map_free(&cs->rule);
	mph_u64map_free(&cs->by_chain);
}

struct attrib_callers *attrib_callers_new(struct mr_attrib *a, struct mr_attrib_ctx *ctx)
{
	struct attrib_callers *cs = calloc(1, sizeof(*cs));

	if (!cs)
		return NULL;
	cs->a = a;
	cs->ctx = ctx;
	return cs; /* the unwinder and the maps come with the first entry (at_time) */
}

void attrib_callers_free(struct attrib_callers *cs)
{
	if (!cs)
		return;
	mr_unwind_free(cs->u);
	maps_free(cs);
	free(cs);
}

/* Make the unwinder and the caches hold for time t: a new snapshot starts afresh (its
 * objects may lie elsewhere). Returns 0 or -ENOMEM. */
static int at_time(struct attrib_callers *cs, uint64_t ip, uint64_t t)
{
	uint64_t t0 = 0, t1 = UINT64_MAX;

	if (cs->u && t >= cs->t0 && t < cs->t1)
		return 0;
	lock(cs);
	attrib_span_find(cs->a, ip, t, &t0, &t1);
	unlock(cs);
	mr_unwind_free(cs->u);
	maps_free(cs);
	cs->u = mr_unwind_new(module_at, cs);
	if (!cs->u || maps_init(cs) < 0) {
		mr_unwind_free(cs->u);
		cs->u = NULL; /* the next call tries again */
		return -ENOMEM;
	}
	cs->t0 = t0;
	cs->t1 = t1;
	memset(cs->memo, 0, sizeof(cs->memo));
	memset(cs->memo_next, 0, sizeof(cs->memo_next));
	return 0;
}

/* The chain key of an entry at ip with stack_len bytes of stack, before any return
 * address: the length is in it because a chain that ran out of stack bytes (cut) is
 * cut alike only in entries of the same length. */
static uint64_t chain_start(uint64_t ip, const struct memphis_rec_stack *st)
{
	return mph_hash64(ip ^ ((uint64_t)st->stack_len << 48));
}

/* The chain key h extended by return address ra (never MPH_U64MAP_EMPTY). */
static uint64_t chain_mix(uint64_t h, uint64_t ra)
{
	uint64_t k = mph_hash64(h ^ (ra * MPH_GOLDEN64));

	return k == MPH_U64MAP_EMPTY ? 0 : k;
}

/* A frame's rule packed for the rule map: RULE_OK and flags, BP's offset (16 bits) and
 * the CFA's (32 bits); 0 when pc has none to replay (or BP's offset is out of range). */
#define RULE_OK 1u
#define RULE_CFA_BP 2u
#define RULE_BP_SAVED 4u

static uint64_t rule_of(struct attrib_callers *cs, uint64_t pc)
{
	struct mr_unwind_rule r;

	if (mr_unwind_rule(cs->u, pc, &r) || r.bp_off < INT16_MIN || r.bp_off > INT16_MAX)
		return 0;
	return RULE_OK | (r.cfa_bp ? RULE_CFA_BP : 0) | (r.bp_saved ? RULE_BP_SAVED : 0) |
	       (uint64_t)(uint16_t)r.bp_off << 16 | (uint64_t)(uint32_t)r.cfa_off << 32;
}

/* The packed rule of code address pc (rule_of), learnt once: NULL when out of memory. */
static uint64_t *rule_at(struct attrib_callers *cs, uint64_t pc)
{
	uint64_t *v = mph_u64map_get(&cs->rule, pc);

	return v ? v : mph_u64map_put(&cs->rule, pc, rule_of(cs, pc));
}

/* mr_unwind_replay of packed rule v (rule_of). */
static int replay(uint64_t v, const struct memphis_rec_stack *st, const uint8_t *bytes,
		  uint64_t *sp, uint64_t *bp, uint64_t *ra)
{
	struct mr_unwind_rule r = { .cfa_off = (int32_t)(v >> 32), .bp_off = (int16_t)(v >> 16),
				    .cfa_bp = (v & RULE_CFA_BP) != 0,
				    .bp_saved = (v & RULE_BP_SAVED) != 0 };

	return mr_unwind_replay(&r, st, bytes, sp, bp, ra);
}

/* The answer cached for entry st at ip: replay its frames by the rules learnt and look each
 * longer chain of return addresses up. Frame 0 runs at the entry's own IP, as the unwinder
 * has it (the sample's ip may be the instruction before: the software sampler's). Returns
 * 1 with *id and, in m, what the answer depends on: the offsets of the return addresses
 * and of the saved BPs a later frame's CFA came from (two words a frame at most), and
 * use_bp when one came from the entry's BP. A BP no CFA came from changes nothing (code
 * built without frame pointers keeps data in it: a thread waiting in one system call over
 * and over saves a new value each time). 0 when no chain is known (m overwritten). */
static int cached(struct attrib_callers *cs, uint64_t ip, const struct memphis_rec_stack *st,
		  const uint8_t *bytes, uint32_t *id, struct caller_memo *m)
{
	uint64_t pc = st->regs[8], h = chain_start(ip, st), ra, *v;
	uint64_t sp = st->regs[7], bp = st->regs[6];
	uint32_t nw = 0, bp_word = 0; /* bp_word: BP's offset in the bytes when it was read */
	int bp_read = 0;

	m->use_bp = 0;
	for (int i = 0; i + 1 < MR_UNWIND_MAX_FRAMES; i++) {
		v = mph_u64map_get(&cs->rule, i ? pc - 1 : pc);
		if (!v || !*v)
			return 0;
		if ((*v & RULE_CFA_BP) && bp_read)
			m->off[nw++] = bp_word;
		else if (*v & RULE_CFA_BP)
			m->use_bp = 1;
		if (replay(*v, st, bytes, &sp, &bp, &ra))
			return 0;
		/* the return address below the CFA, which is the new SP; the saved BP at its
		 * offset from it (a word inside the bytes: the replay read it) */
		m->off[nw++] = (uint32_t)(sp - 8 - st->regs[7]);
		if (*v & RULE_BP_SAVED) {
			bp_word = (uint32_t)(sp + (uint64_t)(int64_t)(int16_t)(*v >> 16) -
					     st->regs[7]);
			bp_read = 1;
		}
		h = chain_mix(h, ra);
		v = mph_u64map_get(&cs->by_chain, h);
		if (v) {
			*id = (uint32_t)*v;
			m->nw = nw;
			return 1;
		}
		pc = ra;
	}
	return 0;
}

/* The memo's set for entry st at ip. */
static uint32_t memo_set(uint64_t ip, const struct memphis_rec_stack *st)
{
	return (uint32_t)mph_fib_slot(ip ^ st->regs[7] ^ st->tid, MEMO_BITS);
}

/* Whether memo m holds the answer for entry st at ip: the registers the replay starts from
 * (BP where a CFA came from it), the length and every word the answer depends on are
 * equal, so the chain is. */
static int memo_holds(const struct caller_memo *m, uint64_t ip, const struct memphis_rec_stack *st,
		      const uint8_t *bytes)
{
	if (!m->nw || m->ip != ip || m->pc != st->regs[8] || m->sp != st->regs[7] ||
	    (m->use_bp && m->bp != st->regs[6]) || m->stack_len != st->stack_len)
		return 0;
	for (uint32_t i = 0; i < m->nw; i++) {
		uint64_t w;

		memcpy(&w, bytes + m->off[i], 8);
		if (w != m->w[i])
			return 0;
	}
	return 1;
}

/* Entry st at ip, answered id by cached (which left what it depends on in m), into memo
 * m. */
static void memo_keep(struct caller_memo *m, uint64_t ip, const struct memphis_rec_stack *st,
		      const uint8_t *bytes, uint32_t id)
{
	m->ip = ip;
	m->pc = st->regs[8];
	m->sp = st->regs[7];
	m->bp = st->regs[6];
	m->stack_len = st->stack_len;
	m->id = id;
	for (uint32_t i = 0; i < m->nw; i++)
		memcpy(&m->w[i], bytes + m->off[i], 8);
}

/* Cache the answer id of the unwound chain f[0..n) of entry st at ip: keyed by its stack
 * length and return addresses up to the frame that gave the line (user, > 0), or all of
 * them when none did (then any entry with these frames ends alike: by itself, or cut at
 * the same byte, its length being the same; first touches in a runtime's code, such as
 * libgomp's thread start, were unwound once per fault before), when every frame's rule
 * replays to the unwound chain. */
static void remember(struct attrib_callers *cs, uint64_t ip, const struct memphis_rec_stack *st,
		     const uint8_t *bytes, const struct mr_frame *f, int n, int user, uint32_t id)
{
	int m = user ? user : n - 1;
	uint64_t h = chain_start(ip, st), sp = st->regs[7], bp = st->regs[6], ra, *v;

	for (int i = 0; i < m; i++) {
		uint64_t pc = i ? f[i].pc - 1 : st->regs[8];

		if (!(v = rule_at(cs, pc)))
			return;
		if (!*v || replay(*v, st, bytes, &sp, &bp, &ra))
			return;
		if (ra != f[i + 1].pc || sp != f[i].cfa)
			return;
		h = chain_mix(h, ra);
	}
	if (m > 0)
		mph_u64map_put(&cs->by_chain, h, id);
}

/* What instruction ip is: KIND_OWN, KIND_RUNTIME or KIND_SELF (cached). 0 when out of
 * memory. */
static uint64_t *ip_kind(struct attrib_callers *cs, uint64_t ip, uint64_t t)
{
	uint64_t *k = mph_u64map_get(&cs->kind, ip);
	char buf[512], func[256];
	unsigned v;

	if (k)
		return k;
	lock(cs);
	if (user_line(cs->a, ip, t, buf, sizeof(buf), func, sizeof(func)))
		v = KIND_OWN;
	else
		v = self_work(cs->a, ip, t) ? KIND_SELF : KIND_RUNTIME;
	unlock(cs);
	return mph_u64map_put(&cs->kind, ip, v);
}

/* Under the lock: the name of the function at ip for "(in NAME)": its symbol, else the
 * object's name (a static function of a stripped library). */
static void via_name(struct mr_attrib *a, uint64_t ip, uint64_t t, char *via, size_t len)
{
	char where[512];
	uint64_t t0, t1;
	struct span *sp;

	attrib_describe_code(a, ip, t, where, sizeof(where), via, len);
	if (via[0])
		return;
	sp = attrib_span_at(a, ip, t, &t0, &t1);
	snprintf(via, len, "%s", sp ? a->obj[sp->obj].base : "??");
}

/* Under the lock: the line id of "WHERE (in FUNC)", where a caller of the instruction ip
 * is, FUNC ip's function (0 when out of memory). */
static uint32_t caller_id(struct mr_attrib *a, uint64_t ip, const char *where, uint64_t t)
{
	char via[256], *name;
	uint32_t id;

	via_name(a, ip, t, via, sizeof(via));
	if (asprintf(&name, "%s (in %s)", where, via) < 0)
		return 0;
	id = attrib_intern_line(a, name);
	free(name);
	return id;
}

/* The answer for entry st at ip without libdw: its frames replayed by their rules (learnt,
 * or read from the CFI now: the rules libdw follows) up to the first frame with a user
 * line, which unwind_line would find too; cached as remember does. Returns 1 with *id, or
 * 0 when a frame has no rule to replay, a word lies outside the stack bytes, the chain ends
 * or no user frame comes within MR_UNWIND_MAX_FRAMES: then libdw tells. */
static int replayed(struct attrib_callers *cs, uint64_t ip, const struct memphis_rec_stack *st,
		    const uint8_t *bytes, uint32_t *id)
{
	uint64_t pc = st->regs[8], h = chain_start(ip, st), ra, *v, *k;
	uint64_t sp = st->regs[7], bp = st->regs[6];
	char where[512], func[256];

	cs->t = st->time; /* the snapshot module_at reports objects of */
	for (int i = 0; i + 1 < MR_UNWIND_MAX_FRAMES; i++) {
		if (!(v = rule_at(cs, i ? pc - 1 : pc)))
			return 0;
		if (!*v || replay(*v, st, bytes, &sp, &bp, &ra) || ra == 0)
			return 0;
		h = chain_mix(h, ra);
		if (!(k = ip_kind(cs, ra - 1, st->time)))
			return 0;
		if (*k == KIND_SELF) {
			*id = SELF_LINE;
			mph_u64map_put(&cs->by_chain, h, *id);
			return 1;
		}
		if (*k == KIND_OWN) {
			lock(cs);
			*id = user_line(cs->a, ra - 1, st->time, where, sizeof(where), func, sizeof(func))
				      ? caller_id(cs->a, ip, where, st->time) : 0;
			unlock(cs);
			if (!*id)
				return 0;
			mph_u64map_put(&cs->by_chain, h, *id);
			return 1;
		}
		pc = ra;
	}
	return 0;
}

/* Unwind entry st and find the first frame with a user line: its line id ("FILE:LINE (in
 * FUNC)"), or 0 when none; the answer is cached (remember). */
static uint32_t unwind_line(struct attrib_callers *cs, uint64_t ip, const struct memphis_rec_stack *st,
			    const uint8_t *bytes)
{
	struct mr_frame f[MR_UNWIND_MAX_FRAMES];
	char where[512], func[256];
	uint32_t id = 0;
	int n, user = 0;

	cs->t = st->time;
	n = mr_unwind_chain(cs->u, st, bytes, f, MR_UNWIND_MAX_FRAMES, NULL);
	if (n < 2)
		return 0;
	lock(cs);
	for (int i = 1; i < n && !user; i++) {
		if (self_work(cs->a, f[i].pc - 1, st->time)) {
			user = i;
			id = SELF_LINE;
			break;
		}
		if (!user_line(cs->a, f[i].pc - 1, st->time, where, sizeof(where), func, sizeof(func)))
			continue;
		user = i;
		id = caller_id(cs->a, ip, where, st->time);
	}
	unlock(cs);
	if (!user || id)
		remember(cs, ip, st, bytes, f, n, user, id);
	return id;
}

/* The line of instruction ip with STACKS entry st: see the top of the file. Returns the
 * caller's line id, SELF_LINE when the library's own work called it, or line when the
 * instruction has its own line or no caller has one. */
uint32_t attrib_caller_line(struct attrib_callers *cs, uint64_t ip, const struct memphis_rec_stack *st,
			    const uint8_t *bytes, uint32_t line, int *runtime)
{
	struct caller_memo *m, found;
	uint64_t *k;
	uint32_t id, set;
	int w;

	if (runtime)
		*runtime = 0;
	if (at_time(cs, ip, st->time) < 0 || !(k = ip_kind(cs, ip, st->time)) || *k == KIND_OWN)
		return line;
	if (*k == KIND_SELF)
		return SELF_LINE;
	set = memo_set(ip, st);
	m = &cs->memo[set * MEMO_WAYS];
	for (w = 0; w < MEMO_WAYS && !memo_holds(&m[w], ip, st, bytes); w++)
		;
	if (w < MEMO_WAYS) {
		id = m[w].id;
	} else if (cached(cs, ip, st, bytes, &id, &found)) {
		m += cs->memo_next[set];
		cs->memo_next[set] = (uint8_t)((cs->memo_next[set] + 1) % MEMO_WAYS);
		*m = found;
		memo_keep(m, ip, st, bytes, id);
	} else if (!replayed(cs, ip, st, bytes, &id)) {
		id = unwind_line(cs, ip, st, bytes);
	}
	if (runtime)
		*runtime = !id;
	return id ? id : line;
}

uint32_t mr_attrib_caller(struct mr_attrib *a, uint64_t ip, const struct memphis_rec_stack *st,
			  const uint8_t *bytes, uint32_t line, int *runtime)
{
	if (runtime)
		*runtime = 0;
	uint32_t id;

	if (!a->callers && !(a->callers = attrib_callers_new(a, NULL)))
		return line;
	id = attrib_caller_line(a->callers, ip, st, bytes, line, runtime);
	return id == SELF_LINE ? line : id; /* a first touch keeps its own line */
}

/* The function named in a caller's line ("cg.c:391 (in memmove)" -> "memmove"), into buf;
 * 0 when line is no caller's line. */
int mr_attrib_line_via(const char *name, char *buf, size_t len)
{
	const char *in = name ? strstr(name, " (in ") : NULL;
	size_t n;

	if (!in || !(n = strlen(in + 5)) || in[5 + n - 1] != ')')
		return 0;
	snprintf(buf, len, "%.*s", (int)(n - 1), in + 5);
	return 1;
}
