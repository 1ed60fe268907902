/* lib/place.c - the placement layer of `memphis apply` (place.h, docs/apply.md).
 *
 * The plan (post/plan_cmd.c writes it) is parsed once into a fixed table: no allocation,
 * so the heap path can run it from any thread at any time. Each placement is one mbind(2)
 * per range of one node (and a second with MPOL_MF_MOVE for pages already in memory:
 * bind_range), on the pages wholly inside the object: a page it shares with a neighbour
 * keeps the neighbour's placement (in the 2-node guest, q's partition took the page it
 * shares with cg's unplaced p to node 0, and node 1's remote share of p rose 5 points).
 * Counts are atomics. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"
#include "place.h"

#define MAX_VARS 64
#define MAX_FRAMES 8
#define MAX_LIST 256      /* nodes of an interleave, blocks of a partition */
#define MAX_NODE 1024     /* node numbers below this */
#define MAX_CALLS 16384   /* mbind calls in all: each may split a mapping in three, and
			   * vm.max_map_count is 65530 by default */
#define MPOL_PREFERRED_ 1
#define MPOL_BIND_ 2
#define MPOL_INTERLEAVE_ 3
#define MPOL_WEIGHTED_INTERLEAVE_ 6 /* Linux 6.9: weights from sysfs, system-wide */
#define STRIPES 64                  /* a weighted interleave by stripes: at most this many
				     * stripes per unit of weight in an object */
#define MPOL_MF_MOVE_ (1 << 1)

enum policy { MOVE, PARTITIONED, INTERLEAVE };
static const char *const policy_name[] = { "move", "partitioned", "interleave" };

struct pvar {
	char name[200];
	enum policy policy;
	int bind;
	int is_sym;
	uint64_t vaddr, size;                   /* sym */
	uint32_t nframes;                       /* site: frame[k] with any[k] == 0 must match */
	uint64_t frame[MAX_FRAMES];             /* the return address, or with frame_hi the
						 * call's range [frame, frame_hi) (a rebuilt
						 * program's: return address - 1 in it) */
	uint64_t frame_hi[MAX_FRAMES];
	unsigned char any[MAX_FRAMES];
	uint64_t off[MAX_LIST];                 /* partitioned: where each part starts */
	uint16_t list[MAX_LIST];                /* nodes (move: one), or per part */
	uint32_t nlist;
	int ranges;                             /* list from a "ranges" line */
	uint8_t weight[MAX_LIST];               /* interleave: per node of list, 0 unweighted */
	int kernel_weights;                     /* the kernel's weighted interleave has them */
	int striped;                            /* atomic: weighted by stripes (no kernel's) */
	uint64_t objects, bytes, laid;          /* atomics: placed; a site's bytes laid so far */
	int err;                                /* atomic: the first refusal's errno */
};

uint64_t memphis__place_min;
static struct pvar vars[MAX_VARS];
static uint32_t nvars;
static uint64_t bias, page = 4096;
static int stopped;        /* atomic: placing is over (fork child, refusal of all) */
static int refused_all;    /* atomic: errno of a refusal that stops every placement */
static uint32_t calls;     /* atomic */
static int first_in_exe;   /* every site's frame 0 is in the executable */
static int reported;

/* The first page of [lo, hi) in memory (mincore(2)) into *first; 0 when none is, 1 when
 * one is or it cannot be told. */
static int resident(uint64_t lo, uint64_t hi, uint64_t *first)
{
	unsigned char vec[1024];

	for (uint64_t a = lo; a < hi;) {
		uint64_t n = (hi - a) / page < sizeof(vec) ? (hi - a) / page : sizeof(vec);

		if (mincore((void *)(uintptr_t)a, n * page, vec)) {
			*first = a;
			return 1;
		}
		for (uint64_t k = 0; k < n; k++)
			if (vec[k] & 1) {
				*first = a + k * page;
				return 1;
			}
		a += n * page;
	}
	return 0;
}

/* The node of page p (move_pages(2) asked, nothing moved), -1 when unknown. */
static int node_of(uint64_t p)
{
	void *pages[1] = { (void *)(uintptr_t)p };
	int status[1] = { -1 };

	if (syscall(SYS_move_pages, 0, 1ul, pages, NULL, status, 0))
		return -1;
	return status[0];
}

