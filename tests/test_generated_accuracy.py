"""Every generated float64 function against its mpmath twin, on its whole domain.

For each `Formula` of every derive module, ``numeric/generated/M.py`` holds
``f`` (float64, from ``Formula.emitted``: the stable rewriting when there is
one) and ``f_mp`` (mpmath, from the derived ``expr``).  The twin is evaluated
at rising precision (40, 80, 160, 320 digits) until two precisions agree to
1e-25, so cancellation in the derived form cannot fool it.  The float value
must agree with it to ``tolerance.GENERATED_REL`` relative, and so must the
scalar twin ``f_scalar`` (Python floats, the solvers' fast path).

Points: lines through several centres of the formula's domain
(``Formula.domain``; else a default from the argument assumptions), one line
per argument, log-spaced when the domain spans decades (of either sign), plus points at and
around the numbers where a ``Piecewise`` of the derived or the emitted form
switches branch (removable singularities such as rho = 1, series
thresholds), at relative distances 1e-1 ... 1e-14.

One exception: the float code may *refuse* (SolverError) where the true
value is outside float64's range.  No point is excused for being near a zero
of the function: a formula that crosses zero declares ``Formula.scale``, an
expression documented with it (the same sums with every term taken
positive), and its error is then bounded by ``GENERATED_REL`` times that
scale (evaluated at 60 digits), which is what rounding in a sum of terms of
that size can reach; elsewhere the bound is ``GENERATED_REL`` times the value.
"""
from __future__ import annotations

import importlib
import math

import mpmath
import numpy as np
import pytest
import sympy as sp

from crawlmath.derive import codegen
from crawlmath.numeric.errors import CrawlmathError
from crawlmath.numeric.tolerance import GENERATED_REL

POINTS_PER_LINE = 24
CENTRES = 4
NEAR = [10.0 ** -k for k in (1, 2, 4, 6, 8, 10, 12, 14)]
FLOAT_MAX, FLOAT_TINY = 1e300, 1e-300


def _cases():
    return [(m, f) for m in codegen.derivation_modules() for f in codegen.formulas_of(m)]


def _default_domain(arg: sp.Symbol) -> tuple[float, float]:
    if arg.is_integer:
        return (1, 1000) if arg.is_positive else (0, 1000)
    if arg.is_positive:
        return (1e-6, 1e6)
    return (-10.0, 10.0)


def _breakpoints(f, arg: sp.Symbol) -> list[float]:
    """Numbers c where a Piecewise condition on ``arg`` (Eq, <, <=, >, >=)
    switches branch in the derived or the emitted form."""
    found = set()
    for expr in (f.expr, f.emitted):
        for pw in expr.atoms(sp.Piecewise):
            for _, cond in pw.args:
                for rel in [cond] if isinstance(cond, sp.core.relational.Relational) else cond.atoms(sp.core.relational.Relational):
                    for side, other in ((rel.lhs, rel.rhs), (rel.rhs, rel.lhs)):
                        if side == arg and other.is_number and other.is_real:
                            found.add(float(other))
    return sorted(found)


def _grid(f, arg: sp.Symbol) -> np.ndarray:
    lo, hi = (f.domain or {}).get(str(arg), _default_domain(arg))
    if lo > 0 and hi / lo > 100:
        pts = np.geomspace(lo, hi, POINTS_PER_LINE)
    elif hi < 0 and lo / hi > 100:  # a negative argument spanning decades (S = sum ln h_i -> 0-)
        pts = -np.geomspace(-hi, -lo, POINTS_PER_LINE)
    else:
        pts = np.linspace(lo, hi, POINTS_PER_LINE)
    extra = [c * (1 + s * d) for c in _breakpoints(f, arg) for d in NEAR for s in (-1, 1)] + _breakpoints(f, arg)
    pts = np.concatenate([pts, [x for x in extra if lo <= x <= hi]])
    if arg.is_integer:
        pts = np.round(pts)
    return np.unique(pts)


