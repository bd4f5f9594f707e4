r"""Static crawler count: the M/M/1/K search-engine model (Liu–Nain 2005, §1.2.1).

Notation (the paper's): N crawlers each bring pages at Poisson rate
:math:`\lambda`; the indexer serves at rate :math:`\mu` with room for K pages
(K >= 2, including the one in service); :math:`\rho = N\lambda/\mu`.  The cost
weighs starvation against loss with :math:`\gamma > 0`:

.. math:: C(\rho,\gamma,K) = \gamma P(X=0) + \rho\mu P(X=K)            \quad (1.2)

The chain of derivations, each step carried out by SymPy:

1. the birth–death balance equations, solved as a linear recurrence with
   the boundary condition at state 0 (``rsolve``), the state-K equation
   checked on the solution (:func:`unnormalised_law`);
2. normalisation by symbolic summation (:func:`normaliser`), giving (1.3);
3. (1.2) with (1.3) simplified: (1.4) (:func:`cost`), its :math:`\rho\to1`
   limit (:func:`cost_at_one`) and a floating-point rewriting
   (:func:`cost_stable`);
4. :math:`\partial C/\partial\rho` with the sums kept symbolic, giving the
   deflated stationarity polynomial Q (:func:`deflated_stationarity`) and,
   summed in closed form, (1.7) (:func:`stationarity`);
5. :math:`\gamma(K)` from :math:`Q(1) = 0` (:func:`gamma_K`).

Printed forms (``printed_*``) are typed from the paper and only compared.

>>> cost()
(gamma + mu*rho**(K + 1))*(rho - 1)/(rho**(K + 1) - 1)
>>> cost_at_one()
(gamma + mu)/(K + 1)
>>> gamma_K()
mu*(K + 2)/K
"""
from __future__ import annotations

import functools

import sympy as sp
from sympy.codegen.rewriting import expm1_opt, optimize
from sympy.simplify.simplify import sum_combine

from . import DerivationError, only_root, require_zero
from .formula import Formula

rho, gamma, mu, lam = sp.symbols("rho gamma mu lambda", positive=True)
K = sp.Symbol("K", integer=True, positive=True)
i, j = sp.symbols("i j", integer=True, nonnegative=True)
p0 = sp.Symbol("p0", positive=True)  # P(X=0) before normalisation
_t = sp.Symbol("t", positive=True)  # stands for rho**K when comparing polynomials in rho and rho**K

CITE = "(Liu–Nain 2005, §1.2.1)"


# --- (1.3): the stationary law from the balance equations -----------------

def balance_equations(p):
    r"""Global balance of the M/M/1/K chain (arrival rate :math:`\rho\mu`,
    service rate :math:`\mu`) for a law ``p(i)``, as (state 0, interior
    state i+1 for 0 <= i <= K-2, state K), each ``lhs - rhs``:

    .. math:: \rho\mu p_0 = \mu p_1,\quad
              (\rho\mu+\mu)p_{i+1} = \rho\mu p_i + \mu p_{i+2},\quad
              \mu p_K = \rho\mu p_{K-1}.

    >>> balance_equations(sp.Function("p"))[0]
    mu*rho*p(0) - mu*p(1)
    """
    arrival = rho * mu
    return (arrival * p(0) - mu * p(1),
            (arrival + mu) * p(i + 1) - arrival * p(i) - mu * p(i + 2),
            mu * p(K) - arrival * p(K - 1))


@functools.cache
def unnormalised_law():
    r"""The solution of the balance equations with :math:`P(X=0) = p_0`:
    the interior equations are a second-order linear recurrence, solved by
    ``rsolve`` with the two initial values the state-0 equation fixes
    (:math:`p_1 = \rho p_0`); the state-K equation must then hold
    identically (raises :class:`DerivationError` otherwise).

    >>> unnormalised_law()
    p0*rho**i
    """
    p = sp.Function("p")
    eq0, interior, eqK = balance_equations(p)
    p1 = only_root(sp.solve(eq0.subs(p(0), p0), p(1)), "state-0 balance")
    law = sp.rsolve(interior, p(i), {p(0): p0, p(1): p1})
    if law is None:
        raise DerivationError("rsolve found no solution of the interior balance equations")
    law = sp.simplify(law)
    require_zero(eqK.replace(p, sp.Lambda(i, law)), "state-K balance on the recurrence solution")
    return law


