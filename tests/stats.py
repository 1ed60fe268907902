#!/usr/bin/env python3
"""tests/stats.py - the bounds of the statistical checks, computed, not guessed
(tests/README.md, "Checks on counts and shares").

A count of samples that lands on something with probability p in each of n samples is
X ~ Binomial(n, p); a count of timer samples over a span that holds lam periods on
average is at worst X ~ Poisson(lam). A check "X >= m" fails by chance with probability
P(X < m); every bound here makes that (or P(X > M) for an upper bound) at most ALPHA,
1e-4 unless given. Exact tails from log-factorials (math.lgamma): no scipy.

As a program (one number or the interval on stdout; `share` also exits 1 outside):
  stats.py min N P [ALPHA]       the largest m with P(Binomial(N, P) < m) <= ALPHA
  stats.py max N P [ALPHA]       the smallest M with P(Binomial(N, P) > M) <= ALPHA
  stats.py pmin LAM [ALPHA]      the largest m with P(Poisson(LAM) < m) <= ALPHA
  stats.py need P M [ALPHA]      the smallest N with P(Binomial(N, P) < M) <= ALPHA
  stats.py pneed M [ALPHA]       the smallest LAM with P(Poisson(LAM) < M) <= ALPHA
                                 (printed to 0.01, rounded up)
  stats.py share K N LO HI [WRONG [ALPHA]]
                                 prints "least most need": K of N passes when least <= K <=
                                 most (= min N LO ALPHA/2, max N HI ALPHA/2: a share whose
                                 true value may lie anywhere in [LO, HI], what the
                                 program's construction gives with its systematic error,
                                 checked with its sampling noise) and N >= need (= apart LO
                                 HI WRONG: 0 without WRONG); exits 1 otherwise
  stats.py apart LO HI WRONG [ALPHA]
                                 the smallest N at which a true share of WRONG (outside
                                 [LO, HI]: what a broken attribution would give) falls
                                 outside the range of `share` with probability >= 1 - ALPHA
As a module (sys.path.insert(0, "$S/tests"); import stats): the same functions.
"""
import math
import sys

ALPHA = 1e-4


def _lpmf_binom(k, n, p):
    if p <= 0:
        return 0.0 if k == 0 else -math.inf
    if p >= 1:
        return 0.0 if k == n else -math.inf
    return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
            + k * math.log(p) + (n - k) * math.log1p(-p))


def binom_below(m, n, p):
    """P(X < m) for X ~ Binomial(n, p)."""
    if m <= 0:
        return 0.0
    if m > n:
        return 1.0
    return min(1.0, math.fsum(math.exp(_lpmf_binom(k, n, p)) for k in range(m)))


def binom_above(m, n, p):
    """P(X > m) for X ~ Binomial(n, p)."""
    return binom_below(n - m, n, 1 - p)


def pois_below(m, lam):
    """P(X < m) for X ~ Poisson(lam)."""
    if m <= 0:
        return 0.0
    if lam <= 0:
        return 1.0
    return min(1.0, math.fsum(math.exp(k * math.log(lam) - lam - math.lgamma(k + 1))
                              for k in range(m)))


def min_count(n, p, alpha=ALPHA):
    """The largest m with P(Binomial(n, p) < m) <= alpha (0: no bound holds)."""
    cum = 0.0
    for k in range(n + 1):  # cum = P(X <= k) = P(X < k + 1)
        cum += math.exp(_lpmf_binom(k, n, p))
        if cum > alpha:
            return k
    return n


def max_count(n, p, alpha=ALPHA):
    """The smallest M with P(Binomial(n, p) > M) <= alpha."""
    return n - min_count(n, 1 - p, alpha)


def pois_min(lam, alpha=ALPHA):
    """The largest m with P(Poisson(lam) < m) <= alpha."""
    if lam <= 0:
        return 0
    cum, k = 0.0, 0
    while True:  # cum = P(X <= k) = P(X < k + 1)
        cum += math.exp(k * math.log(lam) - lam - math.lgamma(k + 1))
        if cum > alpha:
            return k
        k += 1


