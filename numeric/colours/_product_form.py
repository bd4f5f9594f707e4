r"""Exact stationary values of the BUbiNG workbench for any colour law from the product form
(Buijsrogge 2014, Chapter 4; the product form is derived in crawlmath, not printed in the thesis).

- :func:`exact_stationary` gives E[S], P_new and E[1/S] at any size as rigorous balls
  (power sums and Newton's identities), with :func:`exact_stationary_series` (series
  inversion) as the independent route and :func:`exact_stationary_rational` (Fractions)
  for small sizes; :func:`exact_nu_uniform` gives ν(i) in Fractions for uniform colours.
  They read ``p`` through :func:`~crawlmath.numeric.colours.colour_law`; the result's
  ``inputs`` and ``model`` say which model its digits are for.

>>> exact_stationary_rational(["1/2", "1/2"], 2)  # uniform: (KC - 1)/(K + C - 2)
Fraction(3, 2)
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..errors import InvalidInput, SolverError
from ..generated import buijsrogge as gen
from ..generated import buijsrogge_exact as exact_rules
from ..validate import require_int, require_memory, require_seconds
from ._laws import _law

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
_ARB_OP_SECONDS = 2.0e-6
_ARB_BYTES = 80  # one arb and its list slot (measured: 160 bytes per colour for a ball and its suffix max at 200 bits)
_EXACT_BYTES = 136  # one exact p_c: a Fraction of ~17-digit integers (measured 132 for a float64 powerlaw p read exactly)


def _active_powers(q: np.ndarray, K: int, bits: float) -> np.ndarray:
    r"""Per colour (``q`` sorted descending, positive), how many of the powers
    :math:`(q_i/q_1)^k`, ``k = 1..K``, reach :math:`2^{-\text{bits}}`: the terms
    :func:`_power_sums_arb` forms; smaller ones go into a rigorous tail bound."""
    with np.errstate(divide="ignore", over="ignore"):
        L = np.log2(q[0] / q)  # inf where a weight underflows float64 (a law formed in balls keeps it)
        reach = np.floor(bits / L)  # inf where q_i = q_1: every power is formed
    return np.minimum(K, reach).clip(min=1).astype(np.int64)


def _product_form_cost(C: int, K: int, terms: int | None = None) -> tuple[float, float]:
    """Estimated (bytes, seconds) of :func:`exact_stationary`: ``terms`` active powers (at most C·(K−1); pass
    the count from :func:`_active_powers` when p is known), K²/2 terms of Newton's identities, per colour its
    exact value, its ball and the ball of the suffix maximum."""
    terms = C * (K - 1) if terms is None else terms
    seconds = _ARB_OP_SECONDS * (terms + K * K / 2 + C)
    return float(_ARB_BYTES) * (2 * C + 2 * K) + (24.0 + _EXACT_BYTES) * C, seconds


def require_product_form_budget(C: int, K: int, terms: int | None = None) -> None:
    """Refuse (`TooLarge`) a product-form evaluation beyond the memory or time limit; called before ``p`` is built
    with the lower bound ``terms = C`` (every colour's first power), and again with the exact count."""
    nbytes, seconds = _product_form_cost(C, K, terms)
    which, size = ("C", C) if C >= 2 * K else ("K", K)  # memory is one ball per colour and two per step of K
    require_memory(nbytes, which, f"the product form with C = {C} colours and K = {K}", value=size)
    require_seconds(seconds, "K", f"the product form at K = {K} ({K}²/2 ball products and the power sums)", value=K)


def _suffix_max(ball: list) -> list:
    """``M[n]`` a ball containing :math:`\\max_{i \\ge n} p_i` (``approx`` is only nearly the order of the exact p)."""
    M = [ball[-1]]
    for b in reversed(ball[:-1]):
        M.append(b.max(M[-1]))
    return M[::-1]


def _power_sums_arb(q: np.ndarray, ball: list, K: int, prec: int) -> list:
    r"""Balls enclosing :math:`P_k = \sum_i p_i^k`, ``k = 1..K-1``, for the balls ``ball``
    (each containing an exact :math:`p_i`), ``q`` their float64 approximations sorted descending.

    Every product is a ball product, so no power underflows or loses digits
    (float64 powers underflow at :math:`q_1^k < 10^{-308}`, k ≈ 320 for
    :math:`q_1 = 0.1`: issue 30).  A power with :math:`(q_i/q_1)^k < 2^{-b}`,
    :math:`b = \text{prec} + \log_2 C + 8`, is not formed: those terms add the
    rigorous interval :math:`[0, n_{dropped} M^k]`, ``M`` a ball containing the
    largest dropped :math:`p_i` (the floats only choose which terms to drop).

    >>> import flint
    >>> P = _power_sums_arb(np.array([0.5, 0.25, 0.25]), [flint.arb(0.5), flint.arb(0.25), flint.arb(0.25)], 4, 64)
    >>> [p.str(5) for p in P]
    ['1.0000', '0.37500', '0.15625']
    """
    import flint  # python-flint: loaded only by the ball (certified) routes

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


def _newton_h(P: list, n_max: int) -> list:
    r"""Complete homogeneous symmetric polynomials :math:`h_0..h_{n_{max}}` from the power
    sums by Newton's identities :math:`n h_n = \sum_{k=1}^n P_k h_{n-k}`: only positive
    terms, so ball radii stay relative to the values (no cancellation).

    >>> import flint
    >>> h = _newton_h([flint.arb(1), flint.arb(0.5)], 2)   # p = (1/2, 1/2)
    >>> [x.str(5) for x in h]
    ['1.0000', '1.0000', '0.75000']
    """
    import flint  # python-flint: loaded only by the ball (certified) routes

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
    decimal vector rarely sums to 1); the power sums and Newton's identities run in
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
    import flint  # python-flint: loaded only by the ball (certified) routes

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
            P = _power_sums_arb(q, ball, 4, prec)
            ratio, inverse = flint.arb(0), flint.arb(1)
        else:
            P = _power_sums_arb(q, ball, max(K + 1, 4), prec)
            h = _newton_h(P, K)
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
    import flint  # python-flint: loaded only by the ball (certified) routes

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
    import flint  # python-flint: loaded only by the ball (certified) routes

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
