"""The exact stationary colour count at scale (issue 30) and the size limits (issue 33).

Routes compared: power sums + Newton's identities in arb balls (`exact_stationary`), series inversion of
prod(1 - p_i t) in arb balls (`exact_stationary_series`), Newton's identities over the rationals
(`exact_stationary_rational`) and the chain on occupancy vectors (`exact_general`).
"""
import math
from fractions import Fraction

import flint
import numpy as np
import pytest

from crawlmath.numeric import colours as nc
from crawlmath.cli import main
from crawlmath.numeric.errors import InvalidInput, TooLarge


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
    lo, hi = nc.exact_general(p, K).colours_bounds  # p read as its shortest decimals by both
    assert lo <= exact <= hi and hi - lo <= exact / 10 ** 32


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
    assert e["inputs"] == "exact" and "gamma = 11/10" in e["model"]
    other = nc.exact_stationary_series(nc.colour_law_of("powerlaw", 1000, Fraction(11, 10)), 100)  # the second route
    assert other.colours_ball.overlaps(flint.arb(e["enclosure"]))


@pytest.mark.parametrize("K,C", [(3, 2), (6, 4), (9, 9)])
def test_rational_chain_keeps_the_exact_value(K, C):
    # the chain solved over the rationals against the product form's closed form (KC - 1)/(K + C - 2)
    assert nc.exact_uniform(K, C, "rational").colours_exact == Fraction(K * C - 1, K + C - 2)


# ---- issue 30: p read exactly (ints, Fractions, decimal strings; a float means its shortest decimal)

def _chain_colours(p: list, K: int) -> Fraction:
    """E[S] of the chain itself (not the product form): occupancy vectors, one ball of a uniformly chosen present
    colour leaves, a ball of colour c arrives with probability p_c; pi P = pi solved over the rationals."""
    C = len(p)
    states = [s for s in _vectors(K, C)]
    index = {s: k for k, s in enumerate(states)}
    n = len(states)
    A = flint.fmpq_mat(n + 1, n)  # rows: (P^T - I) pi = 0, then sum pi = 1
    for k, s in enumerate(states):
        present = [j for j in range(C) if s[j]]
        for j in present:
            for c in range(C):
                t = list(s)
                t[j] -= 1
                t[c] += 1
                A[index[tuple(t)], k] += flint.fmpq(p[c].numerator, p[c].denominator) / len(present)
        A[k, k] -= 1
        A[n, k] = 1
    b = flint.fmpq_mat(n + 1, 1)
    b[n, 0] = 1
    AtA, Atb = A.transpose() * A, A.transpose() * b  # the (consistent) overdetermined system, solved exactly
    pi = AtA.solve(Atb)
    total = sum((pi[k, 0] * sum(1 for x in s if x) for k, s in enumerate(states)), flint.fmpq(0))
    return Fraction(int(total.p), int(total.q))


def _vectors(K, C):
    if C == 1:
        yield (K,)
        return
    for first in range(K + 1):
        for rest in _vectors(K - first, C - 1):
            yield (first,) + rest


P_DECIMAL = ["0.7", "0.2", "0.1"]
P_FRACTION = [Fraction(7, 10), Fraction(1, 5), Fraction(1, 10)]


def test_fractions_give_the_chains_rational_value():
    K = 4
    want = _chain_colours(P_FRACTION, K)  # the chain itself, independent of the product form
    assert nc.exact_stationary_rational(P_FRACTION, K) == want
    a, b = nc.exact_stationary(P_FRACTION, K), nc.exact_stationary_series(P_FRACTION, K)
    assert _contains(a.colours_ball, want) and _contains(b.colours_ball, want)
    assert a.inputs == b.inputs == "exact"


def test_decimal_strings_and_floats_mean_the_decimal_and_binary_reading_differs():
    K = 6
    want = nc.exact_stationary_rational(P_FRACTION, K)
    assert nc.exact_stationary_rational(P_DECIMAL, K) == want
    assert nc.exact_stationary_rational([0.7, 0.2, 0.1], K) == want  # a float is its shortest decimal
    assert nc.exact_stationary_rational(np.array([0.7, 0.2, 0.1]), K) == want  # the float64 fast path too
    assert nc.exact_stationary([0.7, 0.2, 0.1], K).inputs == "shortest-decimal"
    binary = nc.colour_law([0.7, 0.2, 0.1], floats="binary")  # 0.7 as 3152519739159347/2**52
    other = nc.exact_stationary_rational(binary, K)
    assert other != want and abs(other - want) < Fraction(1, 10**15)  # the test can tell the two models apart
    assert not _contains(nc.exact_stationary(binary, K).colours_ball, want)
    assert _contains(nc.exact_stationary(binary, K).colours_ball, other)


