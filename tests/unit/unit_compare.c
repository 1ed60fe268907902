/* tests/unit/unit_compare.c - post/compare_stats: Wilson's interval and Newcombe's hybrid
 * score interval for a difference of proportions against the values Newcombe published
 * (R. G. Newcombe, "Interval estimation for the difference between independent
 * proportions: comparison of eleven methods", Statistics in Medicine 17:873-890, 1998:
 * his worked examples, method 10; the single proportions from the worked examples of his
 * companion paper, Statistics in Medicine 17:857-872, 1998, method 3), to the 4 decimals
 * printed there; the verdict rule on one-node sides (the interval must exclude 0 AND the
 * change exceed the threshold; which direction is bad by mode; new / gone); and the
 * --max-regress parser, case by case. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "compare/compare.h"
#include "tap.h"

struct diff_case {
	int line;
	uint64_t x1, n1, x2, n2;
	double lo, hi;
};

static const struct diff_case diffs[] = {
	{ __LINE__, 56, 70, 48, 80, 0.0524, 0.3339 },
	{ __LINE__, 9, 10, 3, 10, 0.1705, 0.8090 },
	{ __LINE__, 6, 7, 2, 7, 0.0582, 0.8062 },
	{ __LINE__, 5, 56, 0, 29, -0.0381, 0.1926 },
	{ __LINE__, 0, 10, 0, 20, -0.1611, 0.2775 },
	{ __LINE__, 0, 10, 0, 10, -0.2775, 0.2775 },
	{ __LINE__, 10, 10, 0, 20, 0.6791, 1.0000 },
	{ __LINE__, 10, 10, 0, 10, 0.6075, 1.0000 },
};

struct one_case {
	int line;
	uint64_t x, n;
	double lo, hi;
};

static const struct one_case ones[] = {
	{ __LINE__, 81, 263, 0.2553, 0.3662 },
	{ __LINE__, 15, 148, 0.0624, 0.1605 },
	{ __LINE__, 0, 20, 0.0000, 0.1611 },
	{ __LINE__, 1, 29, 0.0061, 0.1718 },
};

struct pts_case {
	int line;
	const char *s;
	int ok;
	double v;
};

static const struct pts_case pts[] = {
	{ __LINE__, "2", 1, 2 },      { __LINE__, "2pt", 1, 2 },     { __LINE__, "2pts", 1, 2 },
	{ __LINE__, "2%", 1, 2 },     { __LINE__, "0.5pt", 1, 0.5 }, { __LINE__, "0", 1, 0 },
	{ __LINE__, "100", 1, 100 },  { __LINE__, "101", 0, 0 },     { __LINE__, "-1", 0, 0 },
	{ __LINE__, "2 pt", 0, 0 },   { __LINE__, "two", 0, 0 },     { __LINE__, "", 0, 0 },
	{ __LINE__, "2px", 0, 0 },    { __LINE__, "nan", 0, 0 },     { __LINE__, "+2", 0, 0 },
};

/* One-node side with one variable "v" of x remote and n - x local samples (mode 0) or
 * x local and n - x remote (mode 1); nitems 0 for none. */
struct mini {
	struct cmp_side s;
	struct cmp_item it;
	uint64_t rem, loc, irem, iloc, pages[2];
};

static void mini(struct mini *m, uint64_t x, uint64_t n, int mode, size_t nitems)
{
	memset(m, 0, sizeof(*m));
	m->rem = mode ? n - x : x;
	m->loc = mode ? x : n - x;
	m->irem = m->rem, m->iloc = m->loc;
	m->it = (struct cmp_item){ .name = "v", .kind = "global", .remote = &m->irem,
				   .local = &m->iloc, .remote_all = m->rem, .local_all = m->loc,
				   .pages = m->pages };
	m->s = (struct cmp_side){ .nnodes = 1, .remote = &m->rem, .local = &m->loc,
				  .items = &m->it, .nitems = nitems, .threads = -1 };
}

