"""The golden-ratio policy gamma(k, N) and its cost ratio (Coffman–Liu–Weber 1997, §5;
restated in Liu–Nain 2005, §1.3.4).

Notation of the paper: page i has frequency x (the optimal x_i of (10)); the
cycle has F_k accesses; the accesses of page i are the points frac(j/phi) of a
block of M = x F_k consecutive j; ``q`` = mu/nu = mu E[X].  A page's frequency
sits in a Fibonacci bracket, x = s phi^(-J) with ``s`` in [1, phi].

The derivation runs from the schedule to the constant:

1. three-gap theorem (Sós's successor rule) -> how many gaps of each length
   (:func:`three_gap_counts`), the lengths phi^(-m) (:func:`gap_length`), and
   the exact tiling of the cycle by the inter-access distances
   F_J, F_(J+1), F_(J+2) (:func:`tiling_residual`);
2. k -> infinity: per-unit weights of the three distances
   (:func:`bracket_weights`), which give the printed limit formula for
   C(gamma(N)) (:func:`limit_cost`);
3. N -> infinity with mu_i -> 0: the exponents tend to q s phi^m/sqrt5
   (:func:`exponent_limit`) and the cost ratio to C* of (17) tends to
   G(q, s) (:func:`golden_ratio_profile`), a frequency-weighted average over
   pages (:func:`mixture_residual`);
4. H(q) = G(q, 1) (:func:`golden_H`), its q -> 0 limit
   (:func:`golden_H_limit`), and the worst case over bracket positions
   (:func:`worst_case`), phi^5/10.

>>> golden_H_limit()
sqrt(5)/5 + 3/5
>>> sp.expand(worst_case()[1])
11/20 + sqrt(5)/4
"""
from __future__ import annotations

import dataclasses
import functools
import math

import sympy as sp
from sympy.codegen.cfunctions import expm1

from . import DerivationError
from .formula import Formula, assumed, derived, term_magnitudes, typed
from .psi import psi2, psi2_stable
from .scheduling import cstar_limit

PHI = (1 + sp.sqrt(5)) / 2  # phi
PSI = (1 - sp.sqrt(5)) / 2  # the other root of z^2 = z + 1, = -1/phi
R5 = sp.sqrt(5)
# The symbols of derive.scheduling (equal by name and assumptions): c0, mu, nu of (17), q = mu/nu.
c0, mu, nu, q = sp.symbols("c0 mu nu q", positive=True)
s = sp.Symbol("s", positive=True)  # bracket position: x = s phi^(-J), s in [1, phi]
x = sp.Symbol("x", positive=True)  # a page's access frequency
xi = sp.Symbol("xi", positive=True)  # argument of psi_2, psi_3
m = sp.Symbol("m", integer=True, nonnegative=True)  # 0, 1, 2: which of the three distances
T = sp.Symbol("t", positive=True)  # phi^(-J), J the Fibonacci bracket of a page
SRC = "(Coffman–Liu–Weber 1997"


def fib(n) -> sp.Expr:
    """Binet's F_n = (phi^n - psi^n)/sqrt5 (F_0 = 0, F_1 = 1), as printed in §5."""
    return (PHI**n - PSI**n) / R5


@functools.cache
def gap_length() -> sp.Expr:
    """frac(F_m/phi) measured from 0: F_m phi^(-1) - F_(m-1) = -psi^m = (-1)^(m+1) phi^(-m),
    so the point F_m lies phi^(-m) from 0 (above for odd m, below for even m).

    >>> gap_length()
    -(1 - sqrt(5))**m/2**m
    """
    return sp.ratsimp(fib(m) / PHI - fib(m - 1))


@functools.cache
def three_gap_counts() -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """Numbers of gaps of lengths phi^(-n), phi^(-n+1), phi^(-n+2) among M points
    frac(j/phi), 0 <= j < M, with F_n < M <= F_(n+1).

    The points nearest 0 from either side among j < M are j = F_n and F_(n-1)
    (:func:`gap_length`).  Sós's successor rule: the successor of point j is
    j + a if j + a < M (a the index just above 0), else j - b if j >= b, else
    j + a - b; so M - a gaps have length ||a/phi||, M - b have ||b/phi||, and
    the rest (solved from the total M) have their sum phi^(-n) + phi^(-n+1) =
    phi^(-n+2).  Returned in the symbols ``M``, ``Fn`` = F_n, ``Fn1`` = F_(n-1).

    >>> three_gap_counts()
    (-Fn + M, -Fn1 + M, Fn + Fn1 - M)
    """
    M, Fn, Fn1, rest = sp.symbols("M Fn Fn1 rest")
    first, second = M - Fn, M - Fn1
    third = sp.solve(sp.Eq(first + second + rest, M), rest)[0]
    return first, second, third


