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
  c + P h, an action changing only on an improvement beyond ``MDP_TIE_REL``
  of that state's magnitudes, so it terminates.  The result carries the
  optimality-equation residual and, for a constant gain, bounds
  [min_{s,a} (c + P h − h), max_s (c_d + P_d h − h)] that contain the optimal
  gain whatever h (Odoni 1969), widened by their rounding; refused (SolverError)
  only when they do not determine its first digit.
- ``digits=D``: the optimal gain to D significant digits for the *exact*
  MDP the input names (see :mod:`crawlmath.numeric.exact`: ints, Fractions,
  SymPy Rationals, Decimals and decimal strings are exact; a float means its
  shortest decimal, so 0.7 is 7/10).  For S ≤ ``EXACT_MAX`` states the float
  policy is evaluated over the rationals (python-flint ``fmpq_mat``: the
  bias equations g + h = c_d + P_d h, h(ref) = 0), the optimality equation
  g + h(s) = min_a [c(s, a) + Σ_j P_a(s, j) h(j)] is checked exactly, and
  exact policy-improvement steps are taken while some action improves
  strictly; a solution of that equation gives the optimal gain (Puterman
  1994, Thm 8.4.1), so ``gain_exact`` is the optimal gain as a Fraction and
  ``error_bound`` is 0.  Above, the same equations are solved in ball
  arithmetic (balls built from the exact inputs) and the largest improvement
  δ any action could still offer (upper end of its ball) widens the bound:
  the optimal gain lies in [g − δ, g], so ``error_bound`` = radius + δ.  The
  second route is the GTH elimination in mpmath of the optimal policy's
  recurrent class (stationary law π, gain Σ π c); the two must agree to D
  digits.  Exact input must have rows of available actions summing to
  exactly 1; a float input's rows sum to 1 within ``STRUCTURE_ABS`` and are
  divided by their exact decimal sum.  ``inputs`` says which:
  ``"exact"`` or ``"shortest-decimal"``.

Costs are minimised; ``inf`` in ``c[s, a]`` marks action a unavailable in s.

>>> import numpy as np
>>> P = [np.array([[0.9, 0.1], [0.0, 1.0]]), np.array([[1.0, 0.0], [0.8, 0.2]])]  # a = 0 wait, a = 1 repair
>>> c = np.array([[0.0, np.inf], [1.0, 3.0]])                                      # repair only when broken
>>> s = average_cost_mdp(P, c)
>>> s.policy.tolist(), round(s.gain, 12)
([0, 1], 0.333333333333)
>>> r = average_cost_mdp(P, c, digits=25)
>>> r.gain_text, r.gain_exact, r.inputs
('0.3333333333333333333333333', Fraction(1, 3), 'shortest-decimal')
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import scipy.sparse as sps

from .. import exact as ex
from ..errors import InvalidInput, SolverError, TooLarge
from ..linalg import PolicySystem, closed_classes
from ..tolerance import FLOAT_REL, MDP_TIE_REL, STRUCTURE_ABS
from ..validate import require_digits
from ._ctmc import _agree, _exact_mid, _gth_mp, ctmc_stationary, float_up

HP_MAX = 400  # states for the high-precision gain and optimality check (O(n^3) multiprecision)
EXACT_MAX = 200  # the exact rational route (fmpq_mat; the timings are in numeric/markov/_ctmc.py at EXACT_MAX)


