r"""Static crawler count: the M/M/1/K search-engine model (Liu–Nain 2005, §1.2.1).

Notation (the paper's): N crawlers each bring pages at Poisson rate
:math:`\lambda`; the indexer serves at rate :math:`\mu` with room for K pages
(K >= 2, including the one in service); :math:`\rho = N\lambda/\mu`.  The cost
weighs starvation against loss with :math:`\gamma > 0`:

.. math:: C(\rho,\gamma,K) = \gamma P(X=0) + \rho\mu P(X=K)            \quad (1.2)

Everything below is derived, not transcribed; each function names the
printed equation it reproduces so the registry can compare the two.

>>> cost()
(1 - rho)*(gamma + mu*rho**(K + 1))/(1 - rho**(K + 1))
>>> cost_at_one()
(gamma + mu)/(K + 1)
>>> gamma_K()
mu*(K + 2)/K
"""
from __future__ import annotations

import sympy as sp
from sympy.codegen.cfunctions import expm1

from .formula import Formula

rho, gamma, mu, lam = sp.symbols("rho gamma mu lambda", positive=True)
K = sp.Symbol("K", integer=True, positive=True)
i, j = sp.symbols("i j", integer=True, nonnegative=True)
_t = sp.Symbol("t", positive=True)  # stands for rho**K when comparing polynomials in rho and rho**K

CITE = "(Liu–Nain 2005, §1.2.1)"


# --- (1.3): the stationary law from the balance equations -----------------

def balance_residuals(p=None):
    r"""Global balance of the M/M/1/K chain with arrival rate :math:`\rho\mu`:

    state 0: :math:`\rho\mu p_0 = \mu p_1`; interior 0<i<K:
    :math:`(\rho\mu+\mu)p_i = \rho\mu p_{i-1} + \mu p_{i+1}`; state K:
    :math:`\mu p_K = \rho\mu p_{K-1}`.  Returns the three residuals
    (lhs - rhs) for a law ``p(i)`` (default: the geometric law
    :math:`p_i = \rho^i`, unnormalised), which vanish identically.

    >>> balance_residuals()
    (0, 0, 0)
    """
    p = p or (lambda k: rho**k)
    lam_n = rho * mu
    res0 = lam_n * p(0) - mu * p(1)
    res_i = (lam_n + mu) * p(i) - lam_n * p(i - 1) - mu * p(i + 1)
    res_k = mu * p(K) - lam_n * p(K - 1)
    return tuple(sp.simplify(sp.powsimp(sp.expand(r), force=True)) for r in (res0, res_i, res_k))


def normaliser():
    r""":math:`\sum_{i=0}^{K} \rho^i`, evaluated by SymPy for :math:`\rho \ne 1`."""
    s = sp.summation(rho**i, (i, 0, K))
    return sp.simplify(s.args[1][0] if isinstance(s, sp.Piecewise) and s.args[0][1] == sp.Eq(rho, 1) else s)


def stationary_law():
    r"""(1.3): :math:`P(X=i) = \frac{1-\rho}{1-\rho^{K+1}}\rho^i`, obtained by
    normalising the geometric solution of the balance equations."""
    return sp.simplify(rho**i / normaliser())


def printed_stationary_law():
    """(1.3) as printed."""
    return (1 - rho) / (1 - rho ** (K + 1)) * rho**i


# --- (1.2) -> (1.4): the cost -------------------------------------------------

def cost_from_definition():
    r"""(1.2) with the law (1.3): :math:`\gamma P(X=0) + \rho\mu P(X=K)`."""
    law = stationary_law()
    return gamma * law.subs(i, 0) + rho * mu * law.subs(i, K)


def cost():
    r"""(1.4): :math:`C(\rho,\gamma,K) = \frac{(1-\rho)(\gamma+\mu\rho^{K+1})}{1-\rho^{K+1}}`."""
    return (1 - rho) * (gamma + mu * rho ** (K + 1)) / (1 - rho ** (K + 1))