def balance_residuals(p=None):
    r"""The three balance residuals for a law ``p(i)`` (default: the solved
    :func:`unnormalised_law`), simplified; all vanish for the solution.

    >>> balance_residuals()
    (0, 0, 0)
    """
    p = p or sp.Lambda(i, unnormalised_law())
    return tuple(sp.simplify(sp.powsimp(sp.expand(r), force=True)) for r in balance_equations(p))


@functools.cache
def normaliser_piecewise():
    r""":math:`\sum_{i=0}^K p_i / p_0` by symbolic summation, both cases:
    :math:`K+1` at :math:`\rho=1`, :math:`(1-\rho^{K+1})/(1-\rho)` otherwise.

    >>> normaliser_piecewise()
    Piecewise((K + 1, Eq(rho, 1)), ((1 - rho**(K + 1))/(1 - rho), True))
    """
    return sp.summation(unnormalised_law() / p0, (i, 0, K))


def _generic_branch(piecewise, what: str):
    """The branch of a summation result valid for rho != 1 (SymPy lists the
    rho = 1 case first)."""
    if not isinstance(piecewise, sp.Piecewise):
        return piecewise
    generic = [e for e, cond in piecewise.args if cond != sp.Eq(rho, 1)]
    return only_root(generic, f"{what}: the rho != 1 branch")


def normaliser():
    r""":math:`\sum_{i=0}^K \rho^i` for :math:`\rho \ne 1`, evaluated by SymPy.

    >>> normaliser()
    (1 - rho**(K + 1))/(1 - rho)
    """
    return _generic_branch(normaliser_piecewise(), "normaliser")


def stationary_law():
    r"""(1.3): :math:`P(X=i) = \frac{1-\rho}{1-\rho^{K+1}}\rho^i`: the
    solved law divided by its sum.

    >>> sp.simplify(stationary_law() - printed_stationary_law())
    0
    """
    return sp.simplify(unnormalised_law() / (p0 * normaliser()))


def printed_stationary_law():
    """(1.3) as printed (reference only).

    >>> printed_stationary_law().subs({K: 1, i: 0, rho: 1/sp.Integer(2)})
    2/3
    """
    return (1 - rho) / (1 - rho ** (K + 1)) * rho**i


# --- (1.2) -> (1.4): the cost -------------------------------------------------

def cost_from_definition():
    r"""(1.2) with the law (1.3): :math:`\gamma P(X=0) + \rho\mu P(X=K)`.

    >>> sp.simplify(cost_from_definition().subs({K: 2, rho: 2, gamma: 1, mu: 1}))
    9/7
    """
    law = stationary_law()
    return gamma * law.subs(i, 0) + rho * mu * law.subs(i, K)


@functools.cache
def cost():
    r"""(1.4) derived: (1.2) with the solved law, simplified and factored,
    :math:`C(\rho,\gamma,K) = \frac{(\rho-1)(\gamma+\mu\rho^{K+1})}{\rho^{K+1}-1}`
    (the printed :math:`(1-\rho)(\gamma+\mu\rho^{K+1})/(1-\rho^{K+1})`).

    >>> cost().subs({K: 2, rho: 2, gamma: 1, mu: 1})
    9/7
    """
    return sp.simplify(cost_from_definition())


def printed_cost():
    r"""(1.4) as printed (reference only).

    >>> sp.simplify(printed_cost() - cost())
    0
    """
    return (1 - rho) * (gamma + mu * rho ** (K + 1)) / (1 - rho ** (K + 1))


