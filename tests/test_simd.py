"""The eight-lane vector operations of numeric/linalg/_simd.py against numpy and exact rationals, and the plain
kernels (CRAWLMATH_SIMD=0, numeric/linalg/_lanes.py) against them on the structured BMAP solver."""
import json
import os
import subprocess
import sys
from fractions import Fraction

import numba
import numpy as np
import pytest
from numba import njit

from crawlmath.numeric.linalg import _lanes as L
from crawlmath.numeric.linalg._simd import add8, fma8, load8, mul8, pick8, splat8, store8, swap8
from crawlmath.numeric.tolerance import BMAP_LANES_REL, BMAP_LANES_SOLVE_REL


@njit
def _arith(a, b, c, f, out):
    u, v, w = load8(a, 0), load8(b, 0), load8(c, 0)
    store8(out, 0, add8(u, v))
    store8(out, 8, mul8(u, v))
    store8(out, 16, fma8(u, v, w))
    store8(out, 24, splat8(f))


def test_arithmetic_lane_by_lane_and_fma_rounds_once():
    rng = np.random.default_rng(0)
    a, b, c = rng.standard_normal(8), rng.standard_normal(8), rng.standard_normal(8)
    # lane 0: u v = 1 − 2^-60 exactly, which rounds to 1 as a product: u v − 1 is 0 unless rounded once
    a[0], b[0], c[0] = 1 + 2.0**-30, 1 - 2.0**-30, -1.0
    out = np.empty(32)
    _arith(a, b, c, 2.5, out)
    np.testing.assert_array_equal(out[:8], a + b)
    np.testing.assert_array_equal(out[8:16], a * b)
    exact = [float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a, b, c)]
    assert out[16:24].tolist() == exact and exact[0] == -(2.0**-60) and a[0] * b[0] + c[0] == 0.0
    np.testing.assert_array_equal(out[24:], np.full(8, 2.5))


@njit
def _swaps(a, out):
    v = load8(a, 3)  # an unaligned start
    store8(out, 0, swap8(v, 1))
    store8(out, 8, swap8(v, 2))
    store8(out, 16, swap8(v, 4))


def test_swap_takes_the_partner_lane():
    a = np.arange(20.0)
    out = np.empty(24)
    _swaps(a, out)
    lanes = np.arange(8)
    for row, k in enumerate((1, 2, 4)):
        np.testing.assert_array_equal(out[8 * row : 8 * row + 8], a[3 + (lanes ^ k)])


@njit
def _picks(a, out):
    u, v = load8(a, 0), load8(a, 8)
    store8(out, 0, pick8(u, v, (0, 2, 4, 6, 8, 10, 12, 14)))
    store8(out, 8, pick8(u, v, (0, 8, 1, 9, 2, 10, 3, 11)))
    store8(out, 16, pick8(u, v, (15, 0, 14, 1, 13, 2, 12, 3)))


def test_pick_reads_the_sixteen_lanes_of_both():
    a = np.random.default_rng(1).random(16)
    out = np.empty(24)
    _picks(a, out)
    for row, mask in enumerate(((0, 2, 4, 6, 8, 10, 12, 14), (0, 8, 1, 9, 2, 10, 3, 11), (15, 0, 14, 1, 13, 2, 12, 3))):
        np.testing.assert_array_equal(out[8 * row : 8 * row + 8], a[list(mask)])


@njit
def _load_strided(a):
    return load8(a, 0)


@njit
def _bad_swap(a, out):
    store8(out, 0, swap8(load8(a, 0), 3))


def test_only_contiguous_float_arrays_and_literal_lane_masks_type():
    """A strided view (its entries are not 8 apart in memory) or a mask that is not a lane permutation of the
    allowed kind does not compile, rather than reading the wrong memory."""
    with pytest.raises(numba.core.errors.TypingError):
        _load_strided(np.arange(32.0)[::2])
    with pytest.raises(numba.core.errors.TypingError):
        _bad_swap(np.zeros(8), np.zeros(8))


