"""C and LaTeX export (`crawlmath codegen --lang c|latex`) and codegen writes.

The C export is compiled with gcc together with a separate driver program
(`export.eval_program`) and compared with the Python generated functions on
random inputs in each formula's domain (``Formula.domain`` when given, else
the argument assumptions; points the Python float code refuses as outside
the model must give NaN in C, points where it cannot deliver are dropped,
and too few points left fails the test).  C and Python agree to
``tolerance.EXPORT_REL``, or -- where C's ``pow`` and NumPy's power round a
cancelling expression differently -- both lie within
``tolerance.GENERATED_REL`` of the mpmath twin."""
from __future__ import annotations

import math
import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st

from crawlmath.cli import main
from crawlmath.derive import codegen, export
from crawlmath.derive.formula import Formula
from crawlmath.numeric.errors import CrawlmathError, InvalidInput
from crawlmath.numeric.tolerance import EXPORT_REL as C_REL, GENERATED_REL
GCC = shutil.which("gcc")
needs_gcc = pytest.mark.skipif(GCC is None, reason="gcc is not installed: the C export cannot be compiled here")


def _synthetic() -> list[Formula]:
    """Formulas exercising what the real derivations use: a Piecewise for a
    removable singularity, integer powers, constants (pi, E, golden ratio),
    special functions, an integer argument and a domain bound (``requires``)."""
    rho, gamma, x = sp.symbols("rho gamma x", positive=True)
    K = sp.Symbol("K", integer=True, positive=True)
    pk = sp.Piecewise((1 / (K + 1), sp.Eq(rho, 1)), ((1 - rho) * rho**K / (1 - rho ** (K + 1)), True))
    return [
        Formula("blocking", (rho, K), pk, "(synthetic, M/M/1/K)", "blocking probability"),
        Formula("golden_bound", (x,), 2 * sp.GoldenRatio**2 / 5 * x + sp.pi - sp.E, "(synthetic)", "constants"),
        Formula("special", (x, gamma), sp.cos(x) * sp.exp(-gamma) + sp.log(1 + x) / sp.sqrt(gamma) + sp.Abs(x - gamma), "(synthetic)", "special functions"),
        Formula("no_args", (), sp.Rational(1, 3) + sp.sqrt(5), "(synthetic)", "a constant"),
        Formula("bounded", (x, gamma), sp.log(x - gamma + 1), "(synthetic)", "a domain bound in another argument",
                requires=(sp.Ge(x, gamma, evaluate=False),)),
    ]


def _python_module(fs: list[Formula], monkeypatch) -> dict:
    """The Python generated module for ``fs``, exactly as codegen writes it."""
    monkeypatch.setattr(codegen, "formulas_of", lambda module: fs)
    ns: dict = {}
    exec(codegen.render("demo"), ns)
    return ns


def _sample(sym: sp.Symbol, rng: np.random.Generator, n: int, domain=None) -> np.ndarray:
    if domain and str(sym) in domain:
        lo, hi = domain[str(sym)]
        if sym.is_integer:
            return rng.integers(int(math.ceil(lo)), int(math.floor(hi)) + 1, size=n).astype(float)
        if lo > 0 and hi / lo > 100:
            return np.exp(rng.uniform(math.log(lo), math.log(hi), size=n))
        return rng.uniform(lo, hi, size=n)
    if sym.is_integer:
        lo = 1 if sym.is_positive else 0 if sym.is_nonnegative else -10
        return rng.integers(lo, 40, size=n).astype(float)
    if sym.is_positive or sym.is_nonnegative:
        # probabilities and loads in (0, 1), exact 1 (removable singularities), and larger values
        u = rng.uniform(0.01, 0.99, size=n)
        big = np.exp(rng.uniform(np.log(0.05), np.log(20.0), size=n))
        pick = rng.integers(0, 3, size=n)
        return np.where(pick == 0, u, np.where(pick == 1, big, np.where(rng.random(n) < 0.3, 1.0, u)))
    return rng.uniform(-5, 5, size=n)


