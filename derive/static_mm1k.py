r"""Static crawler count: the M/M/1/K search-engine model (Liu–Nain 2005, §1.2.1).

Notation (the paper's): N crawlers each bring pages at Poisson rate
:math:`\lambda`; the indexer serves at rate :math:`\mu` with room for K pages
(K >= 2, including the one in service); :math:`\rho = N\lambda/\mu`.  The cost
weighs starvation against loss with :math:`\gamma > 0`:

.. math:: C(\rho,\gamma,K) = \gamma P(X=0) + \rho\mu P(X=K)            \quad (1.2)

Every derivation takes its model as input: a :class:`StaticModel` (service
law :math:`\mu(n)`, capacity K, the weights of the two cost terms), with the
paper's model :data:`PAPER` as the default instance.  The chain, each step
carried out by SymPy on *that* model:

1. the birth–death balance equations; their cut form
   :math:`\rho\mu\,p_n = \mu(n+1)\,p_{n+1}` is shown to be equivalent
   (the interior equations are its differences, the state-0 equation its
   first instance), solved by a product, and every balance equation checked
   on the solution (:func:`unnormalised_law`);
2. normalisation by symbolic summation (:func:`normaliser`), giving (1.3);
3. the cost terms of the model with that law: (1.4) (:func:`cost`), its
   value at each removable singularity by ``limit`` (:func:`removable_points`)
   and, for the paper's model, a floating-point rewriting (:func:`cost_stable`);
4. :math:`\partial C/\partial\rho` with the normaliser kept a symbolic sum:
   the stationarity function Q (:func:`deflated_stationarity`), checked
   against the derivative of the closed-form cost; multiplied by the square
   of the normaliser's denominator SymPy finds, (1.7) (:func:`stationarity`),
   checked against :math:`P^2\,\partial C/\partial\rho` (P the normaliser's
   numerator);
5. Lemma 1's uniqueness from the sign pattern of Q's terms
   (:func:`unique_minimiser`), and :math:`\gamma(K)` from :math:`Q(1) = 0`
   (:func:`gamma_K`).

A model for which a step does not hold gets a :class:`DerivationError`
naming the step, never the paper's answer.  Printed forms (``printed_*``)
are typed from the paper and only compared.

>>> cost()
(gamma + mu*rho**(K + 1))*(rho - 1)/(rho**(K + 1) - 1)
>>> cost_at_one()
(gamma + mu)/(K + 1)
>>> gamma_K()
mu*(K + 2)/K
>>> gamma_K(StaticModel(loss_weight=2))   # the doubled loss weight
2*mu*(K + 2)/K
"""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

import sympy as sp
from sympy.codegen.rewriting import expm1_opt, optimize

from . import DerivationError, only_root, require_zero
from .formula import Formula, assumed, derived, term_magnitudes, typed

rho, gamma, mu, lam = sp.symbols("rho gamma mu lambda", positive=True)
K = sp.Symbol("K", integer=True, positive=True)
i, j = sp.symbols("i j", integer=True, nonnegative=True)
n = sp.Symbol("n", integer=True, positive=True)  # a state 1 <= n <= K, argument of the service law
p0 = sp.Symbol("p0", positive=True)  # P(X=0) before normalisation
_t = sp.Symbol("t", positive=True)  # stands for rho**K when comparing polynomials in rho and rho**K

CITE = "(Liu–Nain 2005, §1.2.1)"


# --- the model ------------------------------------------------------------------

@dataclass(frozen=True)
class StaticModel:
    r"""A static crawler-count model: pages arrive at rate :math:`\rho\mu`
    (:math:`\rho = N\lambda/\mu`), the indexer serves at rate ``service``
    :math:`\mu(n)` in state n (an expression in ``n``), the buffer holds
    ``capacity`` pages (the symbol K or an integer >= 2), and the cost is

    .. math:: C = w_0\,P(X=0) + w_K\,\rho\mu\,P(X=K)

    with ``idle_weight`` :math:`w_0` and ``loss_weight`` :math:`w_K`
    (the paper's (1.2): :math:`w_0 = \gamma`, :math:`w_K = 1`).

    >>> StaticModel(service=2 * mu).service_at(3)
    2*mu
    >>> StaticModel(capacity=1)
    Traceback (most recent call last):
    ...
    ValueError: StaticModel: capacity must be the symbol K or an integer >= 2, got 1
    """
    service: sp.Expr = mu
    capacity: sp.Expr = K
    idle_weight: sp.Expr = gamma
    loss_weight: sp.Expr = sp.Integer(1)

    def __post_init__(self):
        for name in ("service", "capacity", "idle_weight", "loss_weight"):
            object.__setattr__(self, name, sp.sympify(getattr(self, name)))
        if not (self.capacity == K or (self.capacity.is_Integer and self.capacity >= 2)):
            raise ValueError(f"StaticModel: capacity must be the symbol K or an integer >= 2, got {self.capacity}")
        for name in ("service", "idle_weight", "loss_weight"):
            if rho in getattr(self, name).free_symbols:
                raise ValueError(f"StaticModel: {name} must not depend on rho (rho is the decision variable)")
        if self.service.free_symbols - {n, mu, K}:
            raise ValueError(f"StaticModel: service may depend on n, mu and K only, got {self.service}")

    @property
    def arrival(self) -> sp.Expr:
        """The arrival rate :math:`N\\lambda = \\rho\\mu`."""
        return rho * mu

    def service_at(self, state) -> sp.Expr:
        """:math:`\\mu(n)` at ``state``."""
        return self.service.subs({n: state, K: self.capacity})

    def cost_terms(self) -> tuple[tuple[sp.Expr, object], ...]:
        """(weight, state) pairs: the cost is the sum of weight * P(X = state)."""
        return ((self.idle_weight, 0), (self.loss_weight * self.arrival, self.capacity))


