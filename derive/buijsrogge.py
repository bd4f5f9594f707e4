r"""Derivations for the BUbiNG workbench game without offline structure
(Buijsrogge 2014, Chapters 3–4).

Notation of the thesis: ``K`` positions in the online structure (workbench),
``C`` colours (hosts), ``p_i`` the probability that the source (sieve) draws
colour ``i``; ``N(i, t)`` is the number of colours with ``i`` balls online,
``S = \sum_{j\ge1} N(j, t)`` the number of colours online, ``nu(i)`` the
mean-field value of ``N(i)`` and ``P_new`` the probability that the next
drawn ball has a colour absent from the online structure.

>>> import sympy as sp
>>> K, C = sp.symbols("K C", positive=True)
>>> mean_field_colours(K, C)
C*K/(C + K - 1)
>>> sp.simplify(mean_field_p_new(K, C) - (C - 1)/(K + C - 1))
0
"""
from __future__ import annotations

import functools

import sympy as sp
from sympy.codegen.cfunctions import log1p
from sympy.codegen.rewriting import expm1_opt, optimize

from . import DerivationError, only_root, require_zero
from .formula import Formula

K, C, S, i, a, lam, x = sp.symbols("K C S i a lambda x", positive=True)
CITE = "(Buijsrogge 2014, {})"


def expected_colours_at_K(p: list, K_):
    r"""Lemma 3.2.1, eq. (3.1): :math:`E[\sum_j N(j,K)] = C - \sum_i (1-p_i)^K`.

    >>> expected_colours_at_K([sp.Rational(1, 2)] * 2, 2)
    3/2
    """
    return len(p) - sum((1 - pi) ** K_ for pi in p)


def expected_colours_uniform(K_=K, C_=C):
    r"""Corollary 3.2.1: (3.1) with :math:`p_i = 1/C`, summed over the C
    colours by SymPy: :math:`C(1 - (1 - 1/C)^K)`.

    >>> expected_colours_uniform(2, 2)
    3/2
    >>> expected_colours_uniform()
    C*(1 - (1 - 1/C)**K)
    """
    colour = sp.Symbol("colour", integer=True, positive=True)
    per_colour = colour_drawn_probability().subs(pcol, 1 / C)
    return sp.summation(per_colour, (colour, 1, C)).subs({K: K_, C: C_}, simultaneous=True)


pcol = sp.Symbol("p", positive=True)  # the probability p_i of one colour


def colour_drawn_probability():
    r"""Lemma 3.2.1 for one colour: P(drawn at least once in K independent
    draws) = 1 - :math:`\prod_{t=1}^K (1-p)` = :math:`1-(1-p)^K`; summed
    over the colours it is (3.1).

    >>> colour_drawn_probability()
    1 - (1 - p)**K
    """
    draw = sp.Symbol("t", integer=True, positive=True)
    return 1 - sp.product(1 - pcol, (draw, 1, K))


def colour_drawn_probability_stable():
    r""":func:`colour_drawn_probability` with :math:`(1-p)^K = e^{K\,\mathrm{log1p}(-p)}`
    and SymPy's ``expm1_opt``: no cancellation for small p.

    >>> colour_drawn_probability_stable()
    -expm1(K*log1p(-p))
    """
    expr = colour_drawn_probability()
    expr = expr.replace(lambda e: e.is_Pow and e.exp == K, lambda e: sp.exp(K * log1p(sp.expand(e.base - 1))))
    return optimize(expr, [expm1_opt])


def expected_colours_uniform_stable():
    r"""Corollary 3.2.1 for floating point: :math:`(1+a)^K = e^{K\,\mathrm{log1p}(a)}`
    with :math:`a = -1/C`, then SymPy's ``expm1_opt``: no cancellation for C >> K.

    >>> expected_colours_uniform_stable()
    -C*expm1(K*log1p(-1/C))
    """
    expr = expected_colours_uniform()
    expr = expr.replace(lambda e: e.is_Pow and e.exp == K, lambda e: sp.exp(K * log1p(sp.expand(e.base - 1))))
    return optimize(sp.expand(expr), [expm1_opt])


def expansion_C_equals_K(order: int = 2):
    r"""Eq. (3.2): :math:`K(1-(1-1/K)^K)` for large K, as a series in 1/K
    (``order`` terms after the leading K): ``K(1-1/e) + 1/(2e) + 5/(24eK) + ...``.

    >>> e = expansion_C_equals_K(2)
    >>> sp.simplify(e - (K*(1 - sp.exp(-1)) + sp.exp(-1)/2 + 5*sp.exp(-1)/(24*K)))
    0
    """
    u = sp.Symbol("u", positive=True)  # u = 1/K
    expr = (1 - (1 - u) ** (1 / u)) / u
    ser = sp.series(expr, u, 0, order).removeO()
    return sp.expand(sp.simplify(ser.subs(u, 1 / K)))


