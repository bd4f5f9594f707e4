"""The eight-lane vector operations of numeric/linalg/_simd.py against numpy and exact rationals."""
from fractions import Fraction

import numba
import numpy as np
import pytest
from numba import njit

from crawlmath.numeric.linalg._simd import add8, fma8, load8, mul8, pick8, splat8, store8, swap8


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