PAPER = StaticModel()  # Liu–Nain's (1.2): service mu, capacity K, weights gamma and 1


# --- (1.3): the stationary law from the balance equations -----------------

def balance_equations(p, model: StaticModel = PAPER):
    r"""Global balance of the birth–death chain of ``model`` (arrival rate
    :math:`\rho\mu`, service :math:`\mu(n)`) for a law ``p(i)``, as (state 0,
    interior state i+1 for 0 <= i <= K-2, state K), each ``lhs - rhs``:

    .. math:: \rho\mu p_0 = \mu(1) p_1,\quad
              (\rho\mu+\mu(i+1))p_{i+1} = \rho\mu p_i + \mu(i+2) p_{i+2},\quad
              \mu(K) p_K = \rho\mu p_{K-1}.

    >>> balance_equations(sp.Function("p"))[0]
    mu*rho*p(0) - mu*p(1)
    """
    a, s, k = model.arrival, model.service_at, model.capacity
    return (a * p(0) - s(1) * p(1),
            (a + s(i + 1)) * p(i + 1) - a * p(i) - s(i + 2) * p(i + 2),
            s(k) * p(k) - a * p(k - 1))


@functools.cache
def unnormalised_law(model: StaticModel = PAPER):
    r"""The solution of the balance equations with :math:`P(X=0) = p_0`.
    With the flow across the cut between i and i+1,
    :math:`F_i = \rho\mu p_i - \mu(i+1) p_{i+1}`, the state-0 equation is
    :math:`F_0 = 0` and the interior equation at i+1 is
    :math:`F_{i+1} - F_i = 0` (both checked symbolically), so
    :math:`F_i = 0` for all i and :math:`p_i = p_0\prod_{k<i}\rho\mu/\mu(k+1)`
    (``product``); every balance equation, the state-K one included, must
    then vanish on the solution (raises :class:`DerivationError` otherwise).

    >>> unnormalised_law()
    p0*rho**i
    >>> unnormalised_law(StaticModel(service=n * mu))
    p0*rho**i/factorial(i)
    """
    p = sp.Function("p")
    eq0, interior, eqK = balance_equations(p, model)

    def cut(x):
        return model.arrival * p(x) - model.service_at(x + 1) * p(x + 1)

    require_zero(eq0 - cut(0), "state-0 balance as the flow across the first cut")
    require_zero(interior - (cut(i + 1) - cut(i)), "interior balance as the difference of two cut flows")
    ratio = only_root(sp.solve(cut(i), p(i + 1)), "cut equation for p(i+1)") / p(i)
    k = sp.Symbol("k", integer=True, nonnegative=True)
    law = p0 * sp.simplify(sp.product(ratio.subs(i, k), (k, 0, i - 1)))
    if law.has(sp.Product):
        raise DerivationError(f"the product of the rate ratios {ratio} has no closed form")
    for what, residual in zip(("state-0", "interior", "state-K"), balance_equations(sp.Lambda(i, law), model)):
        require_zero(sp.simplify(sp.powsimp(sp.expand(residual), force=True)), f"{what} balance on the solved law")
    return law


def balance_residuals(p=None, model: StaticModel = PAPER):
    r"""The three balance residuals for a law ``p(i)`` (default: the solved
    :func:`unnormalised_law`), simplified; all vanish for the solution.

    >>> balance_residuals()
    (0, 0, 0)
    """
    p = p or sp.Lambda(i, unnormalised_law(model))
    return tuple(sp.simplify(sp.powsimp(sp.expand(r), force=True)) for r in balance_equations(p, model))


@functools.cache
def normaliser_piecewise(model: StaticModel = PAPER):
    r""":math:`\sum_{i=0}^K p_i / p_0` by symbolic summation, with every case
    SymPy distinguishes: :math:`K+1` at :math:`\rho=1`,
    :math:`(1-\rho^{K+1})/(1-\rho)` otherwise, for the paper's model.

    >>> normaliser_piecewise()
    Piecewise((K + 1, Eq(rho, 1)), ((1 - rho**(K + 1))/(1 - rho), True))
    """
    return sp.summation(unnormalised_law(model) / p0, (i, 0, model.capacity))


def _generic_branch(piecewise, what: str):
    """The catch-all branch (condition True) of a summation result: the one
    valid away from its special points, whatever the model puts there."""
    if not isinstance(piecewise, sp.Piecewise):
        return piecewise
    generic = [e for e, cond in piecewise.args if cond == sp.true]
    return only_root(generic, f"{what}: the catch-all branch")


def normaliser(model: StaticModel = PAPER):
    r""":math:`Z = \sum_{i=0}^K p_i/p_0` away from its special points, evaluated by SymPy.

    >>> normaliser()
    (1 - rho**(K + 1))/(1 - rho)
    >>> normaliser(StaticModel(service=2 * mu))
    (1 - (rho/2)**(K + 1))/(1 - rho/2)
    """
    return _generic_branch(normaliser_piecewise(model), "normaliser")


