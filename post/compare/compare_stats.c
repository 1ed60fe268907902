/* post/compare/compare_stats.c - the statistics of compare: Wilson's score interval for one
 * proportion and Newcombe's hybrid score interval for the difference of two (docs/
 * compare.md has the formulas and a worked example; tests/unit/unit_compare.c checks them
 * against Newcombe's published values). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

struct cmp_ci cmp_wilson(uint64_t x, uint64_t n, double z)
{
	struct cmp_ci ci = { 0, 1 };
	double p, z2n, den, mid, half;

	if (n == 0)
		return ci;
	p = (double)x / (double)n;
	z2n = z * z / (double)n;
	den = 1 + z2n;
	mid = (p + z2n / 2) / den;
	half = z / den * sqrt(p * (1 - p) / (double)n + z2n / (4 * (double)n));
	ci.lo = mid - half < 0 ? 0 : mid - half;
	ci.hi = mid + half > 1 ? 1 : mid + half;
	/* exact ends: x = 0 gives lo 0 and x = n gives hi 1, whatever the rounding */
	if (x == 0)
		ci.lo = 0;
	if (x == n)
		ci.hi = 1;
	return ci;
}

struct cmp_ci cmp_newcombe(uint64_t x1, uint64_t n1, uint64_t x2, uint64_t n2, double z)
{
	struct cmp_ci ci = { -1, 1 }, w1, w2;
	double p1, p2, d;

	if (n1 == 0 || n2 == 0)
		return ci;
	p1 = (double)x1 / (double)n1;
	p2 = (double)x2 / (double)n2;
	w1 = cmp_wilson(x1, n1, z);
	w2 = cmp_wilson(x2, n2, z);
	d = p1 - p2;
	ci.lo = d - sqrt((p1 - w1.lo) * (p1 - w1.lo) + (w2.hi - p2) * (w2.hi - p2));
	ci.hi = d + sqrt((w1.hi - p1) * (w1.hi - p1) + (p2 - w2.lo) * (p2 - w2.lo));
	return ci;
}

bool cmp_parse_points(const char *s, double *pts)
{
	char *end;
	double v;

	if (!s || !*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v))
		return false;
	if (*end && strcmp(end, "pt") && strcmp(end, "pts") && strcmp(end, "%"))
		return false;
	if (v < 0 || v > 100)
		return false;
	*pts = v;
	return true;
}
