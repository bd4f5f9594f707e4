"""Crawler scheduling (Coffman, Liu, Weber 1997; restated in Liu–Nain 2005, §1.3).

Notation of the paper: page i changes as a Poisson process of rate ``mu``
(mu_i); an access lasts X, with mean ``m`` = E[X] = 1/nu and Laplace
transform ``h`` = E[exp(-mu X)] at the page's rate; ``d`` is an
inter-access distance (number of accesses between two accesses of the page),
``f`` (or ``x``) an access frequency; ``c0`` the weight factor when
c_i = c0 mu_i; ``q`` = mu/nu.

Each function carries out a step of the paper symbolically and returns the
SymPy result; :func:`formulas` hands the closed forms to ``crawlmath codegen``.

>>> expected_obsolescence()
d*m + h**d/mu - 1/mu
>>> golden_H_limit()
2*phi**2/5
"""
from __future__ import annotations

import functools

import sympy as sp

from .formula import Formula

d, m, mu, h, f, x, nu, c0, q, lam, c = sp.symbols("d m mu h f x nu c0 q lambda c", positive=True)
z, t = sp.symbols("z t", positive=True)
phi = sp.Symbol("phi", positive=True)
PHI = (1 + sp.sqrt(5)) / 2
SRC = "(Coffman–Liu–Weber 1997"


def inner_obsolescence_integral() -> sp.Expr:
    """The inner integral of the proof of Lemma 3.1: for an intercompletion
    time x, ∫_0^x (1 - e^{-mu (x - z)}) dz = x - (1 - e^{-mu x})/mu.

    >>> inner_obsolescence_integral()
    t - 1/mu + exp(-mu*t)/mu
    """
    return sp.expand(sp.integrate(1 - sp.exp(-mu * (t - z)), (z, 0, t)))


def expected_obsolescence() -> sp.Expr:
    """Lemma 3.1: E[Z] = d E[X] - (1 - h^d)/mu.

    Integrating the inner integral against the law G of X^i_j (a sum of d
    i.i.d. copies of X) uses only E[X^i_j] = d m and E[e^{-mu X^i_j}] = h^d:
    the integrand is linear in t and in e^{-mu t}, which the symbols
    ``T`` (for t) and ``E`` (for e^{-mu t}) make explicit.
    """
    inner = inner_obsolescence_integral()
    T, E = sp.symbols("T E")
    linear = inner.subs(sp.exp(-mu * t), E).subs(t, T)
    assert sp.diff(linear, T, 2) == 0 and sp.diff(linear, E, 2) == 0
    return linear.subs({T: d * m, E: h**d})


def expected_obsolescence_erlang(n: int) -> sp.Expr:
    """Lemma 3.1 checked by direct integration when X ~ Exp(nu): X^i_j is
    Erlang(d, nu) and E[Z] = ∫ (t - (1 - e^{-mu t})/mu) Erlang(d, nu)(dt).

    >>> sp.simplify(expected_obsolescence_erlang(2) - expected_obsolescence().subs({d: 2, m: 1/nu, h: nu/(nu+mu)}))
    0
    """
    dens = nu**n * t ** (n - 1) * sp.exp(-nu * t) / sp.factorial(n - 1)
    return sp.simplify(sp.integrate(inner_obsolescence_integral() * dens, (t, 0, sp.oo)))


def rate_lower_bound() -> sp.Expr:
    """Theorem 3.3: r_i >= (1/E[X]) (E[X] - f/mu + (f/mu) h^{1/f}), from
    Lemma 3.1 with every distance equal to 1/f."""
    per_access = expected_obsolescence().subs(d, 1 / f)
    return sp.expand(f * per_access / m)


def lagrangian_stationarity() -> sp.Expr:
    """(8): d/dx_i of c_i (1 - (nu/mu) x + (nu/mu) x h^{1/x}) + lambda x.

    >>> sp.simplify(lagrangian_stationarity() - (-(c*nu/mu)*(1 - h**(1/x) + sp.log(h)/x*h**(1/x)) + lam))
    0
    """
    obj = c * (1 - nu / mu * x + nu / mu * x * h ** (1 / x))
    return sp.diff(obj + lam * x, x)


