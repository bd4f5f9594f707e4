"""Provenance claims, created for every `Formula` of every derive module.

For a formula ``f`` of paper P (``Formula.paper_key``, else the module's paper):

- ``P.formula.<name>.printed`` (when ``f.printed`` is given): "the derived
  form equals the printed one".  PASS when SymPy reduces the difference to 0
  by a named route (`derive.stable.prove_identity`; where the derived form is
  a ``Piecewise`` filling a removable singularity, its general branch is
  compared: the printed form is undefined there); ERRATUM when exact
  evaluation at a point of the domain (SymPy ``evalf`` at 30 and 60 digits,
  agreeing) shows a difference; FAIL when neither.
- ``P.formula.<name>.stable`` (when ``f.stable`` is given): "the emitted
  float form computes the derived one".  Each ``Piecewise`` piece of the
  stable form is checked against the piece's general branch -- a point fill
  ``Eq(x, c)`` against the limit there, any other branch by identity or, for
  a Taylor polynomial, by the certified bound of `derive.stable.series_bound`
  (at most ``tolerance.GENERATED_REL``); then the stable form with every
  piece replaced by its general branch must be identical to the derived
  form.  FAIL at the first step that cannot be established.

Every verdict's detail ends with the formula's provenance (`Formula.provenance`:
each input derived, typed-and-checked or assumed, or "not stated" for a module
not yet audited), so the registry and ``verify --json`` say what each formula
rests on.

The claims are registered from ``numeric/generated/manifest.py`` (written by
`crawlmath codegen`, checked by ``codegen --check``), so importing the
registry derives nothing; a check derives its module's formulas once per
process.
"""
from __future__ import annotations

import dataclasses
import functools
import math

import sympy as sp

from ...derive import DerivationError, codegen
from ...derive.formula import Formula
from ...derive.stable import exp_log_form, prove_identity, series_bound, _time_limit, _Timeout
from ...numeric.generated import manifest
from ...numeric.tolerance import FORMULA_AGREE_DIGITS, FORMULA_GAP_DIGITS, GENERATED_REL
from ..registry import Claim, Method, Outcome, Source, register

MODULE_PAPER = {"static_mm1k": "liu-nain", "scheduling": "coffman", "golden": "coffman",
                "buijsrogge": "buijsrogge", "avrachenkov": "avrachenkov"}
LIMIT_SECONDS = 30
REGISTERED: list[str] = []  # ids of the claims this module created, in order
SAMPLE_VALUES = (sp.Rational(3, 7), sp.Rational(5, 3), sp.Rational(11, 4))
# The scaled variable of a branch region (see _univariate): one Dummy for all, so that the same branch met in two
# formulas gives the same expression in t, and its certified bound (memoised by series_bound) is computed once.
_T = sp.Dummy("t", positive=True)
_AWAY = sp.Rational(11, 4)  # beyond every Taylor-branch region of the current formulas (q < 2 the widest)


def _general(expr: sp.Expr) -> tuple[sp.Expr, list]:
    """A top-level Piecewise's catch-all branch and its other branches; else (expr, [])."""
    if isinstance(expr, sp.Piecewise) and expr.args[-1][1] == sp.true:
        return expr.args[-1][0], list(expr.args[:-1])
    return expr, []


def _point(f: Formula, shift: int) -> dict:
    """An exact point inside the formula's domain (rationals; integers for integer arguments)."""
    out = {}
    for k, a in enumerate(f.args):
        lo, hi = (f.domain or {}).get(str(a), (1, 10))
        frac = SAMPLE_VALUES[(k + shift) % len(SAMPLE_VALUES)] % 1
        value = sp.Rational(lo) + (sp.Rational(hi) - sp.Rational(lo)) * frac if hi > lo else sp.Rational(lo)
        if a.is_integer:
            value = sp.Integer(max(math.ceil(lo), min(math.floor(hi), int(value))))
        out[a] = value
    return out


def _evaluate(expr: sp.Expr, point: dict, digits: int):
    return sp.N(expr.subs(point).doit(), digits)