/* mbind [lo, hi) to `nodes` (n of them) with mode; 0 or errno. The policy alone places the
 * pages not yet touched; pages already in memory (a block the allocator reused, a static's
 * written page) are moved with MPOL_MF_MOVE, which drains every CPU's page lists first
 * (about 50 us a call here): not when the first of them already is on the one node asked,
 * as a block of the site placed before at this address is. */
static int bind_range(uint64_t lo, uint64_t hi, int mode, const uint16_t *nodes, uint32_t n)
{
	unsigned long mask[MAX_NODE / (8 * sizeof(unsigned long))] = { 0 };
	const unsigned bits = 8 * sizeof(unsigned long);
	uint64_t first;

	if (lo >= hi) /* no page of its own */
		return 0;
	if (__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED) > MAX_CALLS)
		return E2BIG;
	for (uint32_t k = 0; k < n; k++)
		mask[nodes[k] / bits] |= 1ul << (nodes[k] % bits);
	/* maxnode counts one more than the mask's bits (the kernel drops the last) */
	if (syscall(SYS_mbind, (void *)(uintptr_t)lo, (unsigned long)(hi - lo), mode, mask,
		    (unsigned long)MAX_NODE + 1, 0u))
		return errno;
	if (!resident(lo, hi, &first) || (n == 1 && node_of(first) == nodes[0]))
		return 0;
	if (syscall(SYS_mbind, (void *)(uintptr_t)lo, (unsigned long)(hi - lo), mode, mask,
		    (unsigned long)MAX_NODE + 1, (unsigned)MPOL_MF_MOVE_))
		return errno;
	return 0;
}

static uint64_t down(uint64_t a) { return a & ~(page - 1); }
static uint64_t up(uint64_t a) { return (a + page - 1) & ~(page - 1); }

/* A weighted interleave of [lo, hi) (whole pages) over v's nodes: the kernel's when its
 * weights are v's (MPOL_WEIGHTED_INTERLEAVE), else stripes of whole pages dealt to the
 * nodes in turn, weight[k] stripes to node k, each its own mbind (MPOL_PREFERRED): at most
 * STRIPES x the weights' sum of them, so a stripe is one page or more. 0 or errno. */
static int weighted(struct pvar *v, uint64_t lo, uint64_t hi)
{
	uint64_t sum = 0, pages = (hi - lo) / page, unit;
	uint32_t k = 0, left;

	if (v->kernel_weights &&
	    bind_range(lo, hi, MPOL_WEIGHTED_INTERLEAVE_, v->list, v->nlist) != EINVAL)
		return 0; /* placed, or refused as any mbind; EINVAL: a kernel without it */
	__atomic_store_n(&v->striped, 1, __ATOMIC_RELAXED);
	for (uint32_t j = 0; j < v->nlist; j++)
		sum += v->weight[j];
	unit = (pages + STRIPES * sum - 1) / (STRIPES * sum);
	unit = unit ? unit * page : page;
	left = v->weight[0];
	for (uint64_t a = lo; a < hi; a += unit) {
		int err = bind_range(a, a + unit < hi ? a + unit : hi, MPOL_PREFERRED_, &v->list[k], 1);

		if (err)
			return err;
		if (--left == 0) {
			k = (k + 1) % v->nlist;
			left = v->weight[k];
		}
	}
	return 0;
}

/* Place [addr, addr + size) of v, the bytes of v from offset off on; 0 or errno, *done
 * the bytes placed before it. */
static int place(struct pvar *v, uint64_t addr, uint64_t size, uint64_t off, uint64_t *done)
{
	int mode = v->bind ? MPOL_BIND_ : MPOL_PREFERRED_;

	*done = 0;
	if (v->policy == INTERLEAVE && v->weight[0])
		return weighted(v, up(addr), down(addr + size));
	if (v->policy == INTERLEAVE)
		return bind_range(up(addr), down(addr + size), MPOL_INTERLEAVE_, v->list, v->nlist);
	if (v->policy == MOVE)
		return bind_range(up(addr), down(addr + size), mode, v->list, 1);
	for (uint32_t k = 0; k < v->nlist; k++) { /* partitioned: a call per part */
		uint64_t lo = v->off[k] > off ? v->off[k] : off;
		uint64_t hi = k + 1 < v->nlist && v->off[k + 1] < off + size ? v->off[k + 1] : off + size;
		int err;

		if (lo >= hi)
			continue;
		err = bind_range(lo == off ? up(addr) : down(addr + (lo - off)),
				 hi == off + size ? down(addr + size) : down(addr + (hi - off)), mode,
				 &v->list[k], 1);
		if (err)
			return err;
		*done = hi - off;
	}
	return 0;
}