def stationarity_in_y() -> sp.Expr:
    """(8) with y = h^{1/x} (so ln h / x = ln y): the bracket is 1 - y + y ln y,
    whose derivative ln y is < 0 on (0, 1): strictly decreasing."""
    y = sp.Symbol("y", positive=True)
    br = -(lagrangian_stationarity() - lam) * mu / (c * nu)
    return sp.simplify(br.subs(sp.log(h), x * sp.log(y)).subs(h ** (1 / x), y))


def optimal_frequencies_proportional() -> sp.Expr:
    """(10): with c_i = c0 mu_i, (8) forces h_i^{1/x_i} to be one common value
    y*, so x_i = ln h_i / ln y*; (9) then gives x_i = ln h_i / sum ln h_j.
    Returned as x_i in terms of ``h`` and ``S`` = sum_j ln h_j."""
    S = sp.Symbol("S", negative=True)
    ystar = sp.Symbol("ystar", positive=True)
    xi = sp.log(h) / sp.log(ystar)
    ln_ystar = sp.solve(sp.Eq(S / sp.log(ystar), 1), ystar)[0]
    return sp.simplify(xi.subs(ystar, ln_ystar))


def cstar_lower_bound() -> sp.Expr:
    """Theorem 3.4 (6): with x_i = ln h_i / S every h_i^{1/x_i} = e^S = prod h,
    so C* = c0 (mu - nu + nu P) with ``P`` = prod_i h_i (the N = 3 case is
    carried out symbolically in the registry row ``coffman.sched.thm-3.4.derivation``)."""
    P = sp.Symbol("P", positive=True)
    return c0 * (mu - nu + nu * P)


@functools.cache
def randomized_rate() -> sp.Expr:
    """Lemma 4.1, summing Lemma 3.1 against the geometric law P(d = n) = f (1-f)^{n-1}:
    r_i = (1/E[X]) (E[X] - f/mu + (f/mu) f h / (1 - h + f h)).

    The two sums needed are geometric: sum_n f (1-f)^{n-1} n = 1/f and
    sum_n f (1-f)^{n-1} h^n = f h / (1 - (1-f) h) (|(1-f) h| < 1 since 0 < h < 1).

    >>> sp.simplify(randomized_rate() - (m - f/mu + f/mu*f*h/(1-h+f*h))/m)
    0
    """
    n = sp.Symbol("n", integer=True, positive=True)
    r = sp.Symbol("r", positive=True)
    geo = sp.summation(r**n, (n, 1, sp.oo)).args[0][0]  # r/(1-r), branch |r| < 1
    mean_d = sp.simplify(f * sp.diff(geo, r).subs(r, 1 - f))  # sum f (1-f)^{n-1} n
    mean_hd = sp.simplify(f / (1 - f) * geo.subs(r, (1 - f) * h))  # sum f (1-f)^{n-1} h^n
    ez = sp.expand(expected_obsolescence()).subs(h**d, sp.Symbol("HD")).subs(d, sp.Symbol("D"))
    ez = ez.subs({sp.Symbol("D"): mean_d, sp.Symbol("HD"): mean_hd})
    ex = mean_d * m
    return sp.simplify(ez / ex)


def randomized_gap() -> sp.Expr:
    """r_i(randomized) - r_i(lower bound of Theorem 3.3), in nu = 1/m."""
    return sp.simplify((randomized_rate() - rate_lower_bound()).subs(m, 1 / nu))


def randomized_gap_small_f() -> sp.Expr:
    """Leading term of the gap as f -> 0.  h^{1/f} vanishes faster than any
    power of f, so only f^2 h/(1-h+fh) contributes:
    nu h f^2 / (mu (1 - h)) (the text prints nu h f^2/mu).

    >>> randomized_gap_small_f()
    f**2*h*nu/(mu*(1 - h))
    """
    gap_no_exp = randomized_gap().subs(h ** (1 / f), 0)
    lead = sp.limit(gap_no_exp / f**2, f, 0)
    return lead * f**2


def randomized_gap_near_one() -> sp.Expr:
    """Leading term of the gap as f -> 1: (f - 1) times the f-derivative at 1,
    nu h (1 - h + ln h)(f - 1)/mu (the text prints nu h (1 + ln h)(f - 1)/mu).

    >>> sp.simplify(randomized_gap().subs(f, 1))
    0
    """
    g = randomized_gap()
    return sp.factor(sp.simplify(sp.diff(g, f).subs(f, 1))) * (f - 1)