def _twin(f_mp, point) -> mpmath.mpf | None:
    """The mpmath value at the point, at the first precision that agrees
    with the next one to 1e-25 (None where the derived form is undefined,
    e.g. exactly at a removable singularity it does not fill in)."""
    previous = None
    for dps in (40, 80, 160, 320):
        with mpmath.workdps(dps):
            try:
                value = mpmath.mpf(f_mp(*point))
            except (ZeroDivisionError, ValueError, TypeError):
                return None
        if previous is not None and abs(value - previous) <= mpmath.mpf(10) ** -25 * abs(value):
            return value
        previous = value
    raise AssertionError(f"mpmath twin does not settle at {point}: {previous}")


def _lines(f) -> list[list[tuple]]:
    """Lines through CENTRES centres, one per argument."""
    grids = [_grid(f, a) for a in f.args]
    rng = np.random.default_rng(20240611)
    centres = [tuple(g[len(g) // 2] for g in grids)] + [tuple(rng.choice(g) for g in grids) for _ in range(CENTRES - 1)]
    lines = []
    for c in centres:
        for i, g in enumerate(grids):
            lines.append([c[:i] + (x,) + c[i + 1:] for x in g])
    return lines


def _typed(f, point):
    return tuple(int(v) if a.is_integer else float(v) for a, v in zip(f.args, point))


def _scale_function(f):
    """The documented error scale of a formula that crosses zero (``Formula.scale``) at 60 digits, or None."""
    if f.scale is None:
        return None
    mp = sp.lambdify(f.args, f.scale.doit(), "mpmath")

    def at(point):
        with mpmath.workdps(60):
            return abs(mpmath.mpf(mp(*[v if a.is_integer else mpmath.mpf(v) for a, v in zip(f.args, point)])))
    return at


def _line_axis(f, points) -> int | None:
    """The one real argument along which ``points`` vary, or None (fewer than two points, several axes, or an
    integer argument)."""
    if len(points) < 2:
        return None
    axis = [k for k in range(len(points[0])) if points[0][k] != points[1][k]]
    return axis[0] if len(axis) == 1 and not f.args[axis[0]].is_integer else None


def _bisect(keep, lo, hi) -> float:
    """The boundary between ``lo`` (where ``keep`` holds) and ``hi`` (where it does not), by 110 halvings at 40
    digits, as the float of the side where ``keep`` holds."""
    with mpmath.workdps(40):
        lo, hi = mpmath.mpf(lo), mpmath.mpf(hi)
        for _ in range(110):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if keep(mid) else (lo, mid)
        return float(lo)


def _near_zeros(fn_mp, f, points, truth) -> list[tuple]:
    """Points next to each zero of the function on a line along a real argument: where the twin changes sign
    between neighbours, the zero by bisection (40 digits), then the floats at relative distances NEAR from it
    and the float nearest it, each with its twin value -- so a formula that crosses zero is measured there."""
    k = _line_axis(f, points)
    if k is None:
        return []
    out = []
    for (a, ta), (b, tb) in zip(zip(points, truth), zip(points[1:], truth[1:])):
        if ta is None or tb is None or ta == 0 or tb == 0 or mpmath.sign(ta) == mpmath.sign(tb):
            continue
        root = _bisect(lambda x, a=a, s=mpmath.sign(ta): mpmath.sign(fn_mp(*(a[:k] + (x,) + a[k + 1:]))) == s,
                       a[k], b[k])
        for x in [root] + [root * (1 + sgn * d) for d in NEAR for sgn in (-1, 1)]:
            p = a[:k] + (x,) + a[k + 1:]
            t = _twin(fn_mp, p)
            if t is not None:
                out.append((p, t))
    return out


def _margins(f):
    """For each requirement of the model (``Formula.requires``) a function of a point: how far inside (>= 0) or
    outside (< 0) the point is, lhs - bound for >, >= (bound - lhs for <, <=), at 40 digits."""
    out = []
    for rel in f.requires:
        gap = rel.lhs - rel.rhs if rel.rel_op in (">", ">=") else rel.rhs - rel.lhs
        fn = sp.lambdify(f.args, gap, "mpmath")
        strict = rel.rel_op in (">", "<")

        def margin(point, fn=fn, strict=strict):
            with mpmath.workdps(40):
                value = fn(*[v if a.is_integer else mpmath.mpf(v) for a, v in zip(f.args, point)])
            met = value > 0 or (value == 0 and not strict)
            return value if met else -1
        out.append(margin)
    return out


def _in_model(margins, point) -> bool:
    return all(g(point) >= 0 for g in margins)


def _model_edges(f, margins, points) -> list[tuple]:
    """Points at the edge of the model's domain along a line on a real argument: where a requirement whose bound
    depends on other arguments (h >= e^(-mu m)) changes from met to unmet between neighbours, the edge by bisection
    (40 digits), then the floats on its inside at relative distances NEAR and the first float inside it -- so the
    formulas are measured where the model ends, and nowhere beyond it."""
    k = _line_axis(f, points)
    if k is None:
        return []
    out = []
    for rel, g in zip(f.requires, margins):
        if rel.rhs.is_number:
            continue
        for a, b in zip(points, points[1:]):
            if (g(a) >= 0) == (g(b) >= 0):
                continue
            inside, outside = (a[k], b[k]) if g(a) >= 0 else (b[k], a[k])
            edge = _bisect(lambda x, a=a, g=g: g(a[:k] + (x,) + a[k + 1:]) >= 0, inside, outside)
            step = math.copysign(1.0, inside - outside)  # towards the inside
            candidates = [edge, math.nextafter(edge, edge + step)] + [edge * (1 + step * math.copysign(dd, edge)) for dd in NEAR]
            out += [p for p in (a[:k] + (x,) + a[k + 1:] for x in candidates) if _in_model(margins, p)]
    return out


def _check_line(functions, fn_mp, f, line) -> list[str]:
    """Each float function of ``functions`` ({name: fn}: the vectorised one and
    its ``_scalar`` twin) against the mpmath twin along one line, at the points of the line inside the model's
    domain (``Formula.requires``) and at its edges."""
    margins = _margins(f)
    line = [_typed(f, p) for p in line]
    points = [p for p in line if _in_model(margins, p)] + _model_edges(f, margins, line)
    truth = [_twin(fn_mp, p) for p in points]
    near_zeros = _near_zeros(fn_mp, f, points, truth)
    points, truth = points + [p for p, _ in near_zeros], truth + [t for _, t in near_zeros]
    scale_of = _scale_function(f)
    problems = []
    for j, (p, t) in enumerate(zip(points, truth)):
        if t is None:
            continue
        scale = abs(t) if scale_of is None else max(abs(t), scale_of(p))
        for name, fn in functions.items():
            try:
                got = float(fn(*p))
            except CrawlmathError as exc:
                if FLOAT_TINY <= abs(t) <= FLOAT_MAX:
                    problems.append(f"{name}{p}: float refused ({exc}) but the value is {mpmath.nstr(t, 17)}")
                continue
            err = abs(mpmath.mpf(got) - t)
            if not err <= GENERATED_REL * scale:
                problems.append(f"{name}{p}: float {got!r} vs mpmath {mpmath.nstr(t, 17)} "
                                f"(relative error {mpmath.nstr(err / abs(t) if t else err, 3)})")
    return problems


@pytest.mark.parametrize("module, f", _cases(), ids=lambda v: v if isinstance(v, str) else v.name)
def test_generated_float_matches_mpmath_twin(module, f):
    gen = importlib.import_module(f"crawlmath.numeric.generated.{module}")
    functions = {name: getattr(gen, name) for name in (f.name, f.name + "_scalar")}
    fn_mp = getattr(gen, f.name + "_mp")
    if not f.args:
        assert _check_line(functions, fn_mp, f, [()]) == []
        return
    problems = [msg for line in _lines(f) for msg in _check_line(functions, fn_mp, f, line)]
    assert not problems, f"{len(problems)} points off, e.g.:\n" + "\n".join(problems[:8])


def test_float_code_refuses_non_finite_arguments_and_results():
    """A nan argument is InvalidInput naming it; an overflowing result is
    SolverError -- never a silent nan/inf."""
    from crawlmath.numeric.errors import InvalidInput, SolverError
    from crawlmath.numeric.generated import scheduling

    with pytest.raises(InvalidInput, match="mu"):
        scheduling.cstar(1.0, math.nan, 1.0, 0.5)
    with pytest.raises(SolverError, match="cstar"):
        scheduling.cstar(1e300, 1e300, 1.0, 0.5)
    # the scalar twin hands such points to the vectorised function: the same errors
    with pytest.raises(InvalidInput, match="mu"):
        scheduling.cstar_scalar(1.0, math.nan, 1.0, 0.5)
    with pytest.raises(SolverError, match="cstar"):
        scheduling.cstar_scalar(1e300, 1e300, 1.0, 0.5)


@pytest.mark.parametrize("coefficients", [(3,), (5, -1), (1, 2, 0.5)])
def test_power_sum_is_the_sum_it_replaces(coefficients):
    """The scalar printer's Horner evaluation of Sum(x**i p(i), (i, lo, hi)) against the exact rational sum."""
    from fractions import Fraction

    from crawlmath.numeric.codegen_runtime import power_sum

    for x, lo, hi in ((0.75, 0, 40), (1.25, 3, 30), (-0.5, 2, 9), (0.0, 0, 5), (2.0, 4, 3)):
        exact = sum(Fraction(x) ** i * sum(Fraction(c) * i**k for k, c in enumerate(coefficients)) for i in range(lo, hi + 1))
        got = power_sum(x, lo, hi, coefficients)
        assert abs(Fraction(got) - exact) <= 1e-14 * max(1, abs(exact)), (x, lo, hi, got, float(exact))


def test_static_formulas_refuse_inputs_outside_the_model():
    """rho < 0, gamma < 0, K < 2 are not the model's (Liu–Nain §1.2.1): each variant refuses, naming the argument;
    the scalar twin defers to the vectorised function, so nan is still refused as not finite."""
    from crawlmath.numeric.errors import InvalidInput
    from crawlmath.numeric.generated import static_mm1k as g

    for call, name in ((lambda: g.cost(-0.5, 1.0, 3, 1.0), "rho"), (lambda: g.cost([0.5, -2.0], 1.0, 3, 1.0), "rho"),
                       (lambda: g.cost_scalar(0.5, 1.0, 1, 1.0), "K"), (lambda: g.cost_mp(0.5, -1, 3, 1), "gamma"),
                       (lambda: g.stationarity_mp(0.5, 1, -3, 1), "K"), (lambda: g.gamma_K_scalar(1, 1.0), "K")):
        with pytest.raises(InvalidInput, match=f"^{name}: must be"):
            call()
    with pytest.raises(InvalidInput, match="rho: must be finite"):
        g.cost_scalar(math.nan, 1.0, 3, 1.0)
    assert g.cost_scalar(0.0, 1.0, 2, 1.0) == pytest.approx(1 / 1.0)  # rho = 0: the chain is empty, C = gamma


@pytest.mark.parametrize("module, name, point", [
    ("golden", "golden_D", {"q": "1e-15"}), ("golden", "golden_R", {"q": "1e-12"}),
    ("scheduling", "lower_bound_multiplier", {"c0": "1", "nu": "1", "S": "-1e-15"}),
    ("scheduling", "cstar_limit", {"c0": "1", "mu": "1e-10", "nu": "1"}),
    ("scheduling", "expected_obsolescence", {"d": "1", "m": "0.1", "mu": "0.001", "h": "0.99990001"}),
    ("scheduling", "rate_lower_bound", {"f": "1", "m": "0.1", "mu": "0.001", "h": "0.99990001"}),
    ("scheduling", "randomized_rate", {"f": "0.5", "m": "0.1", "mu": "0.001", "h": "0.99990001"}),
    ("scheduling", "randomized_objective_term", {"x": "0.5", "h": "0.99990001", "c": "1", "mu": "0.001", "nu": "10"}),
    ("static_mm1k", "stationarity", {"rho": "1.000000000001", "gamma": "0.7", "K": 9, "mu": "1"}),
    ("static_mm1k", "stationarity", {"rho": "0.99999999", "gamma": "0.7", "K": 9, "mu": "1"})])
def test_settled_mp_twins_deliver_the_callers_digits_through_cancellation(module, name, point):
    """The audit: golden_D_mp(1e-15) was 0 at 15 digits (true 7.45e-48), cstar_limit_mp(1, 1e-10, 1) all wrong,
    the Coffman rates off by ~5e-9 near h = e^(-mu m); the twins of formulas that cancel (Formula.settle_mp) raise
    their own precision.  Reference: SymPy's evalf of the derived form at 30 digits."""
    f = next(f for f in codegen.formulas_of(module) if f.name == name)
    gen = importlib.import_module(f"crawlmath.numeric.generated.{module}")
    exact = {a: sp.Integer(point[str(a)]) if a.is_integer else sp.Rational(point[str(a)]) for a in f.args}
    reference = mpmath.mpf(str(sp.N(f.expr.subs(exact), 30)))
    with mpmath.workdps(15):
        got = getattr(gen, name + "_mp")(*[point[str(a)] for a in f.args])
    assert reference != 0 and abs(got - reference) <= 1e-14 * abs(reference)


def _edge_point(name, a, m, mu, h):
    """The arguments of the Coffman et al. formula ``name`` at distance a = 1/f, mean access m, rate mu and h."""
    return {"expected_obsolescence": (a, m, mu, h), "rate_lower_bound": (1 / a, m, mu, h),
            "randomized_rate": (1 / a, m, mu, h), "randomized_objective_term": (1 / a, h, 1.0, mu, 1 / m)}[name]


@pytest.mark.parametrize("name", ["expected_obsolescence", "rate_lower_bound", "randomized_rate", "randomized_objective_term"])
def test_coffman_formulas_at_the_model_edge(name):
    """The audit's corner, from the inside: h from e^(-mu m) (deterministic access time, Jensen's edge) up to 1e-6
    relative above it, with mu m down to 1e-4, where each value is a small difference of terms of size ~ d m.
    Every variant meets GENERATED_REL times the documented scale (``Formula.scale``), and 1e-6 below the edge
    (beyond tolerance.DOMAIN_EDGE_REL, which admits an h carrying its own rounding) every variant refuses
    (InvalidInput naming h) instead of returning the wrong sign."""
    from crawlmath.numeric.errors import InvalidInput

    f = next(f for f in codegen.formulas_of("scheduling") if f.name == name)
    gen = importlib.import_module("crawlmath.numeric.generated.scheduling")
    scale_of, margins = _scale_function(f), _margins(f)
    problems = []
    for a in (1.0, 1.5, 2.0, 7.0, 40.0):
        for mu in (1e-3, 1e-2, 1.0):
            for m in (0.1, 1.0):
                edge = math.exp(-mu * m)
                for h in [math.nextafter(edge, 1.0)] + [edge * (1 + k * k * 1e-9) for k in range(1, 30)]:
                    p = _edge_point(name, a, m, mu, h)
                    if not _in_model(margins, p):
                        continue
                    t = _twin(getattr(gen, name + "_mp"), p)
                    for variant in (name, name + "_scalar"):
                        got = float(getattr(gen, variant)(*p))
                        if not abs(mpmath.mpf(got) - t) <= GENERATED_REL * max(abs(t), scale_of(p)):
                            problems.append(f"{variant}{p}: {got!r} vs {mpmath.nstr(t, 17)}")
                below = _edge_point(name, a, m, mu, edge * (1 - 1e-6))
                for variant in (name, name + "_scalar", name + "_mp"):
                    with pytest.raises(InvalidInput, match="^h: must be >= exp"):
                        getattr(gen, variant)(*below)
    assert not problems, f"{len(problems)} points off, e.g.:\n" + "\n".join(problems[:8])


@pytest.mark.parametrize("point", [(1.0, 1e-4, 1e-300), (1.0, 1e-4, 1e-6), (2.5, 1e300, 1e-8), (1.0, 3.0, 7.0)])
def test_cstar_limit_where_mu_over_nu_is_huge(point):
    """The audit: cstar_limit(1, 1e-4, 1e-300) returned 0 (its form divided nu^2 (...) by mu^2: 1e-600 underflows);
    the true value is c0 (mu - nu + nu e^(-mu/nu)) = 1e-4 - 1e-300.  Each float variant against the mpmath twin."""
    from crawlmath.numeric.generated import scheduling as g

    truth = _twin(g.cstar_limit_mp, point)
    for fn in (g.cstar_limit, g.cstar_limit_scalar):
        assert abs(mpmath.mpf(float(fn(*point))) - truth) <= GENERATED_REL * abs(truth), (fn.__name__, fn(*point), truth)