def cost_at_one():
    r"""The removable singularity of (1.4) at :math:`\rho = 1`: writing
    :math:`C = (\gamma+\mu\rho^{K+1})/\sum_{i=0}^K\rho^i`, the limit is
    :math:`(\gamma+\mu)/(K+1)`."""
    return (gamma + mu * rho ** (K + 1)).subs(rho, 1) / sp.Sum(rho**i, (i, 0, K)).subs(rho, 1).doit()


def cost_stable():
    r"""(1.4) written for floating point: ``expm1`` removes the cancellation
    in :math:`1-\rho^{K+1}` near :math:`\rho=1`, and for :math:`\rho>1` the
    quotient is taken in powers of :math:`\rho^{-(K+1)}` so it never
    overflows.  Each branch equals (1.4) identically (see the registry)."""
    L = (K + 1) * sp.log(rho)
    below = (rho - 1) * (gamma + mu * rho ** (K + 1)) / expm1(L)
    above = (rho - 1) * (gamma * rho ** (-(K + 1)) + mu) / (-expm1(-L))
    return sp.Piecewise((cost_at_one(), sp.Eq(rho, 1)), (below, rho < 1), (above, True))


# --- (1.7): the stationarity condition ---------------------------------------

def printed_stationarity():
    """(1.7) as printed: the polynomial whose root is rho(gamma, K)."""
    return mu * rho ** (2 * (K + 1)) - (gamma * K + mu * (K + 2)) * rho ** (K + 1) + (K + 1) * (mu + gamma) * rho**K - gamma


def derivative_numerator():
    r""":math:`(1-\rho^{K+1})^2\,\partial C/\partial\rho`, expanded."""
    return sp.expand(sp.powsimp(sp.simplify(sp.diff(cost(), rho) * (1 - rho ** (K + 1)) ** 2), force=True))


def in_rho_and_t(expr):
    r"""Rewrite powers :math:`\rho^{aK+b}` as :math:`t^a\rho^b` (t = :math:`\rho^K`)
    so that identities with a symbolic exponent become polynomial identities."""
    expr = sp.expand(sp.powsimp(sp.expand(expr), force=True))

    def split(power):
        a = power.exp.coeff(K)
        return _t**a * rho ** sp.expand(power.exp - a * K)

    return sp.expand(expr.replace(lambda e: e.is_Pow and e.base == rho and e.exp.has(K), split))


def deflated_stationarity():
    r"""(1.7) divided by its double root :math:`(\rho-1)^2`:

    .. math:: Q(\rho) = \mu\rho^K\sum_{j=0}^{K}(K+1-j)\rho^j - \gamma\sum_{i=0}^{K-1}(i+1)\rho^i

    so that :math:`\partial C/\partial\rho = Q(\rho)/(\sum_{i=0}^K\rho^i)^2`.
    The coefficients change sign exactly once, so by Descartes' rule Q has
    exactly one positive root: Lemma 1's unique minimiser.
    """
    return mu * rho**K * sp.Sum((K + 1 - j) * rho**j, (j, 0, K)) - gamma * sp.Sum((i + 1) * rho**i, (i, 0, K - 1))


def deflated_closed_form():
    """Q with the two sums evaluated in closed form (valid for rho != 1)."""
    x = rho
    g_part = (K * x ** (K + 1) - (K + 1) * x**K + 1) / (x - 1) ** 2
    m_part = x**K * (x ** (K + 2) - (K + 2) * x + (K + 1)) / (x - 1) ** 2
    return mu * m_part - gamma * g_part


def deflated_at_one():
    r""":math:`Q(1) = \frac{K+1}{2}\,(\mu(K+2) - \gamma K)`."""
    return sp.factor(deflated_stationarity().subs(rho, 1).doit())


def gamma_K():
    r""":math:`\gamma(K) = \mu(K+2)/K`: the unique :math:`\gamma` with
    :math:`Q(1) = 0`, i.e. with minimiser :math:`\rho(\gamma,K) = 1` (Lemma 1)."""
    (root,) = sp.solve(sp.Eq(deflated_at_one(), 0), gamma)
    return sp.factor(root)