def stationary_law(model: StaticModel = PAPER, Z=None):
    r"""(1.3): :math:`P(X=i) = \frac{1-\rho}{1-\rho^{K+1}}\rho^i`: the
    solved law divided by its sum Z (the closed form by default; a symbol or
    an unevaluated ``Sum`` when the caller keeps it symbolic).

    >>> sp.simplify(stationary_law() - printed_stationary_law())
    0
    """
    return sp.simplify(unnormalised_law(model) / (p0 * (normaliser(model) if Z is None else Z)))


def printed_stationary_law():
    """(1.3) as printed (reference only).

    >>> printed_stationary_law().subs({K: 1, i: 0, rho: 1/sp.Integer(2)})
    2/3
    """
    return (1 - rho) / (1 - rho ** (K + 1)) * rho**i


# --- (1.2) -> (1.4): the cost -------------------------------------------------

def cost_from_definition(model: StaticModel = PAPER, Z=None):
    r"""The model's cost terms with its law: for the paper, (1.2) with (1.3),
    :math:`\gamma P(X=0) + \rho\mu P(X=K)`.  ``Z`` as in :func:`stationary_law`.

    >>> sp.simplify(cost_from_definition().subs({K: 2, rho: 2, gamma: 1, mu: 1}))
    9/7
    """
    law = stationary_law(model, Z)
    return sp.Add(*(weight * law.subs(i, state) for weight, state in model.cost_terms()))


@functools.cache
def cost(model: StaticModel = PAPER):
    r"""(1.4) derived: (1.2) with the solved law, simplified,
    :math:`C(\rho,\gamma,K) = \frac{(\rho-1)(\gamma+\mu\rho^{K+1})}{\rho^{K+1}-1}`
    (the printed :math:`(1-\rho)(\gamma+\mu\rho^{K+1})/(1-\rho^{K+1})`).

    >>> cost().subs({K: 2, rho: 2, gamma: 1, mu: 1})
    9/7
    >>> sp.factor(cost(StaticModel(service=n * mu, capacity=2)))
    (2*gamma + mu*rho**3)/(rho**2 + 2*rho + 2)
    """
    return sp.simplify(cost_from_definition(model))


def printed_cost():
    r"""(1.4) as printed (reference only).

    >>> sp.simplify(printed_cost() - cost())
    0
    """
    return (1 - rho) * (gamma + mu * rho ** (K + 1)) / (1 - rho ** (K + 1))


@functools.cache
def removable_points(model: StaticModel = PAPER) -> tuple[tuple[sp.Expr, sp.Expr], ...]:
    r"""((ρ₀, C(ρ₀)), ...): the special points of the normaliser's summation
    (its non-catch-all branches ``Eq(f(ρ), c)``), solved for ρ, each with the
    ``limit`` of (1.4) there for symbolic K; the limit must equal the cost
    evaluated with that branch of the normaliser, else raises.

    >>> removable_points()
    ((1, (gamma + mu)/(K + 1)),)
    >>> removable_points(StaticModel(service=2 * mu))
    ((2, (gamma + 2*mu)/(K + 1)),)
    """
    pw = normaliser_piecewise(model)
    if not isinstance(pw, sp.Piecewise):
        return ()
    points = []
    for z_there, cond in pw.args:
        if cond == sp.true:
            continue
        if not isinstance(cond, sp.Eq):
            raise DerivationError(f"normaliser branch condition {cond} is not a point condition")
        at = only_root(sp.solve(cond, rho), f"the special point {cond} of the normaliser")
        value = sp.simplify(sp.limit(cost(model), rho, at))
        direct = cost_from_definition(model, Z=z_there).subs(rho, at)
        require_zero(value - direct, f"limit rho -> {at} of (1.4) against the law with the normaliser's branch {cond}")
        points.append((at, sp.factor(value)))
    return tuple(points)


def cost_at_one(model: StaticModel = PAPER):
    r"""The removable singularity of (1.4) at :math:`\rho = 1` (the uniform
    law for the paper's model): the value :func:`removable_points` finds there.

    >>> cost_at_one()
    (gamma + mu)/(K + 1)
    """
    at_one = [v for at, v in removable_points(model) if at == 1]
    return only_root(at_one, "a removable singularity of the cost at rho = 1")


def cost_filled(model: StaticModel = PAPER):
    r"""(1.4) with its removable singularities filled in: a ``Piecewise``.

    >>> cost_filled(StaticModel(loss_weight=2)).args[0]
    ((gamma + 2*mu)/(K + 1), Eq(rho, 1))
    """
    fills = [(v, sp.Eq(rho, at)) for at, v in removable_points(model)]
    return sp.Piecewise(*fills, (cost(model), True)) if fills else cost(model)


def _power_as_exp(expr):
    """rho**(a K + b) -> exp((a K + b) log rho), so that ``expm1_opt`` can see e**x - 1."""
    expr = expr.replace(lambda e: e.is_Mul, lambda e: sp.powsimp(e, force=True))
    return expr.replace(lambda e: e.is_Pow and e.base == rho and e.exp.has(K),
                        lambda e: sp.exp(e.exp * sp.log(rho)))


def _scaled_by(expr, factor):
    """``expr * factor`` expanded with powers of rho merged."""
    return sp.expand(sp.powsimp(sp.expand(expr * factor), force=True))


