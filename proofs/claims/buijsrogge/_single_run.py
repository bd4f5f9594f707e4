"""The certainty of a verdict on a printed *single* simulation run (Tables 8.1, 8.2, 8.4-8.10 of Buijsrogge 2014): the
two-sided prediction band of single runs from seeded replicates (Student t, central ``SINGLE_RUN_CENTRAL``), and
whether a verdict is certain (flip probability below ``SINGLE_RUN_FLIP``) by order statistics (any law) or under the
normal model (exact noncentral-t bounds on the band's edges, used only when Shapiro–Wilk does not reject normality).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
import scipy.stats

from ....numeric.tolerance import SINGLE_RUN_CENTRAL, SINGLE_RUN_FLIP, SINGLE_RUN_MAX_REPLICATES
from ...registry import Outcome


TAIL = (1 - SINGLE_RUN_CENTRAL) / 2  # mass of the single-run law beyond each edge of the band
ALPHA_EDGE = SINGLE_RUN_FLIP / 2  # per edge: a PASS needs both edges, so its flip probability is below SINGLE_RUN_FLIP
SHAPIRO_MIN_P = 0.01  # the normal route is not used on replicates whose Shapiro–Wilk p-value is below this
MIN_DISTINCT = 5  # nor on replicates with fewer distinct values (a lattice of a few counts is not normal)


@functools.lru_cache(maxsize=None)
def _order_count(n: int) -> int:
    r"""Fewest of ``n`` runs that must lie at or beyond v (on one side) to exclude, at level ALPHA_EDGE, that v lies
    outside the band on that side: the least j with :math:`P(\mathrm{Bin}(n, \mathrm{TAIL}) \ge j) \le` ALPHA_EDGE.
    (If v is above the upper edge, P(X ≥ v) < TAIL, so the number of runs ≥ v is stochastically below
    Bin(n, TAIL); whatever the law, discrete or not.)"""
    return next(j for j in range(1, n + 2) if scipy.stats.binom.sf(j - 1, n, TAIL) <= ALPHA_EDGE)


@functools.lru_cache(maxsize=None)
def _normal_factors(n: int) -> tuple[float, float]:
    r"""(k_lo, k_hi): exact one-sided confidence bounds, level ALPHA_EDGE each, on the band's upper edge
    :math:`q = \mu + z\sigma` (z = Φ⁻¹(1 − TAIL)) of a normal law from n runs, as m + k s: since
    :math:`\sqrt n (q - m)/s` is noncentral t with n − 1 degrees of freedom and noncentrality z√n,
    :math:`P(q < m + k_{lo} s) = P(q > m + k_{hi} s) = ` ALPHA_EDGE (the lower edge by symmetry)."""
    z = scipy.stats.norm.ppf(1 - TAIL)
    nc = z * math.sqrt(n)
    return (float(scipy.stats.nct.ppf(ALPHA_EDGE, n - 1, nc)) / math.sqrt(n),
            float(scipy.stats.nct.ppf(1 - ALPHA_EDGE, n - 1, nc)) / math.sqrt(n))


def _crit(n: int) -> float:
    """Half-width of the Student-t prediction interval for one new run, in units of s."""
    return float(scipy.stats.t.ppf(0.5 + SINGLE_RUN_CENTRAL / 2, n - 1)) * math.sqrt(1 + 1 / n)


def _normal_route(x: np.ndarray) -> tuple[bool, str]:
    """Whether the normal model of single runs is usable on the replicates ``x``, and why (not)."""
    distinct = len(np.unique(x))
    if distinct < MIN_DISTINCT:
        return False, f"{distinct} distinct values among the runs (normal route needs {MIN_DISTINCT})"
    p = float(scipy.stats.shapiro(x).pvalue)
    if p < SHAPIRO_MIN_P:
        return False, f"Shapiro–Wilk p = {p:.3g} < {SHAPIRO_MIN_P:g} (normal route not used)"
    return True, f"Shapiro–Wilk p = {p:.2f}"


@dataclass(frozen=True)
class SingleRunCertainty:
    """Whether a single-run verdict is certain (statistical) and how.

    ``error_bound`` is in the cell's units: the distance from the estimated
    band edge nearest the printed value (m ± crit·s·√(1+1/n), the verdict's
    boundary) to the certified limit on the printed value's side, so that
    ``certain`` is "the printed value is further from that edge than
    error_bound, on the verdict's side" (as for a numerical cell).
    ``extensible``: more runs (up to SINGLE_RUN_MAX_REPLICATES) can make an
    uncertain verdict certain if the estimates stay where they are."""
    certain: bool
    error_bound: float | None
    why: str
    extensible: bool


def single_run_certainty(v: float, x: np.ndarray, inside: bool) -> SingleRunCertainty:
    r"""Certainty of the verdict "``v`` lies (``inside``) / does not lie in the
    central SINGLE_RUN_CENTRAL of the single-run law", from the runs ``x``.

    Two routes, each bounding the probability that the verdict is wrong by
    ALPHA_EDGE per band edge (so below SINGLE_RUN_FLIP):

    - distribution-free (inside only): at least j = :func:`_order_count` runs
      lie at or above v and j at or below it;
    - normal model (when :func:`_normal_route` admits it): |v − m| ≤ k_lo s
      (inside) or |v − m| ≥ k_hi s (outside), k from :func:`_normal_factors`.

    No distribution-free route certifies "outside" (it would need thousands of
    runs with none beyond v)."""
    n, m, s = len(x), float(x.mean()), float(x.std(ddof=1))
    k_lo, k_hi = _normal_factors(n)
    normal, normal_why = _normal_route(x) if s > 0 else (False, "all runs equal")
    up = v >= m
    edge = m + _crit(n) * s if up else m - _crit(n) * s
    N = SINGLE_RUN_MAX_REPLICATES
    k_lo_max, k_hi_max = _normal_factors(N)
    t = abs(v - m) / s if s > 0 else (0.0 if v == m else math.inf)
    head = f"certainty (flip probability < {SINGLE_RUN_FLIP:g} per verdict) at n = {n}: "
    if inside:
        j = _order_count(n)
        above, below = int((x >= v).sum()), int((x <= v).sum())
        bounds = []
        if above >= j and below >= j:
            ordered = np.sort(x)
            limit = ordered[n - j] if up else ordered[j - 1]  # the j-th run from the top (bottom)
            bounds.append(abs(edge - limit))
        if normal:
            bounds.append((_crit(n) - k_lo) * s)
        np_ok = above >= j and below >= j
        n_ok = normal and t <= k_lo
        certain = np_ok or n_ok
        why = (f"{above} runs ≥ printed, {below} ≤ (distribution-free route needs {j} each: "
               f"{'holds' if np_ok else 'fails'}); normal route |v−m|/s = {t:.2f} vs k_lo = {k_lo:.2f} ("
               f"{normal_why}{': holds' if n_ok else ''})")
        # with N runs and the same estimates: the rank route or the normal route would hold
        frac = min(above, below) / n
        ext = frac * N >= _order_count(N) or (s > 0 and t < k_lo_max)
        return SingleRunCertainty(certain, min(bounds) if bounds else ((_crit(n) - k_lo) * s if s > 0 else None),
                                  head + why + _edge_note(certain, ext, n, t, k_lo_max, k_hi_max), ext)
    n_ok = normal and t >= k_hi
    why = (f"normal route |v−m|/s = {t:.2f} vs k_hi = {k_hi:.2f} ({normal_why}{': holds' if n_ok else ''}); "
           "no distribution-free route certifies a value outside the band")
    ext = normal and t > k_hi_max
    return SingleRunCertainty(n_ok, (k_hi - _crit(n)) * s if s > 0 else None,
                              head + why + _edge_note(n_ok, ext, n, t, k_lo_max, k_hi_max), ext)


def _edge_note(certain: bool, extensible: bool, n: int, t: float, k_lo_max: float, k_hi_max: float) -> str:
    if certain:
        return ""
    if extensible:
        return "" if n < SINGLE_RUN_MAX_REPLICATES else f"; still uncertain at the cap of {n} runs"
    z = scipy.stats.norm.ppf(1 - TAIL)
    return (f"; on the band's edge: with {SINGLE_RUN_MAX_REPLICATES} runs a verdict is certain only for |v−m|/s < "
            f"{k_lo_max:.2f} (inside) or > {k_hi_max:.2f} (outside, normal model); here {t:.2f} as estimated from {n} "
            f"runs (the band edge itself is at z = {z:.2f}, where no finite number of runs decides)")


def where_in_band(v: float, x: np.ndarray) -> tuple[bool, float, float, float, float]:
    """(inside the prediction interval, quantile, t, mean, sd) of ``v`` among the runs ``x``."""
    n, m, s = len(x), float(x.mean()), float(x.std(ddof=1))
    if s == 0:
        return v == m, (0.5 if v == m else float(v > m)), math.nan, m, s
    t = (v - m) / (s * math.sqrt(1 + 1 / n))
    crit = scipy.stats.t.ppf(0.5 + SINGLE_RUN_CENTRAL / 2, n - 1)
    return abs(t) <= crit, float(scipy.stats.t.cdf(t, n - 1)), t, m, s


def judge_single_run(printed: str, sample: np.ndarray, what: str, fmt=lambda v: f"{v:.4g}",
                     alternatives=()) -> Outcome:
    """PASS when ``printed`` lies in the central SINGLE_RUN_CENTRAL of the
    distribution of single runs, estimated from ``sample`` (n seeded runs):
    the two-sided Student-t prediction interval for one new run.  The detail
    gives the printed value's quantile and the verdict's statistical
    certainty (:func:`single_run_certainty`); ``alternatives`` are other
    readings (label, sample) whose quantiles are listed too (they decide
    nothing)."""
    v = float(printed)
    ok, quant, t, m, s = where_in_band(v, sample)
    cert = single_run_certainty(v, sample, ok)
    detail = (f"{what}: printed {printed}; {len(sample)} seeded single runs: mean {fmt(m)}, sd {fmt(s)}, range "
              f"[{fmt(sample.min())}, {fmt(sample.max())}]; the printed value sits at quantile {quant:.4f} of the "
              f"single-run distribution (t = {t:+.2f}; central {SINGLE_RUN_CENTRAL:.1%}: "
              f"{'inside' if ok else 'outside'}); {cert.why}")
    for label, alt in alternatives:
        a_ok, a_q, a_t, a_m, _ = where_in_band(v, alt)
        detail += f"; reading {label}: mean {fmt(a_m)}, quantile {a_q:.4f} ({'inside' if a_ok else 'outside'})"
    return Outcome.judge(ok, detail, computed=f"{fmt(m)} ± {fmt(s)}",
                         error_bound=None if cert.error_bound is None else float(cert.error_bound),
                         certain=cert.certain)