# --- K -> infinity: (1.11), (1.12) -------------------------------------------

def cost_infinite_K():
    r""":math:`C(\rho,\gamma,\infty) = \lim_{K\to\infty} C(\rho,\gamma,K)`:
    :math:`\gamma(1-\rho)` for :math:`\rho\le1` and :math:`\mu(\rho-1)` for
    :math:`\rho\ge 1` (text after (1.11)).  Derived with :math:`u=\rho^{K+1}`:
    u -> 0 below 1 and u -> oo above."""
    u = sp.Symbol("u", positive=True)
    c_u = (1 - rho) * (gamma + mu * u) / (1 - u)
    below = sp.limit(c_u, u, 0)
    above = sp.limit(c_u, u, sp.oo)
    return sp.Piecewise((sp.factor(below), rho <= 1), (sp.factor(above), True))


def rho_plus_minus():
    r""":math:`\rho_\pm = (\lambda/\mu)\lceil\mu/\lambda\rceil`, :math:`(\lambda/\mu)\lfloor\mu/\lambda\rfloor` (after (1.11))."""
    return lam / mu * sp.ceiling(mu / lam), lam / mu * sp.floor(mu / lam)


def large_K_rule():
    r"""(1.12): :math:`N \approx \lceil\mu/\lambda\rceil` if
    :math:`-\mu(1-\rho_+) \le \gamma(1-\rho_-)`, else :math:`\lfloor\mu/\lambda\rfloor`."""
    rp, rm = rho_plus_minus()
    return sp.Piecewise((sp.ceiling(mu / lam), -mu * (1 - rp) <= gamma * (1 - rm)), (sp.floor(mu / lam), True))


def large_K_rule_from_limit():
    r"""(1.11): compare :math:`C(\rho_+,\gamma,\infty)` with
    :math:`C(\rho_-,\gamma,\infty)` using the derived limit cost."""
    rp, rm = rho_plus_minus()
    c_inf = cost_infinite_K()
    # rho_+ >= 1 >= rho_- by construction; pick the matching branches.
    c_plus = c_inf.args[1][0].subs(rho, rp)
    c_minus = c_inf.args[0][0].subs(rho, rm)
    return sp.Piecewise((sp.ceiling(mu / lam), c_plus <= c_minus), (sp.floor(mu / lam), True))


def formulas() -> list[Formula]:
    """The closed forms emitted to ``numeric/generated/static_mm1k.py``."""
    return [
        Formula("cost", (rho, gamma, K, mu), cost_stable(), "(Liu–Nain 2005, eq. 1.4)",
                "C(rho, gamma, K): starvation/loss cost of the M/M/1/K model, stable form, removable singularity at rho = 1 filled in"),
        Formula("cost_infinite_K", (rho, gamma, mu), cost_infinite_K(), "(Liu–Nain 2005, text after eq. 1.11)",
                "C(rho, gamma, oo) = lim_{K->oo} C(rho, gamma, K)"),
        Formula("stationarity_printed", (rho, gamma, K, mu), printed_stationarity(), "(Liu–Nain 2005, eq. 1.7)",
                "The printed stationarity polynomial; dC/drho = (1.7)/(1 - rho**(K+1))**2; double root at rho = 1"),
        Formula("stationarity_deflated", (rho, gamma, K, mu), deflated_stationarity(), "(Liu–Nain 2005, eq. 1.7 / (rho-1)**2)",
                "Q(rho) = (1.7)/(rho-1)**2 as two sums with positive coefficients; its unique positive root is rho(gamma, K)"),
        Formula("gamma_K", (K, mu), gamma_K(), "(Liu–Nain 2005, Lemma 1)",
                "gamma(K) = mu (K+2)/K, the weight at which the minimiser is rho = 1"),
        Formula("large_K_rule", (lam, mu, gamma), large_K_rule(), "(Liu–Nain 2005, eq. 1.12)",
                "Large-K approximation of the optimal number of crawlers N(gamma, K)"),
    ]