@dataclass(frozen=True)
class AverageCostSolution:
    """An optimal stationary policy and its evaluation.

    ``gain`` (the optimal average cost when it does not depend on the initial
    state, else None; then see ``g``), ``g`` (per-state gain), ``bias`` (h,
    zero at one state of each recurrent class), ``policy`` (action per state),
    ``stationary`` (the policy's stationary law when it has one recurrent
    class, else None), ``classes`` (its recurrent classes), ``iterations``,
    ``residual`` (max violation of the optimality equations), ``method``;
    ``inputs`` (which MDP the digits are for: ``"exact"`` or
    ``"shortest-decimal"``, see :mod:`crawlmath.numeric.exact`); without
    ``digits``, when the gain is constant: ``gain_bounds`` (lower,
    upper) containing the optimal gain of the float64 MDP (rows renormalised
    to sum 1), rigorous including rounding (:func:`optimality_check`; the
    rounding of decimal inputs to binary is not in it: ``digits`` is) and
    ``error_bound`` = max(gain − lower, upper − gain); with
    ``digits``: ``gain_text`` (the gain to that many digits), ``digits``
    (digits on which the two routes agree), ``error_bound`` (rigorous
    absolute bound on ``abs(gain_mp - optimal gain)``), ``gain_exact`` (the optimal
    gain as a Fraction when the exact route ran) and ``gain_mp`` (an mpmath
    number at ``digits`` + 15 significant digits).  When the exact check
    improved the float policy, ``policy``, ``g``, ``bias`` and ``stationary``
    are those of the improved policy (``iterations`` and ``residual`` stay
    those of the float policy iteration; ``method`` counts the exact steps).
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
    inputs: str = ex.EXACT
    gain_exact: Fraction | None = None
    gain_mp: object = None
    gain_bounds: tuple[float, float] | None = None


def average_cost_mdp(P, c, digits: int | None = None, *, max_iter: int = 1000,
                     max_states: int | None = None, floats: str = ex.FLOATS) -> AverageCostSolution:
    """Optimal average cost, bias, policy and stationary law of a finite MDP.

    Parameters
    ----------
    P : sequence of A matrices, each S×S (nested lists, NumPy arrays -- object
        arrays of exact numbers included --, scipy.sparse or
        `crawlmath.numeric.exact.Triplets`); ``P[a][s]`` is the law of the next
        state after action a in state s (a probability vector wherever the
        action is available).
    c : (S, A) nested lists or array of one-step costs (exact numbers or
        floats); ``inf`` (``float("inf")`` or ``"inf"``) marks an unavailable action.
    digits : deliver the optimal gain to this many significant digits for the
        exact MDP the input names, certified by two routes (unichain optimal
        policies of at most ``max_states`` states, default ``HP_MAX``).
    max_iter : policy-iteration cap (SolverError beyond it).
    floats : ``"shortest-decimal"`` (default: a float means the decimal
        ``repr`` prints) or ``"binary"`` (its exact binary value).

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
    try:
        P = list(P)
    except TypeError:
        raise InvalidInput("P", "must be a sequence of A transition matrices", value=type(P).__name__) from None
    mats, cost, allowed = validate_mdp(P, c)
    inputs = ex.input_kind((P, c), floats=floats)
    S = cost.shape[0]
    limit = HP_MAX if max_states is None else int(max_states)
    if digits is not None:
        digits = require_digits(digits)
        if S > limit:
            raise TooLarge("P", f"{S} states exceed the high-precision limit {limit}; pass max_states= to raise it",
                           value=S)
    policy, g, h, classes, k = optimal_policy(mats, cost, allowed, max_iter=max_iter)
    residual, lower, upper, size = optimality_check(mats, cost, allowed, g, h, policy)
    if len(classes) == 1 or float(np.ptp(g)) <= MDP_TIE_REL * float(np.abs(g).max()):
        gain = float(g[classes[0][0]])
        error = max(gain - lower, upper - gain)
        if not error < max(abs(gain), FLOAT_REL * size):
            raise SolverError(f"the float route bounds the optimal gain {gain!r} only within [{lower!r}, {upper!r}] "
                              f"(optimality residual {residual:.3g}): not one digit; digits= (--digits) gives it exactly")
        bounds = (lower, upper)
    else:
        gain, error, bounds = None, None, None
        if not residual <= FLOAT_REL * size:
            raise SolverError(f"optimality equations violated by {residual:.3g} at the final policy (gains "
                              f"{float(g.min())!r} to {float(g.max())!r})")
    pi = _stationary(mats, policy, classes[0]) if len(classes) == 1 else None
    sol = AverageCostSolution(gain, g, h.sum(axis=0), policy, pi, classes, k, residual, "multichain-policy-iteration",
                              error_bound=error, inputs=inputs, gain_bounds=bounds)
    if digits is None:
        return sol
    return _certify(sol, P, c, digits, floats, max_iter)


# ----------------------------------------------------------------- input


