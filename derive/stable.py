r"""Proofs that a formula's ``stable`` form computes its derived ``expr``.

A `Formula`'s ``stable`` rewriting (what codegen emits for float64) is
checked against the derived form in two ways:

- **identity** (:func:`prove_identity`): ``expm1``/``log1p`` are replaced by
  what they mean and SymPy reduces the difference to 0 by a named route
  (``cancel``, exponent/power normal form, ``simplify``); exact evaluation at
  sample points is *not* accepted as a proof;
- **certified series bound** (:func:`series_bound`): a branch that is a
  Taylor polynomial of degree n of an analytic closed form g = P/Q (P, Q
  exponential polynomials) on :math:`0 \le t \le x_0`.  The proof:

  1. the Taylor coefficients of :math:`N = \mathrm{poly}\cdot Q - P` vanish
     up to degree :math:`n + m` exactly (m = order of the zero of Q at 0,
     computed in the exact number field of the coefficients), so
     :math:`\delta = \mathrm{poly} - g` vanishes to order n + 1 (a ratio
     of polynomials A/B is handled alike, with N = AQ - PB);
  2. Q's factors that are numbers, powers of t or exponentials vanish
     nowhere off 0; for the rest R, ball arithmetic (python-flint ``acb``) on
     the circle :math:`|z| = r > x_0` shows :math:`|R(z) - R_m z^m| < |R_m|
     r^m`, so by Rouché R has exactly m zeros in the disc -- all at 0 -- and
     δ is analytic there;
  3. the maximum principle applied to :math:`\delta/z^{n+1}` gives
     :math:`|\delta(t)| \le M (t/r)^{n+1}` with M an upper bound of |δ| on
     the circle (``acb`` over arcs);
  4. a lower bound of :math:`|\mathrm{poly}(t)|/t^j` on subintervals of
     :math:`[0, x_0]` (j its lowest degree) turns this into a relative bound.

  The bound is on the mathematics (truncation); the rounding of the emitted
  float code is measured by tests/test_generated_accuracy.py.

>>> t = sp.Symbol("t", positive=True)
>>> prove_identity(sp.exp(2 * t) - 1, expm1(t) * (expm1(t) + 2))
'cancel'
>>> b = series_bound(1 - t / 2 + t**2 / 6 - t**3 / 24 + t**4 / 120, -expm1(-t) / t, t, sp.Rational(1, 8))
>>> b.rel < 1e-6, b.degree
(True, 4)
"""
from __future__ import annotations

import functools
import math
import signal
import threading
from contextlib import contextmanager
from dataclasses import dataclass

import flint
import sympy as sp
from sympy.codegen.cfunctions import expm1, log1p

from . import DerivationError

IDENTITY_SECONDS = 20  # per SymPy route: simplify can run for minutes on a hard input


def exp_log_form(expr: sp.Expr) -> sp.Expr:
    """``expr`` with expm1(x) -> exp(x) - 1 and log1p(x) -> log(1 + x).

    >>> x = sp.Symbol("x")
    >>> exp_log_form(expm1(x) + log1p(x))
    exp(x) + log(x + 1) - 1
    """
    return expr.replace(lambda e: isinstance(e, expm1), lambda e: sp.exp(e.args[0]) - 1).replace(
        lambda e: isinstance(e, log1p), lambda e: sp.log(1 + e.args[0]))


class _Timeout(Exception):
    pass