def _in_powers(expr: sp.Expr, n: sp.Symbol, k: sp.Symbol) -> sp.Expr:
    """Rewrite Binet powers with symbolic exponents in U = phi^n, W = phi^k and the
    signs sigma = (-1)^n, tau = (-1)^k (psi = -1/phi), so that identities in n, k
    become rational identities."""
    U, W, sigma, tau = sp.symbols("U W sigma tau", nonzero=True)
    out = sp.expand_power_exp(sp.expand(expr))
    out = out.replace(lambda e: e.is_Pow and e.base in (PHI, PSI) and e.exp.has(n, k), lambda e: _power(e, n, k, U, W, sigma, tau))
    return sp.cancel(sp.expand(out)).subs({sigma**2: 1, tau**2: 1})


def _power(e, n, k, U, W, sigma, tau):
    cn, ck = e.exp.coeff(n), e.exp.coeff(k)
    const = sp.expand(e.exp - cn * n - ck * k)
    if e.base == PHI:
        return U**cn * W**ck * PHI**const
    return sigma**cn * tau**ck * U**(-cn) * W**(-ck) * PSI**const


@functools.cache
def tiling_residual() -> sp.Expr:
    """The distances tile the cycle exactly: with J = k - n, a gap of length
    phi^(-n+r) spans F_(J+r) accesses of the F_k points, and

        (M - F_n) F_J + (M - F_(n-1)) F_(J+1) + (F_(n+1) - M) F_(J+2) = F_k

    for every M, n, k (a check of the counts against the lengths).  Returns
    left side minus F_k, simplified in U = phi^n, W = phi^k.

    >>> tiling_residual()
    0
    """
    n, k, M = sp.symbols("n k M")
    first, second, third = three_gap_counts()
    counts = [c.subs({sp.Symbol("Fn"): fib(n), sp.Symbol("Fn1"): fib(n - 1), sp.Symbol("M"): M}) for c in (first, second, third)]
    total = sum(c * fib(k - n + r) for r, c in enumerate(counts)) - fib(k)
    return sp.simplify(_in_powers(total, n, k))


@functools.cache
def bracket_weights() -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """lim_(k->oo) (count of each distance)/F_k with M = x F_k and n = k - J:
    F_(k-r)/F_k -> phi^(-r), giving, with ``t`` = phi^(-J), the weights of
    F_J, F_(J+1), F_(J+2):

    >>> bracket_weights()
    (-t + x, -sqrt(5)*t/2 + t/2 + x, t/2 + sqrt(5)*t/2 - x)

    i.e. x - phi^(-J), x - phi^(-J-1), phi^(-J+1) - x: the printed weights of
    the limit formula of §5 with j_i = J = ceil(log_phi(1/x)) (not the printed
    floor(ln_phi x))."""
    r, W, tau = sp.Symbol("r", integer=True), sp.Symbol("W", positive=True), sp.Symbol("tau")
    # F_(k-r)/F_k in W = phi^k, tau = (-1)^k (psi^k = tau/W); tau/W -> 0 as k -> oo.
    ratio = (W * PHI**(-r) - tau * PSI**(-r) / W) / (W - tau / W)
    lim = sp.limit(ratio, W, sp.oo)
    if sp.simplify(lim - PHI**(-r)) != 0:
        raise DerivationError(f"F_(k-r)/F_k -> {lim}, expected phi^(-r)")
    t, Fk = T, sp.Symbol("F_k", positive=True)
    first, second, third = three_gap_counts()
    sub = {sp.Symbol("M"): x * Fk, sp.Symbol("Fn"): t * Fk, sp.Symbol("Fn1"): t * sp.radsimp(lim.subs(r, 1)) * Fk}
    return tuple(sp.expand(c.subs(sub) / Fk) for c in (first, second, third))