def validate_mdp(P, c):
    """Read an average-cost MDP given as ``P`` (one S×S transition matrix per action) and ``c`` (S×A costs, inf
    where an action is unavailable) as float64, or raise `InvalidInput` naming the argument, the entry and the rule.

    Returns ``(mats, cost, allowed)``: the matrices as CSR without explicit zeros, the cost array, and the mask of
    available actions.  Rows of available actions must sum to 1 within ``STRUCTURE_ABS``.

    >>> mats, cost, allowed = validate_mdp([[[1]], [[1]]], [[1, float("inf")]])
    >>> cost.shape, allowed.tolist()
    ((1, 2), [[True, False]])
    """
    cost = ex.float_array(c, argument="c")
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
        M = ex.float_matrix(M, argument=f"P[{a}]")
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


# ----------------------------------------------------------------- policy iteration (the one evaluator)


def optimal_policy(mats, cost, allowed, *, max_iter: int = 1000, unichain: bool = False):
    """Multichain policy iteration (Puterman 1994, §9.2) on validated arrays
    (:func:`validate_mdp`): from the cheapest action per state, evaluate the
    policy (:func:`_evaluate`), improve first on P g, then on
    c + P h among the actions keeping P g minimal, an action changing only
    when beaten by more than ``MDP_TIE_REL`` of *that state's* magnitudes (a
    tie relative to the largest bias in the MDP hid improvements of 1e-2 in
    the 10^4-state admission MDP, where h reaches 2.5e7 far from the optimum's
    recurrent class).  Returns (policy, g, h, classes, iterations), h as the two rows
    (hi, lo) of :func:`_evaluate`.  ``unichain=True`` (used by
    :func:`crawlmath.numeric.markov._sparse_refine.float_policy`, whose exact stage
    assumes it) refuses, SolverError, any policy met with several recurrent classes.

    >>> import numpy as np
    >>> mats, cost, allowed = validate_mdp([np.eye(2), np.array([[0, 1.0], [1, 0]])], [[2, 1], [5, 0]])
    >>> optimal_policy(mats, cost, allowed)[0].tolist()          # alternate between the states
    [1, 1]
    """
    policy = np.where(allowed, cost, np.inf).argmin(axis=1)
    for k in range(1, max_iter + 1):
        # SuperLU for every class and transient set (dense_max=0): the crawler MDP's compiled dense path would round
        # differently, and these results are kept bit for bit
        system = PolicySystem(_policy_matrix(mats, policy), dense_max=0)
        if unichain and len(system.classes) != 1:
            raise SolverError(f"policy iteration met a policy with {len(system.classes)} recurrent classes: the "
                              "exact stage needs a unichain MDP")
        g, h = _evaluate(system, cost[np.arange(len(policy)), policy])
        classes = system.classes
        new = _improve(mats, cost, allowed, g, h, policy)
        if np.array_equal(new, policy):
            return policy, g, h, classes, k
        policy = new
    raise SolverError(f"policy iteration did not settle in {max_iter} iterations")


def _policy_matrix(mats, policy) -> sps.csr_matrix:
    """The rows P_{policy(s)}(s, ·), picked per action and put back in state order."""
    picks = [np.flatnonzero(policy == a) for a in range(len(mats))]
    stacked = sps.vstack([M[i] for M, i in zip(mats, picks)], format="csr")
    return stacked[np.argsort(np.concatenate(picks))]


REFINE_STEPS = 4  # iterative-refinement steps of an evaluation (each stops early once the residual stops halving)