def _gcc(*args: str) -> None:
    proc = subprocess.run([GCC, "-std=c99", "-O2", "-Wall", "-Werror", "-pedantic", *args, "-lm"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def _compile(tmp: Path, modules: dict[str, list[Formula]]) -> Path:
    """The export plus the separate driver program, compiled."""
    files = export.expected_files("c", tmp / "export", modules)
    export.write(files)
    driver = tmp / "driver.c"
    driver.write_text(export.eval_program([export.c_module(m, fs) for m, fs in modules.items()]))
    exe = tmp / "eval"
    _gcc(f"-I{tmp / 'export'}", str(driver), *(str(p) for p in files if p.suffix == ".c"), "-o", str(exe))
    return exe


def _agree(tmp: Path, modules: dict[str, list[Formula]], python_of, twin_of, n: int = 60, seed: int = 7) -> int:
    """Compile, evaluate every formula on random inputs in C and in Python,
    assert agreement to C_REL (or, where they differ, both within
    GENERATED_REL of the mpmath twin), and NaN from C where Python refuses the point as outside the model; return
    (points compared, points refused by both)."""
    exe = _compile(tmp, modules)
    rng = np.random.default_rng(seed)
    lines, expected, refused = [], [], []
    for module, fs in modules.items():
        for f in fs:
            py = python_of(module, f)
            cols = [_sample(a, rng, n, f.domain) for a in f.args]
            points = list(zip(*cols)) if cols else [()]
            for pt in points:
                pt = tuple(int(v) if a.is_integer else np.float64(v) for a, v in zip(f.args, pt))
                name = export.c_name(module, f)
                try:
                    want = float(py(*pt))
                except InvalidInput:  # outside the model's domain: C must refuse it too (NaN)
                    refused.append(" ".join([name, *(repr(float(v)) for v in pt)]))
                    continue
                except CrawlmathError:
                    want = math.nan
                if not math.isfinite(want):
                    continue  # the float route cannot deliver there
                lines.append(" ".join([name, *(repr(float(v)) for v in pt)]))
                expected.append((name, pt, want, twin_of(module, f)))
    per_formula = {export.c_name(m, f): 0 for m, fs in modules.items() for f in fs}
    for name, *_ in expected:
        per_formula[name] += 1
    needed = {export.c_name(m, f): 5 if f.args else 1 for m, fs in modules.items() for f in fs}
    thin = {n: k for n, k in per_formula.items() if k < needed[n]}
    assert not thin, f"too few random inputs inside the domain (the comparison would be vacuous): {thin}"
    out = subprocess.run([str(exe)], input="\n".join(lines + refused) + "\n", capture_output=True, text=True, check=True).stdout.split("\n")
    for line, got_text in zip(refused, out[len(lines):]):
        assert math.isnan(float(got_text)), f"{line}: Python refuses the point, C gives {got_text}"
    for (name, pt, want, twin), got_text in zip(expected, out):
        got = float(got_text)
        if abs(got - want) <= C_REL * max(abs(want), 1e-300):
            continue
        # C's pow and NumPy's power round differently; where the formula
        # cancels (next to a root) that shows.  Then both must meet the
        # accuracy contract of the generated code against the mpmath twin.
        with mpmath.workdps(50):
            exact = twin(*pt)
        for route, value in (("C", got), ("Python", want)):
            assert abs(value - exact) <= GENERATED_REL * abs(exact), f"{name}{pt}: {route} {value!r} vs mpmath {exact} (C {got!r}, Python {want!r})"
    return len(expected), len(refused)


@needs_gcc
def test_synthetic_formulas_compile_and_agree(tmp_path, monkeypatch):
    fs = _synthetic()
    by_name = _python_module(fs, monkeypatch)
    compared, refused = _agree(tmp_path, {"demo": fs}, lambda m, f: by_name[f.name], lambda m, f: by_name[f.name + "_mp"])
    assert compared > 100 and refused > 10  # "bounded" is refused below its bound x >= gamma by both


def _real_modules() -> list[str]:
    return codegen.derivation_modules()


@needs_gcc
def test_real_formulas_compile_and_agree(tmp_path):
    names = _real_modules()
    if not names:
        pytest.skip("no derive module defines formulas() yet")
    import importlib

    modules = {m: codegen.formulas_of(m) for m in names}
    skipped = {(m, n) for m, n, _ in export.unsupported(modules)}

    def python_of(m, f, suffix=""):
        return getattr(importlib.import_module(f"crawlmath.numeric.generated.{m}"), f.name + suffix)

    supported = {m: [f for f in fs if (m, f.name) not in skipped] for m, fs in modules.items()}
    _agree(tmp_path, supported, python_of, lambda m, f: python_of(m, f, "_mp"))


@needs_gcc
def test_eval_program_reports_bad_lines(tmp_path):
    exe = _compile(tmp_path, {"demo": _synthetic()})
    out = subprocess.run([str(exe)], input="nope 1\ncrawlmath_demo_blocking 0.5\n", capture_output=True, text=True).stdout.splitlines()
    assert out == ["error unknown function", "error expected 2 arguments"]


def test_unsupported_function_is_listed_not_dropped():
    x = sp.Symbol("x", positive=True)
    fs = [Formula("w", (x,), sp.LambertW(x), "(synthetic)", "Lambert W"), _synthetic()[0]]
    e = export.c_module("demo", fs)
    assert [n for n, _ in e.unsupported] == ["w"]
    assert "not exported: w" in e.source and "crawlmath_demo_blocking" in e.header


def test_latex_one_equation_per_formula_with_label_and_source():
    fs = _synthetic()
    text = export.latex_module("demo", fs)
    assert text.count("\\begin{equation}") == len(fs) == text.count("\\end{equation}")
    for f in fs:
        assert f"\\label{{eq:demo:{f.name}}}" in text
        assert f"\\tag*{{\\small {f.source}}}" in text
    assert text.count("{") == text.count("}")
    odd = Formula("odd", (), sp.Integer(1), "(eq. 1_2 & 50%)", "special characters in the source")
    assert "\\tag*{\\small (eq. 1\\_2 \\& 50\\%)}" in export.latex_equation("demo", odd)
    doc = export.expected_files("latex", Path("x"), {"demo": fs})[Path("x/formulas.tex")]
    assert "\\input{demo.tex}" in doc and doc.rstrip().endswith("\\end{document}")


def test_cli_export_writes_then_check_is_clean(tmp_path, capsys, monkeypatch):
    fs = _synthetic()
    monkeypatch.setattr(codegen, "derivation_modules", lambda: ["demo"])
    monkeypatch.setattr(codegen, "formulas_of", lambda module: fs)
    for lang in ("c", "latex"):
        out = tmp_path / lang
        assert main(["codegen", "--lang", lang, "--out", str(out)]) == 0
        assert main(["codegen", "--lang", lang, "--out", str(out), "--check"]) == 0
    (tmp_path / "latex" / "formulas.tex").write_text("tampered")
    assert main(["codegen", "--lang", "latex", "--out", str(tmp_path / "latex"), "--check"]) == 1
    assert "stale: " in capsys.readouterr().out


def test_cli_python_default_unchanged(capsys):
    code = main(["codegen", "--check"])
    out = capsys.readouterr().out
    assert (code, "generated code is up to date" in out) in ((0, True), (1, False))


def test_bad_language_is_invalid_input(capsys):
    assert main(["codegen", "--lang", "fortran"]) == 2
    assert "--lang" in capsys.readouterr().err


@pytest.fixture(scope="module")
def demo_eval(tmp_path_factory):
    if GCC is None:
        pytest.skip("gcc is not installed: the C export cannot be compiled here")
    fs = _synthetic()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(codegen, "formulas_of", lambda module: fs)
        ns: dict = {}
        exec(codegen.render("demo"), ns)
    return _compile(tmp_path_factory.mktemp("c"), {"demo": fs}), ns


@settings(max_examples=25, deadline=None)
@given(rho=st.floats(0.01, 5.0) | st.just(1.0), K=st.integers(1, 60))
def test_blocking_formula_c_matches_python_property(demo_eval, rho, K):
    exe, ns = demo_eval
    got = float(subprocess.run([str(exe)], input=f"crawlmath_demo_blocking {rho!r} {K}\n", capture_output=True, text=True, check=True).stdout)
    want = float(ns["blocking"](np.float64(rho), K))
    assert abs(got - want) <= C_REL * abs(want)


@needs_gcc
def test_user_program_links_the_export_without_a_main(tmp_path):
    """The exported sources hold no ``main``: a user's own program links them."""
    files = export.expected_files("c", tmp_path / "export", {"demo": _synthetic()})
    export.write(files)
    user = tmp_path / "user.c"
    user.write_text('#include <stdio.h>\n#include "crawlmath_demo.h"\n'
                    'int main(void) { printf("%.17g\\n", crawlmath_demo_blocking(1.0, 4.0)); return 0; }\n')
    _gcc(f"-I{tmp_path / 'export'}", str(user), *(str(p) for p in files if p.suffix == ".c"), "-o", str(tmp_path / "user"))
    assert float(subprocess.run([str(tmp_path / "user")], capture_output=True, text=True, check=True).stdout) == 0.2
    assert not any(re.search(r"\bmain\s*\(", t) for t in files.values())  # (crawlmath_demo_blocking_domain( is not one)


def test_latex_typesets_expm1_and_log1p_as_mathematics():
    from sympy.codegen.cfunctions import expm1, log1p

    x = sp.Symbol("x", positive=True)
    f = Formula("em1", (x,), (sp.exp(x) - 1) / x + sp.log(1 + x), "(synthetic)", "stable form",
                stable=expm1(x) / x + log1p(x))
    eq = export.latex_equation("demo", f, stable=True)
    assert r"\left(e^{x} - 1\right)" in eq and r"\ln\left(x + 1\right)" in eq
    assert "expm" not in eq and "log1p" not in eq


def test_latex_shows_the_derived_formula_unless_the_stable_form_is_asked_for():
    """The audit: the export printed 15-term Taylor polynomials and exp-of-logs instead of the formulas."""
    from crawlmath.derive import golden

    H = next(f for f in golden.formulas() if f.name == "golden_H")
    derived, stable = export.latex_equation("golden", H), export.latex_equation("golden", H, stable=True)
    assert derived.count("q^{") < 4 < stable.count("q^{")  # the Taylor branch only in the stable form
    assert H.latex() in derived and H.latex(stable=True) in stable


def test_exports_print_the_stable_form_never_the_printed_one():
    from sympy.codegen.cfunctions import expm1

    x = sp.Symbol("x", positive=True)
    f = Formula("em1", (x,), sp.exp(x) - 1, "(synthetic)", "e^x - 1", printed=sp.exp(x) - 2, stable=expm1(x))
    assert "expm1(x)" in export.c_function("demo", f).definition
    assert "numpy.expm1(x)" in _python_text([f]) and "- 2" not in _python_text([f])


def _python_text(fs: list[Formula]) -> str:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(codegen, "formulas_of", lambda module: fs)
        return codegen.render("demo")


@pytest.mark.parametrize("out", ["/dev/null", "/dev/null/sub", __file__])
def test_bad_out_is_one_line_exit_2(out, capsys):
    assert main(["codegen", "--lang", "c", "--out", out]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("crawlmath: error: --out")


def test_python_out_dev_null_is_exit_2(capsys):
    assert main(["codegen", "--out", "/dev/null"]) == 2
    assert "--out" in capsys.readouterr().err


def _generated_in(tmp_path, monkeypatch) -> Path:
    """codegen pointed at a scratch copy of numeric/generated, with one synthetic module."""
    monkeypatch.setattr(codegen, "GENERATED_DIR", tmp_path)
    monkeypatch.setattr(codegen, "derivation_modules", lambda: ["demo"])
    monkeypatch.setattr(codegen, "formulas_of", lambda module: _synthetic())
    return tmp_path


def test_codegen_writes_0644_and_check_exits_1_when_stale(tmp_path, monkeypatch, capsys):
    folder = _generated_in(tmp_path, monkeypatch)
    (folder / "orphan.py").write_text("# a module whose derivation is gone\n")
    assert main(["codegen"]) == 0
    assert not (folder / "orphan.py").exists()
    assert stat.S_IMODE((folder / "demo.py").stat().st_mode) == 0o644
    assert main(["codegen", "--check"]) == 0
    (folder / "demo.py").write_text((folder / "demo.py").read_text() + "# edited by hand\n")
    assert main(["codegen", "--check"]) == 1
    assert "stale (changed)" in capsys.readouterr().out
    assert not list(folder.glob(".*.tmp"))


def test_write_set_is_all_or_nothing(tmp_path):
    first, blocked = tmp_path / "a.py", tmp_path / "file" / "b.py"
    first.write_text("old\n")
    (tmp_path / "file").write_text("a file where a folder is needed\n")
    with pytest.raises(OSError):
        codegen.write_set({first: "new\n", blocked: "new\n"})
    assert first.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py", "file"]


def test_stale_temporaries_of_killed_runs_are_removed(tmp_path):
    old, recent = tmp_path / ".demo.py.x1.tmp", tmp_path / ".demo.py.x2.tmp"
    old.write_text(""), recent.write_text("")
    os.utime(old, (1, 1))
    assert codegen.remove_stale_temporaries(tmp_path) == [old]
    assert recent.exists() and not old.exists()


def test_latex_reads_like_the_papers():
    """Item 5 of issue 31: the derived formulas typeset in the paper's arrangement (Liu–Nain 2005, eq. 1.4 is printed
    (1 - rho)(gamma + mu rho^{K+1}) / (1 - rho^{K+1}); the text after (1.11) gamma (1 - rho); (1.7) (K+1)(mu + gamma)
    rho^K - (...) rho^{K+1}), by identities only, while --stable-form keeps the floating-point rewriting."""
    from crawlmath.derive import is_identically_zero, static_mm1k
    from crawlmath.derive.formula import paper_form

    fs = {f.name: f for f in static_mm1k.formulas()}
    cost = export.latex_equation("static_mm1k", fs["cost"])
    assert r"\frac{\left(1 - \rho\right) \left(\gamma + \mu \rho^{K + 1}\right)}{1 - \rho^{K + 1}}" in cost
    assert r"\rho - 1" not in cost and r"\ln" not in cost
    assert r"\gamma \left(1 - \rho\right) & \text{for}\: \rho \leq 1" in fs["cost_infinite_K"].latex()
    seven = fs["stationarity"].latex()
    assert r"\rho^{K} \left(K + 1\right) \left(\gamma + \mu\right)" in seven and r"- \rho^{K + 1} \left(" in seven
    stable = export.latex_equation("static_mm1k", fs["cost"], stable=True)
    assert r"e^{\left(K + 1\right) \ln{\left(\rho \right)}}" in stable and r"\left(1 - \rho\right)" not in stable
    for f in fs.values():
        assert is_identically_zero(paper_form(f.expr, f.printed) - f.expr), f.name


def test_latex_keeps_the_orientation_the_paper_prints():
    """Avrachenkov et al. write (R^{K-1} - 1)/(R - 1): a printed form that says R - 1 keeps it; ln for log."""
    R, h = sp.symbols("R h", positive=True)
    K = sp.Symbol("K", integer=True, positive=True)
    ratio = (R**K - 1) / (R - 1)
    assert r"1 - R" not in Formula("s", (R, K), ratio, "(Avrachenkov et al., Lemma)", "states", printed=ratio).latex()
    assert r"\frac{1 - R^{K}}{1 - R}" in Formula("s", (R, K), ratio, "(synthetic)", "states").latex()
    assert Formula("f", (h,), sp.log(h), "(Coffman et al. 1997, Theorem 3.4)", "ln h").latex() == r"\ln{\left(h \right)}"