@functools.cache
def limit_cost() -> sp.Expr:
    """C(gamma(N)) of one page (c_i = c0 mu_i): Lemma 3.1 summed over a cycle,
    C = c0 mu - (c0 nu/F_k) sum over accesses (1 - h^d), with the k -> oo
    weights of :func:`bracket_weights`.  ``hJ0..hJ2`` stand for h^(F_J+m) and
    ``mu`` for this page's mu_i.

    >>> limit_cost().subs({x: T, sp.Symbol("hJ0", positive=True): 1})  # x = phi^-J: F_J, F_(J+1) only
    c0*mu - c0*nu*((1 - hJ1)*(-sqrt(5)*t/2 + 3*t/2) + (1 - hJ2)*(-t/2 + sqrt(5)*t/2))
    """
    hs = sp.symbols("hJ0 hJ1 hJ2", positive=True)
    return c0 * mu - c0 * nu * sum(wgt * (1 - hh) for wgt, hh in zip(bracket_weights(), hs))


def printed_limit_cost() -> sp.Expr:
    """The printed limit formula of §5 for one page (j_i = J, t = phi^(-J)), in the
    symbols of :func:`limit_cost`; compared, never used.  The page's own term is
    c0 mu_i - c0 nu x_i {...}: the printed '1 -' is the sum over pages of x_i.

    >>> sp.simplify(limit_cost() - printed_limit_cost())
    0
    """
    h0, h1, h2 = sp.symbols("hJ0 hJ1 hJ2", positive=True)
    bracket = (x - T) * h0 + (x - T / PHI) * h1 - (x - T * PHI) * h2
    return c0 * mu - c0 * nu * (x - bracket)


@functools.cache
def profile_weights() -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """Weights per unit frequency at bracket position s (x = s phi^(-J)):
    (1 - 1/s, 1 - 1/(s phi), phi/s - 1); they sum to 1 and are >= 0 on [1, phi].

    >>> profile_weights()
    (1 - 1/s, 1 - sqrt(5)/(2*s) + 1/(2*s), -1 + 1/(2*s) + sqrt(5)/(2*s))
    """
    return tuple(sp.expand(sp.radsimp(sp.apart(sp.cancel(w.subs(x, s * T) / (s * T)), s))) for w in bracket_weights())


@functools.cache
def exponent_limit(r: int) -> sp.Expr:
    """lim mu_i E[X] F_(J+r) as N -> oo (mu_i -> 0, x_i = mu_i/mu + o(mu_i),
    J -> oo): mu_i E[X] = q x_i = q s phi^(-J), and
    phi^(-J) F_(J+r) = (phi^r - psi^r (psi/phi)^J)/sqrt5 with |psi/phi| < 1.

    >>> exponent_limit(0)
    sqrt(5)*q*s/5
    """
    eps = sp.Symbol("epsilon")  # (psi/phi)^J -> 0
    scaled = q * s * (PHI**r - PSI**r * eps) / R5
    if not abs(sp.N(PSI / PHI)) < 1:
        raise DerivationError("|psi/phi| >= 1")
    return sp.simplify(sp.limit(scaled, eps, 0))


@functools.cache
def rates() -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """c_m(s) = s phi^m/sqrt5: the limit exponents of :func:`exponent_limit` per unit q."""
    return tuple(sp.simplify(exponent_limit(r) / q) for r in range(3))


@functools.cache
def golden_cost_ratio_numerator() -> sp.Expr:
    """P(q, s) = lim C(gamma(N))/(c0 nu) with mu = q nu, all pages at position s:
    q - 1 + sum_m w_m(s) e^(-c_m(s) q)."""
    return q - 1 + sum(w * sp.exp(-c * q) for w, c in zip(profile_weights(), rates()))


@functools.cache
def cstar_limit_in_q() -> sp.Expr:
    """(17)/(c0 nu) at mu = q nu: q - 1 + e^(-q) (from derive.scheduling.cstar_limit)."""
    return sp.expand(cstar_limit().subs(mu, q * nu) / (c0 * nu))


@functools.cache
def golden_ratio_profile() -> sp.Expr:
    """G(q, s) = lim C(gamma(N))/C*: the cost ratio when every page sits at bracket
    position s (Theorem 5.1's regime), derived from the schedule.

    >>> sp.simplify(golden_ratio_profile().subs(s, 1) - golden_ratio_profile().subs(s, PHI))
    0
    """
    return golden_cost_ratio_numerator() / cstar_limit_in_q()