def randomized_stationarity() -> sp.Expr:
    """(13): d/dx of the objective (12) plus lambda x."""
    obj = c - nu * c * x / mu + nu * c / mu * x**2 * h / (1 - h + x * h)
    return sp.diff(obj + lam * x, x)


def randomized_frequency_general() -> sp.Expr:
    """(15): solving (13) for x: x = (sqrt(nu c/(lambda mu)) - 1)(1 - h)/h."""
    sols = sp.solve(sp.Eq(randomized_stationarity(), 0), x)
    pos = [s for s in sols if sp.simplify(s.subs({h: sp.Rational(1, 2), c: 4, nu: 1, mu: 1, lam: 1})) > 0]
    return sp.simplify(pos[0])


def randomized_sqrt_lambda(n: int = 3) -> tuple[sp.Expr, sp.Expr]:
    """sqrt(lambda) from (15) and sum x_i = 1 for ``n`` pages with general c_i,
    next to the printed sqrt(nu) sum sqrt(c_i/mu_i)(1/h_i - 1) / (1 + sum (1/h_i - 1))."""
    hs = sp.symbols(f"h1:{n + 1}", positive=True)
    cs = sp.symbols(f"c1:{n + 1}", positive=True)
    ms = sp.symbols(f"mu1:{n + 1}", positive=True)
    r = sp.Symbol("r", positive=True)  # r = sqrt(lambda)
    xs = [(sp.sqrt(nu * cs[i] / ms[i]) / r - 1) * (1 - hs[i]) / hs[i] for i in range(n)]
    sol = sp.solve(sp.Eq(sum(xs), 1), r)
    g = [1 / v - 1 for v in hs]
    printed = sp.sqrt(nu) * sum(sp.sqrt(cs[i] / ms[i]) * g[i] for i in range(n)) / (1 + sum(g))
    return sol[0], printed


def randomized_cstar() -> sp.Expr:
    """(11): C* = c0 (mu - nu G/(1 + G)), G = sum_i (1/h_i - 1)."""
    G = sp.Symbol("G", positive=True)
    return c0 * (mu - nu * G / (1 + G))


def cstar_limit() -> sp.Expr:
    """(17): lim C* = c0 (mu - nu + nu e^{-mu/nu}) when every mu_i -> 0."""
    return c0 * (mu - nu + nu * sp.exp(-mu / nu))


def golden_bound() -> sp.Expr:
    """(18): c0 (mu - nu + nu (1 - 1/phi) e^{-mu phi/(nu sqrt5)} + (nu/phi) e^{-mu phi^2/(nu sqrt5)})."""
    r5 = sp.sqrt(5)
    return c0 * (mu - nu + nu * (1 - 1 / PHI) * sp.exp(-mu * PHI / (nu * r5)) + nu / PHI * sp.exp(-mu * PHI**2 / (nu * r5)))


def golden_H() -> sp.Expr:
    """H(q) of the proof of Corollary 5.1: (18)/(17) with q = mu/nu."""
    r5 = sp.sqrt(5)
    num = q - 1 + (1 - 1 / PHI) * sp.exp(-PHI * q / r5) + sp.exp(-PHI**2 * q / r5) / PHI
    return num / (q - 1 + sp.exp(-q))


def golden_H_limit() -> sp.Expr:
    """lim_{q->0} H(q), by series, written in phi: 2 phi^2/5."""
    val = sp.nsimplify(sp.limit(golden_H(), q, 0))
    assert sp.simplify(val - 2 * PHI**2 / 5) == 0
    return 2 * phi**2 / 5


def golden_R() -> sp.Expr:
    """R(q) = P'Q - PQ' for H = P/Q (proof of Corollary 5.1), so H' = R/Q^2."""
    Hq = golden_H()
    P, Q = sp.fraction(Hq)
    return sp.diff(P, q) * Q - P * sp.diff(Q, q)


def golden_lambdas() -> tuple[sp.Expr, sp.Expr]:
    """lambda_1, lambda_2 of the proof of Corollary 5.1."""
    r5 = sp.sqrt(5)
    g = (1 - sp.exp(-q)) / q
    return (1 - 2 / r5) * g + (r5 - 1) / (2 * r5), -(1 - 2 / r5) * g + (r5 + 1) / (2 * r5)


