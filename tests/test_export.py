"""C and LaTeX export (`crawlmath codegen --lang c|latex`).

The C export is compiled with gcc together with its evaluation program and
compared with the Python generated functions on random inputs in each
formula's domain (argument assumptions; inputs where the Python value is not
finite are outside the domain and dropped)."""
from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st

from crawlmath.cli import main
from crawlmath.derive import codegen, export
from crawlmath.derive.formula import Formula

C_REL = 1e-13
GCC = shutil.which("gcc")
needs_gcc = pytest.mark.skipif(GCC is None, reason="gcc is not installed: the C export cannot be compiled here")


def _synthetic() -> list[Formula]:
    """Formulas exercising what the real derivations use: a Piecewise for a
    removable singularity, integer powers, constants (pi, E, golden ratio),
    special functions and an integer argument."""
    rho, gamma, x = sp.symbols("rho gamma x", positive=True)
    K = sp.Symbol("K", integer=True, positive=True)
    pk = sp.Piecewise((1 / (K + 1), sp.Eq(rho, 1)), ((1 - rho) * rho**K / (1 - rho ** (K + 1)), True))
    return [
        Formula("blocking", (rho, K), pk, "(synthetic, M/M/1/K)", "blocking probability"),
        Formula("golden_bound", (x,), 2 * sp.GoldenRatio**2 / 5 * x + sp.pi - sp.E, "(synthetic)", "constants"),
        Formula("special", (x, gamma), sp.cos(x) * sp.exp(-gamma) + sp.log(1 + x) / sp.sqrt(gamma) + sp.Abs(x - gamma), "(synthetic)", "special functions"),
        Formula("no_args", (), sp.Rational(1, 3) + sp.sqrt(5), "(synthetic)", "a constant"),
    ]


def _python_module(fs: list[Formula], monkeypatch) -> dict:
    """The Python generated module for ``fs``, exactly as codegen writes it."""
    monkeypatch.setattr(codegen, "formulas_of", lambda module: fs)
    ns: dict = {}
    exec(codegen.render("demo"), ns)
    return ns


def _sample(sym: sp.Symbol, rng: np.random.Generator, n: int) -> np.ndarray:
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


def _compile(tmp: Path, modules: dict[str, list[Formula]]) -> Path:
    files = export.expected_files("c", tmp, modules)
    export.write(files)
    exe = tmp / "eval"
    sources = [str(p) for p in files if p.suffix == ".c"]
    proc = subprocess.run([GCC, "-std=c99", "-O2", "-Wall", "-Werror", "-pedantic", *sources, "-lm", "-o", str(exe)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return exe


def _agree(tmp: Path, modules: dict[str, list[Formula]], python_of, n: int = 60, seed: int = 7) -> int:
    """Compile, evaluate every formula on random inputs in C and in Python,
    assert agreement to C_REL; return the number of points compared."""
    exe = _compile(tmp, modules)
    rng = np.random.default_rng(seed)
    lines, expected = [], []
    for module, fs in modules.items():
        for f in fs:
            py = python_of(module, f)
            cols = [_sample(a, rng, n) for a in f.args]
            points = list(zip(*cols)) if cols else [()]
            for pt in points:
                pt = tuple(int(v) if a.is_integer else np.float64(v) for a, v in zip(f.args, pt))
                try:
                    with np.errstate(all="ignore"):
                        want = float(py(*pt))
                except (ZeroDivisionError, OverflowError, ValueError):
                    want = math.nan
                if not math.isfinite(want):
                    continue  # outside the formula's domain
                name = export.c_name(module, f)
                lines.append(" ".join([name, *(repr(float(v)) for v in pt)]))
                expected.append((name, pt, want))
    per_formula = {export.c_name(m, f): 0 for m, fs in modules.items() for f in fs}
    for name, _, _ in expected:
        per_formula[name] += 1
    needed = {export.c_name(m, f): 5 if f.args else 1 for m, fs in modules.items() for f in fs}
    thin = {n: k for n, k in per_formula.items() if k < needed[n]}
    assert not thin, f"too few random inputs inside the domain (the comparison would be vacuous): {thin}"
    out = subprocess.run([str(exe)], input="\n".join(lines) + "\n", capture_output=True, text=True, check=True).stdout.split("\n")
    for (name, pt, want), got_text in zip(expected, out):
        got = float(got_text)
        assert abs(got - want) <= C_REL * max(abs(want), 1e-300), f"{name}{pt}: C {got!r} vs Python {want!r}"
    return len(expected)


@needs_gcc
def test_synthetic_formulas_compile_and_agree(tmp_path, monkeypatch):
    fs = _synthetic()
    by_name = _python_module(fs, monkeypatch)
    assert _agree(tmp_path, {"demo": fs}, lambda m, f: by_name[f.name]) > 100


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

    def python_of(m, f):
        return getattr(importlib.import_module(f"crawlmath.numeric.generated.{m}"), f.name)

    supported = {m: [f for f in fs if (m, f.name) not in skipped] for m, fs in modules.items()}
    _agree(tmp_path, supported, python_of)


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
    with np.errstate(all="ignore"):
        want = float(ns["blocking"](np.float64(rho), K))
    assert abs(got - want) <= C_REL * abs(want)
