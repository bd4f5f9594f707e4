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
:func:`crawlmath.proofs.readings.liu_nain.printed_row_sums` and
:func:`~crawlmath.proofs.readings.liu_nain.printed_successors_outside`.

The solvers are in the sibling modules: relative value iteration (``_rvi``), policy iteration
(``_policy_iteration``), certified gains (``_certified``) and the analysis of §1.2.3 (``_analysis``).

>>> m = CrawlerMDP(lam=0.1, mu=1, K=5, N=16, gamma=1)
>>> m.n, m.nu, float(m.cost.max())
(282, 2.6, 2.6)
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np
import scipy.sparse as sps

from .. import exact as ex
from ..errors import InvalidInput, SolverError, TooLarge
from ..generated import static_mm1k as static_gen
from ..static import _mm1k as static_mm1k
from ..tolerance import MDP_TIE_REL as TIE_REL
from ..validate import require_float_magnitude, require_int, require_positive


MAX_STATES = 2_000_000  # 3(K+1)(N+1) above this is refused up front


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


# ------------------------------------------------------- actions


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


# ------------------------------------------------------- static benchmark


def static_cost(lam: float, mu: float, K: int, N: int, gamma: float) -> float:
    """C(Nλ/μ, γ, K) of (1.4), from the generated closed form of the static model."""
    return float(static_gen.cost(N * lam / mu, gamma, K, mu))


def static_count(lam: float, mu: float, K: int, gamma: float) -> tuple[int, float]:
    """(N_s, C_s): the static optimum of Proposition 1 (the static model's
    solver, :func:`crawlmath.numeric.static._mm1k.static_optimum`)."""
    opt = static_mm1k.static_optimum(lam, mu, gamma, K)
    return opt.N_opt, opt.cost_opt
