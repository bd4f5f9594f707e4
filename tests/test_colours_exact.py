"""The exact stationary colour count at scale (issue 30) and the size limits (issue 33).

Routes compared: power sums + Newton's identities in arb balls (`exact_stationary`), series inversion of
prod(1 - p_i t) in arb balls (`exact_stationary_series`), Newton's identities over the rationals
(`exact_stationary_rational`) and the chain on occupancy vectors (`exact_general`).
"""
from fractions import Fraction

import flint
import numpy as np
import pytest

import crawlmath.numeric.colours as nc
from crawlmath.cli import main
from crawlmath.numeric.errors import TooLarge


def _contains(ball, x: Fraction) -> bool:
    """The ball meets x, x converted at 600 bits (its own radius is ~2^-600 of x, far below any ball here)."""
    old = flint.ctx.prec
    flint.ctx.prec = 600
    try:
        return ball.overlaps(flint.arb(flint.fmpq(x.numerator, x.denominator))) and ball.rad() < 1e-29 * abs(float(x))
    finally:
        flint.ctx.prec = old


@pytest.mark.parametrize("seed,C,K", [(0, 3, 6), (1, 5, 9), (2, 7, 8)])
def test_three_routes_agree_on_small_cases(seed, C, K):
    p = np.random.default_rng(seed).dirichlet(np.ones(C) * 0.7)
    exact = nc.exact_stationary_rational(p, K)
    a = nc.exact_stationary(p, K)
    b = nc.exact_stationary_series(p, K)
    assert _contains(a.colours_ball, exact) and _contains(b.colours_ball, exact)
    assert a.digits >= 30 and b.digits >= 30
    assert nc.exact_general(p, K).colours == pytest.approx(float(exact), rel=1e-10)


def test_uniform_ball_contains_the_closed_form():
    K, C = 700, 5000
    a = nc.exact_stationary(np.full(C, 1 / C), K)
    assert _contains(a.colours_ball, Fraction(K * C - 1, K + C - 2))


def test_tiny_entries_go_into_the_tail_bound():
    # entries 1e-300 underflow in float64 from the second power on; the ball must still hold the exact value
    p = np.array([0.5, 0.3, 0.2 - 2e-300, 1e-300, 1e-300])
    exact = nc.exact_stationary_rational(p, 40)
    assert _contains(nc.exact_stationary(p, 40).colours_ball, exact)


def test_powerlaw_at_scale_two_routes():
    # issue 30: gamma = 1, C = 1e4, K = 1000 gave 10.682 from float64 power sums (p1^k underflows for k > ~320);
    # an 8e7-step simulation gives 10.621 +- 0.006
    p = nc.colour_distribution("powerlaw", 10_000, 1.0)
    a = nc.exact_stationary(p, 1000)
    b = nc.exact_stationary_series(p, 1000)
    assert a.colours_ball.overlaps(b.colours_ball)
    assert a.digits >= 30 and b.digits >= 30
    assert abs(a.colours - 10.6195532899703470) < 1e-13


def test_sizes_are_refused_before_work():
    with pytest.raises(TooLarge):
        nc.require_product_form_budget(10**8, 10**5, 10**8)
    with pytest.raises(TooLarge, match="states"):
        nc.require_chain_states(10**5, 10**8)
    assert main(["colours", "--K", "100000", "--C", "100000000", "--exact", "product"]) == 4


def test_mean_field_closed_form_for_huge_sizes():
    assert nc.mean_field(10**18, 10**18).colours == 5e17
    m = nc.mean_field(10**400, 10**400)
    assert m.colours_exact == Fraction(10**800, 2 * 10**400 - 1) and m.p_new == 0.5
    with pytest.raises(TooLarge, match="float64 range"):
        m.colours
    with pytest.raises(TooLarge, match="nu"):
        m.nu


def test_cli_reports_the_enclosure(capsys):
    import json

    assert main(["colours", "--K", "100", "--C", "1000", "--dist", "powerlaw:1.1", "--exact", "product", "--json"]) == 0
    e = json.loads(capsys.readouterr().out)["exact"]
    assert e["digits"] >= 30 and e["radius"] < 1e-13
    other = nc.exact_stationary_series(nc.colour_distribution("powerlaw", 1000, 1.1), 100)  # the second route
    assert other.colours_ball.overlaps(flint.arb(e["enclosure"]))


@pytest.mark.parametrize("K,C", [(3, 2), (6, 4), (9, 9)])
def test_rational_chain_keeps_the_exact_value(K, C):
    # the chain solved over the rationals against the product form's closed form (KC - 1)/(K + C - 2)
    assert nc.exact_uniform(K, C, "rational").colours_exact == Fraction(K * C - 1, K + C - 2)
