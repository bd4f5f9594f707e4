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

``inputs`` records the provenance of what the derivation starts from and
builds on, one :class:`Input` each: ``derived`` (SymPy produced it from the
model; ``how`` says from what), ``typed`` (typed in, from the paper or by us,
and checked: ``how`` names the check and the instances it covers) or
``assumed`` (a model statement taken as given, e.g. the chain's rates or the
cost's definition).  A formula whose module has not been audited has no
inputs and says so (:meth:`Formula.provenance`), rather than claiming
"derived".

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
>>> f.provenance()
'provenance not stated (module not audited)'
>>> Formula("square", (x,), x**2, "(example)", "x squared", paper="coffman",
...         inputs=(assumed("x > 0"), derived("x**2", "by multiplication"))).provenance()
'assumed: x > 0; derived: x**2 (by multiplication)'
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
    """SymPy's LaTeX printer with the papers' ``\\ln``, and the floating-point
    helpers ``expm1`` and ``log1p`` of ``stable`` forms typeset as the
    mathematics they compute (SymPy would print ``\\operatorname{expm}_{1}``)."""

    def __init__(self):
        super().__init__({"ln_notation": True})

    def _print_expm1(self, expr):
        return r"\left(e^{%s} - 1\right)" % self._print(expr.args[0])

    def _print_log1p(self, expr):
        return r"\ln\left(%s\right)" % self._print(1 + expr.args[0])


def latex(expr: sp.Expr) -> str:
    """LaTeX of ``expr``, with ``log`` as :math:`\\ln` and ``expm1``/``log1p`` typeset as
    :math:`(e^x - 1)` and :math:`\\ln(1 + x)`.

    >>> from sympy.codegen.cfunctions import expm1, log1p
    >>> x = sp.Symbol("x")
    >>> print(latex(expm1(2*x) / x + log1p(-x) + sp.log(x)))
    \\ln{\\left(x \\right)} + \\ln\\left(1 - x\\right) + \\frac{\\left(e^{2 x} - 1\\right)}{x}
    """
    return _Latex().doprint(expr)


# --- the papers' arrangement --------------------------------------------------------------
# SymPy's canonical order writes (rho - 1)/(rho^(K+1) - 1) and rho^K (K gamma + K mu + gamma + mu) where the papers
# write (1 - rho)/(1 - rho^(K+1)) and rho^K (K + 1)(gamma + mu).  `paper_form` steers the printing with identities
# only (a sign moved between two factors, a polynomial factored), so what is typeset is still the derived formula.

def _one_minus(f) -> bool:
    """``f`` is a - 1 with a a symbol or a power (rho, rho^(K+1)): printed 1 - a after a sign flip."""
    return (f.is_Add and len(f.args) == 2 and sp.S.NegativeOne in f.args
            and all(t.is_Symbol or t.is_Pow for t in f.args if t != -1))


def _flipped(f):
    return sp.Add(*(-t for t in f.args), evaluate=False)


def _sign_pairs(product, like=None):
    """``product`` with pairs of factors a - 1 (one above, one below the fraction bar; or one with a negative
    coefficient) written 1 - a: (rho - 1)/(rho^(K+1) - 1) -> (1 - rho)/(1 - rho^(K+1)), -gamma (rho - 1) -> gamma (1 - rho);
    with ``like`` (the paper's printed form) only where the paper writes 1 - a (Avrachenkov et al. write R - 1)."""
    above, below = [], []
    for f in product.args:
        if f.is_Pow and f.exp == -1:
            below.append(f.base)
        else:
            above.append(f)
    def wanted(f):
        return _one_minus(f) and (like is None or like.has(_flipped(f).doit()))

    up = [k for k, f in enumerate(above) if wanted(f)]
    down = [k for k, f in enumerate(below) if _one_minus(f)]
    negative = [k for k, f in enumerate(above) if f.is_Number and f.is_negative]
    pairs = list(zip(up, down))
    if not pairs and not (negative and len(up) == 1):
        return product
    for i, j in pairs:
        above[i], below[j] = _flipped(above[i]), _flipped(below[j])
    if not pairs:
        above[up[0]], above[negative[0]] = _flipped(above[up[0]]), -above[negative[0]]
    above = [f for f in above if f != 1]
    return sp.Mul(*above, *(sp.Pow(f, -1, evaluate=False) for f in below), evaluate=False)


def _factored(f):
    """A polynomial sum factored when that is shorter (K gamma + K mu + gamma + mu -> (K + 1)(gamma + mu)), and a sum
    of negative terms written -(...), so that the product it sits in shows the sign in front."""
    if not f.is_Add or f.has(sp.Sum) or not f.is_polynomial(*f.free_symbols):
        return f
    g = sp.factor(f)
    g = g if sp.count_ops(g) < sp.count_ops(f) else f
    if g.is_Add and all(t.could_extract_minus_sign() for t in g.args):
        return sp.Mul(-1, -g, evaluate=False)
    return g


def _factor_parts(product):
    parts = [_factored(f) for f in product.args]
    signs = [f for f in parts if f.is_Mul and f.args[0] == -1]
    if not signs:
        return product.func(*parts)
    rest = [a for f in parts for a in (f.args[1:] if f.is_Mul and f.args[0] == -1 else (f,))]
    return sp.Mul((-1) ** len(signs), *rest, evaluate=False)  # the sign first: printed in front of the term


def paper_form(expr: sp.Expr, like: sp.Expr | None = None) -> sp.Expr:
    """``expr`` arranged as the papers print it, by identities only: the polynomial sums of each product factored
    when shorter (a sum of negative terms with its sign in front), then sign pairs a - 1 written 1 - a (with
    ``like``, the paper's printed form, only where it writes 1 - a).

    >>> rho, g, mu = sp.symbols("rho gamma mu", positive=True)
    >>> K = sp.Symbol("K", integer=True, positive=True)
    >>> print(latex(paper_form((rho - 1) * (g + mu * rho**(K + 1)) / (rho**(K + 1) - 1))))
    \\frac{\\left(1 - \\rho\\right) \\left(\\gamma + \\mu \\rho^{K + 1}\\right)}{1 - \\rho^{K + 1}}
    >>> print(latex(paper_form(rho**K * (K*g + K*mu + g + mu) + rho**(K + 1) * (-K*g - 2*mu))))
    \\rho^{K} \\left(K + 1\\right) \\left(\\gamma + \\mu\\right) - \\rho^{K + 1} \\left(K \\gamma + 2 \\mu\\right)
    """
    expr = expr.replace(lambda e: e.is_Mul, _factor_parts)
    return expr.replace(lambda e: e.is_Mul, lambda e: _sign_pairs(e, like))


def term_magnitudes(expr: sp.Expr) -> sp.Expr:
    """``expr`` with every term of every sum taken positive (numbers by their absolute value; an even power kept
    as it is, being nonnegative; integer-valued parts, exact in floating point, kept): for positive symbols, the size of the terms whose rounding errors add up when
    ``expr`` is evaluated in floating point, the scale of a formula that crosses zero (``Formula.scale``).

    >>> rho, g = sp.symbols("rho gamma", positive=True)
    >>> term_magnitudes((rho - 1)**2 * (rho**2 - 3*g))
    (3*gamma + rho**2)*(rho - 1)**2
    >>> term_magnitudes(1 - 1/rho + sp.log(g) / rho)
    1 + Abs(log(gamma))/rho + 1/rho
    """
    if expr.is_Number:
        return abs(expr)
    if expr.free_symbols and all(v.is_integer for v in expr.free_symbols):
        return expr  # integer arithmetic (K - i + 1): exact in floating point, no rounding to account for
    if expr.is_Pow:
        return expr if expr.exp.is_even else sp.Pow(term_magnitudes(expr.base), expr.exp)
    if isinstance(expr, sp.Sum):
        return sp.Sum(term_magnitudes(expr.function), *expr.limits)
    if expr.is_Add or expr.is_Mul:
        return expr.func(*(term_magnitudes(a) for a in expr.args))
    return expr if expr.is_positive else sp.Abs(expr)  # a function value (log h, expm1(u)) by its size


KINDS = ("derived", "typed", "assumed")


@dataclass(frozen=True)
class Input:
    """One input of a derivation: ``what`` it is, its ``kind`` (``derived``,
    ``typed`` = typed in and checked, ``assumed`` = a model statement) and
    ``how``: for derived, from what; for typed, the check and its instances
    (required); for assumed, optional context.

    >>> Input("(1.3)", "typed")
    Traceback (most recent call last):
    ...
    ValueError: input '(1.3)' is typed: say how it was checked and on which instances
    """
    what: str
    kind: str
    how: str = ""

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"input {self.what!r}: kind {self.kind!r} is not one of {KINDS}")
        if self.kind == "typed" and not self.how:
            raise ValueError(f"input {self.what!r} is typed: say how it was checked and on which instances")

    def __str__(self):
        return f"{self.kind}: {self.what}" + (f" ({self.how})" if self.how else "")