@functools.cache
def mixture_residual() -> sp.Expr:
    """With pages at positions s_1, s_2 and frequency shares x_1 + x_2 = 1, the
    ratio is x_1 G(q, s_1) + x_2 G(q, s_2): the ratio of any frequency vector is a
    frequency-weighted average of G, so its supremum is sup_s G.  Returns the
    difference (0).

    >>> mixture_residual()
    0
    """
    s1, s2, x1 = sp.symbols("s1 s2 x1", positive=True)
    per_page = golden_cost_ratio_numerator() - (q - 1)  # sum_m w_m e^(-c_m q) of one page
    num = q - 1 + x1 * per_page.subs(s, s1) + (1 - x1) * per_page.subs(s, s2)
    G = golden_ratio_profile()
    # a rational function of q, x1, s1, s2 and the exponentials (independent indeterminates for cancel): its
    # rational normal form is 0 exactly when it vanishes identically, and cancel finds it without simplify's search
    return sp.cancel(num / cstar_limit_in_q() - x1 * G.subs(s, s1) - (1 - x1) * G.subs(s, s2))


def golden_H() -> sp.Expr:
    """H(q) of the proof of Corollary 5.1, derived: G(q, 1), every page at a
    bracket end (distances F_(J+1), F_(J+2) only)."""
    return golden_ratio_profile().subs(s, 1)


def printed_H() -> sp.Expr:
    """H(q) as printed in the proof of Corollary 5.1 (compared, never emitted)."""
    num = q - 1 + (1 - 1 / PHI) * sp.exp(-PHI * q / R5) + sp.exp(-PHI**2 * q / R5) / PHI
    return num / (q - 1 + sp.exp(-q))


def golden_bound() -> sp.Expr:
    """The right side of (18), derived: c0 nu P(mu/nu, 1), the k, N -> oo cost
    with every page at a bracket end."""
    return sp.expand(c0 * nu * golden_cost_ratio_numerator().subs(s, 1).subs(q, mu / nu))


def printed_golden_bound() -> sp.Expr:
    """(18) as printed: c0 (mu - nu + nu (1 - 1/phi) e^(-mu phi/(nu sqrt5)) + (nu/phi) e^(-mu phi^2/(nu sqrt5)))."""
    return c0 * (mu - nu + nu * (1 - 1 / PHI) * sp.exp(-mu * PHI / (nu * R5)) + nu / PHI * sp.exp(-mu * PHI**2 / (nu * R5)))


def _is_zero_constant(c: sp.Expr) -> bool:
    """c == 0 for c a rational function of the symbols with coefficients in Q(sqrt5) and no radical in a
    denominator once put over one: then the expanded numerator is a polynomial with coefficients a + b sqrt5
    (sqrt5^2 evaluates to 5, like terms are collected), so it is 0 exactly when it expands to 0."""
    return sp.expand(sp.radsimp(sp.together(c))) == 0


def limit_at_zero(ratio: sp.Expr, max_order: int = 6) -> sp.Expr:
    """lim_(q->0) P/Q for ``ratio`` = P/Q with P, Q exponential polynomials in q (analytic at 0), by
    l'Hospital: P^(k)(0)/Q^(k)(0) at the first k with Q^(k)(0) != 0, once P^(j)(0) = 0 is shown for every
    j < k (identities in the other symbols); raises DerivationError otherwise.  The same value as
    ``sp.limit``, without its series machinery.

    >>> limit_at_zero((2 * q - 1 + sp.exp(-2 * q)) / (q - 1 + sp.exp(-q)))
    4
    """
    P, Q = sp.fraction(ratio)
    for k in range(max_order + 1):
        p_k, q_k = (sp.diff(f, q, k).subs(q, 0) for f in (P, Q))
        if any(v.has(sp.zoo, sp.oo, -sp.oo, sp.nan) for v in (p_k, q_k)):
            raise DerivationError(f"{ratio}: numerator or denominator is not analytic at q = 0 (order-{k} derivative {p_k}, {q_k})")
        if not _is_zero_constant(q_k):
            return p_k / q_k
        if not _is_zero_constant(p_k):
            raise DerivationError(f"{ratio}: the numerator's derivative of order {k} at q = 0 is {p_k}, the denominator's is 0")
    raise DerivationError(f"{ratio}: the denominator vanishes to order > {max_order} at q = 0")


@functools.cache
def golden_H_limit() -> sp.Expr:
    """lim_(q->0) H(q), computed by SymPy from the derived H (the text: 2 phi^2/5).

    >>> sp.simplify(golden_H_limit() - 2 * PHI**2 / 5)
    0
    """
    return sp.radsimp(sp.expand(limit_at_zero(golden_H())))


@functools.cache
def profile_small_q() -> sp.Expr:
    """L(s) = lim_(q->0) G(q, s) = 2 phi s (phi^2 - s)/5.

    >>> sp.factor(profile_small_q() - 2 * PHI * s * (PHI**2 - s) / 5)
    0
    """
    return sp.expand(sp.radsimp(sp.cancel(limit_at_zero(golden_ratio_profile()))))


