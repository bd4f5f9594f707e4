r"""The exact Markov chains of the BUbiNG workbench (Buijsrogge 2014, Chapters 3–4).

The game without offline structure: the workbench (online structure) holds
``K`` balls; each step a colour present online is chosen uniformly, one ball
of it is removed, and a ball of colour ``c`` (probability ``p_c``, ``C``
colours) is added.  ``S`` is the number of colours online, ``N(i)`` the
number of colours with ``i`` balls, ``P_new = sum of p_c over colours absent
online`` (``(C - S)/C`` for uniform colours, as in Theorem 4.2.1).

- :func:`exact_uniform` solves the exact chain on occupancy partitions of K
  (uniform colours; float64 LU or power iteration, or Fractions), and
  :func:`certified_uniform` certifies it to D digits;
- :func:`exact_general` solves the chain on occupancy vectors (any rational ``p``,
  small sizes) with exact transitions, certified to D digits inside exact bounds.

>>> r = exact_uniform(3, 2)
>>> r.states, round(r.colours, 12)
(2, 1.666666666667)
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import scipy.sparse as sps
import scipy.sparse.linalg as spla

from ..errors import InvalidInput, SolverError, TooLarge
from ..exact import EXACT, exact
from ..markov import averages_of, check_cost, integer_chain
from ..tolerance import POWER_ITERATION_REL, STATIONARY_NEGATIVE_REL
from ..validate import require_int
from ._laws import ColourLaw, _law

EXACT_STATE_LIMIT = 40_000  # partitions (K = 40 when C >= K); beyond, the LU fill-in exhausts time and memory


# ----------------------------------------------------------------------------
# Exact chain, uniform colours: state = occupancy partition of K.


@dataclass(frozen=True)
class ExactResult:
    """Exact stationary values of the colours chain: E[S], P_new, ν(i) = E[N(i)], with the state count, method,
    residual max|πP − π| (float routes; 0 for the certified ones) and iterations; the certified chain of
    :func:`exact_general` adds ``digits``, exact ``colours_bounds`` / ``p_new_bounds``, ``inputs`` and ``model``.
    """
    K: int
    C: int
    states: int
    colours: float  # E[S] in stationarity
    p_new: float  # E[(C - S)/C] (uniform) or E[absent mass] (general p)
    nu: np.ndarray = field(repr=False)  # E[N(i)], i = 0..K
    method: str = ""
    residual: float = math.nan  # max |pi P - pi|
    iterations: int = 0
    pi: np.ndarray | None = field(default=None, repr=False)
    partitions: list | None = field(default=None, repr=False)
    colours_exact: Fraction | None = None  # E[S] as a Fraction (method "rational"; the floats above are its roundings)
    digits: int | None = None  # certified digits (exact_general): E[S] and P_new lie in their bounds
    colours_bounds: tuple | None = None  # exact Fractions enclosing E[S] (exact_general)
    p_new_bounds: tuple | None = None  # exact Fractions enclosing P_new (exact_general)
    inputs: str = EXACT  # which model the digits are for: "exact" p, or the float reading used
    model: str = ""


def partition_count(K: int, C: int) -> int:
    """Number of partitions of K into at most C parts (the state count)."""
    m = min(K, C)
    # q[n][k]: partitions of n into parts of size <= k  (conjugate: at most k parts)
    q = [1] + [0] * K
    for part in range(1, m + 1):
        for n in range(part, K + 1):
            q[n] += q[n - part]
    return q[K]


def require_chain_states(K: int, C: int) -> None:
    """Refuse (`TooLarge`) an exact chain on partitions with more than ``EXACT_STATE_LIMIT`` states, in
    O(1) when a lower bound already exceeds it: partitions of K into at most 3 parts number at least K²/12.

    >>> try:
    ...     require_chain_states(10**9, 10**9)
    ... except TooLarge as e:
    ...     print(e)
    K: exact chain would have at least 83333333333333333 states (> 40000); lower K (got 1000000000)
    """
    m = min(K, C)
    if m >= 3 and K * K // 12 > EXACT_STATE_LIMIT:
        raise TooLarge("K", f"exact chain would have at least {K * K // 12} states (> {EXACT_STATE_LIMIT}); lower K", value=K)
    n = partition_count(K, C) if m >= 3 else (K // 2 + 1 if m == 2 else 1)
    if n > EXACT_STATE_LIMIT:
        raise TooLarge("K", f"exact chain would have {n} states (> {EXACT_STATE_LIMIT}); lower K", value=K)


def _partitions(K: int, maxparts: int):
    """Partitions of K (descending tuples) with at most ``maxparts`` parts."""
    out = []

    def rec(rem, maxpart, acc):
        if rem == 0:
            out.append(tuple(acc))
            return
        if len(acc) == maxparts:
            return
        for part in range(min(rem, maxpart), 0, -1):
            acc.append(part)
            rec(rem - part, part, acc)
            acc.pop()

    rec(K, K, [])
    return out


def _replace(parts: tuple, old: int, new: int) -> tuple:
    """Replace one part ``old`` (0 = a new part) by ``new`` (0 = drop it)."""
    lst = list(parts)
    if old:
        lst.remove(old)
    if new:
        lst.append(new)
    return tuple(sorted(lst, reverse=True))


def uniform_transitions(K: int, C: int, exact: bool = False):
    """Transition probabilities of the uniform-colour chain on partitions:
    a list of (partitions, rows, cols, probs).  ``exact`` gives Fractions."""
    parts = _partitions(K, min(K, C))
    index = {p: n for n, p in enumerate(parts)}
    one = Fraction(1) if exact else 1.0
    rows, cols, probs = [], [], []
    for n, q in enumerate(parts):
        S = len(q)
        mult: dict[int, int] = {}
        for v in q:
            mult[v] = mult.get(v, 0) + 1
        for i, mi in mult.items():
            pr = one * mi / S
            q1 = _replace(q, i, i - 1)
            m1: dict[int, int] = {}
            for v in q1:
                m1[v] = m1.get(v, 0) + 1
            targets = [(j, one * mj / C) for j, mj in m1.items()]
            free = C - len(q1)
            if free:
                targets.append((0, one * free / C))
            for j, pj in targets:
                rows.append(n)
                cols.append(index[_replace(q1, j, j + 1)])
                probs.append(pr * pj)
    return parts, rows, cols, probs


def exact_uniform(K: int, C: int, method: str = "lu", keep_pi: bool = False) -> ExactResult:
    """Stationary distribution of the exact chain with uniform colours
    (Section 4.1 dynamics on occupancy partitions; no offline structure).

    ``method``: ``"lu"`` (sparse direct solve of πP = π with Σπ = 1),
    ``"power"`` (power iteration on the lazy chain, an independent route) or
    ``"rational"`` (exact Fractions via python-flint, small K only).
    Refuses up front a state count above ``EXACT_STATE_LIMIT``.
    """
    K = require_int(K, "K", minimum=1)
    C = require_int(C, "C", minimum=1)
    require_chain_states(K, C)
    if method not in ("lu", "power", "rational"):
        raise InvalidInput("method", "must be lu, power or rational", value=method)
    parts, rows, cols, probs = uniform_transitions(K, C, exact=(method == "rational"))
    if method == "rational":
        pi, it = _stationary_rational(len(parts), rows, cols, probs), 0
        pif = np.array([float(x) for x in pi])
        S = sum(x * len(q) for x, q in zip(pi, parts))
        colours = float(S)
        resid = 0.0
    else:
        P = sps.csr_matrix((probs, (rows, cols)), shape=(len(parts), len(parts)))
        pif, it = (_stationary_lu(P), 0) if method == "lu" else _stationary_power(P)
        resid = float(np.max(np.abs(P.T @ pif - pif)))
        colours = math.fsum(pif * np.array([len(q) for q in parts]))
    nu = np.zeros(K + 1)
    for x, q in zip(pif, parts):
        for v in q:
            nu[v] += x
    nu[0] = C - colours
    return ExactResult(K, C, len(parts), colours, 1 - colours / C, nu, method, resid, it,
                       pif if keep_pi else None, parts if keep_pi else None, S if method == "rational" else None)


CERTIFIED_PARTITIONS = 6000  # the certified partition chain's work cap: 5604 states (K = 30) take ~9 s, 14883 ~130 s


def certified_uniform(K: int, C: int, digits: int = 30) -> ExactResult:
    r"""E[S] and P_new of the uniform-colour chain on occupancy partitions
    (:func:`uniform_transitions` with exact Fractions, p_c = 1/C), certified
    to ``digits`` digits by the two routes of
    :func:`crawlmath.numeric.markov._sparse_refine.average` (exact rational bounds from
    the refined bias, and π refined with exact integer residuals inside them),
    as :func:`exact_general` does for any rational law.  `TooLarge` before the
    work when the refinement's estimated cost exceeds the limits.

    >>> r = certified_uniform(3, 2, digits=25)
    >>> r.colours_bounds[0] <= Fraction(5, 3) <= r.colours_bounds[1], r.inputs
    (True, 'exact')
    """
    K = require_int(K, "K", minimum=1)
    C = require_int(C, "C", minimum=1)
    digits = require_int(digits, "digits", minimum=1)
    require_chain_states(K, C)
    parts, rows, cols, probs = uniform_transitions(K, C, exact=True)
    check_cost(len(rows), digits, argument="K")
    present = [len(q) for q in parts]
    chain = integer_chain(len(parts), rows, cols, probs, present, argument="K")
    out, (mass, _) = averages_of(chain, {"colours": present, "p_new": [Fraction(C - s, C) for s in present]}, digits)
    colours, p_new = out["colours"], out["p_new"]
    weight = int(sum(mass))
    nu = np.zeros(K + 1)
    for x, q in zip(mass, parts):
        for v in q:
            nu[v] += int(x) / weight
    nu[0] = C - float(colours.value)
    method = (f"partition chain ({len(parts)} states) with exact transitions (p_c = 1/C), certified to {digits} "
              f"digits: E[S] {colours.method}")
    return ExactResult(K, C, len(parts), float(colours.value), float(p_new.value), nu, method, 0.0, 0, digits=digits,
                       colours_bounds=colours.bounds, p_new_bounds=p_new.bounds, inputs=EXACT,
                       model="uniform p_c = 1/C (exact)")


def _stationary_lu(P, pin: int = -1) -> np.ndarray:
    """Solve πP = π, Σπ = 1 by sparse LU: fix π_pin = 1 and drop that
    balance equation (no dense normalisation row, so little fill-in).  The
    pinned state should carry non-negligible mass (callers pin the state with
    the most colours; pinning a state of mass 1e-16 ruins the scaling)."""
    n = P.shape[0]
    if n == 1:
        return np.ones(1)
    pin = pin % n
    A = (P.T - sps.identity(n, format="csr")).tocsc()
    keep = np.r_[0:pin, pin + 1:n]
    B = A[keep][:, keep]
    rhs = -A[keep][:, [pin]].toarray().ravel()
    x = spla.spsolve(B.tocsc(), rhs)
    pi = np.empty(n)
    pi[pin] = 1.0
    pi[keep] = x
    if not np.all(np.isfinite(pi)) or np.any(pi < -STATIONARY_NEGATIVE_REL * pi.max()):
        raise SolverError(f"sparse LU returned an invalid stationary vector (min {pi.min():.3g}, max {pi.max():.3g})")
    return pi / math.fsum(pi)


def _stationary_power(P, tol: float = POWER_ITERATION_REL, maxit: int = 200_000):
    n = P.shape[0]
    PT = (0.5 * (P + sps.identity(n, format="csr"))).T.tocsr()  # lazy chain: aperiodic, same π
    pi = np.full(n, 1.0 / n)
    for it in range(1, maxit + 1):
        nxt = PT @ pi
        nxt /= nxt.sum()
        if np.max(np.abs(nxt - pi)) < tol * np.max(nxt):
            return nxt, it
        pi = nxt
    raise SolverError(f"power iteration did not converge in {maxit} iterations")


def _stationary_rational(n, rows, cols, probs):
    """Exact πP = π, Σπ = 1 over the rationals (python-flint fmpq_mat)."""
    import flint  # python-flint: loaded only by the ball (certified) routes

    A = flint.fmpq_mat(n, n)
    for r, c, pr in zip(rows, cols, probs):
        A[c, r] += flint.fmpq(pr.numerator, pr.denominator)
    for k in range(n):
        A[k, k] -= 1
    for k in range(n):
        A[n - 1, k] = 1
    b = flint.fmpq_mat(n, 1)
    b[n - 1, 0] = 1
    x = A.solve(b)
    return [Fraction(int(x[k, 0].p), int(x[k, 0].q)) for k in range(n)]


# ----------------------------------------------------------------------------
# Exact chain, any p: state = occupancy vector (q_1..q_C), small sizes only.


def _compositions(K, C):
    if C == 1:
        yield (K,)
        return
    for first in range(K, -1, -1):
        for rest in _compositions(K - first, C - 1):
            yield (first,) + rest


def exact_general(p, K: int, state_limit: int = 20_000, digits: int = 30) -> ExactResult:
    r"""Stationary E[S], P_new and ν(i) = E[N(i)] of the chain on occupancy
    vectors (q_1..q_C) for any colour law ``p`` (Section 4.1 dynamics), exact
    from the input and certified to ``digits`` digits.

    ``p`` is read by :func:`colour_law` (ints, Fractions, decimal strings
    exactly; a binary float as its shortest decimal: ``inputs`` and ``model``
    say which) and normalised exactly, so the transition probabilities
    :math:`P(q \to q - e_j + e_c) = p_c / S(q)` (j present online, S(q) the
    colours present) are exact rationals.  E[S] and P_new are the long-run
    averages of the rewards S(q) and :math:`\sum_{c: q_c = 0} p_c`, each by the
    two routes of :func:`crawlmath.numeric.markov._sparse_refine.average`: exact
    rational bounds from the refined bias (``colours_bounds``,
    ``p_new_bounds``), and π refined with exact integer residuals whose exact
    average lies inside them.  Colours with p_c = 0 never enter the stationary
    chain; they count in ν(0).  A law with irrational weights (``colour_law_of``
    other than uniform) is refused: its chain has no exact transitions.

    >>> r = exact_general(["0.5", "0.3", "0.2"], 2, digits=25)
    >>> r.colours_bounds[0] <= 1 + (1 - Fraction(38, 100)) / 1 <= r.colours_bounds[1], r.inputs   # 1 + (1 - P2) h0/h1
    (True, 'exact')
    """
    law = _law(p)
    if law.values is None:
        raise InvalidInput("p", "must be rational for the exact chain (a law with weights in balls is not)",
                           value=law.model)
    K = require_int(K, "K", minimum=1)
    digits = require_int(digits, "digits", minimum=1)
    total = sum(law.values)
    f = [v / total for v in law.values]
    C = len(f)
    log_n = math.lgamma(K + C) - math.lgamma(C) - math.lgamma(K + 1)  # before forming the exact binomial
    if log_n > math.log(state_limit) + 1:
        raise TooLarge("K", f"exact chain on occupancy vectors would have about e^{log_n:.1f} states (> {state_limit})", value=K)
    n = math.comb(K + C - 1, C - 1)
    if n > state_limit:
        raise TooLarge("K", f"exact chain on occupancy vectors would have {n} states (> {state_limit})", value=K)
    states = list(_compositions(K, C))
    index = {s: k for k, s in enumerate(states)}
    src, dst, probs, present, absent = [], [], [], [], []
    for k, q in enumerate(states):
        nz = [c for c in range(C) if q[c]]
        share = [x / len(nz) for x in f]
        for j in nz:
            q1 = list(q)
            q1[j] -= 1
            for c in range(C):
                q2 = list(q1)
                q2[c] += 1
                src.append(k)
                dst.append(index[tuple(q2)])
                probs.append(share[c])
        present.append(len(nz))
        absent.append(sum((f[c] for c in range(C) if not q[c]), Fraction(0)))
    check_cost(len(src), digits, argument="K")
    chain = integer_chain(n, src, dst, probs, present, argument="p")
    out, (mass, _) = averages_of(chain, {"colours": present, "p_new": absent}, digits)
    colours, p_new = out["colours"], out["p_new"]
    weight = int(sum(mass))
    nu = np.zeros(K + 1)
    nu[0] = _zero_colours(p)
    for x, q in zip(mass, states):
        for v in q:
            nu[v] += int(x) / weight
    method = (f"occupancy-vector chain ({n} states) with exact transitions, certified to {digits} digits: E[S] "
              f"{colours.method}")
    return ExactResult(K, C, n, float(colours.value), float(p_new.value), nu, method, 0.0, 0, digits=digits,
                       colours_bounds=colours.bounds, p_new_bounds=p_new.bounds, inputs=law.inputs, model=law.model)


def _zero_colours(p) -> int:
    """The colours of ``p`` with p_c = 0 (`colour_law` drops them)."""
    if isinstance(p, ColourLaw):
        return 0
    return sum(1 for x in p if exact(x, argument="p") == 0)