def derived(what: str, how: str) -> Input:
    """An input SymPy derived (``how``: from what)."""
    return Input(what, "derived", how)


def typed(what: str, check: str) -> Input:
    """An input typed in and checked (``check``: the check and its instances)."""
    return Input(what, "typed", check)


def assumed(what: str, context: str = "") -> Input:
    """A model statement taken as given."""
    return Input(what, "assumed", context)


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
    inputs: tuple[Input, ...] = field(default=(), hash=False, compare=False)  # provenance; () = not audited
    # for a formula that crosses zero: the size its float error is measured against (GENERATED_REL * scale), the
    # same sums with every term taken positive; None: the error is relative to the value itself
    scale: sp.Expr | None = field(default=None, hash=False, compare=False)
    # the model's domain: relations "argument op bound", the bound a number (K >= 2) or an expression in the other
    # arguments (h >= exp(-mu*m)); the generated functions refuse any other input with InvalidInput naming the
    # argument, instead of computing a value the model does not have (a bound that is an expression is met within
    # tolerance.DOMAIN_EDGE_REL of its value: an argument carries its own rounding)
    requires: tuple[sp.core.relational.Relational, ...] = field(default=(), hash=False, compare=False)
    # the derived form cancels (a double root, differences of exponentials at small arguments): its mpmath twin
    # raises its own working precision until two precisions agree to the caller's, instead of returning noise
    settle_mp: bool = field(default=False, hash=False, compare=False)

    def __post_init__(self):
        if not self.name.isidentifier() or keyword.iskeyword(self.name):
            raise ValueError(f"formula name {self.name!r} is not an identifier")
        for label, e in (("expr", self.expr), ("printed", self.printed), ("stable", self.stable), ("scale", self.scale)):
            if e is None:
                continue
            free = sp.sympify(e).free_symbols - set(self.args)
            if free:
                raise ValueError(f"formula {self.name}: {label} has free symbols {sorted(map(str, free))} that are not arguments")
        for rel in self.requires:
            if not (isinstance(rel, (sp.StrictGreaterThan, sp.GreaterThan, sp.StrictLessThan, sp.LessThan))
                    and rel.lhs in self.args and rel.rhs.free_symbols <= set(self.args) - {rel.lhs}):
                raise ValueError(f"formula {self.name}: requirement {rel} is not 'argument op bound in the other arguments'")
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

    def provenance(self) -> str:
        """One line: each input with its kind (see :class:`Input`), or that none were stated."""
        return "; ".join(map(str, self.inputs)) if self.inputs else "provenance not stated (module not audited)"

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

    def latex(self, stable: bool = False) -> str:
        """LaTeX of the derived formula (the mathematics) in the papers' arrangement (:func:`paper_form`), or with
        ``stable`` of the emitted floating-point rewriting as it is (what the generated code evaluates: Taylor
        polynomials, expm1, sums kept unexpanded).

        >>> from sympy.codegen.cfunctions import expm1
        >>> x = sp.Symbol("x", positive=True)
        >>> g = Formula("em1", (x,), sp.exp(x) - 1, "(Coffman et al. 1997, example)", "e^x - 1", stable=expm1(x))
        >>> print(g.latex(), g.latex(stable=True))
        e^{x} - 1 \\left(e^{x} - 1\\right)
        """
        return latex(self.emitted if stable else paper_form(self.expr, self.printed))