struct verdict_case {
	int line;
	uint64_t xa, na, xb, nb;
	int mode;
	double thr;
	enum cmp_verdict want;
};

static const struct verdict_case verdicts[] = {
	/* +4 points, but the interval (-0.4 .. +8.4) includes 0 */
	{ __LINE__, 480, 1000, 520, 1000, 0, 0.02, CMP_UNCHANGED },
	/* +1.5 points, interval excludes 0, below the threshold */
	{ __LINE__, 5000, 10000, 5150, 10000, 0, 0.02, CMP_UNCHANGED },
	/* the same at a 1-point threshold */
	{ __LINE__, 5000, 10000, 5150, 10000, 0, 0.01, CMP_REGRESSED },
	{ __LINE__, 5000, 10000, 5300, 10000, 0, 0.02, CMP_REGRESSED },
	{ __LINE__, 5300, 10000, 5000, 10000, 0, 0.02, CMP_IMPROVED },
	/* local shares: down is bad */
	{ __LINE__, 5300, 10000, 5000, 10000, 1, 0.02, CMP_REGRESSED },
	{ __LINE__, 5000, 10000, 5300, 10000, 1, 0.02, CMP_IMPROVED },
	/* --all: no judgement */
	{ __LINE__, 5000, 10000, 5300, 10000, 2, 0.02, CMP_UNCHANGED },
	/* exactly the threshold is not beyond it */
	{ __LINE__, 5000, 10000, 5200, 10000, 0, 0.02, CMP_UNCHANGED },
	/* different lengths: shares, not counts (same 50 % in 1,000 and 100,000) */
	{ __LINE__, 500, 1000, 50000, 100000, 0, 0.02, CMP_UNCHANGED },
};

/* Equal at the 4 printed decimals. */
static int near4(double a, double b)
{
	return fabs(a - b) < 0.00005 + 1e-12;
}