@functools.cache
def cost_stable(model: StaticModel = PAPER):
    r"""(1.4) rewritten for floating point by SymPy: for :math:`\rho<1`,
    :math:`\rho^{K+1} = e^{(K+1)\ln\rho}` and ``expm1_opt`` turns the
    cancelling :math:`\rho^{K+1}-1` into ``expm1``; for :math:`\rho > 1`
    numerator and denominator are first multiplied by :math:`\rho^{-(K+1)}`
    (no overflow), then rewritten the same way; at :math:`\rho = 1` the
    limit :func:`cost_at_one`.  Raises for a model whose cost has no
    cancelling :math:`\rho^{K+1}-1` to rewrite.

    >>> cost_stable().args[1][0]
    (gamma + mu*exp((K + 1)*log(rho)))*(rho - 1)/expm1((K + 1)*log(rho))
    """
    num, den = sp.fraction(cost(model))
    scale = rho ** (-(K + 1))
    below = optimize(_power_as_exp(num) / _power_as_exp(den), [expm1_opt])
    above = optimize(_power_as_exp(_scaled_by(num / (rho - 1), scale)) * (rho - 1)
                     / _power_as_exp(_scaled_by(den, scale)), [expm1_opt])
    for branch in (below, above):
        if not branch.has(sp.codegen.cfunctions.expm1):
            raise DerivationError(f"no expm1 rewriting found in {branch}")
    return sp.Piecewise((cost_at_one(model), sp.Eq(rho, 1)), (below, rho < 1), (above, True))


# --- (1.7): the stationarity condition ---------------------------------------

def printed_stationarity():
    """(1.7) as printed: the polynomial whose root is rho(gamma, K) (reference only).

    >>> sp.expand(printed_stationarity().subs({rho: 1}))
    0
    """
    return mu * rho ** (2 * (K + 1)) - (gamma * K + mu * (K + 2)) * rho ** (K + 1) + (K + 1) * (mu + gamma) * rho**K - gamma


def derivative_numerator(model: StaticModel = PAPER):
    r""":math:`P^2\,\partial C/\partial\rho` of the derived cost, expanded,
    P the numerator of the closed-form normaliser (:math:`1-\rho^{K+1}` for
    the paper: the left side of (1.7)).

    >>> sp.expand(derivative_numerator().subs(K, 2) - printed_stationarity().subs(K, 2))
    0
    """
    P, _ = _normaliser_fraction(model)
    return sp.expand(sp.powsimp(sp.simplify(sp.diff(cost(model), rho) * P**2), force=True))


def in_rho_and_t(expr):
    r"""Rewrite powers :math:`\rho^{aK+b}` as :math:`t^a\rho^b` (t = :math:`\rho^K`)
    so that identities with a symbolic exponent become polynomial identities
    (a power :math:`(\rho/c)^{aK+b}` is first split into :math:`\rho^{aK+b}c^{-aK-b}`).

    >>> in_rho_and_t(rho**(2*K + 1))
    rho*t**2
    >>> in_rho_and_t((rho/2)**(K + 1))
    rho*t/(2*2**K)
    """
    expr = sp.expand(sp.powsimp(sp.expand(sp.expand_power_base(expr, force=True)), combine="exp", force=True))

    def split(power):
        a = power.exp.coeff(K)
        return _t**a * rho ** sp.expand(power.exp - a * K)

    return sp.expand(expr.replace(lambda e: e.is_Pow and e.base == rho and e.exp.has(K), split))


def _shifted(s: sp.Sum) -> sp.Sum:
    """A Sum over i from 1 written from 0 (i -> i + 1), its summand simplified."""
    (var, lo, hi), = s.limits
    if lo != 1:
        raise DerivationError(f"{s} does not start at 1")
    moved = s.change_index(var, var - 1, j).xreplace({j: var})
    return sp.Sum(sp.simplify(moved.function), moved.limits)


def _pulled(summand, limits) -> sp.Expr:
    """Sum(summand, limits) with the factors free of the index taken out."""
    outside, inside = sp.expand_power_exp(sp.factor_terms(summand)).as_independent(limits[0], as_Add=False)
    return outside * sp.Sum(inside, limits)