def lagrangian_gradient(K_=K):
    r"""Theorem 3.2.1: :math:`\partial/\partial p_i` of the objective
    :math:`C - \sum (1-p_i)^K`, i.e. :math:`K(1-p_i)^{K-1}` (the thesis prints
    the factor ``K-1``).

    >>> lagrangian_gradient(3)[0]
    3*(1 - p_i)**2
    """
    p = sp.Symbol("p_i", positive=True)
    return sp.diff(-(1 - p) ** K_, p), p


def exact_drift(n: dict, K_: int, C_, S_=None):
    r"""Exact one-step drift :math:`E[N(i,t+1) - N(i,t) | N(t) = n]` of the
    closed chain with uniform colours (Section 4.1 dynamics), for an
    occupancy vector ``n = {i: N(i)}`` (``i = 1..K``; ``N(0) = C - S``).

    Removal: a present colour chosen uniformly (a colour of length ``i`` with
    probability ``N(i)/S``); then a ball of a uniform colour is added.
    Returns ``{i: drift}`` for ``i = 0..K`` as SymPy expressions.

    >>> exact_drift({1: 2}, 2, sp.Integer(3))
    {0: 1/3, 1: -2/3, 2: 1/3}
    """
    S_ = sp.Integer(sum(n.get(j, 0) for j in range(1, K_ + 1))) if S_ is None else S_
    N = {j: sp.Integer(n.get(j, 0)) for j in range(1, K_ + 2)}
    N[0] = C_ - S_
    out = {}
    for k in range(0, K_ + 1):
        # after the removal: E[N'(k)] = N(k) - [k>=1] N(k)/S + N(k+1)/S
        def after(m):
            return N[m] - (N[m] / S_ if m >= 1 else 0) + N[m + 1] / S_
        removal = (-N[k] / S_ if k >= 1 else 0) + N[k + 1] / S_
        addition = (after(k - 1) / C_ if k >= 1 else 0) - after(k) / C_
        out[k] = sp.simplify(removal + addition)
    return out


def printed_drift_4_1(n: dict, K_: int, C_, S_=None):
    r"""The right-hand sides of (4.1) minus :math:`E[N(i,t)]`, evaluated at a
    deterministic state ``n`` (so every expectation is a plain value).

    >>> printed_drift_4_1({1: 2}, 2, sp.Integer(3)) == exact_drift({1: 2}, 2, sp.Integer(3))
    True
    """
    S_ = sp.Integer(sum(n.get(j, 0) for j in range(1, K_ + 1))) if S_ is None else S_
    N = {j: sp.Integer(n.get(j, 0)) for j in range(1, K_ + 2)}
    N[0] = C_ - S_
    f = {j: N[j] / S_ for j in N}
    out = {0: f[1] + S_ / C_ - f[1] / C_ - 1,
           1: 2 * f[1] / C_ - f[1] - N[1] / C_ + f[2] - f[2] / C_ + 1 - S_ / C_}
    for k in range(2, K_):
        out[k] = 2 * f[k] / C_ - f[k] - N[k] / C_ + f[k + 1] - f[k + 1] / C_ + N[k - 1] / C_ - f[k - 1] / C_
    out[K_] = f[K_] / C_ - f[K_] + N[K_ - 1] / C_ - f[K_ - 1] / C_
    return {k: sp.simplify(v) for k, v in out.items()}


def nu_printed(i_=i, S_=S, C_=C):
    r"""The printed solution of (4.2)–(4.4) (reference only):
    :math:`\nu(i) = (C-S)\,\frac{S}{C-1}\left(\frac{S-1}{C-1}\right)^{i-1}`.

    >>> nu_printed(1)
    S*(C - S)/(C - 1)
    """
    return (C_ - S_) * S_ / (C_ - 1) * ((S_ - 1) / (C_ - 1)) ** (i_ - 1)


def mean_field_equations():
    r"""Stationary mean-field equations: the thesis's (4.1) with ``N(i)``
    replaced by ``nu(i)`` and E[N(i, t+1)] = E[N(i, t)] (§4.2): returns
    (eq0, eq1, eq_i, eq_K) as expressions equal to 0, in terms of
    ``nu(i-1), nu(i), nu(i+1)`` (symbols ``n0, n1, n2``) and S.  (The i = 0..K-1
    lines equal the exact drift of the chain, :func:`exact_drift`.)

    >>> mean_field_equations()[0][0]
    -1 + n1/S + S/C - n1/(C*S)
    """
    n0, n1, n2 = sp.symbols("n0 n1 n2")
    eq0 = n1 / S + S / C - n1 / (S * C) - 1
    eq1 = 2 * n1 / (C * S) - n1 / S - n1 / C + n2 / S - n2 / (C * S) + 1 - S / C
    eqi = 2 * n1 / (C * S) - n1 / S - n1 / C + n2 / S - n2 / (C * S) + n0 / C - n0 / (C * S)
    eqK = n1 / (C * S) - n1 / S + n0 / C - n0 / (C * S)
    return (eq0, eq1, eqi, eqK), (n0, n1, n2)


