"""`crawlmath codegen --model FILE`: a user's model read safely, derived, emitted (Python, C, LaTeX), refused honestly.

The generated code is compared with values computed here independently of the derivation: the stationary law of
the birth-death chain as a product of rate ratios in exact rationals, the cost as its weighted sum, and the
minimiser condition as an mpmath derivative of that cost.
"""
from __future__ import annotations

import builtins
import importlib.util
import itertools
import json
import math
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
import sympy as sp

from crawlmath.cli import main
from crawlmath.derive import user_model as um
from crawlmath.numeric.errors import InvalidInput
from crawlmath.numeric.tolerance import GENERATED_REL

CC = shutil.which("cc") or shutil.which("gcc")
DOUBLED = {"kind": "static-mm1k", "name": "doubled_loss", "service": "mu", "capacity": "K",
           "weights": {"idle": "gamma", "loss": 2}}
SERVICE_N = {"kind": "static-mm1k", "name": "service_n", "service": "n*mu", "capacity": 3}


def _write(folder: Path, document) -> Path:
    path = folder / f"{document.get('name', 'model') if isinstance(document, dict) else 'model'}.json"
    path.write_text(json.dumps(document) if not isinstance(document, str) else document)
    return path


def _import(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cost(rho, gamma, K: int, mu, service, loss_weight=1):
    """Independent cost: law p_i ∝ prod_{k<i} rho mu / service(k+1), cost gamma p_0 + w_K rho mu p_K."""
    weights = [rho**0]
    for k in range(K):
        weights.append(weights[-1] * rho * mu / service(k + 1, mu))
    total = sum(weights)
    return gamma * weights[0] / total + loss_weight * rho * mu * weights[K] / total


@pytest.fixture(scope="module")
def doubled(tmp_path_factory):
    """The doubled-loss-weight model, emitted once in Python and in C."""
    folder = tmp_path_factory.mktemp("doubled")
    model = _write(folder, DOUBLED)
    for lang in ("python", "c"):
        assert main(["codegen", "--model", str(model), "--lang", lang, "--out", str(folder / lang)]) == 0
    return folder


# --- the expression grammar -------------------------------------------------------

HOSTILE = ["__import__('os').system('true')", "mu.__class__", "exec('1')", "eval", "lambda: 1", "[mu]", "mu if mu else 1",
           "mu; 1", "x = 1", "Symbol('x')", "open", "mu(1)", "exp(1)(2)", "1 @ 2", "mu, 1", "'mu'", "mu\\n", "2**2**2**2**2",
           "(2**100)**100", "2**n**n", "exp(n)**n", "9" * 40, "1e999999", "(" * 25 + "1" + ")" * 25, "1/0", "log(0)",
           "sqrt(-1)", "mu^2", "", "mu" + "+mu" * 200, "mu*100**(100*n)", "16**n*16**n*2**n", "257**n"]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_expressions_are_refused_without_eval(text, monkeypatch):
    """No text reaches eval, exec, sympify or parse_expr (exec of compiled code objects -- imports -- still runs)."""
    def guarded(original):
        def call(first, *args, **kwargs):
            if isinstance(first, str):
                raise AssertionError(f"{original.__name__} reached with the text {first!r}")
            return original(first, *args, **kwargs)
        return call

    for name in ("eval", "exec"):
        monkeypatch.setattr(builtins, name, guarded(getattr(builtins, name)))
    monkeypatch.setattr(sp, "sympify", guarded(sp.sympify))
    monkeypatch.setattr(sp.parsing.sympy_parser, "parse_expr", guarded(sp.parsing.sympy_parser.parse_expr))
    with pytest.raises(InvalidInput) as caught:
        um.parse_expression(text, {"mu": um.mu, "n": um.n}, "f")
    assert str(caught.value).startswith("f: ")


@pytest.mark.parametrize("text, value", [("mu*(1 + n/K)", um.mu * (1 + um.n / um.K)), ("0.1", sp.Rational(1, 10)),
                                         ("-mu**2", -um.mu**2), ("2**-1", sp.Rational(1, 2)), ("1.5e3*mu", 1500 * um.mu),
                                         ("sqrt(n)*exp(-mu)/log(2)", sp.sqrt(um.n) * sp.exp(-um.mu) / sp.log(2)),
                                         ("2*-mu", -2 * um.mu), ("mu**(n/2)", um.mu ** (um.n / 2))])
def test_grammar_reads_what_python_precedence_says(text, value):
    assert um.parse_expression(text, {"mu": um.mu, "n": um.n, "K": um.K}, "f") == value


def test_any_exponent_frees_powers_of_names_only():
    """The scheduling kind reads (7)'s h**(1/x); a number to a nonlinear power stays refused (it could grow)."""
    x, h = sp.symbols("x h", positive=True)
    assert um.parse_expression("h**(2/x)", {"x": x, "h": h}, "w", any_exponent=True) == h ** (2 / x)
    for text in ("h**(2/x)", "2**(x**2)"):
        kinds = (False,) if text.startswith("h") else (False, True)
        for flag in kinds:
            with pytest.raises(InvalidInput, match="linear in the names"):
                um.parse_expression(text, {"x": x, "h": h}, "w", any_exponent=flag)


def test_json_numbers_are_read_exactly():
    from crawlmath.numeric.bmap._phase_type import DecimalText

    assert um.parse_expression(DecimalText("0.30000000000000000001"), {}, "w") == sp.Rational("0.30000000000000000001")


# --- the model file -------------------------------------------------------------------

@pytest.mark.parametrize("document, field", [
    ({"kind": "mm1", "name": "a"}, ".kind"),
    ({"kind": "static-mm1k", "name": "a", "service": "mu"}, "(top level)"),
    ({"kind": "static-mm1k", "name": "Bad-Name", "service": "mu", "capacity": "K"}, ".name"),
    ({"kind": "static-mm1k", "name": "a", "service": "mu", "capacity": 1}, ".capacity"),
    ({"kind": "static-mm1k", "name": "a", "service": "gamma*n", "capacity": "K"}, ".service"),
    ({"kind": "static-mm1k", "name": "a", "service": "mu", "capacity": "K", "weights": {"loss": "c"}}, ".weights.loss"),
    ({"kind": "static-mm1k", "name": "a", "service": "mu", "capacity": "K", "weights": {"idle": "__import__('os')"}}, ".weights.idle"),
    ({"kind": "static-mm1k", "name": "a", "service": "mu", "capacity": "K", "arrival": "2*rho*mu"}, ".arrival"),
    ({"kind": "static-mm1k", "name": "a", "service": "mu", "capacity": "K", "parameters": ["mu"]}, ".parameters"),
    ({"kind": "static-mm1k", "name": "a", "service": "mu", "capacity": "K", "typo": 1}, "(top level)"),
    ({"kind": "scheduling", "name": "a"}, "(top level)"),
    ({"kind": "scheduling", "name": "a", "term": "c*nu"}, ".term"),
    ({"kind": "scheduling", "name": "a", "term": "c*x", "weight": "x*mu"}, ".weight"),
    ({"kind": "scheduling", "name": "a", "term": "c*x", "parameters": ["lambda"]}, ".parameters"),
    ({"kind": "workbench", "name": "a", "removal": "random"}, ".removal"),
    ({"kind": "workbench", "name": "a", "colours": 2, "draw": ["1/3", "1/2"]}, ".draw"),
    ({"kind": "workbench", "name": "a", "redraw": "yes"}, ".redraw"),
    ("[1, 2", None), ('{"kind": NaN}', None),
])
def test_bad_model_file_is_one_line_exit_2_naming_the_field(tmp_path, capsys, document, field):
    path = _write(tmp_path, document)
    assert main(["codegen", "--model", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("crawlmath: error:")
    if field:
        assert f"{path}: {field}" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("path", ["/dev/zero", "/nonexistent/model.json"])
def test_unreadable_model_file_is_exit_2(path, capsys):
    assert main(["codegen", "--model", path, "--out", "/tmp/unused-crawlmath-out"]) == 2
    assert "--model" in capsys.readouterr().err


def test_parameters_declared_for_the_weights(tmp_path):
    doc = {**DOUBLED, "parameters": ["c"], "weights": {"idle": "gamma", "loss": "c/2"}}
    model = um.build(doc)
    assert model.loss_weight == sp.Symbol("c", positive=True) / 2


def test_registry_needs_a_schema_entry():
    with pytest.raises(ValueError, match="no \\$defs entry"):
        um.register(um.ModelKind("jackson-network", lambda d, w: None, lambda m: None, "not in the schema"))
    assert "jackson-network" not in um.KINDS and {"static-mm1k", "scheduling"} <= set(um.KINDS)


# --- derived for the user's model, checked against independent values ---------------------------

def test_doubled_loss_python_matches_the_chain_and_puts_the_minimiser_at_one(doubled):
    gen = _import(doubled / "python" / "doubled_loss.py")
    K, mu = 10, Fraction(3, 2)
    with mpmath.workdps(40):
        gamma = gen.gamma_K_mp(K, "1.5")
        assert abs(gamma - mpmath.mpf(36) / 10) < mpmath.mpf(10) ** -38  # doubled loss weight: twice (1.8), 2 mu (K+2)/K
    gamma = Fraction(36, 10)
    for rho in ("0.3", "1", "2.5"):
        want = _cost(Fraction(rho), Fraction(gamma), K, mu, lambda k, m: m, loss_weight=2)
        assert abs(gen.cost_scalar(float(rho), float(gamma), K, float(mu)) - float(want)) <= 1e-14 * float(want)
    with mpmath.workdps(40):
        slope = mpmath.diff(lambda r: _cost(r, mpmath.mpf(36) / 10, K, mpmath.mpf(3) / 2, lambda k, m: m, 2), 1)
        assert abs(slope) < mpmath.mpf(10) ** -30  # gamma(K) is the weight whose minimiser is rho = 1
    with pytest.raises(InvalidInput, match="rho"):
        gen.cost(-0.5, 1.0, 10, 1.0)


def test_state_dependent_service_against_the_product_law(tmp_path):
    """mu(n) = n mu with K = 3: p_i ∝ rho^i / i!; gamma(3) = 49 mu / 90 (the Q(1) = 0 root)."""
    model = _write(tmp_path, SERVICE_N)
    assert main(["codegen", "--model", str(model), "--out", str(tmp_path / "py")]) == 0
    gen = _import(tmp_path / "py" / "service_n.py")
    for rho, gamma, mu in ((Fraction(1, 2), Fraction(2), Fraction(1)), (Fraction(3), Fraction(1, 3), Fraction(5, 2))):
        want = _cost(rho, gamma, 3, mu, lambda k, m: k * m)
        assert gen.cost_mp(str(rho.numerator / rho.denominator), str(float(gamma)), float(mu)) == pytest.approx(float(want), rel=1e-14)
    assert gen.gamma_K_mp(1) == pytest.approx(49 / 90, rel=1e-15)
    with mpmath.workdps(40):
        slope = mpmath.diff(lambda r: _cost(r, mpmath.mpf(49) / 90, 3, mpmath.mpf(1), lambda k, m: k * m), 1)
        assert abs(slope) < mpmath.mpf(10) ** -30


def test_refused_formula_is_reported_with_its_step(tmp_path, capsys):
    """Loss weight 0: C = gamma P(X=0) decreases in rho, Lemma 1's sign change is gone: gamma(K) is refused."""
    model = _write(tmp_path, {**DOUBLED, "name": "no_loss", "weights": {"loss": 0}})
    assert main(["codegen", "--model", str(model), "--lang", "latex", "--out", str(tmp_path / "tex"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    refused = {r["formula"]: r["step"] for r in out["refused"]}
    assert "gamma_K" in refused and "sign change is missing" in refused["gamma_K"]
    assert "gamma_K" not in [f["name"] for f in out["formulas"]] and "cost" in [f["name"] for f in out["formulas"]]
    assert "eq:no_loss:gamma_K" not in (tmp_path / "tex" / "no_loss.tex").read_text()


def test_nothing_derives_is_exit_3_naming_the_step(tmp_path, capsys):
    model = _write(tmp_path, {**DOUBLED, "name": "log_service", "service": "mu*log(n + 1)"})
    assert main(["codegen", "--model", str(model), "--out", str(tmp_path / "py")]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the product of the rate ratios" in err and "no closed form" in err
    assert not (tmp_path / "py" / "log_service.py").exists()


def test_check_json_and_confinement(doubled, tmp_path, capsys):
    model = doubled / "doubled_loss.json"
    assert main(["codegen", "--model", str(model), "--out", str(doubled / "python"), "--check", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["clean"] and out["kind"] == "static-mm1k" and out["inputs"]["model"] == str(model)
    assert all(f["provenance"].startswith("assumed: the model") for f in out["formulas"])
    (tmp_path / "doubled_loss.py").write_text("# the user's own file\n")
    assert main(["codegen", "--model", str(model), "--out", str(tmp_path)]) == 2
    assert "was not written by crawlmath codegen" in capsys.readouterr().err
    assert (tmp_path / "doubled_loss.py").read_text() == "# the user's own file\n"


def test_banner_names_the_model_file(doubled):
    text = (doubled / "python" / "doubled_loss.py").read_text()
    assert f"from the model file {doubled / 'doubled_loss.json'}" in text.splitlines()[0]
    assert "crawlmath.derive.doubled_loss" not in text


def test_help_shows_the_model_examples(capsys):
    assert main(["codegen", "--help"]) == 0
    text = capsys.readouterr().out
    assert "--model FILE" in text and "crawlmath codegen --model my_model.json" in text and "--stable-form" in text


# --- C: NaN + errno EDOM outside the model's domain ----------------------------------------

USER_C = r"""
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include "crawlmath_doubled_loss.h"
static void show(double rho, double K) {
   errno = 0;
   double c = crawlmath_doubled_loss_cost(rho, 1.0, K, 1.0);
   printf("%.17g %d %d\n", c, errno == EDOM, crawlmath_doubled_loss_cost_domain(rho, 1.0, K, 1.0));
}
int main(void) {
   show(0.5, 10); show(-0.5, 10); show(0.5, 1); show(0.5, 2.5); show(NAN, 10); show(1.0, 4);
   errno = 0;
   printf("%.17g %d\n", crawlmath_doubled_loss_gamma_K(10, 1.5), errno);
   return 0;
}
"""


@pytest.mark.skipif(CC is None, reason="no C compiler: the C export cannot be compiled here")
def test_c_refuses_outside_the_domain_with_nan_and_edom(doubled, tmp_path):
    c = doubled / "c"
    (tmp_path / "user.c").write_text(USER_C)
    exe = tmp_path / "user"
    proc = subprocess.run([CC, "-std=c99", "-Wall", "-Werror", "-pedantic", f"-I{c}", str(tmp_path / "user.c"),
                           str(c / "crawlmath_doubled_loss.c"), "-o", str(exe), "-lm"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split() for line in subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.splitlines()]
    inside = float(rows[0][0])
    assert rows[0][1:] == ["0", "0"] and inside == pytest.approx(float(_cost(0.5, 1.0, 10, 1.0, lambda k, m: m, 2)), rel=1e-14)
    # codes: 1 rho finite, 2 gamma finite, 3 K an integer, 4 mu finite, 5 rho >= 0, 6 K >= 2
    for row, code in zip(rows[1:5], ("5", "6", "3", "1")):
        assert math.isnan(float(row[0])) and row[1:] == ["1", code]
    assert float(rows[5][0]) == pytest.approx(3 / 5) and rows[5][1:] == ["0", "0"]  # (gamma + 2 mu)/(K + 1) at rho = 1
    assert float(rows[6][0]) == pytest.approx(3.6, rel=1e-15) and rows[6][1] == "0"  # 2 mu (K + 2)/K, errno untouched


@pytest.mark.skipif(CC is None, reason="no C compiler: the C export cannot be compiled here")
def test_c_bound_in_other_arguments_is_widened_like_python(tmp_path):
    """A requirement whose bound is an expression (h >= exp(-mu m), scheduling's form) is met within DOMAIN_EDGE_REL."""
    from crawlmath.derive import export
    from crawlmath.derive.formula import Formula
    from crawlmath.numeric.tolerance import DOMAIN_EDGE_REL

    h, mu = sp.symbols("h mu", positive=True)
    f = Formula("edge", (h, mu), sp.log(h) + mu, "(synthetic)", "log h + mu", requires=(sp.Ge(h, sp.exp(-mu), evaluate=False),))
    files = export.expected_files("c", tmp_path / "c", {"demo": [f]})
    export.write(files)
    (tmp_path / "u.c").write_text('#include <stdio.h>\n#include <math.h>\n#include "crawlmath_demo.h"\nint main(void) {\n'
                                  f'   double b = exp(-2.0);\n'
                                  f'   printf("%d %d %d\\n", crawlmath_demo_edge_domain(b * (1 - {DOMAIN_EDGE_REL / 2!r}), 2.0),'
                                  f' crawlmath_demo_edge_domain(b * (1 - {DOMAIN_EDGE_REL * 2!r}), 2.0), crawlmath_demo_edge_domain(1.0, 2.0));\n'
                                  '   return 0;\n}\n')
    proc = subprocess.run([CC, "-std=c99", "-Wall", "-Werror", "-pedantic", f"-I{tmp_path / 'c'}", str(tmp_path / "u.c"),
                           str(tmp_path / "c" / "crawlmath_demo.c"), "-o", str(tmp_path / "u"), "-lm"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert subprocess.run([str(tmp_path / "u")], capture_output=True, text=True, check=True).stdout.split() == ["0", "3", "0"]


def test_tutorial_executes():
    """docs/tutorials/derive-your-model.md: every >>> block runs and prints what the page shows."""
    import doctest

    page = Path(__file__).resolve().parents[1] / "docs" / "tutorials" / "derive-your-model.md"
    result = doctest.testfile(str(page), module_relative=False, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0 and result.attempted > 30


def test_schema_is_valid_draft_2020_12_with_one_entry_per_kind():
    import jsonschema

    schema = json.loads(um.SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    assert set(um.KINDS) <= set(schema["$defs"])


def test_float_cost_is_accurate_next_to_rho_one(doubled):
    """The user's cost is emitted in its expm1 form (checked identical to the derived cost): no eps/|rho - 1| loss."""
    gen = _import(doubled / "python" / "doubled_loss.py")
    for rho in ("0.99999999", "1.00000001", "0.999999999999", "1.000000000001", "7.5"):
        with mpmath.workdps(40):
            want = gen.cost_mp(rho, 1, 10, 1)
        got = gen.cost(float(rho), 1.0, 10, 1.0)
        assert abs(got - want) <= GENERATED_REL * abs(want), (rho, got, want)
    assert "expm1" in (doubled / "c" / "crawlmath_doubled_loss.c").read_text()


def test_no_float_form_where_the_rewriting_does_not_derive(tmp_path):
    """mu(n) = n mu, K = 3: a rational cost without a cancelling rho^(K+1) - 1; emitted as derived."""
    model = um.build(SERVICE_N)
    cost = next(f for f in um.derive("service_n", um.KINDS["static-mm1k"], model).formulas if f.name == "cost")
    assert cost.stable is None


# --- the scheduling kind (Coffman–Liu–Weber 1997, §3-4) ------------------------------------

# Theorem 3.4's bound (7) with h^(1/x) replaced by h^(2/x) and c_i = c0 mu_i: one page's term is
# c0 (nu x h^(2/x) + mu - nu x).  By hand: its x-derivative is c0 nu (h^(2/x) (1 - 2 ln h / x) - 1), a function of
# u = ln(h^2)/x alone, so equal derivatives at the optimum give x_i proportional to ln h_i: x_i = ln h_i / S,
# S = sum ln h_i, and h_i^(2/x_i) = e^(2S): lambda = c0 nu (1 + (2S - 1) e^(2S)), C = c0 (sum mu_i + nu e^(2S) - nu).
H2X = {"kind": "scheduling", "name": "h_two_over_x", "term": "c*(1 - nu*x/mu + nu*x/mu*h**(2/x))", "weight": "c0*mu"}
PAGES = (("0.3", "1"), ("0.5", "2"), ("0.8", "0.5"))  # (h_i, mu_i)


def _direct_optimum(c0, nu, pages):
    """The minimiser of sum_i c0 (nu x_i h_i^(2/x_i) + mu_i - nu x_i) under sum x_i = 1, found without the
    derivation: the page terms' derivatives (mpmath.diff) set equal, x_3 = 1 - x_1 - x_2, by findroot."""
    def term(x, hi, mui):
        return c0 * (nu * x * hi ** (2 / x) + mui - nu * x)

    def slope(x, hi, mui):
        return mpmath.diff(lambda v: term(v, hi, mui), x)

    def gaps(x1, x2):
        xs = (x1, x2, 1 - x1 - x2)
        d = [slope(xi, hi, mui) for xi, (hi, mui) in zip(xs, pages)]
        return [d[0] - d[2], d[1] - d[2]]

    x1, x2 = mpmath.findroot(gaps, (mpmath.mpf(1) / 3, mpmath.mpf(1) / 3))
    xs = (x1, x2, 1 - x1 - x2)
    return xs, -slope(x1, *pages[0]), mpmath.fsum(term(xi, hi, mui) for xi, (hi, mui) in zip(xs, pages))


def test_scheduling_model_emits_its_optimum_checked_against_direct_minimisation(tmp_path, capsys):
    model = _write(tmp_path, H2X)
    assert main(["codegen", "--model", str(model), "--out", str(tmp_path / "py"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kind"] == "scheduling"
    assert [f["name"] for f in out["formulas"]] == ["exclusion_multiplier", "optimal_frequency", "optimal_multiplier",
                                                   "optimal_cost"]
    assert "LambertW" in {r["formula"]: r["step"] for r in out["refused"]}["frequency_at_multiplier"]
    gen = _import(tmp_path / "py" / "h_two_over_x.py")
    with mpmath.workdps(40):
        c0, nu = mpmath.mpf("0.7"), mpmath.mpf("1.5")
        pages = [(mpmath.mpf(hi), mpmath.mpf(mui)) for hi, mui in PAGES]
        xs, lam, cost = _direct_optimum(c0, nu, pages)
        S = mpmath.fsum(mpmath.log(hi) for hi, _ in pages)
        total_mu = mpmath.fsum(mui for _, mui in pages)
        for xi, (hi, _) in zip(xs, pages):
            assert abs(gen.optimal_frequency_mp(hi, S) - xi) < mpmath.mpf(10) ** -30
        assert abs(gen.optimal_multiplier_mp(S, c0, nu) - lam) < mpmath.mpf(10) ** -30
        assert abs(gen.optimal_cost_mp(total_mu, S, c0, nu) - cost) < mpmath.mpf(10) ** -30
        assert gen.exclusion_multiplier_mp(c0, nu) == c0 * nu  # the slope at x = 0+: h^(2/x) -> 0
    assert gen.optimal_frequency(0.5, float(S)) == pytest.approx(float(xs[1]), rel=1e-14)
    with pytest.raises(InvalidInput, match="h"):
        gen.optimal_frequency(1.5, -1.0)


def test_scheduling_weight_mu_squared_is_refused_with_its_step(tmp_path, capsys):
    """c_i = c0 mu_i^2 in (7): x_i(lambda) depends on lambda through c0 mu_i nu, so the pages share no level phi(lambda)
    and sum x_i = 1 has no closed form; the optimum is refused naming that step, the exclusion multiplier derives."""
    model = _write(tmp_path, {"kind": "scheduling", "name": "mu_squared", "term": "c*(1 - nu*x/mu + nu*x/mu*h**(1/x))",
                              "weight": "c0*mu**2"})
    assert main(["codegen", "--model", str(model), "--out", str(tmp_path / "py"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    refused = {r["formula"]: r["step"] for r in out["refused"]}
    assert [f["name"] for f in out["formulas"]] == ["exclusion_multiplier"]
    for name in ("optimal_frequency", "optimal_multiplier", "optimal_cost"):
        assert refused[name].startswith("the pages share no common level") and "'mu'" in refused[name]


# --- static M/M/1/K: service mu sqrt(n), a law with square roots of factorials ----------------------------

def test_sqrt_service_stationarity_derives_and_matches_the_chain(tmp_path, capsys):
    """mu(n) = mu sqrt(n): p_i ∝ rho^i / sqrt(i!), no closed-form normaliser.  Q = Z^2 dC/drho was refused (the check
    at K = 3 left sqrt(2) sqrt(3) - sqrt(6) uncancelled); it derives, and equals Z^2 dC/drho of the chain's cost
    (mpmath.diff at 40 digits) at K = 3, 7; (1.7) is refused because the normaliser has no closed form."""
    model = _write(tmp_path, {**DOUBLED, "name": "sqrt_service", "service": "mu*sqrt(n)", "weights": {}})
    assert main(["codegen", "--model", str(model), "--out", str(tmp_path / "py"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    refused = {r["formula"]: r["step"] for r in out["refused"]}
    assert "stationarity_deflated" in [f["name"] for f in out["formulas"]] and "no polynomial (1.7)" in refused["stationarity"]
    gen = _import(tmp_path / "py" / "sqrt_service.py")
    with mpmath.workdps(40):
        for rho, gamma, K, mu in (("0.4", "2.5", 3, "1.5"), ("1.7", "0.3", 7, "0.8")):
            rho, gamma, mu = map(mpmath.mpf, (rho, gamma, mu))

            def chain_cost(r):
                return _cost(r, gamma, K, mu, lambda k, m: m * mpmath.sqrt(k))

            Z = mpmath.fsum(rho**i / mpmath.sqrt(mpmath.factorial(i)) for i in range(K + 1))
            want = Z**2 * mpmath.diff(chain_cost, rho)
            got = gen.stationarity_deflated_mp(rho, gamma, K, mu)
            assert abs(got - want) < mpmath.mpf(10) ** -30 * (1 + abs(want))


# --- the workbench kind (Buijsrogge 2014, Ch. 4) ------------------------------------------------

def _ball_removal_colours(K: int, C: int) -> Fraction:
    """E[S] of the stationary law of the random-ball game, built here from its rules alone: a uniformly random ball
    leaves (colour r with probability q_r/K), a ball of a uniformly drawn colour joins; pi solved exactly."""
    states = [q for q in itertools.product(range(K + 1), repeat=C) if sum(q) == K]
    index = {q: k for k, q in enumerate(states)}
    P = sp.zeros(len(states))
    for q in states:
        for r in range(C):
            for t in range(C):
                nxt = list(q)
                nxt[r] -= 1
                nxt[t] += 1
                if q[r]:
                    P[index[q], index[tuple(nxt)]] += sp.Rational(q[r], K) / C
    A = (P.T - sp.eye(len(states))).col_join(sp.ones(1, len(states)))
    pi = A.solve_least_squares(sp.Matrix([0] * len(states) + [1]))
    assert (A * pi - sp.Matrix([0] * len(states) + [1])).is_zero_matrix
    total = sum(pi[index[q]] * sum(1 for v in q if v) for q in states)
    return Fraction(int(total.p), int(total.q))


def test_workbench_random_ball_colours_match_the_exact_chain(tmp_path, capsys):
    """Random-ball removal: the emitted S is C (1 - (1 - 1/C)^K) (eq. (3.1)'s form), equal to E[S] of the exact
    chain on small instances (the law is multinomial, so the mean field is exact here); its float form survives
    C = K = 1000, where C^(1-K) (C-1)^K is 0 * inf."""
    model = _write(tmp_path, {"kind": "workbench", "name": "ball_removal", "removal": "ball"})
    assert main(["codegen", "--model", str(model), "--out", str(tmp_path / "py"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [f["name"] for f in out["formulas"]] == ["mean_field_colours", "mean_field_p_new", "mean_field_nu"]
    assert "not proportional to G(q)" in {r["formula"]: r["step"] for r in out["refused"]}["exact_colours"]
    gen = _import(tmp_path / "py" / "ball_removal.py")
    for K, C in ((3, 2), (4, 3), (2, 4)):
        want = _ball_removal_colours(K, C)
        assert want == C * (1 - (1 - Fraction(1, C)) ** K)
        with mpmath.workdps(40):
            assert abs(gen.mean_field_colours_mp(K, C) - mpmath.mpf(want.numerator) / want.denominator) < mpmath.mpf(10) ** -35
        assert gen.mean_field_colours(K, C) == pytest.approx(float(want), rel=1e-15)
        assert gen.mean_field_p_new(K, C) == pytest.approx(float((1 - Fraction(1, C)) ** K), rel=1e-15)
    assert gen.mean_field_colours(1000, 1000) == pytest.approx(1000 * (1 - (1 - 1e-3) ** 1000), rel=1e-13)


def test_workbench_redraw_derives_nothing_exit_3(tmp_path, capsys):
    """The redraw rule's draw depends on the present mass: neither the mean field nor the product form derives."""
    model = _write(tmp_path, {"kind": "workbench", "name": "redraw", "redraw": True})
    assert main(["codegen", "--model", str(model), "--out", str(tmp_path / "py")]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "redraw" in err


def test_workbench_integer_instance_is_the_general_result_at_its_size(tmp_path, capsys):
    """slots = 4, colours = 3 (random ball): the formulas take no K, C and give the exact chain's E[S] = 65/27."""
    model = _write(tmp_path, {"kind": "workbench", "name": "ball_4_3", "slots": 4, "colours": 3, "removal": "ball"})
    assert main(["codegen", "--model", str(model), "--out", str(tmp_path / "py")]) == 0
    gen = _import(tmp_path / "py" / "ball_4_3.py")
    want = _ball_removal_colours(4, 3)
    assert want == Fraction(65, 27)
    with mpmath.workdps(40):
        assert abs(gen.mean_field_colours_mp() - mpmath.mpf(65) / 27) < mpmath.mpf(10) ** -35