@functools.cache
def worst_case() -> tuple[sp.Expr, sp.Expr]:
    """(s*, L(s*)): the maximum of L over [1, phi], from its critical points and
    the two ends; s* = phi^2/2, L(s*) = phi^5/10 (the q -> 0 supremum of the ratio).

    >>> sp.simplify(worst_case()[0] - PHI**2 / 2), sp.simplify(worst_case()[1] - PHI**5 / 10)
    (0, 0)
    """
    L = profile_small_q()
    candidates = [c for c in sp.solve(sp.diff(L, s), s) if bool(1 <= c) and bool(c <= PHI)] + [sp.Integer(1), PHI]
    best = max(candidates, key=lambda c: sp.N(L.subs(s, c), 30))
    return sp.radsimp(best), sp.radsimp(sp.expand(L.subs(s, best)))


@functools.cache
def profile_gap_at_zero() -> sp.Expr:
    """e_2(s) = (phi^5/10 - L(s))/2 = (phi/5)(s - phi^2/2)^2 >= 0: the q^2
    coefficient of phi^5/10 Q(q) - P(q, s).

    >>> sp.simplify(profile_gap_at_zero() - PHI / 5 * (s - PHI**2 / 2)**2)
    0
    """
    return sp.expand(sp.radsimp((worst_case()[1] - profile_small_q()) / 2))


# --- cancellation-free forms -----------------------------------------------------------

def psi3(arg) -> sp.Expr:
    """psi_3(x) = (psi_2(x) - 1/2)/x = -int_0^1 (1-t)^2/2 e^(-x t) dt: negative,
    increasing, psi_3(0+) = -1/6."""
    return (psi2(arg) - sp.Rational(1, 2)) / arg


def profile_in_psi2() -> sp.Expr:
    """G(q, s) = sum_m w_m c_m^2 psi_2(c_m q) / psi_2(q): the constant and linear
    terms cancel exactly because sum_m w_m = 1 and sum_m w_m c_m = 1 (the mean
    distance is 1/x).  Every term is >= 0, so no cancellation is left."""
    ws, cs = profile_weights(), rates()
    if sp.simplify(sum(ws) - 1) != 0 or sp.simplify(sum(w * c for w, c in zip(ws, cs)) - 1) != 0:
        raise DerivationError("bracket weights do not have sum 1 and mean distance 1/x")
    return sum(w * c**2 * psi2(c * q) for w, c in zip(ws, cs)) / psi2(q)


def profile_margin_decomposition() -> tuple[sp.Expr, sp.Expr]:
    """(e_2(s), F(q, s)) with (phi^5/10 - G(q, s)) psi_2(q) = e_2(s) + q F(q, s) and
    F(q, s) = (phi^5/10) psi_3(q) - sum_m w_m c_m^3 psi_3(c_m q)."""
    ws, cs = profile_weights(), rates()
    B = worst_case()[1]
    F = B * psi3(q) - sum(w * c**3 * psi3(c * q) for w, c in zip(ws, cs))
    return profile_gap_at_zero(), F


def golden_lambdas(g=None) -> tuple[sp.Expr, sp.Expr]:
    """lambda_1, lambda_2 of the proof of Corollary 5.1 with g = (1 - e^(-q))/q."""
    g = (1 - sp.exp(-q)) / q if g is None else g
    return (1 - 2 / R5) * g + (R5 - 1) / (2 * R5), -(1 - 2 / R5) * g + (R5 + 1) / (2 * R5)


@functools.cache
def golden_R() -> sp.Expr:
    """R(q) = P'Q - PQ' for the derived H = P/Q (proof of Corollary 5.1), so H' = R/Q^2."""
    P, Q = golden_cost_ratio_numerator().subs(s, 1), cstar_limit_in_q()
    return sp.expand(sp.diff(P, q) * Q - P * sp.diff(Q, q))


def printed_R() -> sp.Expr:
    """R(q) as printed in the proof of Corollary 5.1."""
    a, b = PHI / R5, PHI**2 / R5
    return ((1 - (PHI - 1) / R5 * sp.exp(-a * q) - PHI / R5 * sp.exp(-b * q)) * (q - 1 + sp.exp(-q))
            - (q - 1 + (1 - 1 / PHI) * sp.exp(-a * q) + sp.exp(-b * q) / PHI) * (1 - sp.exp(-q)))


@functools.cache
def golden_D() -> sp.Expr:
    """D(q) = -R(q)/q (derived); H is decreasing exactly where D > 0."""
    return sp.expand(-golden_R() / q)