@contextmanager
def _time_limit(seconds: float):
    """Interrupt the block after ``seconds`` (main thread only; elsewhere no limit)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def _raise(signum, frame):
        raise _Timeout

    old = signal.signal(signal.SIGALRM, _raise)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _power_normal_form(d: sp.Expr) -> sp.Expr:
    # valid only for positive bases, which is why it is used only when every
    # symbol is positive
    num = sp.numer(sp.together(d))
    return sp.expand(sp.powsimp(sp.expand(sp.expand_power_exp(num)), force=True))


def prove_identity(a: sp.Expr, b: sp.Expr, quick: bool = False) -> str | None:
    """The name of a SymPy route that reduces ``a - b`` to 0, or None.

    Routes, in order: ``cancel`` (rational normal form), ``power normal form``
    (numerator expanded with powers merged; only when every symbol is
    positive), ``simplify``, ``simplify(rewrite exp)``.  Each is time-limited;
    ``quick`` tries ``cancel`` only.

    >>> from sympy.codegen.cfunctions import expm1
    >>> x = sp.Symbol("x", positive=True)
    >>> prove_identity(sp.exp(x) - 1, expm1(x)), prove_identity(x, x + 1, quick=True)
    ('cancel', None)
    """
    d = exp_log_form(sp.sympify(a) - sp.sympify(b))
    routes = [("cancel", lambda: sp.cancel(d))]
    if quick:
        pass
    elif all(s.is_positive for s in d.free_symbols):
        routes.append(("power normal form", lambda: _power_normal_form(d)))
    if not quick:
        routes += [("simplify", lambda: sp.simplify(d)), ("simplify(rewrite exp)", lambda: sp.simplify(d.rewrite(sp.exp)))]
    for name, route in routes:
        try:
            with _time_limit(IDENTITY_SECONDS):
                if route() == 0:
                    return name
        except (_Timeout, RecursionError, NotImplementedError, TypeError):
            continue
    return None


# --- certified Taylor-branch bounds ------------------------------------------

@dataclass(frozen=True)
class SeriesBound:
    """A certified bound on a Taylor polynomial's relative error: ``rel`` >= |poly − g|/|g| on [lo, hi], for the degree and
    the Cauchy radius used in the proof.
    """
    rel: float  # certified upper bound of |poly - g| / |g| on [lo, hi]
    degree: int  # n, the polynomial's degree
    radius: float  # r of the Cauchy circle
    lo: float
    hi: float

    def __str__(self) -> str:
        return (f"Taylor polynomial of degree {self.degree} on [{self.lo:g}, {self.hi:g}]: relative truncation error "
                f"<= {self.rel:.3g} (exact coefficient match to order {self.degree}, Rouché and maximum principle on |z| = {self.radius:g} in acb)")


def _exp_terms(expr: sp.Expr, t: sp.Symbol) -> list[tuple[sp.Expr, int, sp.Expr]]:
    """``expr`` as a sum of c t^a exp(b t): the list of (c, a, b); raises when it is not of that form."""
    terms = []
    for term in sp.Add.make_args(sp.expand(sp.powsimp(sp.expand(expr), combine="exp"))):
        c, rest = term.as_independent(t, as_Add=False)
        a, b = 0, sp.Integer(0)
        for factor in sp.Mul.make_args(rest):
            if factor == t:
                a += 1
            elif factor.is_Pow and factor.base == t and factor.exp.is_Integer and factor.exp >= 0:
                a += int(factor.exp)
            elif isinstance(factor, sp.exp) and sp.expand(factor.args[0]).is_polynomial(t) and sp.degree(factor.args[0], t) <= 1 \
                    and sp.expand(factor.args[0]).subs(t, 0) == 0:
                b += sp.expand(factor.args[0]).coeff(t)
            elif factor != 1:
                raise DerivationError(f"{factor} is not a power of {t} or exp(b {t}): no certified series bound")
        if not c.is_number:
            raise DerivationError(f"coefficient {c} is not a number: no certified series bound")
        terms.append((c, a, b))
    return terms


def _taylor_coefficients(terms, upto: int, field) -> list:
    """Exact Taylor coefficients 0..upto of sum c t^a exp(b t), in ``field``."""
    out = [field.zero] * (upto + 1)
    for c, a, b in terms:
        term, bb = _in_field(field, c), _in_field(field, b)
        for k in range(a, upto + 1):
            out[k] += term  # c b^(k-a)/(k-a)!, by exact recurrence (a division in the field would invert)
            term = term * bb * field.convert(sp.QQ(1, k - a + 1), sp.QQ)
    return out


@functools.lru_cache(maxsize=4096)
def _in_field(field, c: sp.Expr):
    """The exact element ``c`` of ``field``.

    SymPy's own conversion of an algebraic number finds its minimal polynomial
    and a field isomorphism each time; when the expanded ``c`` is a polynomial
    with rational coefficients in the field's generators (the usual case,
    e.g. a + b sqrt(5)), it is evaluated exactly from the generators' elements
    instead -- the same element.  Memoised: the same few coefficients recur in
    every Taylor expansion and claim.

    >>> K = sp.QQ.algebraic_field(sp.sqrt(5))
    >>> _in_field(K, (1 + sp.sqrt(5))**2 / 4) == K.from_sympy((3 + sp.sqrt(5)) / 2)
    True
    """
    if not field.is_Algebraic:
        return field.from_sympy(c)
    try:
        poly = sp.Poly(sp.expand(c), *field.orig_ext, domain=sp.QQ)
    except (sp.PolynomialError, sp.CoercionFailed):
        return field.from_sympy(c)
    gens = _generators(field)
    out = field.zero
    for exponents, coeff in poly.terms():
        term = field.convert(coeff)
        for g, e in zip(gens, exponents):
            term *= g**e
        out += term
    return out


@functools.lru_cache(maxsize=64)
def _generators(field) -> list:
    """The elements of ``field`` that its defining algebraic numbers are."""
    return [field.from_sympy(g) for g in field.orig_ext]


def _field_of(*exprs):
    algebraic = {p for e in exprs for p in sp.preorder_traversal(e) if isinstance(p, sp.Pow) and p.is_number and not p.exp.is_Integer}
    if any(c.is_number and not c.is_Rational and not isinstance(c, sp.Pow) and c.free_symbols == set() and isinstance(c, sp.NumberSymbol)
           for e in exprs for c in sp.preorder_traversal(e)):
        raise DerivationError("a transcendental constant in the coefficients: no exact coefficient check")
    return sp.QQ.algebraic_field(*sorted(algebraic, key=str)) if algebraic else sp.QQ


def _acb(expr: sp.Expr, t: sp.Symbol, z):
    """``expr`` evaluated in ball arithmetic at the acb ball ``z`` by walking its tree (used once per constant
    subtree by :func:`_ball_function`, which repeats these operations at many points)."""
    if expr == t:
        return z
    if expr.is_Rational:
        return flint.acb(flint.arb(expr.p) / expr.q)
    if expr.is_Add:
        return sum((_acb(a, t, z) for a in expr.args), flint.acb(0))
    if expr.is_Mul:
        out = flint.acb(1)
        for a in expr.args:
            out *= _acb(a, t, z)
        return out
    if expr.is_Pow:
        base = _acb(expr.base, t, z)
        if expr.exp.is_Integer:
            return base ** int(expr.exp)
        if expr.exp == sp.Rational(1, 2):
            return base.sqrt()
        return base ** _acb(expr.exp, t, z)
    if isinstance(expr, sp.exp):
        return _acb(expr.args[0], t, z).exp()
    if isinstance(expr, expm1):
        return _acb(expr.args[0], t, z).exp() - 1
    raise DerivationError(f"no ball evaluation for {type(expr).__name__}")


def _ball_function(expr: sp.Expr, t: sp.Symbol):
    """``expr`` compiled once into a function z -> acb that performs, in the
    same order, exactly the ball operations of :func:`_acb` (so the same balls
    come out), without walking the SymPy tree at each point.  Subtrees free of
    ``t`` are evaluated once, at the working precision current when compiling;
    a node with no ball evaluation raises when evaluated, as in :func:`_acb`.

    >>> t = sp.Symbol("t")
    >>> e = sp.exp(-t * sp.sqrt(5) / 2) + t**2 / 3
    >>> z = flint.acb("0.25", "-1.5")
    >>> _ball_function(e, t)(z).mid() == _acb(e, t, z).mid()
    True
    """
    if expr == t:
        return lambda z: z
    if t not in expr.free_symbols:
        try:
            value = _acb(expr, t, None)
        except DerivationError as exc:
            return functools.partial(_raise, exc)
        return lambda z: value
    if expr.is_Add or expr.is_Mul:
        parts = [_ball_function(a, t) for a in expr.args]
        if expr.is_Add:
            def add(z):
                out = flint.acb(0)
                for part in parts:
                    out = out + part(z)
                return out
            return add

        def mul(z):
            out = flint.acb(1)
            for part in parts:
                out *= part(z)
            return out
        return mul
    if expr.is_Pow:
        base = _ball_function(expr.base, t)
        if expr.exp.is_Integer:
            n = int(expr.exp)
            return lambda z: base(z) ** n
        if expr.exp == sp.Rational(1, 2):
            return lambda z: base(z).sqrt()
        power = _ball_function(expr.exp, t)
        return lambda z: base(z) ** power(z)
    if isinstance(expr, sp.exp):
        arg = _ball_function(expr.args[0], t)
        return lambda z: arg(z).exp()
    if isinstance(expr, expm1):
        arg = _ball_function(expr.args[0], t)
        return lambda z: arg(z).exp() - 1
    return functools.partial(_raise, DerivationError(f"no ball evaluation for {type(expr).__name__}"))


def _raise(exc: Exception, *_):
    raise exc


def _circle_max(f, t, r: float, arcs: int = 256):
    """An upper bound (arb) of |f| on |z| = r, and the smallest lower bound of |f| there."""
    top, bottom = flint.arb(0), None
    half = flint.arb(r) * flint.arb.pi() / arcs * flint.arb("1.01")
    for k in range(arcs):
        theta = flint.arb.pi() * (2 * k + 1) / arcs
        z = flint.acb(flint.arb(r) * theta.cos(), flint.arb(r) * theta.sin())
        z = flint.acb(flint.arb(z.real.mid(), half.upper()), flint.arb(z.imag.mid(), half.upper()))
        v = abs(f(z))
        top = top.max(flint.arb(v.upper()))
        bottom = v.lower() if bottom is None else bottom.min(v.lower())
    return top, bottom


@functools.lru_cache(maxsize=256)
def series_bound(approx: sp.Expr, g: sp.Expr, t: sp.Symbol, hi, lo=0, pieces: int = 64) -> SeriesBound:
    """Certified relative bound of |approx - g|/|g| on [lo, hi] (0 <= lo < hi)
    for ``approx`` = A/B (polynomials in t, B(0) != 0; B = 1 for a Taylor
    polynomial) agreeing with ``g`` to some order k at 0 (found exactly;
    method in the module docstring, with B's zeros kept out of the disc by
    Rouché as well).  Raises DerivationError when a step cannot be established.
    Memoised (SymPy arguments are immutable, the result is frozen): the same
    branch, e.g. psi_2's Taylor polynomial in the scaled variable, recurs in
    many formulas."""
    A, B = (sp.Poly(sp.expand(e), t) for e in sp.fraction(sp.together(approx)))
    P, Q = sp.fraction(sp.together(exp_log_form(g)))
    field = _field_of(P, Q, approx)
    q_coeffs = _taylor_coefficients(_exp_terms(Q, t), 60, field)
    m = next((k for k, c in enumerate(q_coeffs) if c != field.zero), None)
    if m is None or B.eval(0) == 0:
        raise DerivationError(f"{g} or {B.as_expr()} has a zero of unexpected order at 0")
    horizon = A.degree() + B.degree() + m + 40
    N = _taylor_coefficients(_exp_terms(sp.expand(A.as_expr() * Q - P * B.as_expr()), t), horizon, field)
    first = next((k for k, c in enumerate(N) if c != field.zero), None)
    order = horizon + 1 - m if first is None else first - m  # delta = N/(B Q) vanishes to this order
    if order <= 0:
        raise DerivationError(f"{approx} does not agree with {g} at 0")
    rest = [f for f in (_zero_carrying_factor(Q, t), B.as_expr()) if f != 1]
    old = flint.ctx.prec
    flint.ctx.prec = 128
    try:
        best = None
        rouche = [_rouche(R, t, field) for R in rest]
        poly, num, den = (_ball_function(e, t) for e in (approx, P, Q))
        for r in (float(hi) * k for k in (1.5, 2, 4, 8, 16, 32)):
            if not all(test(r) for test in rouche):
                continue
            M, _ = _circle_max(lambda z: poly(z) - num(z) / den(z), t, r)
            rel = _relative(A, B, M, r, order, float(lo), float(hi), pieces)
            if rel is not None and (best is None or rel < best[0]):
                best = (rel, r)
        if best is None:
            raise DerivationError(f"no circle radius certified the bound for {g} on [{lo}, {hi}]")
        return SeriesBound(best[0], order - 1, best[1], float(lo), float(hi))
    finally:
        flint.ctx.prec = old


def _zero_carrying_factor(Q: sp.Expr, t: sp.Symbol) -> sp.Expr:
    """Q without its factors that cannot vanish off 0 (numbers, powers of t, exponentials)."""
    keep = [f for f in sp.Mul.make_args(Q)
            if not (f.is_number or f == t or (f.is_Pow and f.base == t) or isinstance(f, sp.exp))]
    return sp.Mul(*keep)


def _rouche(R: sp.Expr, t: sp.Symbol, field):
    """A test r -> bool, True when ball arithmetic shows |R(z) - R_m z^m| <
    |R_m| r^m on |z| = r (R_m its first nonzero Taylor coefficient): R then has
    all its m zeros in the disc at 0 (they are there by construction), so none
    elsewhere.  R's Taylor coefficients and ball function are built at the
    first call and reused for the other radii."""

    @functools.cache
    def prepared():
        coeffs = _taylor_coefficients(_exp_terms(sp.expand(R), t), 60, field)
        m = next((k for k, c in enumerate(coeffs) if c != field.zero), None)
        if m is None:
            return None
        rm = _acb(field.to_sympy(coeffs[m]), t, None)
        return m, rm, _ball_function(R, t)

    def test(r: float) -> bool:
        if prepared() is None:
            return False
        m, rm, ball = prepared()
        bound, _ = _circle_max(lambda z: ball(z) - rm * z**m, t, r)
        return bool(bound < abs(rm) * flint.arb(r) ** m)
    return test


def _horner(coeffs, ball):
    value = flint.arb(0)
    for c in reversed(coeffs):
        value = value * ball + c
    return value


def _relative(A: sp.Poly, B: sp.Poly, M, r: float, order: int, lo: float, hi: float, pieces: int) -> float | None:
    """max over subintervals [a, b] of M (b/r)^order b^-j / (min |A/(t^j B)| - same), or None
    (|delta| <= M (t/r)^order by the maximum principle; j = A's lowest degree)."""
    coeffs = A.all_coeffs()[::-1]
    j = next(k for k, c in enumerate(coeffs) if c != 0)
    reduced = [flint.arb(str(sp.N(c, 60))) for c in coeffs[j:]]  # A / t^j: enclosures of its coefficients
    below = [flint.arb(str(sp.N(c, 60))) for c in B.all_coeffs()[::-1]]
    worst = flint.arb(0)
    for i in range(pieces):
        a, b = lo + (hi - lo) * i / pieces, lo + (hi - lo) * (i + 1) / pieces
        ball = flint.arb((a + b) / 2, (b - a) / 2 * 1.0001)
        floor = (abs(_horner(reduced, ball)) / abs(_horner(below, ball))).lower()
        tail = M * (flint.arb(b) / r) ** order / flint.arb(b) ** j
        if not floor > tail:
            return None
        worst = worst.max(tail / (floor - tail))
    return float(worst.upper())