@functools.cache
def cost_at_one():
    r"""The removable singularity of (1.4) at :math:`\rho = 1`, by
    ``limit`` for symbolic K; it must equal (1.2) evaluated with the
    :math:`\rho = 1` branch of the normaliser (uniform law), else raises.

    >>> cost_at_one()
    (gamma + mu)/(K + 1)
    """
    value = sp.simplify(sp.limit(cost(), rho, 1))
    at_one = [e for e, cond in normaliser_piecewise().args if cond == sp.Eq(rho, 1)]
    uniform = (gamma + mu) / only_root(at_one, "normaliser at rho = 1")
    require_zero(value - uniform, "limit rho -> 1 of (1.4) against the uniform law at rho = 1")
    return value


def _power_as_exp(expr):
    """rho**(a K + b) -> exp((a K + b) log rho), so that ``expm1_opt`` can see e**x - 1."""
    expr = expr.replace(lambda e: e.is_Mul, lambda e: sp.powsimp(e, force=True))
    return expr.replace(lambda e: e.is_Pow and e.base == rho and e.exp.has(K),
                        lambda e: sp.exp(e.exp * sp.log(rho)))


def _scaled_by(expr, factor):
    """``expr * factor`` expanded with powers of rho merged."""
    return sp.expand(sp.powsimp(sp.expand(expr * factor), force=True))


@functools.cache
def cost_stable():
    r"""(1.4) rewritten for floating point by SymPy: for :math:`\rho<1`,
    :math:`\rho^{K+1} = e^{(K+1)\ln\rho}` and ``expm1_opt`` turns the
    cancelling :math:`\rho^{K+1}-1` into ``expm1``; for :math:`\rho > 1`
    numerator and denominator are first multiplied by :math:`\rho^{-(K+1)}`
    (no overflow), then rewritten the same way; at :math:`\rho = 1` the
    limit :func:`cost_at_one`.

    >>> cost_stable().args[1][0]
    (gamma + mu*exp((K + 1)*log(rho)))*(rho - 1)/expm1((K + 1)*log(rho))
    """
    num, den = sp.fraction(cost())
    scale = rho ** (-(K + 1))
    below = optimize(_power_as_exp(num) / _power_as_exp(den), [expm1_opt])
    above = optimize(_power_as_exp(_scaled_by(num / (rho - 1), scale)) * (rho - 1)
                     / _power_as_exp(_scaled_by(den, scale)), [expm1_opt])
    for branch in (below, above):
        if not branch.has(sp.codegen.cfunctions.expm1):
            raise DerivationError(f"no expm1 rewriting found in {branch}")
    return sp.Piecewise((cost_at_one(), sp.Eq(rho, 1)), (below, rho < 1), (above, True))


# --- (1.7): the stationarity condition ---------------------------------------

def printed_stationarity():
    """(1.7) as printed: the polynomial whose root is rho(gamma, K) (reference only).

    >>> sp.expand(printed_stationarity().subs({rho: 1}))
    0
    """
    return mu * rho ** (2 * (K + 1)) - (gamma * K + mu * (K + 2)) * rho ** (K + 1) + (K + 1) * (mu + gamma) * rho**K - gamma


def derivative_numerator():
    r""":math:`(1-\rho^{K+1})^2\,\partial C/\partial\rho` of the derived cost, expanded.

    >>> sp.expand(derivative_numerator().subs(K, 2) - printed_stationarity().subs(K, 2))
    0
    """
    return sp.expand(sp.powsimp(sp.simplify(sp.diff(cost(), rho) * (1 - rho ** (K + 1)) ** 2), force=True))


def in_rho_and_t(expr):
    r"""Rewrite powers :math:`\rho^{aK+b}` as :math:`t^a\rho^b` (t = :math:`\rho^K`)
    so that identities with a symbolic exponent become polynomial identities.

    >>> in_rho_and_t(rho**(2*K + 1))
    rho*t**2
    """
    expr = sp.expand(sp.powsimp(sp.expand(expr), force=True))

    def split(power):
        a = power.exp.coeff(K)
        return _t**a * rho ** sp.expand(power.exp - a * K)

    return sp.expand(expr.replace(lambda e: e.is_Pow and e.base == rho and e.exp.has(K), split))