@functools.cache
def mean_field_nu_of_S():
    r"""Solve the mean-field equations for :math:`\nu(i)`, i >= 1, given S:
    (4.2) is eq0 solved for :math:`\nu(1)` (with :math:`\nu(0) = C - S`),
    (4.3) eq1 solved for :math:`\nu(2)`, and the interior equations are a
    second-order linear recurrence, solved by ``rsolve`` from these two
    values; the K-line must hold on the solution (raises otherwise).

    >>> sp.factor(mean_field_nu_of_S())
    S*((S - 1)/(C - 1))**(i - 1)*(C - S)/(C - 1)
    """
    (eq0, eq1, eqi, eqK), (n0, n1, n2) = mean_field_equations()
    nu1 = only_root(sp.solve(eq0, n1), "(4.2): eq0 for nu(1)")
    nu2 = only_root(sp.solve(eq1.subs(n1, nu1), n2), "(4.3): eq1 for nu(2)")
    v = sp.Function("v")
    m = sp.Symbol("m", integer=True, nonnegative=True)
    recurrence = sp.numer(sp.together(eqi.subs({n0: v(m), n1: v(m + 1), n2: v(m + 2)})))
    # rsolve's initial values at m = 0, 1 stand for nu(1), nu(2).
    sol = sp.rsolve(recurrence, v(m), {v(0): nu1, v(1): nu2})
    if sol is None:
        raise DerivationError("rsolve found no solution of the interior mean-field recurrence")
    nu_i = sp.simplify(sp.powsimp(sp.expand_power_exp(sol.subs(m, i - 1)), force=True))
    # Divided by nu(K-1) != 0 the K-line is free of the symbolic power.
    k_line = sp.powsimp(sp.expand(eqK.subs({n0: nu_i.subs(i, K - 1), n1: nu_i.subs(i, K)}) / nu_i.subs(i, K - 1)), force=True)
    require_zero(k_line, "the K-line of (4.1) on the solution")
    return nu_i


@functools.cache
def normalisation_S():
    r"""Theorem 4.2.1: solve :math:`\sum_{i\ge1} i\,\nu(i) = K` for S, the
    sum evaluated by ``summation`` over i >= 1 (the thesis's infinite-sum
    approximation, convergent since :math:`|S-1| < C-1`); the root is
    :math:`KC/(K+C-1)`.  Returns the list of roots (one).

    >>> normalisation_S()
    [C*K/(C + K - 1)]
    """
    nu_i = mean_field_nu_of_S()
    first, ratio = nu_i.subs(i, 1), sp.simplify(nu_i.subs(i, i + 1) / nu_i)
    if ratio.has(i):
        raise DerivationError(f"nu(i) is not geometric in i: ratio {ratio}")
    xr = sp.Symbol("x", positive=True)  # the ratio (S-1)/(C-1), in (0, 1)
    series = sp.piecewise_fold(sp.summation(i * xr ** (i - 1), (i, 1, sp.oo)))
    if isinstance(series, sp.Piecewise):
        series = series.args[0][0]  # the branch |x| < 1
    if series.has(sp.Sum):
        raise DerivationError(f"the normalisation sum was not evaluated: {series}")
    total = first * series.subs(xr, ratio)
    return [sp.factor(root) for root in sp.solve(sp.Eq(total, K), S)]


def mean_field_colours(K_=K, C_=C):
    r"""Theorem 4.2.1: :math:`E[\sum_j N(j)] \approx KC/(K+C-1)`, the root of
    :func:`normalisation_S`.

    >>> mean_field_colours(100, 1000)
    100000/1099
    """
    root = only_root(normalisation_S(), "Theorem 4.2.1 normalisation")
    return root.subs({K: K_, C: C_}, simultaneous=True)


def mean_field_p_new(K_=K, C_=C):
    r"""Theorem 4.2.1: :math:`P_{new} = (C - S)/C` (the thesis's definition)
    at the mean-field S: :math:`(C-1)/(K+C-1)`.

    >>> sp.factor(mean_field_p_new())
    (C - 1)/(C + K - 1)
    """
    return sp.factor((C - mean_field_colours()) / C).subs({K: K_, C: C_}, simultaneous=True)


