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

The optimal schedules (Theorems 3.4 and 4.1) are derived from a
:class:`SchedulingModel` (one page's objective term in its frequency x and
h, mu, c; the weight rule c_i), the paper's objectives being
:func:`lower_bound_model` ((7)) and :func:`randomized_model` ((12)): the
stationarity of the Lagrangian is solved for x_i(lambda) (roots counted, the
admissible one chosen on the page's multiplier range), split by SymPy as
phi(lambda) A_i + B_i with phi common to the pages, and sum x_i = 1 solved
for phi.  A modified objective gets its own optimum, or a refusal naming the
step that fails:

>>> optimal_frequency(SchedulingModel(lower_bound_objective_term().subs(h**(1/x), h**(2/x)), c0*mu))
log(h)/S
>>> try:
...     optimal_frequency(SchedulingModel(lower_bound_objective_term(), c0*mu**2))
... except DerivationError as exc:
...     print(str(exc)[:31])
the pages share no common level

The golden-ratio policy of §5 is derived in :mod:`crawlmath.derive.golden`.
"""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

import mpmath
import sympy as sp
from sympy.codegen.cfunctions import expm1
from sympy.codegen.rewriting import expm1_opt, optimize
from sympy.simplify.simplify import factor_sum

from . import DerivationError, only_root, require_zero
from .formula import Formula, assumed, derived, term_magnitudes, typed
from .psi import psi2_stable

d, m, mu, h, f, x, nu, c0, q, lam, c = sp.symbols("d m mu h f x nu c0 q lambda c", positive=True)
z, t = sp.symbols("z t", positive=True)
SRC = "(Coffman–Liu–Weber 1997"
# Page-indexed quantities for the sums over pages i = 1..n of §3-§4.
n = sp.Symbol("n", integer=True, positive=True)
k = sp.Symbol("k", integer=True, positive=True)
h_, mu_ = (sp.IndexedBase(name, positive=True) for name in ("h", "mu"))
S = sp.Symbol("S", negative=True)  # sum_i ln h_i
P = sp.Symbol("P", positive=True)  # prod_i h_i
G = sp.Symbol("G", positive=True)  # sum_i (1/h_i - 1)


def inner_obsolescence_integral() -> sp.Expr:
    """The inner integral of the proof of Lemma 3.1: for an intercompletion
    time x, ∫_0^x (1 - e^{-mu (x - z)}) dz = x - (1 - e^{-mu x})/mu.

    >>> inner_obsolescence_integral()
    t - 1/mu + exp(-mu*t)/mu
    """
    return sp.expand(sp.integrate(1 - sp.exp(-mu * (t - z)), (z, 0, t)))


@functools.cache
def expected_obsolescence() -> sp.Expr:
    """Lemma 3.1: E[Z] = d E[X] - (1 - h^d)/mu.

    Integrating the inner integral against the law G of X^i_j (a sum of d
    i.i.d. copies of X) uses only E[X^i_j] = d m and E[e^{-mu X^i_j}] = h^d:
    the integrand is linear in t and in e^{-mu t}, which the symbols
    ``T`` (for t) and ``E`` (for e^{-mu t}) make explicit.

    >>> expected_obsolescence().subs({d: 1, h: sp.exp(-mu*m)})
    m - 1/mu + exp(-m*mu)/mu
    """
    inner = inner_obsolescence_integral()
    T, E = sp.symbols("T E")
    linear = inner.subs(sp.exp(-mu * t), E).subs(t, T)
    if sp.diff(linear, T, 2) != 0 or sp.diff(linear, E, 2) != 0:
        raise DerivationError(f"the inner integral {inner} is not linear in t and e^(-mu t)")
    return linear.subs({T: d * m, E: h**d})


@functools.cache
def expected_obsolescence_stable() -> sp.Expr:
    """Lemma 3.1 for floating point: h^d = e^{d ln h} and SymPy's ``expm1_opt``
    turns h^d - 1 into expm1(d ln h) (no cancellation when mu d E[X] is small).

    >>> expected_obsolescence_stable()
    d*m + expm1(d*log(h))/mu
    """
    lemma = sp.expand(expected_obsolescence()).subs(h**d, sp.exp(d * sp.log(h)))
    return optimize(sp.together(lemma - d * m), [expm1_opt]) + d * m


@functools.cache
def expected_obsolescence_erlang(n: int) -> sp.Expr:
    """Lemma 3.1 checked by direct integration when X ~ Exp(nu): X^i_j is
    Erlang(d, nu) and E[Z] = ∫ (t - (1 - e^{-mu t})/mu) Erlang(d, nu)(dt).

    >>> sp.simplify(expected_obsolescence_erlang(2) - expected_obsolescence().subs({d: 2, m: 1/nu, h: nu/(nu+mu)}))
    0
    """
    dens = nu**n * t ** (n - 1) * sp.exp(-nu * t) / sp.factorial(n - 1)
    return sp.simplify(sp.integrate(inner_obsolescence_integral() * dens, (t, 0, sp.oo)))


@functools.cache
def rate_lower_bound() -> sp.Expr:
    """Theorem 3.3: r_i >= (1/E[X]) (E[X] - f/mu + (f/mu) h^{1/f}), from
    Lemma 3.1 with every distance equal to 1/f.

    >>> rate_lower_bound()
    f*h**(1/f)/(m*mu) - f/(m*mu) + 1
    """
    per_access = expected_obsolescence().subs(d, 1 / f)
    return sp.expand(f * per_access / m)


def expm1_form(expr, rest=0) -> sp.Expr:
    """``expr`` for floating point: every power h**e with a non-integer
    exponent becomes exp(e ln h), and SymPy's ``expm1_opt`` rewrites the
    resulting e**u - 1 (after ``rest`` is set aside and common factors pulled
    out) as expm1(u).

    >>> expm1_form(rate_lower_bound(), 1)
    f*expm1(log(h)/f)/(m*mu) + 1
    """
    as_exp = expr.replace(lambda e: e.is_Pow and e.base == h and not e.exp.is_Integer,
                          lambda e: sp.exp(e.exp * sp.log(h)))
    stable = optimize(sp.factor_terms(as_exp - rest), [expm1_opt]) + rest
    if not stable.has(sp.codegen.cfunctions.expm1):
        raise DerivationError(f"no expm1 rewriting found for {expr}")
    return stable


@functools.cache
def lagrangian_stationarity() -> sp.Expr:
    """(8): d/dx_i of c_i (1 - (nu/mu) x + (nu/mu) x h^{1/x}) + lambda x, the stationarity of the Lagrangian of
    :func:`lower_bound_model` with general weights (:func:`model_stationarity`).

    >>> sp.simplify(lagrangian_stationarity() - (-(c*nu/mu)*(1 - h**(1/x) + sp.log(h)/x*h**(1/x)) + lam))
    0
    """
    return model_stationarity(lower_bound_model(c))


@functools.cache
def lower_bound_objective_term() -> sp.Expr:
    """A page's term c_i r_i of the objective (7): the bound of Theorem 3.3 at
    frequency x with E[X] = 1/nu, times the weight c.

    >>> lower_bound_objective_term()
    c*(h**(1/x)*nu*x/mu + 1 - nu*x/mu)
    """
    return c * rate_lower_bound().subs({f: x, m: 1 / nu})


@functools.cache
def stationarity_in_y() -> sp.Expr:
    """(8) with y = h^{1/x} (so ln h / x = ln y): the bracket is 1 - y + y ln y,
    whose derivative ln y is < 0 on (0, 1): strictly decreasing.

    >>> stationarity_in_y()
    y*log(y) - y + 1
    """
    y = sp.Symbol("y", positive=True)
    br = -(lagrangian_stationarity() - lam) * mu / (c * nu)
    return sp.simplify(br.subs(sp.log(h), x * sp.log(y)).subs(h ** (1 / x), y))


@functools.cache
def optimal_frequencies_proportional() -> sp.Expr:
    """(10): x_i = ln h_i / sum_j ln h_j, the optimum of :func:`lower_bound_model` (:func:`optimal_frequency`: the
    stationarity (8) solved for x_i(lambda), which SymPy finds to be phi(lambda) ln(1/h_i) with phi common to the
    pages, and sum x_i = 1 solved for phi); returned in ``h`` and ``S`` = sum_j ln h_j.

    >>> optimal_frequencies_proportional()
    log(h)/S
    """
    return optimal_frequency(lower_bound_model())


@functools.cache
def cstar_at_optimum() -> sp.Expr:
    """Theorem 3.4 (6): the objective (7) with c_i = c0 mu_i summed over the n pages at x_i of (10)
    (:func:`optimal_cost`): each h_i^{1/x_i} becomes e^S, sum_i mu_i = mu and sum_i x_i = 1.

    >>> cstar_at_optimum()
    c0*(mu + nu*exp(S) - nu)
    """
    return optimal_cost(lower_bound_model())


@functools.cache
def cstar_lower_bound() -> sp.Expr:
    """C* of Theorem 3.4 (6) with ``P`` = prod_i h_i = e^S: :func:`cstar_at_optimum` with the product named.

    >>> cstar_lower_bound()
    c0*(P*nu + mu - nu)
    """
    return sp.expand(cstar_at_optimum()).subs(sp.exp(S), P).factor()


@functools.cache
def lower_bound_multiplier() -> sp.Expr:
    """lambda of (8) at the optimum of (10) with c_i = c0 mu_i (:func:`optimal_multiplier`): c0 nu (1 - y + y ln y)
    at y* = e^S.

    >>> lower_bound_multiplier()
    c0*nu*(S*exp(S) - exp(S) + 1)
    """
    return optimal_multiplier(lower_bound_model())


def multiplier_series_terms(s0=sp.Rational(1, 2), rel=sp.Rational(1, 2**60)) -> int:
    """Degree n of the Taylor polynomial of B(S) = S e^S - (e^S - 1) = sum_{k>=2} (k-1) S^k/k! kept for -s0 < S < 0:
    there the series alternates with decreasing terms (the ratio of consecutive ones is |S| k/((k-1)(k+1)) < 1), so
    the error after degree n is at most the next term n |S|^{n+1}/(n+1)!, and B(S) >= S^2/3 (B = S^2/2 + S^3/3 + ...,
    |S| <= 1/2); n is the first with n s0^{n-1}/(n+1)! <= rel/3.  (The registry's .stable claim certifies the bound
    independently: derive/stable.py series_bound.)

    >>> multiplier_series_terms()
    17
    """
    n = 2
    while not n * s0 ** (n - 1) / sp.factorial(n + 1) <= rel / 3:
        n += 1
    return n


@functools.cache
def lower_bound_multiplier_stable(s0=sp.Rational(1, 2)) -> sp.Expr:
    """:func:`lower_bound_multiplier` for floating point: c0 nu B(S), B(S) = S e^S - (e^S - 1) through its Taylor
    polynomial (:func:`multiplier_series_terms`) for -s0 < S < 0, where the two terms of size |S| cancel to
    ~S^2/2 (0.21 relative error at S = -1e-15 in S e^S - expm1(S)); for S <= -s0 the expm1 form (``expm1_opt``),
    whose cancellation costs at most a factor |S e^S|/B(S) <= 4 there.

    >>> lower_bound_multiplier_stable().args[2].args[1]
    (S*exp(S) - expm1(S), True)
    """
    lam_star = lower_bound_multiplier()
    inner = optimize(sp.expand(lam_star / (c0 * nu)), [expm1_opt])
    if not inner.has(sp.codegen.cfunctions.expm1):
        raise DerivationError(f"no expm1 rewriting found for {lam_star}")
    n = multiplier_series_terms(s0)
    series = sp.series(lam_star / (c0 * nu), S, 0, n + 1).removeO()  # SymPy's Taylor polynomial of the derived form
    return c0 * nu * sp.Piecewise((series, S > -s0), (inner, True))


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


@functools.cache
def randomized_rate_stable() -> sp.Expr:
    """Lemma 4.1 for floating point: r_i = (w m mu - f (w - m mu h)) / (m mu (w + f h)) with w = 1 - h kept as one
    quantity (exact in floating point for h >= 1/2).  The derived form sums terms of size f/(m mu) to r_i, which
    is ~ m mu / f at the model's edge h = e^{-mu m} (1.1e-8 relative error at f = 2/3, m mu = 1e-4); here the two
    products of the numerator have one sign in the model (h >= e^{-mu m} gives w - m mu h <= w/2 for small m mu)
    and only the rounding of m mu against w remains (``Formula.scale``).  Checked equal to :func:`randomized_rate`.

    >>> randomized_rate_stable()
    (-f*(-h*m*mu + (1 - h)) + m*mu*(1 - h))/(m*mu*(f*h - h + 1))
    """
    w = sp.UnevaluatedExpr(1 - h)
    stable = (m * mu * w - f * (w - m * mu * h)) / (m * mu * (1 - h + f * h))
    require_zero(stable.doit() - randomized_rate(), "Lemma 4.1 rewritten with w = 1 - h")
    return stable


@functools.cache
def randomized_gap() -> sp.Expr:
    """r_i(randomized) - r_i(lower bound of Theorem 3.3), in nu = 1/m.

    >>> randomized_gap().subs(f, 1)
    0
    """
    return sp.simplify((randomized_rate() - rate_lower_bound()).subs(m, 1 / nu))


@functools.cache
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


@functools.cache
def randomized_gap_near_one() -> sp.Expr:
    """Leading term of the gap as f -> 1: (f - 1) times the f-derivative at 1,
    nu h (1 - h + ln h)(f - 1)/mu (the text prints nu h (1 + ln h)(f - 1)/mu).

    >>> sp.simplify(randomized_gap().subs(f, 1))
    0
    """
    g = randomized_gap()
    return sp.factor(sp.simplify(sp.diff(g, f).subs(f, 1))) * (f - 1)


@functools.cache
def randomized_objective_term() -> sp.Expr:
    """A page's term c_i r_i of (12): Lemma 4.1's rate at frequency x with
    E[X] = 1/nu, times the weight c.

    >>> sp.simplify(randomized_objective_term() - (c - nu*c*x/mu + nu*c/mu*x**2*h/(1 - h + x*h)))
    0
    """
    return sp.simplify(c * randomized_rate().subs({f: x, m: 1 / nu}))


@functools.cache
def randomized_objective_term_stable() -> sp.Expr:
    """(12) for floating point: c times :func:`randomized_rate_stable` at frequency x with E[X] = 1/nu; checked
    equal to :func:`randomized_objective_term`.

    >>> randomized_objective_term_stable()
    c*nu*(mu*(1 - h)/nu - x*(-h*mu/nu + (1 - h)))/(mu*(h*x - h + 1))
    """
    stable = c * randomized_rate_stable().subs({f: x, m: 1 / nu})
    require_zero(stable.doit() - randomized_objective_term(), "(12) rewritten with w = 1 - h")
    return stable


@functools.cache
def randomized_stationarity() -> sp.Expr:
    """(13): d/dx of the objective term (12) plus lambda x (:func:`model_stationarity` of :func:`randomized_model`
    with general weights).

    >>> sp.simplify(randomized_stationarity().subs(x, 0) - lam + c*nu/mu)
    0
    """
    return model_stationarity(randomized_model(c))


@functools.cache
def page_threshold_multiplier() -> sp.Expr:
    r"""The multiplier at which a page leaves the optimum, :math:`c\nu/\mu` (:func:`exclusion_multiplier`): the
    stationarity (8) as x -> 0+ solved for lambda; (13) at x = 0+ gives the same value (checked: raises otherwise),
    so both relaxations share the dual-feasibility condition of a page left out.

    >>> page_threshold_multiplier()
    c*nu/mu
    """
    value = exclusion_multiplier(lower_bound_model(c))
    require_zero(value - exclusion_multiplier(randomized_model(c)), "(8) and (13) at x = 0+: the same threshold")
    return value


@functools.cache
def stationarity_level() -> sp.Expr:
    r"""(8) with :math:`y = h^{1/x} = e^{-u}` reads :math:`(c\nu/\mu)\,B(u) = \lambda`
    with :math:`B(u) = 1 - (1+u)e^{-u}`, which is the regularised lower incomplete
    gamma :math:`P(2, u)` (checked: raises otherwise), so u = P^{-1}(2, t); returns
    the level t = B(u) solved from (8): :math:`\lambda\mu/(c\nu)`.

    >>> stationarity_level()
    lambda*mu/(c*nu)
    """
    u, level = sp.symbols("u B", positive=True)
    bracket = stationarity_in_y().subs(sp.Symbol("y", positive=True), sp.exp(-u))
    require_zero(bracket - sp.lowergamma(2, u) / sp.gamma(2), "1 - (1+u)e^-u = P(2, u)")
    equation = lagrangian_stationarity().subs(h ** (1 / x), sp.exp(-u)).subs(sp.log(h), -u * x)
    require_zero(equation - (lam - c * nu / mu * bracket), "(8) in u")
    return only_root(sp.solve((lam - c * nu / mu * level), level), "(8) for the bracket level")


@functools.cache
def randomized_frequency_general() -> sp.Expr:
    """(15): (13) = 0 solved for x (:func:`frequency_at_multiplier`; of its two roots the one > 0 while the page is
    kept, 0 < lambda < c nu/mu): x = (sqrt(nu c/(lambda mu)) - 1)(1 - h)/h.

    >>> sp.simplify(randomized_frequency_general() - (sp.sqrt(nu*c/(lam*mu)) - 1)*(1 - h)/h)
    0
    """
    return frequency_at_multiplier(randomized_model(c))


@functools.cache
def randomized_frequency_proportional() -> sp.Expr:
    """(16): with c_i = c0 mu_i, (15) splits as x_i = phi(lambda) A_i + B_i with phi = 1/sqrt(lambda) common to all
    pages (:func:`frequency_split`), and sum_i x_i = 1 gives x_i = g_i/G, g_i = 1/h_i - 1, G = sum g_i
    (:func:`optimal_frequency`).

    >>> randomized_frequency_proportional()
    -(h - 1)/(G*h)
    """
    return optimal_frequency(randomized_model())


@functools.cache
def randomized_multiplier() -> sp.Expr:
    """lambda of (13) at (16) (:func:`optimal_multiplier`).

    >>> randomized_multiplier()
    G**2*c0*nu/(G + 1)**2
    """
    return optimal_multiplier(randomized_model())


@functools.cache
def randomized_sqrt_lambda(n: int = 3) -> tuple[sp.Expr, sp.Expr]:
    """sqrt(lambda) for ``n`` pages with general c_i (the remark after Theorem 4.1), derived from (12): (15) splits as
    phi(lambda) A_i + B_i (:func:`frequency_split`), sum x_i = 1 over the n pages gives phi* (:func:`common_level`),
    and phi(lambda) = phi* is solved for lambda (one root required); next to the printed
    sqrt(nu) sum sqrt(c_i/mu_i)(1/h_i - 1) / (1 + sum (1/h_i - 1)).  Valid while every x_i of (15) is >= 0.

    >>> derived, printed = randomized_sqrt_lambda(2)
    >>> sp.simplify(derived - printed)
    0
    """
    model = randomized_model(c)
    r = sp.Symbol("r", positive=True)  # r = sqrt(lambda) > 0
    level = frequency_split(model)[0].subs(lam, r**2)
    root = only_root(sp.solve(sp.Eq(level, common_level(model, n)), r), "phi(r^2) = phi* for r = sqrt(lambda) > 0")
    pages = [_page(i) for i in range(1, n + 1)]
    gs = [1 / p[h] - 1 for p in pages]
    printed = sp.sqrt(nu) * sum(sp.sqrt(p[c] / p[mu]) * gi for p, gi in zip(pages, gs)) / (1 + sum(gs))
    return root, printed


@functools.cache
def randomized_cstar() -> sp.Expr:
    """(11): the objective (12) with c_i = c0 mu_i at (16), summed over pages i = 1..n (:func:`optimal_cost`), with
    sum mu_i = mu and sum (1/h_i - 1) = G: C* = c0 (mu - nu G/(1 + G)).

    >>> sp.simplify(randomized_cstar() - c0*(mu - nu*G/(1 + G)))
    0
    """
    return optimal_cost(randomized_model())


@functools.cache
def cstar_limit() -> sp.Expr:
    """(17): lim C* when the total rate mu is spread over N equal pages,
    N -> oo: each h = E e^{-(mu/N) X} = 1 - (mu/N)/nu + a2 (mu/N)^2 + o(N^-2)
    (E[X] = 1/nu; a2 = E[X^2]/2 drops out), so prod h = h^N -> e^{-mu/nu}
    (``limit``) in C* = c0 (mu - nu + nu prod h).

    >>> cstar_limit()
    c0*(mu - nu + nu*exp(-mu/nu))
    """
    N = sp.Symbol("N", integer=True, positive=True)
    a2 = sp.Symbol("a2", positive=True)
    h_page = 1 - (mu / N) / nu + a2 * (mu / N) ** 2
    return cstar_lower_bound().subs(P, sp.limit(h_page**N, N, sp.oo))


def cstar_limit_stable() -> sp.Expr:
    """(17) for floating point, with r = mu/nu: c0 nu r^2 psi_2(r) through psi_2's Taylor polynomial below r = 1/2
    (:func:`crawlmath.derive.psi.psi2_stable`), c0 nu (r + expm1(-r)) above.  The upper branch forms no mu^2 or nu^2, which under- or overflow where the value
    does not (the earlier form c0 mu^2 (nu^2 (r + expm1(-r))/mu^2)/nu returned 0 at (1, 1e-4, 1e-300), true 1e-4);
    the Taylor branch (r < 1/2) still prints the powers mu^k/nu^k (k <= 16).

    >>> cstar_limit_stable().args[2].args[1]
    (mu/nu + expm1(-mu/nu), True)
    """
    r = mu / nu
    (series, below), _ = psi2_stable(r).args
    return c0 * nu * sp.Piecewise((r**2 * series, below), (r + expm1(-r), True))


# --- the scheduling model: the optimum from the Lagrangian of the given objective ------------------------------

a, b, g = sp.symbols("a b g", positive=True)  # a = ln(1/h) = ln(1 + b) > 0; g sweeps the regime of the multiplier
phi = sp.Symbol("phi")  # the common level, of either sign (no assumption: solve drops no root)
c_ = sp.IndexedBase("c", positive=True)
PAGE = (h, mu, c)  # one page's parameters h_i, mu_i, c_i; nu, c0 (and any other symbol) are common to all pages


@dataclass(frozen=True)
class SchedulingModel:
    r"""A crawler-scheduling model of §3-§4: page i is visited a fraction x_i of the accesses, the objective is
    :math:`\sum_i \mathrm{term}(x_i; h_i, \mu_i, c_i)` under :math:`\sum_i x_i = 1`, :math:`x_i \ge 0` ((7), (9);
    (12)), with the weight ``weight`` :math:`c_i` as a function of the page (``c``: general weights; ``c0*mu``:
    the paper's c_i = c0 mu_i of Theorem 3.4 and (16)).  ``term`` is one page's term in ``x`` and ``h``, ``mu``,
    ``c``; every other symbol in it (``nu``, ``c0``, a user's constant) is common to all pages.

    The paper's instances are :func:`lower_bound_model` (Theorem 3.3's bound, (7)) and :func:`randomized_model` ((12)).

    >>> SchedulingModel(term=lower_bound_objective_term() / 2, weight=c0 * mu).page_term()
    c0*mu*(h**(1/x)*nu*x/mu + 1 - nu*x/mu)/2
    >>> SchedulingModel(term=c * nu)
    Traceback (most recent call last):
    ...
    ValueError: SchedulingModel: term must depend on the frequency x, got c*nu
    """
    term: sp.Expr
    weight: sp.Expr = c

    def __post_init__(self):
        for name in ("term", "weight"):
            object.__setattr__(self, name, sp.sympify(getattr(self, name)))
        if not self.term.has(x):
            raise ValueError(f"SchedulingModel: term must depend on the frequency x, got {self.term}")
        if self.weight.has(x) or self.weight.has(lam):
            raise ValueError(f"SchedulingModel: the weight c_i is a page constant, got {self.weight}")
        if self.term.has(lam):
            raise ValueError("SchedulingModel: lambda is the multiplier of sum x_i = 1, not a model symbol")

    def page_term(self) -> sp.Expr:
        """One page's term of the objective with its weight: ``term`` at c = ``weight``."""
        return self.term.subs(c, self.weight)


def model_stationarity(model: SchedulingModel) -> sp.Expr:
    r""":math:`\partial/\partial x_i` of the Lagrangian :math:`\sum_j \mathrm{term}_j + \lambda(\sum_j x_j - 1)`:
    the page's derivative plus :math:`\lambda` ((8) for :func:`lower_bound_model`, (13) for :func:`randomized_model`).

    >>> sp.simplify(model_stationarity(randomized_model()).subs(x, 0))
    -c0*nu + lambda
    """
    return sp.diff(model.page_term() + lam * x, x)


def _in_a(expr: sp.Expr) -> sp.Expr:
    """``expr`` with h = e^(-a), a = ln(1/h) > 0 (h = E e^(-mu X) < 1), powers of e merged."""
    return sp.powsimp(sp.expand_log(sp.sympify(expr).subs(h, sp.exp(-a)), force=True), force=True)


def _sign(expr: sp.Expr) -> int | None:
    """+1 or -1 when SymPy decides the sign of ``expr`` for positive symbols (as it is, factored, simplified)."""
    for form in (expr, sp.factor(sp.together(expr)), sp.simplify(expr)):
        if form.is_positive:
            return 1
        if form.is_negative:
            return -1
    return None


def require_convex(model: SchedulingModel) -> sp.Expr:
    r"""The page's term is strictly convex in x (d²/dx² > 0 for h = 1/(1 + b), b > 0), so the objective is convex and
    the KKT conditions (stationarity where x_i > 0, :math:`\lambda \ge \lambda_i^{thr}` where x_i = 0) are
    sufficient for the minimum; returns the second derivative, raises when SymPy cannot show it positive.

    >>> require_convex(lower_bound_model())
    c0*nu*log(b + 1)**2/(x**3*(b + 1)**(1/x))
    """
    second = sp.factor(sp.simplify(sp.diff(model.page_term(), x, 2).subs(h, 1 / (1 + b))))
    if _sign(second) != 1:
        raise DerivationError(f"the term is not shown convex in x (d2/dx2 = {second}): a stationary point need not be the "
                              "minimum, so the Lagrangian route does not apply")
    return second


@functools.cache
def exclusion_multiplier(model: SchedulingModel) -> sp.Expr:
    r"""The multiplier above which the page is left out (x_i = 0): the stationarity as :math:`x \to 0^+`
    (``limit``, h = e^(-a)) solved for :math:`\lambda`; :math:`c_i\nu/\mu_i` for the paper's two objectives
    ((8) and (13) at x = 0+).

    >>> exclusion_multiplier(lower_bound_model())
    c0*nu
    """
    at_zero = sp.limit(_in_a(model_stationarity(model)), x, 0, "+")
    return sp.simplify(only_root(sp.solve(at_zero, lam), "the stationarity at x = 0+ for lambda").subs(a, -sp.log(h)))


def _lambert_branches(roots) -> list:
    """SymPy's ``solve`` gives LambertW's principal branch only; on -1/e < z < 0 the branch k = -1 is real as well,
    and is added (every root with W(z) is returned also with W_{-1}(z))."""
    out = []
    for r in roots:
        out.append(r)
        ws = [e for e in r.atoms(sp.LambertW) if len(e.args) == 1]
        if ws:
            out.append(r.xreplace({e: sp.LambertW(e.args[0], -1) for e in ws}))
    return out


def _sign_in_regime(root: sp.Expr, low: sp.Expr, high: sp.Expr) -> int | None:
    r"""Sign of a root x(lambda) of the stationarity for every multiplier low < lambda < high (the page kept with a
    finite frequency): lambda = low + (high - low)/(1 + g)^2, g > 0, sweeps that range (squared so that square
    roots of the ratio are rational in g), and h = e^(-a) = 1/(1 + b), b > 0.  A LambertW(z, k) is replaced by its
    range: W_0 in (-1, 0), W_{-1} < -1 on -1/e < z < 0, W_0 > 0 on z > 0 (shown); 0 when the root is not real
    there (W_{-1} at z > 0)."""
    at = sp.simplify(root.subs(lam, _in_a(low + (high - low) / (1 + g) ** 2)).subs(a, sp.log(1 + b)))
    ranges = {}
    for wz in at.atoms(sp.LambertW):
        z, branch = wz.args[0], (wz.args[1] if len(wz.args) > 1 else 0)
        fresh = sp.Dummy(positive=True)
        if _sign(z) == 1:
            if branch == -1:
                return 0
            ranges[wz] = fresh
        elif _sign(z) == -1 and _sign(z + sp.exp(-1)) == 1:
            ranges[wz] = -1 - fresh if branch == -1 else -1 + 1 / (1 + fresh)
        else:
            return None
    return _sign(at.xreplace(ranges))


def regime(model: SchedulingModel) -> tuple[sp.Expr, sp.Expr]:
    r"""(low, high): the multipliers for which the page is kept with a finite frequency.  high is
    :func:`exclusion_multiplier` (x -> 0+), low the stationarity's lambda as x -> oo (0 for the paper's objectives:
    the derivative of the term vanishes there).

    >>> regime(lower_bound_model())
    (0, c0*nu)
    """
    at_infinity = sp.limit(_in_a(model_stationarity(model)), x, sp.oo)
    free = sp.Dummy("L")  # no sign assumption: the root may be 0
    if not at_infinity.has(lam):
        raise DerivationError(f"the stationarity as x -> oo is {at_infinity}: no multiplier range for a kept page")
    low = only_root(sp.solve(at_infinity.subs(lam, free), free), "the stationarity as x -> oo for lambda")
    return sp.simplify(low.subs(a, -sp.log(h))), exclusion_multiplier(model)


@functools.cache
def frequency_at_multiplier(model: SchedulingModel) -> sp.Expr:
    r"""The page's frequency :math:`x_i(\lambda)` while it is kept (:math:`0 < \lambda < \lambda_i^{thr}`,
    :func:`exclusion_multiplier`): the stationarity (:func:`model_stationarity`) = 0 solved by SymPy for x, or,
    when it has no solver for x, for the distance w = 1/x (h = e^(-a)); of the roots (LambertW's real branches
    both counted) the admissible one is the root that is > 0 on the whole regime; exactly one must be, and every
    other root must be shown <= 0 or not real there (:func:`regime`: low < lambda < high), else the derivation refuses naming the step.

    >>> frequency_at_multiplier(lower_bound_model())
    log(h)/(LambertW(-exp(-1) + lambda*exp(-1)/(c0*nu), -1) + 1)
    >>> frequency_at_multiplier(randomized_model())
    -(h - 1)*(sqrt(c0)*sqrt(nu) - sqrt(lambda))/(h*sqrt(lambda))
    """
    require_convex(model)
    equation = _in_a(model_stationarity(model))
    free = sp.Dummy("v")  # solved with no sign assumption, so that solve drops no root before our criterion
    try:
        roots = [r for r in sp.solve(equation.subs(x, free), free)]
    except NotImplementedError:
        try:
            roots = [1 / r for r in sp.solve(equation.subs(x, 1 / free), free)]
        except NotImplementedError:
            raise DerivationError(f"the stationarity {model_stationarity(model)} = 0 has no closed-form solution for x "
                                  "(SymPy's solve, in x and in the distance 1/x): no x_i(lambda) to build the optimum on") from None
    roots = _lambert_branches(roots)
    low, high = regime(model)
    signs = [_sign_in_regime(r, low, high) for r in roots]
    if None in signs:
        raise DerivationError(f"the stationarity for x has the roots {roots}; the sign of {roots[signs.index(None)]} on "
                              f"{low} < lambda < {high} is not decided, so the admissible root is not known")
    root = only_root([r for r, s_ in zip(roots, signs) if s_ == 1],
                     f"the stationarity for x: roots {roots}, admissible (real and > 0 for {low} < lambda < {high})")
    return sp.factor(root.subs(a, -sp.log(h)))


@functools.cache
def frequency_split(model: SchedulingModel) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    r"""(phi(lambda), A_i, B_i) with :math:`x_i(\lambda) = \varphi(\lambda) A_i + B_i` (:func:`frequency_at_multiplier`),
    A_i, B_i free of lambda and phi free of the page: then the pages share one level phi and the constraint
    :math:`\sum x_i = 1` is linear in it.  Found by splitting each term of x_i(lambda) into its lambda part and
    page part; refused, naming the factor, when a lambda part involves the page (the optimum then is not
    phi A_i + B_i, and sum x_i(lambda) = 1 has no closed form: :func:`kkt_frequencies` solves it numerically).

    >>> frequency_split(lower_bound_model())
    (1/(LambertW(-exp(-1) + lambda*exp(-1)/(c0*nu), -1) + 1), log(h), 0)
    """
    xl = frequency_at_multiplier(model)
    page_symbols = set(PAGE)
    level, A, B = None, sp.Integer(0), sp.Integer(0)
    for term in sp.Add.make_args(sp.expand(xl, power_base=True, log=False, multinomial=False, mul=True)):
        lam_part = sp.Mul(*[f for f in sp.Mul.make_args(term) if f.has(lam)])
        if lam_part == 1:
            B += term
            continue
        if lam_part.free_symbols & page_symbols:
            raise DerivationError(f"the pages share no common level: x_i(lambda) = {xl} depends on lambda through {lam_part}, "
                                  f"which involves the page's {sorted(map(str, lam_part.free_symbols & page_symbols))}; "
                                  "the optimum is not phi(lambda) A_i + B_i (not proportional to the paper's ln(1/h_i) or 1/h_i - 1), "
                                  "and sum x_i(lambda) = 1 has no closed-form solution (kkt_frequencies solves it numerically)")
        level = lam_part if level is None else level
        ratio = sp.simplify(lam_part / level)
        if ratio.has(lam):
            raise DerivationError(f"x_i(lambda) = {xl} has two lambda dependences, {level} and {lam_part}: the constraint is "
                                  "not linear in one level")
        A += term / lam_part * ratio
    if level is None:
        raise DerivationError(f"x_i = {xl} does not depend on lambda: sum x_i = 1 cannot be met by the multiplier")
    return level, sp.factor(A), sp.factor(B)


# The named page aggregates of the paper: S = sum ln h_i (Theorem 3.4), G = sum (1/h_i - 1) (Theorem 4.1), mu = sum mu_i.
_AGGREGATES = ((sp.Sum(sp.log(h_[k]), (k, 1, n)), S), (sp.Sum(1 / h_[k], (k, 1, n)), G + n), (sp.Sum(mu_[k], (k, 1, n)), mu))


def page_sum(expr: sp.Expr, pages=None) -> sp.Expr:
    """sum_i of a page expression: over ``pages`` explicit pages (h1, mu1, c1, ...) when an int, else over the n
    pages i = 1..n with the paper's aggregates named (S = sum ln h_i, G = sum (1/h_i - 1), mu = sum mu_i).

    >>> page_sum(1 - 1/h), page_sum(2*sp.log(h)), page_sum(h, 2)
    (-G, 2*S, h1 + h2)
    """
    if pages is not None:
        return sum((expr.subs(_page(i)) for i in range(1, pages + 1)), sp.Integer(0))
    indexed = sp.expand(expr.subs({h: h_[k], mu: mu_[k], c: c_[k]}))
    total = sum((factor_sum(sp.Sum(t, (k, 1, n))) for t in sp.Add.make_args(indexed)), sp.Integer(0))
    total = total.replace(lambda e: isinstance(e, sp.Sum) and not e.function.has(k), lambda e: e.doit())
    return sp.expand(total.subs(dict(_AGGREGATES)))


def _page(i: int) -> dict:
    """Page i's symbols h_i, mu_i, c_i (positive), replacing h, mu, c."""
    return {h: sp.Symbol(f"h{i}", positive=True), mu: sp.Symbol(f"mu{i}", positive=True), c: sp.Symbol(f"c{i}", positive=True)}


@functools.cache
def common_level(model: SchedulingModel, pages=None) -> sp.Expr:
    r"""The level phi* of the optimum: :math:`\sum_i (\varphi A_i + B_i) = 1` solved for phi (one root required),
    over the pages of :func:`page_sum`.

    >>> common_level(lower_bound_model()), common_level(randomized_model())
    (1/S, (G + 1)/(G*sqrt(c0)*sqrt(nu)))
    """
    _, A, B = frequency_split(model)
    return only_root(sp.solve(sp.Eq(phi * page_sum(A, pages) + page_sum(B, pages), 1), phi), "sum x_i = 1 for the level")


@functools.cache
def optimal_frequency(model: SchedulingModel) -> sp.Expr:
    r"""The optimum :math:`x_i = \varphi^* A_i + B_i` of ``model`` (every page kept: valid where it is >= 0; a page
    with a negative value is left out and the others re-solved, :func:`kkt_frequencies`).

    >>> optimal_frequency(lower_bound_model()), optimal_frequency(randomized_model())
    (log(h)/S, -(h - 1)/(G*h))
    """
    _, A, B = frequency_split(model)
    return sp.factor(common_level(model) * A + B)


def optimal_frequencies(model: SchedulingModel, pages: int) -> list[sp.Expr]:
    r"""The optimum of ``model`` for ``pages`` explicit pages (symbols h1, mu1, c1, ...): :math:`x_i = \varphi^* A_i + B_i`
    with phi* from the constraint over those pages (:func:`common_level`); valid where every x_i >= 0.

    >>> optimal_frequencies(lower_bound_model(), 2)
    [log(h1)/(log(h1) + log(h2)), log(h2)/(log(h1) + log(h2))]
    """
    _, A, B = frequency_split(model)
    level = common_level(model, pages)
    return [sp.factor((level * A + B).subs(_page(i))) for i in range(1, pages + 1)]


@functools.cache
def optimal_multiplier(model: SchedulingModel) -> sp.Expr:
    r""":math:`\lambda` at the optimum: the stationarity is linear in lambda, solved for it at x = :func:`optimal_frequency`
    (h^(c/x) with x = c' ln h / S becomes e^(c S/c')); it must come out the same for every page (checked: raises
    otherwise).

    >>> optimal_multiplier(lower_bound_model())
    c0*nu*(S*exp(S) - exp(S) + 1)
    >>> optimal_multiplier(randomized_model())
    G**2*c0*nu/(G + 1)**2
    """
    per_page = only_root(sp.solve(model_stationarity(model), lam), "the stationarity for lambda")
    at = sp.powsimp(sp.expand_log(sp.expand(per_page.subs(x, optimal_frequency(model))), force=True), force=True)
    value = sp.factor_terms(sp.expand(sp.simplify(at)))
    value = sp.factor(value) if value.is_rational_function() else value
    if _outside_sums(value) & set(PAGE):
        raise DerivationError(f"the multiplier at the optimum is not common to the pages: {value}")
    return value


@functools.cache
def optimal_cost(model: SchedulingModel) -> sp.Expr:
    r"""The objective at the optimum, summed over the n pages (:func:`page_sum`: the paper's aggregates named, other
    sums over the pages kept as sums); raises when a page's own h or c is left outside a sum.

    >>> optimal_cost(lower_bound_model())
    c0*(mu + nu*exp(S) - nu)
    """
    term = model.page_term().subs(x, optimal_frequency(model))
    term = sp.powsimp(sp.expand_log(sp.expand(term), force=True), force=True)  # h^(1/x) at x = ln h/S: e^S
    if term.is_rational_function(h):  # (12) at (16): partial fractions in h leave 1/h and constants to sum
        term = sp.apart(sp.cancel(sp.together(term)), h)
    total = sp.simplify(page_sum(term))
    if _outside_sums(total) & {h, c}:
        raise DerivationError(f"the optimal cost still depends on one page: {total}")
    return sp.factor_terms(total)


def _outside_sums(expr: sp.Expr) -> set:
    """The free symbols of ``expr`` outside its sums over the pages (an IndexedBase h[k] carries the symbol h)."""
    return expr.xreplace({s_: sp.Dummy() for s_ in expr.atoms(sp.Sum)}).free_symbols


def kkt_frequencies(model: SchedulingModel, pages, common, dps: int = 40):
    r"""The optimum of ``model`` for concrete pages (``pages``: dicts of h, mu, c values; ``common``: values of nu,
    c0, ...), at ``dps`` digits: x_i(lambda) of :func:`frequency_at_multiplier` (x_i = 0 once lambda >= the page's
    :func:`exclusion_multiplier`, by the KKT conditions of the convex problem; unbounded at or below the low end
    of the :func:`regime`), and lambda the root of :math:`\sum_i x_i(\lambda) = 1`, which is decreasing in lambda
    (60 bisection steps on the union of the regimes, then mpmath's ``findroot`` on that bracket).  Returns
    (x, lambda) as mpmath numbers.  Works when the pages share no common level
    (:func:`frequency_split` refuses), e.g. weights c_i = c0 mu_i^2.

    >>> xs, lam_ = kkt_frequencies(lower_bound_model(), [{h: 0.5, mu: 1}, {h: 0.25, mu: 2}], {nu: 1, c0: 1}, dps=20)
    >>> [mpmath.nstr(v, 12) for v in xs]
    ['0.333333333333', '0.666666666667']
    """
    with mpmath.workdps(dps + 10):
        xl, (low, high) = frequency_at_multiplier(model), regime(model)
        vals = [{**{s_: mpmath.mpf(v) for s_, v in common.items()}, **{s_: mpmath.mpf(v) for s_, v in p.items()}} for p in pages]
        funcs = [(sp.lambdify(lam, xl.subs(v), "mpmath"), mpmath.mpf(sp.N(high.subs(v), dps + 10)),
                  mpmath.mpf(sp.N(low.subs(v), dps + 10))) for v in vals]

        def kept(f, L):
            value = f(L)
            if mpmath.im(value) != 0:
                raise DerivationError(f"x_i({L}) = {value} is not real inside the page's regime")
            return mpmath.re(value)

        def frequencies(L):  # x_i = 0 above the page's regime, unbounded at or below it
            return [mpmath.inf if L <= below else kept(f, L) if L < above else mpmath.mpf(0) for f, above, below in funcs]

        def excess(L):
            return mpmath.fsum(frequencies(L)) - 1

        lo, hi = max(f_[2] for f_ in funcs), max(f_[1] for f_ in funcs)
        for _ in range(60):  # the bracket shrunk 2^60 times, then the secant-type solver on it
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if excess(mid) > 0 else (lo, mid)
        root = mpmath.findroot(excess, (lo, hi), solver="anderson", tol=mpmath.mpf(10) ** (-dps - 5))
        return [+v for v in frequencies(root)], +root


def lower_bound_model(weight=c0 * mu) -> SchedulingModel:
    """The paper's deterministic-schedule model: (7), the weighted sum of Theorem 3.3's bounds (:func:`lower_bound_objective_term`),
    with c_i = ``weight`` (c0 mu_i in Theorem 3.4; ``c`` for general weights)."""
    return SchedulingModel(term=lower_bound_objective_term(), weight=weight)


def randomized_model(weight=c0 * mu) -> SchedulingModel:
    """The paper's randomized-policy model: (12), the weighted sum of Lemma 4.1's rates (:func:`randomized_objective_term`),
    with c_i = ``weight`` (c0 mu_i in (16); ``c`` for (15) and the remark after Theorem 4.1)."""
    return SchedulingModel(term=randomized_objective_term(), weight=weight)


def model_h(mean_access) -> tuple[sp.core.relational.Relational, ...]:
    """The values h = E[e^{-mu X}] can take for an access time X >= 0 of mean ``mean_access`` = E[X] > 0 (§2):
    h < 1 (X is not 0 almost surely) and, by Jensen's inequality (e^{-mu x} is convex), h >= e^{-mu E[X]}, with
    equality for a deterministic X.  Below that edge Lemma 3.1's E[Z] is negative (e.g. -6.2e-16 at d = 52.7,
    m = 0.155, mu = 0.122, h = 0.521): the formulas have no model there.

    >>> model_h(m)
    (h < 1, h >= exp(-m*mu))
    """
    return (sp.Lt(h, 1), sp.Ge(h, sp.exp(-mu * mean_access)))


# Provenance of the formulas below (derive/formula.py: Input).
_ACCESS = assumed("§2's page model: page i changes as a Poisson process of rate mu_i, accesses take i.i.d. times X of mean "
                  "E[X] = m = 1/nu, h_i = E e^(-mu_i X); a page is obsolete from its first change to its next access")
_INNER = assumed("the obsolete time within an intercompletion interval of length t: int_0^t (1 - e^(-mu (t - z))) dz "
                 "(proof of Lemma 3.1)", "integrated by SymPy")
_L31 = derived("Lemma 3.1 E[Z] = d E[X] - (1 - h^d)/mu", "the inner integral against the law of a sum of d accesses, "
               "using only its mean d m and transform h^d (linearity in t and e^(-mu t) checked); coffman.sched.lemma-3.1 "
               "checks it against direct Erlang integration, d = 1, 2, 3")
_T33 = typed("Theorem 3.3: the bound is Lemma 3.1 with every distance equal to 1/f", "the equal-distance step is the "
             "paper's convexity argument, not derived here; checked by coffman.sched.thm-3.3 (random schedules of six access "
             "laws never beat the bound, round robin attains it)")
_L41 = derived("Lemma 4.1", "Lemma 3.1 summed by SymPy against the geometric law of the distance")
_GEO = assumed("the randomized policy of §4: the distance d is geometric, P(d = n) = f (1 - f)^(n-1)")
_OBJ7 = assumed("the objective (7): sum_i c_i r_i(x_i) with Theorem 3.3's bound, sum x_i = 1, x_i >= 0 (9)",
                "SchedulingModel lower_bound_model(); c_i = c0 mu_i where c0 appears")
_OBJ12 = assumed("the objective (12): sum_i c_i r_i(x_i) with Lemma 4.1's rate, sum x_i = 1, x_i >= 0",
                 "SchedulingModel randomized_model(); c_i = c0 mu_i where c0 appears")
_STAT = derived("the stationarity (8)/(13)", "d/dx of the model's term plus lambda (the Lagrangian of the given objective)")
_ROOT = derived("x_i(lambda)", "the stationarity solved by sp.solve (in 1/x for (8): LambertW, both real branches counted), "
                "the one root real and > 0 for every multiplier of the page's regime chosen; convexity of the term shown")
_LEVEL = derived("the common level", "x_i(lambda) split by SymPy as phi(lambda) A_i + B_i with phi free of the page "
                 "(found, for c_i = c0 mu_i: A_i = ln h_i for (8), 1/h_i - 1 for (15)); sum x_i = 1 solved for phi")
_MULT = derived("the multiplier at the optimum", "the stationarity solved for lambda at the optimum; checked the same for every page")
_COST = derived("the optimal cost", "the model's term at the optimum summed over the pages, aggregates S, G, mu named")
_LIMIT = derived("the N -> oo limit", "h = 1 - (mu/N)/nu + a2 (mu/N)^2 + o(N^-2) for each of N equal pages, limit of h^N")
_FLOAT = derived("the float form", "a SymPy rewriting of the derived form (expm1, Taylor polynomial below a cut), checked "
                 "equal to it by the registry's .stable claim")
_RATE = (_ACCESS, _INNER, _L31, _T33)
_RAND = (_ACCESS, _INNER, _L31, _GEO, _L41)


_LB = (*_RATE, _OBJ7, _STAT)
_RD = (*_RAND, _OBJ12, _STAT)
_PROVENANCE = {
    "expected_obsolescence": (_ACCESS, _INNER, _L31), "rate_lower_bound": _RATE, "randomized_rate": _RAND,
    "optimal_frequency": (*_LB, _ROOT, _LEVEL),
    "lagrangian_stationarity": _LB,
    "page_threshold_multiplier": (*_LB, _GEO, _L41, derived("the threshold", "the stationarity as x -> 0+ solved for lambda; "
                                                            "(8) and (13) checked to give the same value")),
    "stationarity_level": (*_LB, derived("the level", "(8) with y = h^(1/x) = e^-u checked to be (c nu/mu) P(2, u) - lambda, "
                                                      "solved for P(2, u)")),
    "lower_bound_multiplier": (*_LB, _ROOT, _LEVEL, _MULT), "cstar": (*_LB, _ROOT, _LEVEL, _COST),
    "randomized_objective_term": (*_RAND, _OBJ12), "randomized_stationarity": _RD,
    "randomized_frequency": (*_RD, _ROOT), "randomized_frequency_proportional": (*_RD, _ROOT, _LEVEL),
    "randomized_multiplier": (*_RD, _ROOT, _LEVEL, _MULT), "randomized_cstar": (*_RD, _ROOT, _LEVEL, _COST),
    "cstar_limit": (*_LB, _ROOT, _LEVEL, _COST, _LIMIT),
}


def formulas() -> list[Formula]:
    """The closed forms emitted to ``numeric/generated/scheduling.py``, each with its provenance.

    >>> [f.name for f in formulas()][:3]
    ['expected_obsolescence', 'rate_lower_bound', 'randomized_rate']
    """
    return [dataclasses.replace(f, inputs=_PROVENANCE[f.name] + ((_FLOAT,) if f.stable is not None else ()))
            for f in _formulas()]


def _formulas() -> list[Formula]:
    h_dom = {"h": (1e-3, 0.999)}
    weights = {"c": (1e-2, 10.0), "mu": (1e-3, 10.0), "nu": (0.1, 10.0)}
    page = {**weights, **h_dom}
    model_h_dom = {"h": (1e-2, 1 - 1e-9)}  # up to h -> 1 (mu E[X] -> 0): the requirements cut the box to the model
    rate = {"f": (1e-3, 1.0), "m": (0.1, 10.0), "mu": (1e-3, 10.0), **model_h_dom}
    frequency_in_model = (sp.Le(f, 1), *model_h(m))  # f = 1/d with d >= 1 accesses between two of the page's
    return [
        Formula("expected_obsolescence", (d, m, mu, h), expected_obsolescence(), f"{SRC}, Lemma 3.1)", "E[Z^i_j] for inter-access distance d",
                printed=d * m - (1 - h**d) / mu, stable=expected_obsolescence_stable(), requires=(sp.Ge(d, 1), *model_h(m)), settle_mp=True,
                scale=term_magnitudes(expected_obsolescence_stable()),
                domain={"d": (1.0, 100.0), "m": (0.1, 10.0), "mu": (1e-3, 10.0), **model_h_dom}),
        Formula("rate_lower_bound", (f, m, mu, h), rate_lower_bound(), f"{SRC}, Thm 3.3)", "lower bound on r_i at frequency f",
                printed=(m - f / mu + f / mu * h ** (1 / f)) / m, stable=expm1_form(rate_lower_bound(), 1), domain=rate, requires=frequency_in_model, settle_mp=True,
                scale=term_magnitudes(expm1_form(rate_lower_bound(), 1))),
        Formula("randomized_rate", (f, m, mu, h), randomized_rate(), f"{SRC}, Lemma 4.1)", "r_i of the randomized policy at frequency f",
                printed=(m - f / mu + f / mu * f * h / (1 - h + f * h)) / m, domain=rate, requires=frequency_in_model, settle_mp=True,
                stable=randomized_rate_stable(), scale=term_magnitudes(randomized_rate_stable())),
        Formula("optimal_frequency", (h, S), optimal_frequencies_proportional(), f"{SRC}, Thm 3.4, (10))",
                "x_i = ln h_i / S, S = sum_j ln h_j: the optimum of (7) with c_i = c0 mu_i, from the Lagrangian",
                printed=sp.log(h) / S, domain={**h_dom, "S": (-50.0, -1e-3)}),
        Formula("lagrangian_stationarity", (x, h, c, mu, nu, lam), lagrangian_stationarity(), f"{SRC}, Thm 3.4, (8))",
                "d/dx_i of the Lagrangian of (7): c_i r_i^LB(x_i) + lambda x_i",
                printed=-(c * nu / mu) * (1 - h ** (1 / x) + sp.log(h) / x * h ** (1 / x)) + lam,
                stable=expm1_form(lagrangian_stationarity(), lam), scale=term_magnitudes(expm1_form(lagrangian_stationarity(), lam)),
                domain={**page, "h": (1e-2, 0.99), "x": (1e-2, 1.0), "lambda": (1e-3, 10.0)}),
        Formula("page_threshold_multiplier", (c, mu, nu), page_threshold_multiplier(), f"{SRC}, Thm 3.4, (8) and Thm 4.1, (13) at x = 0+)",
                "lambda above which page i gets x_i = 0 (dual feasibility at x_i = 0): c_i nu/mu_i", domain=weights),
        Formula("stationarity_level", (lam, c, mu, nu), stationarity_level(), f"{SRC}, Thm 3.4, (8))",
                "(8) as P(2, u) = t with y = h^(1/x) = e^-u: the level t = lambda mu/(c nu)",
                domain={**weights, "lambda": (1e-3, 10.0)}),
        Formula("lower_bound_multiplier", (c0, nu, S), lower_bound_multiplier(), f"{SRC}, Thm 3.4, (8) at (10))",
                "lambda of (8) at the optimum with c_i = c0 mu_i, S = sum ln h_i", stable=lower_bound_multiplier_stable(), settle_mp=True,
                domain={"c0": (1e-2, 10.0), "nu": (0.1, 10.0), "S": (-50.0, -1e-140)}),
        Formula("cstar", (c0, mu, nu, P), cstar_lower_bound(), f"{SRC}, Thm 3.4, (6))",
                "lower bound C* with P = prod h_i; ill-conditioned in its inputs, not in the formula: kappa = (mu + nu + nu P)/C* "
                "~ 4N/(N+1) (nu/mu)^2 for N equal pages, exponential X (3.6e6 at mu/nu = 1e-3), so the domain keeps away from mu -> nu (1 - P)",
                printed=c0 * (mu - nu + nu * P), domain={"c0": (1e-2, 10.0), "mu": (1.0, 10.0), "nu": (0.1, 0.5), "P": (1e-3, 0.5)}),
        Formula("randomized_objective_term", (x, h, c, mu, nu), randomized_objective_term(), f"{SRC}, Thm 4.1, (12))",
                "c_i r_i(x_i) of the randomized policy, one page's term of (12)",
                printed=c - nu * c * x / mu + nu * c / mu * x**2 * h / (1 - h + x * h), domain={**page, **model_h_dom, "x": (1e-4, 1.0)},
                requires=(sp.Le(x, 1), *model_h(1 / nu)), settle_mp=True,
                stable=randomized_objective_term_stable(), scale=term_magnitudes(randomized_objective_term_stable())),
        Formula("randomized_stationarity", (x, h, c, mu, nu, lam), randomized_stationarity(), f"{SRC}, Thm 4.1, (13))",
                "d/dx_i of (12) plus lambda x_i",
                printed=-c * nu / mu + c * nu / mu * (2 * h * (1 - h) * x + h**2 * x**2) / (1 - h + h * x) ** 2 + lam,
                stable=sp.factor(randomized_stationarity() - lam) + lam, scale=term_magnitudes(sp.factor(randomized_stationarity() - lam) + lam),
                domain={**page, "x": (1e-4, 1.0), "lambda": (1e-3, 10.0)}),
        Formula("randomized_frequency", (h, c, mu, nu, lam), randomized_frequency_general(), f"{SRC}, Thm 4.1, (15))",
                "x_i solving (13) = 0 (before clipping at 0)",
                printed=(sp.sqrt(nu * c / (lam * mu)) - 1) * (1 - h) / h, domain={**page, "lambda": (1e-3, 10.0)},
                scale=term_magnitudes(randomized_frequency_general())),
        Formula("randomized_frequency_proportional", (h, G), randomized_frequency_proportional(), f"{SRC}, Thm 4.1, (16))",
                "x_i = (1/h_i - 1)/G when c_i = c0 mu_i, G = sum (1/h_i - 1)",
                printed=(1 / h - 1) / G, domain={**h_dom, "G": (1e-3, 1e4)}),
        Formula("randomized_multiplier", (c0, nu, G), randomized_multiplier(), f"{SRC}, Thm 4.1, (15)-(16))",
                "lambda of (13) at (16): nu c0 (G/(1+G))^2",
                domain={"c0": (1e-2, 10.0), "nu": (0.1, 10.0), "G": (1e-3, 1e4)}),
        Formula("randomized_cstar", (c0, mu, nu, G), randomized_cstar(), f"{SRC}, Thm 4.1, (11))",
                "randomized optimum with G = sum (1/h_i - 1); ill-conditioned in its inputs, not in the formula: kappa = "
                "(mu + nu G/(1+G))/C ~ 2 nu/mu for exponential X (2e3 at mu/nu = 1e-3), so the domain keeps away from mu -> nu G/(1+G)",
                printed=c0 * (mu - nu * G / (1 + G)), domain={"c0": (1e-2, 10.0), "mu": (1.0, 10.0), "nu": (0.1, 0.5), "G": (1e-3, 1e4)}),
        Formula("cstar_limit", (c0, mu, nu), cstar_limit(), f"{SRC}, (17))", "N -> infinity limit of C*",
                printed=c0 * (mu - nu + nu * sp.exp(-mu / nu)), stable=cstar_limit_stable(), settle_mp=True,
                domain={"c0": (1e-2, 10.0), "mu": (1e-10, 50.0), "nu": (1e-300, 1e6)}),
    ]


@dataclass(frozen=True)
class ModelFormulas:
    """The closed forms derived for a user's scheduling model (:func:`model_formulas`) and the ones refused."""
    formulas: tuple[Formula, ...]
    refused: tuple[tuple[str, str], ...]  # (formula name, the DerivationError's message)


# The argument order of a user's formulas: the page's own symbols, the multiplier, the aggregates, the common ones.
_ORDER = (x, h, mu, c, lam, S, G, c0, nu)
_AGGREGATE_MEANING = {S: "S = sum_i ln h_i", G: "G = sum_i (1/h_i - 1)"}


def _model_requires(args) -> tuple:
    """The model's ranges on the arguments: 0 < h < 1 (h = E e^(-mu X), X not 0, §2), S < 0, G > 0, lambda > 0."""
    bounds = {h: (sp.Gt(h, 0, evaluate=False), sp.Lt(h, 1, evaluate=False)), S: (sp.Lt(S, 0, evaluate=False),),
              G: (sp.Gt(G, 0, evaluate=False),), lam: (sp.Gt(lam, 0, evaluate=False),)}
    return tuple(r for a in args for r in bounds.get(a, ()))


def model_formulas(model: SchedulingModel) -> ModelFormulas:
    r"""The optimum of ``model`` as `Formula` objects for ``crawlmath codegen --model``: the page's exclusion
    multiplier (:func:`exclusion_multiplier`), its frequency at a multiplier x_i(lambda)
    (:func:`frequency_at_multiplier`), the optimal frequency x_i (:func:`optimal_frequency`, in the page's h and
    the aggregates S, G), the multiplier and the cost at the optimum (:func:`optimal_multiplier`,
    :func:`optimal_cost`; there ``mu`` is the sum of the pages' mu_i); each derivation that refuses is listed in
    ``refused`` with its step.  A cost that keeps a sum over the pages other than S, G or sum mu_i is refused:
    the generated function takes numbers, not the pages.

    >>> mf = model_formulas(SchedulingModel(lower_bound_objective_term().subs(h**(1/x), h**(2/x)), c0*mu))
    >>> [(f.name, f.args) for f in mf.formulas][1:]
    [('optimal_frequency', (h, S)), ('optimal_multiplier', (S, c0, nu)), ('optimal_cost', (mu, S, c0, nu))]
    >>> [(name, step[:31]) for name, step in model_formulas(lower_bound_model(c0 * mu**2)).refused][1:]
    [('optimal_frequency', 'the pages share no common level'), ('optimal_multiplier', 'the pages share no common level'), ('optimal_cost', 'the pages share no common level')]
    """
    cite = f"{SRC}, §3-4, the Lagrangian of sum_i term(x_i) under sum x_i = 1) for {model}"
    steps = (("exclusion_multiplier", exclusion_multiplier, "the multiplier above which page i is left out (x_i = 0): "
              "the stationarity at x = 0+ solved for lambda", derived("the exclusion multiplier",
                                                                     "the stationarity as x -> 0+ (limit) solved for lambda")),
             ("frequency_at_multiplier", frequency_at_multiplier, "x_i(lambda), page i's frequency while it is kept: "
              "the stationarity solved for x, the admissible root", _ROOT),
             ("optimal_frequency", optimal_frequency, "x_i at the optimum with every page kept (valid where >= 0)", _LEVEL),
             ("optimal_multiplier", optimal_multiplier, "lambda at the optimum", _MULT),
             ("optimal_cost", optimal_cost, "the objective at the optimum; mu is sum_i mu_i", _COST))
    built, refused = [], []
    for name, derive_it, doc, how in steps:
        try:
            expr = derive_it(model)
            if expr.has(sp.Sum, sp.Indexed):
                raise DerivationError(f"{expr} keeps a sum over the pages that is not one of S, G, sum mu_i: "
                                      "no function of numbers to emit")
            if expr.has(sp.LambertW):
                raise DerivationError(f"derived as {expr}, but the code printers have no LambertW (its k = -1 "
                                      "branch): not emitted; kkt_frequencies evaluates it with mpmath")
        except DerivationError as exc:
            refused.append((name, str(exc)))
            continue
        args = tuple([a for a in _ORDER if a in expr.free_symbols] + sorted(expr.free_symbols - set(_ORDER), key=str))
        named = "; ".join(_AGGREGATE_MEANING[a] for a in args if a in _AGGREGATE_MEANING)
        built.append(Formula(name, args, expr, cite, doc + (f" ({named})" if named else ""), paper="coffman",
                             requires=_model_requires(args),
                             inputs=(assumed(f"the model {model}"), _STAT, how)))
    return ModelFormulas(tuple(built), tuple(refused))