def _merged(expr):
    """Move each term's factors into its Sum and merge Sums with equal limits."""
    sums = []
    for term in sp.Add.make_args(sp.expand(expr)):
        coeff, s = term.as_independent(sp.Sum)
        if not isinstance(s, sp.Sum):
            raise DerivationError(f"term {term} is not a multiple of a Sum")
        sums.append(sp.Sum(coeff * s.function, s.limits))
    return sum_combine(sums)


@functools.cache
def deflated_stationarity():
    r"""Q, the numerator of :math:`\partial C/\partial\rho` over
    :math:`(\sum_{i=0}^K\rho^i)^2`, derived with the sum kept symbolic:
    writing (1.4) as :math:`C = (\gamma+\mu\rho^{K+1})/Z`,
    :math:`Z = \sum_{i=0}^K\rho^i`, Q = :math:`\mu(K+1)\rho^K Z - (\gamma+\mu\rho^{K+1})Z'`;
    the :math:`\mu` terms merge into one sum, and :math:`Z'` loses its zero
    i = 0 term and is shifted to start at 0:

    .. math:: Q(\rho) = \mu\rho^K\sum_{i=0}^{K}(K+1-i)\rho^i - \gamma\sum_{i=0}^{K-1}(i+1)\rho^i

    Q = (1.7)/(ρ−1)² (:func:`stationarity`).  Its coefficients change sign
    exactly once, so by Descartes' rule Q has exactly one positive root:
    Lemma 1's unique minimiser.

    >>> deflated_stationarity()
    -gamma*Sum(rho**i*(i + 1), (i, 0, K - 1)) + mu*rho**K*Sum(rho**i*(K - i + 1), (i, 0, K))
    """
    Z = sp.Sum(unnormalised_law() / p0, (i, 0, K))
    numerator, Z_ = sp.fraction(sp.together(cost_at_sum(Z)))
    dZ = sp.diff(Z, rho)
    if dZ.function.subs(i, 0) != 0:
        raise DerivationError(f"Z' has a nonzero i = 0 term: {dZ.function.subs(i, 0)}")
    dZ_shifted = sp.Sum(dZ.function, (i, 1, K)).change_index(i, i - 1, j).xreplace({j: i})
    dZ_shifted = sp.Sum(sp.simplify(dZ_shifted.function), dZ_shifted.limits)
    q = sp.diff(numerator, rho) * Z - numerator * dZ
    mu_part = _merged(sp.expand(q).coeff(mu) * mu)
    gamma_part = sp.expand(q).coeff(gamma).subs(dZ, dZ_shifted) * gamma
    require_zero((mu_part + gamma_part - q).subs(dZ, dZ_shifted).subs(K, 3).doit(), "Q's two-sum form at K = 3")
    return mu_part + gamma_part


def cost_at_sum(Z):
    r"""(1.4) as :math:`(\gamma+\mu\rho^{K+1})\,/\,Z`, Z the normaliser: the
    law (1.3) is :math:`\rho^i/Z`, so (1.2) is :math:`(\gamma+\rho\mu\rho^K)/Z`.

    >>> cost_at_sum(sp.Symbol("Z"))
    (gamma + mu*rho**(K + 1))/Z
    """
    law = unnormalised_law() / (p0 * Z)
    return sp.powsimp(sp.factor(gamma * law.subs(i, 0) + rho * mu * law.subs(i, K)), force=True)


