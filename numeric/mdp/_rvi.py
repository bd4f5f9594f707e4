"""Relative value iteration of the crawler MDP exactly as Liu–Nain (2005) Proposition 6, with its stopping rule."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ..errors import InvalidInput, SolverError, TooLarge
from ..validate import require_int, require_open_unit, require_positive
from ._model import MAX_STATES, CrawlerMDP, _greedy


RVI_STOP = 1e-5  # the paper's stopping threshold of Prop. 6 as used in §1.2.2-1.2.3 (reproduced, not a crawlmath tolerance)


# ------------------------------------------------------------------ solvers


# The reading of Proposition 6 that reproduces every printed RVI number of
# §1.2.2-1.2.3 (benchmarks/rvi_readings.py; claim liu-nain.dynamic.rvi-reading):
# x̂ = (1, 1, 1), h_0 = 0, τ = 0.99999, stop at the first k with
# max_x |(h_k(x) − h_{k−1}(x))/h_{k−1}(x)| < 1e-5, C_d = T(h_k)(x̂).
RVI_REFERENCE = (1, 1, 1)
RVI_H0 = ("zero", "cost")


@dataclass(frozen=True)
class RVIResult:
    """Relative value iteration stopped at h_k.

    ``iterations`` is k, the number of updates h_{j−1} -> h_j made (the count
    Figures 1.5-1.7 print); ``evaluations`` = k + 1 counts the evaluations of
    T, the last one T(h_k) giving the gain and the policy (the count Table
    1.2 prints).  ``gain`` is T(h_k)(x̂)."""

    gain: float
    policy: np.ndarray = field(repr=False)
    h: np.ndarray = field(repr=False)
    iterations: int
    gain_bounds: tuple[float, float]
    relative_change: float  # the stopping statistic at the stop (nan when ``sweeps`` fixed the count)
    tau: float
    reference: tuple
    h0: str = "zero"
    precision: str = "double"
    method: str = "rvi"

    @property
    def evaluations(self) -> int:
        """k + 1: the number of evaluations of T (the count Table 1.2 prints)."""
        return self.iterations + 1


def relative_value_iteration(mdp: CrawlerMDP, *, tau: float = 0.99999, reference=None, h0="zero",
                             tol: float = RVI_STOP, max_iter: int = 1_000_000, sweeps: int | None = None,
                             precision: str = "double") -> RVIResult:
    """Relative value iteration exactly as Proposition 6:

    h_{k+1}(x) = (1−τ) h_k(x) + τ (T(h_k)(x) − T(h_k)(x̂)),

    stopped at the first k with max_x |(h_k(x) − h_{k−1}(x))/h_{k−1}(x)| < ``tol``
    (strict; a state with h_{k−1}(x) = 0 counts as converged only if h_k(x) = 0
    too, so x̂, where h ≡ 0, never blocks the stop).  With ``sweeps`` the test
    is skipped and exactly that many updates are made.

    The text states neither x̂ nor h_0.  The defaults are the reading that
    reproduces every printed count and C_d of §1.2.2-1.2.3: x̂ = (1, 1, 1)
    (``reference``: a state (q, r, s) or its index) and h_0 = 0 (``h0``:
    "zero", "cost" for h_0 = c, or an array; h_0(x̂) is set to 0).  The gain
    returned is T(h_k)(x̂) — not τ·T(h_k)(x̂) as printed (see the registry
    erratum) — with the bounds min/max of T(h_k) − h_k, which bracket the
    optimal gain of a (weakly) communicating MDP.

    ``precision="extended"`` runs the same recursion in numpy's long double
    with explicit gathers (another summation order and a 64-bit mantissa on
    x86-64): a second route for the printed digits of the gain.

    >>> m = CrawlerMDP(lam=0.1, mu=1, K=5, N=16, gamma=1)
    >>> r = relative_value_iteration(m)
    >>> r.reference, r.iterations, round(r.gain, 5)
    ((1, 1, 1), 254, 0.20907)
    """
    tau = require_open_unit(tau, "tau")
    tol = require_positive(tol, "tol")
    max_iter = require_int(max_iter, "max_iter", minimum=1)
    if sweeps is not None:
        sweeps = require_int(sweeps, "sweeps", minimum=1)
    if precision not in ("double", "extended"):
        raise InvalidInput("precision", "must be 'double' or 'extended'", value=precision)
    ref = _reference_index(mdp, reference)
    dtype = np.longdouble if precision == "extended" else np.float64
    h, h0_name = _initial_h(mdp, h0, dtype)
    h[ref] = 0
    if precision == "double":
        k, stat, stopped = _rvi_double(mdp, h, ref, float(tau), float(tol), max_iter, -1 if sweeps is None else sweeps)
        if not stopped:
            raise SolverError(f"relative value iteration did not meet its stopping rule in {max_iter} iterations (last {stat:.3g})")
    else:
        h, k, stat = _rvi_extended(mdp, h, ref, tau, tol, max_iter, sweeps)
    Q = _q_values(mdp, h, precision)
    Th = Q.min(axis=1)
    gap = Th - h
    return RVIResult(float(Th[ref]), _greedy(mdp, Q.astype(float)), h.astype(float), k,
                     (float(gap.min()), float(gap.max())), stat, float(tau),
                     tuple(int(v) for v in mdp.states[ref]), h0_name, precision)


def rvi_stop_counts(mdp: CrawlerMDP, references, *, tau: float = 0.99999, h0: str = "zero", tol: float = RVI_STOP,
                    max_iter: int = 100_000) -> tuple[np.ndarray, np.ndarray]:
    """The reading search of Proposition 6: for every x̂ in ``references``
    (states (q, r, s) or indices), the stop k of :func:`relative_value_iteration`
    and its gain T(h_k)(x̂), all runs advanced together as the columns of one
    n × m array (memory 8·n·m bytes, checked against :data:`MAX_STATES`).
    A run that has not stopped after ``max_iter`` updates gets k = −1.

    Each column follows h_{k+1} = (1−τ) h_k + τ (T(h_k) − T(h_k)(x̂)) with the
    stop max_x |Δh/h| < ``tol`` of :func:`relative_value_iteration`; one
    compiled pass per update (:func:`_rvi_block_kernel`) forms P(a) h_k from
    the rows of the CSR matrices P(0), P(1) in their stored order, i.e. with
    the same floating-point operations, in the same order, as scipy's sparse
    product, so k and T(h_k)(x̂) are those of the sparse float64 recursion.
    A run that has stopped is swapped out of the columns still updated (the
    runs stop up to ~40% apart).
    """
    refs = np.array([_reference_index(mdp, x) for x in references], dtype=np.int64)
    if refs.size == 0 or mdp.n * refs.size > 50 * MAX_STATES:
        raise TooLarge("references", f"n·m must lie in 1..{50 * MAX_STATES}", value=mdp.n * refs.size)
    tau = require_open_unit(tau, "tau")
    tol = require_positive(tol, "tol")
    max_iter = require_int(max_iter, "max_iter", minimum=1)
    H = np.repeat(_initial_h(mdp, h0, np.float64)[0][:, None], refs.size, axis=1)
    H[refs, np.arange(refs.size)] = 0.0
    P0, P1 = mdp.P
    bar0 = np.where(mdp.allowed[:, 0], 0.0, np.inf)  # +inf masks a ∉ A_x
    bar1 = np.where(mdp.allowed[:, 1], 0.0, np.inf)
    stop, gain = np.full(refs.size, -1, dtype=np.int64), np.full(refs.size, np.nan)
    _rvi_block_kernel()(P0.indptr, P0.indices, P0.data, P1.indptr, P1.indices, P1.data, bar0, bar1,
                        mdp.cost.astype(float), refs, H, float(tau), float(tol), max_iter, stop, gain)
    return stop, gain


@lru_cache(maxsize=None)
def _rvi_block_kernel():
    """The compiled update loop of :func:`rvi_stop_counts` (numba is imported
    on first use only, so importing this module stays cheap)."""
    from numba import njit  # lazy: compiled on first use; importing this module stays cheap

    @njit(cache=True, error_model="numpy")  # x/0 gives inf or nan, as in numpy
    def kernel(ptr0, col0, val0, ptr1, col1, val1, bar0, bar1, cost, refs, H, tau, tol, max_iter, stop, gain):
        n, m = H.shape
        keep = 1.0 - tau
        TH = np.empty((n, m))
        acc0, acc1 = np.empty(m), np.empty(m)
        ref_T, worst = np.empty(m), np.empty(m)
        run = np.arange(m)  # run[j]: the reference whose recursion occupies column j
        refs = refs.copy()
        left = m  # the runs still going occupy columns 0..left-1: a stopped run is swapped out of that range
        for k in range(1, max_iter + 1):
            for i in range(n):
                # y = P h row by row, summed in CSR order from 0.0 as scipy's csr_matvecs does
                acc0[:left] = 0.0
                acc1[:left] = 0.0
                for p in range(ptr0[i], ptr0[i + 1]):
                    a, c = val0[p], col0[p]
                    for j in range(left):
                        acc0[j] += a * H[c, j]
                for p in range(ptr1[i], ptr1[i + 1]):
                    a, c = val1[p], col1[p]
                    for j in range(left):
                        acc1[j] += a * H[c, j]
                for j in range(left):
                    TH[i, j] = cost[i] + min(acc0[j] + bar0[i], acc1[j] + bar1[i])
            for j in range(left):
                ref_T[j] = TH[refs[j], j]
                worst[j] = 0.0
            for i in range(n):
                for j in range(left):
                    h = H[i, j]
                    new = keep * h + tau * (TH[i, j] - ref_T[j])
                    # |Δh/h|: inf where h = 0 < |Δh|, nan where h = Δh = 0, which the comparison skips (rel 0)
                    rel = abs(new - h) / abs(h)
                    if rel > worst[j]:
                        worst[j] = rel
                    H[i, j] = new
            for j in range(left - 1, -1, -1):  # downwards: the column swapped in from above is already checked
                if worst[j] < tol:
                    stop[run[j]] = k
                    x = refs[j]  # T(h_k)(x̂) from the row of x̂ alone
                    y0, y1 = 0.0, 0.0
                    for p in range(ptr0[x], ptr0[x + 1]):
                        y0 += val0[p] * H[col0[p], j]
                    for p in range(ptr1[x], ptr1[x + 1]):
                        y1 += val1[p] * H[col1[p], j]
                    gain[run[j]] = cost[x] + min(y0 + bar0[x], y1 + bar1[x])
                    left -= 1
                    for i in range(n):
                        H[i, j], H[i, left] = H[i, left], H[i, j]
                    refs[j], refs[left] = refs[left], refs[j]
                    run[j], run[left] = run[left], run[j]
            if left == 0:
                return

    return kernel


def _reference_index(mdp: CrawlerMDP, reference) -> int:
    """x̂ as an index of X: None (the default x̂ = (1, 1, 1)), a state (q, r, s) or an index."""
    if reference is None:
        return mdp.state_index(*RVI_REFERENCE)
    if isinstance(reference, (tuple, list)):
        x = tuple(int(v) for v in reference)
        if len(x) != 3 or not (0 <= x[0] <= mdp.K and 0 <= x[1] <= mdp.N and 0 <= x[2] <= 2) or mdp.index[x] < 0:
            raise InvalidInput("reference", f"must be a state (q, r, s) of X (K={mdp.K}, N={mdp.N})", value=reference)
        return int(mdp.index[x])
    i = require_int(reference, "reference", minimum=0)
    if i >= mdp.n:
        raise InvalidInput("reference", f"index must be below |X| = {mdp.n}", value=i)
    return i


def _initial_h(mdp: CrawlerMDP, h0, dtype) -> tuple[np.ndarray, str]:
    if isinstance(h0, str):
        if h0 not in RVI_H0:
            raise InvalidInput("h0", f"must be one of {RVI_H0} or an array", value=h0)
        return (np.zeros(mdp.n, dtype=dtype) if h0 == "zero" else mdp.cost.astype(dtype)), h0
    h = np.array(h0, dtype=dtype)
    if h.shape != (mdp.n,) or not np.all(np.isfinite(h)):
        raise InvalidInput("h0", f"must be {mdp.n} finite numbers", value=h.shape)
    return h, "given"


def _rvi_extended(mdp: CrawlerMDP, h: np.ndarray, ref: int, tau: float, tol: float, max_iter: int,
                  sweeps: int | None) -> tuple[np.ndarray, int, float]:
    """The recursion of :func:`relative_value_iteration` in long double: (h_k, k, last stopping statistic).

    Both actions and their three successors are advanced as one (2, 3, n) block on preallocated buffers
    (the long-double arithmetic itself, ~5 ns per element in numpy, is what remains); every rounding is
    that of h_{k+1} = (1 − τ) h_k + τ (T(h_k) − T(h_k)(x̂)) with T of :func:`_extended_operator`
    (tests/test_mdp.py checks the bits against the plain expression)."""
    step = _extended_operator(mdp)
    tau_ = np.longdouble(tau)
    keep = 1 - tau_
    new = np.empty_like(h)
    k, stat = 0, math.nan
    while True:
        Th = step(h)
        Th -= Th[ref].copy()
        Th *= tau_
        np.multiply(h, keep, out=new)
        new += Th
        k += 1
        if sweeps is None:
            diff = np.abs(new - h)
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                rel = np.where(h != 0, diff / np.abs(h), np.where(diff == 0, 0.0, np.inf))
            stat = float(rel.max())
        h, new = new, h
        if (sweeps is None and stat < tol) or k == sweeps:
            return h, k, stat
        if k >= max_iter:
            raise SolverError(f"relative value iteration did not meet its stopping rule in {max_iter} iterations (last {stat:.3g})")


def _extended_operator(mdp: CrawlerMDP):
    """h -> T(h) in long double by explicit gathers: T(h)(x) = c(x) + min_a y_a(x) with
    y_a = (p_0 h(x_0) + p_1 h(x_1)) + p_2 h(x_2), the three successors summed left to right (as numpy
    sums a row of 3), and y_a = +inf where a ∉ A_x.  Setting +inf there instead of adding a mask of
    0/+inf changes at most the sign of a zero y_a, which c + min(y_0, y_1) cannot see (c ≥ 0), so T(h)
    has the bits of the masked sum.  The returned array is a buffer reused by the next call."""
    n = mdp.n
    cost = mdp.cost.astype(np.longdouble)
    barred = ~mdp.allowed.T
    # (2, 3, n): action, successor, state -- contiguous per (action, successor)
    idx = np.ascontiguousarray(np.stack([s[0].T for s in mdp.successors]))
    prob = np.ascontiguousarray(np.stack([s[1].T for s in mdp.successors]).astype(np.longdouble))
    terms = np.empty((2, 3, n), dtype=np.longdouble)
    y = np.empty((2, n), dtype=np.longdouble)
    Th = np.empty(n, dtype=np.longdouble)

    def step(h):
        np.multiply(h[idx], prob, out=terms)
        np.add(terms[:, 0], terms[:, 1], out=y)
        np.add(y, terms[:, 2], out=y)
        y[barred] = np.inf
        np.minimum(y[0], y[1], out=Th)
        return np.add(Th, cost, out=Th)

    return step


def _rvi_double(mdp: CrawlerMDP, h: np.ndarray, ref: int, tau: float, tol: float, max_iter: int,
                sweeps: int) -> tuple[int, float, bool]:
    """The float64 recursion of :func:`relative_value_iteration`, h updated in place: (k, last stopping
    statistic, whether the stop (or ``sweeps`` > 0 updates) was reached within ``max_iter``).

    P(a) h is formed from the CSR rows of P(0), P(1) in their stored order, summed from 0.0, as scipy's
    sparse product does, and every other operation is that of the numpy expression
    h_{k+1} = (1 − τ) h_k + τ (T(h_k) − T(h_k)(x̂)): the iterates, k and the statistic are those of the
    sparse float64 recursion bit for bit (tests/test_mdp.py checks it against that recursion)."""
    P0, P1 = mdp.P
    bar0 = np.where(mdp.allowed[:, 0], 0.0, np.inf)  # +inf masks a ∉ A_x
    bar1 = np.where(mdp.allowed[:, 1], 0.0, np.inf)
    out = np.zeros(2)
    k = _rvi_single_kernel()(P0.indptr, P0.indices, P0.data, P1.indptr, P1.indices, P1.data, bar0, bar1,
                             mdp.cost.astype(float), ref, h, tau, tol, max_iter, sweeps, out)
    return int(k), float(out[0]), bool(out[1])


@lru_cache(maxsize=None)
def _rvi_single_kernel():
    """The compiled loop of :func:`_rvi_double` (numba imported on first use)."""
    from numba import njit  # lazy: compiled on first use; importing this module stays cheap

    @njit(cache=True, error_model="numpy")
    def kernel(ptr0, col0, val0, ptr1, col1, val1, bar0, bar1, cost, ref, h, tau, tol, max_iter, sweeps, out):
        n = h.shape[0]
        keep = 1.0 - tau
        Th = np.empty(n)
        stat = np.nan
        k = 0
        while True:
            for i in range(n):
                y0 = 0.0
                for p in range(ptr0[i], ptr0[i + 1]):
                    y0 += val0[p] * h[col0[p]]
                y1 = 0.0
                for p in range(ptr1[i], ptr1[i + 1]):
                    y1 += val1[p] * h[col1[p]]
                Th[i] = cost[i] + min(y0 + bar0[i], y1 + bar1[i])
            t_ref = Th[ref]
            worst = 0.0
            for i in range(n):
                new = keep * h[i] + tau * (Th[i] - t_ref)
                if sweeps < 0:
                    diff = abs(new - h[i])
                    if h[i] != 0:
                        rel = diff / abs(h[i])
                    elif diff == 0:
                        rel = 0.0
                    else:
                        rel = np.inf
                    if rel > worst:
                        worst = rel
                h[i] = new
            k += 1
            if sweeps < 0:
                stat = worst
            if (sweeps < 0 and stat < tol) or k == sweeps:
                out[0], out[1] = stat, 1.0
                return k
            if k >= max_iter:
                out[0], out[1] = stat, 0.0
                return k

    return kernel


def _q_values(mdp: CrawlerMDP, h: np.ndarray, precision: str) -> np.ndarray:
    if precision == "double":
        return mdp.q_values(np.asarray(h, dtype=float))
    Q = np.empty((mdp.n, 2), dtype=np.longdouble)
    cost = mdp.cost.astype(np.longdouble)
    for a in (0, 1):
        idx, prob = mdp.successors[a]
        Q[:, a] = cost + (prob.astype(np.longdouble) * h[idx]).sum(axis=1)
    Q[~mdp.allowed] = np.inf
    return Q