def mean_field_nu(i_=i, K_=K, C_=C):
    r"""Corollary 4.2.1: :math:`\nu(i)` of :func:`mean_field_nu_of_S` at the
    mean-field S, :math:`KC^2(K-1)^{i-1}/(K+C-1)^{i+1}`.

    >>> mean_field_nu(1, 3, 3)
    27/25
    """
    nu = sp.factor(mean_field_nu_of_S().subs(S, mean_field_colours()))
    # ((K-1)/(K+C-1))^(i-1) split into numerator and denominator powers (both bases >= 0 for K >= 1).
    nu = nu.replace(lambda e: e.is_Pow and e.exp.has(i),
                    lambda e: sp.numer(sp.factor(e.base)) ** e.exp / sp.denom(sp.factor(e.base)) ** e.exp)
    nu = sp.powsimp(nu, force=True)
    return nu.subs({i: i_, K: K_, C: C_}, simultaneous=True)


def nu_C_equals_K_expansion(i_: int):
    r"""Corollary 4.2.4, computed: :math:`\nu(i)` at C = K expanded in 1/K up
    to O(1/K): ``K/2^{i+1} + (3-i)/2^{i+2}`` (the thesis prints
    ``(K+1)/2^{i+1}``, right only at i = 1).

    >>> nu_C_equals_K_expansion(2)
    K/8 + 1/16
    """
    u = sp.Symbol("u", positive=True)
    expr = mean_field_nu(i_, 1 / u, 1 / u)
    ser = sp.series(expr, u, 0, 1).removeO()
    return sp.expand(ser.subs(u, 1 / K))


def super_colour_load(p_star, S_=S):
    r"""§4.2.3/§4.3.2 as a formula: a colour drawn with probability ``p*`` is
    added at rate ``p*`` and, while present, removed at rate ``1/S``; its load
    :math:`\rho = p^* S` and it dominates the workbench when :math:`\rho > 1`
    (the thesis: :math:`p^* > E[1/\sum_j N(j)]`).

    >>> super_colour_load(sp.Rational(1, 10), 5)
    1/2
    """
    return p_star * S_


def mean_field_nu_stable():
    r""":func:`mean_field_nu` for floating point: the powers with exponent
    :math:`i\pm1` are taken as one exponential of a sum of logarithms
    (``powsimp``), so large i neither overflows nor gives inf/inf.

    >>> mean_field_nu_stable()
    C**2*K*exp((-i - 1)*log(C + K - 1) + (i - 1)*log(K - 1))
    """
    nu = mean_field_nu()
    as_exp = nu.replace(lambda e: e.is_Pow and e.exp.has(i), lambda e: sp.exp(e.exp * sp.log(e.base)))
    return sp.powsimp(as_exp, combine="exp")


def occupancy_count(s_, K_, C_):
    r"""Number of occupancy vectors q (K balls, C colours) with exactly s
    colours present: choose the s colours, then a composition of K into s
    positive parts, :math:`\binom{C}{s}\binom{K-1}{s-1}` (stars and bars).

    >>> occupancy_count(2, 3, 3)
    6
    """
    return sp.binomial(C_, s_) * sp.binomial(K_ - 1, s_ - 1)


@functools.cache
def product_form_moments():
    r"""For uniform p the product form :math:`\pi(q) \propto NNZ(q)\prod_i
    p_i^{q_i}` (:func:`product_form_balance`) is :math:`\propto S(q)`, so
    :math:`E_\pi[S] = \sum_s s^2 a_s / \sum_s s\, a_s` with
    :math:`a_s` = :func:`occupancy_count`; both sums by ``summation``
    (hypergeometric, Vandermonde).  Returns (sum s a_s, sum s^2 a_s) for
    integer K + C > 2.

    >>> product_form_moments()[0]
    C*binomial(C + K - 2, K - 1)
    """
    Ki, Ci = sp.symbols("K C", integer=True, positive=True)
    s_ = sp.Symbol("s", integer=True, positive=True)
    sums = []
    for power in (1, 2):
        total = sp.summation(s_**power * occupancy_count(s_, Ki, Ci), (s_, 1, sp.oo))
        if isinstance(total, sp.Piecewise):
            total = total.args[0][0]  # the branch K + C > power
        if total.has(sp.Sum):
            raise DerivationError(f"sum of s^{power} a_s not evaluated: {total}")
        sums.append(sp.simplify(sp.hyperexpand(total)).subs({Ki: K, Ci: C}))
    return tuple(sums)


def exact_colours_uniform(K_=K, C_=C):
    r"""Exact stationary :math:`E[\sum_j N(j)]` for uniform colours (new; not in
    the thesis): :math:`(KC-1)/(K+C-2) = 1 + (K-1)(C-1)/(K+C-2)`, the ratio
    of :func:`product_form_moments` simplified by ``combsimp``.  (A second
    route: :func:`bose_einstein_moments`.)

    >>> exact_colours_uniform(4, 4)
    5/2
    >>> exact_colours_uniform()
    (C*K - 1)/(C + K - 2)
    """
    first, second = product_form_moments()
    ratio = sp.factor(sp.combsimp(second / first))
    return ratio.subs({K: K_, C: C_}, simultaneous=True)