int main(void)
{
	for (size_t i = 0; i < sizeof(diffs) / sizeof(diffs[0]); i++) {
		const struct diff_case *c = &diffs[i];
		struct cmp_ci ci = cmp_newcombe(c->x1, c->n1, c->x2, c->n2, CMP_Z95);
		tap(near4(ci.lo, c->lo) && near4(ci.hi, c->hi), c->line,
		    "Newcombe %llu/%llu - %llu/%llu: %.4f .. %.4f (published %.4f .. %.4f)",
		    (unsigned long long)c->x1, (unsigned long long)c->n1,
		    (unsigned long long)c->x2, (unsigned long long)c->n2, ci.lo, ci.hi, c->lo, c->hi);
	}
	for (size_t i = 0; i < sizeof(ones) / sizeof(ones[0]); i++) {
		const struct one_case *c = &ones[i];
		struct cmp_ci ci = cmp_wilson(c->x, c->n, CMP_Z95);
		tap(near4(ci.lo, c->lo) && near4(ci.hi, c->hi), c->line,
		    "Wilson %llu/%llu: %.4f .. %.4f (published %.4f .. %.4f)",
		    (unsigned long long)c->x, (unsigned long long)c->n, ci.lo, ci.hi, c->lo, c->hi);
	}
	{
		struct cmp_ci w = cmp_wilson(0, 0, CMP_Z95), d = cmp_newcombe(1, 2, 0, 0, CMP_Z95);
		ok(w.lo == 0 && w.hi == 1, "Wilson with n = 0 is [0, 1]");
		ok(d.lo == -1 && d.hi == 1, "Newcombe with an empty side is [-1, 1]");
		d = cmp_newcombe(5500, 10000, 5000, 10000, CMP_Z95);
		ok(d.lo > 0.035 && d.hi < 0.065 && d.lo < 0.05 && d.hi > 0.05,
		   "a 5-point shift on 10,000 samples each: %.4f .. %.4f excludes 0", d.lo, d.hi);
	}
	{ /* cmp_shift: Hodges-Lehmann and the Mann-Whitney interval (tables: U <= 2 rejects
	   * at 5 % two-sided for 5 and 5, U = 0 for 4 and 4, none for 3 and 3; 317 for 30/30) */
		double a[30], b[30], est;
		struct cmp_ci ci;
		int in;

		for (int i = 0; i < 30; i++)
			a[i] = i + 1, b[i] = i + 11;
		int rc = cmp_shift(a, 5, b, 5, &est, &ci, &in); /* before ok() reads est */

		ok(rc == 0 && in && est == 10 && ci.lo == 7 && ci.hi == 13,
		   "shift of 1..5 to 11..15: %g, 95 %% %g .. %g (the 3rd smallest and largest "
		   "of the 25 differences)", est, ci.lo, ci.hi);
		rc = cmp_shift(a, 4, b, 4, &est, &ci, &in);
		ok(rc == 0 && in && est == 10 && ci.lo == 7 && ci.hi == 13,
		   "4 and 4: the smallest and largest difference, %g .. %g", ci.lo, ci.hi);
		rc = cmp_shift(a, 3, b, 3, &est, &ci, &in);
		ok(rc == 0 && !in && est == 10,
		   "3 and 3: no interval, the estimate %g", est);
		for (int i = 0; i < 30; i++)
			b[i] = a[i];
		rc = cmp_shift(a, 30, b, 30, &est, &ci, &in);
		ok(rc == 0 && in && est == 0 && ci.lo < 0 && ci.hi > 0 && ci.lo == -ci.hi,
		   "30 and 30 alike (normal approximation): %g, %g .. %g holds 0", est, ci.lo, ci.hi);
	}
	for (size_t i = 0; i < sizeof(verdicts) / sizeof(verdicts[0]); i++) {
		const struct verdict_case *c = &verdicts[i];
		struct mini a, b;
		struct cmp_result r;
		memset(&r, 0, sizeof(r));
		mini(&a, c->xa, c->na, c->mode, 1);
		mini(&b, c->xb, c->nb, c->mode, 1);
		if (cmp_compare(&a.s, &b.s, c->mode, c->thr, &r)) {
			tap(0, c->line, "cmp_compare: out of memory");
			continue;
		}
		/* regressions: node 0, all nodes and the variable */
		tap(r.nodes[0].v == c->want && r.npairs == 1 && r.pairs[0].v == c->want &&
			    r.regressions == 3 * (c->want == CMP_REGRESSED), c->line,
		    "%llu/%llu -> %llu/%llu (%s, %g pts): node %s, variable %s, %zu regressions",
		    (unsigned long long)c->xa, (unsigned long long)c->na,
		    (unsigned long long)c->xb, (unsigned long long)c->nb,
		    c->mode == 0 ? "remote" : c->mode == 1 ? "local" : "all", 100 * c->thr,
		    cmp_verdict_name(r.nodes[0].v), cmp_verdict_name(r.pairs[0].v), r.regressions);
		cmp_result_free(&r);
	}
	{
		struct mini a, b;
		struct cmp_result r;
		memset(&r, 0, sizeof(r));
		mini(&a, 100, 1000, 0, 1);
		mini(&b, 100, 1000, 0, 0); /* B lacks the variable */
		ok(!cmp_compare(&a.s, &b.s, 0, 0.02, &r) && r.npairs == 1 && r.pairs[0].v == CMP_GONE &&
			   r.gones == 1 && r.regressions == 0,
		   "a variable of A only is gone, not a regression");
		cmp_result_free(&r);
		ok(!cmp_compare(&b.s, &a.s, 0, 0.02, &r) && r.npairs == 1 && r.pairs[0].v == CMP_NEW &&
			   r.news == 1,
		   "a variable of B only is new");
		cmp_result_free(&r);
	}
	for (size_t i = 0; i < sizeof(pts) / sizeof(pts[0]); i++) {
		const struct pts_case *c = &pts[i];
		double v = -1;
		bool r = cmp_parse_points(c->s, &v);
		tap(r == c->ok && (!r || v == c->v), c->line, "--max-regress '%s': %s", c->s,
		    r ? "accepted" : "refused");
	}
	return tap_done();
}
