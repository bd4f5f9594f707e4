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

The golden-ratio policy of §5 is derived in :mod:`crawlmath.derive.golden`.
"""
from __future__ import annotations

import functools

import sympy as sp
from sympy.codegen.cfunctions import expm1
from sympy.codegen.rewriting import expm1_opt, optimize
from sympy.simplify.simplify import factor_sum

from . import DerivationError, only_root, require_zero
from .formula import Formula, term_magnitudes

d, m, mu, h, f, x, nu, c0, q, lam, c = sp.symbols("d m mu h f x nu c0 q lambda c", positive=True)
z, t = sp.symbols("z t", positive=True)
SRC = "(Coffman–Liu–Weber 1997"
# Page-indexed quantities for the sums over pages i = 1..n of §3-§4.
n = sp.Symbol("n", integer=True, positive=True)
k = sp.Symbol("k", integer=True, positive=True)
h_, mu_, g_ = (sp.IndexedBase(name, positive=True) for name in ("h", "mu", "g"))
ln_y = sp.Symbol("ln_y", negative=True)  # ln y*, the common log h_i^{1/x_i}
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
    """(8): d/dx_i of c_i (1 - (nu/mu) x + (nu/mu) x h^{1/x}) + lambda x.

    >>> sp.simplify(lagrangian_stationarity() - (-(c*nu/mu)*(1 - h**(1/x) + sp.log(h)/x*h**(1/x)) + lam))
    0
    """
    return sp.diff(lower_bound_objective_term() + lam * x, x)


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
def common_level() -> sp.Expr:
    """(8) with c_i = c0 mu_i reads c0 nu (1 - y + y ln y) = lambda for every
    page: the left side no longer depends on i and is strictly decreasing in y
    on (0, 1) (:func:`stationarity_in_y`), so every y_i = h_i^{1/x_i} equals
    one value y*.  Returns 1 - y + y ln y after checking that c = c0 mu
    removes the page (raises otherwise).

    >>> common_level()
    y*log(y) - y + 1
    """
    y = sp.Symbol("y", positive=True)
    bracket = stationarity_in_y()
    with_c0 = sp.simplify((lagrangian_stationarity() - lam).subs(c, c0 * mu) / (-c0 * nu))
    require_zero(with_c0.subs(sp.log(h), x * sp.log(y)).subs(h ** (1 / x), y) - bracket, "(8) with c = c0 mu")
    if sp.diff(bracket, y) != sp.log(y):
        raise DerivationError(f"d/dy of {bracket} is not ln y")
    return bracket


@functools.cache
def frequency_at_level() -> sp.Expr:
    """x solving h^{1/x} = y* for x (``solve``), in terms of ``ln_y`` = ln y*.

    >>> frequency_at_level()
    log(h)/ln_y
    """
    ystar = sp.Symbol("ystar", positive=True)
    root = only_root(sp.solve(sp.Eq(h ** (1 / x), ystar), x), "h^(1/x) = y* for x")
    return root.subs(sp.log(ystar), ln_y)


@functools.cache
def common_level_from_constraint() -> sp.Expr:
    """(9) sum_i x_i = 1 with x_i = ln h_i / ln y*, solved for ln y*:
    ln y* = sum_i ln h_i, returned as the Sum over pages i = 1..n.

    >>> common_level_from_constraint()
    Sum(log(h[k]), (k, 1, n))
    """
    total = factor_sum(sp.Sum(frequency_at_level().subs(h, h_[k]), (k, 1, n)))
    return only_root(sp.solve(sp.Eq(total, 1), ln_y), "sum x_i = 1 for ln y*")


@functools.cache
def optimal_frequencies_proportional() -> sp.Expr:
    """(10): x_i = ln h_i / sum_j ln h_j, from :func:`frequency_at_level` with
    ln y* from :func:`common_level_from_constraint`; returned in terms of
    ``h`` and ``S`` = sum_j ln h_j.

    >>> optimal_frequencies_proportional()
    log(h)/S
    """
    common_level()
    level = common_level_from_constraint()
    return frequency_at_level().subs(ln_y, level).subs(level, S)


@functools.cache
def cstar_at_optimum() -> sp.Expr:
    """Theorem 3.4 (6): the objective (7) with c_i = c0 mu_i summed over the
    n pages at x_i of (10): each h_i^{1/x_i} becomes e^{sum ln h} = prod h
    (SymPy writes it as a Product), sum_i mu_i = mu and sum_i x_i = 1.

    >>> cstar_at_optimum()
    c0*(mu + nu*Product(h[k], (k, 1, n)) - nu)
    """
    level = common_level_from_constraint()
    term = lower_bound_objective_term().subs({c: c0 * mu, h: h_[k], mu: mu_[k]}).subs(x, frequency_at_level().subs({h: h_[k], ln_y: level}))
    term = sp.expand(sp.powsimp(sp.expand_log(sp.expand(term), force=True), force=True))
    total = sum((factor_sum(sp.Sum(a, (k, 1, n))) for a in sp.Add.make_args(term)), sp.Integer(0))
    return sp.simplify(total.subs(sp.Sum(mu_[k], (k, 1, n)), mu))


@functools.cache
def cstar_lower_bound() -> sp.Expr:
    """C* of Theorem 3.4 (6) with ``P`` = prod_i h_i: :func:`cstar_at_optimum`
    with the Product named.

    >>> cstar_lower_bound()
    c0*(P*nu + mu - nu)
    """
    return cstar_at_optimum().subs(sp.Product(h_[k], (k, 1, n)), P)


@functools.cache
def lower_bound_multiplier() -> sp.Expr:
    """lambda of (8) at the optimum of (10) with c_i = c0 mu_i: y* = e^S in
    c0 nu (1 - y + y ln y).

    >>> lower_bound_multiplier()
    c0*nu*(S*exp(S) - exp(S) + 1)
    """
    y = sp.Symbol("y", positive=True)
    return sp.factor_terms(sp.expand(c0 * nu * common_level().subs(y, sp.exp(S))))


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
    """(13): d/dx of the objective term (12) plus lambda x.

    >>> sp.simplify(randomized_stationarity().subs(x, 0) - lam + c*nu/mu)
    0
    """
    return sp.diff(randomized_objective_term() + lam * x, x)


@functools.cache
def stationarity_at_zero() -> sp.Expr:
    r"""(8) as :math:`x \to 0^+` (``sp.limit``, with :math:`h = e^{-a}`, a > 0,
    since h = E[e^{-\mu X}] < 1): :math:`h^{1/x}` and :math:`\ln h\,h^{1/x}/x`
    vanish.  (13) at x = 0 (``subs``) has the same value, which is checked
    (raises otherwise): both relaxations share the dual-feasibility condition
    at a page left out.

    >>> stationarity_at_zero()
    -c*nu/mu + lambda
    """
    a = sp.Symbol("a", positive=True)
    lower = sp.limit(lagrangian_stationarity().subs(h, sp.exp(-a)), x, 0, "+")
    require_zero(lower - randomized_stationarity().subs(x, 0), "(8) as x -> 0+ versus (13) at x = 0")
    return sp.expand(lower)


@functools.cache
def page_threshold_multiplier() -> sp.Expr:
    r"""The multiplier at which a page leaves the optimum: :func:`stationarity_at_zero`
    = 0 solved for lambda, :math:`c\nu/\mu`; for larger lambda x_i = 0 (8) and (13).

    >>> page_threshold_multiplier()
    c*nu/mu
    """
    return only_root(sp.solve(stationarity_at_zero(), lam), "(8) at x = 0+ for lambda")


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


def _admissible(root) -> bool:
    """1 - h + h x > 0 (Lemma 4.1's denominator) for every h in (0, 1),
    decided by SymPy with h = 1/(1 + g), g > 0, and sqrt(nu c/(lambda mu)) > 1
    (the regime where (15) is positive)."""
    gg, sigma = sp.symbols("gg sigma", positive=True)
    value = sp.simplify((1 - h + h * root).subs(sp.sqrt(c) * sp.sqrt(nu), sigma * sp.sqrt(lam) * sp.sqrt(mu)).subs(h, 1 / (1 + gg)))
    if value.is_positive is None and value.is_negative is None:
        raise DerivationError(f"cannot decide the sign of 1 - h + h x = {value} at the root {root}")
    return bool(value.is_positive)


@functools.cache
def randomized_frequency_general() -> sp.Expr:
    """(15): solving (13) = 0 for x (``solve``; of its two roots the one with
    1 - h + h x > 0): x = (sqrt(nu c/(lambda mu)) - 1)(1 - h)/h.

    >>> sp.simplify(randomized_frequency_general() - (sp.sqrt(nu*c/(lam*mu)) - 1)*(1 - h)/h)
    0
    """
    roots = [r for r in sp.solve(sp.Eq(randomized_stationarity(), 0), x) if _admissible(r)]
    return sp.simplify(only_root(roots, "(13) = 0 with 1 - h + h x > 0"))


@functools.cache
def randomized_frequency_proportional() -> sp.Expr:
    """(16): with c_i = c0 mu_i, (15) is x_i = (sigma - 1) g_i, g_i = 1/h_i - 1,
    sigma = sqrt(nu c0/lambda) common to all pages; sum_i x_i = 1 (over pages
    i = 1..n, G = sum g_i) gives sigma - 1 = 1/G, so x_i = g_i/G.  Returned in
    ``h`` and ``G``.

    >>> randomized_frequency_proportional()
    (1 - h)/(G*h)
    """
    sigma = sp.Symbol("sigma", positive=True)
    x15 = randomized_frequency_general().subs(c, c0 * mu)
    per_page = sp.simplify(x15.subs(sp.sqrt(c0 * nu / lam), sigma).subs(sp.sqrt(c0) * sp.sqrt(nu), sigma * sp.sqrt(lam)))
    if per_page.has(mu) or per_page.has(lam):
        raise DerivationError(f"(15) with c = c0 mu still depends on the page beyond h: {per_page}")
    g_of_h = 1 / h - 1
    ratio = sp.simplify(per_page / g_of_h)  # sigma - 1
    total = factor_sum(sp.Sum(ratio * g_[k], (k, 1, n)))
    sig = only_root(sp.solve(sp.Eq(total.subs(sp.Sum(g_[k], (k, 1, n)), G), 1), sigma), "sum x_i = 1 for sigma")
    return sp.simplify(per_page.subs(sigma, sig))


@functools.cache
def randomized_multiplier() -> sp.Expr:
    """lambda of (13) at (16): sigma = sqrt(nu c0/lambda) = (1 + G)/G solved for lambda.

    >>> randomized_multiplier()
    G**2*c0*nu/(G + 1)**2
    """
    sigma = sp.simplify(randomized_frequency_proportional() / (1 / h - 1) + 1)
    return only_root(sp.solve(sp.Eq(sp.sqrt(nu * c0 / lam), sigma), lam), "sigma = sqrt(nu c0/lambda)")


@functools.cache
def randomized_sqrt_lambda(n: int = 3) -> tuple[sp.Expr, sp.Expr]:
    """sqrt(lambda) from (15) and sum x_i = 1 for ``n`` pages with general c_i,
    next to the printed sqrt(nu) sum sqrt(c_i/mu_i)(1/h_i - 1) / (1 + sum (1/h_i - 1)).

    >>> derived, printed = randomized_sqrt_lambda(2)
    >>> sp.simplify(derived - printed)
    0
    """
    hs = sp.symbols(f"h1:{n + 1}", positive=True)
    cs = sp.symbols(f"c1:{n + 1}", positive=True)
    ms = sp.symbols(f"mu1:{n + 1}", positive=True)
    r = sp.Symbol("r", positive=True)  # r = sqrt(lambda)
    xs = [(sp.sqrt(nu * cs[i] / ms[i]) / r - 1) * (1 - hs[i]) / hs[i] for i in range(n)]
    sol = sp.solve(sp.Eq(sum(xs), 1), r)
    g = [1 / v - 1 for v in hs]
    printed = sp.sqrt(nu) * sum(sp.sqrt(cs[i] / ms[i]) * g[i] for i in range(n)) / (1 + sum(g))
    return sol[0], printed


@functools.cache
def randomized_cstar() -> sp.Expr:
    """(11): the objective (12) with c_i = c0 mu_i at (16), summed over pages
    i = 1..n with h_i = 1/(1 + g_i) (rational in g_i), sum mu_i = mu and
    sum g_i = G: C* = c0 (mu - nu G/(1 + G)).

    >>> sp.simplify(randomized_cstar() - c0*(mu - nu*G/(1 + G)))
    0
    """
    xi = randomized_frequency_proportional().subs(h, 1 / (1 + g_[k]))
    term = randomized_objective_term().subs({c: c0 * mu}).subs({h: 1 / (1 + g_[k]), mu: mu_[k]}).subs(x, xi)
    term = sp.expand(sp.cancel(sp.together(term)))
    total = sum((factor_sum(sp.Sum(a, (k, 1, n))) for a in sp.Add.make_args(term)), sp.Integer(0))
    total = total.subs({sp.Sum(mu_[k], (k, 1, n)): mu, sp.Sum(g_[k], (k, 1, n)): G})
    if total.has(sp.Sum):
        raise DerivationError(f"(11): sums left after summing the optimum over pages: {total}")
    return sp.factor(sp.simplify(total))


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


def cstar_limit_stable(psi2_stable) -> sp.Expr:
    """(17) for floating point, with r = mu/nu: c0 nu r^2 psi_2(r) through psi_2's Taylor polynomial below r = 1/2
    (``psi2_stable``: :func:`crawlmath.derive.golden.psi2_stable`, passed in because golden imports this module),
    c0 nu (r + expm1(-r)) above.  The upper branch forms no mu^2 or nu^2, which under- or overflow where the value
    does not (the earlier form c0 mu^2 (nu^2 (r + expm1(-r))/mu^2)/nu returned 0 at (1, 1e-4, 1e-300), true 1e-4);
    the Taylor branch (r < 1/2) still prints the powers mu^k/nu^k (k <= 16).

    >>> from crawlmath.derive.golden import psi2_stable
    >>> cstar_limit_stable(psi2_stable).args[2].args[1]
    (mu/nu + expm1(-mu/nu), True)
    """
    r = mu / nu
    (series, below), _ = psi2_stable(r).args
    return c0 * nu * sp.Piecewise((r**2 * series, below), (r + expm1(-r), True))


def model_h(mean_access) -> tuple[sp.core.relational.Relational, ...]:
    """The values h = E[e^{-mu X}] can take for an access time X >= 0 of mean ``mean_access`` = E[X] > 0 (§2):
    h < 1 (X is not 0 almost surely) and, by Jensen's inequality (e^{-mu x} is convex), h >= e^{-mu E[X]}, with
    equality for a deterministic X.  Below that edge Lemma 3.1's E[Z] is negative (e.g. -6.2e-16 at d = 52.7,
    m = 0.155, mu = 0.122, h = 0.521): the formulas have no model there.

    >>> model_h(m)
    (h < 1, h >= exp(-m*mu))
    """
    return (sp.Lt(h, 1), sp.Ge(h, sp.exp(-mu * mean_access)))


def formulas() -> list[Formula]:
    """The closed forms emitted to ``numeric/generated/scheduling.py``.

    >>> [f.name for f in formulas()][:3]
    ['expected_obsolescence', 'rate_lower_bound', 'randomized_rate']
    """
    from .golden import psi2_stable  # (e^-x - 1 + x)/x^2 with its series below x0; golden imports this module

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
        Formula("optimal_frequency", (h, ln_y), frequency_at_level(), f"{SRC}, Thm 3.4, (10))",
                "x_i = ln h_i / ln y*: the frequency with h_i^(1/x_i) = y*; ln y* = sum_j ln h_j at the optimum",
                printed=sp.log(h) / ln_y, domain={**h_dom, "ln_y": (-50.0, -1e-3)}),
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
                printed=c0 * (mu - nu + nu * sp.exp(-mu / nu)), stable=cstar_limit_stable(psi2_stable), settle_mp=True,
                domain={"c0": (1e-2, 10.0), "mu": (1e-10, 50.0), "nu": (1e-300, 1e6)}),
    ]
