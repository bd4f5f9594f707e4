"""Start-up: cheap subcommands load no heavy library they do not need (issue 15).

Each command runs in a fresh interpreter under ``-X importtime``, which
lists every module imported; no timings are asserted (they depend on the
machine), only which modules were loaded.  Commands whose solver modules
import SciPy or numba at top level (schedule, mdp) are not covered here.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

# Never needed by a cheap command: SymPy is for derive/codegen, numba and
# scipy.sparse.linalg for the large solvers, matplotlib for the report.
FORBIDDEN = ("sympy", "numba", "matplotlib", "scipy.sparse.linalg")
# The float64 static route runs in Python floats: it needs none of these either.
NUMERIC = ("numpy", "scipy", "mpmath", "flint")
STATIC = ["static", "--lam", "0.05", "--mu", "1", "--gamma", "2.4", "--K", "15"]


def imported_by(args: list[str]) -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run ``python -X importtime ARGS``; the process and the names of every module it imported."""
    proc = subprocess.run([sys.executable, "-X", "importtime", *args], capture_output=True, text=True, timeout=300)
    lines = proc.stderr.splitlines()
    modules = {line.rsplit("|", 1)[-1].strip() for line in lines if line.startswith("import time:")}
    proc.stderr = "\n".join(line for line in lines if not line.startswith("import time:"))
    return proc, modules


def loaded(modules: set[str], roots) -> list[str]:
    """The modules of ``roots`` (or their submodules) that were imported."""
    return sorted(m for m in modules if any(m == r or m.startswith(r + ".") for r in roots))


@pytest.mark.parametrize("args", [STATIC + ["--json"], STATIC, STATIC[:-1] + ["inf", "--json"]],
                         ids=["json", "text", "K=inf"])
def test_static_float_route_imports_no_heavy_module(args):
    proc, modules = imported_by(["-m", "crawlmath", *args])
    assert proc.returncode == 0, proc.stderr
    assert "N_opt" in proc.stdout or "N(gamma, K)" in proc.stdout
    assert "crawlmath.numeric.static._mm1k" in modules  # the solver did run in this process
    assert loaded(modules, FORBIDDEN + NUMERIC) == []


def test_static_digits_route_loads_mpmath_and_flint_only():
    proc, modules = imported_by(["-m", "crawlmath", *STATIC, "--digits", "20", "--json"])
    assert proc.returncode == 0, proc.stderr
    assert {"mpmath", "flint"} <= modules
    assert loaded(modules, FORBIDDEN + ("numpy", "scipy")) == []


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["static", "--help"]])
def test_help_and_version_import_no_numeric_library(args):
    proc, modules = imported_by(["-m", "crawlmath", *args])
    assert proc.returncode == 0, proc.stderr
    assert loaded(modules, FORBIDDEN + NUMERIC) == []


def test_bad_input_keeps_its_exit_code_and_message():
    proc, modules = imported_by(["-m", "crawlmath", "static", "--lam", "0.05", "--mu", "1", "--gamma", "-2", "--K", "15"])
    assert (proc.returncode, proc.stderr.strip()) == (2, "crawlmath: error: --gamma: must be > 0 (got '-2')")
    assert loaded(modules, FORBIDDEN + NUMERIC) == []


def test_generated_modules_import_no_numeric_library():
    from crawlmath.derive import codegen

    names = [f"crawlmath.numeric.generated.{p.stem}" for p in codegen.GENERATED_DIR.glob("*.py") if p.stem != "__init__"]
    assert len(names) >= 5
    code = "; ".join(f"import {n}" for n in names)
    proc, modules = imported_by(["-c", code])
    assert proc.returncode == 0, proc.stderr
    assert loaded(modules, FORBIDDEN + NUMERIC) == []