def printed_D() -> sp.Expr:
    """The printed identity's form: lambda_1 e^(-phi q/sqrt5) + lambda_2 e^(-phi^2 q/sqrt5) - e^(-q)."""
    l1, l2 = golden_lambdas()
    return l1 * sp.exp(-PHI * q / R5) + l2 * sp.exp(-PHI**2 * q / R5) - sp.exp(-q)


def golden_D_taylor(n_terms: int) -> list[sp.Expr]:
    """Taylor coefficients d_0..d_(n_terms-1) of the printed D at 0, by the Cauchy
    product of g = sum_i (-q)^i/(i+1)! with e^(-a q) - e^(-b q) (exact in sqrt5).

    >>> [sp.nsimplify(c) for c in golden_D_taylor(3)]
    [0, 0, 0]
    """
    return list(_golden_D_taylor(n_terms))


@functools.cache
def _golden_D_taylor(n_terms: int) -> tuple[sp.Expr, ...]:
    # Computed in the number field Q(sqrt5) (SymPy's QQ<sqrt5>): the same exact numbers as expanding the SymPy sums,
    # returned in the same normal form p + r sqrt5, without SymPy's expand/radsimp on every partial sum.
    K = sp.QQ.algebraic_field(R5)
    a, b = K.from_sympy(sp.radsimp(PHI / R5)), K.from_sympy(sp.radsimp(PHI**2 / R5))
    k0, c = K.from_sympy(sp.radsimp((R5 - 1) / (2 * R5))), K.from_sympy(sp.radsimp(1 - 2 / R5))

    def ex(alpha):
        """(-alpha)^n/n! for n < n_terms."""
        out, term = [], K.one
        for n in range(n_terms):
            out.append(term)
            term = term * (-alpha) * K.convert(sp.QQ(1, n + 1))
        return out

    ea, eb, e1 = ex(a), ex(b), ex(K.one)
    g = [K.convert(sp.QQ((-1) ** i, math.factorial(i + 1))) for i in range(n_terms)]
    out = []
    for n in range(n_terms):
        conv = sum((g[i] * (ea[n - i] - eb[n - i]) for i in range(n + 1)), K.zero)
        out.append(K.to_sympy(k0 * ea[n] + (K.one - k0) * eb[n] - e1[n] + c * conv))
    return tuple(out)


@functools.cache
def golden_D_terms(q0=2, rel=sp.Rational(1, 2**60)) -> int:
    """Taylor terms of D kept below q0: with |d_n| <= 3 (2.2)^n/n! (each of D's
    exponential series has coefficients <= (1 + b)^n/n! < 2.2^n/n!, total weight
    < 3), the tail after n terms is at most 3 (2.2 q0)^n/n!/(1 - 2.2 q0/(n+1)) on
    [0, q0]; we take the first n with tail/q0^3 below rel * 7e-4, 7e-4 being a
    lower bound of D/q^3 on (0, q0] (certified in the registry)."""
    t = sp.Rational(22, 10) * q0
    n = 4
    while not (n + 1 > t and 3 * t**n / sp.factorial(n) / (1 - t / (n + 1)) / q0**3 <= rel * sp.Rational(7, 10000)):
        n += 1
    return n


def golden_D_stable(q0=2) -> sp.Expr:
    """D for floating point: its Taylor polynomial (Horner) below q0, and above
    it the printed lambda-form with g = -expm1(-q)/q (there D > 3e-3 while its
    terms are O(1), so rounding costs below 1e-13 relative)."""
    n = golden_D_terms(q0)
    coeffs = golden_D_taylor(n)
    poly = sp.Integer(0)
    for cf in reversed(coeffs):
        poly = poly * q + cf
    l1, l2 = golden_lambdas(-expm1(-q) / q)
    direct = l1 * sp.exp(-PHI * q / R5) + l2 * sp.exp(-PHI**2 * q / R5) - sp.exp(-q)
    return sp.Piecewise((poly, q < q0), (direct, True))


def golden_y() -> sp.Expr:
    """y = lambda_1 phi/sqrt5 + lambda_2 phi^2/sqrt5 (the text claims y < 1)."""
    l1, l2 = golden_lambdas()
    return l1 * PHI / R5 + l2 * PHI**2 / R5


