"""Issue 32 (second audit of the Avrachenkov et al. verdicts): the real-data MAP chosen inside the printed rounding
boxes, and the helpers of the last-digit evidence."""
from fractions import Fraction

import pytest

from crawlmath.numeric.bmap import read_spec
from crawlmath.proofs.cells import decimals
from crawlmath.proofs.claims.avrachenkov import _real as R
from crawlmath.proofs.claims.avrachenkov import evidence as E
from crawlmath.proofs.claims.avrachenkov._common import REAL
from crawlmath.proofs.tables import avrachenkov as T


def _model_A():
    c = read_spec(REAL)["arrivals"]["common"]
    return [Fraction(repr(x)) for row in c["A"] for x in row], [Fraction(repr(c["D0"][i][i])) for i in range(2)]


def test_real_model_is_a_generator_inside_every_printed_rounding_box():
    mine, D0 = _model_A()
    printed, half, printed_D0, half_D0 = R.printed_real()
    assert D0 == [-(mine[0] + mine[1]), -(mine[2] + mine[3])]  # exactly conservative
    for x, p, h in zip(mine + D0, printed + printed_D0, half + half_D0):
        assert abs(x - p) <= h
    assert half == [Fraction(5, 10**5), Fraction(5, 10**8), Fraction(5, 10**6), Fraction(5, 10**5)]


def test_real_model_reproduces_the_four_printed_rates_by_rounding_exactly():
    mine, _ = _model_A()
    d = [Fraction(repr(x)) for x in read_spec("avrachenkov-real-printed.json")["arrivals"]["common"]["d"]]
    lam = R.map_lam(mine, d)
    for r, printed in enumerate(T.REAL_LAM, start=1):
        p, h = Fraction(printed), Fraction(1, 2 * 10 ** decimals(printed))
        assert abs(r * lam - p) < h


def test_former_correction_leaves_the_box_and_misses_lambda_2():
    printed, _, printed_D0, half_D0 = R.printed_real()
    d = [Fraction(repr(x)) for x in read_spec("avrachenkov-real-printed.json")["arrivals"]["common"]["d"]]
    row1 = printed[2] + printed[3]  # D_0 = -diag(A e) with A as printed: 0.00653
    assert abs(-row1 - printed_D0[1]) > half_D0[1]
    lam2 = 2 * R.map_lam(printed, d)
    assert abs(lam2 - Fraction("0.0307")) > Fraction(1, 20000)


def test_rule_optimum_lies_inside_the_boxes_and_the_file_holds_it():
    rule = R.real_generator_rule()
    mine, _ = _model_A()
    printed, half, _, _ = R.printed_real()
    for x, y, p, h in zip(mine, rule, printed, half):
        assert abs(y - float(p)) <= float(h)
        assert float(x) == pytest.approx(y, rel=1e-6)


def test_downward_deviation_and_the_boundary_windows():
    assert E.downward_deviation(86.12633, "86.11") == pytest.approx((86.12633 - 86.12) / 86.12633, rel=1e-9)
    assert E.downward_deviation(86.12633, "86.12") is None
    assert E._near_boundary(84.9972, "85.0", 5e-5) == "below"  # 0.0028 below 85.0, within 5e-5 x 84.9972 = 0.00425
    assert E._near_boundary(84.99, "85.0", 5e-5) == ""  # 0.01 below: outside the window
    assert E._near_boundary(139.96997, "139.97", 5e-5) == "below"
    assert E._near_boundary(139.97003, "139.97", 5e-5) == "above"


def test_trunc_distance():
    assert E._trunc_distance(667.65475, "666.28") == pytest.approx(667.65475 - 666.29)
    assert E._trunc_distance(666.285, "666.28") == 0.0
    assert E._trunc_distance(666.27, "666.28") == pytest.approx(0.01)
