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

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* The largest k with P(U < k) <= 0.025 for Mann-Whitney's U of samples of m and n under
 * the null hypothesis, 0 when there is none: exactly (the count of arrangements with each
 * U, Mann and Whitney's recursion) up to 20 a side, else the normal approximation. */
static uint64_t mw_lower(size_t m, size_t n)
{
	uint64_t mn = (uint64_t)m * n, w = mn + 1, k = 0;
	double *prev, *row, *t, total = 0, cum = 0;

	if (m > 20 || n > 20) {
		double c = (double)mn / 2 - CMP_Z95 * sqrt((double)mn * (double)(m + n + 1) / 12);

		return c > 0 ? (uint64_t)c : 0;
	}
	prev = calloc((n + 1) * w, sizeof(*prev));
	row = calloc((n + 1) * w, sizeof(*row));
	if (!prev || !row) {
		free(prev);
		free(row);
		return 0;
	}
	/* N(i, j, u), the arrangements of i values of one sample and j of the other with U = u:
	 * N(i, j, u) = N(i - 1, j, u - j) + N(i, j - 1, u), N(0, j, 0) = 1; a row per i */
	for (size_t j = 0; j <= n; j++)
		prev[j * w] = 1;
	for (size_t i = 1; i <= m; i++) {
		for (size_t j = 0; j <= n; j++)
			for (uint64_t u = 0; u <= mn; u++)
				row[j * w + u] = (u >= j ? prev[j * w + u - j] : 0) +
						 (j ? row[(j - 1) * w + u] : 0);
		t = prev;
		prev = row;
		row = t;
	}
	for (uint64_t u = 0; u <= mn; u++)
		total += prev[n * w + u];
	while (k <= mn && (cum + prev[n * w + k]) / total <= 0.025)
		cum += prev[n * w + k++];
	free(prev);
	free(row);
	return k; /* P(U < k) <= 0.025 */
}

int cmp_shift(const double *a, size_t na, const double *b, size_t nb, double *est,
	      struct cmp_ci *ci, int *ok)
{
	size_t n = na * nb, k = 0;
	double *d = n ? malloc(n * sizeof(*d)) : NULL;
	uint64_t c;

	*ok = 0;
	if (!d)
		return n ? -ENOMEM : -EINVAL;
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			d[k++] = b[j] - a[i];
	qsort(d, n, sizeof(*d), cmp_double);
	*est = n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
	ci->lo = ci->hi = *est;
	c = na >= 4 && nb >= 4 ? mw_lower(na, nb) : 0;
	if (c >= 1 && c <= n / 2) { /* the c-th smallest and the c-th largest difference */
		ci->lo = d[c - 1];
		ci->hi = d[n - c];
		*ok = 1;
	}
	free(d);
	return 0;
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
