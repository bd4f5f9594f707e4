"""numeric/codegen_runtime.py: the helpers every generated module calls (review D2/D3: one precision-raising loop,
one domain check), and the `--model FILE` route emitting the same calls.

References are computed here independently: e^-x by mpmath's own exp (not the alternating series the form sums),
the user model's stationarity by SymPy's evalf of the derived form at 40 digits."""
from __future__ import annotations

import importlib.util

import mpmath
import numpy as np
import pytest
import sympy as sp

from crawlmath.derive import codegen
from crawlmath.derive import user_model as um
from crawlmath.numeric.codegen_runtime import require, settle
from crawlmath.numeric.errors import InvalidInput, SolverError
from crawlmath.numeric.generated import scheduling


def exp_series(x):
    """e^-x as its alternating Taylor series, terms by recurrence, until they fall below 2^-(prec+64) of the
    largest: at x = 30 the largest term is ~e^30 ~ 2^43 while the sum is e^-30 ~ 2^-43, so ~86 bits cancel."""
    term, total, k, largest = mpmath.mpf(1), mpmath.mpf(1), 0, mpmath.mpf(1)
    while abs(term) > largest * mpmath.mpf(2) ** -(mpmath.mp.prec + 64) or k < x:
        k += 1
        term = -term * x / k
        largest = max(largest, abs(term))
        total += term
    return total


@pytest.mark.parametrize("dps", [15, 30])
def test_settle_raises_the_precision_where_the_first_attempt_loses_every_digit(dps):
    with mpmath.workdps(dps):
        want = mpmath.exp(-30)
        first = mpmath.workprec(mpmath.mp.prec + 16)(exp_series)(mpmath.mpf(30))  # settle's first evaluation
        got = settle(exp_series, ("30",), (mpmath.mpmathify,))
        assert abs(first - want) > abs(want) * mpmath.mpf(2) ** (48 - mpmath.mp.prec)  # > 48 of p bits lost at p + 16
        assert abs(got - want) <= abs(want) * mpmath.mpf(2) ** (1 - mpmath.mp.prec)  # within an ulp at p bits
        assert mpmath.mp.dps == dps  # the caller's precision is restored


def test_settle_refuses_when_no_two_precisions_agree():
    """e^-1000 cancels ~2900 bits of terms of size e^1000; at p = 53 the budget is 64p = 3392 extra bits, tried as
    16, 32, ..., 2048: every evaluation is rounding noise of a different size, so settle raises instead of
    returning one of them."""
    with mpmath.workprec(53):
        with pytest.raises(SolverError, match="no two precisions up to 2101 bits agree to 53 bits"):
            settle(exp_series, (1000,), (mpmath.mpmathify,))
        assert mpmath.mp.prec == 53


def test_settle_converts_the_given_arguments_at_each_precision():
    """A decimal string keeps its digits: 0.1 converted at 53 bits and then used at 300 would be off by 5e-18."""
    with mpmath.workdps(50):
        got = settle(lambda x: x - mpmath.mpf(1) / 10, ("0.1",), (mpmath.mpmathify,))
        assert got == 0


def test_require_names_the_first_offending_value_of_a_broadcast_condition():
    """h is a scalar, m an array: the condition h >= e^(-m mu) broadcasts; the refusal shows h's value (the inlined
    check indexed the scalar h with the array mask and raised IndexError)."""
    with pytest.raises(InvalidInput, match=r"h: must be >= exp\(-m\*mu\).*\(got 0.5\)"):
        scheduling.expected_obsolescence(1.0, np.array([0.1, 10.0]), 1.0, 0.5)
    assert np.all(np.isfinite(scheduling.expected_obsolescence(1.0, np.array([0.1, 10.0]), 1.0, 0.99)))
    with pytest.raises(InvalidInput, match=r"h: must be < 1"):
        scheduling.expected_obsolescence_mp(1, "0.1", 1, "1.5")
    require("x", 1.0, True, "must be positive")  # a holding relation returns nothing


def _user_module(tmp_path, document):
    name, kind, model = um.load(_write(tmp_path, document))
    derived = um.derive(name, kind, model)
    path = tmp_path / f"{name}.py"
    path.write_text(codegen.render(name, list(derived.formulas), codegen.Origin.of_model("m.json")))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return path.read_text(), module, derived


def _write(folder, document):
    import json

    path = folder / "model.json"
    path.write_text(json.dumps(document))
    return path


def test_user_model_twins_call_the_same_helpers_and_settle_through_the_double_root(tmp_path):
    """`--model FILE` (Python) emits the runtime helpers, not inlined loops; its stationarity (1.7) has the double
    root at rho = 1, and at rho = 1 + 1e-12 the settled twin gives 14 digits at 15 where the derived form evaluated
    once at 15 digits has not 6 right."""
    text, gen, derived = _user_module(tmp_path, {"kind": "static-mm1k", "name": "doubled_loss", "service": "mu",
                                                 "capacity": "K", "weights": {"idle": "gamma", "loss": 2}})
    assert "workprec" not in text and "_InvalidInput(" not in text
    assert text.count("return _settle(") == len(derived.formulas)
    f = next(f for f in derived.formulas if f.name == "stationarity")
    point = {"rho": "1.000000000001", "gamma": "0.7", "K": 9, "mu": "1"}
    exact = {a: sp.Integer(point[str(a)]) if a.is_integer else sp.Rational(point[str(a)]) for a in f.args}
    reference = mpmath.mpf(str(sp.N(f.expr.subs(exact), 40)))
    with mpmath.workdps(15):
        got = gen.stationarity_mp(*[point[str(a)] for a in f.args])
        once = sp.lambdify(f.args, f.expr, "mpmath")(*[mpmath.mpmathify(point[str(a)]) for a in f.args])
    assert reference != 0 and abs(got - reference) <= 1e-14 * abs(reference)
    assert abs(once - reference) > 1e-6 * abs(reference)


def test_derived_scalar_is_the_derived_form_in_floats():
    """static stationarity's ``_derived_scalar`` (the 4-term (1.7) the static solver's estimate uses) against the
    derived form in exact rationals: within 8 eps of the sum of its terms' magnitudes (it cancels: no relative
    bound near its double root at 1, where the stable ``_scalar`` is the accurate one)."""
    from crawlmath.numeric.generated import static_mm1k as gen

    f = next(f for f in codegen.formulas_of("static_mm1k") if f.name == "stationarity")
    assert codegen.has_derived_scalar(f) and not f.expr.has(sp.Sum)
    terms = sp.Add.make_args(sp.expand(f.expr))
    for rho, gamma, K, mu in [(0.3, 0.7, 5, 1.0), (0.999, 2.4, 15, 1.0), (1.07, 2.4, 15, 1.0), (1.8, 0.05, 40, 2.0)]:
        point = {a: sp.Integer(v) if a.is_integer else sp.Rational(v) for a, v in zip(f.args, (rho, gamma, K, mu))}
        exact = f.expr.subs(point)
        size = sum(abs(t.subs(point)) for t in terms)
        got = gen.stationarity_derived_scalar(rho, gamma, K, mu)
        assert abs(sp.Rational(got) - exact) <= 8 * sp.Rational(2) ** -52 * size, (rho, gamma, K, mu)
