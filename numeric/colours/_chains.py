r"""Colours in the BUbiNG workbench (Buijsrogge 2014, Chapters 3–5).

The game without offline structure: the workbench (online structure) holds
``K`` balls; each step a colour present online is chosen uniformly, one ball
of it is removed, and a ball of colour ``c`` (probability ``p_c``, ``C``
colours) is added.  ``S`` is the number of colours online, ``N(i)`` the
number of colours with ``i`` balls, ``P_new = sum of p_c over colours absent
online`` (``(C - S)/C`` for uniform colours, as in Theorem 4.2.1).

- :func:`colour_distribution` builds the Chapter 5 probability vectors;
- :func:`initial_expected` is eq. (3.1), the expected colours at t = K;
- :func:`mean_field` is Theorem 4.2.1 / Corollary 4.2.1;
- :func:`exact_uniform` solves the exact chain on occupancy partitions of K
  (uniform colours; float64 LU or power iteration, or Fractions), and
  :func:`exact_general` the chain on occupancy vectors (any rational ``p``,
  small sizes) with exact transitions, certified to D digits inside exact
  bounds; :func:`float_law` reads ``p`` for the float64 simulation the same way;
- :func:`exact_stationary` gives E[S], P_new and E[1/S] at any size from the
  product form as rigorous balls (power sums and Newton's identities), with
  :func:`exact_stationary_series` (series inversion) as the independent route
  and :func:`exact_stationary_rational` (Fractions) for small sizes.  They read
  ``p`` through :func:`colour_law` (issue 30): ints, Fractions, SymPy
  Rationals, Decimals and decimal strings exactly, a binary float as its
  shortest decimal (``numeric/exact.py``), and :func:`colour_law_of` forms the
  uniform law exactly and the other Chapter 5 laws (e.g. :math:`c^{-\gamma}`) in
  balls from their exact parameters; the result's ``inputs`` and ``model`` say
  which model its digits are for.

>>> round(initial_expected(colour_distribution("uniform", 1000), 100), 4)
95.2079
>>> round(mean_field(100, 1000).colours, 10)
90.991810737
>>> r = exact_uniform(3, 2)
>>> r.states, round(r.colours, 12)
(2, 1.666666666667)
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

import numpy as np
import scipy.sparse as sps
import scipy.sparse.linalg as spla

from ..errors import InvalidInput, SolverError, TooLarge
from ..exact import EXACT, FLOATS, exact, input_kind
from ..generated import buijsrogge as gen
from ..generated import buijsrogge_exact as exact_rules
from ..tolerance import FLOAT_REL, POWER_ITERATION_REL, STATIONARY_NEGATIVE_REL
from ..validate import require_int, require_memory, require_positive, require_probability_vector, require_seconds

DISTRIBUTIONS = ("uniform", "geometric", "normal", "poisson", "powerlaw")
EXACT_STATE_LIMIT = 40_000  # partitions (K = 40 when C >= K); beyond, the LU fill-in exhausts time and memory


def colour_distribution(kind: str, C: int, *params) -> np.ndarray:
    r"""Probability vector ``p_1..p_C`` of Chapter 5.

    - ``uniform``: :math:`p_c = 1/C` (§5.1);
    - ``geometric``, mean λ: :math:`p_c \propto e^{-(c-1)/\lambda}(1-e^{-1/\lambda})` (eq. 5.1);
    - ``normal``, μ, σ: :math:`p_c \propto \exp(-(c-\mu)^2/(2\sigma^2))` (§5.3);
    - ``poisson``, λ: :math:`p_c \propto e^{-\lambda}\lambda^c/c!` (§5.4);
    - ``powerlaw``, γ: :math:`p_c = c^{-\gamma}/\sum_n n^{-\gamma}` (§5.5);

    each normalised over ``c = 1..C`` (the thesis: "normalization is applied
    because the sum of the elements in the probability vector p should be 1").
    """
    C = require_int(C, "C", minimum=1)
    c = np.arange(1, C + 1, dtype=float)
    if kind == "uniform":
        _nparams(kind, params, 0)
        return np.full(C, 1.0 / C)
    if kind == "geometric":
        _nparams(kind, params, 1)
        lam = require_positive(params[0], "geometric mean")
        logw = -(c - 1) / lam
    elif kind == "normal":
        _nparams(kind, params, 2)
        mu = require_positive(params[0], "normal mu")
        sigma = require_positive(params[1], "normal sigma")
        logw = -((c - mu) ** 2) / (2 * sigma**2)
    elif kind == "poisson":
        _nparams(kind, params, 1)
        lam = require_positive(params[0], "poisson mean")
        from scipy.special import gammaln

        logw = c * math.log(lam) - lam - gammaln(c + 1)
    elif kind == "powerlaw":
        _nparams(kind, params, 1)
        gamma = params[0]
        if not (isinstance(gamma, (int, float)) and math.isfinite(gamma) and gamma >= 0):
            raise InvalidInput("powerlaw gamma", "must be a finite number >= 0", value=gamma)
        logw = -gamma * np.log(c)
    else:
        raise InvalidInput("dist", f"must be one of {', '.join(DISTRIBUTIONS)}", value=kind)
    w = np.exp(logw - logw.max())
    return w / math.fsum(w)


def _nparams(kind, params, n):
    if len(params) != n:
        raise InvalidInput("dist", f"{kind} takes {n} parameter(s)", value=params)


def initial_expected(p, K: int) -> float:
    r"""Lemma 3.2.1, eq. (3.1): :math:`C - \sum_i (1-p_i)^K`, summed as
    :math:`\sum_i 1-(1-p_i)^K` with the generated stable form (``expm1/log1p``,
    no cancellation)."""
    p = require_probability_vector(p, "p")
    K = require_int(K, "K", minimum=1)
    return math.fsum(gen.colour_drawn_probability(p, K))


@dataclass(frozen=True)
class MeanField:
    """Theorem 4.2.1 and Corollary 4.2.1 for uniform colours: the exact Fractions of the closed forms, their floats,
    and ν(i), i = 0..K, formed on demand (``nu``: K + 1 floats, refused with `TooLarge` beyond the memory limit).
    """

    K: int
    C: int
    colours_exact: Fraction  # KC/(K+C-1)
    p_new_exact: Fraction  # (C-1)/(K+C-1)
    method: str = "closed form (Thm 4.2.1, Cor 4.2.1)"

    @property
    def colours(self) -> float:
        """KC/(K+C−1) as a float (correctly rounded from the Fraction)."""
        return _float_of(self.colours_exact, "K" if self.K >= self.C else "C", self.K if self.K >= self.C else self.C)

    @property
    def p_new(self) -> float:
        """(C−1)/(K+C−1) as a float (in [0, 1], always representable)."""
        return float(self.p_new_exact)

    @property
    def nu(self) -> np.ndarray:
        """ν(i), i = 0..K (Cor 4.2.1), ν(0) = C − KC/(K+C−1); K + 1 float64 values."""
        nbytes = 16.0 * (self.K + 1) if self.K < 10**300 else math.inf  # a float beyond 1e308 would overflow
        require_memory(nbytes, "K", f"the mean-field nu(i), i = 0..K, at K = {self.K}", value=self.K)
        K, C = self.K, self.C
        if K == 1:
            # The float form exp((i-1) log(K-1) - ...) is 0 * -inf at K = 1; the
            # mpmath twin evaluates the derived power form, 0**0 = 1.
            nu_K = np.array([float(gen.mean_field_nu_mp(1, 1, C))])
        else:
            nu_K = gen.mean_field_nu(np.arange(1, K + 1, dtype=float), float(K), float(C))
        return np.concatenate([[float(C - self.colours_exact)], nu_K])


def _float_of(x: Fraction, argument: str, value) -> float:
    """``float(x)``, or `TooLarge` naming ``argument`` when x exceeds the float range."""
    try:
        return float(x)
    except OverflowError:
        raise TooLarge(argument, "the value exceeds the float64 range (1.8e308); use the exact Fraction "
                                 "(colours_exact)", value=value) from None


def mean_field(K: int, C: int) -> MeanField:
    """The mean-field values for uniform colours: E[S] ≈ KC/(K+C−1), P_new ≈ (C−1)/(K+C−1) and ν(i), i = 0..K
    (Buijsrogge, Thm 4.2.1, Cor 4.2.1), exact in integers for any K, C ≥ 1 (the closed form needs no memory).

    >>> mean_field(10**400, 10**400).colours_exact == Fraction(10**800, 2 * 10**400 - 1)
    True
    >>> mean_field(10**18, 10**18).colours
    5e+17
    """
    K = require_int(K, "K", minimum=1)
    C = require_int(C, "C", minimum=1)
    return MeanField(K, C, Fraction(K * C, K + C - 1), Fraction(C - 1, K + C - 1))


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
    from ..markov._sparse_refine import averages_of, check_cost, integer_chain

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
    import flint

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
    from ..markov._sparse_refine import averages_of, check_cost, integer_chain

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


def agree(a: float, b: float, rel: float = FLOAT_REL) -> bool:
    """True when a and b agree to relative tolerance ``rel`` (of the larger magnitude)."""
    return abs(a - b) <= rel * max(abs(a), abs(b))


# ----------------------------------------------------------------------------
# Exact stationary values for any p from the product form
#   pi(q) ∝ NNZ(q) * prod_i p_i^{q_i}
# (derived here; verified against the chain in proofs/claims/buijsrogge.py).


@dataclass(frozen=True)
class ProductForm:
    """Exact stationary E[S] and P_new for any colour law p from the product form π(q) ∝ NNZ(q) ∏ p_i^{q_i}:
    the float values, the rigorous balls they come from (python-flint ``arb``), the ratio h_{K−2}/h_{K−1}, the
    working precision and the certified relative digits.
    """
    K: int
    C: int
    colours: float  # E[S] = 1 + (1 - P2) h_{K-2}/h_{K-1}, the midpoint of colours_ball
    p_new: float  # E[absent mass] = (1 - P2) - (P2 - P3) h_{K-2}/h_{K-1}
    colours_ball: object = field(repr=False)  # flint.arb enclosing E[S] for the input p (normalised exactly)
    p_new_ball: object = field(repr=False)
    ratio: object = field(repr=False)  # h_{K-2}/h_{K-1} of the normalised p, a flint.arb
    inverse_colours_ball: object = field(repr=False, default=None)  # E[1/S] = h_K/h_{K-1} (normalised p)
    p_max_ball: object = field(repr=False, default=None)  # max_i p_i / sum_i p_i
    digits: int = 0  # certified correct relative digits of colours (from the ball's radius)
    prec: int = 0  # working precision in bits
    method: str = ""
    inputs: str = ""  # "exact" or "shortest-decimal": how p was read (numeric/exact.py)
    model: str = ""  # the colour law the digits are for (ColourLaw.model)

    @property
    def radius(self) -> float:
        """Rigorous bound on |colours − E[S]|: the ball's radius plus the rounding of its midpoint to float."""
        return float(self.colours_ball.rad()) + abs(self.colours) * 2.0**-52


# Cost model of the product form (measured on this machine with python-flint 0.9: one arb product and sum
# per active power, one arb multiply-add per term of Newton's identities).
ARB_OP_SECONDS = 2.0e-6
ARB_BYTES = 80  # one arb and its list slot (measured: 160 bytes per colour for a ball and its suffix max at 200 bits)
EXACT_BYTES = 136  # one exact p_c: a Fraction of ~17-digit integers (measured 132 for a float64 powerlaw p read exactly)


def _active_powers(q: np.ndarray, K: int, bits: float) -> np.ndarray:
    r"""Per colour (``q`` sorted descending, positive), how many of the powers
    :math:`(q_i/q_1)^k`, ``k = 1..K``, reach :math:`2^{-\text{bits}}`: the terms
    :func:`power_sums_arb` forms; smaller ones go into a rigorous tail bound."""
    with np.errstate(divide="ignore", over="ignore"):
        L = np.log2(q[0] / q)  # inf where a weight underflows float64 (a law formed in balls keeps it)
        reach = np.floor(bits / L)  # inf where q_i = q_1: every power is formed
    return np.minimum(K, reach).clip(min=1).astype(np.int64)


def product_form_cost(C: int, K: int, terms: int | None = None) -> tuple[float, float]:
    """Estimated (bytes, seconds) of :func:`exact_stationary`: ``terms`` active powers (at most C·(K−1); pass
    the count from :func:`_active_powers` when p is known), K²/2 terms of Newton's identities, per colour its
    exact value, its ball and the ball of the suffix maximum."""
    terms = C * (K - 1) if terms is None else terms
    seconds = ARB_OP_SECONDS * (terms + K * K / 2 + C)
    return float(ARB_BYTES) * (2 * C + 2 * K) + (24.0 + EXACT_BYTES) * C, seconds


def require_product_form_budget(C: int, K: int, terms: int | None = None) -> None:
    """Refuse (`TooLarge`) a product-form evaluation beyond the memory or time limit; called before ``p`` is built
    with the lower bound ``terms = C`` (every colour's first power), and again with the exact count."""
    nbytes, seconds = product_form_cost(C, K, terms)
    which, size = ("C", C) if C >= 2 * K else ("K", K)  # memory is one ball per colour and two per step of K
    require_memory(nbytes, which, f"the product form with C = {C} colours and K = {K}", value=size)
    require_seconds(seconds, "K", f"the product form at K = {K} ({K}²/2 ball products and the power sums)", value=K)


@dataclass(frozen=True, eq=False)  # eq=False: an ndarray field has no truth value to compare by
class ColourLaw:
    r"""A colour law for the exact routes: the positive :math:`p_c` (not yet
    normalised; the routes divide by their exact sum inside the balls) in
    descending order of their float64 approximations.

    ``approx`` serves only the pruning of :func:`power_sums_arb` and the cost
    model; every value the routes certify is formed from :meth:`balls`, which
    contain the exact :math:`p_c`.  ``values`` holds the exact Fractions when
    p is rational (the rational route needs them), ``inputs`` is ``"exact"``
    or the float reading ``"shortest-decimal"``, and ``model`` names the law
    the digits are for.

    >>> import flint
    >>> law = colour_law([Fraction(1, 10), "0.9"])
    >>> law.approx.tolist(), law.values
    ([0.9, 0.1], (Fraction(9, 10), Fraction(1, 10)))
    >>> [b.contains(flint.fmpq(v.numerator, v.denominator)) for b, v in zip(law.balls(), law.values)]
    [True, True]
    """
    approx: np.ndarray
    values: tuple | None
    inputs: str
    model: str
    kind: str = ""  # a Chapter 5 law whose weights are formed in balls (values is None)
    params: tuple = ()  # its exact parameters (Fractions)
    order: np.ndarray | None = None  # approx[j] approximates the weight of colour order[j] + 1

    def balls(self) -> list:
        """Balls at the current ``flint.ctx.prec`` containing the exact :math:`p_c`, in the order of ``approx``."""
        import flint

        if self.values is not None:
            return [flint.arb(flint.fmpq(v.numerator, v.denominator)) for v in self.values]
        w = _weight_balls(self.kind, [flint.arb(flint.fmpq(x.numerator, x.denominator)) for x in self.params], self.approx.size)
        return [w[i] for i in self.order.tolist()]


def _weight_balls(kind: str, params: list, C: int) -> list:
    r"""Balls of the unnormalised Chapter 5 weights :math:`w_c`, ``c = 1..C``, from the parameter balls, each
    formed directly (no recurrence, so radii do not grow with c): :math:`c^{-\gamma}`, :math:`e^{-(c-1)/\lambda}`,
    :math:`e^{-(c-\mu)^2/(2\sigma^2)}`, :math:`e^{c\log\lambda - \log c!}` (the factors common to all c cancel
    in the normalisation)."""
    import flint

    cs = [flint.arb(c) for c in range(1, C + 1)]
    if kind == "powerlaw":
        return [c ** -params[0] for c in cs]
    if kind == "geometric":
        return [(-(c - 1) / params[0]).exp() for c in cs]
    if kind == "normal":
        mu, sigma = params
        return [(-((c - mu) ** 2) / (2 * sigma ** 2)).exp() for c in cs]
    log_lam = params[0].log()  # poisson
    return [(c * log_lam - (c + 1).lgamma()).exp() for c in cs]


def colour_law(p, *, floats: str = FLOATS) -> ColourLaw:
    """The colour vector ``p`` (a list or 1-D array of anything
    :func:`~crawlmath.numeric.exact.exact` reads) as a `ColourLaw`: entries
    non-negative, summing to 1 within ``STRUCTURE_ABS`` (the routes normalise
    exactly), zeros dropped.

    >>> law = colour_law(["0.5", Fraction(1, 4), 0.25])
    >>> law.values, law.inputs
    ((Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)), 'shortest-decimal')
    """
    if isinstance(p, np.ndarray) and p.ndim != 1:
        raise InvalidInput("p", "must be a non-empty vector", value=p.shape)
    if isinstance(p, np.ndarray) and p.dtype == np.float64 and floats == FLOATS:
        return _float_law(p)
    raw = list(p)
    vals = [exact(x, argument="p", entry=i, floats=floats) for i, x in enumerate(raw)]
    for i, v in enumerate(vals):
        if v.numerator < 0:  # a tiny negative Fraction rounds to -0.0 and would pass the float check
            raise InvalidInput("p", "entries must be finite and >= 0", value=str(v), entry=i)
    require_probability_vector([float(v) for v in vals], "p")
    vals = [v for v in vals if v.numerator]
    approx = np.array([float(v) for v in vals])
    order = np.argsort(-approx, kind="stable")
    kind = input_kind(raw, floats=floats)
    return ColourLaw(approx[order], tuple(vals[i] for i in order), kind, _given(kind))


def float_law(p, *, floats: str = FLOATS) -> tuple[np.ndarray, str]:
    """``p`` for the float64 routes (the simulation), read as :func:`colour_law`
    reads it: each entry through :func:`~crawlmath.numeric.exact.exact` (ints,
    Fractions, Decimals, decimal or fraction strings; a binary float as its
    shortest decimal), then rounded to the nearest float64, in the given order
    with its zeros.  Returns (vector, inputs), ``inputs`` as
    :func:`~crawlmath.numeric.exact.input_kind`.  A float64 vector is returned
    as it is (its shortest decimal rounds back to it), to be validated by the
    caller.

    >>> v, inputs = float_law(["0.5", Fraction(1, 4), "1/4"])
    >>> v.tolist(), inputs
    ([0.5, 0.25, 0.25], 'exact')
    """
    if isinstance(p, np.ndarray) and p.dtype == np.float64 and floats == FLOATS:
        return p, FLOATS
    if isinstance(p, np.ndarray) and p.ndim != 1:
        raise InvalidInput("p", "must be a non-empty vector", value=p.shape)
    raw = list(p)
    vals = [exact(x, argument="p", entry=i, floats=floats) for i, x in enumerate(raw)]
    for i, v in enumerate(vals):
        if v.numerator < 0:
            raise InvalidInput("p", "entries must be finite and >= 0", value=str(v), entry=i)
    return require_probability_vector([float(v) for v in vals], "p"), input_kind(raw, floats=floats)


def _given(kind: str) -> str:
    return "p as given (exact)" if kind == EXACT else f"p as given, each binary float read as its {kind} value"


def _float_law(p: np.ndarray) -> ColourLaw:
    """`colour_law` of a float64 array, 5x faster than entry by entry through `exact`: ``Decimal(repr(x))`` is
    the same shortest decimal (tests/test_colours_exact.py checks the two readings agree)."""
    p = require_probability_vector(p, "p")
    q = p[p > 0]
    q = q[np.argsort(-q, kind="stable")]
    values = tuple(Fraction(*Decimal(repr(x)).as_integer_ratio()) for x in q.tolist())
    return ColourLaw(q, values, FLOATS, _given(FLOATS))


WEIGHTS = {"powerlaw": "c^-gamma (§5.5)", "geometric": "exp(-(c-1)/lambda) (eq. 5.1)",
           "normal": "exp(-(c-mu)^2/(2 sigma^2)) (§5.3)", "poisson": "lambda^c/c! (§5.4)"}
PARAM_NAMES = {"powerlaw": ("gamma",), "geometric": ("lambda",), "normal": ("mu", "sigma"), "poisson": ("lambda",)}


def colour_law_of(kind: str, C: int, *params, floats: str = FLOATS) -> ColourLaw:
    r"""The Chapter 5 law ``kind`` for the exact routes, from its exact
    parameters (``"1.1"`` or ``Fraction(11, 10)``; a float is read as its
    shortest decimal): ``uniform`` is :math:`p_c = 1/C` exactly, the others'
    weights (:data:`WEIGHTS`, irrational in general) are formed in balls from
    the exact parameters and normalised inside the balls, so the digits are
    those of the law as printed in the thesis, not of a float64 rounding of it.
    :func:`colour_distribution` (float64, the same rules) gives the order of
    the colours and refuses bad parameters.

    >>> law = colour_law_of("powerlaw", 3, "1.1")
    >>> law.params, law.inputs, law.values is None
    ((Fraction(11, 10),), 'exact', True)
    """
    C = require_int(C, "C", minimum=1)
    if kind == "uniform":
        _nparams(kind, params, 0)
        return ColourLaw(np.full(C, 1.0 / C), (Fraction(1, C),) * C, EXACT, f"uniform p_c = 1/{C} (exact)")
    if kind not in WEIGHTS:
        raise InvalidInput("dist", f"must be one of {', '.join(DISTRIBUTIONS)}", value=kind)
    _nparams(kind, params, len(PARAM_NAMES[kind]))
    exact_params = tuple(exact(x, argument=f"{kind} {name}", floats=floats) for x, name in zip(params, PARAM_NAMES[kind]))
    approx = colour_distribution(kind, C, *(float(x) for x in exact_params))  # validates the parameters too
    order = np.argsort(-approx, kind="stable")
    reading = input_kind(list(params), floats=floats)
    named = ", ".join(f"{n} = {x}" for n, x in zip(PARAM_NAMES[kind], exact_params))
    return ColourLaw(approx[order], None, reading, f"{kind} p_c ∝ {WEIGHTS[kind]}, {named} ({reading}), weights in balls",
                     kind, exact_params, order)


def _law(p) -> ColourLaw:
    return p if isinstance(p, ColourLaw) else colour_law(p)


def _suffix_max(ball: list) -> list:
    """``M[n]`` a ball containing :math:`\\max_{i \\ge n} p_i` (``approx`` is only nearly the order of the exact p)."""
    M = [ball[-1]]
    for b in reversed(ball[:-1]):
        M.append(b.max(M[-1]))
    return M[::-1]


def power_sums_arb(q: np.ndarray, ball: list, K: int, prec: int) -> list:
    r"""Balls enclosing :math:`P_k = \sum_i p_i^k`, ``k = 1..K-1``, for the balls ``ball``
    (each containing an exact :math:`p_i`), ``q`` their float64 approximations sorted descending.

    Every product is a ball product, so no power underflows or loses digits
    (float64 powers underflow at :math:`q_1^k < 10^{-308}`, k ≈ 320 for
    :math:`q_1 = 0.1`: issue 30).  A power with :math:`(q_i/q_1)^k < 2^{-b}`,
    :math:`b = \text{prec} + \log_2 C + 8`, is not formed: those terms add the
    rigorous interval :math:`[0, n_{dropped} M^k]`, ``M`` a ball containing the
    largest dropped :math:`p_i` (the floats only choose which terms to drop).

    >>> import flint
    >>> P = power_sums_arb(np.array([0.5, 0.25, 0.25]), [flint.arb(0.5), flint.arb(0.25), flint.arb(0.25)], 4, 64)
    >>> [p.str(5) for p in P]
    ['1.0000', '0.37500', '0.15625']
    """
    import flint

    C = q.size
    bits = prec + math.log2(C) + 8
    with np.errstate(divide="ignore", over="ignore"):
        L = np.log2(q[0] / q)  # ascending, L[0] = 0 (inf where a p_i underflows float64)
    M = _suffix_max(ball)
    P = [sum(ball, flint.arb(0))]
    cur = ball
    for k in range(2, K):
        n = int(np.searchsorted(L, bits / k, side="right"))  # colours with (q_i/q_1)^k >= 2^-bits
        cur = [c * x for c, x in zip(cur[:n], ball[:n])]
        s = sum(cur, flint.arb(0))
        if n < C:
            s += flint.arb(0).union((C - n) * M[n] ** k)
        P.append(s)
    return P


def newton_h(P: list, n_max: int) -> list:
    r"""Complete homogeneous symmetric polynomials :math:`h_0..h_{n_{max}}` from the power
    sums by Newton's identities :math:`n h_n = \sum_{k=1}^n P_k h_{n-k}`: only positive
    terms, so ball radii stay relative to the values (no cancellation).

    >>> import flint
    >>> h = newton_h([flint.arb(1), flint.arb(0.5)], 2)   # p = (1/2, 1/2)
    >>> [x.str(5) for x in h]
    ['1.0000', '1.0000', '0.75000']
    """
    import flint

    h = [flint.arb(1)]
    for n in range(1, n_max + 1):
        acc = flint.arb(0)
        for k in range(1, n + 1):
            acc += P[k - 1] * h[n - k]
        h.append(acc / n)
    return h


def exact_stationary(p, K: int, dps: int = 30) -> ProductForm:
    r"""Exact stationary E[colours] and P_new of the chain without offline
    structure, any colour distribution ``p``, any size, as rigorous balls.

    With :math:`h_n` the complete homogeneous symmetric polynomials of ``p``
    and :math:`P_k = \sum_i p_i^k` (``p`` normalised exactly, :math:`P_1 = 1`):
    :math:`E[S] = 1 + (1-P_2)\,h_{K-2}/h_{K-1}` and
    :math:`P_{new} = (1-P_2) - (P_2-P_3)\,h_{K-2}/h_{K-1}`;
    for uniform p, :math:`E[S] = (KC-1)/(K+C-2)`.  ``p`` is a vector read by
    :func:`colour_law` (exact numbers exactly, a binary float as its shortest
    decimal) or a `ColourLaw` (:func:`colour_law_of`); its entries become balls
    containing the exact values, divided by their exact sum inside the balls (a
    decimal vector rarely sums to 1); :func:`power_sums_arb` and :func:`newton_h` run in
    python-flint balls at ``prec`` bits, so ``colours_ball`` encloses the
    stationary value of that input (``inputs``, ``model``) and ``digits`` says how many relative
    digits the ball certifies (at least ``dps``, else `SolverError`).
    Also :math:`E[1/S] = h_K/h_{K-1}` (``inverse_colours_ball``): with
    :math:`\pi(q) \propto S(q)\prod p_i^{q_i}` the normaliser is
    :math:`\sum_i p_i h_{K-1} = h_{K-1}` and :math:`\sum_q \prod p_i^{q_i} = h_K`.
    The independent route is :func:`exact_stationary_series`.

    >>> r = exact_stationary(["0.25"] * 4, 3)
    >>> r.colours, r.digits >= 30, r.inputs    # (KC - 1)/(K + C - 2) = 11/5
    (2.2, True, 'exact')
    """
    import flint

    K = require_int(K, "K", minimum=1)
    dps = require_int(dps, "dps", minimum=1)
    law = _law(p)
    q = law.approx
    require_product_form_budget(q.size, K, q.size)
    prec = int(dps * 3.33) + 64
    require_product_form_budget(q.size, K, int(_active_powers(q, K, prec + math.log2(q.size) + 8).sum()))
    old = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        ball = law.balls()
        if K == 1:
            P = power_sums_arb(q, ball, 4, prec)
            ratio, inverse = flint.arb(0), flint.arb(1)
        else:
            P = power_sums_arb(q, ball, max(K + 1, 4), prec)
            h = newton_h(P, K)
            ratio = P[0] * h[K - 2] / h[K - 1]  # h_n(p/P1) = h_n(p)/P1^n
            inverse = h[K] / h[K - 1] / P[0]
        p_max = _suffix_max(ball)[0] / P[0]
        P2, P3 = P[1] / P[0] ** 2, P[2] / P[0] ** 3
        colours = gen.product_form_colours_arb(P2, ratio) if K > 1 else flint.arb(1)
        p_new = gen.product_form_p_new_arb(P2, P3, ratio) if K > 1 else 1 - P2
    finally:
        flint.ctx.prec = old
    return _product_form_result(K, law, colours, p_new, ratio, prec, dps, "product form; power sums and Newton's identities in arb balls", inverse, p_max)


def _product_form_result(K, law, colours, p_new, ratio, prec, dps, method, inverse=None, p_max=None) -> ProductForm:
    """Package the balls; refuse (`SolverError`) a ball certifying fewer than ``dps`` digits."""
    bits = colours.rel_accuracy_bits()
    digits = int(bits * math.log10(2)) if bits < 10**6 else 10**6
    if digits < dps:
        raise SolverError(f"{method}: the enclosure of E[S] certifies {digits} digits (< {dps}) at {prec} bits: {colours.str(20, radius=True)}")
    return ProductForm(K, law.approx.size, float(colours.mid()), float(p_new.mid()), colours, p_new, ratio, inverse, p_max,
                       digits, prec, method, law.inputs, law.model)


def exact_stationary_series(p, K: int, dps: int = 30, max_prec: int = 4096) -> ProductForm:
    r"""The second route to :func:`exact_stationary`: :math:`h_n` read off the
    generating function :math:`\sum_n h_n t^n = 1/\prod_i (1 - p_i t)`
    (Macdonald, *Symmetric functions*, I.2.5) instead of Newton's identities.
    The product is built by a tree of ``arb_poly.from_roots`` blocks and
    truncated series products, then inverted as a power series; the
    inversion cancels (the coefficients of :math:`\prod(1-p_i t)` alternate),
    so the precision doubles from twice the target until the ball certifies ``dps``
    digits or ``max_prec`` bits is reached (`SolverError`).

    >>> r = exact_stationary_series([Fraction(1, 4)] * 4, 3)
    >>> r.colours
    2.2
    """
    import flint

    K = require_int(K, "K", minimum=2)
    dps = require_int(dps, "dps", minimum=1)
    law = _law(p)
    q = law.approx
    require_product_form_budget(q.size, K)
    prec = 2 * (int(dps * 3.33) + 64)  # the inversion loses about as many bits as it keeps (measured: C >= 1e4, K = 1000)
    old_prec, old_cap = flint.ctx.prec, flint.ctx.cap
    try:
        while True:
            flint.ctx.prec, flint.ctx.cap = prec, K + 3
            colours, p_new, ratio, inverse = _series_values(law.balls(), K)
            if colours.rel_accuracy_bits() >= dps * 3.33 + 4 or prec >= max_prec:
                break
            prec *= 2
    finally:
        flint.ctx.prec, flint.ctx.cap = old_prec, old_cap
    return _product_form_result(K, law, colours, p_new, ratio, prec, dps, "product form; h_n by series inversion of prod(1 - p_i t) in arb balls", inverse)


def _series_values(ball: list, K: int):
    """(E[S], P_new, ratio, E[1/S]) balls by the generating-function route from the balls of p at the current flint precision."""
    import flint

    P1 = sum(ball, flint.arb(0))
    blocks = [flint.arb_series(flint.arb_poly.from_roots(ball[s:s + K]).coeffs()[::-1], prec=K + 3)
              for s in range(0, len(ball), K)]  # prod (x - p_i) reversed is prod (1 - p_i t)
    while len(blocks) > 1:
        blocks = [blocks[i] * blocks[i + 1] for i in range(0, len(blocks) - 1, 2)] + blocks[len(blocks) - len(blocks) % 2:]
    e = blocks[0].coeffs() + [flint.arb(0)] * 4  # e_k with sign (-1)^k
    h = blocks[0].inv().coeffs()
    P2 = e[1] ** 2 - 2 * e[2]  # Newton: P2 = e1^2 - 2 e2, P3 = e1^3 - 3 e1 e2 + 3 e3 (e_k = |coefficient|)
    P3 = -(e[1] ** 3) + 3 * e[1] * e[2] - 3 * e[3]
    P2, P3 = P2 / P1 ** 2, P3 / P1 ** 3
    ratio = P1 * h[K - 2] / h[K - 1]
    return gen.product_form_colours_arb(P2, ratio), gen.product_form_p_new_arb(P2, P3, ratio), ratio, h[K] / h[K - 1] / P1


def exact_stationary_rational(p, K: int) -> Fraction:
    r"""E[S] as an exact Fraction for the rational colour law ``p`` (read by
    :func:`colour_law`, normalised exactly), by Newton's identities over the
    rationals: a third route, for small C·K only.  A power law with an
    irrational :math:`c^{-\gamma}` is refused.

    >>> exact_stationary_rational(["0.25"] * 4, 3)
    Fraction(11, 5)
    """
    law = _law(p)
    if law.values is None:
        raise InvalidInput("p", "must be rational for the rational route (a law with weights in balls is not)", value=law.model)
    q = law.approx
    K = require_int(K, "K", minimum=2)
    # cost model (seconds per Fraction operation of the power sums and of Newton's identities), not tolerances
    require_seconds(1e-6 * q.size * K + 1e-5 * K * K * (len(q) + K), "K", f"exact rational product form at K = {K}, C = {q.size}", value=K)
    f = list(law.values)
    P1 = sum(f)
    f = [x / P1 for x in f]
    P, cur = [], [Fraction(1)] * len(f)
    for _ in range(max(K - 1, 2)):
        cur = [c * x for c, x in zip(cur, f)]
        P.append(sum(cur))
    h = [Fraction(1)]
    for n in range(1, K):
        h.append(sum(P[k - 1] * h[n - k] for k in range(1, n + 1)) / n)
    return 1 + (1 - P[1]) * h[K - 2] / h[K - 1]


def exact_nu_uniform(K: int, C: int) -> list[Fraction]:
    r"""Exact stationary :math:`E[N(i)]`, ``i = 0..K``, for uniform colours,
    as Fractions, from the product form :math:`\pi(q) \propto S(q)`:
    :math:`E_\pi[N(i)] = \sum_q S\,N(i) / \sum_q S`, in integer arithmetic by
    ``nu_uniform_rational`` (emitted to ``generated/buijsrogge_exact.py`` from
    :func:`crawlmath.derive.buijsrogge.nu_uniform_rational`, proved there equal
    to the closed form SymPy derives, e.g. :math:`E[N(0)] = (C-1)^2/(K+C-2)`).
    With one colour (C = 1) the chain has the single state N(K) = 1.

    >>> [str(x) for x in exact_nu_uniform(3, 3)]
    ['1', '7/6', '2/3', '1/6']
    """
    K = require_int(K, "K", minimum=1)
    C = require_int(C, "C", minimum=1)
    if C == 1:
        return [Fraction(0)] * K + [Fraction(1)]
    return [Fraction(*exact_rules.nu_uniform_rational(i, K, C)) for i in range(K + 1)]