def exact_p_new_uniform(K_=K, C_=C):
    r"""Exact stationary :math:`P_{new} = 1 - E[S]/C = (C-1)^2/(C(K+C-2))`.

    >>> exact_p_new_uniform()
    (C - 1)**2/(C*(C + K - 2))
    """
    return sp.factor(1 - exact_colours_uniform() / C).subs({K: K_, C: C_}, simultaneous=True)


def compositions_count(n_, m_):
    r"""Number of :math:`q \in \mathbb{N}^m` with :math:`\sum q = n` (stars and
    bars), :math:`\binom{n+m-1}{m-1}`, for n >= 0, m >= 1.

    >>> compositions_count(3, 3) == len(list(_compositions(3, 3)))
    True
    """
    return sp.binomial(n_ + m_ - 1, m_ - 1)


def nu_uniform_weighted_sums():
    r"""For uniform p the product form is :math:`\pi(q) \propto S(q)`
    (:func:`product_form_moments`), so :math:`E_\pi[N(i)] = \sum_q S(q)N(i;q) /
    \sum_q S(q)`.  With :math:`N(i) = \sum_a 1(q_a = i)`,
    :math:`S = \sum_b 1(q_b \ge 1)` and symmetry over colours,

    :math:`\sum_q S\,N(i) = C\,1(i\ge1)\,\#\{q_1 = i\} + C(C-1)\,\#\{q_1 = i, q_2 \ge 1\}`,

    where :math:`\#\{q_1 = i\}` = compositions of K - i into C - 1 parts and
    :math:`\#\{q_1 = i, q_2\ge1\}` (shift :math:`q_2 \to q_2 - 1`) those of
    K - i - 1 (none when i = K).  Returns the numerators for (i = 0,
    1 <= i < K, i = K) and the normaliser :math:`\sum_q S(q)` of
    :func:`product_form_moments`.

    >>> nu_uniform_weighted_sums()[0][1]
    C*(C - 1)*binomial(C + K - i - 3, C - 2) + C*binomial(C + K - i - 2, C - 2)
    """
    occupied = C * compositions_count(K - i, C - 1)
    other = C * (C - 1) * compositions_count(K - i - 1, C - 1)
    numerators = (other.subs(i, 0), occupied + other, occupied.subs(i, K))
    return numerators, product_form_moments()[0]


@functools.cache
def exact_nu_uniform():
    r"""Exact stationary :math:`E[N(i)]` for uniform colours (new; the thesis
    has only the mean-field Corollary 4.2.1), the ratios of
    :func:`nu_uniform_weighted_sums` simplified by ``combsimp``: returns the
    three branches (i = 0, 1 <= i < K, i = K), for C >= 2.

    >>> nu0, nui, nuK = exact_nu_uniform()
    >>> nu0
    (C - 1)**2/(C + K - 2)
    >>> nui
    -(C - 1)*(-C*K + C*i - C + 2)*gamma(K)*gamma(C + K - i - 2)/(gamma(C + K - 1)*gamma(K - i + 1))
    >>> nuK
    gamma(C)*gamma(K)/gamma(C + K - 1)
    >>> [nui.subs({K: 3, C: 3, i: j}) for j in (1, 2)], nuK.subs({K: 3, C: 3})
    ([7/6, 2/3], 1/6)
    """
    numerators, normaliser = nu_uniform_weighted_sums()
    return tuple(sp.factor(sp.combsimp(num / normaliser)) for num in numerators)


def exact_nu_uniform_enumerated(K_: int, C_: int) -> list:
    r""":math:`E_\pi[N(i)]`, i = 0..K, by enumerating the occupancy vectors
    with weight :math:`\pi(q) \propto NNZ(q)\prod_i (1/C)^{q_i}` (the product
    form itself, no symmetry argument): the independent route.

    >>> exact_nu_uniform_enumerated(3, 3)
    [1, 7/6, 2/3, 1/6]
    """
    weights = {q: sum(1 for v in q if v) * sp.Rational(1, C_) ** K_ for q in _compositions(K_, C_)}
    Z = sum(weights.values())
    return [sum(w * sum(1 for v in q if v == j) for q, w in weights.items()) / Z for j in range(K_ + 1)]


def nu_uniform_rational(i_: int, K_: int, C_: int, comb=None) -> tuple:
    """Exact E[N(i)] for uniform colours (K balls, C >= 2 colours, 0 <= i <= K)
    as ``(numerator, denominator)`` integers: sum_q S N(i) over sum_q S for
    the product form pi(q) ~ S(q), each count of occupancy vectors a binomial
    ``comb(n + m - 1, m - 1)`` (compositions of n into m parts):

    numerator = C [i >= 1] comb(K-i+C-2, C-2) + C(C-1) [i < K] comb(K-i+C-3, C-2),
    denominator = C comb(K+C-2, C-1).

    ``comb`` defaults to ``math.comb``; crawlmath.derive.buijsrogge passes
    SymPy's binomial and symbolic i, K, C to prove the rule equal to the
    derived closed form (:func:`nu_uniform_rule_residuals`, a doctest).

    >>> nu_uniform_rational(1, 3, 3)
    (21, 18)
    """
    if comb is None:
        from math import comb
    occupied = 0 if i_ == 0 else C_ * comb(K_ - i_ + C_ - 2, C_ - 2)
    other = 0 if i_ == K_ else C_ * (C_ - 1) * comb(K_ - i_ + C_ - 3, C_ - 2)
    return occupied + other, C_ * comb(K_ + C_ - 2, C_ - 1)


