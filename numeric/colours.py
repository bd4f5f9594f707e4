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
  (uniform colours), :func:`exact_general` the chain on occupancy vectors
  (any ``p``, small sizes).

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
from fractions import Fraction

import numpy as np
import scipy.sparse as sps
import scipy.sparse.linalg as spla

from .errors import InvalidInput, SolverError, TooLarge
from .generated import buijsrogge as gen
from .generated import buijsrogge_exact as exact_rules
from .tolerance import FLOAT_REL
from .validate import require_int, require_memory, require_positive, require_probability_vector, require_seconds

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
    """Theorem 4.2.1 and Corollary 4.2.1 for uniform colours."""

    K: int
    C: int
    colours: float  # KC/(K+C-1)
    p_new: float  # (C-1)/(K+C-1)
    nu: np.ndarray = field(repr=False)  # nu(i), i = 0..K (nu(0) = C - colours)
    method: str = "closed form (Thm 4.2.1, Cor 4.2.1)"


def mean_field(K: int, C: int) -> MeanField:
    """The mean-field values for uniform colours: E[S] ≈ KC/(K+C−1), P_new ≈ (C−1)/(K+C−1) and ν(i), i = 0..K
    (Buijsrogge, Thm 4.2.1, Cor 4.2.1).
    """
    K = require_int(K, "K", minimum=1)
    C = require_int(C, "C", minimum=1)
    if K == 1 and C == 1:
        return MeanField(1, 1, 1.0, 0.0, np.array([0.0, 1.0]))
    s = float(gen.mean_field_colours(K, C))
    if K == 1:
        # The float form exp((i-1) log(K-1) - ...) is 0 * -inf at K = 1; the
        # mpmath twin evaluates the derived power form, 0**0 = 1.
        nu_K = np.array([float(gen.mean_field_nu_mp(1, 1, C))])
    else:
        nu_K = gen.mean_field_nu(np.arange(1, K + 1, dtype=float), float(K), float(C))
    return MeanField(K, C, s, float(gen.mean_field_p_new(K, C)), np.concatenate([[C - s], nu_K]))


# ----------------------------------------------------------------------------
# Exact chain, uniform colours: state = occupancy partition of K.