_SOLVER_RUN = r"""
import json, sys
import numpy as np
from crawlmath.numeric.bmap import PhaseType, Policy, load_model
from crawlmath.numeric.bmap import _structured as bs
# R = 2 with distinct exit rates (no lumping); K = 7: levels of 32 and 64 columns, so the pull kernels and the
# level solve's eight-lane passes both run
obsolescence = PhaseType(np.array([0.6, 0.4]), np.array([[-0.3, 0.1], [0.05, -0.15]]))
m = load_model("avrachenkov-example.json", K=7).with_(obsolescence=obsolescence)
lv = m.check_policy(Policy((3, 1), (3,)))
ops = bs.LevelOperators(m, lv)
x, y = ops.vector(), ops.vector()
x[: ops.n] = np.random.default_rng(0).random(ops.n)
ops.apply_flat(x, y)
z = ops.vector()
ops.precondition(x, z)
st = bs.solve_structured(m, lv)
print(json.dumps({"simd": "crawlmath.numeric.linalg._simd" in sys.modules, "pulled": len(ops._pulled),
                  "matvec": y[: ops.n].tolist(), "precondition": z[: ops.n].tolist(),
                  "p": st.flat.tolist()}))
"""


def _solver_run(simd: str) -> dict:
    env = {**os.environ, "CRAWLMATH_SIMD": simd}
    out = subprocess.run([sys.executable, "-c", _SOLVER_RUN], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_plain_lanes_give_the_simd_results_on_the_structured_solver():
    """CRAWLMATH_SIMD=0 (plain numba tuples, no numba internals, `_simd` never imported) against the SIMD kernels,
    each in its own process: the structured solver's matvec and preconditioner at K = 7, R = 2 agree to
    `BMAP_LANES_REL` relative (the plain `fma8` rounds twice, so not bit for bit), one solve to
    `BMAP_LANES_SOLVE_REL`.  The plain run compiles every kernel (nothing cached): about a minute on a quiet
    machine."""
    simd, plain = _solver_run("1"), _solver_run("0")
    assert simd["simd"] and not plain["simd"]
    assert simd["pulled"] > 0  # the pull kernels formed some levels: the comparison covers them
    for key, rel in (("matvec", BMAP_LANES_REL), ("precondition", BMAP_LANES_REL), ("p", BMAP_LANES_SOLVE_REL)):
        a, b = np.array(simd[key]), np.array(plain[key])
        assert a.shape == b.shape
        assert np.abs(a - b).max() <= rel * np.abs(a).max(), (key, np.abs(a - b).max() / np.abs(a).max())


@njit
def _plain_all(a, b, c, out):
    from_a, from_b, from_c = L.load8_plain(a, 0), L.load8_plain(b, 0), L.load8_plain(c, 0)
    L.store8_plain(out, 0, L.add8_plain(from_a, from_b))
    L.store8_plain(out, 8, L.mul8_plain(from_a, from_b))
    L.store8_plain(out, 16, L.fma8_plain(from_a, from_b, from_c))
    L.store8_plain(out, 24, L.splat8_plain(2.5))
    for row, k in enumerate((1, 2, 4)):
        L.store8_plain(out, 32 + 8 * row, L.swap8_plain(from_a, k))
    L.store8_plain(out, 56, L.pick8_plain(from_a, from_b, (15, 0, 14, 1, 13, 2, 12, 3)))


def test_plain_lanes_follow_the_simd_semantics():
    """The plain operations of numeric/linalg/_lanes.py lane by lane (fma rounded twice: numpy's a * b + c)."""
    rng = np.random.default_rng(2)
    a, b, c = rng.standard_normal(8), rng.standard_normal(8), rng.standard_normal(8)
    out = np.empty(64)
    _plain_all(a, b, c, out)
    np.testing.assert_array_equal(out[:8], a + b)
    np.testing.assert_array_equal(out[8:16], a * b)
    np.testing.assert_array_equal(out[16:24], a * b + c)
    np.testing.assert_array_equal(out[24:32], np.full(8, 2.5))
    lanes = np.arange(8)
    for row, k in enumerate((1, 2, 4)):
        np.testing.assert_array_equal(out[32 + 8 * row : 40 + 8 * row], a[lanes ^ k])
    np.testing.assert_array_equal(out[56:], np.concatenate([a, b])[[15, 0, 14, 1, 13, 2, 12, 3]])