def need(p, m, alpha=ALPHA):
    """The smallest n with P(Binomial(n, p) < m) <= alpha."""
    if p <= 0:
        raise ValueError("p must be > 0")
    lo, hi = m, max(m, 1)
    while binom_below(m, hi, p) > alpha:
        lo, hi = hi, hi * 2
    while lo < hi:
        mid = (lo + hi) // 2
        if binom_below(m, mid, p) <= alpha:
            hi = mid
        else:
            lo = mid + 1
    return lo


def pois_need(m, alpha=ALPHA):
    """The smallest lam (to 0.01, up) with P(Poisson(lam) < m) <= alpha."""
    lo, hi = 0.0, float(max(m, 1))
    while pois_below(m, hi) > alpha:
        lo, hi = hi, hi * 2
    for _ in range(60):
        mid = (lo + hi) / 2
        if pois_below(m, mid) <= alpha:
            hi = mid
        else:
            lo = mid
    return math.ceil(hi * 100) / 100


def share_range(n, lo, hi, alpha=ALPHA):
    """The counts k of n that a share in [lo, hi] gives but with probability <= alpha:
    (min_count(n, lo, alpha/2), max_count(n, hi, alpha/2))."""
    return min_count(n, lo, alpha / 2), max_count(n, hi, alpha / 2)


def apart(lo, hi, wrong, alpha=ALPHA):
    """The smallest n at which Binomial(n, wrong) lands outside share_range(n, lo, hi,
    alpha) with probability >= 1 - alpha (wrong < lo or wrong > hi)."""
    if lo <= wrong <= hi:
        raise ValueError("wrong must lie outside [lo, hi]")

    def separated(n):
        least, most = share_range(n, lo, hi, alpha)
        if wrong < lo:
            return max_count(n, wrong, alpha) < least
        return min_count(n, wrong, alpha) > most

    n = 1
    while not separated(n):
        n *= 2
    lo_n, hi_n = n // 2, n
    while lo_n + 1 < hi_n:  # separated(hi_n), not (or unknown for n = 1) separated(lo_n)
        mid = (lo_n + hi_n) // 2
        if separated(mid):
            hi_n = mid
        else:
            lo_n = mid
    return hi_n


def share_check(k, n, lo, hi, wrong=None, alpha=ALPHA):
    """(ok, least, most, need): k of n within share_range and n >= apart(lo, hi, wrong)."""
    least, most = share_range(n, lo, hi, alpha)
    nd = apart(lo, hi, wrong, alpha) if wrong is not None else 0
    return least <= k <= most and n >= nd, least, most, nd


def main(argv):
    cmd, a = argv[1], argv[2:]
    alpha = ALPHA
    if cmd == "min":
        alpha = float(a[2]) if len(a) > 2 else alpha
        print(min_count(int(a[0]), float(a[1]), alpha))
    elif cmd == "max":
        alpha = float(a[2]) if len(a) > 2 else alpha
        print(max_count(int(a[0]), float(a[1]), alpha))
    elif cmd == "pmin":
        alpha = float(a[1]) if len(a) > 1 else alpha
        print(pois_min(float(a[0]), alpha))
    elif cmd == "need":
        alpha = float(a[2]) if len(a) > 2 else alpha
        print(need(float(a[0]), int(a[1]), alpha))
    elif cmd == "pneed":
        alpha = float(a[1]) if len(a) > 1 else alpha
        print(pois_need(int(a[0]), alpha))
    elif cmd == "share":
        alpha = float(a[5]) if len(a) > 5 else alpha
        wrong = float(a[4]) if len(a) > 4 else None
        ok, least, most, nd = share_check(int(a[0]), int(a[1]), float(a[2]), float(a[3]),
                                          wrong, alpha)
        print(least, most, nd)
        return 0 if ok else 1
    elif cmd == "apart":
        alpha = float(a[3]) if len(a) > 3 else alpha
        print(apart(float(a[0]), float(a[1]), float(a[2]), alpha))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