def golden_D() -> sp.Expr:
    """lambda_1 e^{-phi q/sqrt5} + lambda_2 e^{-phi^2 q/sqrt5} - e^{-q}; the printed
    identity says this equals -R(q)/q."""
    r5 = sp.sqrt(5)
    l1, l2 = golden_lambdas()
    return l1 * sp.exp(-PHI * q / r5) + l2 * sp.exp(-PHI**2 * q / r5) - sp.exp(-q)


def golden_y() -> sp.Expr:
    """y = lambda_1 phi/sqrt5 + lambda_2 phi^2/sqrt5 (the text claims y < 1)."""
    r5 = sp.sqrt(5)
    l1, l2 = golden_lambdas()
    return l1 * PHI / r5 + l2 * PHI**2 / r5


def golden_ratio_profile() -> sp.Expr:
    """G(q, s): the k -> infinity cost ratio C(gamma(N))/C* of N equal pages
    (N -> infinity, every x_i = 1/N = s phi^{-j}, s in [1, phi]), from the limit
    formula C(gamma(N)) with distances F_j, F_{j+1}, F_{j+2} ~ s phi^{0,1,2}/(sqrt5 x)
    and weights (1 - 1/s, 1 - 1/(s phi), phi/s - 1) per unit frequency.
    G(q, 1) = G(q, phi) = H(q)."""
    s = sp.Symbol("s", positive=True)
    r5 = sp.sqrt(5)
    num = q - 1 + (1 - 1 / s) * sp.exp(-q * s / r5) + (1 - 1 / (s * PHI)) * sp.exp(-q * s * PHI / r5) + (PHI / s - 1) * sp.exp(-q * s * PHI**2 / r5)
    return num / (q - 1 + sp.exp(-q))


def golden_profile_small_q() -> sp.Expr:
    """lim_{q->0} G(q, s) = 2 phi s (phi^2 - s)/5, maximal at s = phi^2/2 with value phi^5/10."""
    return sp.simplify(sp.limit(golden_ratio_profile(), q, 0))


def formulas() -> list[Formula]:
    s = sp.Symbol("s", positive=True)
    P, G = sp.symbols("P G", positive=True)
    return [
        Formula("expected_obsolescence", (d, m, mu, h), expected_obsolescence(), f"{SRC}, Lemma 3.1)", "E[Z^i_j] for inter-access distance d"),
        Formula("rate_lower_bound", (f, m, mu, h), rate_lower_bound(), f"{SRC}, Thm 3.3)", "lower bound on r_i at frequency f"),
        Formula("randomized_rate", (f, m, mu, h), randomized_rate(), f"{SRC}, Lemma 4.1)", "r_i of the randomized policy at frequency f"),
        Formula("cstar", (c0, mu, nu, P), cstar_lower_bound(), f"{SRC}, Thm 3.4, (6))", "lower bound C* with P = prod h_i"),
        Formula("randomized_cstar", (c0, mu, nu, G), randomized_cstar(), f"{SRC}, Thm 4.1, (11))", "randomized optimum with G = sum (1/h_i - 1)"),
        Formula("cstar_limit", (c0, mu, nu), cstar_limit(), f"{SRC}, (17))", "N -> infinity limit of C*"),
        Formula("golden_bound", (c0, mu, nu), golden_bound(), f"{SRC}, Thm 5.1, (18))", "printed bound on limsup C(gamma(N))"),
        Formula("golden_H", (q,), golden_H(), f"{SRC}, proof of Cor. 5.1)", "H(q) = (18)/(17), q = mu/nu"),
        Formula("golden_R", (q,), golden_R(), f"{SRC}, proof of Cor. 5.1)", "R(q) = P'Q - PQ', H' = R/Q^2"),
        Formula("golden_D", (q,), golden_D(), f"{SRC}, proof of Cor. 5.1)", "lambda1 e^{-a q} + lambda2 e^{-b q} - e^{-q}"),
        Formula("golden_y", (q,), golden_y(), f"{SRC}, proof of Cor. 5.1)", "y = lambda1 phi/sqrt5 + lambda2 phi^2/sqrt5"),
        Formula("golden_profile", (q, s), golden_ratio_profile(), f"{SRC}, limit C(gamma(N)) of §5)", "asymptotic golden/C* ratio for equal pages at bracket position s"),
    ]