def _evaluate(system: PolicySystem, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(g, h) of the policy whose matrix ``system`` factorises (:class:`crawlmath.numeric.linalg.PolicySystem`,
    the one multichain evaluator), one-step costs ``c``: its solution refined while the residual halves,
    the residuals written as differences, c(s) − g(s) + Σ_j P(s, j)(h(j) − h(s)): h grows like n² in a
    queue with holding costs, and the differences are what the equations are about, so their rounding is
    relative to |h(j) − h(s)|, not to |h|.

    h is kept as two rows, h = h[0] + h[1] (a double-double value; Dekker's
    two-sum keeps the correction's lost low part): where |h| ≈ 2e9 (a
    10^5-state queue) one float64 resolves it only to 2.4e-7, and the
    refined residual, hence the gain's bounds, could not go below that.

    >>> P = sps.csr_matrix(np.array([[0.9, 0.1], [0.8, 0.2]]))
    >>> g, h = _evaluate(PolicySystem(P, dense_max=0), np.array([0.0, 1.0]))
    >>> round(float(g[0]), 15), round(float(h.sum(axis=0)[1]), 15)  # π = (8/9, 1/9): g = 1/9, h(1) = 1/0.9
    (0.111111111111111, 1.111111111111111)
    """
    g, hi = system.solve(np.zeros_like(c), c)
    h = np.stack([hi, np.zeros_like(hi)])
    last = math.inf
    for _ in range(REFINE_STEPS):
        r1, r2 = _row_differences(system.P, g)[0], c - g + _row_differences(system.P, h)[0]
        size = float(max(np.abs(r1).max(), np.abs(r2).max()))
        if not size < last / 2:
            break
        last = size
        dg, dh = system.solve(r1, r2)
        g, h = g + dg, _two_sum(h, dh)
    return g, h


def _two_sum(h: np.ndarray, d: np.ndarray) -> np.ndarray:
    """(hi, lo) + d as a new (hi, lo) with hi = fl(hi + d) and the rounding error
    of that sum carried into lo exactly (Knuth's TwoSum)."""
    s = h[0] + d
    t = s - h[0]
    err = (h[0] - (s - t)) + (d - t)
    return np.stack([s, h[1] + err])


def _row_differences(M: sps.csr_matrix, v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row s: (Σ_j M(s, j)(v(j) − v(s)), Σ_j M(s, j) Σ_parts |v_part(j) − v_part(s)|, stored
    entries in the row); ``v`` is one vector or the two rows of a double-double (hi + lo), whose
    parts are differenced separately (hi(j) − hi(s) is exact between neighbours of like size)."""
    S = M.shape[0]
    row = np.repeat(np.arange(S), np.diff(M.indptr))
    parts = [w[M.indices] - w[row] for w in np.atleast_2d(v)]
    d = M.data * sum(parts)
    mag = M.data * sum(np.abs(x) for x in parts)
    return np.bincount(row, d, S), np.bincount(row, mag, S), np.diff(M.indptr)


def _values(mats, cost, allowed, v, with_cost: bool):
    """Per (s, a), inf where unavailable: V = [c(s, a)] + Σ_j P_a(s, j)(v(j) − v(s)), the
    magnitude |c(s, a)| + Σ_j P_a(s, j)|v(j) − v(s)| of its terms, and a rigorous bound on
    V's rounding (below)."""
    S, A = cost.shape
    V, mag, rnd = np.empty((S, A)), np.empty((S, A)), np.empty((S, A))
    for a, M in enumerate(mats):
        d, m, k = _row_differences(M, v)
        c = np.where(allowed[:, a], cost[:, a], 0.0) if with_cost else 0.0
        sigma = np.where(allowed[:, a], np.asarray(M.sum(axis=1)).ravel(), 1.0)  # unavailable rows may be empty
        V[:, a], mag[:, a] = c + d, np.abs(c) + m
        rnd[:, a] = _rounding_bound(k, mag[:, a], sigma)
    return np.where(allowed, V, np.inf), np.where(allowed, mag, 0.0), np.where(allowed, rnd, 0.0)


def _rounding_bound(k: np.ndarray, mag: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """Bound on |computed V − V| for V = c + Σ_j p_j (v_j − v_s) of the row renormalised to sum 1.

    Each v_j − v_s (two for a double-double and their sum), product and the k + 1 additions
    commit relative errors u = 2^-53, so the computed sum is within γ_{k+5} · mag,
    γ_m = m u / (1 − m u) (Higham 2002, §3.1); the row's
    sum σ ≠ 1 by a few ulps of the float input adds |1/σ − 1| · mag.  Doubled to cover the
    rounding of this bound itself."""
    u = 2.0 ** -53
    m = (k + 5) * u
    return 2 * (m / (1 - m) + np.abs(1 / sigma - 1)) * mag


def _improve(mats, cost, allowed, g, h, policy):
    """The improved policy: first on P g, then on c + P h among the actions keeping P g minimal,
    ties (within ``MDP_TIE_REL`` of the state's magnitudes) kept (Puterman 1994, §9.2.1)."""
    G, gmag, _ = _values(mats, cost, allowed, g, with_cost=False)
    tie_g = MDP_TIE_REL * (np.abs(g) + gmag.max(axis=1))
    new = _strict_argmin(G, policy, tie_g)
    if not np.array_equal(new, policy):
        return new
    V, mag, _ = _values(mats, cost, allowed, h, with_cost=True)
    V[G > G[np.arange(len(policy)), policy][:, None] + tie_g[:, None]] = np.inf
    return _strict_argmin(V, policy, MDP_TIE_REL * (np.abs(g) + mag.max(axis=1)))


def _strict_argmin(Q: np.ndarray, policy: np.ndarray, tie: np.ndarray) -> np.ndarray:
    """The argmin per row, keeping the current action unless beaten by more than that row's ``tie``."""
    S = len(policy)
    best = Q.argmin(axis=1)
    keep = Q[np.arange(S), policy] <= Q[np.arange(S), best] + tie
    return np.where(keep, policy, best)


def optimality_check(mats, cost, allowed, g, h, policy) -> tuple[float, float, float, float]:
    """(residual, lower, upper, size): the largest violation of the optimality equations
    min_a Σ_j P_a(s, j) g(j) = g(s) and min_a [c(s, a) + Σ_j P_a(s, j) h(j)] = g(s) + h(s)
    (the second over the actions attaining the first), and bounds lower ≤ g*(s) ≤ upper for
    every state s of the float64 MDP (rows renormalised to sum 1), rigorous including rounding:

        lower = min_{s,a} [c(s, a) + Σ_j P_a(s, j)(h(j) − h(s))],
        upper = max_s [c_d(s) + Σ_j P_d(s, j)(h(j) − h(s))]

    hold for *any* h (Odoni 1969; Puterman 1994, §8.5.2): T h ≥ h + lower iterates to
    v*_N ≥ N lower − 2 max|h|, and c_d + P_d h − h ≤ upper gives g_d ≤ upper, g* ≤ g_d.
    Each value is widened by the bound on its rounding (:func:`_rounding_bound`).  ``size``:
    the largest magnitude the residual is computed from, max over s, a of |g(s)| + |c(s, a)| +
    Σ_j P_a(s, j)|h(j) − h(s)| (the scale of its rounding).

    >>> import numpy as np
    >>> mats, cost, allowed = validate_mdp([np.eye(2), np.array([[0, 1.0], [1, 0]])], [[2, 1], [5, 0]])
    >>> policy, g, h, _, _ = optimal_policy(mats, cost, allowed)
    >>> r, lo, hi, size = optimality_check(mats, cost, allowed, g, h, policy)
    >>> r, lo <= 0.5 <= hi, hi - lo < 1e-13, size
    (0.0, True, True, 5.5)
    """
    S = len(policy)
    G, gmag, _ = _values(mats, cost, allowed, g, with_cost=False)
    V, mag, rnd = _values(mats, cost, allowed, h, with_cost=True)
    r1 = np.abs(G.min(axis=1))
    tie_g = MDP_TIE_REL * (np.abs(g) + gmag.max(axis=1))
    Vg = np.where(G > G.min(axis=1)[:, None] + tie_g[:, None], np.inf, V)
    r2 = np.abs(Vg.min(axis=1) - g)
    lower = float(np.nextafter(np.where(allowed, V - rnd, np.inf).min(), -np.inf))
    here = np.arange(S), policy
    upper = float(np.nextafter((V[here] + rnd[here]).max(), np.inf))
    size = float((np.abs(g) + mag.max(axis=1)).max())
    return float(max(r1.max(), r2.max())), lower, upper, size


def _stationary(mats, policy, C) -> np.ndarray:
    sub = _policy_matrix(mats, policy)[C][:, C]
    pi = np.zeros(len(policy))
    pi[C] = ctmc_stationary((sub - sps.diags(np.asarray(sub.sum(axis=1)).ravel())).tocsr()).pi
    return pi


# ----------------------------------------------------------------- high precision


def _certify(sol: AverageCostSolution, P, c, digits: int, floats: str, max_iter: int) -> AverageCostSolution:
    """The optimal gain of the exact MDP to ``digits`` digits, two routes (module docstring)."""
    import mpmath  # lazy: slow to import; only the high-precision routes need it


    S = len(sol.policy)
    if len(sol.classes) != 1:
        raise SolverError(f"digits= needs a unichain optimal policy; this one has {len(sol.classes)} recurrent classes")
    rows, cost = _exact_mdp(P, c, sol.inputs, floats)
    with mpmath.workdps(digits + 15):
        if S <= EXACT_MAX:
            policy, gain, h, steps = _exact_policy_iteration(rows, cost, sol.policy, max_iter)
            gain_mp, bound, route = ex.to_mpf(gain), 0.0, "fmpq-bias"
            if steps:
                route += f"+{steps}-exact-improvement-steps"
        else:
            policy, h = sol.policy, None
            gain_mp, bound = _ball_gain(rows, cost, policy, digits)
            gain, route = None, "arb-bias"
        classes = closed_classes(_pattern(rows, policy))
        if len(classes) != 1:
            raise SolverError(f"digits= needs a unichain optimal policy; the exact one has {len(classes)} recurrent classes")
        C = [int(s) for s in classes[0]]
        pi = _gth_mp(_class_rates(rows, policy, C))
        gain_gth = mpmath.fsum(p * ex.to_mpf(cost[s][policy[s]]) for p, s in zip(pi, C))
        agreed = _agree(gain_mp, gain_gth)
        if not agreed >= digits:
            raise SolverError(f"high-precision routes agree to {agreed:.1f} digits only, {digits} asked "
                              f"({route}: {mpmath.nstr(gain_mp, digits + 5)}, mpmath GTH: {mpmath.nstr(gain_gth, digits + 5)})")
        if bound and not bound <= abs(gain_mp) * mpmath.mpf(10) ** (-digits):
            raise SolverError(f"the ball route bounds the optimal gain only within {mpmath.nstr(bound, 3)} "
                              f"(relative {mpmath.nstr(bound / abs(gain_mp), 3)}); {digits} digits asked")
        text = mpmath.nstr(gain_mp, digits, min_fixed=-math.inf, max_fixed=math.inf)
        stationary = np.zeros(S)
        stationary[C] = [float(p) for p in pi]
    changed = not np.array_equal(policy, sol.policy)
    g = np.full(S, float(gain_mp)) if changed else sol.g
    bias = np.array([float(x) for x in h]) if changed else sol.bias
    return AverageCostSolution(float(gain_mp), g, bias, np.asarray(policy), stationary if changed else sol.stationary,
                               [np.asarray(C)] if changed else sol.classes, sol.iterations, sol.residual,
                               f"{sol.method}+{route}+mpmath-gth", text, agreed, float_up(bound) if bound else 0.0,
                               sol.inputs, gain, gain_mp)


def _exact_mdp(P, c, inputs: str, floats: str):
    """``rows[a][s]`` = {j: P_a(s, j)} (Fractions) and ``cost[s][a]`` (Fraction, or inf when
    unavailable), checked: entries >= 0, rows of available actions summing to exactly 1 (exact
    input) or divided by their exact sum (float input, already within tolerance of 1)."""
    cost = ex.dense(c, argument="c", floats=floats, allow_inf=True)
    rows = []
    for a, M in enumerate(P):
        T = ex.sparse(M, argument=f"P[{a}]", floats=floats)
        law = [dict() for _ in range(T.shape[0])]
        for i, j, v in zip(T.rows, T.cols, T.values):
            if v < 0:
                raise InvalidInput(f"P[{a}]", "entries must be >= 0", value=str(v), entry=(i, j))
            law[i][j] = v
        for s, row in enumerate(law):
            if cost[s][a] == math.inf:
                continue
            total = sum(row.values(), Fraction(0))
            if total != 1:
                if inputs == ex.EXACT:
                    raise InvalidInput(f"P[{a}]", "rows of available actions must sum to exactly 1 (exact input)",
                                       value=str(total), entry=s)
                law[s] = {j: v / total for j, v in row.items()}
        rows.append(law)
    return rows, cost


def _q_exact(rows, cost, h, s: int, a: int) -> Fraction:
    """c(s, a) + Σ_j P_a(s, j) h(j), exactly."""
    return cost[s][a] + sum((p * h[j] for j, p in rows[a][s].items()), Fraction(0))


def _exact_policy_iteration(rows, cost, policy, max_iter: int):
    """Policy iteration over the rationals from ``policy`` (unichain MDP):
    evaluate exactly, switch an action only on a strict improvement, stop when
    none improves.  Returns (policy, gain, bias, steps)."""
    policy = [int(a) for a in policy]
    S = len(policy)
    for steps in range(max_iter):
        gain, h = _exact_evaluate(rows, cost, policy)
        new = list(policy)
        for s in range(S):
            best = _q_exact(rows, cost, h, s, policy[s])
            for a in range(len(rows)):
                if cost[s][a] != math.inf and a != policy[s]:
                    q = _q_exact(rows, cost, h, s, a)
                    if q < best:
                        best, new[s] = q, a
        if new == policy:
            return np.array(policy), gain, h, steps
        policy = new
    raise SolverError(f"exact policy iteration did not settle in {max_iter} steps")


def _exact_evaluate(rows, cost, policy) -> tuple[Fraction, list[Fraction]]:
    """Gain and bias of a unichain policy, exactly: g + h(s) − Σ_j P(s, j) h(j) = c(s),
    h(0) = 0, the unknown g in the place of h(0) (Puterman 1994, §8.2.3)."""
    from flint import fmpq, fmpq_mat  # lazy: only the exact and ball routes need it

    S = len(policy)
    A = [[fmpq(0)] * S for _ in range(S)]
    b = []
    for s, a in enumerate(policy):
        A[s][0] = fmpq(1)
        if s:
            A[s][s] += 1
        for j, p in rows[a][s].items():
            if j:
                A[s][j] -= fmpq(p.numerator, p.denominator)
        b.append(fmpq(cost[s][a].numerator, cost[s][a].denominator))
    try:
        x = fmpq_mat(A).solve(fmpq_mat(S, 1, b))
    except ZeroDivisionError:
        raise SolverError("exact evaluation: the bias equations are singular (the policy is not unichain)") from None
    z = [Fraction(int(x[i, 0].p), int(x[i, 0].q)) for i in range(S)]
    return z[0], [Fraction(0)] + z[1:]


def _ball_gain(rows, cost, policy, digits: int):
    """The same equations in ball arithmetic: (midpoint of g, radius + δ), both as exact mpmath
    numbers, δ the largest improvement an action may still offer (upper end of its ball, or 0)."""
    from flint import arb, arb_mat, ctx  # lazy: only the exact and ball routes need it


    S = len(policy)
    old = ctx.prec
    try:
        ctx.prec = int(digits * 3.33) + 64
        A, b = arb_mat(S, S), arb_mat(S, 1)
        for s, a in enumerate(policy):
            A[s, 0] = 1
            if s:
                A[s, s] = A[s, s] + 1
            for j, p in rows[a][s].items():
                if j:
                    A[s, j] = A[s, j] - ex.to_arb(p)
            b[s, 0] = ex.to_arb(cost[s][a])
        try:
            x = A.solve(b)
        except ZeroDivisionError:
            raise SolverError("ball evaluation: the bias equations could not be solved (singular or ill-conditioned)") from None
        g = x[0, 0]
        h = [arb(0)] + [x[i, 0] for i in range(1, S)]

        def q(s, a):
            return ex.to_arb(cost[s][a]) + sum((ex.to_arb(p) * h[j] for j, p in rows[a][s].items()), arb(0))

        delta = arb(0)
        for s, a0 in enumerate(policy):
            cur = q(s, a0)
            for a in range(len(rows)):
                if cost[s][a] != math.inf and a != a0:
                    upper = (cur - q(s, a)).upper()  # an exact point: the comparison is decided
                    if upper > delta:
                        delta = upper
        return _exact_mid(g), _exact_mid((g.rad() + delta).upper())
    finally:
        ctx.prec = old


def _pattern(rows, policy) -> sps.csr_matrix:
    S = len(policy)
    r, cidx = zip(*[(s, j) for s, a in enumerate(policy) for j in rows[a][s]])
    return sps.csr_matrix((np.ones(len(r)), (r, cidx)), shape=(S, S))


def _class_rates(rows, policy, C: list[int]) -> list[list[Fraction]]:
    """Off-diagonal rates P(i, j), i ≠ j, of the recurrent class C (the CTMC P − I has π as its law)."""
    where = {s: k for k, s in enumerate(C)}
    R = [[Fraction(0)] * len(C) for _ in C]
    for k, s in enumerate(C):
        for j, p in rows[policy[s]][s].items():
            if j != s:
                R[k][where[j]] = p
    return R