@functools.cache
def deflated_closed_form():
    """Q with its two sums evaluated by ``summation`` (valid for rho != 1).

    >>> sp.simplify(deflated_closed_form().subs(K, 2) - deflated_stationarity().subs(K, 2).doit())
    0
    """
    evaluated = deflated_stationarity().replace(
        lambda e: isinstance(e, sp.Sum),
        lambda s: _generic_branch(sp.piecewise_fold(sp.summation(s.function, *s.limits)), "Q's sums"))
    return sp.simplify(evaluated)


@functools.cache
def stationarity():
    r"""(1.7) derived: :math:`(1-\rho^{K+1})^2\,\partial C/\partial\rho =
    (1-\rho)^2 Q`, with Q summed in closed form, expanded in powers of
    :math:`\rho` (compare :func:`printed_stationarity`).

    >>> sp.expand(in_rho_and_t(stationarity()) - in_rho_and_t(printed_stationarity()))
    0
    """
    expanded = sp.expand(sp.cancel((rho - 1) ** 2 * deflated_closed_form()))
    return sp.collect(expanded.replace(lambda e: e.is_Mul, lambda e: sp.powsimp(e, force=True)), [rho ** (2 * K + 2), rho ** (K + 1), rho**K])


def deflated_at_one():
    r""":math:`Q(1) = \frac{K+1}{2}\,(\mu(K+2) - \gamma K)`.

    >>> deflated_at_one()
    -(K + 1)*(K*gamma - K*mu - 2*mu)/2
    """
    return sp.factor(deflated_stationarity().subs(rho, 1).doit())


def gamma_K():
    r""":math:`\gamma(K) = \mu(K+2)/K`: the unique :math:`\gamma` with
    :math:`Q(1) = 0`, i.e. with minimiser :math:`\rho(\gamma,K) = 1` (Lemma 1).

    >>> gamma_K().subs(K, 10)
    6*mu/5
    """
    return sp.factor(only_root(sp.solve(sp.Eq(deflated_at_one(), 0), gamma), "Q(1) = 0 for gamma"))


# --- K -> infinity: (1.11), (1.12) -------------------------------------------

def cost_infinite_K():
    r""":math:`C(\rho,\gamma,\infty) = \lim_{K\to\infty} C(\rho,\gamma,K)`:
    :math:`\gamma(1-\rho)` for :math:`\rho\le1` and :math:`\mu(\rho-1)` for
    :math:`\rho\ge 1` (text after (1.11)).  Derived from (1.4) with
    :math:`u=\rho^{K+1}`: u -> 0 below 1 and u -> oo above.

    >>> cost_infinite_K()
    Piecewise((-gamma*(rho - 1), rho <= 1), (mu*(rho - 1), True))
    """
    u = sp.Symbol("u", positive=True)
    c_u = sp.simplify(sp.expand_power_exp(cost()).subs(rho**K, u / rho))
    if c_u.has(K):
        raise DerivationError(f"(1.4) is not a function of rho**(K+1) alone: {c_u}")
    below = sp.limit(c_u, u, 0)
    above = sp.limit(c_u, u, sp.oo)
    return sp.Piecewise((sp.factor(below), rho <= 1), (sp.factor(above), True))


def rho_plus_minus():
    r""":math:`\rho_\pm = (\lambda/\mu)\lceil\mu/\lambda\rceil`, :math:`(\lambda/\mu)\lfloor\mu/\lambda\rfloor` (after (1.11)).

    >>> rho_plus_minus()[0].subs({lam: 3, mu: 10})
    6/5
    """
    return lam / mu * sp.ceiling(mu / lam), lam / mu * sp.floor(mu / lam)


def large_K_rule():
    r"""(1.12) as printed: :math:`N \approx \lceil\mu/\lambda\rceil` if
    :math:`-\mu(1-\rho_+) \le \gamma(1-\rho_-)`, else :math:`\lfloor\mu/\lambda\rfloor`.

    >>> large_K_rule().subs({lam: 3, mu: 10, gamma: 1})
    3
    """
    rp, rm = rho_plus_minus()
    return sp.Piecewise((sp.ceiling(mu / lam), -mu * (1 - rp) <= gamma * (1 - rm)), (sp.floor(mu / lam), True))