def test_float64_fast_path_reads_the_same_decimals_as_exact():
    from crawlmath.numeric.exact import exact

    rng = np.random.default_rng(3)
    p = np.concatenate([rng.random(200) ** 20, [5e-324, 1e-310, 2.0**-1074 * 3]])
    p = p / p.sum()
    law = nc.colour_law(p)
    want = sorted((exact(x, argument="p") for x in p.tolist() if x > 0), reverse=True)
    assert sorted(law.values, reverse=True) == want


def test_powerlaw_balls_from_the_exact_gamma():
    # gamma = 2 makes c^-gamma rational: the balls of c^-gamma against the rational route on p_c = 1/c^2
    C, K = 6, 7
    w = [Fraction(1, c * c) for c in range(1, C + 1)]
    want = nc.exact_stationary_rational([x / sum(w) for x in w], K)
    law = nc.colour_law_of("powerlaw", C, "2")
    assert _contains(nc.exact_stationary(law, K).colours_ball, want)
    assert _contains(nc.exact_stationary_series(law, K).colours_ball, want)
    # gamma = 1.1: the float 1.1 and the string "1.1" are both 11/10, only the reading recorded differs
    a = nc.exact_stationary(nc.colour_law_of("powerlaw", 300, "1.1"), 50)
    b = nc.exact_stationary(nc.colour_law_of("powerlaw", 300, 1.1), 50)
    assert a.colours_ball.overlaps(b.colours_ball) and (a.inputs, b.inputs) == ("exact", "shortest-decimal")
    with pytest.raises(InvalidInput, match="rational"):
        nc.exact_stationary_rational(law, K)


@pytest.mark.parametrize("p", [[Fraction(1, 2), Fraction(1, 2), Fraction(-1, 10**400)], ["0.5", "x"], [0.5, 0.5, 2 + 1j]])
def test_bad_entries_are_named(p):
    with pytest.raises(InvalidInput, match=r"p\[2\]|p\[1\]"):
        nc.colour_law(p)


def test_poisson_balls_contain_the_rational_law():
    # lambda^c / c! is rational for rational lambda: the weights formed as exp(c log lambda - log c!) in balls
    # against the rational route on the normalised Fractions
    C, K = 30, 12
    w = [Fraction(5, 2) ** c / math.factorial(c) for c in range(1, C + 1)]
    want = nc.exact_stationary_rational([x / sum(w) for x in w], K)
    law = nc.colour_law_of("poisson", C, "2.5")
    assert _contains(nc.exact_stationary(law, K).colours_ball, want)
    assert law.inputs == "exact" and "lambda = 5/2" in law.model


@pytest.mark.parametrize("kind,params", [("geometric", ("3",)), ("normal", ("150", "20")), ("poisson", ("2.5",))])
def test_laws_in_balls_match_the_float64_vector_to_float_accuracy(kind, params):
    # the balls are the printed law; the float64 vector is it rounded (and underflowed) entry by entry
    law = nc.colour_law_of(kind, 300, *params)
    a, b = nc.exact_stationary(law, 40), nc.exact_stationary_series(law, 40)
    f = nc.exact_stationary(nc.colour_distribution(kind, 300, *map(float, params)), 40)
    assert a.colours_ball.overlaps(b.colours_ball) and min(a.digits, b.digits) >= 30
    assert f.colours == pytest.approx(a.colours, rel=1e-14)


def _product_form_brute_force(p: list, K: int) -> tuple[Fraction, Fraction]:
    """(E[S], P_new) from pi(q) ∝ S(q) prod p_c^q_c summed over every occupancy vector (the product form proved in
    proofs/claims/buijsrogge.py), in Fractions: independent of the chain the code solves."""
    import itertools

    z = s_sum = new_sum = Fraction(0)
    for q in itertools.product(range(K + 1), repeat=len(p)):
        if sum(q) != K:
            continue
        w = Fraction(sum(1 for x in q if x))
        for pc, x in zip(p, q):
            w *= pc ** x
        z += w
        s_sum += w * sum(1 for x in q if x)
        new_sum += w * sum((pc for pc, x in zip(p, q) if not x), Fraction(0))
    return s_sum / z, new_sum / z