def _profile_stable(qq, ss=s) -> sp.Expr:
    """sum_m w_m c_m^2 psi_2(c_m q) at (qq, ss) with the floating-point psi_2."""
    ws, cs = profile_weights(), rates()
    return sum(w.subs(s, ss) * c.subs(s, ss) ** 2 * psi2_stable(c.subs(s, ss) * qq) for w, c in zip(ws, cs) if w.subs(s, ss) != 0)


# Provenance of the formulas below (derive/formula.py: Input).
_POLICY = assumed("the golden-ratio schedule gamma(k, N) of §5: page i takes the points frac(j/phi) of a block of x_i F_k "
                  "consecutive j in a cycle of F_k accesses; its cost is Lemma 3.1 summed over the cycle",
                  "Lemma 3.1 from crawlmath.derive.scheduling")
_GAPS = typed("the three-gap counts M - F_n, M - F_(n-1), F_n + F_(n-1) - M (Sós's successor rule)",
              "the rule is typed from the three-gap theorem; checked: with the derived lengths phi^-m the counts tile the "
              "cycle exactly, symbolically for all M, n, k (tiling_residual = 0)")
_WEIGHTS = derived("the per-unit weights of F_J, F_(J+1), F_(J+2)", "the counts over F_k with F_(k-r)/F_k -> phi^-r (limit)")
_PAGE = derived("one page's limit cost", "Lemma 3.1 summed with the k -> oo weights")
_REGIME = assumed("Theorem 5.1's regime: N -> oo with mu_i -> 0 and x_i = mu_i/mu + o(mu_i), every page at bracket position s")
_EXPS = derived("the exponents c_m(s) q", "lim mu_i E[X] F_(J+m) with (psi/phi)^J -> 0")
_C17 = derived("(17)", "crawlmath.derive.scheduling.cstar_limit, from the optimum of the scheduling model")
_RATIO = derived("G(q, s) and H(q) = G(q, 1)", "the limit cost over (17), both in q = mu/nu")
_LAMBDAS = typed("lambda_1, lambda_2 of the proof of Cor. 5.1", "D's lambda-form built on them is compared with the derived "
                 "D = -R/q (the registry's coffman.formula.golden_D.printed)")
_FLOAT = derived("the float form", "psi_2 with its Taylor polynomial below a cut (error bound stated), expm1; checked equal "
                 "to the derived form by the registry's .stable claim")
_FLOAT_D = typed("the float form's Taylor coefficients", "computed from the proof's lambda-form of D (typed above) in "
                 "Q(sqrt5); the registry's .stable claim checks the float form against the derived D")
_CHAIN = (_POLICY, _GAPS, _WEIGHTS, _PAGE)
_LIMIT = (*_CHAIN, _REGIME, _EXPS, _C17, _RATIO)
_PROVENANCE = {
    "golden_limit_page_cost": _CHAIN, "golden_bound": (*_LIMIT, _FLOAT), "golden_H": (*_LIMIT, _FLOAT),
    "golden_profile": (*_LIMIT, _FLOAT),
    "golden_R": (*_LIMIT, derived("R", "P'Q - PQ' of the derived H = P/Q"), _LAMBDAS, _FLOAT_D),
    "golden_D": (*_LIMIT, derived("D", "-R/q of the derived R"), _LAMBDAS, _FLOAT_D),
    "golden_y": (_LAMBDAS, _FLOAT),
    "golden_weight0": (_POLICY, _GAPS, _WEIGHTS), "golden_weight1": (_POLICY, _GAPS, _WEIGHTS),
    "golden_weight2": (_POLICY, _GAPS, _WEIGHTS), "golden_rate": (_REGIME, _EXPS),
    "golden_gap0": (*_LIMIT, derived("e_2(s)", "lim_(q->0) G by l'Hospital (limit_at_zero), the maximum over [1, phi]")),
    "golden_worst": (*_LIMIT, derived("phi^5/10", "lim_(q->0) G by l'Hospital, its critical points and the ends of [1, phi]")),
}


def formulas() -> list[Formula]:
    """The formulas of this module for codegen (Coffman et al. 1997, §5): the per-page limit cost of γ(N),
    the printed bound (18), H(q), the profile G(q, s), R, D and y of the proof of Cor. 5.1, the worst case φ⁵/10,
    and their floating-point-stable forms, each with its provenance.
    """
    return [dataclasses.replace(f, inputs=_PROVENANCE[f.name]) for f in _formulas()]


