"""The statistics of repeats: means with confidence intervals, and whether two sets of runs differ.

Small, exact and pure: Student's t (for a mean score's interval and Welch's test of two
means) from the regularized incomplete beta function, Wilson's interval for a pass rate,
and Fisher's exact test for two pass counts. Repeats are few (3 to 10 runs of a case), which
is where the normal approximation is wrong and these are not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist, fmean, variance

import attrs

__all__ = ["Interval", "fisher_p", "mean_interval", "t_quantile", "welch_p", "wilson"]


@attrs.frozen(kw_only=True)
class Interval:
    """An estimate and its confidence interval ``[low, high]``.

    Example:
        >>> Interval(value=0.5, low=0.25, high=0.75).half_width
        0.25
    """

    value: float
    low: float
    high: float

    @property
    def half_width(self) -> float:
        """Half the interval's width (the "±")."""
        return (self.high - self.low) / 2


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny, qab, qap, qam = 1e-300, a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for aa in (
            m * (b - m) * x / ((qam + m2) * (a + m2)),
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
        ):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-14:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def _t_tail(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t with ``df`` degrees of freedom."""
    return _betainc(df / 2.0, 0.5, df / (df + t * t))


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (``p`` > 0.5 gives a positive value).

    Example:
        >>> round(t_quantile(0.975, 4), 3), round(t_quantile(0.975, 1000), 2)
        (2.776, 1.96)
    """
    tail = 2.0 * (1.0 - p) if p >= 0.5 else 2.0 * p
    low, high = 0.0, 1.0
    while _t_tail(high, df) > tail:
        high *= 2.0
    for _ in range(200):
        mid = (low + high) / 2.0
        low, high = (mid, high) if _t_tail(mid, df) > tail else (low, mid)
    return high if p >= 0.5 else -high


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> Interval:
    """The mean of ``values`` with its Student's t confidence interval (one value: the value itself).

    Example:
        >>> i = mean_interval([0.5, 0.7, 0.6])
        >>> round(i.value, 2), round(i.low, 3), round(i.high, 3)
        (0.6, 0.352, 0.848)
    """
    if not values:
        return Interval(value=0.0, low=0.0, high=0.0)
    mean = fmean(values)
    if len(values) < 2:
        return Interval(value=mean, low=mean, high=mean)
    spread = t_quantile((1 + confidence) / 2, len(values) - 1) * math.sqrt(variance(values) / len(values))
    return Interval(value=mean, low=mean - spread, high=mean + spread)


def wilson(passed: int, runs: int, confidence: float = 0.95) -> Interval:
    """A pass rate with Wilson's score interval (good for few runs and rates near 0 or 1).

    Example:
        >>> i = wilson(3, 3)
        >>> i.value, round(i.low, 3), i.high
        (1.0, 0.439, 1.0)
    """
    if runs == 0:
        return Interval(value=0.0, low=0.0, high=1.0)
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    rate = passed / runs
    centre = (rate + z * z / (2 * runs)) / (1 + z * z / runs)
    spread = z * math.sqrt(rate * (1 - rate) / runs + z * z / (4 * runs * runs)) / (1 + z * z / runs)
    # the bounds hold the rate itself (at 0 or 1 rounding alone could put it outside)
    return Interval(
        value=rate, low=min(rate, max(0.0, centre - spread)), high=max(rate, min(1.0, centre + spread))
    )


def welch_p(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Welch's two-sided test that two sets of scores have the same mean: its p-value (None: too few).

    Example:
        >>> round(welch_p([0.9, 1.0, 0.95, 1.0], [0.2, 0.3, 0.25, 0.1]), 6)
        3.3e-05
        >>> welch_p([1.0], [0.0]) is None
        True
    """
    if len(a) < 2 or len(b) < 2:
        return None
    va, vb = variance(a) / len(a), variance(b) / len(b)
    delta = fmean(a) - fmean(b)
    if va + vb == 0.0:
        return 1.0 if delta == 0.0 else 0.0
    t = delta / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va * va / (len(a) - 1) + vb * vb / (len(b) - 1))
    return _t_tail(t, df)


def fisher_p(a_passed: int, a_runs: int, b_passed: int, b_runs: int) -> float:
    """Fisher's exact two-sided test that two pass rates are the same: its p-value.

    Example:
        >>> round(fisher_p(10, 10, 2, 10), 5)
        0.00071
        >>> fisher_p(3, 3, 3, 3)
        1.0
    """
    passes, total = a_passed + b_passed, a_runs + b_runs

    def chance(k: int) -> float:
        return math.comb(a_runs, k) * math.comb(b_runs, passes - k) / math.comb(total, passes)

    seen = chance(a_passed)
    ks = range(max(0, passes - b_runs), min(a_runs, passes) + 1)
    return min(1.0, sum(p for p in map(chance, ks) if p <= seen * (1 + 1e-9)))