def test_exact_chain_reads_p_exactly_and_certifies_its_digits():
    """issue 30: the chain on occupancy vectors took float64 p; "0.1", "0.2", "0.7" are now read exactly and the
    exact-rational bounds of E[S] and P_new contain the product form's exact values."""
    p = ["0.1", "1/5", Fraction(7, 10)]
    r = nc.exact_general(p, 6, digits=30)
    want_s, want_new = _product_form_brute_force([Fraction(1, 10), Fraction(1, 5), Fraction(7, 10)], 6)
    assert r.inputs == "exact" and r.digits == 30
    assert r.colours_bounds[0] <= want_s <= r.colours_bounds[1] and r.p_new_bounds[0] <= want_new <= r.p_new_bounds[1]
    assert r.colours_bounds[1] - r.colours_bounds[0] <= want_s / 10 ** 32
    assert abs(Fraction(r.colours) - want_s) <= want_s * 2 ** -52
    floats = nc.exact_general(np.array([0.1, 0.2, 0.7]), 6)  # a float stands for its shortest decimal
    assert floats.colours_bounds == r.colours_bounds and floats.inputs == "shortest-decimal"


def test_exact_chain_counts_zero_colours_absent_and_refuses_ball_laws():
    r = nc.exact_general(["0.5", "0.5", 0], 3, digits=20)
    assert r.C == 2 and math.isclose(r.nu.sum(), 3) and r.nu[0] >= 1  # the p = 0 colour is always absent
    with pytest.raises(InvalidInput, match="must be rational for the exact chain"):
        nc.exact_general(nc.colour_law_of("powerlaw", 3, "1.1"), 2)


def test_simulation_reads_p_like_the_exact_routes_and_says_it_is_not_one():
    from crawlmath.numeric.colours import MIN_STEPS, simulate

    a = simulate(["0.5", "1/4", Fraction(1, 4)], 4, MIN_STEPS, seed=3)
    b = simulate(np.array([0.5, 0.25, 0.25]), 4, MIN_STEPS, seed=3)
    assert a.mean is not None and a.mean == b.mean and a.inputs == "exact" and b.inputs == "shortest-decimal"
    assert "not an exact route" in a.method
    with pytest.raises(InvalidInput, match=r"p\[1\]"):
        simulate(["0.5", "x", "0.5"], 4, MIN_STEPS)


def test_exact_chain_of_a_skewed_law_starts_from_gth_when_the_lu_loses_small_entries(monkeypatch):
    """p = (0.999, 0.000999, 0.000001), K = 10: π spans 60 orders of magnitude, so the float64 sparse LU (forced
    here for a 66-state chain) leaves 34 entries <= 0; the level-by-level GTH start keeps them and the certified
    bounds hold.  Without that start the refinement is refused with a SolverError naming the cause."""
    from crawlmath.numeric.markov import _sparse_refine as R
    from crawlmath.numeric.errors import SolverError

    p = ["0.999", "0.000999", "0.000001"]
    want_s, want_new = _product_form_brute_force([Fraction(999, 1000), Fraction(999, 10 ** 6), Fraction(1, 10 ** 6)], 10)
    monkeypatch.setattr(R, "GTH_LEVELS_MAX_WORK", 0)
    r = nc.exact_general(p, 10, digits=30)
    assert r.colours_bounds[0] <= want_s <= r.colours_bounds[1] and r.p_new_bounds[0] <= want_new <= r.p_new_bounds[1]
    monkeypatch.setattr(R, "GTH_LEVELS_SLOW_WORK", 0)
    with pytest.raises(SolverError, match="entries <= 0"):
        nc.exact_general(p, 10, digits=30)


def test_uniform_chain_is_certified_and_contains_the_rational_solution():
    """``certified_uniform`` (exact partition chain, two routes) encloses E[S] solved in exact Fractions."""

    for K, C in [(3, 2), (6, 4), (8, 20)]:
        r = nc.certified_uniform(K, C, digits=30)
        exact = nc.exact_uniform(K, C, method="rational").colours_exact
        assert r.colours_bounds[0] <= exact <= r.colours_bounds[1] and r.inputs == "exact"
        assert r.colours_bounds[1] - r.colours_bounds[0] < Fraction(1, 10**30)


def test_cli_uniform_chain_certified_below_the_cap_and_labelled_float_above(capsys, monkeypatch):
    import json

    from crawlmath.cli import main

    assert main(["colours", "--K", "6", "--C", "4", "--exact", "chain", "--json"]) == 0
    certified = json.loads(capsys.readouterr().out)["exact"]
    assert certified["digits"] == 30 and certified["bounds"][0] <= "2.875" <= certified["bounds"][1]
    monkeypatch.setattr(nc, "CERTIFIED_PARTITIONS", 1)
    assert main(["colours", "--K", "6", "--C", "4", "--exact", "chain", "--json"]) == 0
    labelled = json.loads(capsys.readouterr().out)["exact"]
    assert "not certified" in labelled["method"] and "residual" in labelled and "digits" not in labelled
