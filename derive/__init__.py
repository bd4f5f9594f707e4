"""SymPy derivations, one module per model.

Every function returns SymPy objects and cites the paper equation it
derives.  A module that has closed forms for numeric use defines
``formulas() -> list[Formula]``; ``crawlmath codegen`` turns those into
:mod:`crawlmath.numeric.generated` (see :mod:`.codegen`).

A derivation that meets a step it cannot carry out (a side condition that
does not vanish, an equation with no or several admissible roots) raises
:class:`DerivationError`; it never ``assert``s and never falls back on the
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

import sympy as sp


class DerivationError(ArithmeticError):
    """A symbolic step of a derivation did not come out as the model requires.

    >>> issubclass(DerivationError, ArithmeticError)
    True
    """


def require_zero(expr, what: str) -> None:
    """Raise :class:`DerivationError` unless ``expr`` simplifies to 0.

    >>> require_zero(sp.Integer(0), "zero")
    """
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