@functools.cache
def deflated_stationarity(model: StaticModel = PAPER):
    r"""Q, the numerator of :math:`\partial C/\partial\rho` over :math:`Z^2`,
    :math:`Z = \sum_{i=0}^K w_i` the normaliser kept a symbolic sum
    (:math:`w_i = p_i/p_0`).  The derived cost with Z left a symbol is
    :math:`(\sum_\text{terms} b)/Z` (checked); then
    :math:`Q = \sum_b (b' Z - b Z')`: a term b free of :math:`\rho` gives
    :math:`-b Z'`, whose zero i = 0 term is dropped and the index shifted to
    start at 0; any other term gives one merged sum
    :math:`\sum_i (b' w_i - b w_i')`.  For the paper's model:

    .. math:: Q(\rho) = \mu\rho^K\sum_{i=0}^{K}(K+1-i)\rho^i - \gamma\sum_{i=0}^{K-1}(i+1)\rho^i

    Q is checked against :math:`Z^2\,\partial C/\partial\rho` of the
    closed-form cost at K = 3 (or at the model's K).

    >>> deflated_stationarity()
    -gamma*Sum(rho**i*(i + 1), (i, 0, K - 1)) + mu*rho**K*Sum(rho**i*(K - i + 1), (i, 0, K))
    >>> deflated_stationarity(StaticModel(loss_weight=2))
    -gamma*Sum(rho**i*(i + 1), (i, 0, K - 1)) + 2*mu*rho**K*Sum(rho**i*(K - i + 1), (i, 0, K))
    """
    w = unnormalised_law(model) / p0
    if w.subs(i, 0) != 1:
        raise DerivationError(f"the unnormalised law is not 1 at state 0: {w.subs(i, 0)}")
    cap = model.capacity
    Z = sp.Symbol("Z", positive=True)
    numerator, denominator = sp.fraction(sp.together(cost_from_definition(model, Z)))
    scale = sp.cancel(denominator / Z)  # a positive constant such as K! when the law's terms have denominators
    if scale.has(Z) or rho in scale.free_symbols or not scale.is_positive:
        raise DerivationError(f"the cost with the normaliser Z kept symbolic is not (terms)/Z: denominator {denominator}")
    numerator = numerator / scale
    dw = sp.diff(w, rho)
    if dw.subs(i, 0) != 0:
        raise DerivationError(f"Z' has a nonzero i = 0 term: {dw.subs(i, 0)}")
    dZ = _shifted(sp.Sum(dw, (i, 1, cap)))
    parts = []
    for b in sp.Add.make_args(sp.expand(sp.powsimp(numerator, force=True))):
        db = sp.diff(b, rho)
        if db == 0:
            parts.append(-b * _pulled(dZ.function, dZ.limits[0]))
        else:
            summand = sp.simplify(sp.powsimp(sp.expand(db * w - b * dw), force=True))
            parts.append(_pulled(summand, (i, 0, cap)))
    q = sp.Add(*parts)
    k = cap if cap.is_Integer else 3
    closed_z = normaliser(model).subs(K, k)
    residual = (q.subs(K, k) - closed_z**2 * sp.diff(cost(model).subs(K, k), rho)).doit()
    require_zero(_radicals_rationalised(residual), f"Q against Z^2 dC/drho of the closed-form cost at K = {k}")
    return q


def _radicals_rationalised(expr):
    r"""``expr`` over one denominator free of square roots of numbers (``radsimp``), expanded, when it has such
    roots; else ``expr``.  A law with irrational terms (service :math:`\mu\sqrt n`: :math:`w_i = \rho^i/\sqrt{i!}`)
    puts :math:`\sqrt 2, \sqrt 3, \sqrt 6` in Z; cancelling :math:`Z^2` against the derivative needs
    :math:`\sqrt 2\sqrt 3 = \sqrt 6`, which the rational-function checks (and ``simplify``) treat as independent
    atoms, so a true identity was left with a nonzero-looking residual.  ``radsimp`` is an identity, so 0 after it
    is 0 before.

    >>> r2, r3 = sp.sqrt(2), sp.sqrt(3)
    >>> _radicals_rationalised(r2 * r3 / (r2 + r3) - sp.sqrt(6) / (r2 + r3))
    0
    """
    if not any(p.base.is_Rational and not p.exp.is_Integer for p in expr.atoms(sp.Pow)):
        return expr
    return sp.expand(sp.radsimp(sp.together(expr)))


@functools.cache
def deflated_closed_form(model: StaticModel = PAPER):
    """Q with its sums evaluated by ``summation`` (the catch-all branch: away from special points).

    >>> sp.simplify(deflated_closed_form().subs(K, 2) - deflated_stationarity().subs(K, 2).doit())
    0
    """
    evaluated = deflated_stationarity(model).replace(
        lambda e: isinstance(e, sp.Sum),
        lambda s: _generic_branch(sp.piecewise_fold(sp.summation(s.function, *s.limits)), "Q's sums"))
    return sp.simplify(evaluated)


def _is_rational_in_rho_and_t(expr) -> bool:
    return in_rho_and_t(expr).is_rational_function(rho, _t)


def _normaliser_fraction(model: StaticModel):
    """(P, R): the closed-form normaliser Z = P / R as SymPy writes it, both
    rational in rho and rho**K; raises (naming the step) otherwise."""
    P, R = sp.fraction(sp.together(normaliser(model)))
    if not (_is_rational_in_rho_and_t(P) and _is_rational_in_rho_and_t(R)):
        raise DerivationError(
            f"(1.7) needs the normaliser as a rational function of rho and rho**K, but SymPy sums it to {P / R}: "
            f"this model has no polynomial (1.7); its stationarity condition is Q = {deflated_stationarity(model)} = 0 "
            f"(deflated_stationarity), or state a numeric capacity")
    return P, R


@functools.cache
def stationarity(model: StaticModel = PAPER):
    r"""(1.7) derived: with the closed-form normaliser :math:`Z = P/R`
    (SymPy's numerator and denominator; :math:`P = 1-\rho^{K+1}`,
    :math:`R = 1-\rho` for the paper), :math:`P^2\,\partial C/\partial\rho = R^2 Q`,
    Q summed in closed form, expanded in powers of :math:`\rho` (compare
    :func:`printed_stationarity`).  Checked: :math:`P^2\,\partial C/\partial\rho`
    of the closed-form cost minus the result vanishes identically (as a
    rational function of :math:`\rho` and :math:`t=\rho^K`).

    >>> sp.expand(in_rho_and_t(stationarity()) - in_rho_and_t(printed_stationarity()))
    0
    >>> stationarity(StaticModel(loss_weight=2)).coeff(rho**(2*K + 2))
    2*mu
    """
    P, R = _normaliser_fraction(model)
    expanded = sp.expand(sp.cancel(R**2 * deflated_closed_form(model)))
    result = sp.collect(expanded.replace(lambda e: e.is_Mul, lambda e: sp.powsimp(e, force=True)),
                        [rho ** (2 * K + 2), rho ** (K + 1), rho**K])
    derivative = P**2 * sp.diff(cost(model), rho)
    require_zero(sp.cancel(in_rho_and_t(derivative) - in_rho_and_t(result)),
                 "(1.7) against P^2 dC/drho of the closed-form cost")
    return result