/* A placement of v refused with errno err: v stops; EPERM / ENOSYS (seccomp, a kernel
 * without NUMA) and E2BIG (our call limit) stop every placement. */
static void refused(struct pvar *v, int err)
{
	int none = 0;

	__atomic_compare_exchange_n(&v->err, &none, err, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	if (err == EPERM || err == ENOSYS || err == E2BIG) {
		none = 0;
		__atomic_compare_exchange_n(&refused_all, &none, err, 0, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
		__atomic_store_n(&stopped, 1, __ATOMIC_RELAXED);
	}
}

/* Place object [addr, addr + size) of v (a site's: laid after its earlier objects). */
static void place_object(struct pvar *v, uint64_t addr, uint64_t size)
{
	uint64_t off = v->is_sym ? 0 : __atomic_fetch_add(&v->laid, size, __ATOMIC_RELAXED), done;
	int err;

	if (__atomic_load_n(&v->err, __ATOMIC_RELAXED) || __atomic_load_n(&stopped, __ATOMIC_RELAXED))
		return;
	if ((err = place(v, addr, size, off, &done))) {
		refused(v, err);
		size = done;
	}
	if (!size)
		return;
	__atomic_add_fetch(&v->objects, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&v->bytes, size, __ATOMIC_RELAXED);
}

/* The parser: *c at a line of the plan; each helper moves *c past what it read. */
static int word(const char **c, char *out, size_t len)
{
	size_t n = 0;

	while (**c == ' ')
		(*c)++;
	while (**c && **c != ' ' && **c != '\n')
		if (n + 1 < len)
			out[n++] = *(*c)++;
		else
			return -1;
	out[n] = 0;
	return n ? 0 : -1;
}

static int number(const char **c, int base, uint64_t *v)
{
	char w[32], *end;

	if (word(c, w, sizeof(w)))
		return -1;
	errno = 0;
	*v = strtoull(w, &end, base);
	return *end || errno || w[0] == '-' ? -1 : 0;
}

/* The rest of the line as a list of node numbers into v->list, each after its offset
 * (increasing, the first 0) into v->off with offsets. */
static int node_list(const char **c, struct pvar *v, int offsets)
{
	uint64_t n, o = 0;

	v->nlist = 0;
	while (**c == ' ') {
		if (v->nlist >= MAX_LIST || (offsets && number(c, 10, &o)) || number(c, 10, &n) ||
		    n >= MAX_NODE || (offsets && (v->nlist ? o <= v->off[v->nlist - 1] : o != 0)))
			return -1;
		v->off[v->nlist] = o;
		v->list[v->nlist++] = (uint16_t)n;
	}
	return v->nlist ? 0 : -1;
}

static int parse_line(const char **c, struct pvar **cur)
{
	char kw[16], w[48];
	struct pvar *v = *cur;

	if (word(c, kw, sizeof(kw)))
		return -1;
	if (!strcmp(kw, "var")) {
		size_t len = 0;

		if (nvars >= MAX_VARS || word(c, w, sizeof(w)))
			return -1;
		v = *cur = &vars[nvars++];
		if (!strcmp(w, "move"))
			v->policy = MOVE;
		else if (!strcmp(w, "partitioned"))
			v->policy = PARTITIONED;
		else if (!strcmp(w, "interleave"))
			v->policy = INTERLEAVE;
		else
			return -1;
		if (word(c, w, sizeof(w)) || (strcmp(w, "bind") && strcmp(w, "preferred")))
			return -1;
		v->bind = !strcmp(w, "bind");
		while (**c == ' ')
			(*c)++;
		while (**c && **c != '\n' && len + 1 < sizeof(v->name))
			v->name[len++] = *(*c)++;
		return len ? 0 : -1;
	}
	if (!v)
		return -1;
	if (!strcmp(kw, "sym")) {
		v->is_sym = 1;
		return number(c, 16, &v->vaddr) || number(c, 10, &v->size) || !v->size ? -1 : 0;
	}
	if (!strcmp(kw, "site")) {
		while (**c == ' ') {
			if (v->nframes >= MAX_FRAMES || word(c, w, sizeof(w)))
				return -1;
			v->any[v->nframes] = !strcmp(w, "-");
			if (!v->any[v->nframes]) {
				char *dash = strchr(w, '-');
				const char *p = w;

				if (dash) { /* "LO-HI" */
					*dash = ' ';
					if (number(&p, 16, &v->frame[v->nframes]) ||
					    number(&p, 16, &v->frame_hi[v->nframes]) ||
					    v->frame_hi[v->nframes] <= v->frame[v->nframes])
						return -1;
				} else if (number(&p, 16, &v->frame[v->nframes])) {
					return -1;
				}
			}
			v->nframes++;
		}
		return v->nframes ? 0 : -1;
	}
	if (!strcmp(kw, "weights")) { /* after the nodes: one weight each, "kernel" first */
		uint32_t n = 0;
		char *end;

		while (**c == ' ') {
			unsigned long x;

			if (word(c, w, sizeof(w)))
				return -1;
			if (!n && !v->kernel_weights && !strcmp(w, "kernel")) {
				v->kernel_weights = 1;
				continue;
			}
			x = strtoul(w, &end, 10);
			if (*end || !x || x > 255 || n >= v->nlist)
				return -1;
			v->weight[n++] = (uint8_t)x;
		}
		return n && n == v->nlist && v->policy == INTERLEAVE ? 0 : -1;
	}
	if (!strcmp(kw, "nodes") || !strcmp(kw, "ranges"))
		return v->nlist ? -1 : (v->ranges = kw[0] == 'r', node_list(c, v, v->ranges));
	return -1;
}

/* Each entry has what its policy needs. */
static int complete(void)
{
	first_in_exe = 1;
	for (uint32_t i = 0; i < nvars; i++) {
		struct pvar *v = &vars[i];

		if (v->is_sym == (v->nframes > 0) || !v->nlist || v->ranges != (v->policy == PARTITIONED) ||
		    (v->policy == MOVE && v->nlist != 1))
			return -1;
		if (!v->is_sym) {
			memphis__place_min = page;
			first_in_exe &= !v->any[0];
		}
	}
	return 0;
}

int memphis__place_init(const char *plan, uint64_t exe_bias)
{
	const char *c = plan, *head = "memphis-plan 1\n";
	struct pvar *cur = NULL;
	unsigned line = 1;
	long ps = sysconf(_SC_PAGESIZE);

	page = ps > 0 ? (uint64_t)ps : 4096;
	bias = exe_bias;
	if (strncmp(c, head, strlen(head))) {
		memphis__warn("MEMPHIS_PLACE is not a plan of `memphis-report plan` (version 1): "
			      "nothing is placed");
		return -EINVAL;
	}
	for (c += strlen(head), line++; *c; line++) {
		if (*c != '\n' && parse_line(&c, &cur)) {
			memphis__warn("MEMPHIS_PLACE: line %u is damaged: nothing is placed", line);
			nvars = 0;
			memphis__place_min = 0;
			return -EINVAL;
		}
		c += *c == '\n';
	}
	if (complete()) {
		memphis__warn("MEMPHIS_PLACE: an entry lacks what its policy needs: nothing is "
			      "placed");
		nvars = 0;
		memphis__place_min = 0;
		return -EINVAL;
	}
	for (uint32_t i = 0; i < nvars; i++)
		if (vars[i].is_sym)
			place_object(&vars[i], bias + vars[i].vaddr, vars[i].size);
	return (int)nvars;
}

/* Is return address ra v's frame k? */
static int frame_is(const struct pvar *v, uint32_t k, uint64_t ra)
{
	if (v->any[k])
		return 1;
	if (v->frame_hi[k])
		return ra - bias - 1 >= v->frame[k] && ra - bias - 1 < v->frame_hi[k];
	return ra == v->frame[k] + bias;
}

int memphis__place_site_wanted(uint64_t site)
{
	if (__atomic_load_n(&stopped, __ATOMIC_RELAXED))
		return 0;
	if (!first_in_exe)
		return 1;
	for (uint32_t i = 0; i < nvars; i++)
		if (!vars[i].is_sym && frame_is(&vars[i], 0, site))
			return 1;
	return 0;
}

void memphis__place_block(uint64_t addr, uint64_t size, const uint64_t *frames, uint32_t n)
{
	for (uint32_t i = 0; i < nvars; i++) {
		struct pvar *v = &vars[i];
		uint32_t k;

		if (v->is_sym)
			continue;
		for (k = 0; k < v->nframes && k < n; k++)
			if (!frame_is(v, k, frames[k]))
				break;
		if (k == v->nframes || (k == n && k > 0)) {
			place_object(v, addr, size);
			return;
		}
	}
}

void memphis__place_stop(void)
{
	__atomic_store_n(&stopped, 1, __ATOMIC_RELAXED);
}

/* v's nodes, each once, as "0,1" into out. */
static void nodes_text(const struct pvar *v, char *out, size_t len)
{
	unsigned char seen[MAX_NODE] = { 0 };
	size_t pos = 0;

	out[0] = 0;
	for (uint32_t k = 0; k < v->nlist && pos < len; k++)
		if (!seen[v->list[k]]) {
			seen[v->list[k]] = 1;
			pos += (size_t)snprintf(out + pos, len - pos, "%s%u", pos ? "," : "",
						v->list[k]);
		}
}

size_t memphis__place_report(char *out, size_t len)
{
	size_t pos = 0;
	int all = __atomic_load_n(&refused_all, __ATOMIC_RELAXED);

	if (!len || __atomic_exchange_n(&reported, 1, __ATOMIC_RELAXED))
		return 0;
	if (all == E2BIG)
		memphis__warn("apply: placing stopped after %d mbind calls (each may split a "
			      "mapping; vm.max_map_count): later objects run unplaced", MAX_CALLS);
	else if (all)
		memphis__warn("apply: mbind refused (%s): the program runs unplaced", strerror(all));
	for (uint32_t i = 0; i < nvars; i++) {
		const struct pvar *v = &vars[i];
		uint64_t objects = __atomic_load_n(&v->objects, __ATOMIC_RELAXED);
		uint64_t bytes = __atomic_load_n(&v->bytes, __ATOMIC_RELAXED);
		int err = __atomic_load_n(&v->err, __ATOMIC_RELAXED);
		char nodes[256], how[400], status[48], line[600], weights[200];
		int n;

		nodes_text(v, nodes, sizeof(nodes));
		weights[0] = 0;
		for (uint32_t k = 0, at = 0; v->weight[0] && k < v->nlist && at < sizeof(weights); k++)
			at += (uint32_t)snprintf(weights + at, sizeof(weights) - at, "%s%u",
						 k ? ":" : "", v->weight[k]);
		if (v->policy == PARTITIONED)
			snprintf(how, sizeof(how), "partitioned over nodes %s in %u part%s", nodes,
				 v->nlist, v->nlist == 1 ? "" : "s");
		else if (v->policy == MOVE)
			snprintf(how, sizeof(how), "moved to node %s", nodes);
		else if (v->weight[0])
			snprintf(how, sizeof(how), "interleaved over nodes %s, weighted %s (%s)", nodes,
				 weights, __atomic_load_n(&v->striped, __ATOMIC_RELAXED)
						  ? "by stripes" : "the kernel's weighted interleave");
		else
			snprintf(how, sizeof(how), "interleaved over nodes %s", nodes);
		if (err && !objects)
			snprintf(status, sizeof(status), "refused:%d", err);
		else if (!objects)
			snprintf(status, sizeof(status), "unreached");
		else
			snprintf(status, sizeof(status), err ? "partly:%d" : "placed", err);
		if (err && !all && err != E2BIG)
			memphis__warn("apply: %s: %s %s (mbind: %s)", v->name,
				      objects ? "placed in part," : "not placed:", how, strerror(err));
		else if (!objects && !err && !all)
			memphis__warn("apply: %s: %s never reached: nothing placed", v->name,
				      v->is_sym ? "variable" : "allocation site");
		else if (objects)
			memphis__warn("apply: %s: %s: %" PRIu64 " bytes in %" PRIu64 " object%s",
				      v->name, how, bytes, objects, objects == 1 ? "" : "s");
		n = snprintf(line, sizeof(line), "place=%s\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\t%s\t%s\n",
			     policy_name[v->policy],
			     v->weight[0] ? "weighted" : v->bind ? "bind" : "preferred", nodes, objects,
			     bytes, status, v->name);
		if (n > 0 && (size_t)n < len - pos) { /* whole lines only */
			memcpy(out + pos, line, (size_t)n);
			pos += (size_t)n;
		}
	}
	return pos;
}