def large_K_rule_from_limit():
    r"""(1.11) derived: compare :math:`C(\rho_+,\gamma,\infty)` with
    :math:`C(\rho_-,\gamma,\infty)` using the derived limit cost
    (:math:`\rho_+ \ge 1 \ge \rho_-` by construction).

    >>> large_K_rule_from_limit().subs({lam: 3, mu: 10, gamma: 1})
    3
    """
    rp, rm = rho_plus_minus()
    c_inf = cost_infinite_K()
    c_plus = c_inf.args[1][0].subs(rho, rp)
    c_minus = c_inf.args[0][0].subs(rho, rm)
    return sp.Piecewise((sp.ceiling(mu / lam), c_plus <= c_minus), (sp.floor(mu / lam), True))


_DOMAIN = {"rho": (1e-3, 20.0), "gamma": (1e-2, 20.0), "K": (2, 400), "mu": (1e-2, 10.0)}


def formulas() -> list[Formula]:
    """The closed forms emitted to ``numeric/generated/static_mm1k.py``.

    >>> [f.name for f in formulas()][:2]
    ['cost', 'cost_infinite_K']
    """
    return [
        Formula("cost", (rho, gamma, K, mu), sp.Piecewise((cost_at_one(), sp.Eq(rho, 1)), (cost(), True)),
                "(Liu–Nain 2005, eq. 1.4)",
                "C(rho, gamma, K): starvation/loss cost of the M/M/1/K model, stable form, removable singularity at rho = 1 filled in",
                printed=printed_cost(), stable=cost_stable(), domain=_DOMAIN),
        Formula("cost_infinite_K", (rho, gamma, mu), cost_infinite_K(), "(Liu–Nain 2005, text after eq. 1.11)",
                "C(rho, gamma, oo) = lim_{K->oo} C(rho, gamma, K)",
                domain={k: _DOMAIN[k] for k in ("rho", "gamma", "mu")}),
        Formula("stationarity", (rho, gamma, K, mu), stationarity(), "(Liu–Nain 2005, eq. 1.7)",
                "The stationarity polynomial (1.7), derived; dC/drho = (1.7)/(1 - rho**(K+1))**2; double root at rho = 1",
                printed=printed_stationarity(), domain={**_DOMAIN, "rho": (0.05, 2.0), "K": (2, 40)}),
        Formula("stationarity_deflated", (rho, gamma, K, mu), deflated_stationarity(), "(Liu–Nain 2005, eq. 1.7 / (rho-1)**2)",
                "Q(rho) = (1.7)/(rho-1)**2 as two sums with positive coefficients; its unique positive root is rho(gamma, K)",
                domain={**_DOMAIN, "rho": (0.05, 2.0), "K": (2, 100)}),
        Formula("deflated_at_one", (gamma, K, mu), deflated_at_one(), "(Liu–Nain 2005, eq. 1.7 / (rho-1)**2 at rho = 1)",
                "Q(1) = (K+1)/2 (mu (K+2) - gamma K): its sign says on which side of 1 the root rho(gamma, K) lies",
                domain={k: _DOMAIN[k] for k in ("gamma", "K", "mu")}),
        Formula("gamma_K", (K, mu), gamma_K(), "(Liu–Nain 2005, Lemma 1)",
                "gamma(K) = mu (K+2)/K, the weight at which the minimiser is rho = 1",
                domain={"K": (2, 10**6), "mu": (1e-3, 1e3)}),
        Formula("large_K_rule", (lam, mu, gamma), large_K_rule_from_limit(), "(Liu–Nain 2005, eqs. 1.11-1.12)",
                "Large-K approximation of the optimal number of crawlers N(gamma, K), from (1.11)",
                printed=large_K_rule(), domain={"lambda": (1e-3, 1.0), "mu": (0.1, 10.0), "gamma": (1e-2, 10.0)}),
    ]