def stationarity_stable(model: StaticModel = PAPER):
    r"""(1.7) for floating point: :math:`R^2 Q` with Q kept as its sums
    (:func:`deflated_stationarity`) instead of expanded.  The expanded (1.7)
    has a double root at :math:`
ho = 1` and cancels there (float64 returns
    3.6e-15 at :math:`1 \pm 10^{-12}` where the value is 3.9e-23); here
    :math:`(
ho-1)^2` is computed exactly (Sterbenz) and Q has no
    cancellation except next to its own root.

    >>> stationarity_stable()
    (rho - 1)**2*(-gamma*Sum(rho**i*(i + 1), (i, 0, K - 1)) + mu*rho**K*Sum(rho**i*(K - i + 1), (i, 0, K)))
    """
    _, R = _normaliser_fraction(model)
    return sp.factor(R**2) * deflated_stationarity(model)


def _sign_on_range(factor, lo, hi) -> int:
    """+1 or -1 when ``factor`` (a function of the index i) has that sign for every integer lo <= i <= hi:
    factors SymPy knows to be positive are dropped, what is left must be a polynomial of degree <= 1 in i,
    whose sign on the range is that of its two end values; else raises."""
    rest = sp.Mul(*(f for f in sp.Mul.make_args(sp.factor(factor)) if not f.is_positive))
    if rest.free_symbols - {i} and not rest.has(i):
        values = (rest,)
    elif sp.Poly(rest, i).degree() <= 1 if rest.is_polynomial(i) else False:
        values = (rest.subs(i, lo), rest.subs(i, hi))
    else:
        raise DerivationError(f"the sign of {factor} over {lo} <= i <= {hi} is not established")
    for sign in (1, -1):
        if all((sign * v).is_positive for v in values):
            return sign
    raise DerivationError(f"{factor} has no fixed sign over {lo} <= i <= {hi} (end values {values})")


@functools.cache
def unique_minimiser(model: StaticModel = PAPER) -> str:
    r"""Lemma 1's structure, established or refused: every part of Q
    (:func:`deflated_stationarity`) is :math:`c\rho^e\sum_i h(i)\rho^i` with
    :math:`c\,h(i)` of one sign on the index range; when every negative part's
    powers of :math:`\rho` lie below every positive part's, Q's coefficients
    change sign exactly once, so (Descartes) Q has exactly one positive root,
    Q < 0 before it and > 0 after: C has a unique minimiser.  Returns the
    argument as text; raises :class:`DerivationError` naming the step that fails.

    >>> print(unique_minimiser())
    Q's negative terms have powers rho^0..rho^(K - 1), its positive terms rho^K..rho^(2*K): one sign change, one positive root (Descartes)
    """
    ranges = {1: [], -1: []}
    for part in sp.Add.make_args(deflated_stationarity(model)):
        c, s = part.as_independent(sp.Sum, as_Add=False)
        if not isinstance(s, sp.Sum):
            raise DerivationError(f"Q's term {part} is not a multiple of one sum")
        (var, lo, hi), = s.limits
        h = sp.simplify(sp.expand_power_base(s.function, force=True) / rho**var)
        k, power = sp.expand_power_base(c, force=True).as_independent(rho, as_Add=False)
        e = power.as_base_exp()[1] if power != 1 else 0
        if rho in h.free_symbols or (power != 1 and power.as_base_exp()[0] != rho):
            raise DerivationError(f"Q's term {part} is not a power of rho times a sum of powers of rho")
        sign = _sign_on_range(k * h.subs(var, i), lo, hi)
        ranges[sign].append((e + lo, e + hi))
    if not ranges[1] or not ranges[-1]:
        word = "positive" if ranges[1] else "negative"
        raise DerivationError(f"Q = {deflated_stationarity(model)} is {word} for every rho > 0: C is monotone, "
                              "there is no interior minimiser (Lemma 1's sign change is missing)")
    top_negative, bottom_positive = (max(r[1] for r in ranges[-1]) if len(ranges[-1]) == 1 else None,
                                     min(r[0] for r in ranges[1]) if len(ranges[1]) == 1 else None)
    if top_negative is None or bottom_positive is None or not (bottom_positive - top_negative).is_positive:
        raise DerivationError(f"Q's negative and positive terms interleave ({ranges[-1]} and {ranges[1]}): "
                              "Descartes' rule does not give a unique positive root")
    (lo_n, _), = ranges[-1]
    (_, hi_p), = ranges[1]
    return (f"Q's negative terms have powers rho^{lo_n}..rho^({top_negative}), its positive terms "
            f"rho^{bottom_positive}..rho^({hi_p}): one sign change, one positive root (Descartes)")