def nu_uniform_rule_residuals() -> list:
    """The emitted rule :func:`nu_uniform_rational`, run on SymPy symbols with
    ``sp.binomial``, minus the derived :func:`exact_nu_uniform`, per branch
    (i = 0, 1 <= i < K, i = K), after ``combsimp``: all 0 when the emitted
    code computes the derived closed form.

    >>> nu_uniform_rule_residuals()
    [0, 0, 0]
    """
    out = []
    for at, derived in zip((0, i, K), exact_nu_uniform()):
        num, den = nu_uniform_rational(at, K, C, comb=sp.binomial)
        out.append(sp.simplify(sp.combsimp(num / den - derived)))
    return out


def generated_sources() -> dict:
    """Rule functions emitted verbatim by ``crawlmath codegen`` (plain Python,
    no SymPy): :func:`nu_uniform_rational` goes to
    ``numeric/generated/buijsrogge_exact.py``, from which
    ``numeric/colours.exact_nu_uniform`` computes exact Fractions.

    >>> [fn.__name__ for fn in generated_sources()["buijsrogge_exact"]["functions"]]
    ['nu_uniform_rational']
    """
    doc = ("Exact E[N(i)] for uniform colours from the product form (Buijsrogge 2014, Sec. 4.1 chain;\n"
           "product form, crawlmath) in integer arithmetic: the rule function of crawlmath.derive.buijsrogge,\n"
           "proved equal there to the closed form SymPy derives (nu_uniform_rule_residuals).")
    return {"buijsrogge_exact": {"doc": doc, "functions": (nu_uniform_rational,)}}


# --- general p: the product form in complete homogeneous symmetric polynomials
#
# h_n(p) = sum over compositions q of n into C parts of prod p_i^{q_i};
# P_k = sum_i p_i^k; e1 = sum_i p_i (= 1 on the simplex).
P2, P3, ratio, e1 = sp.symbols("P2 P3 ratio e1", positive=True)  # ratio = h_{K-2}/h_{K-1}
hK1, hK2 = sp.symbols("h_Km1 h_Km2", positive=True)  # h_{K-1}(p), h_{K-2}(p)


def _compositions(n: int, c: int):
    """All q in N^c with sum n."""
    if c == 1:
        yield (n,)
        return
    for first in range(n, -1, -1):
        for rest in _compositions(n - first, c - 1):
            yield (first,) + rest


def complete_homogeneous(n: int, ps) -> sp.Expr:
    r""":math:`h_n(p) = \sum_{|q| = n} \prod_i p_i^{q_i}` by enumeration.

    >>> complete_homogeneous(2, sp.symbols("a b"))
    a**2 + a*b + b**2
    """
    return sp.Add(*[sp.Mul(*[pp**v for pp, v in zip(ps, q)]) for q in _compositions(n, len(ps))])


def newton_identity_residual(n: int, c: int) -> sp.Expr:
    r"""Newton's identity for complete homogeneous polynomials,
    :math:`n h_n = \sum_{k=1}^n P_k h_{n-k}` (all terms positive: the
    recursion numeric code uses), checked by expansion in c generic
    variables; returns the residual.

    >>> newton_identity_residual(4, 3)
    0
    """
    ps = sp.symbols(f"p1:{c + 1}", positive=True)
    power = lambda k: sp.Add(*[pp**k for pp in ps])  # noqa: E731 - P_k
    rhs = sp.Add(*[power(k) * complete_homogeneous(n - k, ps) for k in range(1, n + 1)])
    return sp.expand(n * complete_homogeneous(n, ps) - rhs)