def _difference(f: Formula, derived: sp.Expr, printed: sp.Expr) -> str | None:
    """Evidence that derived and printed differ at a point of the domain, or None."""
    for shift in range(len(SAMPLE_VALUES)):
        pt = _point(f, shift)
        try:
            d30, p30 = _evaluate(derived, pt, 30), _evaluate(printed, pt, 30)
            d60, p60 = _evaluate(derived, pt, 60), _evaluate(printed, pt, 60)
        except (ZeroDivisionError, TypeError, ValueError):
            continue
        if not all(v.is_real and v.is_finite for v in (d30, p30, d60, p60)):
            continue
        gap30, gap60 = abs(d30 - p30), abs(d60 - p60)
        scale = max(abs(d60), abs(p60), sp.Float(1e-300))  # 1e-300: no division by 0 when both values are 0
        tol = sp.Float(10) ** -FORMULA_GAP_DIGITS * scale
        if gap60 > tol and abs(gap30 - gap60) <= tol:
            where = ", ".join(f"{a} = {v}" for a, v in pt.items())
            return f"at {where}: derived {sp.N(d60, 20)}, printed {sp.N(p60, 20)} (evalf at 30 and 60 digits agree)"
    return None


def check_printed(f: Formula) -> Outcome:
    """Verdict on a formula with a printed form: PASS when derived − printed reduces to 0 by a SymPy route (on the
    general branch when a side is piecewise), ERRATUM with a point where they differ at 30 and 60 digits, else FAIL.
    """
    compared, fills = f.expr, []
    printed, printed_fills = _general(f.printed)
    piecewise = bool(printed_fills) or isinstance(f.expr, sp.Piecewise)
    # A Piecewise side: only cancel on the whole (simplify spends 0.5 s failing on the nan a 0/0 fill leaves),
    # then the general branches; the whole gets the other routes last, so nothing decided before is lost.
    route = prove_identity(f.expr, f.printed, quick=piecewise)
    if route is None and piecewise:
        general, general_fills = _general(f.expr)
        route = prove_identity(general, printed)
        if route is not None:
            compared, fills = general, general_fills
        else:
            route = prove_identity(f.expr, f.printed)
            compared = f.expr if route is not None else general
    if route is not None:
        note = f"; the derived form also fills {', '.join(str(c) for _, c in fills)} where the printed one is 0/0" if fills else ""
        return Outcome.passed(f"derived - printed reduces to 0 by SymPy route '{route}'{note}. Derived: {compared}; printed: {f.printed}")
    evidence = _difference(f, compared, printed)
    if evidence is not None:
        return Outcome.erratum_(f"the printed form differs from the derived one {evidence}",
                                printed=str(f.printed), corrected=str(compared),
                                evidence=f"{evidence}; the derived form comes from the model ({f.source}) and is checked by its own claims")
    return Outcome.failed(f"not proven equal (routes cancel, power normal form, simplify) and no difference found at "
                          f"{len(SAMPLE_VALUES)} domain points. Derived: {compared}; printed: {f.printed}")


def _limit(expr: sp.Expr, x: sp.Symbol, c) -> sp.Expr | None:
    try:
        with _time_limit(LIMIT_SECONDS):
            return sp.limit(exp_log_form(expr), x, c)
    except (_Timeout, NotImplementedError, ValueError):
        return None


def _univariate(piece: sp.Expr, general: sp.Expr, cond) -> tuple[sp.Expr, sp.Expr, sp.Symbol, sp.Expr]:
    """(piece, general, t, x0) in one variable t >= 0 with the region t < x0, from a
    condition ``w < c`` (w > 0, c > 0), or ``w > c`` with w < 0, c < 0 (SymPy's form of -w < -c); raises
    DerivationError otherwise."""
    if isinstance(cond, sp.StrictGreaterThan) and cond.lhs.is_negative and cond.rhs.is_number and cond.rhs.is_negative:
        cond = sp.StrictLessThan(-cond.lhs, -cond.rhs, evaluate=False)
    if not isinstance(cond, sp.StrictLessThan) or not cond.rhs.is_number or not cond.rhs.is_positive or not cond.lhs.is_positive:
        raise DerivationError(f"branch condition {cond} is not 'positive expression < positive number'")
    t = _T
    w = cond.lhs / cond.rhs
    v = sorted(w.free_symbols, key=str)[0]
    k, rest = w.as_independent(v, as_Add=False)
    # w = k v, the usual scaled variable: v = t/k is the one solution, and substituting it cancels k's factors
    # syntactically, where sp.solve expands it and leaves them for sp.simplify
    sol = [t / k] if rest == v else sp.solve(sp.Eq(w, t), v)
    if len(sol) != 1:
        raise DerivationError(f"cannot write {cond} as t < 1 with one variable")
    # simplify (slow even on a polynomial already in t alone) only what the substitution left depending on other symbols
    piece_t, general_t = (e if e.free_symbols <= {t} else sp.simplify(e) for e in (x.subs(v, sol[0]) for x in (piece, general)))
    if (piece_t.free_symbols | general_t.free_symbols) - {t}:
        raise DerivationError(f"the branch under {cond} depends on more than {w}")
    return piece_t, general_t, t, sp.Integer(1)


