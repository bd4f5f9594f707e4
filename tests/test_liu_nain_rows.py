"""Liu–Nain §1.2.1 figures/proof steps and §1.3 rows: the helpers behind the claims."""
from fractions import Fraction as F
from itertools import combinations_with_replacement

import numpy as np

from crawlmath.proofs.claims.coffman import section_3 as C
from crawlmath.proofs.claims.liu_nain import _orderings as O
from crawlmath.proofs.claims.liu_nain import _timeline as TL
from crawlmath.proofs.claims.liu_nain import scheduling as L
from crawlmath.proofs.claims.liu_nain import static_figures as S
from crawlmath.proofs.registry import Status


def test_orders_are_decided_exactly():
    assert O.st_ordered(O.X_TWO_PRIME, O.X_TWO) and O.icx_ordered(O.X_TWO_PRIME, O.X_TWO)
    assert not O.st_ordered(O.X_TWO, O.X_TWO_PRIME) and not O.icx_ordered(O.X_TWO, O.X_TWO_PRIME)
    spread, det1 = (F(0), F(2)), (F(1), F(1))
    assert O.icx_ordered(det1, spread) and not O.st_ordered(det1, spread)  # cx, not st
    assert O.stop_loss(spread, F(1)) == F(1, 2)


def test_two_point_counterexample_and_cx_pair():
    assert all(r.increase_proved for r in O.compare_rates(O.X_TWO_PRIME, O.X_TWO))
    # Equal means (det(1) <=cx 0-or-2): the rate goes down, as the corrected statement says.
    rows = O.compare_rates((F(1), F(1)), (F(0), F(2)))
    assert all(bool(r.r_prime - r.r < 0) for r in rows)


def test_rate_increases_with_mean_and_transform():
    in_mean, in_h, _ = O.rate_monotonicity()
    assert in_mean and in_h


def test_partitions_and_majorization():
    parts = list(L._partitions(14, 4))
    brute = {tuple(sorted(c, reverse=True)) for c in combinations_with_replacement(range(1, 12), 4) if sum(c) == 14}
    assert sorted(parts) == sorted(brute)
    assert L._majorizes((5, 1), (3, 3)) and not L._majorizes((3, 3), (5, 1))


def test_page_intervals_on_a_hand_made_timeline():
    tl = TL.Timeline(np.array([0, 1, 0, 0]), np.array([1.0, 2.0, 3.0, 4.0]), (np.array([1.5, 1.7, 3.9]), np.array([])))
    iv = TL.page_intervals(tl, 0)
    np.testing.assert_allclose(iv.Z, [1.5, 0.1])  # first change after 1 is 1.5, after 3 is 3.9
    np.testing.assert_array_equal(iv.d, [2, 1])
    assert TL.page_intervals(tl, 1).Z.size == 0


def test_rho_curve_certainty_needs_gaps_above_the_error():
    curve = S.RhoCurve(0.5, np.arange(2, 5), np.array([0.5, 0.6, 0.6 + 1e-12]), error=1e-12)
    assert not curve.shape_certain
    assert S.RhoCurve(0.5, np.arange(2, 5), np.array([0.5, 0.6, 0.7]), error=1e-15).shape_certain


def test_theorem_3_1_and_proposition_7_share_a_verdict():
    assert C._thm_3_1().status == L._prop_7().status == Status.ERRATUM
    assert C._thm_3_1_laplace().status == L._prop_7_laplace().status == Status.ERRATUM


def test_static_cost_exact_matches_the_sympy_derivation():
    import sympy as sp

    from crawlmath.derive import static_mm1k as d
    from crawlmath.proofs.claims.liu_nain import static as ST

    expr = d.cost()
    syms = {s.name: s for s in expr.free_symbols}
    for lam, K, g, n in (("0.01", 5, "0.4", 73), ("0.05", 10, "2.4", 22), ("0.1", 15, "1.13", 9)):
        want = expr.subs({syms["rho"]: n * sp.Rational(lam), syms["gamma"]: sp.Rational(g), syms["K"]: K, syms["mu"]: 1})
        assert sp.Rational(str(ST.cost_exact(lam, K, g, n))) == sp.nsimplify(sp.simplify(want))
    at_one = sp.limit(expr.subs({syms["gamma"]: sp.Rational("1.13"), syms["K"]: 15, syms["mu"]: 1}), syms["rho"], 1)
    assert ST.cost_exact("0.01", 15, "1.13", 100) == F(213, 1600) == F(str(at_one))
    assert ST.on_midpoint(F(213, 1600), 5) and not ST.on_midpoint(F(213, 1600), 6)
    assert not ST.on_midpoint(F(1, 3), 5)


def test_nbar_hp_against_exact_rationals_on_a_small_instance():
    """N̄ of the optimal policy: the 30-digit refinement against the exact rational stationary law (Fractions,
    Gauss-Jordan) of the same chain, and the float64 law."""
    import mpmath
    import sympy as sp

    from crawlmath.numeric import mdp as M
    from crawlmath.proofs.claims.liu_nain import _dynamic_nbar as D

    sol = M.policy_iteration(M.CrawlerMDP(0.3, 1.0, 3, 4, 1.4))
    nbar, digits, gap = D.nbar_hp(sol)
    rows = D._policy_rows(sol, F(1))
    n = len(rows)
    A = sp.zeros(n, n)
    for k, row in enumerate(rows):
        A[k, k] += 1
        for j, p in row:
            A[k, j] -= sp.Rational(p.numerator, p.denominator)
    A = A.T
    A[0, :] = sp.ones(1, n)
    pi = A.LUsolve(sp.Matrix([1] + [0] * (n - 1)))
    exact = sum(pi[k] * int(r) for k, r in enumerate(sol.mdp.states[sol.recurrent, 1]))
    with mpmath.workdps(40):
        err = abs(nbar - mpmath.mpf(exact.p) / exact.q)
    assert digits >= 30 and err < mpmath.mpf(10) ** -29 * abs(nbar), (nbar, exact, err)
    assert abs(float(nbar) - sol.n_mean) < 1e-9 * sol.n_mean and gap > 0