def product_form_sums():
    r"""The three sums over occupancy vectors q (K balls, C colours) that give
    the product form's moments, :math:`\pi(q) \propto NNZ(q)\,p^q`
    (:func:`product_form_balance`), in :math:`h_n`, :math:`P_k`, :math:`e_1`.

    The one step: for a set A of colours, :math:`\sum_{|q|=K,\ q_a\ge1\,(a\in A)} p^q
    = (\prod_{a\in A} p_a)\, h_{K-|A|}(p)` (shift :math:`q_a \to q_a - 1`).
    With :math:`NNZ(q) = \sum_i 1(q_i\ge1)`:

    - :math:`Z = \sum_q NNZ\,p^q = \sum_i p_i h_{K-1} = e_1 h_{K-1}`;
    - :math:`\sum_q NNZ^2 p^q = \sum_{i,j}` (pairs i = j and i ≠ j)
      :math:`= e_1 h_{K-1} + (e_1^2 - P_2) h_{K-2}`;
    - :math:`\sum_q NNZ \sum_{i: q_i\ge1} p_i\, p^q = P_2 h_{K-1} + (e_1 P_2 - P_3) h_{K-2}`.

    Returns (Z, sum NNZ^2 p^q, sum NNZ (present mass) p^q); checked against
    enumeration by :func:`product_form_sums_residual`.

    >>> product_form_sums()[0]
    e1*h_Km1
    """
    pairs_distinct = e1**2 - P2  # sum_{i != j} p_i p_j
    mass_pairs_distinct = e1 * P2 - P3  # sum_{i != j} p_i^2 p_j
    Z = e1 * hK1
    second = e1 * hK1 + pairs_distinct * hK2
    present = P2 * hK1 + mass_pairs_distinct * hK2
    return Z, second, present


def product_form_sums_residual(K_: int, C_: int) -> list:
    """Expand the three sums of :func:`product_form_sums` by enumerating the
    occupancy vectors of a (K, C) chain with generic p_1..p_C (not on the
    simplex: e1 stays a variable) and return their residuals (all 0 when the
    derivation is right).

    >>> product_form_sums_residual(3, 3)
    [0, 0, 0]
    """
    ps = sp.symbols(f"p1:{C_ + 1}", positive=True)
    values = {e1: sp.Add(*ps), P2: sp.Add(*[pp**2 for pp in ps]), P3: sp.Add(*[pp**3 for pp in ps]),
              hK1: complete_homogeneous(K_ - 1, ps), hK2: complete_homogeneous(K_ - 2, ps)}
    Z = second = present = sp.Integer(0)
    for q in _compositions(K_, C_):
        weight = sp.Mul(*[pp**v for pp, v in zip(ps, q)])
        nnz = sum(1 for v in q if v)
        Z += nnz * weight
        second += nnz**2 * weight
        present += nnz * sp.Add(*[pp for pp, v in zip(ps, q) if v]) * weight
    return [sp.expand(brute - formula.subs(values)) for brute, formula in zip((Z, second, present), product_form_sums())]


def product_form_colours():
    r"""Exact stationary :math:`E[S] = \sum NNZ^2 p^q / Z` for any colour law p
    (new; not in the thesis), from :func:`product_form_sums` on the simplex
    (:math:`e_1 = 1`), in ``ratio`` = :math:`h_{K-2}/h_{K-1}`.

    >>> product_form_colours()
    ratio*(1 - P2) + 1

    Uniform p (P_2 = 1/C, h_n = binom(n+C-1, C-1)/C^n, so the ratio is
    C(K-1)/(K+C-2)) gives :func:`exact_colours_uniform`:

    >>> sp.factor(product_form_colours().subs({P2: 1 / C, ratio: C * (K - 1) / (K + C - 2)}))
    (C*K - 1)/(C + K - 2)
    """
    Z, second, _ = product_form_sums()
    out = sp.expand(sp.cancel((second / Z).subs(e1, 1)).subs(hK2, ratio * hK1))
    return sp.collect(out, ratio, sp.factor)


def product_form_p_new():
    r"""Exact stationary :math:`P_{new} = 1 - E[\sum_{i\ present} p_i]` for any
    colour law p, from :func:`product_form_sums` on the simplex.

    >>> product_form_p_new()
    -P2 + ratio*(-P2 + P3) + 1
    """
    Z, _, present = product_form_sums()
    out = sp.expand(sp.cancel((1 - present / Z).subs(e1, 1)).subs(hK2, ratio * hK1))
    return sp.collect(out, ratio, sp.factor)


def bose_einstein_moments():
    r"""Under the Bose–Einstein law (all :math:`\binom{K+C-1}{K}` occupancy
    vectors equally likely): :math:`E[S] = C\,P(q_1\ge1) = KC/(K+C-1)` and
    :math:`E[S(S-1)] = C(C-1)P(q_1\ge1, q_2\ge1)`; returns
    ``(E[S], E[S(S-1)], E[S^2]/E[S])`` simplified.

    >>> bose_einstein_moments()[2]
    (C*K - 1)/(C + K - 2)
    """
    tot = sp.binomial(K + C - 1, K)
    es = sp.combsimp(C * sp.binomial(K + C - 2, K - 1) / tot)
    ess = sp.combsimp(C * (C - 1) * sp.binomial(K + C - 3, K - 2) / tot)
    return sp.factor(es), sp.factor(ess), sp.factor(sp.simplify((ess + es) / es))