def deflated_at_one(model: StaticModel = PAPER, at=1):
    r""":math:`Q(1) = \frac{K+1}{2}\,(\mu(K+2) - \gamma K)` for the paper (Q at ``at`` in general).

    >>> deflated_at_one()
    -(K + 1)*(K*gamma - K*mu - 2*mu)/2
    """
    return sp.factor(deflated_stationarity(model).subs(rho, at).doit())


def gamma_K(model: StaticModel = PAPER, at=1):
    r""":math:`\gamma(K) = \mu(K+2)/K`: the unique idle weight with
    :math:`Q(1) = 0`, i.e. with minimiser :math:`\rho(\gamma,K) = 1`
    (Lemma 1; ``at`` moves the point).  Needs :func:`unique_minimiser` (else
    a root of Q is not "the minimiser"); Q(at) is linear in the weight, so
    the root is unique; raises when SymPy shows it is not positive.  A root
    whose sign SymPy cannot decide for symbolic K (the 2 mu model's
    :math:`\mu(2\cdot2^K K+1)/(2^K(2\cdot2^K-K-2))`) is returned: substitute
    the K of interest to decide it.

    >>> gamma_K().subs(K, 10)
    6*mu/5
    """
    w0 = model.idle_weight
    if not isinstance(w0, sp.Symbol):
        raise DerivationError(f"gamma(K) solves Q({at}) = 0 for the idle weight, which is not a symbol in this model: {w0}")
    unique_minimiser(model)
    root = sp.factor(only_root(sp.solve(sp.Eq(deflated_at_one(model, at), 0), w0), f"Q({at}) = 0 for {w0}"))
    if root.is_positive is False or root.is_zero:
        raise DerivationError(f"Q({at}) = 0 gives {w0} = {root}: no positive weight puts the minimiser at rho = {at}")
    return root


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


@dataclass(frozen=True)
class ModelFormulas:
    """The closed forms derived for a user's model (:func:`model_formulas`) and the ones refused, with the reason."""
    formulas: tuple[Formula, ...]
    refused: tuple[tuple[str, str], ...]  # (formula name, the DerivationError's message)


def model_formulas(model: StaticModel) -> ModelFormulas:
    r"""Every closed form of this module that derives for ``model``, as `Formula` objects for
    ``crawlmath.derive.codegen.render(name, formulas)`` (the text of a numeric module: float, scalar and
    mpmath functions of each); the ones whose derivation refuses are listed with the step that failed.
    Arguments: rho, then the model's other symbols (gamma, K, mu, ...) in that order.

    >>> mf = model_formulas(StaticModel(service=n * mu, capacity=3))
    >>> [f.name for f in mf.formulas], mf.formulas[3].args
    (['cost', 'stationarity_deflated', 'deflated_at_one', 'gamma_K', 'stationarity'], (mu,))
    >>> print(model_formulas(StaticModel(loss_weight=0)).refused[0][0])
    gamma_K
    """
    steps = (("cost", lambda: cost_filled(model), "the model's cost, removable singularities filled"),
             ("stationarity_deflated", lambda: deflated_stationarity(model), "Q = Z^2 dC/drho, Z kept a sum"),
             ("deflated_at_one", lambda: deflated_at_one(model), "Q(1)"),
             ("gamma_K", lambda: gamma_K(model), "the idle weight whose minimiser is rho = 1"),
             ("stationarity", lambda: stationarity(model), "P^2 dC/drho, P the normaliser's numerator"))
    built, refused = [], []
    for name, derive_it, doc in steps:
        try:
            expr = derive_it()
        except DerivationError as exc:
            refused.append((name, str(exc)))
            continue
        order = [rho, gamma, K, mu]
        args = tuple([a for a in order if a in expr.free_symbols]
                     + sorted(expr.free_symbols - set(order) - {i}, key=str))
        built.append(Formula(name, args, expr, f"{CITE} for {model}", doc, paper="liu-nain",
                             requires=tuple(r for a, r in ((rho, _MODEL["rho"]), (K, _MODEL["K"])) if a in args),
                             inputs=(assumed(f"the model {model}"), derived(name, f"crawlmath.derive.static_mm1k on that model"))))
    return ModelFormulas(tuple(built), tuple(refused))


_DOMAIN = {"rho": (1e-3, 20.0), "gamma": (1e-2, 20.0), "K": (2, 400), "mu": (1e-2, 10.0)}

# Provenance of the formulas below (derive/formula.py: Input).
_CHAIN = assumed("the M/M/1/K chain of §1.2.1: arrivals at rho mu, service mu in every state 1..K, capacity K >= 2",
                 "StaticModel: the paper's instance PAPER")
_COST_DEF = assumed("the cost (1.2) gamma P(X=0) + rho mu P(X=K)", "StaticModel.cost_terms of PAPER")
_LAW = derived("the stationary law (1.3)", "balance equations -> cut equations (checked) -> product -> summation; "
               "every balance equation checked on the result")
_COST = derived("(1.4)", "the cost terms with the derived law, simplified")
_FILL = derived("C at rho = 1", "limit of (1.4), checked against the normaliser's rho = 1 branch (uniform law)")
_Q = derived("Q = Z^2 dC/drho with Z kept a sum", "differentiating the derived cost; checked against Z^2 dC/drho of (1.4) at K = 3")
_17 = derived("(1.7) = R^2 Q", "R the denominator SymPy finds in the summed normaliser; checked: P^2 dC/drho - (1.7) = 0 identically")


