"""The top-level Python API: the names exist, load lazily, and agree with the solvers behind them."""
from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import crawlmath
from crawlmath.numeric.errors import InvalidInput


def test_import_is_light():
    code = "import sys, crawlmath; print(sorted(m for m in ('numpy', 'scipy', 'sympy', 'numba', 'matplotlib') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


def test_every_public_name_resolves_and_is_documented():
    for name in crawlmath.__all__:
        obj = getattr(crawlmath, name)
        if name != "__version__":
            assert callable(obj) and obj.__doc__, name
    assert set(crawlmath.__all__) <= set(dir(crawlmath))
    with pytest.raises(AttributeError):
        crawlmath.no_such_name


def test_version_comes_from_the_metadata():
    from importlib.metadata import version

    assert crawlmath.__version__ == version("crawlmath")


def test_package_is_typed():
    assert (Path(crawlmath.__file__).parent / "py.typed").exists()


def test_float_fraction_and_string_mean_the_same_under_digits():
    a = crawlmath.static_optimum(0.05, 1, 2.4, 15, digits=40)
    b = crawlmath.static_optimum(Fraction(1, 20), 1, Fraction(12, 5), 15, digits=40)
    c = crawlmath.static_optimum("0.05", "1", "2.4", 15, digits=40)
    assert a.N_opt == b.N_opt == c.N_opt == 21
    assert str(a.rho_opt) == str(b.rho_opt) == str(c.rho_opt)


def test_solve_mdp_uses_the_papers_order_and_matches_the_solver():
    from crawlmath.numeric.mdp import analyse

    ours = crawlmath.solve_mdp(0.1, 1, 1.0, 5, N=16)
    assert ours.gain == analyse(0.1, 1, 5, 1.0, 16).gain


def test_load_bmap_from_a_dict_is_validated():
    from crawlmath.numeric.bmap import read_spec

    spec = read_spec("avrachenkov-example.json")
    m = crawlmath.load_bmap(spec, K=5)
    assert crawlmath.solve_bmap(m, (3, 1), (2,)).cost == pytest.approx(63.54, abs=0.01)
    with pytest.raises(InvalidInput):
        crawlmath.load_bmap({**spec, "Costs": {}})


def test_generic_routines_are_exposed():
    Q = np.array([[-1.0, 1.0], [2.0, -2.0]])
    assert crawlmath.ctmc_stationary(Q).pi[0] == pytest.approx(2 / 3)
    P = [np.eye(2), np.array([[0.0, 1.0], [1.0, 0.0]])]
    assert crawlmath.average_cost_mdp(P, np.array([[2.0, 1.0], [5.0, 0.0]])).gain == pytest.approx(0.5)