def product_form_balance(K_: int, C_: int):
    r"""Check symbolically (generic :math:`p_1..p_C`) that
    :math:`\pi(q) = NNZ(q)\prod_i p_i^{q_i}` solves the balance equations of
    Section 4.1, :math:`\pi(q) = \sum_{i,j: q_j\ge1} \pi(q+e_i-e_j)\,
    p_j / NNZ(q+e_i-e_j)`, at every state of the (K, C) chain; returns the
    list of nonzero residuals (empty when the product form holds).

    >>> product_form_balance(2, 2)
    []
    """
    ps = sp.symbols(f"p1:{C_ + 1}", positive=True)

    def comps(k, c):
        if c == 1:
            yield (k,)
            return
        for first in range(k, -1, -1):
            for rest in comps(k - first, c - 1):
                yield (first,) + rest

    def weight(q):
        return sum(1 for v in q if v) * sp.Mul(*[pp**v for pp, v in zip(ps, q)])

    bad = []
    for q in comps(K_, C_):
        rhs = 0
        for j in range(C_):
            if not q[j]:
                continue
            for i_ in range(C_):
                r = list(q)
                r[i_] += 1
                r[j] -= 1
                rhs += weight(r) * ps[j] / sum(1 for v in r if v)
        res = sp.expand(weight(q) * sum(ps) - rhs)  # sum(ps) = 1 on the simplex
        if res != 0:
            bad.append((q, res))
    return bad


def formulas() -> list[Formula]:
    """The closed forms emitted to ``numeric/generated/buijsrogge.py``.

    >>> [f.name for f in formulas()][:2]
    ['mean_field_colours', 'mean_field_p_new']
    """
    kc = {"K": (2.0, 1e6), "C": (2.0, 1e7)}
    return [
        Formula("mean_field_colours", (K, C), mean_field_colours(), CITE.format("Thm 4.2.1"),
                "Mean-field number of colours in the workbench KC/(K+C-1)", printed=K * C / (K + C - 1), domain=kc),
        Formula("mean_field_p_new", (K, C), mean_field_p_new(), CITE.format("Thm 4.2.1"),
                "Mean-field probability that a drawn colour is new, (C-1)/(K+C-1)", printed=(C - 1) / (K + C - 1), domain=kc),
        Formula("mean_field_nu", (i, K, C), mean_field_nu(), CITE.format("Cor 4.2.1"),
                "Mean-field number of colours with i balls online",
                printed=K * C**2 * (K - 1) ** (i - 1) / (K + C - 1) ** (i + 1), stable=mean_field_nu_stable(),
                domain={**kc, "i": (1.0, 30.0)}),
        Formula("exact_colours_uniform", (K, C), exact_colours_uniform(), "(Buijsrogge 2014, Sec. 4.1 chain; product form, crawlmath)",
                "Exact stationary number of colours for uniform colours (KC-1)/(K+C-2)", domain=kc),
        Formula("exact_p_new_uniform", (K, C), exact_p_new_uniform(), "(Buijsrogge 2014, Sec. 4.1 chain; product form, crawlmath)",
                "Exact stationary P_new for uniform colours (C-1)^2/(C(K+C-2))", domain=kc),
        Formula("product_form_colours", (P2, ratio), product_form_colours(), "(Buijsrogge 2014, Sec. 4.1 chain; product form, crawlmath)",
                "Exact stationary number of colours for any p: 1 + (1-P2) h_{K-2}/h_{K-1}",
                domain={"P2": (1e-7, 1.0), "ratio": (1e-3, 1e6)}),
        Formula("product_form_p_new", (P2, P3, ratio), product_form_p_new(), "(Buijsrogge 2014, Sec. 4.1 chain; product form, crawlmath)",
                "Exact stationary P_new for any p: (1-P2) - (P2-P3) h_{K-2}/h_{K-1}; ill-conditioned in its inputs, not in "
                "the formula: kappa = (1 + P2 + ratio (P2 + P3))/P_new (6e6 at uniform K = 1e6, C = 2), so the domain keeps P_new away from 0",
                domain={"P2": (0.5, 0.9), "P3": (1e-9, 1e-3), "ratio": (1e-3, 0.1)}),
        Formula("colour_drawn_probability", (pcol, K), colour_drawn_probability(), CITE.format("Lemma 3.2.1, eq. 3.1"),
                "Probability that a colour of probability p is drawn in K draws, 1-(1-p)^K (one term of (3.1))",
                stable=colour_drawn_probability_stable(), domain={"p": (1e-12, 0.999), "K": (1.0, 1e6)}),
        Formula("expected_colours_uniform", (K, C), expected_colours_uniform(), CITE.format("Cor 3.2.1"),
                "Expected colours after K uniform draws C(1-(1-1/C)^K)", printed=C * (1 - (1 - 1 / C) ** K),
                stable=expected_colours_uniform_stable(), domain=kc),
    ]
