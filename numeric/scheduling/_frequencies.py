"""Crawler scheduling: obsolescence rates, optimal frequencies and policies.

Coffman, Liu, Weber (1997), restated in Liu–Nain (2005, §1.3).  N pages; page
i changes as a Poisson process of rate ``mu_i`` (``rates``) and carries weight
``c_i`` (``weights``, default c_i = mu_i, i.e. c0 = 1); accesses last i.i.d.
X with mean ``m = E[X] = 1/nu``; ``h_i = E[exp(-mu_i X)]``.  The obsolescence
rate r_i is the long-run fraction of time page i is out of date and the cost
is C = sum c_i r_i ((4)).  Pages are numbered from 0 in this API (the paper
and the CLI number them from 1).

- :func:`optimal_frequencies`: the lower bound of Theorems 3.3/3.4 -- closed
  form x_i = ln h_i / sum ln h_j, C* = c0 (mu - nu + nu prod h) when c_i = c0
  mu_i ((6), (10)); otherwise the KKT system (8)-(9): x_i(lambda) page by
  page (numba, :mod:`crawlmath.numeric.scheduling._kernels`), the multiplier
  by safeguarded secant steps, with the KKT residual reported.
- :func:`cyclic_cost`: the exact cost of a cyclic schedule, from (3) and
  Lemma 3.1.
- :func:`randomized_cost`, :func:`randomized_optimal`: Lemma 4.1, Theorem 4.1.
- :func:`golden_schedule`: the golden-ratio policy gamma(k, N) of §5.
- :func:`simulate`: Monte Carlo of the page-change processes under a schedule.

>>> from crawlmath.numeric.scheduling import parse_access
>>> p = make_problem([0.5, 1.0, 2.0], parse_access("exp:1"))
>>> res = optimal_frequencies(p)
>>> [round(float(v), 4) for v in res.frequencies]  # ln(1/h_i) = ln 1.5, ln 2, ln 3
[0.1845, 0.3155, 0.5]
>>> round(res.lower_bound, 6)  # 3.5 - 1 + (2/3)(1/2)(1/3)
2.611111
>>> golden_sequence([2, 3, 3, 5]) + 1  # Liu–Nain §1.3.4 example, k = 7 (F_7 = 13)
array([4, 2, 4, 1, 3, 4, 2, 4, 1, 3, 4, 2, 3])
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from ._access_time import AccessTime
from ..errors import InvalidInput, SolverError, TooLarge
from ..generated import golden as ggen
from ..generated import scheduling as gen
from ..tolerance import FLOAT_REL, FLOAT_ROOT_ABS_FLOOR, FLOAT_ROOT_RTOL, GOLDEN_BRACKET_REL, MULTIPLIER_SUM_ABS, STRUCTURE_ABS
from ..validate import require_int, require_memory, require_seconds

PHI = (1 + math.sqrt(5)) / 2
MAX_K = 38  # F_38 = 39 088 169 accesses per cycle; beyond that the schedule is refused
# Cost of gamma(k, N) and its cyclic cost per access of the cycle, calibrated by
# benchmarks/estimates.py (measured 67-72 B and 0.2-0.7 us per access on one core):
# the Fibonacci keys, their argsort, owners, the sequence, the inter-access
# distances and E[Z] are each one int64/float64 array of F_k entries.
GOLDEN_BYTES_PER_ACCESS = 80
_MAX_FIBONACCI_K = 100_000  # F_100000 has 20 899 digits: ~0.1 s; a golden cycle stops at MAX_K anyway
# simulate(): per simulated access, the durations, tiled pages, their argsort and a
# few float64 work arrays (measured 82 B and 0.32 us on one core, F_20 x 20-200 cycles)
_SIMULATE_BYTES_PER_ACCESS = 100
_SIMULATE_SECONDS_PER_ACCESS = 0.5e-6
GOLDEN_SECONDS_PER_ACCESS = 0.7e-6


@dataclass(frozen=True, eq=False)
class Problem:
    """A validated scheduling instance."""

    rates: np.ndarray  # mu_i > 0
    weights: np.ndarray  # c_i > 0
    access: AccessTime
    h: np.ndarray  # h_i = E exp(-mu_i X) in (0, 1)

    @property
    def N(self) -> int:
        """N, the number of pages."""
        return self.rates.size

    @property
    def mean(self) -> float:
        """m = E[X], the mean access time."""
        return self.access.mean

    @property
    def nu(self) -> float:
        """nu = 1/E[X], the access rate (Coffman et al. 1997, Thm 3.4)."""
        return 1.0 / self.access.mean

    @property
    def mu(self) -> float:
        """mu = sum_i mu_i, the total change rate (it appears in C* = c0 (mu - nu + nu prod h), (10))."""
        return float(self.rates.sum())

    @property
    def c0(self) -> float | None:
        """c0 when c_i = c0 mu_i for every i (within ``FLOAT_REL``), else None."""
        ratio = self.weights / self.rates
        c0 = float(ratio.mean())
        return c0 if np.all(np.abs(ratio - c0) <= FLOAT_REL * c0) else None


def _require_finite_positive(values: np.ndarray, name: str) -> None:
    """InvalidInput naming the first entry of ``values`` that is not finite and > 0."""
    bad = np.flatnonzero(~(np.isfinite(values) & (values > 0)))
    if bad.size:
        i = int(bad[0])
        raise InvalidInput(name, "must be finite and > 0", value=float(values[i]), entry=i)


def make_problem(rates, access: AccessTime, weights=None) -> Problem:
    """Validate ``rates`` (> 0), ``weights`` (> 0, same length; default the
    rates) and ``h_i`` in (0, 1)."""
    mu = np.atleast_1d(np.asarray(rates, dtype=float))
    if mu.ndim != 1 or mu.size == 0:
        raise InvalidInput("rates", "must be a non-empty vector", value=mu.shape)
    _require_finite_positive(mu, "rates")
    if weights is None:
        c = mu.copy()
    else:
        c = np.atleast_1d(np.asarray(weights, dtype=float))
        if c.shape != mu.shape:
            raise InvalidInput("weights", f"must have one entry per page ({mu.size})", value=c.size)
        _require_finite_positive(c, "weights")
    if not isinstance(access, AccessTime):
        raise InvalidInput("access", "must be an AccessTime", value=type(access).__name__)
    return Problem(mu, c, access, access.h_checked(mu))


# ---------------------------------------------------------------- lower bound


@dataclass(frozen=True)
class FrequencyResult:
    """Optimal frequencies of a relaxation and its optimal value."""

    frequencies: np.ndarray
    lower_bound: float  # C* (Thm 3.4) or the randomized optimum (Thm 4.1)
    method: str
    iterations: int
    residual: float  # KKT: max relative stationarity violation, and |sum x - 1|
    multiplier: float  # lambda of (8) or (13)
    valid_closed_form: bool = True  # (15)'s validity condition (Thm 4.1), for randomized


# Pages per block when a generated float64 formula is evaluated over all pages:
# the formula's temporaries then stay in cache and bounded at any N.
_BLOCK = 1 << 16


def _blocks(n: int):
    for start in range(0, n, _BLOCK):
        yield slice(start, min(start + _BLOCK, n))


def lower_bound_objective(problem: Problem, x) -> float:
    """Objective (7): sum c_i r_i^LB(x_i) (Theorem 3.3), with r = 1 at x = 0."""
    x = np.asarray(x, dtype=float)
    total = 0.0
    for b in _blocks(x.size):
        xb = x[b]
        r = np.ones_like(xb)
        pos = xb > 0
        r[pos] = gen.rate_lower_bound(xb[pos], problem.mean, problem.rates[b][pos], problem.h[b][pos])
        total += float(problem.weights[b] @ r)
    return total


def _kkt_lower_bound(problem: Problem, x: np.ndarray, lam: float) -> float:
    """Relative KKT residual of (8)-(9): stationarity for x_i > 0, dual
    feasibility (dL/dx_i >= 0) at x_i = 0, and primal feasibility.  (8) is
    evaluated in its generated form, independently of the level form
    P(2, u) = t that ``scheduling_kernels.frequencies_at`` solves."""
    res = abs(float(x.sum()) - 1.0)
    for b in _blocks(x.size):
        xb, h, c, mu = x[b], problem.h[b], problem.weights[b], problem.rates[b]
        scale = gen.page_threshold_multiplier(c, mu, problem.nu)
        pos = xb > 0
        if pos.any():
            g = gen.lagrangian_stationarity(xb[pos], h[pos], c[pos], mu[pos], problem.nu, lam)
            res = max(res, float(np.max(np.abs(g) / np.maximum(lam, scale[pos]))))
        if not pos.all():
            # (8) as x -> 0+ is lambda - c nu/mu (derive.scheduling.exclusion_multiplier):
            # dual feasibility needs lambda >= the page's threshold c nu/mu.
            zero = scale[~pos]
            res = max(res, float(np.max(np.maximum(0.0, zero - lam) / zero)))
    return res


def _multiplier(problem: Problem) -> tuple[float, np.ndarray, int]:
    """(lambda, x(lambda), iterations) with sum x_i(lambda) = 1 (9).

    S(lambda) = sum x_i(lambda) decreases from +inf to 0 at lambda =
    max_i c_i nu/mu_i, and ln S is close to linear in ln lambda (x_i ~
    lambda^{-1/2} while t_i is small).  Its root is found by a Newton step on
    ln S from lambda = max_i c_i nu/mu_i / e and then secant steps on ln S
    against ln lambda (the slope of S is unbounded where a page reaches its
    threshold, so difference quotients serve better than derivatives there),
    each kept inside the bracket [lo, hi] the iteration maintains by
    bisection, until |S - 1| <= ``MULTIPLIER_SUM_ABS`` or the bracket closes to a
    rounding unit (then :func:`_across_jump`).  Steps multiply lambda by
    e^step rather than add to ln lambda, so lambda is resolved to its own
    rounding unit (ln lambda's is |ln lambda| times coarser), which matters
    where S is steep."""
    from . import _kernels as kern  # numba: imported by the general-weights route only

    eps = np.finfo(float).eps
    tau = gen.stationarity_level(1.0, problem.weights, problem.rates, problem.nu)  # t_i = lambda tau_i
    a = -np.log(problem.h)
    x = np.empty(problem.N)
    hi = float(np.max(gen.page_threshold_multiplier(problem.weights, problem.rates, problem.nu)))
    lo = 0.0
    lam, prev = hi / math.e, None
    steps = [math.inf, math.inf]  # |steps| in ln lambda two and one iterations back
    for iterations in range(1, 201):
        total, slope = kern.frequencies_at(lam, tau, a, x)
        if not (math.isfinite(total) and math.isfinite(slope)):
            raise SolverError(f"optimal_frequencies: x(lambda) not finite at lambda = {lam!r}")
        if abs(total - 1.0) <= MULTIPLIER_SUM_ABS:
            return lam, x, iterations
        g = math.log(total) if total > 0 else -math.inf
        if total > 1.0:
            lo = lam
        else:
            hi = lam
        if prev is None:
            step = g * total / slope if slope > 0 else math.nan
        else:
            step = -g * math.log(lam / prev[0]) / (g - prev[1]) if g != prev[1] else math.nan
        if hi <= lo * (1 + 4 * eps):
            return _across_jump(kern, lo, hi, tau, a, x, iterations)
        step = math.copysign(max(abs(step), 2 * eps), step)  # move lambda by at least a rounding unit
        prev = (lam, g)
        nxt = lam * math.exp(step) if math.isfinite(step) else math.nan
        # Bisect (in ln lambda) when the step leaves the bracket or is not half
        # the step two iterations back (Brent's rule: secant steps crawling to
        # a root next to a page's threshold, where x_i falls to 0 with
        # unbounded slope).
        if not lo < nxt < hi or abs(step) > 0.5 * steps[0]:
            nxt = math.sqrt(lo) * math.sqrt(hi) if lo > 0 else hi * math.exp(-5.0)
        steps = [steps[1], abs(math.log(nxt / lam))]
        lam = nxt
        if lam < math.exp(-700):
            raise SolverError("optimal_frequencies: could not bracket the multiplier of (8)-(9)")
    raise SolverError("optimal_frequencies: the multiplier iteration of (8)-(9) did not converge in 200 steps")


def _across_jump(kern, lo: float, hi: float, tau, a, x, iterations: int) -> tuple[float, np.ndarray, int]:
    """lo < hi a rounding unit or two apart with S(lo) > 1 > S(hi) beyond
    ``MULTIPLIER_SUM_ABS``: a page's x_i falls to 0 between them too steeply for float64
    (1 - t_i = (1 + u_i) e^{-u_i} stops at the rounding unit, so x_i = a_i/u_i
    jumps from about a_i/37 to 0).  The optimum lies on the segment between
    x(lo) and x(hi), both stationary to within a rounding unit of lambda:
    returns their convex combination with sum 1 (and lambda = lo)."""
    x_hi = np.empty_like(x)
    s_hi, _ = kern.frequencies_at(hi, tau, a, x_hi)
    s_lo, _ = kern.frequencies_at(lo, tau, a, x)
    alpha = (1.0 - s_hi) / (s_lo - s_hi)
    x *= alpha
    x += (1.0 - alpha) * x_hi
    return lo, x, iterations + 2


def _delivered(problem: Problem, res: FrequencyResult) -> FrequencyResult:
    """Result gate: frequencies finite in [0, 1] summing to 1, the KKT residual
    within ``FLOAT_REL`` (``not res <= tol``, so nan fails), and the optimum a
    cost sum c_i r_i with r_i in [0, 1]: 0 <= C <= sum c_i.  Otherwise the float
    route did not deliver (h_i near 0 or 1, weights spanning many decades)."""
    x = res.frequencies
    if not (np.all(np.isfinite(x)) and np.all((x >= 0) & (x <= 1 + STRUCTURE_ABS)) and abs(float(x.sum()) - 1) <= STRUCTURE_ABS):
        raise SolverError(f"{res.method}: frequencies are not a probability vector in float64 (sum {float(x.sum())!r})")
    if not res.residual <= FLOAT_REL:
        raise SolverError(f"{res.method}: KKT residual {res.residual:.3g} above the tolerance {FLOAT_REL:g}")
    total = float(problem.weights.sum())
    if not -STRUCTURE_ABS * total <= res.lower_bound <= total * (1 + STRUCTURE_ABS):
        raise SolverError(f"{res.method}: optimal cost {res.lower_bound!r} outside [0, sum c_i = {total:g}] "
                          "(cancellation in float64)")
    return res


def optimal_frequencies(problem: Problem) -> FrequencyResult:
    """The frequencies minimising (7) and C*.

    c_i = c0 mu_i: closed form (10) and (6).  General c_i: x_i(lambda) from
    (8) page by page (``scheduling_kernels.level_root``), lambda by
    safeguarded secant steps on ln sum x_i(lambda) = 0 so that (9) holds
    (:func:`_multiplier`); the KKT residual is evaluated on (8) as derived."""
    c0 = problem.c0
    if c0 is not None:
        S = float(np.log(problem.h).sum())  # ln y* = sum ln h_i, and prod h_i = e^S
        x = gen.optimal_frequency(problem.h, S)
        cstar = float(gen.cstar(c0, problem.mu, problem.nu, math.exp(S)))
        lam = float(gen.lower_bound_multiplier(c0, problem.nu, S))
        return _delivered(problem, FrequencyResult(x, cstar, "closed form (10), (6)", 0, _kkt_lower_bound(problem, x, lam), lam))
    lam, x, iterations = _multiplier(problem)
    x /= x.sum()
    return _delivered(problem, FrequencyResult(x, lower_bound_objective(problem, x), "KKT (8)-(9), safeguarded secant on ln lambda",
                                               iterations, _kkt_lower_bound(problem, x, lam), lam))


# ---------------------------------------------------------------- cyclic schedules


@dataclass(frozen=True)
class CostResult:
    """Exact cost of a cyclic schedule."""

    cost: float
    rates: np.ndarray  # r_i
    frequencies: np.ndarray  # m_K^i / K
    cycle_length: int
    method: str


def _as_sequence(sequence, N: int) -> np.ndarray:
    seq = np.asarray(sequence)
    if seq.ndim != 1 or seq.size == 0:
        raise InvalidInput("sequence", "must be a non-empty 1-D sequence of page indices", value=seq.shape)
    if not np.issubdtype(seq.dtype, np.integer):
        raise InvalidInput("sequence", "entries must be integers", value=str(seq.dtype))
    bad = np.flatnonzero((seq < 0) | (seq >= N))
    if bad.size:
        raise InvalidInput("sequence", f"entries must be page indices 0..{N - 1}", value=int(seq[bad[0]]), entry=int(bad[0]))
    counts = np.bincount(seq, minlength=N)
    missing = np.flatnonzero(counts == 0)
    if missing.size:
        raise InvalidInput("sequence", "every page must be accessed at least once per cycle", value=0, entry=int(missing[0]))
    return seq.astype(np.int64)


def interaccess_distances(sequence, N: int) -> tuple[np.ndarray, np.ndarray]:
    """(pages, d): for every access of the cycle, its page and the distance to
    the next access of the same page, cyclically (§2, d^i_j)."""
    seq = _as_sequence(sequence, N)
    K = seq.size
    order = np.argsort(seq, kind="stable")  # grouped by page, positions ascending
    counts = np.bincount(seq, minlength=N)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    nxt = np.empty(K, dtype=np.int64)
    nxt[:-1] = order[1:]
    ends = starts + counts - 1
    nxt[ends] = order[starts] + K
    return seq[order], nxt - order


def cyclic_cost(sequence, problem: Problem) -> CostResult:
    """C of a cyclic schedule: r_i = (1/(K E[X])) sum_j E[Z^i_j] ((3)) with
    Lemma 3.1 (its generated stable form, expm1(d ln h), keeps digits when
    mu_i is small)."""
    pages, d = interaccess_distances(sequence, problem.N)
    K = d.size
    z = gen.expected_obsolescence(d, problem.mean, problem.rates[pages], problem.h[pages])
    r = np.bincount(pages, weights=z, minlength=problem.N) / (K * problem.mean)
    freqs = np.bincount(pages, minlength=problem.N) / K
    return CostResult(float(problem.weights @ r), r, freqs, K, "exact: (3) with Lemma 3.1")


# ---------------------------------------------------------------- randomized policy


def randomized_cost(frequencies, problem: Problem) -> CostResult:
    """C of the randomized policy with access probabilities f_i (Lemma 4.1)."""
    f = np.asarray(frequencies, dtype=float)
    if f.shape != problem.rates.shape:
        raise InvalidInput("frequencies", f"must have one entry per page ({problem.N})", value=f.size)
    bad = np.flatnonzero(~((f > 0) & (f <= 1)))  # nan and inf fail too
    if bad.size:
        i = int(bad[0])
        raise InvalidInput("frequencies", "entries must lie in (0, 1]", value=float(f[i]), entry=i)
    if abs(f.sum() - 1) > STRUCTURE_ABS:
        raise InvalidInput("frequencies", "must sum to 1", value=float(f.sum()))
    r = gen.randomized_rate(f, problem.mean, problem.rates, problem.h)
    return CostResult(float(problem.weights @ r), np.asarray(r), f, 0, "Lemma 4.1")


def randomized_objective(problem: Problem, x) -> float:
    """Objective (12) (x_i = 0 allowed: the page is never accessed, r_i = 1)."""
    x = np.asarray(x, dtype=float)
    return float(np.sum(gen.randomized_objective_term(x, problem.h, problem.weights, problem.rates, problem.nu)))


def randomized_optimal(problem: Problem) -> FrequencyResult:
    """Frequencies minimising (12).  c_i = c0 mu_i: (16) and (11).  Otherwise
    (15) with x_i clipped at 0 (the KKT solution of the convex problem with
    x >= 0), lambda by Brent's method; ``valid_closed_form`` reports the
    printed validity condition min sqrt(c_i/mu_i) >= sum sqrt(c_i/mu_i)(1/h_i - 1)/(1 + G)."""
    g = 1 / problem.h - 1
    G = float(g.sum())
    sq = np.sqrt(problem.weights / problem.rates)
    valid = bool(sq.min() >= float(sq @ g) / (1 + G))
    c0 = problem.c0
    if c0 is not None:
        x = gen.randomized_frequency_proportional(problem.h, G)
        lam = float(gen.randomized_multiplier(c0, problem.nu, G))
        return _delivered(problem, FrequencyResult(x, float(gen.randomized_cstar(c0, problem.mu, problem.nu, G)), "closed form (16), (11)", 0, _kkt_randomized(problem, x, lam), lam, valid))

    def x_of(lam):
        return np.maximum(0.0, gen.randomized_frequency(problem.h, problem.weights, problem.rates, problem.nu, lam))

    hi = float(np.max(gen.page_threshold_multiplier(problem.weights, problem.rates, problem.nu)))
    lo = hi * 1e-3  # bracket search: lambda shrinks 1000-fold until sum x(lambda) >= 1 (a step, not a tolerance)
    while x_of(lo).sum() < 1:
        lo *= 1e-3
    lam, info = optimize.brentq(lambda v: x_of(v).sum() - 1, lo, hi, xtol=FLOAT_ROOT_ABS_FLOOR, rtol=FLOAT_ROOT_RTOL, full_output=True)
    x = x_of(lam)
    x = x / x.sum()
    return _delivered(problem, FrequencyResult(x, randomized_objective(problem, x), "KKT (13)-(15), Brent on lambda", info.iterations, _kkt_randomized(problem, x, lam), lam, valid))


def _kkt_randomized(problem: Problem, x: np.ndarray, lam: float) -> float:
    s = gen.page_threshold_multiplier(problem.weights, problem.rates, problem.nu)
    grad = gen.randomized_stationarity(x, problem.h, problem.weights, problem.rates, problem.nu, lam)
    res = abs(float(x.sum()) - 1.0)
    pos = x > 0
    if pos.any():
        res = max(res, float(np.max(np.abs(grad[pos]) / np.maximum(lam, s[pos]))))
    if (~pos).any():
        res = max(res, float(np.max(np.maximum(0.0, -grad[~pos]) / s[~pos])))
    return res


# ---------------------------------------------------------------- golden ratio policy


def fibonacci(k: int) -> int:
    """F_k with the text's Binet formula F_k = (phi^k - (1-phi)^k)/sqrt5: F_0 = 0, F_1 = 1
    (k <= `_MAX_FIBONACCI_K`: F_k has 0.209 k digits and k additions of them)."""
    k = require_int(k, "k", minimum=0)
    if k > _MAX_FIBONACCI_K:
        raise TooLarge("k", f"must be <= {_MAX_FIBONACCI_K} (F_k has about {0.209 * k:.3g} digits)", value=k)
    a, b = 0, 1
    for _ in range(k):
        a, b = b, a + b
    return a


def apportion(x, total: int) -> np.ndarray:
    """Integers M_i with floor(x_i F) <= M_i <= ceil(x_i F) and sum M_i = F
    (largest remainders; ties to the lower index)."""
    x = np.asarray(x, dtype=float)
    exact = x * total
    M = np.floor(exact).astype(np.int64)
    short = int(total - M.sum())
    if short:
        rem = exact - M
        M[np.argsort(-rem, kind="stable")[:short]] += 1
    return M


# floor(2^64 / phi): frac(j/phi) ~ (j * A mod 2^64) / 2^64 with an error below
# j * 2^-64, far under the smallest gap (about 1/(2.3 F_k)) of the points for
# F_k <= F_38; so the integer keys order the points exactly and without ties.
_A64 = np.uint64((math.isqrt(5 << 128) - (1 << 64)) // 2)


def golden_sequence(M) -> np.ndarray:
    """The cycle of gamma(k, N) for counts ``M`` (sum F_k): the s-th access is
    the s-th smallest of the points frac(j/phi), j = 1..F_k, and point j belongs
    to page i when M_1 + ... + M_{i-1} < j <= M_1 + ... + M_i.

    (The text numbers the points j = 0..F_k-1; that gives the same cycle
    rotated, and j = 1..F_k reproduces the printed example exactly.)"""
    M = np.asarray(M, dtype=np.int64)
    F = int(M.sum())
    with np.errstate(over="ignore"):
        keys = np.arange(1, F + 1, dtype=np.uint64) * _A64
    order = np.argsort(keys, kind="stable")
    owner = np.repeat(np.arange(M.size, dtype=np.int64), M)
    return owner[order]


@dataclass(frozen=True)
class GoldenSchedule:
    """The golden-ratio schedule gamma(k, N) of §5 (Coffman et al. 1997): k, the cycle length F_k, the access counts M^i_{k,N}
    per page, the target frequencies x_i apportioned, and the access sequence (0-based page indices).
    """
    k: int
    F: int  # F_k, the cycle length
    counts: np.ndarray  # M^i_{k,N}
    frequencies: np.ndarray  # the x_i apportioned
    sequence: np.ndarray  # page indices, 0-based


def golden_schedule(frequencies, k: int) -> GoldenSchedule:
    """gamma(k, N) for target frequencies x (normally (10))."""
    x = np.asarray(frequencies, dtype=float)
    k = require_int(k, "k", minimum=2)
    require_golden_budget(k)
    F = fibonacci(k)
    M = apportion(x, F)
    empty = np.flatnonzero(M == 0)
    if empty.size:
        raise InvalidInput("k", f"F_k = {F} gives page {int(empty[0]) + 1} no access; increase k", value=k, entry=int(empty[0]))
    return GoldenSchedule(k, F, M, x, golden_sequence(M))


def golden_estimate(k: int) -> tuple[float, float]:
    """(bytes, seconds) estimated for gamma(k, N) and its cyclic cost: linear
    in the cycle length F_k, whatever N (the apportionment is O(N)).

    >>> golden_estimate(20)   # F_20 = 6765 accesses
    (541200, 0.0047355)
    """
    F = fibonacci(k)
    return GOLDEN_BYTES_PER_ACCESS * F, GOLDEN_SECONDS_PER_ACCESS * F


def require_golden_budget(k: int, argument: str = "k", *, extra: tuple[float, float] = (0.0, 0.0),
                          what: str = "") -> None:
    """Refuse (`TooLarge`) gamma(k, N) above k = MAX_K or above the memory and
    time limits, before allocating; ``extra`` (bytes, seconds) adds the
    caller's own per-cycle costs (the CLI's JSON text)."""
    if k > MAX_K:
        raise TooLarge(argument, f"must be <= {MAX_K} (F_{MAX_K} = {fibonacci(MAX_K)} accesses per cycle)", value=k)
    nbytes, seconds = golden_estimate(k)
    what = f"the golden cycle F_{k} = {fibonacci(k)} accesses{what}"
    require_memory(nbytes + extra[0], argument, what, value=k)
    require_seconds(seconds + extra[1], argument, what, value=k)


def default_k(x) -> int:
    """Smallest k with every floor(x_i F_k) >= 1 and F_k >= 64 N, capped at MAX_K."""
    x = np.asarray(x, dtype=float)
    k = 2
    while k < MAX_K and (fibonacci(k) < 64 * x.size or np.floor(x.min() * fibonacci(k)) < 1):
        k += 1
    return k


def golden_bracket(x: float) -> int:
    """j_i with F_j, F_{j+1}, F_{j+2} the inter-access distances of a page of
    frequency x: j = ceil(log_phi(1/x)) (found by the checks of this module;
    the texts print floor(ln_phi x) and ceil(ln_phi f))."""
    j = math.ceil(math.log(1 / x) / math.log(PHI) - GOLDEN_BRACKET_REL)
    while PHI ** (-j) > x * (1 + GOLDEN_BRACKET_REL):
        j += 1
    return j


def golden_limit_cost(problem: Problem, x=None) -> float:
    """C(gamma(N)) = lim_k C(gamma(k, N)), the limit formula of §5 with
    j_i = golden_bracket(x_i); x defaults to (10).  The sum over pages of
    ``golden_limit_page_cost`` (derived in :mod:`crawlmath.derive.golden`
    from the three-gap counts: weights (x - phi^-j), (x - phi^-j-1),
    (phi^-j+1 - x) of the distances F_j, F_{j+1}, F_{j+2})."""
    c0 = problem.c0
    if c0 is None:
        raise InvalidInput("weights", "the golden-ratio limit formula assumes c_i = c0 mu_i")
    if x is None:
        x = optimal_frequencies(problem).frequencies
    x = np.asarray(x, dtype=float)
    j = np.array([golden_bracket(float(xi)) for xi in x])
    h_at = [problem.h ** np.array([fibonacci(int(ji) + n) for ji in j], dtype=float) for n in range(3)]
    terms = ggen.golden_limit_page_cost(c0, problem.rates, problem.nu, x, PHI ** -j.astype(float), *h_at)
    return math.fsum(terms)


# ---------------------------------------------------------------- simulation


@dataclass(frozen=True)
class SimulationResult:
    """Monte Carlo estimate from :func:`simulate`: obsolescence rates r_i and cost C = sum c_i r_i with batch-means standard
    errors, accesses simulated, batch count, wall time in s and the method used.
    """
    rates: np.ndarray  # estimated r_i
    rates_stderr: np.ndarray
    cost: float
    cost_stderr: float
    accesses: int
    batches: int
    seconds: float
    method: str


def simulate(sequence, problem: Problem, cycles: int, *, seed: int = 0, batches: int = 20) -> SimulationResult:
    """Monte Carlo estimate of r_i under the cyclic schedule ``sequence``.

    Access durations are drawn from X; page i changes as a Poisson process
    of rate mu_i, so (memorylessness) its first change after a completion of
    page i comes an Exp(mu_i) time later, and the page is out of date for
    (X^i_j - R)^+ of the next intercompletion time X^i_j ((5)).  r_i is the
    ratio estimator of (2) over ``cycles`` cycles; standard errors by batch
    means over ``batches`` equal groups of cycles."""
    seq = _as_sequence(sequence, problem.N)
    cycles = require_int(cycles, "cycles", minimum=2)
    batches = require_int(batches, "batches", minimum=2)
    if cycles < batches:
        raise InvalidInput("cycles", f"must be >= batches ({batches})", value=cycles)
    n = float(seq.size) * cycles
    what = f"{cycles} cycles of {seq.size} accesses"
    require_memory(_SIMULATE_BYTES_PER_ACCESS * n, "cycles", what, value=cycles)
    require_seconds(_SIMULATE_SECONDS_PER_ACCESS * n, "cycles", what, value=cycles)
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    K = seq.size
    n = K * cycles
    done = np.cumsum(problem.access.sample(rng, n))
    pages = np.tile(seq, cycles)
    order = np.argsort(pages, kind="stable")
    pg = pages[order]
    first = np.ones(n, dtype=bool)
    first[1:] = pg[1:] != pg[:-1]
    prev_done = np.empty(n)
    prev_done[1:] = done[order][:-1]
    L = done[order] - prev_done
    keep = ~first  # the first access of each page has no preceding completion
    L, pg_k = L[keep], pg[keep]
    Z = np.maximum(0.0, L - rng.exponential(1.0, L.size) / problem.rates[pg_k])
    batch = (order[keep] // K) * batches // cycles
    idx = pg_k * batches + batch
    sz = np.bincount(idx, weights=Z, minlength=problem.N * batches).reshape(problem.N, batches)
    sl = np.bincount(idx, weights=L, minlength=problem.N * batches).reshape(problem.N, batches)
    r = sz.sum(axis=1) / sl.sum(axis=1)
    rb = sz / sl
    se = rb.std(axis=1, ddof=1) / math.sqrt(batches)
    cb = problem.weights @ rb
    return SimulationResult(r, se, float(problem.weights @ r), float(cb.std(ddof=1) / math.sqrt(batches)), n, batches, time.perf_counter() - t0, "Monte Carlo, (5) and ratio estimator (2), batch means")