def _formulas() -> list[Formula]:
    qdom = {"q": (1e-70, 60.0)}  # q -> 0: D ~ 7.5e-3 q^3 and R ~ q^4 stay in float range down here
    l1s, l2s = golden_lambdas(-expm1(-q) / q)
    ws, cs = profile_weights(), rates()
    worst = worst_case()[1]
    G_stable = _profile_stable(q) / psi2_stable(q)
    H_stable = _profile_stable(q, 1) / psi2_stable(q)
    bound_stable = c0 * nu * (mu / nu) ** 2 * _profile_stable(mu / nu, 1)
    D_stable = golden_D_stable()
    hJ = sp.symbols("hJ0 hJ1 hJ2", positive=True)
    return [
        Formula("golden_limit_page_cost", (c0, mu, nu, x, T, *hJ), limit_cost(), f"{SRC}, §5, limit formula for C(gamma(N)))",
                "one page's term of C(gamma(N)) = lim_k C(gamma(k, N)): c0 mu_i - c0 nu sum_m w_m (1 - h_i^F_(J+m)), t = phi^-J; "
                "ill-conditioned in its inputs h^F (kappa_h = nu sum w_m h_m/term: 1.3e5 at mu/nu = 1e-3, exponential X), "
                "not in the formula, so the domain keeps mu/nu >= 5",
                printed=printed_limit_cost(), paper="coffman",
                domain={"c0": (1.0, 1.0), "mu": (0.5, 10.0), "nu": (0.01, 0.1), "x": (1e-6, 1.0), "t": (1e-6, 1.0),
                        "hJ0": (1e-6, 1.0), "hJ1": (1e-6, 1.0), "hJ2": (1e-6, 1.0)}),
        Formula("golden_bound", (c0, mu, nu), golden_bound(), f"{SRC}, Thm 5.1, (18))", "limit cost with every page at a bracket end (the right side of (18))",
                printed=printed_golden_bound(), stable=bound_stable, domain={"c0": (1.0, 1.0), "mu": (1e-10, 50.0), "nu": (1.0, 1.0)}, paper="coffman"),
        Formula("golden_H", (q,), golden_H(), f"{SRC}, proof of Cor. 5.1)", "H(q) = G(q, 1): (18)/(17), q = mu/nu",
                printed=printed_H(), stable=H_stable, domain=qdom, paper="coffman"),
        Formula("golden_profile", (q, s), golden_ratio_profile(), f"{SRC}, limit C(gamma(N)) of §5)", "G(q, s): limit C(gamma(N))/C*, pages at bracket position s",
                stable=G_stable, domain={"q": (1e-12, 60.0), "s": (1.0, float(PHI))}, paper="coffman"),
        Formula("golden_R", (q,), golden_R(), f"{SRC}, proof of Cor. 5.1)", "R(q) = P'Q - PQ', H' = R/Q^2",
                printed=printed_R(), stable=-q * D_stable, domain=qdom, paper="coffman", settle_mp=True),
        Formula("golden_D", (q,), golden_D(), f"{SRC}, proof of Cor. 5.1)", "D(q) = -R(q)/q = lambda1 e^{-a q} + lambda2 e^{-b q} - e^{-q}",
                printed=printed_D(), stable=D_stable, domain=qdom, paper="coffman", settle_mp=True),
        Formula("golden_y", (q,), golden_y(), f"{SRC}, proof of Cor. 5.1)", "y = lambda1 phi/sqrt5 + lambda2 phi^2/sqrt5",
                stable=l1s * PHI / R5 + l2s * PHI**2 / R5, domain=qdom, paper="coffman"),
        *[Formula(f"golden_weight{r}", (s,), ws[r], f"{SRC}, limit C(gamma(N)) of §5)",
                  f"w_{r}(s): share of the accesses at distance F_(J+{r})", paper="coffman",
                  # s is a bracket position in [1, phi]; a share reaches 0 at a bracket end, so its error is measured
                  # against its terms' size there
                  domain={"s": (1.0, float(PHI))}, scale=term_magnitudes(ws[r])) for r in range(3)],
        Formula("golden_rate", (s, m), cs[0] * PHI**m, f"{SRC}, limit C(gamma(N)) of §5)", "c_m(s) = s phi^m/sqrt5: lim mu_i E[X] F_(J+m) per unit q", paper="coffman"),
        Formula("golden_gap0", (s,), profile_gap_at_zero(), f"{SRC}, Cor. 5.1: worst case)", "e_2(s) = (phi^5/10 - lim_(q->0) G(q, s))/2 >= 0", paper="coffman"),
        Formula("golden_worst", (), worst, f"{SRC}, Cor. 5.1: worst case)", "phi^5/10 = max_s lim_(q->0) G(q, s)", paper="coffman"),
    ]
