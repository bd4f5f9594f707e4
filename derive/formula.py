"""`Formula`: a derived closed form, ready to be emitted as code, with its provenance.

A formula carries up to three expressions of the same quantity:

- ``expr`` (also ``derived``): what SymPy produced from the model -- never
  typed in from the paper;
- ``printed``: the paper's printed form, for comparison only (the registry
  claims ``<paper>.formula.<name>.printed`` check "derived = printed"); it is
  never emitted as code;
- ``stable``: a rewriting of ``expr`` for floating point (series near a
  removable singularity, ``expm1``/``log1p``); codegen emits it instead of
  ``expr``, and the claim ``<paper>.formula.<name>.stable`` checks it against
  ``expr``.

``domain`` maps argument names to ``(lo, hi)``: the region where the
generated float code must agree with its mpmath twin (the accuracy sweep
samples it, log-spaced when it spans decades; integer arguments as integers).
``paper`` is the registry's paper key (``liu-nain``, ``coffman``, ...); when
omitted it is read from ``source``.

>>> import sympy as sp
>>> x = sp.Symbol("x", positive=True)
>>> f = Formula("square", (x,), x**2, "(example)", "x squared", paper="coffman")
>>> f.latex()
'x^{2}'
>>> f.emitted is f.derived
True
>>> from sympy.codegen.cfunctions import expm1
>>> g = Formula("em1", (x,), sp.exp(x) - 1, "(Coffman et al. 1997, example)", "e^x - 1",
...             stable=expm1(x), domain={"x": (1e-12, 10.0)})
>>> g.emitted, g.paper_key
(expm1(x), 'coffman')
"""
from __future__ import annotations

import keyword
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import sympy as sp
from sympy.printing.latex import LatexPrinter

# How a citation names each paper of the registry (proofs/registry.PAPERS).
_PAPER_NAMES = {"liu-nain": ("liu–nain", "liu-nain", "liu and nain"), "coffman": ("coffman",),
                "avrachenkov": ("avrachenkov",), "buijsrogge": ("buijsrogge",)}


def paper_of(source: str) -> str | None:
    """The registry paper key a citation names, or None when it names none or several.

    >>> paper_of("(Liu–Nain 2005, eq. 1.4)")
    'liu-nain'
    """
    text = source.lower()
    hits = [key for key, names in _PAPER_NAMES.items() if any(n in text for n in names)]
    return hits[0] if len(hits) == 1 else None


class _Latex(LatexPrinter):
    """SymPy's LaTeX printer, with the floating-point helpers ``expm1`` and
    ``log1p`` of ``stable`` forms typeset as the mathematics they compute
    (SymPy would print ``\\operatorname{expm}_{1}``)."""

    def _print_expm1(self, expr):
        return r"\left(e^{%s} - 1\right)" % self._print(expr.args[0])

    def _print_log1p(self, expr):
        return r"\ln\left(%s\right)" % self._print(1 + expr.args[0])


def latex(expr: sp.Expr) -> str:
    """LaTeX of ``expr``, with ``expm1``/``log1p`` typeset as
    :math:`(e^x - 1)` and :math:`\\ln(1 + x)`.

    >>> from sympy.codegen.cfunctions import expm1, log1p
    >>> x = sp.Symbol("x")
    >>> print(latex(expm1(2*x) / x + log1p(-x)))
    \\ln\\left(1 - x\\right) + \\frac{\\left(e^{2 x} - 1\\right)}{x}
    """
    return _Latex().doprint(expr)


@dataclass(frozen=True)
class Formula:
    """One derived formula: the SymPy expression derived from the model (``expr``), its arguments, citation and doc;
    optionally the paper's printed form (compared, never emitted), a floating-point-stable rewriting and a domain.
    """
    name: str  # identifier of the generated function
    args: tuple[sp.Symbol, ...]  # its parameters, in order (integer=True symbols are integers)
    expr: sp.Expr  # DERIVED: what SymPy produced from the model
    source: str  # citation, e.g. "(Liu–Nain 2005, eq. 1.4)"
    doc: str  # one line: what it is, in the paper's notation
    printed: sp.Expr | None = None  # the paper's printed form: compared, never emitted
    stable: sp.Expr | None = None  # a floating-point rewriting of expr: emitted instead of expr
    domain: Mapping[str, tuple[float, float]] | None = field(default=None, hash=False, compare=False)
    paper: str | None = None  # registry paper key; default: read from source

    def __post_init__(self):
        if not self.name.isidentifier() or keyword.iskeyword(self.name):
            raise ValueError(f"formula name {self.name!r} is not an identifier")
        for label, e in (("expr", self.expr), ("printed", self.printed), ("stable", self.stable)):
            if e is None:
                continue
            free = sp.sympify(e).free_symbols - set(self.args)
            if free:
                raise ValueError(f"formula {self.name}: {label} has free symbols {sorted(map(str, free))} that are not arguments")
        if self.domain is not None:
            self._check_domain()
        if self.paper is not None and self.paper not in _PAPER_NAMES:
            raise ValueError(f"formula {self.name}: unknown paper key {self.paper!r}")

    def _check_domain(self) -> None:
        names = {str(a) for a in self.args}
        unknown = set(self.domain) - names
        if unknown:
            raise ValueError(f"formula {self.name}: domain names {sorted(unknown)} are not arguments")
        for key, bounds in self.domain.items():
            lo, hi = bounds
            if not (math.isfinite(lo) and math.isfinite(hi) and lo <= hi):
                raise ValueError(f"formula {self.name}: domain[{key!r}] = {bounds!r} must be finite with lo <= hi")

    @property
    def derived(self) -> sp.Expr:
        """The derived closed form (the same object as ``expr``)."""
        return self.expr

    @property
    def emitted(self) -> sp.Expr:
        """What codegen and the exports print: ``stable`` when given, else ``expr``."""
        return self.expr if self.stable is None else self.stable

    @property
    def paper_key(self) -> str | None:
        """The registry paper key: ``paper`` when given, else the one ``source`` names."""
        return self.paper or paper_of(self.source)

    def latex(self) -> str:
        """LaTeX of the emitted form (what the exported code computes)."""
        return latex(self.emitted)
