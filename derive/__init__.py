"""SymPy derivations, one module per model.

Every function returns SymPy objects and cites the paper equation it
derives.  A module that has closed forms for numeric use defines
``formulas() -> list[Formula]``; ``crawlmath codegen`` turns those into
:mod:`crawlmath.numeric.generated` (see :mod:`.codegen`).

Stating your own model: a derivation module takes its model as input, the
paper's model being the default instance.  For the static crawler count
(:mod:`.static_mm1k`), a :class:`~.static_mm1k.StaticModel` names the
service law mu(n), the capacity and the weights of the two cost
terms; every function then answers for that model, or refuses naming the
step that no longer holds:

>>> from crawlmath.derive import DerivationError as Refused, static_mm1k as st
>>> doubled = st.StaticModel(loss_weight=2)           # losses cost twice as much
>>> st.gamma_K(doubled)
2*mu*(K + 2)/K
>>> st.gamma_K(st.StaticModel(service=st.n * st.mu, capacity=3))   # mu(n) = n mu, K = 3
49*mu/90
>>> try:
...     st.gamma_K(st.StaticModel(loss_weight=0))
... except Refused as exc:
...     print(str(exc)[-65:])
there is no interior minimiser (Lemma 1's sign change is missing)

How to state a modified model:

1. start from the paper's instance and change only the parts you mean to
   change (``StaticModel(loss_weight=2)``, ``StaticModel(service=n * mu,
   capacity=3)``); a part is a SymPy expression in the model's own symbols
   (``n``, ``mu``, ``K``, ``gamma``; ``rho`` is the decision variable and may
   not appear in a part);
2. call the derivation you want on it (``cost``, ``gamma_K``, ...): each
   answers for that model or raises :class:`DerivationError` naming the step;
3. ``static_mm1k.model_formulas(model)`` collects what derives for the model
   (and what is refused, with the reason) as `Formula` objects, and
   ``codegen.render("my_model", list(model_formulas(model).formulas))`` is the
   text of a numeric module for it (float, scalar and mpmath functions of each);
4. or write the model as a JSON file and run ``crawlmath codegen --model FILE
   [--lang c|latex]`` (:mod:`.user_model`: the schema, the expression grammar
   -- never ``eval`` -- and the registry of model kinds).  The tutorial
   ``docs/tutorials/derive-your-model.md`` walks through both routes.

>>> from crawlmath.derive import user_model
>>> user_model.build({"kind": "static-mm1k", "name": "busy", "service": "n*mu", "capacity": 3})
StaticModel(service=mu*n, capacity=3, idle_weight=gamma, loss_weight=1)

A derivation that meets a step it cannot carry out (a side condition that
does not vanish, an equation with no or several admissible roots) raises
:class:`DerivationError`; it never uses ``assert`` and never falls back on the
printed form.

>>> import sympy as sp
>>> x = sp.Symbol("x")
>>> require_zero(sp.sin(x)**2 + sp.cos(x)**2 - 1, "Pythagoras")
>>> try:
...     require_zero(x, "x vanishes")
... except DerivationError as exc:
...     print(exc)
x vanishes: residual x is not identically zero
"""
from __future__ import annotations

import functools

import sympy as sp


class DerivationError(ArithmeticError):
    """A symbolic step of a derivation did not come out as the model requires.

    >>> issubclass(DerivationError, ArithmeticError)
    True
    """


@functools.cache
def vanishes_identically(expr) -> bool:
    """True when ``expr`` is 0 in the field of rational functions Q(g_1, ..., g_r) whose
    indeterminates g are its symbols and every other atom it is built from by +, * and
    integer powers (exp(..), log(..), sqrt(..), Sum(..), any number other than a rational):
    then it vanishes for every value of those atoms, in particular for the actual ones.
    False means only "not shown" (an identity between the atoms, such as exp(2x) = exp(x)^2,
    is not used): callers fall back on ``simplify``.  Sparse field arithmetic (SymPy's
    ``QQ.frac_field``) with a gcd at every step, where ``cancel`` expands one common
    numerator first (6.6 s instead of 0.04 s for the three-page C* of Theorem 4.1).

    >>> h, t = sp.symbols("h t", positive=True)
    >>> vanishes_identically((h**2 - 1) / (h - 1) - h - 1), vanishes_identically(sp.exp(2 * t) - (sp.exp(t) + 1) * (sp.exp(t) - 1) - 1)
    (True, False)
    """
    atoms: dict = {}

    def generators(e):
        if e.is_Add or e.is_Mul:
            for a in e.args:
                generators(a)
        elif e.is_Pow and e.exp.is_Integer:
            generators(e.base)
        elif not e.is_Rational:
            atoms.setdefault(e, sp.Dummy())

    expr = sp.sympify(expr)
    if expr.has(sp.zoo, sp.oo, -sp.oo, sp.nan):  # not a rational function at all: indeterminates would hide it
        return False
    generators(expr)
    if not atoms:
        return expr == 0
    F = sp.QQ.frac_field(*atoms.values())
    return F.from_sympy(expr.xreplace(atoms)) == F.zero


def is_identically_zero(expr) -> bool:
    """``expr`` is identically 0: by :func:`vanishes_identically` (exact,
    cheap), else ``simplify`` reduces it to 0; so it decides at least what
    ``simplify`` alone did.

    >>> x = sp.Symbol("x")
    >>> is_identically_zero(sp.sin(x)**2 + sp.cos(x)**2 - 1), is_identically_zero(x)
    (True, False)
    """
    return (isinstance(expr, sp.Expr) and vanishes_identically(expr)) or sp.simplify(expr) == 0


def require_zero(expr, what: str) -> None:
    """Raise :class:`DerivationError` unless ``expr`` is identically 0
    (:func:`is_identically_zero`; the residual shown is ``simplify``'s).

    >>> require_zero(sp.Integer(0), "zero")
    """
    if isinstance(expr, sp.Expr) and vanishes_identically(expr):
        return
    residual = sp.simplify(expr)
    if residual != 0:
        raise DerivationError(f"{what}: residual {residual} is not identically zero")


def only_root(roots, what: str):
    """The single element of ``roots`` (a list from ``sp.solve``), or raise.

    >>> only_root([3], "x - 3 = 0")
    3
    """
    roots = list(roots)
    if len(roots) != 1:
        raise DerivationError(f"{what}: expected one admissible root, got {roots}")
    return roots[0]