# §1.2.1's ranges, closed where the formulas still hold: gamma = 0 and mu = 0 are kept (Proposition 2's check
# evaluates Q's two linear parts as Q at gamma = 0 and at mu = 0); only Lemma 1 needs gamma, mu > 0
_MODEL = {"rho": sp.Ge(rho, 0, evaluate=False), "gamma": sp.Ge(gamma, 0, evaluate=False),
          "K": sp.Ge(K, 2, evaluate=False), "mu": sp.Ge(mu, 0, evaluate=False), "lambda": sp.Gt(lam, 0, evaluate=False)}


def _requires(*args):
    return tuple(_MODEL[str(a)] for a in args)


def _inputs(*steps):
    return (_CHAIN, _COST_DEF, _LAW, _COST) + steps


def formulas() -> list[Formula]:
    """The closed forms emitted to ``numeric/generated/static_mm1k.py``.

    >>> [f.name for f in formulas()][:2]
    ['cost', 'cost_infinite_K']
    """
    return [dataclasses.replace(f, requires=_requires(*f.args)) for f in _formulas()]


def _formulas() -> list[Formula]:
    return [
        Formula("cost", (rho, gamma, K, mu), sp.Piecewise((cost_at_one(), sp.Eq(rho, 1)), (cost(), True)),
                "(Liu–Nain 2005, eq. 1.4)",
                "C(rho, gamma, K): starvation/loss cost of the M/M/1/K model, stable form, removable singularity at rho = 1 filled in",
                printed=printed_cost(), stable=cost_stable(), domain=_DOMAIN,
                inputs=_inputs(_FILL, derived("the float form", "expm1 rewriting by SymPy's expm1_opt, rho > 1 scaled by rho^-(K+1)"))),
        Formula("cost_infinite_K", (rho, gamma, mu), cost_infinite_K(), "(Liu–Nain 2005, text after eq. 1.11)",
                "C(rho, gamma, oo) = lim_{K->oo} C(rho, gamma, K)",
                domain={k: _DOMAIN[k] for k in ("rho", "gamma", "mu")},
                inputs=_inputs(derived("the limit", "(1.4) as a function of u = rho^(K+1), limits u -> 0 and u -> oo"))),
        Formula("stationarity", (rho, gamma, K, mu), stationarity(), "(Liu–Nain 2005, eq. 1.7)",
                "The stationarity polynomial (1.7), derived; dC/drho = (1.7)/(1 - rho**(K+1))**2; double root at rho = 1",
                printed=printed_stationarity(), stable=stationarity_stable(), scale=term_magnitudes(stationarity_stable()), settle_mp=True,
                domain={**_DOMAIN, "rho": (0.05, 2.0), "K": (2, 40)},
                inputs=_inputs(_Q, _17, derived("the float form (rho - 1)^2 Q", "R^2 = (1 - rho)^2 found by SymPy; Q kept as its two sums"))),
        Formula("stationarity_deflated", (rho, gamma, K, mu), deflated_stationarity(), "(Liu–Nain 2005, eq. 1.7 / (rho-1)**2)",
                "Q(rho) = (1.7)/(rho-1)**2 as two sums with positive coefficients; its unique positive root is rho(gamma, K)",
                domain={**_DOMAIN, "rho": (0.05, 2.0), "K": (2, 100)}, inputs=_inputs(_Q),
                scale=term_magnitudes(deflated_stationarity())),
        Formula("deflated_at_one", (gamma, K, mu), deflated_at_one(), "(Liu–Nain 2005, eq. 1.7 / (rho-1)**2 at rho = 1)",
                "Q(1) = (K+1)/2 (mu (K+2) - gamma K): its sign says on which side of 1 the root rho(gamma, K) lies",
                domain={k: _DOMAIN[k] for k in ("gamma", "K", "mu")}, inputs=_inputs(_Q),
                scale=term_magnitudes(sp.expand(deflated_at_one()))),
        Formula("gamma_K", (K, mu), gamma_K(), "(Liu–Nain 2005, Lemma 1)",
                "gamma(K) = mu (K+2)/K, the weight at which the minimiser is rho = 1",
                domain={"K": (2, 10**6), "mu": (1e-3, 1e3)},
                inputs=_inputs(_Q, derived("uniqueness of the minimiser", "Descartes on the sign pattern of Q's parts (unique_minimiser)"),
                               derived("gamma(K)", "the root of Q(1) = 0 for gamma"))),
        Formula("large_K_rule", (lam, mu, gamma), large_K_rule_from_limit(), "(Liu–Nain 2005, eqs. 1.11-1.12)",
                "Large-K approximation of the optimal number of crawlers N(gamma, K), from (1.11)",
                printed=large_K_rule(), domain={"lambda": (1e-3, 1.0), "mu": (0.1, 10.0), "gamma": (1e-2, 10.0)},
                inputs=_inputs(derived("C(rho, gamma, oo)", "limits of (1.4) in u = rho^(K+1)"),
                               typed("the candidates rho+- = (lambda/mu) ceil(mu/lambda), (lambda/mu) floor(mu/lambda) (text after (1.11))",
                                     "the feasible loads N lambda/mu next to 1; C(., gamma, oo) decreases below 1 and increases above "
                                     "(derived limit), so the optimum over integer N is at one of them; the rule is compared with "
                                     "the numeric optimum N(gamma, 20000) on 12 instances (liu-nain.static.eq-1.12)"))),
    ]
