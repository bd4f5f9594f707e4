"""Dynamic crawler activation: the average-cost MDP of Liu–Nain (2005, §1.2.2).

Notation of the paper: K the buffer size (including the page in service),
N the number of available crawlers, each active crawler brings pages at rate
``lam`` (λ), pages are indexed at rate ``mu`` (μ), ``gamma`` (γ) weighs the
starvation probability against the loss rate.  The process is uniformised at
ν = λN + μ; a state x = (q, r, s) is the queue length q and the number r of
active crawlers just *before* a decision epoch of type s (0 departure,
1 arrival, 2 fictitious).  The one-step cost is (1.13)
c(x) = γ·1(q = 0) + ν·1(q = K, s = 1), whatever the action.

The transition law, worked out from the prose of §1.2.2 (the arriving crawler
is deactivated and the action a = 1 reactivates it; at a departure a = 1
activates one more crawler if any is available):

- departure, s = 0: (q, r) -> (q − 1, min(r + a, N));
- arrival, s = 1: (q, r) -> (min(q + 1, K), r − 1 + a);
- fictitious, s = 2: (q, r) unchanged (only a = 0 allowed);

and the type of the next epoch is a departure w.p. μ·1(q' > 0)/ν, an arrival
w.p. λr'/ν and fictitious otherwise, where (q', r') is the post-decision
state.  The printed (1.14) and (1.15) differ from this; see
:func:`printed_row_sums` and :func:`printed_successors_outside`.

Solvers: :func:`relative_value_iteration` (Proposition 6, with its stopping
rule; x̂ = (1, 1, 1) and h_0 = 0 by default, the reading of the unstated
choices that reproduces every printed count and C_d, found by
:func:`rvi_stop_counts` over all x̂), :func:`policy_iteration` (exact policy evaluation by LU,
then :func:`certified_gain`: improvement on exact Q-values, θ from a relative-accurate
stationary law and valid Odoni bounds, so tiny gains keep their digits),
:func:`gain_hp` (≥ 30 digits by mixed-precision iterative refinement with exact residuals) and
:func:`gain_exact` (exact rationals on the continuous-time chain, python-flint).

>>> m = CrawlerMDP(lam=0.1, mu=1, K=5, N=16, gamma=1)
>>> res = policy_iteration(m)
>>> round(res.gain, 5)
0.20907
>>> res.n_min, res.n_max
(4, 14)
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property, lru_cache

import numpy as np
import scipy.sparse as sps
import scipy.sparse.csgraph as csgraph
import scipy.sparse.linalg as spla

from .. import exact as ex
from ..static import _mm1k as static_mm1k
from ..markov._average_cost import bordered_lu as _bordered_lu, closed_classes
from ..markov._ctmc import fixed_point, integer_ratio
from ..errors import InvalidInput, SolverError, TooLarge
from ..generated import static_mm1k as static_gen
from ..tolerance import CURVES_FLOAT_GAIN, MDP_TIE_REL as TIE_REL, STRUCTURE_ABS
from ..validate import require_float_magnitude, require_int, require_open_unit, require_positive

MAX_STATES = 2_000_000  # 3(K+1)(N+1) above this is refused up front
RVI_STOP = 1e-5  # the stopping threshold of Prop. 6 as used in §1.2.2-1.2.3


# ---------------------------------------------------------------- the model


def require_uniformisable(lam: float, mu: float, N: int, names: tuple[str, str] = ("lam", "mu")) -> None:
    """ν = λN + μ must be finite and λ/ν, μ/ν normal doubles (Liu–Nain §1.2.2 uniformises at ν), else the
    float64 chain degenerates to nan or 0 before any solver runs; ``names`` are the arguments the error names
    (the CLI's options).

    >>> require_uniformisable(1e308, 1.0, 16)
    Traceback (most recent call last):
    ...
    crawlmath.numeric.errors.InvalidInput: lam: the uniformisation rate lam N + mu overflows float64 at N = 16 (got 1e+308)
    """
    nu = lam * N + mu
    if not math.isfinite(nu):
        raise InvalidInput(names[0], f"the uniformisation rate lam N + mu overflows float64 at N = {N}", value=lam)
    for name, short, rate in ((names[1], "mu", mu), (names[0], "lam", lam)):
        if not rate / nu >= sys.float_info.min:
            raise InvalidInput(name, f"{short}/(lam N + mu) = {rate / nu:.3g} at N = {N} is below the smallest "
                                     "normal double: the rates are too far apart for the float64 MDP", value=rate)


@dataclass(frozen=True)
class CrawlerMDP:
    """One instance (λ, μ, K, N, γ) of the MDP, with its state space X,
    action sets A_x, cost (1.13) and sparse transition matrices P(0), P(1).

    λ, μ, γ may be any number :func:`crawlmath.numeric.exact.exact` reads
    (ints, Fractions, SymPy Rationals, Decimals, decimal strings, floats);
    they are kept as floats for the float routes and, through :meth:`exact`,
    as the exact numbers they name (a float as its shortest decimal, so 0.1
    is 1/10) for the exact and high-precision routes; ``inputs`` says which.
    """

    lam: float
    mu: float
    K: int
    N: int
    gamma: float
    law: str = "corrected"  # or "printed-1.14": arrival prob λr/ν with the pre-decision r after a departure

    def __post_init__(self):
        if self.law not in ("corrected", "printed-1.14"):
            raise InvalidInput("law", "must be 'corrected' or 'printed-1.14'", value=self.law)
        given = [getattr(self, name) for name in ("lam", "mu", "gamma")]
        exact_values = {name: ex.exact(v, argument=name) for name, v in zip(("lam", "mu", "gamma"), given)}
        for name, value in exact_values.items():
            require_positive(value, name)
            require_float_magnitude(value, name, str(value))  # the float64 MDP and its integer scalings need it
            object.__setattr__(self, name, ex.to_float(value, argument=name))
        # not fields: equality, hashing and repr stay those of the float parameters
        object.__setattr__(self, "_exact", exact_values)
        object.__setattr__(self, "inputs", ex.input_kind(given))
        object.__setattr__(self, "K", require_int(self.K, "K", minimum=2))
        object.__setattr__(self, "N", require_int(self.N, "N", minimum=1))
        if 3 * (self.K + 1) * (self.N + 1) > MAX_STATES:
            raise TooLarge("N", f"3(K+1)(N+1) states must be <= {MAX_STATES}", value=self.N)
        require_uniformisable(self.lam, self.mu, self.N)

    # -- exact parameters
    def exact(self, name: str) -> Fraction:
        """The parameter ``name`` (``'lam'``, ``'mu'``, ``'gamma'``, ``'K'``, ``'N'``) as the exact
        number the caller gave (a float read as its shortest decimal)."""
        return self._exact[name] if name in self._exact else Fraction(getattr(self, name))

    @property
    def nu(self) -> float:
        """ν = λN + μ, the uniformisation rate."""
        return self.lam * self.N + self.mu

    # -- state space
    @cached_property
    def states(self) -> np.ndarray:
        """X as an (n, 3) integer array of (q, r, s), lexicographic order."""
        q, r, s = np.meshgrid(np.arange(self.K + 1), np.arange(self.N + 1), np.arange(3), indexing="ij")
        q, r, s = q.ravel(), r.ravel(), s.ravel()
        keep = ~(((q == 0) & (r == 0) & (s == 2)) | ((q == 0) & (s == 0)) | ((r == 0) & (s == 1)))
        return np.stack([q[keep], r[keep], s[keep]], axis=1)

    @cached_property
    def index(self) -> np.ndarray:
        """index[q, r, s] = position in X, or -1 for a triple outside X."""
        idx = np.full((self.K + 1, self.N + 1, 3), -1, dtype=np.int64)
        q, r, s = self.states.T
        idx[q, r, s] = np.arange(len(q))
        return idx

    @property
    def n(self) -> int:
        """|X|, the number of states (q, r, s)."""
        return len(self.states)

    def state_index(self, q: int, r: int, s: int) -> int:
        """Position of x = (q, r, s) in X; InvalidInput when the triple is not a state."""
        i = int(self.index[q, r, s]) if 0 <= q <= self.K and 0 <= r <= self.N and 0 <= s <= 2 else -1
        if i < 0:
            raise InvalidInput("state", "is not in X", value=(q, r, s))
        return i

    @cached_property
    def allowed(self) -> np.ndarray:
        """(n, 2) boolean: allowed[x, a] iff a ∈ A_x."""
        q, r, s = self.states.T
        a0 = ~((q == 1) & (r == 0) & (s == 0))
        a1 = s != 2
        return np.stack([a0, a1], axis=1)

    @cached_property
    def cost(self) -> np.ndarray:
        """c(x) = γ 1(q=0) + ν 1(q=K, s=1)  (1.13)."""
        q, r, s = self.states.T
        return self.gamma * (q == 0) + self.nu * ((q == self.K) & (s == 1))

    def post_decision(self, a: int) -> tuple[np.ndarray, np.ndarray]:
        """(q', r') after action ``a`` in every state (the corrected law)."""
        q, r, s = self.states.T
        qp = np.where(s == 0, q - 1, np.where(s == 1, np.minimum(q + 1, self.K), q))
        rp = np.where(s == 0, np.minimum(r + a, self.N), np.where(s == 1, r - 1 + a, r))
        return qp, rp

    @cached_property
    def successors(self) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        """Per action a: (idx, prob), each (n, 3) — the next epoch is a
        departure, an arrival or fictitious.  Missing successors carry
        probability 0 and point at state 0; a disallowed action points at
        its own state with probability 1 (never used)."""
        out = []
        for a in (0, 1):
            qp, rp = self.post_decision(a)
            qp_c, rp_c = np.clip(qp, 0, self.K), np.clip(rp, 0, self.N)
            p_dep = self.mu * (qp_c > 0) / self.nu
            r_rate = np.where(self.states[:, 2] == 0, self.states[:, 1], rp_c) if self.law == "printed-1.14" else rp_c
            p_arr = self.lam * r_rate / self.nu
            # 1 − p_dep − p_arr written without cancellation, so it is exactly 0 when r' = N, q' > 0
            p_fic = (self.lam * (self.N - r_rate) + self.mu * (qp_c == 0)) / self.nu
            prob = np.stack([p_dep, p_arr, p_fic], axis=1)
            idx = np.stack([self.index[qp_c, rp_c, s] for s in (0, 1, 2)], axis=1)
            bad = ~self.allowed[:, a]
            prob[bad] = [1.0, 0.0, 0.0]
            idx[bad] = np.arange(self.n)[bad, None]
            absent = idx < 0
            if np.any(absent & (prob > 0)):
                i, j = map(int, np.argwhere(absent & (prob > 0))[0])
                raise SolverError(f"transition from {tuple(self.states[i])} under a={a} leaves X (column {j})")
            idx[absent] = 0
            prob[absent] = 0.0
            out.append((idx, prob))
        return tuple(out)

    def matrix(self, a: int) -> sps.csr_matrix:
        """P(a) as a sparse n×n matrix (rows of disallowed actions: identity)."""
        idx, prob = self.successors[a]
        rows = np.repeat(np.arange(self.n), 3)
        m = sps.csr_matrix((prob.ravel(), (rows, idx.ravel())), shape=(self.n, self.n))
        m.sum_duplicates()
        return m

    @cached_property
    def P(self) -> tuple[sps.csr_matrix, sps.csr_matrix]:
        """(P(0), P(1)): the sparse n × n transition matrices of actions a = 0 and a = 1
        (a row where a is not in A_x is a self-loop, never used by a valid policy).
        """
        return self.matrix(0), self.matrix(1)

    def policy_arrays(self, policy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(idx, prob), each (n, 3): the successors of every state under π."""
        pick = self.check_policy(policy)[:, None] == 1
        (i0, p0), (i1, p1) = self.successors
        return np.where(pick, i1, i0), np.where(pick, p1, p0)

    def policy_matrix(self, policy: np.ndarray) -> sps.csr_matrix:
        """P(π) for a pure stationary policy given as an action per state: the CSR matrix of the positive
        successor probabilities, columns sorted within each row.

        Built by index arithmetic: the three successors of a state are distinct states (they differ in s),
        and only zero-probability placeholders can repeat a column, so keeping the positive entries is
        exactly what summing duplicates and eliminating zeros would give.  They are already sorted by
        column: the successors (q', r', 0), (q', r', 1), (q', r', 2) share (q', r') and X is in
        lexicographic order, and a disallowed action's row keeps only its first (self-loop) entry.
        """
        idx, prob = self.policy_arrays(policy)
        keep = prob > 0
        indptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(keep.sum(axis=1), out=indptr[1:])
        return sps.csr_matrix((prob[keep], idx[keep], indptr), shape=(self.n, self.n))

    def check_policy(self, policy) -> np.ndarray:
        """Validate a pure stationary policy (one action 0/1 per state, each in A_x) and return it as int64;
        InvalidInput names the first offending state.
        """
        p = np.asarray(policy)
        if p.shape != (self.n,):
            raise InvalidInput("policy", f"must have one action per state ({self.n})", value=p.shape)
        for a in (0, 1):
            bad = np.flatnonzero((p == a) & ~self.allowed[:, a])
            if bad.size:
                raise InvalidInput("policy", f"action {a} is not in A_x", value=tuple(self.states[bad[0]]), entry=int(bad[0]))
        if np.any((p != 0) & (p != 1)):
            raise InvalidInput("policy", "actions must be 0 or 1")
        return p.astype(np.int64)

    def static_policy(self) -> np.ndarray:
        """π_N: always (re)activate, i.e. a = 1 wherever allowed (§1.2.2)."""
        return self.allowed[:, 1].astype(np.int64)

    def cap_policy(self, cap: int) -> np.ndarray:
        """Keep min(N, cap) crawlers: (re)activate iff the result is <= cap.
        Unichain; the static policy of an N = cap system, used to start
        policy iteration when N is large."""
        q, r, s = self.states.T
        pol = np.where(s == 0, r < cap, np.where(s == 1, r <= cap, False)).astype(np.int64)
        return np.where(self.allowed[:, 0], pol, 1)

    def q_values(self, h: np.ndarray) -> np.ndarray:
        """(n, 2): c(x) + Σ p_{x,x'}(a) h(x'), +inf for a ∉ A_x."""
        Q = np.empty((self.n, 2))
        for a in (0, 1):
            idx, prob = self.successors[a]
            Q[:, a] = self.cost + (prob * h[idx]).sum(axis=1)
        Q[~self.allowed] = np.inf
        return Q

    def T(self, h: np.ndarray) -> np.ndarray:
        """The dynamic-programming operator T of Proposition 6."""
        return self.q_values(h).min(axis=1)


# ---------------------------------------------------- results of the solvers


@dataclass(frozen=True)
class SwitchingCurves:
    """π(q, r, s) = 1(q ≤ f_s(r)) for s = 0, 1 when ``monotone`` (Liu–Nain
    §1.2.2, after Fig. 1.7).  f_s(r) is None where no state (·, r, s) exists;
    −1 (s = 1) or 0 (s = 0) means "never activate"."""

    f0: list
    f1: list
    threshold: bool  # every column {q: a=1} is a down-set (ties allowed either way)
    monotone: bool  # and f_s can be chosen non-increasing in r
    where: str  # first (r, s) breaking the structure, or ""


@dataclass(frozen=True)
class MDPSolution:
    """Optimal gain, policy and its statistics for one instance."""

    gain: float
    policy: np.ndarray = field(repr=False)
    h: np.ndarray = field(repr=False)
    method: str
    iterations: int
    residual: float  # max_x |θ + h(x) − T(h)(x)|  (optimality equation 1.19)
    gain_bounds: tuple[float, float]  # [min, max] of T(h) − h
    # π as computed by the solver; None defers it to the first use of ``stationary`` (the switching-curve
    # conjecture solves ~1400 instances and reads only h)
    given_stationary: np.ndarray | None = field(repr=False, default=None)
    recurrent: np.ndarray | None = field(repr=False, default=None)  # states of the closed class
    mdp: CrawlerMDP | None = field(repr=False, default=None)
    certificate: CertifiedGain | None = field(repr=False, default=None)  # how gain and gain_bounds were certified

    @cached_property
    def stationary(self) -> np.ndarray:
        """The stationary law π of the policy on X (zero on transient states): the solver's, else
        :func:`stationary_distribution` of P(π) on ``recurrent``, computed once on first use."""
        if self.given_stationary is not None:
            return self.given_stationary
        return stationary_distribution(self.mdp.policy_matrix(self.policy), self.recurrent)

    @property
    def n_min(self) -> int:
        """Fewest active crawlers in the recurrent class of the optimal chain."""
        return int(self.mdp.states[self.recurrent, 1].min())

    @property
    def n_max(self) -> int:
        """Most active crawlers in the recurrent class of the optimal chain."""
        return int(self.mdp.states[self.recurrent, 1].max())

    @property
    def n_mean(self) -> float:
        """Time-average number of active crawlers, Σ π(x) r(x) (PASTA)."""
        return float(self.stationary @ self.mdp.states[:, 1])

    @property
    def starvation(self) -> float:
        """Starvation probability Σ_x π(x) 1(q = 0) under the stationary law π of the solution's policy."""
        return float(self.stationary @ (self.mdp.states[:, 0] == 0))

    @property
    def loss_rate(self) -> float:
        """Loss rate Σ_x π(x) ν 1(q = K, s = 1): the second term of the cost (1.13) averaged over π."""
        q, r, s = self.mdp.states.T
        return float(self.stationary @ (self.mdp.nu * ((q == self.mdp.K) & (s == 1))))

    @cached_property
    def curves(self) -> SwitchingCurves:
        """The switching curves f_0, f_1 read from the bias h (see :func:`switching_curves`)."""
        return switching_curves(self.mdp, self.h)


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
    from numba import njit

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
    from numba import njit

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


def _greedy(mdp: CrawlerMDP, Q: np.ndarray, current: np.ndarray | None = None, scale: float | None = None) -> np.ndarray:
    """argmin_a Q; ties (within TIE_REL of the scale of Q) keep ``current``
    when given, else prefer a = 1."""
    if scale is None:
        scale = max(1.0, float(np.abs(Q[np.isfinite(Q)]).max()))
    d = Q[:, 1] - Q[:, 0]  # +inf where a=1 disallowed, -inf where a=0 disallowed
    tie = np.abs(d) <= TIE_REL * scale
    pol = np.where(d < 0, 1, 0)
    pol = np.where(tie, 1 if current is None else current, pol)
    pol = np.where(mdp.allowed[:, 1], pol, 0)
    pol = np.where(mdp.allowed[:, 0], pol, 1)
    return pol.astype(np.int64)


@dataclass(frozen=True)
class Evaluation:
    """Exact evaluation of a unichain policy: gain g, bias h with h(x̂) = 0, and the states of its recurrent class."""
    gain: float
    h: np.ndarray = field(repr=False)
    recurrent: np.ndarray = field(repr=False)


def evaluate_policy(mdp: CrawlerMDP, policy: np.ndarray, reference: int | None = None) -> Evaluation:
    """Exact (sparse LU) evaluation of a unichain policy:
    g + h = c + P(π) h with h(x̂) = 0, x̂ in the recurrent class.
    A multichain policy raises SolverError (its gain is not one number)."""
    P = mdp.policy_matrix(policy)
    classes = closed_classes(P)
    if len(classes) != 1:
        raise SolverError(f"policy is multichain ({len(classes)} recurrent classes); exact unichain evaluation refused")
    ref = int(classes[0][0]) if reference is None else reference
    z = _evaluation_lu(mdp, P, ref).solve(mdp.cost.astype(float))
    g = float(z[ref])
    h = z.copy()
    h[ref] = 0.0
    return Evaluation(g, h, classes[0])


def _evaluation_lu(mdp: CrawlerMDP, P: sps.csr_matrix, ref: int):
    """LU of I − P(π) with column x̂ replaced by ones (unknowns: h with
    h(x̂) replaced by g)."""
    return _bordered_lu(P, ref)


def stationary_distribution(P: sps.csr_matrix, recurrent: np.ndarray) -> np.ndarray:
    """π P = π, Σπ = 1 for a unichain P (zero on transient states); solved
    on the recurrent class by sparse LU."""
    n = len(recurrent)
    i, j, p = _restrict(P, recurrent, recurrent)
    # (I − P_C)^T with its first equation replaced by Σπ = 1, in the entry order scipy's sparse algebra gives
    sub = sps.csr_matrix((p, (i, j)), shape=(n, n)).tocsc()
    A = (sps.identity(n, format="csc") - sub).T.tocoo()
    keep = A.row != 0
    A = sps.csc_matrix((np.concatenate([A.data[keep], np.ones(n)]),
                        (np.concatenate([A.row[keep], np.zeros(n, dtype=np.int64)]),
                         np.concatenate([A.col[keep], np.arange(n)]))), shape=(n, n))
    b = np.zeros(n)
    b[0] = 1.0
    x = spla.splu(A).solve(b)
    if x.min() < -STRUCTURE_ABS:
        raise SolverError(f"stationary distribution has a negative entry {x.min():.3g}")
    pi = np.zeros(P.shape[0])
    pi[recurrent] = np.clip(x, 0.0, None)
    return pi / pi.sum()


def _restrict(P: sps.csr_matrix, rows: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The entries of P[rows][:, cols] as triplets (i, j, p), i and j positions in ``rows`` and ``cols``,
    in CSR order: scipy's fancy indexing without its per-call overhead (the policy matrices have
    at most three entries per row, and this is called for every policy evaluation)."""
    counts = np.diff(P.indptr)[rows]
    ends = np.cumsum(counts)
    at = np.repeat(P.indptr[rows] - (ends - counts), counts) + np.arange(int(ends[-1]) if ends.size else 0)
    pos = np.full(P.shape[1], -1, dtype=np.int64)
    pos[cols] = np.arange(len(cols))
    j = pos[P.indices[at]]
    ok = j >= 0
    return np.repeat(np.arange(len(rows)), counts)[ok], j[ok], P.data[at][ok]


@dataclass(frozen=True)
class MultichainEvaluation:
    """Evaluation of a possibly multichain policy: gain g(x) per state, a bias h, and the list of closed classes."""
    g: np.ndarray = field(repr=False)  # gain per state
    h: np.ndarray = field(repr=False)  # a bias: g + h = c + P h, h = 0 at one state of each class
    classes: list = field(repr=False)


# Policy iteration evaluates thousands of policies whose classes have a few dozen states: below this size a class
# (or a strongly connected piece of the transient states) is solved dense (compiled LU), where SuperLU's set-up
# would cost more than the factorisation.
DENSE_MAX = 200


def evaluate_multichain(mdp: CrawlerMDP, policy: np.ndarray) -> MultichainEvaluation:
    """Evaluation of any pure stationary policy (Puterman 1994, §9.1): per
    closed class C the gain g_C (bordered system on C), on transient states
    g = P g and g + h = c + P h; sparse LU, or dense LU for systems of at
    most :data:`DENSE_MAX` states.

    The strongly connected components of P(π) (:func:`_block_solve_kernels`) give both the closed
    classes (the components no edge leaves, listed by their first state as :func:`closed_classes`
    lists them) and the order of the transient solve (:func:`_transient_solve`)."""
    P = mdp.policy_matrix(policy)
    order_of, _ = _block_solve_kernels()
    order, start, comp = order_of(P.indptr, P.indices)
    row = np.repeat(np.arange(mdp.n), np.diff(P.indptr))
    closed = np.ones(start.size - 1, dtype=bool)
    closed[comp[row][comp[row] != comp[P.indices]]] = False  # P(π) keeps only positive entries: each is an edge
    classes = sorted((np.sort(order[start[c]:start[c + 1]]) for c in np.flatnonzero(closed)), key=lambda C: int(C[0]))
    n = mdp.n
    g, h = np.zeros(n), np.zeros(n)
    rec = np.zeros(n, dtype=bool)
    for C in classes:
        z = _bordered_class_solve(P, C, mdp.cost[C].astype(float))
        g[C] = z[0]
        hc = z.copy()
        hc[0] = 0.0
        h[C] = hc
        rec[C] = True
    T = np.flatnonzero(~rec)
    if T.size:
        _transient_solve(mdp, P, T, (order, start, comp, closed), g, h)
    return MultichainEvaluation(g, h, classes)


def _transient_solve(mdp: CrawlerMDP, P: sps.csr_matrix, T: np.ndarray, sccs, g: np.ndarray, h: np.ndarray) -> None:
    """g and h on the transient states T, in place, given them on the closed classes:
    (I − P_TT) g_T = P_TR g_R and (I − P_TT) h_T = c_T − g_T + P_TR h_R.

    P_TT is block triangular in the order of its strongly connected components ``sccs`` (a chain leaves
    a component only for components it never comes back from, and Tarjan's order lists every component
    after those it reaches), so both systems are solved by back substitution over the components, exits
    first: a component {s} gives x(s) = (b(s) + Σ_{t ≠ s} p_st x(t))/(1 − p_ss), a larger one C a dense
    LU of I − P_CC with right-hand side b_C + P_{C,X∖C} x, the closed classes already known.  Most
    transient states of these policies are components of one state or a few, so this replaces a sparse
    LU of all of T; a component of more than :data:`DENSE_MAX` states sends T to SuperLU, as before."""
    order, start, comp, closed = sccs
    sizes = np.diff(start)
    if int(sizes[~closed].max()) <= DENSE_MAX:
        _, solve = _block_solve_kernels()
        b = np.zeros(mdp.n)
        ok = solve(P.indptr, P.indices, P.data, order, start, comp, closed, b, g)
        b[T] = mdp.cost[T] - g[T]
        if not (ok and solve(P.indptr, P.indices, P.data, order, start, comp, closed, b, h)):
            raise SolverError("policy evaluation system is singular (zero pivot in a transient block)")
        return
    m = T.size
    i, j, p = _restrict(P, T, T)
    # I − P_TT assembled from triplets: the diagonal sums 1 + (−p_ii), bit for bit the 1 − p_ii of sparse algebra
    d = np.arange(m)
    lu = spla.splu(sps.csc_matrix((np.concatenate([np.ones(m), -p]), (np.concatenate([d, i]), np.concatenate([d, j]))),
                                  shape=(m, m)))
    # g and h vanish on T here, so (P g)[T] = P_TR g_R and (P h)[T] = P_TR h_R, summed in the same order
    g[T] = lu.solve((P @ g)[T])
    h[T] = lu.solve(mdp.cost[T] - g[T] + (P @ h)[T])


def _bordered_class_solve(P: sps.csr_matrix, C: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """z with z[0] = g, z[1:] = h on C[1:]: the bordered system of :func:`bordered_lu` on the closed class C
    (I − P_C with its first column replaced by ones)."""
    m = C.size
    i, j, p = _restrict(P, C, C)
    if m > DENSE_MAX:
        return _bordered_lu(sps.csr_matrix((p, (i, j)), shape=(m, m)), 0).solve(rhs)
    A = np.eye(m)
    A[i, j] -= p  # (i, j) pairs are distinct: P has no duplicate entries
    A[:, 0] = 1.0
    return _dense_lu(A)(rhs)


@lru_cache(maxsize=None)
def _block_solve_kernels():
    """(order_of, solve) of :func:`evaluate_multichain`, compiled on first use.

    ``order_of(indptr, indices)``: Tarjan's strongly connected components of the CSR graph, iteratively;
    returns (order, start, comp): the states of component c are order[start[c]:start[c+1]], components
    numbered as Tarjan completes them, i.e. every component after all those it can reach.
    ``solve(indptr, indices, data, order, start, comp, skip, b, x)``: x = b + P x on the components c
    with skip[c] False, by back substitution in that order (x on the skipped components is given and
    kept), dense partial-pivoting LU on components of two or more states; False on a zero pivot."""
    from numba import njit

    @njit(cache=True)
    def order_of(indptr, indices):
        n = indptr.size - 1
        index = np.full(n, -1, dtype=np.int64)
        low = np.zeros(n, dtype=np.int64)
        on_stack = np.zeros(n, dtype=np.bool_)
        stack = np.empty(n, dtype=np.int64)
        call_v = np.empty(n, dtype=np.int64)
        call_p = np.empty(n, dtype=np.int64)
        order = np.empty(n, dtype=np.int64)
        start = np.empty(n + 1, dtype=np.int64)
        comp = np.empty(n, dtype=np.int64)
        sp = counter = ncomp = filled = 0
        for root in range(n):
            if index[root] >= 0:
                continue
            index[root] = low[root] = counter
            counter += 1
            stack[sp] = root
            sp += 1
            on_stack[root] = True
            call_v[0], call_p[0] = root, indptr[root]
            depth = 1
            while depth > 0:
                v, p = call_v[depth - 1], call_p[depth - 1]
                if p < indptr[v + 1]:
                    call_p[depth - 1] = p + 1
                    w = indices[p]
                    if index[w] < 0:
                        index[w] = low[w] = counter
                        counter += 1
                        stack[sp] = w
                        sp += 1
                        on_stack[w] = True
                        call_v[depth], call_p[depth] = w, indptr[w]
                        depth += 1
                    elif on_stack[w] and index[w] < low[v]:
                        low[v] = index[w]
                    continue
                depth -= 1
                if depth > 0 and low[v] < low[call_v[depth - 1]]:
                    low[call_v[depth - 1]] = low[v]
                if low[v] == index[v]:  # v roots a component: pop it
                    start[ncomp] = filled
                    while True:
                        sp -= 1
                        w = stack[sp]
                        on_stack[w] = False
                        comp[w] = ncomp
                        order[filled] = w
                        filled += 1
                        if w == v:
                            break
                    ncomp += 1
        start[ncomp] = filled
        return order, start[:ncomp + 1], comp

    @njit(cache=True)
    def solve(indptr, indices, data, order, start, comp, skip, b, x):
        pos = np.empty(b.size, dtype=np.int64)
        for c in range(start.size - 1):
            if skip[c]:
                continue
            lo, m = start[c], start[c + 1] - start[c]
            if m == 1:
                s = order[lo]
                rhs, diag = b[s], 1.0
                for p in range(indptr[s], indptr[s + 1]):
                    t = indices[p]
                    if t == s:
                        diag -= data[p]
                    else:
                        rhs += data[p] * x[t]
                if diag == 0.0:
                    return False
                x[s] = rhs / diag
                continue
            for k in range(m):
                pos[order[lo + k]] = k
            A = np.eye(m)
            y = np.empty(m)
            for k in range(m):
                s = order[lo + k]
                y[k] = b[s]
                for p in range(indptr[s], indptr[s + 1]):
                    t = indices[p]
                    if comp[t] == c:
                        A[k, pos[t]] -= data[p]
                    else:
                        y[k] += data[p] * x[t]
            for k in range(m):  # Gaussian elimination with partial pivoting, applied to y as it goes
                piv, big = k, abs(A[k, k])
                for r in range(k + 1, m):
                    if abs(A[r, k]) > big:
                        piv, big = r, abs(A[r, k])
                if big == 0.0:
                    return False
                if piv != k:
                    for col in range(m):
                        A[k, col], A[piv, col] = A[piv, col], A[k, col]
                    y[k], y[piv] = y[piv], y[k]
                for r in range(k + 1, m):
                    f = A[r, k] / A[k, k]
                    if f != 0.0:
                        for col in range(k + 1, m):
                            A[r, col] -= f * A[k, col]
                        y[r] -= f * y[k]
            for k in range(m - 1, -1, -1):
                for col in range(k + 1, m):
                    y[k] -= A[k, col] * y[col]
                y[k] /= A[k, k]
            for k in range(m):
                x[order[lo + k]] = y[k]
        return True

    return order_of, solve


def _dense_lu(A: np.ndarray):
    """b -> A^{-1} b by Gaussian elimination with partial pivoting (A is overwritten by its factors);
    SolverError when a pivot is exactly zero, as for SuperLU.  Compiled rather than LAPACK: on a shared
    machine a threaded BLAS spends far longer synchronising than these small systems take to factor."""
    factor, solve = _dense_lu_kernels()
    piv = np.empty(A.shape[0], dtype=np.int64)
    if not factor(A, piv):
        raise SolverError("policy evaluation system is singular (zero pivot in dense LU)")
    return lambda b: solve(A, piv, np.asarray(b, dtype=float))


@lru_cache(maxsize=None)
def _dense_lu_kernels():
    """(factor, solve) of :func:`_dense_lu`, compiled on first use."""
    from numba import njit

    @njit(cache=True)
    def factor(A, piv):
        n = A.shape[0]
        for k in range(n):
            p, big = k, abs(A[k, k])
            for i in range(k + 1, n):
                if abs(A[i, k]) > big:
                    p, big = i, abs(A[i, k])
            piv[k] = p
            if big == 0.0:
                return False
            if p != k:
                for j in range(n):
                    A[k, j], A[p, j] = A[p, j], A[k, j]
            for i in range(k + 1, n):
                f = A[i, k] / A[k, k]
                A[i, k] = f
                if f != 0.0:  # the systems are banded: most multipliers vanish
                    for j in range(k + 1, n):
                        A[i, j] -= f * A[k, j]
        return True

    @njit(cache=True)
    def solve(A, piv, b):
        n = A.shape[0]
        x = b.copy()
        for k in range(n):
            x[k], x[piv[k]] = x[piv[k]], x[k]
        for i in range(n):
            for j in range(i):
                x[i] -= A[i, j] * x[j]
        for i in range(n - 1, -1, -1):
            for j in range(i + 1, n):
                x[i] -= A[i, j] * x[j]
            x[i] /= A[i, i]
        return x

    return factor, solve


def _improve(mdp: CrawlerMDP, ev: MultichainEvaluation, policy: np.ndarray) -> np.ndarray:
    """Multichain improvement (Puterman 1994, §9.2.1): first on P g, then
    on c + P h among the actions that keep P g minimal; an action changes
    only on a strict improvement."""
    Qg = np.empty((mdp.n, 2))
    for a in (0, 1):
        idx, prob = mdp.successors[a]
        Qg[:, a] = (prob * ev.g[idx]).sum(axis=1)
    Qg[~mdp.allowed] = np.inf
    scale = max(1.0, float(np.abs(ev.g).max()))
    new = _greedy(mdp, Qg, current=policy, scale=scale)
    if not np.array_equal(new, policy):
        return new
    Q = mdp.q_values(ev.h)
    cur = Qg[np.arange(mdp.n), policy]
    Q[Qg > cur[:, None] + TIE_REL * scale] = np.inf
    return _greedy(mdp, Q, current=policy)


def _best_static_start(mdp: CrawlerMDP) -> np.ndarray:
    """The best static policy with at most N crawlers: keep min(N, N_s) active."""
    # C is unimodal in rho (Lemma 1), so the best n <= N is min(N, N_s).
    Ns = static_count(mdp.lam, mdp.mu, mdp.K, mdp.gamma)[0]
    return mdp.static_policy() if Ns >= mdp.N else mdp.cap_policy(Ns)


def policy_iteration(mdp: CrawlerMDP, *, initial: np.ndarray | None = None, max_iter: int = 1000,
                     certify: bool = True) -> MDPSolution:
    """Policy iteration (Puterman 1994, §9.2: the multichain algorithm, as
    policies met on the way may have several recurrent classes) from the
    best static policy (keep min(N, N_s) crawlers active), with exact evaluation by LU
    (:func:`evaluate_multichain`: dense for small systems, sparse otherwise).  Actions change
    only on a strict improvement (beyond TIE_REL), so it terminates.  The
    optimal gain is constant (weakly communicating MDP); the final policy
    must be unichain (checked), and is checked against the optimality
    equation (1.19): ``residual`` = max|θ + h − T(h)|.

    The float policy is then handed to :func:`certified_gain`, which improves
    it further on exact Q-values where float ties hid a better action (tiny θ,
    large K), computes θ = π c from a relative-accurate π and the valid bounds
    ``gain_bounds`` (relative width ≤ :data:`TARGET_REL_WIDTH`);
    ``certificate`` records how.  ``certify=False`` skips that step and
    returns the float route alone (gain from the bordered LU, bounds min/max
    of T(h) − h in float64, π by sparse LU on first use of ``stationary``):
    fast, but blind below ~1e-16 absolute."""
    policy = _best_static_start(mdp) if initial is None else mdp.check_policy(initial)
    for k in range(1, max_iter + 1):
        ev = evaluate_multichain(mdp, policy)
        new = _improve(mdp, ev, policy)
        if np.array_equal(new, policy):
            break
        policy = new
    else:
        raise SolverError(f"policy iteration did not settle in {max_iter} iterations")
    if len(ev.classes) != 1:
        gains = sorted({round(float(ev.g[C[0]]), 15) for C in ev.classes})
        raise SolverError(f"optimal policy found is multichain ({len(ev.classes)} classes, gains {gains})")
    if not certify:
        gain = float(ev.g[ev.classes[0][0]])
        Th = mdp.T(ev.h)
        gap = Th - ev.h
        return MDPSolution(gain, policy, ev.h, "policy-iteration (float)", k, float(np.abs(gain + ev.h - Th).max()),
                           (float(gap.min()), float(gap.max())),
                           None, ev.classes[0], mdp)
    # The float evaluation is only accurate to ~1e-16 absolute and ties within TIE_REL: when θ is tiny
    # both the gain and the policy are re-derived on exact Q-values (see certified_gain).
    cert = certified_gain(mdp, policy)
    return MDPSolution(cert.gain, cert.policy, cert.bias.h, "policy-iteration", k, cert.bias.residual, cert.float_bounds,
                       cert.stationary, cert.recurrent, mdp, cert)


def solve(mdp: CrawlerMDP, method: str = "exact", **kw):
    """``exact`` (policy iteration) → MDPSolution; ``rvi`` → RVIResult."""
    if method == "exact":
        return policy_iteration(mdp, **kw)
    if method == "rvi":
        return relative_value_iteration(mdp, **kw)
    raise InvalidInput("method", "must be 'exact' or 'rvi'", value=method)


# ------------------------------------------------------- switching curves


def switching_curves(mdp: CrawlerMDP, h: np.ndarray, rel: float = TIE_REL) -> SwitchingCurves:
    """Fit π(q, r, s) = 1(q ≤ f_s(r)) to the actions that are optimal for
    the relative values ``h``.  Where both actions are optimal (within
    ``rel`` of max|Q|) either may be taken, so the test asks whether *some*
    optimal policy has the structure; f_s is then chosen non-increasing in r
    when possible (greedy from r = 0, taking the largest admissible f)."""
    Q = mdp.q_values(h)
    scale = max(1.0, float(np.abs(Q[np.isfinite(Q)]).max()))
    d = Q[:, 1] - Q[:, 0]
    force1 = d < -rel * scale
    force0 = d > rel * scale
    curves, threshold, monotone, where = {}, True, True, ""
    for s in (0, 1):
        f, prev = [], None
        for r in range(mdp.N + 1):
            qs = np.arange(mdp.K + 1)
            ids = mdp.index[qs, r, s]
            ok = ids >= 0
            if not ok.any():
                f.append(None)
                continue
            qs, ids = qs[ok], ids[ok]
            never = int(qs.min()) - 1
            lo = max([int(q) for q, i in zip(qs, ids) if force1[i]], default=never)
            hi = min([int(q) for q, i in zip(qs, ids) if force0[i]], default=mdp.K + 1) - 1
            hi = min(hi, mdp.K)
            if lo > hi:
                threshold = False
                where = where or f"(r={r}, s={s}): a=1 forced at q={lo}, a=0 forced below"
                f.append(lo)
                continue
            choice = hi if prev is None else min(hi, prev)
            if choice < lo:
                monotone = False
                where = where or f"(r={r}, s={s}): needs f >= {lo} after f({r - 1}) = {prev}"
                choice = lo
            f.append(choice)
            prev = choice
        curves[s] = f
    return SwitchingCurves(curves[0], curves[1], threshold, threshold and monotone, where)


# ------------------------------------------------------------ high precision


@dataclass(frozen=True)
class HPGain:
    """A high-precision gain: the value (mpf or Fraction), its estimated correct significant digits, the method and its step count."""
    gain: object  # mpmath.mpf or Fraction
    digits: float  # estimated correct significant digits
    method: str
    iterations: int


def gain_hp(mdp: CrawlerMDP, policy: np.ndarray, dps: int = 40, max_steps: int = 12) -> HPGain:
    """Gain of a unichain ``policy`` to ``dps`` significant digits: mixed-precision
    iterative refinement of g + h = c + P(π)h, h(x̂) = 0, with *exact*
    integer residuals from the decimal-exact parameters and corrections from
    the float64 sparse LU (:func:`refine_bias`), until the exact bounds on
    the gain, [min, max] over the recurrent class of c + P h − h, are
    10^-(dps+2) relative wide.  The gain is their midpoint; ``digits`` is
    what their width certifies (the bounds hold whatever h is).  The scale of
    θ comes from the relative-accurate stationary law, so tiny gains get
    their digits too."""
    import mpmath

    dps = require_int(dps, "dps", minimum=1)
    chain = policy_chain(mdp, policy)
    _, rec, theta, _ = _stationary_accurate(mdp, chain)
    if not theta > 0:
        raise SolverError(f"θ = π c = {theta!r}: the stationary law underflows on the costly states")
    bb = refine_bias(mdp, policy, Fraction(theta) / 10 ** (dps + 2), recurrent=rec, max_steps=max_steps)
    lo, hi = bb.policy
    mid = (lo + hi) / 2
    half = (hi - lo) / 2
    digits = float(dps + 10) if half == 0 else min(dps + 10.0, math.log10(mid / half))
    with mpmath.workdps(dps):
        g = mpmath.mpf(mid.numerator) / mid.denominator
    return HPGain(g, digits, "mixed-precision iterative refinement (float64 LU, exact integer residuals)", bb.steps)


def _post_decision_one(mdp: CrawlerMDP, q: int, r: int, s: int, a: int) -> tuple[int, int]:
    if s == 0:
        return q - 1, min(r + a, mdp.N)
    if s == 1:
        return min(q + 1, mdp.K), r - 1 + a
    return q, r


def ctmc_of_policy(mdp: CrawlerMDP, policy: np.ndarray):
    """The continuous-time chain on post-decision states (q, r) that the
    uniformised MDP samples: arrivals at rate λr move to (min(q+1,K),
    r−1+π(q,r,1)), departures at rate μ to (q−1, min(r+π(q,r,0), N)).
    Returns (states, transitions {i: [(j, rate-as-Fraction)]}, cost rate
    per state as Fractions): γ·1(q=0) + λr·1(q=K) (starvation + loss rate)."""
    lam, mu, gam = mdp.exact("lam"), mdp.exact("mu"), mdp.exact("gamma")
    act = {tuple(map(int, x)): int(a) for x, a in zip(mdp.states, policy)}
    start = (0, mdp.N) if (0, mdp.N, 2) in act else (1, mdp.N)
    seen, order, trans = {start: 0}, [start], {}
    while len(trans) < len(order):
        i = len(trans)
        q, r = order[i]
        out = []
        if r > 0:
            out.append((_post_decision_one(mdp, q, r, 1, act[(q, r, 1)]), lam * r))
        if q > 0:
            out.append((_post_decision_one(mdp, q, r, 0, act[(q, r, 0)]), mu))
        trans[i] = []
        for y, rate in out:
            if y == (0, 0):
                raise SolverError("policy reaches the absorbing state (0, 0)")
            if y not in seen:
                seen[y] = len(order)
                order.append(y)
            trans[i].append((seen[y], rate))
    cost = [gam * (q == 0) + lam * r * (q == mdp.K) for q, r in order]
    return order, trans, cost


def gain_exact(mdp: CrawlerMDP, policy: np.ndarray, max_states: int = 600) -> HPGain:
    """The gain of ``policy`` as an exact rational: the stationary law of
    the continuous-time chain of :func:`ctmc_of_policy` on the states
    reachable from (0, N) (or (1, N)), solved in exact arithmetic with
    python-flint's fmpq_mat, then restricted to its closed class."""
    import flint

    order, trans, cost = ctmc_of_policy(mdp, policy)
    # keep the closed class reachable from the start: states every state reaches
    n = len(order)
    rows, cols = [], []
    for i, lst in trans.items():
        for j, _ in lst:
            rows.append(i)
            cols.append(j)
    G = sps.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    cls = closed_classes(G)
    if len(cls) != 1:
        raise SolverError(f"policy has {len(cls)} recurrent classes")
    rec = [int(i) for i in cls[0]]
    m = len(rec)
    if m > max_states:
        raise TooLarge("policy", f"recurrent class must have <= {max_states} states for exact arithmetic", value=m)
    pos = {i: k for k, i in enumerate(rec)}
    Qm = flint.fmpq_mat(m, m)
    for i in rec:
        for j, rate in trans[i]:
            fr = flint.fmpq(rate.numerator, rate.denominator)
            Qm[pos[i], pos[j]] += fr
            Qm[pos[i], pos[i]] -= fr
    # π Q = 0, Σπ = 1: transpose and replace the first equation
    A = Qm.transpose()
    for k in range(m):
        A[0, k] = 1
    b = flint.fmpq_mat(m, 1)
    b[0, 0] = 1
    pi = A.solve(b)
    g = sum((pi[pos[i], 0] * flint.fmpq(cost[i].numerator, cost[i].denominator) for i in rec), flint.fmpq(0))
    return HPGain(Fraction(int(g.p), int(g.q)), math.inf, "exact rational (python-flint fmpq_mat) on the CTMC", 1)


# ------------------------------------------------------ accurate gain at scale
#
# With K large the optimal chain rarely starves or loses, and θ = π c is tiny
# (K = 120, N = 480, λ = 0.05: θ* ≈ 2.1e-52), far below the absolute error
# of the float bordered solve, and float ties (TIE_REL) hide better actions.  Two routes deliver it to relative accuracy:
#
# 1. π with small relative error in every entry, by the subtraction-free GTH
#    elimination run level by level (q is a level: it moves by at most one),
#    on the chain the policy induces; θ = Σ π c adds positive terms.  With
#    ``digits`` π is refined to that many digits per entry (exact residuals).
# 2. The bias h of the policy refined in fixed point with *exact* integer
#    residuals of g + h = c + P h (the float LU only solves for corrections);
#    then the Odoni bounds min(T h − h) ≤ θ* ≤ g^σ ≤ max_rec(c_σ + P_σ h − h),
#    evaluated exactly in rational arithmetic, bracket θ and are valid for
#    any h: they certify, they are not estimates.
#
# Policy improvement is redone on the exact Q-values of the refined h.

TARGET_REL_WIDTH = 1e-10  # relative width of the gain bounds when no digits are asked


def _exact_rates(mdp: CrawlerMDP) -> tuple[int, int, int, int]:
    """(λL, μL, νL, L): the decimal-exact rates times L, the lcm of the denominators of λ and μ."""
    lam, mu = mdp.exact("lam"), mdp.exact("mu")
    L = math.lcm(lam.denominator, mu.denominator)
    lamL, muL = int(lam * L), int(mu * L)
    return lamL, muL, lamL * mdp.N + muL, L


class _ExactBellman:
    """c(x) + Σ_x' p_xx'(a) h(x') in exact integer arithmetic.

    Probabilities are p = num/(νL) with integer numerators from the
    decimal-exact λ, μ; with h = H/2^F and g = G/2^F (integers H, G) every
    term of the optimality equation times S = unit·2^F, unit = νL·L·den(γ),
    is an integer: c·S = cost·2^F, p h S = num·H·L·den(γ), g S = G·unit.
    """

    def __init__(self, mdp: CrawlerMDP):
        lamL, muL, nuL, L = _exact_rates(mdp)
        gam = mdp.exact("gamma")
        q, s = mdp.states[:, 0], mdp.states[:, 2]
        self.unit = nuL * L * gam.denominator
        self.pf = L * gam.denominator
        self.cost = (q == 0).astype(object) * (gam.numerator * nuL * L) \
            + ((q == mdp.K) & (s == 1)).astype(object) * (nuL * nuL * gam.denominator)
        self.idx, self.num = [], []
        for a in (0, 1):
            idx, prob = mdp.successors[a]
            qp, rp = mdp.post_decision(a)
            qp, rp = np.clip(qp, 0, mdp.K), np.clip(rp, 0, mdp.N)
            rr = np.where(mdp.states[:, 2] == 0, mdp.states[:, 1], rp) if mdp.law == "printed-1.14" else rp
            qp, rr = qp.astype(object), rr.astype(object)
            num = np.stack([(qp > 0) * muL, rr * lamL, (mdp.N - rr) * lamL + (qp == 0) * muL], axis=1)
            num[~mdp.allowed[:, a]] = [nuL, 0, 0]
            num[prob == 0] = 0
            if not np.abs(num.astype(float) / nuL - prob).max() <= 8 * np.finfo(float).eps:
                raise SolverError("exact transition numerators disagree with the float transition law")
            self.idx.append(idx)
            self.num.append(num)

    def q_scaled(self, H: np.ndarray, F: int, policy: np.ndarray) -> np.ndarray:
        """(c + P(σ) h) · S for the policy σ (actions per state), h = H / 2^F."""
        pick = policy[:, None] == 1
        idx = np.where(pick, self.idx[1], self.idx[0])
        num = np.where(pick, self.num[1], self.num[0])
        return (self.cost << F) + (num * H[idx]).sum(axis=1) * self.pf


@dataclass(frozen=True)
class PolicyChain:
    """The Markov chain a policy induces, on its recurrent class, with exact integer weights.

    Under the corrected law it is the continuous-time chain on post-decision
    states (q, r) that the uniformised MDP samples (arrivals at rate λr to
    (min(q+1, K), r − 1 + σ(q, r, 1)), departures at rate μ to
    (q − 1, min(r + σ(q, r, 0), N))), a third of the size of X; under the
    printed law (1.14) the next event depends on the pre-decision state, so
    it is the uniformised chain on X itself.  ``weight`` are the transition
    rates (probabilities) times a common integer; the cost rate of state i is
    ``cost[i] / cost_scale`` exactly, and θ = Σ π_i cost[i] / cost_scale.
    """

    level: np.ndarray = field(repr=False)  # q, the level of every state
    src: np.ndarray = field(repr=False)
    dst: np.ndarray = field(repr=False)
    weight: np.ndarray = field(repr=False)  # exact integers (object)
    cost: np.ndarray = field(repr=False)  # exact integers (object)
    cost_scale: int
    lift: object = field(repr=False)  # π of the chain -> (π on X, recurrent states of X)

    @property
    def rates(self) -> sps.csr_matrix:
        """The off-diagonal weights as a float sparse matrix."""
        n = self.level.size
        return sps.csr_matrix((self.weight.astype(float), (self.src, self.dst)), shape=(n, n))


def policy_chain(mdp: CrawlerMDP, policy: np.ndarray) -> PolicyChain:
    """The chain of ``policy`` on its recurrent class (see :class:`PolicyChain`);
    SolverError when the policy has several recurrent classes."""
    pol = mdp.check_policy(policy)
    lamL, muL, nuL, L = _exact_rates(mdp)
    gam = mdp.exact("gamma")
    if mdp.law == "printed-1.14":
        return _dtmc_chain(mdp, pol)
    K, N = mdp.K, mdp.N
    q, r = (v.ravel() for v in np.meshgrid(np.arange(K + 1), np.arange(N + 1), indexing="ij"))
    node = q * (N + 1) + r
    arr, dep = r > 0, q > 0
    a1, a0 = pol[mdp.index[q[arr], r[arr], 1]], pol[mdp.index[q[dep], r[dep], 0]]
    src = np.concatenate([node[arr], node[dep]])
    dst = np.concatenate([np.minimum(q[arr] + 1, K) * (N + 1) + r[arr] - 1 + a1,
                          (q[dep] - 1) * (N + 1) + np.minimum(r[dep] + a0, N)])
    weight = np.concatenate([r[arr].astype(object) * lamL, np.full(int(dep.sum()), muL, dtype=object)])
    move = src != dst  # a loss at q = K that keeps r is no transition
    src, dst, weight = src[move], dst[move], weight[move]
    size = (K + 1) * (N + 1)
    G = sps.csr_matrix((np.ones(src.size), (src, dst)), shape=(size, size))
    # (0, 0) has no transition out, so it is a closed class of its own; a valid policy never enters it
    classes = [C for C in closed_classes(G) if not (C.size == 1 and C[0] == 0)]
    if len(classes) != 1:
        raise SolverError(f"policy has {len(classes)} recurrent classes")
    rec = classes[0]
    pos = np.full(size, -1)
    pos[rec] = np.arange(rec.size)
    keep = pos[src] >= 0
    qs, rs = rec // (N + 1), rec % (N + 1)
    cost = (qs == 0).astype(object) * (gam.numerator * L) + ((qs == K) * rs).astype(object) * (lamL * gam.denominator)

    def lift(pi_post: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # π_X(q, r, s) = π(q, r) · P(next event is s | post-decision (q, r)), exactly the uniformisation
        pi, rec_x = np.zeros(mdp.n), []
        for s, num in ((0, muL * (qs > 0)), (1, lamL * rs), (2, lamL * (N - rs) + muL * (qs == 0))):
            ok = num > 0
            x = mdp.index[qs[ok], rs[ok], s]
            pi[x] = pi_post[ok] * (num[ok] / nuL)
            rec_x.append(x)
        return pi, np.sort(np.concatenate(rec_x))

    return PolicyChain(qs, pos[src[keep]], pos[dst[keep]], weight[keep], cost, L * gam.denominator, lift)


def _dtmc_chain(mdp: CrawlerMDP, pol: np.ndarray) -> PolicyChain:
    """The uniformised chain on X itself (printed law), weights the exact numerators of P_σ over νL."""
    op = _ExactBellman(mdp)
    P = mdp.policy_matrix(pol)
    classes = closed_classes(P)
    if len(classes) != 1:
        raise SolverError(f"policy has {len(classes)} recurrent classes")
    rec = classes[0]
    pos = np.full(mdp.n, -1)
    pos[rec] = np.arange(rec.size)
    pick = pol[rec, None] == 1
    idx = np.where(pick, op.idx[1][rec], op.idx[0][rec])
    num = np.where(pick, op.num[1][rec], op.num[0][rec])
    src = np.repeat(np.arange(rec.size), 3)
    ok = num.ravel() != 0

    def lift(pi_rec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        pi = np.zeros(mdp.n)
        pi[rec] = pi_rec
        return pi, rec

    return PolicyChain(mdp.states[rec, 0], src[ok], pos[idx.ravel()[ok]], num.ravel()[ok], op.cost[rec], op.unit, lift)


@dataclass(frozen=True)
class BiasBounds:
    """The refined bias of a policy σ and the exact Odoni bounds it gives.

    h = H / 2^F with h(ref) = 0; ``optimal`` = [min_x (T h − h)(x), max over the recurrent class of
    (c_σ + P_σ h − h)] brackets the optimal gain θ* and the policy's gain g^σ; ``policy`` =
    [min, max] of c_σ + P_σ h − h over the recurrent class brackets g^σ.  ``gap[x] / scale`` =
    (c_σ + P_σ h)(x) − T(h)(x) ≥ 0 exactly, what switching x to ``better[x]`` gains.  All bounds are
    exact Fractions.
    """

    h: np.ndarray = field(repr=False)  # float64 view of H / 2^F
    optimal: tuple[Fraction, Fraction]
    policy: tuple[Fraction, Fraction]
    gap: np.ndarray = field(repr=False)  # exact integers
    scale: int
    better: np.ndarray = field(repr=False)  # argmin_a of the exact Q-values
    residual: float  # max_x |g + h − T(h)|, exact then rounded
    steps: int
    bits: int

    @property
    def improvement(self) -> np.ndarray:
        """(c_σ + P_σ h − T(h))(x) as floats."""
        return (self.gap / self.scale).astype(float)

    def improvement_over(self, threshold: Fraction) -> np.ndarray:
        """The states where another action lowers c + P h by more than ``threshold`` (exact)."""
        t = Fraction(threshold)
        return (self.gap * t.denominator > t.numerator * self.scale).astype(bool)


def refine_bias(mdp: CrawlerMDP, policy: np.ndarray, width, *, recurrent: np.ndarray | None = None,
                max_steps: int = 40, op: _ExactBellman | None = None, progress=None) -> BiasBounds:
    """Refine the bias of a unichain ``policy`` until the exact bounds on its
    gain are narrower than ``width`` (absolute).

    g + h = c_σ + P_σ h, h(ref) = 0 (ref the first recurrent state) is solved
    by iterative refinement: the residual r = c_σ + P_σ h − g − h is computed
    *exactly* (integers, :class:`_ExactBellman`), the correction from the
    float64 bordered LU, and h is kept in fixed point with F bits after the
    binary point, F chosen so that rounding h costs less than width/64.
    Since g^σ = g + π r for the stationary law π, g^σ ∈ [g + min_rec r, g + max_rec r]
    whatever the accuracy of h; the loop stops when that interval is narrower
    than ``width``.  SolverError when the width stops shrinking.  ``progress(done, total)``, when
    given, is called after each step with the bits of the width reached and asked.
    """
    pol = mdp.check_policy(policy)
    op = _ExactBellman(mdp) if op is None else op
    P = mdp.policy_matrix(pol)
    classes = closed_classes(P)
    if len(classes) != 1:
        raise SolverError(f"policy is multichain ({len(classes)} recurrent classes)")
    if recurrent is not None and not np.array_equal(np.sort(recurrent), classes[0]):
        raise SolverError("the recurrent class lifted from the policy's chain differs from that of P_σ")
    recurrent = classes[0]
    ref = int(recurrent[0])
    width = Fraction(width)
    if not width > 0:
        raise InvalidInput("width", "must be > 0", value=width)
    F = max(60, 8 + width.denominator.bit_length() - width.numerator.bit_length())  # 2^-F <= width / 64
    S = op.unit << F
    lu = _evaluation_lu(mdp, P, ref)
    Z = fixed_point(lu.solve(mdp.cost.astype(float)), F)
    last = math.inf
    for step in range(1, max_steps + 1):
        G = Z[ref]
        H = Z.copy()
        H[ref] = 0
        R = op.q_scaled(H, F, pol) - (H + G) * op.unit
        lo, hi = R[recurrent].min(), R[recurrent].max()
        spread = Fraction(int(hi - lo), S)
        if progress is not None:  # bits reached (−log2 of the spread) against those asked (−log2 width)
            asked = max(1, width.denominator.bit_length() - width.numerator.bit_length())
            progress(asked if spread <= width else min(asked - 1, max(0, S.bit_length() - int(hi - lo).bit_length())),
                     asked)
        if spread <= width:
            break
        if not spread < last / 2:
            raise SolverError(f"bias refinement stalled: gain bounds {float(spread):.3g} wide after {step} steps, "
                              f"{float(width):.3g} asked")
        last = spread
        r, k = integer_ratio(R, S)
        Z = Z + fixed_point(lu.solve(r), F - k)
    else:
        raise SolverError(f"bias refinement did not reach gain bounds {float(width):.3g} wide in {max_steps} steps")
    QS = [op.q_scaled(H, F, np.full(mdp.n, a)) for a in (0, 1)]
    cur = np.where(pol == 1, QS[1], QS[0])
    # T(h): the better allowed action (rows of a disallowed action are placeholders)
    take1 = mdp.allowed[:, 1] & (~mdp.allowed[:, 0] | np.less(QS[1], QS[0]).astype(bool))
    TS = np.where(take1, QS[1], QS[0])
    HU = H * op.unit
    low = Fraction(int((TS - HU).min()), S)
    pol_lo, pol_hi = Fraction(int(lo + G * op.unit), S), Fraction(int(hi + G * op.unit), S)
    return BiasBounds((H / (1 << F)).astype(float), (low, pol_hi), (pol_lo, pol_hi), cur - TS, S,
                      take1.astype(np.int64), float(np.abs(TS - HU - G * op.unit).max() / S), step, F)


@dataclass(frozen=True)
class CertifiedGain:
    """The gain of a policy to relative accuracy, with valid bounds, after policy improvement on exact Q-values.

    ``gain``: θ = π c from the relative-accurate stationary law (route 1; to
    ``digits`` digits when asked, then ``value`` is that exact rational and
    ``text`` its decimal digits); ``bounds`` = (lo, hi), exact Fractions with
    lo ≤ θ* ≤ g^σ ≤ hi (route 2, the Odoni bounds of the refined bias; lo is
    also ≥ 0 since c ≥ 0); ``policy_bounds`` bracket g^σ alone;
    ``relative_width`` = (hi − lo)/θ; ``improvement``: the largest exact
    decrease of c + P h that another action offers, relative to θ (actions
    are changed while it exceeds a quarter of the asked width; ``changes``
    counts them); ``policy``, ``stationary``, ``recurrent`` and ``bias`` (the
    refined :class:`BiasBounds`) of the final policy.
    """

    gain: float
    bounds: tuple[Fraction, Fraction]
    policy_bounds: tuple[Fraction, Fraction]
    relative_width: float
    improvement: float
    changes: int
    policy: np.ndarray = field(repr=False)
    stationary: np.ndarray = field(repr=False)
    recurrent: np.ndarray = field(repr=False)
    bias: BiasBounds = field(repr=False)
    digits: int | None = None
    value: Fraction | None = field(default=None, repr=False)
    text: str | None = None
    method: str = ""

    @property
    def float_bounds(self) -> tuple[float, float]:
        """``bounds`` rounded outwards to floats (still valid)."""
        lo, hi = self.bounds
        flo, fhi = float(lo), float(hi)
        return (math.nextafter(flo, -math.inf) if Fraction(flo) > lo else flo,
                math.nextafter(fhi, math.inf) if Fraction(fhi) < hi else fhi)


def _stationary_accurate(mdp: CrawlerMDP, chain: PolicyChain):
    """(π on X, recurrent states of X, θ = π c as a float, π on the chain): GTH level by level."""
    from ..markov._ctmc import gth_levels

    pi_chain = gth_levels(chain.rates, chain.level)
    theta = math.fsum(pi_chain * chain.cost.astype(float)) / chain.cost_scale
    pi, rec = chain.lift(pi_chain)
    return pi, rec, theta, pi_chain


# the float GTH θ must lie in the exact bounds of route 2 up to this relative slack (rounding in GTH, O(n u))
GTH_SLACK = 1e-11


def certified_gain(mdp: CrawlerMDP, policy: np.ndarray, digits: int | None = None, *,
                   improve: bool = True, max_rounds: int = 20, progress=None) -> CertifiedGain:
    """θ of ``policy`` to relative accuracy with valid bounds, improving the
    policy on exact Q-values first (see the section comment above).

    Without ``digits`` the bounds are :data:`TARGET_REL_WIDTH` wide
    (relative) and ``gain`` is the float θ of route 1; with ``digits`` = D the
    bounds are 10^-(D+2) wide and route 1's π is refined to D + 2 digits per
    entry (:func:`~crawlmath.numeric.markov._ctmc.refine_stationary`), giving θ as an
    exact rational that must lie in route 2's bounds: then its first D digits
    are certified.  SolverError when the routes disagree (both values given).
    ``improve=False`` keeps ``policy`` as given (its gain is then what
    ``gain`` and ``policy_bounds`` describe; ``bounds`` still bracket θ*).
    ``progress(done, total, what)`` follows the bias refinement of each round.

    >>> m = CrawlerMDP(lam=0.1, mu=1, K=5, N=16, gamma=1)
    >>> c = certified_gain(m, policy_iteration(m).policy, digits=25)
    >>> c.text, c.relative_width < 1e-26
    ('0.2090741346552569396121615', True)
    """
    from ..markov._ctmc import refine_stationary

    if digits is not None:
        digits = require_int(digits, "digits", minimum=1)
    pol = mdp.check_policy(policy).copy()
    op = _ExactBellman(mdp)
    rel = Fraction(TARGET_REL_WIDTH) if digits is None else Fraction(1, 10 ** (digits + 2))
    changes = 0
    for round_ in range(1, max_rounds + 1):
        chain = policy_chain(mdp, pol)
        pi, rec, theta, pi_chain = _stationary_accurate(mdp, chain)
        if not theta > 0:
            raise SolverError(f"θ = π c = {theta!r}: the stationary law underflows on the costly states")
        step = None if progress is None else (lambda done, total: progress(done, total, f"round {round_}: bits of h"))
        bb = refine_bias(mdp, pol, rel * Fraction(theta), recurrent=rec, op=op, progress=step)
        # a change that gains less than a quarter of the width cannot move θ out of the bounds
        worse = bb.improvement_over(rel * Fraction(theta) / 4)
        if not improve or not worse.any():
            break
        changes += int(worse.sum())
        pol = np.where(worse, bb.better, pol)
    else:
        raise SolverError(f"exact policy improvement still changing actions after {max_rounds} rounds")
    lo, hi = bb.policy
    if not lo * (1 - GTH_SLACK) <= Fraction(theta) <= hi * (1 + GTH_SLACK):
        raise SolverError(f"route 1 (GTH) θ = {theta!r} lies outside route 2's exact bounds [{float(lo)!r}, {float(hi)!r}]")
    bounds = (max(bb.optimal[0], Fraction(0)), bb.optimal[1])
    width = float((bounds[1] - bounds[0]) / Fraction(theta))
    # within the slack, but the exact bounds may be narrower than GTH's rounding: report a float inside them
    theta = min(max(theta, float(lo)), float(hi))
    method = "GTH by levels (route 1); bias refined with exact residuals, Odoni bounds in rationals (route 2)"
    value = text = None
    if digits is not None:
        import mpmath

        ref = refine_stationary(chain.src, chain.dst, chain.weight, pi_chain, digits + 2)
        value = Fraction(int((ref.mass * chain.cost).sum()), int(ref.mass.sum()) * chain.cost_scale)
        if not lo <= value <= hi:
            raise SolverError(f"route 1 (refined π) θ = {float(value)!r} lies outside route 2's exact bounds "
                              f"[{float(lo)!r}, {float(hi)!r}]")
        with mpmath.workdps(digits + 10):
            text = mpmath.nstr(mpmath.mpf(value.numerator) / value.denominator, digits)
        theta = float(value)
        method += f"; π refined to {digits + 2} digits per entry ({ref.steps} steps)"
    return CertifiedGain(theta, bounds, bb.policy, width, float(Fraction(int(bb.gap.max()), bb.scale) / Fraction(theta)),
                         changes, pol, pi, rec,
                         bb, digits, value, text, method)


# ------------------------------------------------------- static benchmark


def static_cost(lam: float, mu: float, K: int, N: int, gamma: float) -> float:
    """C(Nλ/μ, γ, K) of (1.4), from the generated closed form of the static model."""
    return float(static_gen.cost(N * lam / mu, gamma, K, mu))


def static_count(lam: float, mu: float, K: int, gamma: float) -> tuple[int, float]:
    """(N_s, C_s): the static optimum of Proposition 1 (the static model's
    solver, :func:`crawlmath.numeric.static._mm1k.static_optimum`)."""
    opt = static_mm1k.static_optimum(lam, mu, gamma, K)
    return opt.N_opt, opt.cost_opt


# ------------------------------------------------------- printed (1.14)-(1.15)


def printed_rows(mdp: CrawlerMDP):
    """Yield (x, a, [(x', p)]) for every state and allowed action under the
    transition law *as printed* in (1.14)-(1.16), with x' possibly outside X."""
    lam, mu, nu, N, K = mdp.lam, mdp.mu, mdp.nu, mdp.N, mdp.K
    for (q, r, s), allowed in zip(mdp.states.tolist(), mdp.allowed.tolist()):
        for a in (0, 1):
            if not allowed[a]:
                continue
            if s == 0:
                rp = min(r + a, N)
                ind = mu * (q > 1)
                rows = [((q - 1, rp, 0), ind / nu), ((q - 1, rp, 1), lam * r / nu), ((q - 1, rp, 2), 1 - (ind - lam * r) / nu)]
            elif s == 1:
                rp = r + a - 1
                rows = [((min(q + 1, K), rp, 0), mu / nu), ((min(q + 1, K), rp, 1), lam * rp / nu),
                        ((min(q + 1, N), rp, 2), 1 - (mu + lam * rp) / nu)]
            else:
                ind = mu * (q > 0)
                rows = [((q, r, 0), ind / nu), ((q, r, 1), lam * r / nu), ((q, r, 2), 1 - (ind + lam * r) / nu)]
            yield (q, r, s), a, rows


def printed_row_sums(mdp: CrawlerMDP) -> tuple[float, tuple]:
    """Largest |Σ_x' p_{x,x'}(a) − 1| under the printed law, and where."""
    worst, where = 0.0, None
    for x, a, rows in printed_rows(mdp):
        err = abs(sum(p for _, p in rows) - 1)
        if err > worst:
            worst, where = err, (x, a)
    return worst, where


def printed_successors_outside(mdp: CrawlerMDP) -> list[tuple]:
    """(x, a, x') with positive printed probability and x' ∉ X."""
    out = []
    for x, a, rows in printed_rows(mdp):
        for y, p in rows:
            if p > 0:
                q, r, s = y
                if not (0 <= q <= mdp.K and 0 <= r <= mdp.N) or mdp.index[q, r, s] < 0:
                    out.append((x, a, y))
    return out



# ------------------------------------------------------ structure of X, A_x


@dataclass(frozen=True)
class Communication:
    """The communication structure of X under all allowed actions (Lemma 2): whether X is one class,
    the size of the largest class, the states outside it, and whether those can ever be entered.
    """
    communicating: bool  # one strongly connected class on all of X (Lemma 2 as printed)
    main_class: int  # size of the largest communicating class
    outside: list  # states outside it
    outside_unreachable: bool  # no allowed transition enters any of them (transient under every policy)

    @property
    def weakly_communicating(self) -> bool:
        """True when X communicates or the states outside the main class are never entered (Puterman 1994, §8.3)."""
        return self.communicating or self.outside_unreachable


def communication(mdp: CrawlerMDP) -> Communication:
    """Lemma 2 checked on the graph of all allowed (state, action)
    transitions: communicating iff strongly connected; weakly communicating
    when the states outside the main class can never be entered."""
    G = None
    for a in (0, 1):
        idx, prob = mdp.successors[a]
        ok = mdp.allowed[:, a][:, None] & (prob > 0)
        rows = np.repeat(np.arange(mdp.n), 3).reshape(-1, 3)[ok]
        g = sps.csr_matrix((np.ones(rows.size), (rows, idx[ok])), shape=(mdp.n, mdp.n))
        G = g if G is None else G + g
    ncomp, lab = csgraph.connected_components(G, directed=True, connection="strong")
    main = np.bincount(lab).argmax()
    out = np.flatnonzero(lab != main)
    G = G.tocoo()
    entered = set(G.col[G.row != G.col].tolist())
    unreachable = all(int(x) not in entered for x in out)
    return Communication(ncomp == 1, int((lab == main).sum()), [tuple(int(v) for v in mdp.states[x]) for x in out], unreachable)


def activation_max(mdp: CrawlerMDP, h: np.ndarray, rel: float = TIE_REL) -> int:
    """max{r : a = 1 is strictly optimal in some (q, r, 0)}: the largest
    number of active crawlers at which the optimal policy still activates one
    more at a departure.  This is the definition of N_max that reproduces
    Liu–Nain Table 1.3 (the recurrent class may stop 1-3 crawlers lower)."""
    Q = mdp.q_values(h)
    scale = max(1.0, float(np.abs(Q[np.isfinite(Q)]).max()))
    strict = (Q[:, 1] - Q[:, 0]) < -rel * scale
    r, s = mdp.states[:, 1], mdp.states[:, 2]
    return int(r[strict & (s == 0)].max())


@dataclass(frozen=True)
class InstanceReport:
    """What Tables 1.2/1.3 print for one (λ, μ, K, γ), and how it was found.

    ``n_min``: fewest active crawlers in the recurrent class of the optimal
    chain; ``n_mean``: their time average Σπ(x)r; ``n_max``: the largest r
    at which the policy activates (:func:`activation_max`, Table 1.3's
    definition); ``n_max_recurrent``: the largest r actually visited.
    ``N`` is the number of available crawlers used; with ``N='auto'`` it is
    chosen so that it does not bind and ``binds`` records the check.
    """

    lam: float
    mu: float
    K: int
    gamma: float
    N: int
    gain: float
    n_min: int
    n_mean: float
    n_max: int
    n_max_recurrent: int
    iterations: int
    method: str
    f0: list
    f1: list
    monotone: bool
    residual: float
    gain_bounds: tuple[float, float]
    starvation: float
    loss_rate: float
    solution: MDPSolution = field(repr=False)
    rvi: RVIResult | None = field(repr=False, default=None)
    inputs: str = "exact"  # which model the exact routes solved: "exact" or "shortest-decimal" (numeric/exact.py)

    def as_json(self) -> dict:
        """The scalar fields and switching curves as a JSON-ready dict (the solution and RVI objects are left out)."""
        return {
            "lam": self.lam, "mu": self.mu, "K": self.K, "gamma": self.gamma, "N": self.N,
            "gain": self.gain, "n_min": self.n_min, "n_mean": self.n_mean, "n_max": self.n_max,
            "n_max_recurrent": self.n_max_recurrent, "iterations": self.iterations, "method": self.method,
            "switching_curve": {"f0": self.f0, "f1": self.f1, "monotone": self.monotone},
            "residual": self.residual, "gain_bounds": list(self.gain_bounds),
            "starvation": self.starvation, "loss_rate": self.loss_rate,
        }


def extend_policy(policy: np.ndarray, small: CrawlerMDP, big: CrawlerMDP, cap: int) -> np.ndarray:
    """A policy of ``big`` (same λ, μ, K, γ, more crawlers) that takes ``policy``'s action in every state
    (q, r, s) with r < small.N and :meth:`CrawlerMDP.cap_policy` (``cap``) elsewhere.

    Used to warm-start policy iteration when :func:`auto_N` doubles N: the states with r < N have the same
    action sets in both models, and the row r = N is left to the cap policy because a = 1 at a departure
    there is a no-op in ``small`` but activates a crawler in ``big``."""
    if (small.lam, small.mu, small.K, small.gamma) != (big.lam, big.mu, big.K, big.gamma) or small.N > big.N:
        raise InvalidInput("big", "must be the same instance with at least as many crawlers", value=big.N)
    policy = small.check_policy(policy)
    out = big.cap_policy(cap)
    keep = small.states[:, 1] < small.N
    q, r, s = small.states[keep].T
    out[big.index[q, r, s]] = policy[keep]
    return big.check_policy(out)


def auto_N(lam: float, mu: float, K: int, gamma: float, *, solver=None, warm: bool = False,
           seed: MDPSolution | None = None) -> tuple[int, MDPSolution]:
    """An N that does not bind: start at 2N_s + 10 and double until the
    optimal policy activates no crawler at r ≥ N − 1.  ``solver(mdp, initial=...)``
    replaces :func:`policy_iteration` (e.g. :func:`optimal_for_curves`).  Each solve starts from
    the cap policy N_s, or with ``warm`` from a smaller instance's optimum extended by
    :func:`extend_policy`: ``seed`` (a solution of the same instance with fewer crawlers) for the
    first N, the previous optimum after a doubling.  The warm start only saves policy-iteration
    steps; the optimum reached is the same up to ties."""
    solver = policy_iteration if solver is None else solver
    Ns = static_count(lam, mu, K, gamma)[0]
    N, prev = 2 * Ns + 10, seed
    if seed is not None and (not warm or seed.mdp.N > N):
        raise InvalidInput("seed", f"needs warm=True and at most 2N_s + 10 = {N} crawlers", value=seed.mdp.N)
    while True:
        m = CrawlerMDP(lam, mu, K, N, gamma)
        start = m.cap_policy(Ns) if prev is None or not warm else extend_policy(prev.policy, prev.mdp, m, Ns)
        sol = solver(m, initial=start)
        if activation_max(m, sol.h) + 2 <= N:
            return N, sol
        N, prev = 2 * N, sol


def analyse(lam: float, mu: float, K: int, gamma: float, N="auto", *, method: str = "exact",
            tau: float = 0.99999, reference=None, h0="zero") -> InstanceReport:
    """Solve one instance and report the quantities of Tables 1.2/1.3.
    ``method='exact'``: policy iteration; ``'rvi'``: Prop. 6 with x̂
    ``reference`` and ``h0`` (see :func:`relative_value_iteration`; gain
    T(h_k)(x̂) at the stop, ``iterations`` = k; the statistics are those of
    the RVI policy, evaluated exactly)."""
    if method not in ("exact", "rvi"):
        raise InvalidInput("method", "must be 'exact' or 'rvi'", value=method)
    tau = require_open_unit(tau, "tau")
    if isinstance(N, str) and N != "auto":
        raise InvalidInput("N", "must be a positive integer or 'auto'", value=N)
    if isinstance(N, str):
        N, sol = auto_N(lam, mu, K, gamma)
        m = sol.mdp
    else:
        m = CrawlerMDP(lam, mu, K, N, gamma)
        sol = policy_iteration(m)
    rvi = None
    if method == "rvi":
        rvi = relative_value_iteration(m, tau=tau, reference=reference, h0=h0)
        ev = evaluate_policy(m, rvi.policy)
        pi = stationary_distribution(m.policy_matrix(rvi.policy), ev.recurrent)
        residual = float(np.abs(rvi.gain + rvi.h - m.T(rvi.h)).max())
        sol = MDPSolution(ev.gain, rvi.policy, rvi.h, "rvi", rvi.iterations, residual, rvi.gain_bounds, pi,
                          ev.recurrent, m)
    curves = sol.curves
    gain = rvi.gain if rvi else sol.gain
    return InstanceReport(m.lam, m.mu, int(K), m.gamma, int(N), gain, sol.n_min, sol.n_mean,
                          activation_max(m, sol.h), sol.n_max, sol.iterations, sol.method, curves.f0, curves.f1,
                          curves.monotone, sol.residual, sol.gain_bounds, sol.starvation, sol.loss_rate, sol, rvi,
                          m.inputs)


# ------------------------------------------------------------ the conjecture



def optimal_for_curves(mdp: CrawlerMDP, *, initial: np.ndarray | None = None) -> MDPSolution:
    """An optimal policy and its bias for :func:`switching_curves`, certified only where the float route can be blind.

    :func:`switching_curves` reads only Q(x, 1) − Q(x, 0) of the bias h, with ties within
    TIE_REL · max|Q| (≥ 1e-9 absolute) resolved either way.  The float route
    (``policy_iteration(certify=False)``) ends with a policy σ and the bias h of σ; when σ is greedy
    for h up to rounding, i.e. max_x (Q(x, σ(x)) − min_a Q(x, a)) ≤ 64 ε max|Q|, no improvement
    beyond rounding exists (Howard's test), so σ is optimal and h is its bias to rounding, ~1e-16,
    far below the tie tolerance.  The exact-Q improvement of :func:`certified_gain` matters where
    the float route stopped on a tie that hides a better action (σ not greedy beyond rounding) or
    where θ is so small that rounding of h is comparable to θ-relative improvements
    (θ < :data:`CURVES_FLOAT_GAIN`): there the certified :func:`policy_iteration` is used."""
    sol = policy_iteration(mdp, initial=initial, certify=False)
    Q = mdp.q_values(sol.h)
    scale = max(1.0, float(np.abs(Q[np.isfinite(Q)]).max()))
    slack = Q[np.arange(mdp.n), sol.policy] - Q.min(axis=1)
    if sol.gain < CURVES_FLOAT_GAIN or float(slack.max()) > 64 * np.finfo(float).eps * scale:
        return policy_iteration(mdp, initial=initial)
    return sol


@dataclass(frozen=True)
class ConjectureResult:
    """Outcome of :func:`check_switching_curve_conjecture`: instances solved, counterexamples (lam, K, gamma, N, where), wall time in s."""
    instances: int
    counterexamples: list  # (lam, K, gamma, N, where)
    seconds: float


def check_switching_curve_conjecture(lams, Ks, gammas, Ns=("Ns", "auto"), mu: float = 1.0) -> ConjectureResult:
    """Solve every instance of the grid exactly (:func:`optimal_for_curves`)
    and test whether some optimal policy is a monotone switching curve
    (§1.2.2, after Fig. 1.7).  ``Ns`` holds integers, "Ns" (the static
    optimum) or "auto" (unrestricted)."""
    import time

    t0 = time.perf_counter()
    bad, count = [], 0
    for lam in lams:
        for K in Ks:
            for gamma in gammas:
                n_s = static_count(lam, mu, K, gamma)[0]
                seed = None  # the solution with the most crawlers so far (at most auto_N's first N), to warm-start it
                for spec in Ns:
                    if spec == "auto":
                        N, sol = auto_N(lam, mu, K, gamma, solver=optimal_for_curves, warm=True, seed=seed)
                    else:
                        N = n_s if spec == "Ns" else int(spec)
                        sol = optimal_for_curves(CrawlerMDP(lam, mu, K, N, gamma))
                    if N <= 2 * n_s + 10 and (seed is None or N > seed.mdp.N):
                        seed = sol
                    count += 1
                    c = sol.curves
                    if not c.monotone:
                        bad.append((lam, K, gamma, N, c.where))
    return ConjectureResult(count, bad, time.perf_counter() - t0)


def policy_image(sol: MDPSolution, s: int) -> np.ndarray:
    """The optimal actions of event type ``s`` (0 departure, 1 arrival) as a
    (K+1) × (N+1) array indexed [q, r]: 1 activate, 0 not, −1 where (q, r, s)
    ∉ X.  This is what Figs 1.5–1.7 draw."""
    if s not in (0, 1):
        raise InvalidInput("s", "must be 0 (departure) or 1 (arrival)", value=s)
    m = sol.mdp
    img = np.full((m.K + 1, m.N + 1), -1, dtype=np.int64)
    sel = m.states[:, 2] == s
    img[m.states[sel, 0], m.states[sel, 1]] = sol.policy[sel]
    return img
