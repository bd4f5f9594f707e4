"""Reference values for your own average-cost Markov decision process.

:func:`average_cost_mdp` solves  min over stationary policies of the long-run
average cost of a finite MDP given as A transition matrices and a cost array
(Puterman 1994, ch. 8–9).  It is the generic form of the solver behind
``crawlmath mdp`` (which builds Liu–Nain's crawler MDP and calls the same
kind of policy iteration), exposed so that you can produce reference values
for your own solver:

- float64: multichain policy iteration (Puterman 1994, §9.2): each policy is
  evaluated exactly (per closed class a bordered sparse LU for the gain and
  bias, then the transient states), improved first on P g and then on
  c + P h, an action changing only on a strict improvement, so it terminates.
  The result carries the optimality-equation residual.
- ``digits=D``: the optimal policy's gain to D significant digits, by two
  routes that must agree (a ball-arithmetic enclosure of the recurrent class's
  stationary law, and its GTH elimination in mpmath; see
  :func:`crawlmath.numeric.ctmc.ctmc_stationary`), and the policy's optimality
  rechecked at that precision: no action improves the bias by more than
  10^-D (relative).

Costs are minimised; ``inf`` in ``c[s, a]`` marks action a unavailable in s.

>>> import numpy as np
>>> P = [np.array([[0.9, 0.1], [0.0, 1.0]]), np.array([[1.0, 0.0], [0.8, 0.2]])]  # a = 0 wait, a = 1 repair
>>> c = np.array([[0.0, np.inf], [1.0, 3.0]])                                      # repair only when broken
>>> s = average_cost_mdp(P, c)
>>> s.policy.tolist(), round(s.gain, 12)
([0, 1], 0.333333333333)
>>> average_cost_mdp(P, c, digits=25).gain_text
'0.3333333333333333333333333'
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sps

from .errors import InvalidInput, SolverError, TooLarge
from .tolerance import FLOAT_REL, MDP_TIE_REL, STRUCTURE_ABS

HP_MAX = 400  # states for the high-precision gain and optimality check (O(n^3) multiprecision)


@dataclass(frozen=True)
class AverageCostSolution:
    """An optimal stationary policy and its evaluation.

    ``gain`` (the optimal average cost when it does not depend on the initial
    state, else None; then see ``g``), ``g`` (per-state gain), ``bias`` (h,
    zero at one state of each recurrent class), ``policy`` (action per state),
    ``stationary`` (the policy's stationary law when it has one recurrent
    class, else None), ``classes`` (its recurrent classes), ``iterations``,
    ``residual`` (max violation of the optimality equations), ``method``;
    with ``digits``: ``gain_text`` (the gain to that many digits), ``digits``
    (digits on which the two routes agree) and ``error_bound`` (absolute).
    """

    gain: float | None
    g: np.ndarray = field(repr=False)
    bias: np.ndarray = field(repr=False)
    policy: np.ndarray = field(repr=False)
    stationary: np.ndarray | None = field(repr=False)
    classes: list = field(repr=False)
    iterations: int
    residual: float
    method: str
    gain_text: str | None = None
    digits: float | None = None
    error_bound: float | None = None


def average_cost_mdp(P, c, digits: int | None = None, *, max_iter: int = 1000,
                     max_states: int | None = None) -> AverageCostSolution:
    """Optimal average cost, bias, policy and stationary law of a finite MDP.

    Parameters
    ----------
    P : sequence of A matrices, each S×S (numpy or scipy.sparse); ``P[a][s]``
        is the law of the next state after action a in state s (a
        probability vector wherever the action is available).
    c : (S, A) array of one-step costs; ``inf`` marks an unavailable action.
    digits : deliver the gain to this many significant digits, certified by
        two routes (unichain optimal policies of at most ``max_states`` states,
        default ``HP_MAX``).
    max_iter : policy-iteration cap (SolverError beyond it).

    Returns
    -------
    AverageCostSolution

    Examples
    --------
    >>> import numpy as np
    >>> P = [np.eye(2), np.array([[0.0, 1.0], [1.0, 0.0]])]
    >>> average_cost_mdp(P, np.array([[2.0, 1.0], [5.0, 0.0]])).gain   # alternate: (1 + 0)/2
    0.5
    """
    mats, cost, allowed = _validate(P, c)
    S = cost.shape[0]
    policy = np.where(allowed, cost, np.inf).argmin(axis=1)
    for k in range(1, max_iter + 1):
        ev = _evaluate(mats, cost, policy)
        new = _improve(mats, cost, allowed, ev, policy)
        if np.array_equal(new, policy):
            break
        policy = new
    else:
        raise SolverError(f"policy iteration did not settle in {max_iter} iterations")
    g, h, classes = ev
    residual = _optimality_residual(mats, cost, allowed, g, h)
    scale = max(1.0, float(np.abs(cost[allowed]).max()))
    if not residual <= 1e3 * FLOAT_REL * scale:
        raise SolverError(f"optimality equations violated by {residual:.3g} at the final policy")
    constant = float(g.max() - g.min()) <= 1e3 * FLOAT_REL * scale
    pi = _stationary(mats, policy, classes[0]) if len(classes) == 1 else None
    sol = AverageCostSolution(float(g[classes[0][0]]) if constant else None, g, h, policy, pi, classes, k, residual,
                              "multichain-policy-iteration")
    if digits is None:
        return sol
    return _certify(sol, mats, cost, allowed, digits, HP_MAX if max_states is None else int(max_states))


# ----------------------------------------------------------------- input


def _validate(P, c):
    cost = np.asarray(c, dtype=float)
    if cost.ndim != 2 or 0 in cost.shape:
        raise InvalidInput("c", "must be a non-empty (S, A) array", value=cost.shape)
    S, A = cost.shape
    if np.isnan(cost).any():
        raise InvalidInput("c", "must not contain nan", entry=tuple(int(i) for i in np.argwhere(np.isnan(cost))[0]))
    if (cost == -np.inf).any():
        raise InvalidInput("c", "-inf is not a cost (inf marks an unavailable action)",
                           entry=tuple(int(i) for i in np.argwhere(cost == -np.inf)[0]))
    allowed = np.isfinite(cost)
    none = np.flatnonzero(~allowed.any(axis=1))
    if none.size:
        raise InvalidInput("c", "every state needs an available (finite-cost) action", entry=int(none[0]))
    try:
        mats = list(P)
    except TypeError:
        raise InvalidInput("P", "must be a sequence of A transition matrices", value=type(P).__name__) from None
    if len(mats) != A:
        raise InvalidInput("P", f"must hold one matrix per action (c has {A} columns)", value=len(mats))
    out = []
    for a, M in enumerate(mats):
        M = sps.csr_matrix(M, dtype=float)
        M.eliminate_zeros()  # an explicit zero is not a transition (classes are read off the pattern)
        if M.shape != (S, S):
            raise InvalidInput(f"P[{a}]", f"must be {S}x{S}", value=M.shape)
        if not np.all(np.isfinite(M.data)) or (M.data < 0).any():
            raise InvalidInput(f"P[{a}]", "entries must be finite and >= 0")
        rows = np.asarray(M.sum(axis=1)).ravel()
        bad = np.flatnonzero(allowed[:, a] & ~(np.abs(rows - 1) <= STRUCTURE_ABS))
        if bad.size:
            raise InvalidInput(f"P[{a}]", "rows of available actions must sum to 1", value=float(rows[bad[0]]),
                               entry=int(bad[0]))
        out.append(M)
    return out, cost, allowed


# ----------------------------------------------------------------- policy iteration


def _policy_matrix(mats, policy) -> sps.csr_matrix:
    S = len(policy)
    rows = [mats[a][s] for s, a in enumerate(policy)]
    return sps.vstack(rows, format="csr") if S else sps.csr_matrix((0, 0))


def closed_classes(P: sps.csr_matrix) -> list[np.ndarray]:
    """The closed communicating (recurrent) classes of a stochastic matrix."""
    from scipy.sparse import csgraph

    P = sps.csr_matrix(P)  # no copy for CSR input; the edges are read off indptr/indices without a COO copy
    ncomp, lab = csgraph.connected_components(P, directed=True, connection="strong")
    row = np.repeat(np.arange(P.shape[0]), np.diff(P.indptr))
    leaving = np.zeros(ncomp, dtype=bool)
    m = (lab[row] != lab[P.indices]) & (P.data > 0)
    leaving[lab[row[m]]] = True
    # only the closed components are listed: transient states are often many singleton components
    return [np.flatnonzero(lab == k) for k in np.flatnonzero(~leaving)]


def bordered_lu(sub: sps.spmatrix, ref: int):
    """LU of I − P_C with column ``ref`` replaced by ones: the system
    g + h = c + P_C h with h(ref) = 0, whose unknown in position ``ref`` is g
    (Puterman 1994, §8.2).  SolverError when it is singular."""
    import scipy.sparse.linalg as spla

    n = sub.shape[0]
    A = (sps.identity(n, format="csr") - sps.csr_matrix(sub)).tocoo()
    keep = A.col != ref
    M = sps.csc_matrix((np.concatenate([A.data[keep], np.ones(n)]),
                        (np.concatenate([A.row[keep], np.arange(n)]),
                         np.concatenate([A.col[keep], np.full(n, ref)]))), shape=(n, n))
    try:
        return spla.splu(M)
    except RuntimeError as exc:
        raise SolverError(f"policy evaluation system is singular: {exc}") from None


def _bordered_solve(sub: sps.spmatrix, rhs: np.ndarray) -> np.ndarray:
    """Solve g + h = rhs + P_C h with h(first) = 0; returns z with z[0] = g."""
    z = bordered_lu(sub, 0).solve(rhs)
    if not np.all(np.isfinite(z)):
        raise SolverError("policy evaluation gave a non-finite value")
    return z


def _evaluate(mats, cost, policy):
    """Per-state gain g and bias h of a pure stationary policy (Puterman §9.1)."""
    import scipy.sparse.linalg as spla

    S = len(policy)
    P = _policy_matrix(mats, policy)
    c = cost[np.arange(S), policy]
    classes = closed_classes(P)
    g, h = np.zeros(S), np.zeros(S)
    rec = np.zeros(S, dtype=bool)
    for C in classes:
        z = _bordered_solve(P[C][:, C], c[C])
        g[C] = z[0]
        h[C] = np.concatenate([[0.0], z[1:]])
        rec[C] = True
    T = np.flatnonzero(~rec)
    if T.size:
        R = np.flatnonzero(rec)
        lu = spla.splu((sps.identity(T.size, format="csc") - P[T][:, T]).tocsc())
        PTR = P[T][:, R]
        g[T] = lu.solve(PTR @ g[R])
        h[T] = lu.solve(c[T] - g[T] + PTR @ h[R])
    return g, h, classes


def _q(mats, vec) -> np.ndarray:
    return np.column_stack([M @ vec for M in mats])


def _improve(mats, cost, allowed, ev, policy):
    g, h, _ = ev
    S = len(policy)
    scale_g = max(1.0, float(np.abs(g).max()))
    Pg = np.where(allowed, _q(mats, g), np.inf)
    new = _strict_argmin(Pg, policy, MDP_TIE_REL * scale_g)
    if not np.array_equal(new, policy):
        return new
    Q = np.where(allowed, cost + _q(mats, h), np.inf)
    Q[Pg > Pg[np.arange(S), policy][:, None] + MDP_TIE_REL * scale_g] = np.inf
    scale = max(1.0, float(np.abs(Q[np.isfinite(Q)]).max()))
    return _strict_argmin(Q, policy, MDP_TIE_REL * scale)


def _strict_argmin(Q: np.ndarray, policy: np.ndarray, tie: float) -> np.ndarray:
    """The argmin per row, keeping the current action unless beaten by more than ``tie``."""
    S = len(policy)
    best = Q.argmin(axis=1)
    keep = Q[np.arange(S), policy] <= Q[np.arange(S), best] + tie
    return np.where(keep, policy, best)


def _optimality_residual(mats, cost, allowed, g, h) -> float:
    Pg = np.where(allowed, _q(mats, g), np.inf)
    r1 = np.abs(Pg.min(axis=1) - g)
    Q = np.where(allowed, cost + _q(mats, h), np.inf)
    Q[Pg > Pg.min(axis=1)[:, None] + MDP_TIE_REL * max(1.0, float(np.abs(g).max()))] = np.inf
    r2 = np.abs(Q.min(axis=1) - g - h)
    return float(max(r1.max(), r2.max()))


def _stationary(mats, policy, C) -> np.ndarray:
    from .ctmc import ctmc_stationary

    P = _policy_matrix(mats, policy)
    sub = P[C][:, C].toarray()
    pi = np.zeros(len(policy))
    pi[C] = ctmc_stationary(sub - np.diag(sub.sum(axis=1))).pi
    return pi


# ----------------------------------------------------------------- high precision


def _certify(sol: AverageCostSolution, mats, cost, allowed, digits: int, limit: int) -> AverageCostSolution:
    import mpmath

    from .ctmc import _high_precision

    if isinstance(digits, bool) or not isinstance(digits, (int, np.integer)) or not 1 <= digits <= 1000:
        raise InvalidInput("digits", "must be an integer from 1 to 1000", value=digits)
    if len(sol.classes) != 1:
        raise SolverError(f"digits= needs a unichain optimal policy; this one has {len(sol.classes)} recurrent classes")
    S = len(sol.policy)
    if S > limit:
        raise TooLarge("P", f"{S} states exceed the high-precision limit {limit}; pass max_states= to raise it", value=S)
    C = sol.classes[0]
    P = _policy_matrix(mats, sol.policy)
    sub = P[C][:, C].toarray()
    st = _high_precision(sub - np.diag(sub.sum(axis=1)), digits)
    c = cost[np.arange(S), sol.policy]
    with mpmath.workdps(digits + 15):
        gain = mpmath.fsum(mpmath.mpf(p) * mpmath.mpf(float(x)) for p, x in zip(st.pi_text, c[C]))
        bound = st.error_bound * float(np.abs(c[C]).sum())
        gap = _hp_improvement(mats, cost, allowed, sol.policy, gain, C[0], digits)
        if gap > mpmath.mpf(10) ** (-digits) * max(1, abs(gain)):
            raise SolverError(f"the float policy is not optimal at {digits} digits (an action improves by {mpmath.nstr(gap, 5)})")
        text = mpmath.nstr(gain, digits, min_fixed=-math.inf, max_fixed=math.inf)
    return AverageCostSolution(float(gain), sol.g, sol.bias, sol.policy, sol.stationary, sol.classes, sol.iterations,
                               sol.residual, sol.method + "+arb/mpmath-gain", text, st.digits, bound)


def _hp_improvement(mats, cost, allowed, policy, gain, ref: int, digits: int):
    """Largest improvement any action offers on g + h = c_π + P_π h (bias
    solved in ball arithmetic, h(ref) = 0, equation ref dropped: regular for a
    unichain policy with ref recurrent).  Zero for an optimal policy; the
    midpoint is returned as an mpmath number."""
    import mpmath
    from flint import arb, arb_mat, ctx

    S = len(policy)
    dense = [M.toarray() for M in mats]
    old = ctx.prec
    try:
        ctx.prec = int(digits * 3.33) + 64
        g = arb(mpmath.nstr(gain, digits + 15))
        A, b = arb_mat(S, S), arb_mat(S, 1)
        for i in range(S):
            if i == ref:
                A[i, i] = 1
                continue
            row = dense[policy[i]][i]
            for j in np.flatnonzero(row):
                if j != ref:
                    A[i, j] = A[i, j] - arb(float(row[j]))
            A[i, i] = A[i, i] + 1
            b[i, 0] = arb(float(cost[i, policy[i]])) - g
        h = A.solve(b)
        worst = arb(0)
        for s in range(S):
            def q(a):
                row = dense[a][s]
                return arb(float(cost[s, a])) + sum((arb(float(row[j])) * h[j, 0] for j in np.flatnonzero(row)), arb(0))
            cur = q(policy[s])
            for a in range(len(mats)):
                if allowed[s, a] and a != policy[s]:
                    d = cur - q(a)
                    if d > worst:
                        worst = d
        return mpmath.mpf(worst.mid().str(digits + 15, radius=False))
    finally:
        ctx.prec = old