@functools.lru_cache(maxsize=None)
def _check_piece(piece, cond, general) -> str:
    """How one non-catch-all branch is shown to compute the catch-all one; raises DerivationError.
    Memoised: a pure function of SymPy (immutable) arguments, and one piecewise form recurs in several
    formulas (D's Taylor branch is in D and in R = -q D), so their claims share one proof."""
    if isinstance(cond, sp.Eq) and isinstance(cond.lhs, sp.Symbol) and cond.rhs.is_number:
        lim = _limit(general, cond.lhs, cond.rhs)
        if lim is None or prove_identity(piece, lim) is None:
            raise DerivationError(f"the fill {piece} at {cond} is not the limit ({lim}) of {general}")
        return f"{cond}: the limit of the general branch"
    route = None if _differs_at_a_point(piece, general) else prove_identity(piece, general, quick=True)
    if route is None and not _is_rational_function(piece):
        route = prove_identity(piece, general)
    if route is not None:
        return f"{cond}: identical to the general branch ('{route}')"
    p, g, t, x0 = _univariate(piece, general, cond)
    try:
        bound, rel, how = series_bound(p, g, t, x0), None, ""
        rel = bound.rel
    except DerivationError:
        # a reciprocal of a Taylor polynomial: |1/p - 1/g| <= e/(1 - e) |1/g| when |p - g| <= e |g|
        bound = series_bound(sp.cancel(1 / p), sp.cancel(1 / g), t, x0)
        rel, how = bound.rel / (1 - bound.rel), " of the reciprocal, so <= e/(1-e) for the branch"
    if not rel <= GENERATED_REL:
        raise DerivationError(f"{cond}: certified truncation bound {rel:.3g} exceeds {GENERATED_REL:g}")
    return f"{cond}, t = ({cond.lhs})/({cond.rhs}): {bound}{how} ({rel:.3g})"


def _differs_at_a_point(piece: sp.Expr, general: sp.Expr) -> bool:
    """True when ``piece`` is a rational function (a truncated series), every symbol is positive, and piece − general
    is nonzero at the exact point where every symbol is 11/4 (evalf at 30 and 60 digits, agreeing, as `_difference`
    accepts for an erratum).  Then the difference is not identically 0, no identity route can reduce it to 0, and
    `_check_piece` goes straight to the series bound: cancel on a 40-term Taylor polynomial over Q(sqrt5) against
    exponentials costs up to 0.3 s only to fail.  False means "not shown": the routes are tried as before."""
    difference = exp_log_form(piece - general)
    symbols = difference.free_symbols
    if not _is_rational_function(piece) or not all(v.is_positive and not v.is_integer for v in symbols):
        return False
    at = difference.subs({v: _AWAY for v in symbols})
    v30, v60 = sp.N(at, 30), sp.N(at, 60)
    if not all(v.is_real and v.is_finite for v in (v30, v60)):
        return False
    return abs(v60) > sp.Float(10) ** -FORMULA_GAP_DIGITS and abs(v30 - v60) <= sp.Float(10) ** -FORMULA_AGREE_DIGITS * abs(v60)


def _is_rational_function(expr: sp.Expr) -> bool:
    """A quotient of polynomials (a truncated series): no identity with a transcendental branch to look for."""
    return all(e.is_polynomial(*expr.free_symbols) for e in sp.fraction(sp.together(expr)))


