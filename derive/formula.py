"""`Formula`: a derived closed form, ready to be emitted as code.

>>> import sympy as sp
>>> x = sp.Symbol("x")
>>> f = Formula("square", (x,), x**2, "(example)", "x squared")
>>> f.latex()
'x^{2}'
"""
from __future__ import annotations

import keyword
from dataclasses import dataclass

import sympy as sp


@dataclass(frozen=True)
class Formula:
    name: str  # identifier of the generated function
    args: tuple[sp.Symbol, ...]  # its parameters, in order
    expr: sp.Expr  # the closed form
    source: str  # citation, e.g. "(Liu–Nain 2005, eq. 1.4)"
    doc: str  # one line: what it is, in the paper's notation

    def __post_init__(self):
        if not self.name.isidentifier() or keyword.iskeyword(self.name):
            raise ValueError(f"formula name {self.name!r} is not an identifier")
        free = self.expr.free_symbols - set(self.args)
        if free:
            raise ValueError(f"formula {self.name}: free symbols {sorted(map(str, free))} are not arguments")

    def latex(self) -> str:
        return sp.latex(self.expr)