@dataclass(frozen=True)
class ExactResult:
    """Exact stationary values of the colours chain: E[S], P_new, ν(i) = E[N(i)], with the state count, method,
    residual max|πP − π| and iterations.
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


def partition_count(K: int, C: int) -> int:
    """Number of partitions of K into at most C parts (the state count)."""
    m = min(K, C)
    # q[n][k]: partitions of n into parts of size <= k  (conjugate: at most k parts)
    q = [1] + [0] * K
    for part in range(1, m + 1):
        for n in range(part, K + 1):
            q[n] += q[n - part]
    return q[K]


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
    n = partition_count(K, C)
    if n > EXACT_STATE_LIMIT:
        raise TooLarge("K", f"exact chain would have {n} states (> {EXACT_STATE_LIMIT}); lower K", value=K)
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
                       pif if keep_pi else None, parts if keep_pi else None)


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
    if not np.all(np.isfinite(pi)) or np.any(pi < -1e-9 * pi.max()):
        raise SolverError(f"sparse LU returned an invalid stationary vector (min {pi.min():.3g}, max {pi.max():.3g})")
    return pi / math.fsum(pi)


def _stationary_power(P, tol: float = 1e-14, maxit: int = 200_000):
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


def exact_general(p, K: int, state_limit: int = 20_000) -> ExactResult:
    """Stationary distribution of the chain on occupancy vectors for an
    arbitrary colour distribution ``p`` (Section 4.1 balance equations)."""
    p = require_probability_vector(p, "p")
    K = require_int(K, "K", minimum=1)
    C = p.size
    n = math.comb(K + C - 1, C - 1)
    if n > state_limit:
        raise TooLarge("K", f"exact chain on occupancy vectors would have {n} states (> {state_limit})", value=K)
    states = list(_compositions(K, C))
    index = {s: k for k, s in enumerate(states)}
    rows, cols, probs = [], [], []
    for k, q in enumerate(states):
        nz = [c for c in range(C) if q[c]]
        for j in nz:
            q1 = list(q)
            q1[j] -= 1
            for c in range(C):
                if p[c] == 0:
                    continue
                q2 = list(q1)
                q2[c] += 1
                rows.append(k)
                cols.append(index[tuple(q2)])
                probs.append(p[c] / len(nz))
    P = sps.csr_matrix((probs, (rows, cols)), shape=(n, n))
    Q = np.array(states)
    pin = int(np.argmin(np.abs(Q - K * p).sum(axis=1)))  # a likely state: near the mean occupancy K p
    pi = _stationary_lu(P, pin)
    resid = float(np.max(np.abs(P.T @ pi - pi)))
    occupied = Q > 0
    colours = math.fsum(pi * occupied.sum(axis=1))
    p_new = math.fsum(pi * ((~occupied) @ p))
    nu = np.zeros(K + 1)
    for x, q in zip(pi, states):
        for v in q:
            nu[v] += x
    return ExactResult(K, C, n, colours, p_new, nu, "lu (occupancy vectors)", resid, 0)


def agree(a: float, b: float, rel: float = FLOAT_REL) -> bool:
    """True when a and b agree to relative tolerance ``rel`` (of the larger magnitude)."""
    return abs(a - b) <= rel * max(abs(a), abs(b))


# ----------------------------------------------------------------------------
# Exact stationary values for any p from the product form
#   pi(q) ∝ NNZ(q) * prod_i p_i^{q_i}
# (derived here; verified against the chain in proofs/claims/buijsrogge.py).


@dataclass(frozen=True)
class ProductForm:
    """Exact stationary E[S] and P_new for any colour law p from the product form π(q) ∝ NNZ(q) ∏ p_i^{q_i},
    with the ratio h_{K−2}/h_{K−1} and the working digits.
    """
    K: int
    C: int
    colours: float  # E[S] = 1 + (1 - P2) h_{K-2}/h_{K-1}
    p_new: float  # E[absent mass] = (1 - P2) - (P2 - P3) h_{K-2}/h_{K-1}
    ratio: object  # h_{K-2}(p)/h_{K-1}(p) at working precision
    digits: int
    method: str = "product form; h_n by Newton's identities in mpmath"


def product_form_cost(C: int, K: int) -> tuple[float, float]:
    """Estimated (bytes, seconds) of :func:`exact_stationary`: the K²/2 mpmath
    products of Newton's identities, the C·K power-sum products (mpmath below
    3·10⁶ of them, numpy above) and one mpf per colour (measured on this machine)."""
    powers = C * (K - 1)
    seconds = 1.5e-6 * K * K / 2 + (2e-6 if powers <= 3_000_000 else 2e-9) * powers + 2e-6 * C
    return 120.0 * C + 200.0 * K, seconds


def require_product_form_budget(C: int, K: int) -> None:
    """Refuse (`TooLarge`) a product-form evaluation beyond the memory or time limit."""
    nbytes, seconds = product_form_cost(C, K)
    require_memory(nbytes, "C", f"the product form with C = {C} colours", value=C)
    require_seconds(seconds, "K", f"the product form at K = {K} (K²/2 high-precision products)", value=K)


def exact_stationary(p, K: int, dps: int = 30) -> ProductForm:
    r"""Exact stationary E[colours] and P_new of the chain without offline
    structure, any colour distribution ``p``, any size.

    With :math:`h_n` the complete homogeneous symmetric polynomials of ``p``
    and :math:`P_k = \sum_i p_i^k`:
    :math:`E[S] = 1 + (1-P_2)\,h_{K-2}/h_{K-1}` and
    :math:`P_{new} = (1-P_2) - (P_2-P_3)\,h_{K-2}/h_{K-1}`;
    for uniform p, :math:`E[S] = (KC-1)/(K+C-2)`.
    Newton's identities :math:`n h_n = \sum_{k=1}^n P_k h_{n-k}` have only
    positive terms, so the recursion is stable; it runs in mpmath at ``dps``
    digits (power sums from float64 ``p``, summed with ``math.fsum``).
    """
    import mpmath

    p = require_probability_vector(p, "p")
    K = require_int(K, "K", minimum=1)
    require_product_form_budget(p.size, K)
    if K == 1:
        return ProductForm(1, p.size, 1.0, float(1 - math.fsum(p * p)), mpmath.mpf(0), dps)
    with mpmath.workdps(dps + 10):
        n_needed = K - 1
        # power sums P_k, k = 1..K-1, at working precision (vectorised in float
        # would lose digits for large k; use repeated products in mpmath); the
        # mpf copy of p is built only where it is used (C conversions cost more
        # than the float power sums at C = 1e5)
        pm = None
        if np.count_nonzero(p) * n_needed > 3_000_000:
            pw = np.array(p[p > 0], dtype=float)
            cur = pw.copy()
            P = [mpmath.mpf(1)]
            for k in range(2, n_needed + 1):
                cur = cur * pw
                P.append(mpmath.mpf(float(np.sum(cur))))
        else:
            pm = [mpmath.mpf(float(x)) for x in p[p > 0]]
            cur = list(pm)
            P = [mpmath.fsum(pm)]
            for k in range(2, n_needed + 1):
                cur = [a * b for a, b in zip(cur, pm)]
                P.append(mpmath.fsum(cur))
        h = [mpmath.mpf(1)]
        for n in range(1, n_needed + 1):
            h.append(mpmath.fsum(P[k - 1] * h[n - k] for k in range(1, n + 1)) / n)
        ratio = h[K - 2] / h[K - 1]
        if len(P) < 3 and pm is None:
            pm = [mpmath.mpf(float(x)) for x in p[p > 0]]
        P2 = P[1] if len(P) > 1 else mpmath.fsum(x * x for x in pm)
        P3 = P[2] if len(P) > 2 else mpmath.fsum(x**3 for x in pm)
        # closed forms derived from the product form (derive/buijsrogge.py)
        colours = gen.product_form_colours_mp(P2, ratio)
        p_new = gen.product_form_p_new_mp(P2, P3, ratio)
    return ProductForm(K, p.size, float(colours), float(p_new), ratio, dps)


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