def _resolve(expr: sp.Expr, steps: list[str]) -> sp.Expr:
    """``expr`` with each Piecewise replaced by its catch-all branch, once every
    other branch has been shown to compute it (steps record how)."""
    for pw in sorted(expr.atoms(sp.Piecewise), key=sp.count_ops):
        general, others = _general(pw)
        if not others and general is pw:
            raise DerivationError(f"{pw} has no catch-all branch")
        for piece, cond in others:
            steps.append(_check_piece(piece, cond, general))
        expr = expr.xreplace({pw: general})
    return expr


def _summed(expr: sp.Expr, steps: list[str]) -> sp.Expr:
    """``expr`` with each finite sum replaced by SymPy's closed form (its catch-all branch: the closed form holds
    away from the special points SymPy lists, and both sides are continuous there)."""
    sums = expr.atoms(sp.Sum)
    if not sums:
        return expr
    closed = {}
    for s in sums:
        value = sp.piecewise_fold(sp.summation(s.function, *s.limits))
        if isinstance(value, sp.Piecewise):
            value = next(e for e, c in value.args if c == sp.true)
        if value.has(sp.Sum):
            raise DerivationError(f"no closed form for {s}")
        closed[s] = value
    steps.append(f"{len(sums)} finite sums replaced by their closed forms (summation; equal away from the special points "
                 "SymPy lists, continuous there)")
    return expr.xreplace(closed)


def check_stable(f: Formula) -> Outcome:
    """Verdict on a formula's stable rewriting: PASS when, every piecewise branch being shown to compute its general
    branch, the stable form is proved identical to the derived one; else FAIL with the steps done.
    """
    steps: list[str] = []
    try:
        stable = _resolve(_summed(f.stable, steps), steps)
        derived = _resolve(f.expr, [])
    except DerivationError as exc:
        return Outcome.failed(f"stable form not established: {exc}. Steps done: {'; '.join(steps) or 'none'}")
    route = prove_identity(stable, derived)
    if route is None:
        return Outcome.failed(f"after its pieces, the stable form {stable} is not proven identical to the derived {derived}")
    return Outcome.passed(f"identical to the derived form by SymPy route '{route}' once each piece is replaced by its general "
                          f"branch; pieces: {'; '.join(steps) or 'none'}")


@functools.lru_cache(maxsize=None)
def _derived(module: str) -> dict[str, Formula]:
    """The formulas of ``crawlmath.derive.<module>`` by name, derived once per process (when a claim needs them)."""
    return {f.name: f for f in codegen.formulas_of(module)}


def _check_lazily(check, module: str, name: str) -> Outcome:
    """``check`` on the formula ``name`` of ``module``, derived now (a derivation that raises is this claim's FAIL)."""
    fs = _derived(module)
    if name not in fs:
        return Outcome.failed(f"crawlmath.derive.{module} no longer derives {name}: numeric/generated/manifest.py is "
                              "stale (run `crawlmath codegen`)")
    outcome = check(fs[name])
    # the formula's provenance (derive/formula.py: Input) goes with every verdict on it
    return dataclasses.replace(outcome, detail=f"{outcome.detail}. Provenance: {fs[name].provenance()}")


def _register(row: dict, seen: set) -> None:
    module, name = row["module"], row["name"]
    paper = row["paper"] or MODULE_PAPER[module]
    stem = f"{paper}.formula.{name}"
    if stem in seen:  # the same name in two modules
        stem = f"{paper}.formula.{module}.{name}"
    seen.add(stem)
    src = Source(paper, row["source"], f"crawlmath.derive.{module}.{name}")
    if row["printed"]:
        REGISTERED.append(f"{stem}.printed")
        register(Claim(f"{stem}.printed", src, f"{name}: the form derived from the model equals the printed form",
                       Method.SYMBOLIC, functools.partial(_check_lazily, check_printed, module, name)))
    if row["stable"]:
        REGISTERED.append(f"{stem}.stable")
        register(Claim(f"{stem}.stable", src, f"{name}: the float form emitted by codegen computes the derived form",
                       Method.SYMBOLIC, functools.partial(_check_lazily, check_stable, module, name), slow=row["series"]))


def _register_all() -> None:
    """One claim per printed and per stable form, from the manifest that `crawlmath codegen` writes (and
    `codegen --check` keeps current): registering derives nothing, each check derives its module's formulas."""
    seen: set = set()
    for row in manifest.FORMULAS:
        _register(row, seen)


_register_all()
