"""The public surface of crawlmath.numeric (issue 34 item 7): each subpackage's ``__all__`` lists its public
names; the modules behind them are private (``_``-prefixed).

- every name in every subpackage's ``__all__`` resolves, and every subpackage but ``generated`` (emitted by
  ``crawlmath codegen``, its own rules) has one;
- every public function or class reachable from an ``__all__`` carries a docstring of its own (a dataclass's
  generated ``Name(field: type, ...)`` signature does not count);
- importing a subpackage loads neither numba nor SymPy: numba only on the routes that compile kernels, SymPy
  never in ``numeric`` (checked in a fresh interpreter, whose ``sys.modules`` is read after the import).
"""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import pkgutil
import subprocess
import sys

import pytest

import crawlmath.numeric

EMITTED = {"generated"}  # written by `crawlmath codegen` (derive/codegen.py); not curated by hand
SUBPACKAGES = sorted(info.name for info in pkgutil.iter_modules(crawlmath.numeric.__path__) if info.ispkg)
CURATED = [name for name in SUBPACKAGES if name not in EMITTED]


def _package(name: str):
    return importlib.import_module(f"crawlmath.numeric.{name}")


def test_the_subpackages_are_found():
    # the list the other tests run over: a discovery that found nothing would make them vacuous
    assert {"static", "scheduling", "colours", "bmap", "mdp", "markov", "linalg"} <= set(CURATED)


@pytest.mark.parametrize("name", CURATED)
def test_every_name_in_all_resolves(name):
    pkg = _package(name)
    # a list, possibly empty (linalg's kernels serve the other subpackages and have no public name yet)
    assert isinstance(getattr(pkg, "__all__", None), list), f"crawlmath.numeric.{name} has no __all__ list"
    missing = [n for n in pkg.__all__ if not hasattr(pkg, n)]
    assert missing == [], f"crawlmath.numeric.{name}.__all__ names what the package does not define: {missing}"
    twice = sorted({n for n in pkg.__all__ if pkg.__all__.count(n) > 1})
    assert twice == [], f"crawlmath.numeric.{name}.__all__ lists {twice} more than once"


def _own_docstring(obj) -> str:
    """The docstring ``obj`` was written with; '' for none, or for the one @dataclass generates."""
    doc = obj.__doc__ or ""
    if inspect.isclass(obj) and dataclasses.is_dataclass(obj):
        generated = obj.__name__ + str(inspect.signature(obj)).replace(" -> None", "")
        if doc == generated:
            return ""
    return doc.strip()


@pytest.mark.parametrize("name", CURATED)
def test_every_public_function_and_class_has_a_docstring(name):
    pkg = _package(name)
    undocumented = []
    for public in pkg.__all__:
        obj = getattr(pkg, public)
        obj = getattr(obj, "py_func", obj)  # a numba dispatcher documents its Python function
        if (inspect.isfunction(obj) or inspect.isclass(obj)) and not _own_docstring(obj):
            undocumented.append(public)
    assert undocumented == [], f"crawlmath.numeric.{name}: no docstring on {undocumented}"


def test_a_dataclass_without_docstring_is_caught():
    # the check above must be able to fail: @dataclass writes a signature into __doc__ when there is none
    @dataclasses.dataclass
    class Bare:
        x: int

    @dataclasses.dataclass
    class Documented:
        """Has one."""
        x: int

    assert _own_docstring(Bare) == "" and _own_docstring(Documented) == "Has one."


def _modules_after_import(module: str) -> set[str]:
    code = f"import json, sys; import {module}; print(json.dumps(sorted(sys.modules)))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout))


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in ("numba", "sympy"))


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_importing_a_subpackage_loads_neither_numba_nor_sympy(name):
    modules = _modules_after_import(f"crawlmath.numeric.{name}")
    assert f"crawlmath.numeric.{name}" in modules  # the import did run in that interpreter
    assert _heavy(modules) == [], f"import crawlmath.numeric.{name} loads {_heavy(modules)[:5]}"


def test_the_import_check_sees_numba():
    # the check above must be able to fail: a module that does import numba is caught
    assert "numba" in _heavy(_modules_after_import("crawlmath.numeric.colours._kernels"))
