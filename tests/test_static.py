"""Static M/M/1/K crawler count (Liu–Nain §1.2.1): properties and two-route agreement."""
import math
import re
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from crawlmath.numeric import static
from crawlmath.numeric.static import _mm1k as s  # internals: the float route's brackets, SCALAR_MAX_K
from crawlmath.numeric.errors import InvalidInput
from crawlmath.numeric.generated import static_mm1k as gen
from crawlmath.proofs.tables import liu_nain_static as T

SEED = Path(__file__).resolve().parents[2] / "shared" / "seeds" / "003_dde4fe79a247e1b3.txt"
# The transcription tests compare with the seed text when it sits beside the repository; a clone
# standing alone skips them (the tables themselves are reference data in proofs/tables/).
needs_seed = pytest.mark.skipif(not SEED.exists(), reason=f"seed text not present ({SEED})")

gammas = st.floats(0.02, 8.0)
Ks = st.integers(2, 80)
lams = st.sampled_from([0.005, 0.01, 0.02, 0.05, 0.1, 0.3])


@settings(max_examples=60, deadline=None)
@given(lam=lams, gamma=gammas, K=Ks)
def test_N_opt_is_the_brute_force_argmin(lam, gamma, K):
    assert static.static_optimum(lam, 1.0, gamma, K).N_opt == static.brute_force_N(lam, 1.0, gamma, K)


@settings(max_examples=60, deadline=None)
@given(gamma=gammas, K=Ks, rho=st.floats(0.0, 4.0))
def test_cost_nonnegative_and_minimal_at_rho_opt(gamma, K, rho):
    c = float(gen.cost(rho, gamma, K, 1.0))
    assert c >= 0
    assert float(gen.cost(static.optimal_rho(gamma, K), gamma, K, 1.0)) <= c * (1 + 1e-12)


@settings(max_examples=25, deadline=None)
@given(gamma=gammas, K=st.integers(2, 40))
def test_float_and_mpmath_roots_agree(gamma, K):
    hp = static.optimal_rho_mp(repr(gamma), K, 1, digits=30)
    assert abs(static.optimal_rho(gamma, K) - float(hp)) <= 1e-13 * float(hp)


@settings(max_examples=60, deadline=None)
@given(gamma=st.floats(1e-3, 1e3), K=st.integers(2, 120), mu=st.floats(0.01, 100.0))
def test_float_root_from_the_estimate_equals_the_full_search(gamma, K, mu):
    """Two brackets of the float route, one root: the tight one around the
    estimate from (1.7) (`_near_bracket`) and the search from 1 (`_bracket`)."""
    def q(r):
        return gen.stationarity_deflated_scalar(r, gamma, K, mu)

    q_one = q(1.0)
    if q_one == 0:
        return
    full = s._brent(q, *s._bracket(q, K, 1.0, q_one))
    assert static.optimal_rho(gamma, K, mu) == pytest.approx(full, rel=1e-15, abs=0)


def test_brackets_hold_a_sign_change_of_Q():
    """Both brackets are proved by the signs of Q at their ends, and the root lies inside them."""
    for gamma, K, mu in [(2.4, 15, 1.0), (0.5, 10, 1.0), (1.2, 5, 1.0), (3.0, 50, 1.0), (0.02, 300, 7.0)]:
        def q(r):
            return gen.stationarity_deflated_scalar(r, gamma, K, mu)

        root = static.optimal_rho(gamma, K, mu)
        for a, q_a, b, q_b in (s._near_bracket(q, root * (1 + 1e-10)), s._bracket(q, K, 1.0, q(1.0))):
            assert a <= root <= b and (q_a, q_b) == (q(a), q(b)) and q_a <= 0 <= q_b


def test_near_bracket_without_estimate_leaves_the_search_to_bracket():
    assert s._near_bracket(lambda r: r - 1, None) is None
    assert s._near_bracket(lambda r: r + 1, 1.0) is None  # no positive root to find


def test_near_bracket_follows_the_secant_to_a_far_root():
    """From 1.0 the neighbouring floats do not bracket 2; the secant through them lands on it.
    From 1e-6 away on a curved function (no float root), secant rounds reach a pair of neighbouring floats."""
    assert s._near_bracket(lambda r: r - 2, 1.0) == (2.0, 0.0, 2.0, 0.0)
    a, q_a, b, q_b = s._near_bracket(lambda r: r * r - 2, 1.414215)
    assert b == math.nextafter(a, 2) and q_a < 0 < q_b and a * a < 2 < b * b


@settings(max_examples=40, deadline=None)
@given(gamma=st.floats(1e-3, 1e3), K=st.integers(2, 120), mu=st.floats(0.01, 100.0))
def test_sign_of_Q_at_one_is_exact(gamma, K, mu):
    """`_q_at_one`'s sign against Q(1) from the derivation (SymPy, exact rationals) and against the
    generated Q at 1 in 60-digit arithmetic, for the binary values of the floats; its float value to
    rounding of the terms' size."""
    import sympy as sp
    from crawlmath.derive import static_mm1k as d

    side, value = s._q_at_one(gamma, K, mu)
    exact = d.deflated_at_one().subs({d.gamma: sp.Rational(gamma), d.mu: sp.Rational(mu), d.K: K})
    scale = (K + 1) / 2 * (K * gamma + (K + 2) * mu)
    assert side == sp.sign(exact) and abs(value - float(exact)) <= 1e-14 * scale
    with mpmath.workdps(60):
        assert side == mpmath.sign(gen.stationarity_deflated_mp(1, mpmath.mpf(gamma), K, mpmath.mpf(mu)))


def test_sign_of_Q_at_one_next_to_gamma_K():
    """gamma one ulp either side of gamma(K): the root moves across 1, and the sign test sees it."""
    for K in (3, 7, 10, 49, 50, 99):
        g = float(gen.gamma_K(K, 1.0))
        for gamma in (math.nextafter(g, 0), g, math.nextafter(g, 9)):
            side, _ = s._q_at_one(gamma, K, 1.0)
            exact = Fraction(1) * (K + 2) - Fraction(gamma) * K
            assert side == (exact > 0) - (exact < 0)
            rho = static.optimal_rho(gamma, K)
            assert (rho - 1) * side <= 0 and (side != 0 or rho == 1.0)  # Q(1) > 0: root below 1


@settings(max_examples=40, deadline=None)
@given(gamma=st.floats(0.02, 20.0), K=st.integers(2, 200), mu=st.sampled_from([0.5, 1.0, 2.0]))
def test_float_root_is_within_an_ulp_or_two_of_the_50_digit_root(gamma, K, mu):
    """The float route brackets the root between neighbouring floats proved by Q's signs (so within
    one ulp, up to rounding in those signs); the fallback (Brent, FLOAT_ROOT_RTOL) within a few."""
    exact = static.optimal_rho_mp(Fraction(gamma), K, Fraction(mu), digits=50)
    rho = static.optimal_rho(gamma, K, mu)
    with mpmath.workdps(60):
        assert abs(rho - exact) <= 2 * math.ulp(rho)


def test_brent_bisects_where_interpolation_divides_by_zero():
    """Values so small that their differences underflow: Python raises where C gives inf; Brent must bisect."""
    def f(x):
        return 1e-200 * (x - 0.3) * (1 + x * x)  # products of two slopes underflow to 0

    assert s._brent(f, 0.0, f(0.0), 1.0, f(1.0)) == pytest.approx(0.3, rel=1e-15)


def test_numpy_and_scalar_evaluations_of_Q_give_the_same_rho(monkeypatch):
    """Above SCALAR_MAX_K the float route evaluates Q with NumPy; both give rho to full accuracy."""
    K = s.SCALAR_MAX_K + 50
    vectorised = static.optimal_rho(1.3, K, 1.0)
    monkeypatch.setattr(s, "SCALAR_MAX_K", 10 * K)
    assert static.optimal_rho(1.3, K, 1.0) == pytest.approx(vectorised, rel=4e-16, abs=0)


def test_two_high_precision_routes_agree_to_40_digits():
    a = static.optimal_rho_mp("2.4", 15, 1, digits=45)
    b = static.optimal_rho_by_derivative_mp("2.4", 15, 1, digits=45)
    assert abs(a - b) < mpmath.mpf(10) ** -40


def test_rho_equals_one_exactly_at_gamma_K():
    for K in (2, 3, 4, 5, 10):  # gamma(K) exact in binary for these K
        g = float(gen.gamma_K(K, 1.0))
        if g == (K + 2) / K:
            assert static.optimal_rho(g, K) == pytest.approx(1.0, abs=1e-12)


def test_cost_removable_singularity():
    assert float(gen.cost(1.0, 0.7, 9, 1.0)) == pytest.approx(1.7 / 10, rel=1e-15)
    near = float(gen.cost(1 + 1e-12, 0.7, 9, 1.0))
    assert near == pytest.approx(1.7 / 10, rel=1e-10)


def test_cost_vectorises_and_survives_overflow():
    r = np.array([0.0, 0.5, 1.0, 3.0])
    c = gen.cost(r, 1.0, 5000, 1.0)
    assert np.all(np.isfinite(c)) and c[0] == 1.0 and c[3] == pytest.approx(2.0)


def test_infinite_K():
    o = static.static_optimum(0.03, 1.0, 0.5, math.inf)
    assert o.rho_opt == 1.0 and o.N_opt in (33, 34) and o.N_opt == o.N_approx


@pytest.mark.parametrize("kwargs, arg", [
    (dict(lam=0, mu=1, gamma=1, K=5), "lam"),
    (dict(lam=0.1, mu=-1, gamma=1, K=5), "mu"),
    (dict(lam=0.1, mu=1, gamma=0, K=5), "gamma"),
    (dict(lam=0.1, mu=1, gamma=1, K=1), "K"),
    (dict(lam=0.1, mu=1, gamma=1, K=2.5), "K"),
    (dict(lam=0.1, mu=1, gamma="x", K=5, digits=20), "gamma"),
])
def test_bad_input_names_the_argument(kwargs, arg):
    with pytest.raises(InvalidInput) as e:
        static.static_optimum(**kwargs)
    assert e.value.argument == arg


@needs_seed
def test_table_1_1_transcription_matches_seed():
    text = SEED.read_text(encoding="utf-8")
    for g, cells in T.TABLE_1_1.items():
        line = next(l for l in text.splitlines() if l.startswith(f"$\\gamma = {g}$"))
        assert tuple(line.split("\t")[1:]) == cells


@needs_seed
@pytest.mark.parametrize("table, rows", [("Table 1.2", T.TABLE_1_2_STATIC), ("Table 1.3", T.TABLE_1_3_STATIC)])
def test_static_columns_transcription_matches_seed(table, rows):
    lines = SEED.read_text(encoding="utf-8").splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith(table))
    data = [l.split("\t") for l in lines[start:start + 40] if re.match(r"^(0\.\d+|-)\t", l)][: len(rows)]
    lam = k = None
    for printed, row in zip(data, rows):
        lam, k = (printed[0], printed[1]) if printed[0] != "-" else (lam, k)
        assert (lam, k, *printed[2:5]) == row


@pytest.mark.parametrize("args", [(0.05, 1.0, 2.4, 15), (0.01, 1, 0.5, 10), (0.001, 2.0, 0.05, 3), (0.01, 1.0, 5.0, 200),
                                  (0.3, 1.0, 7.0, math.inf)])
def test_float_route_skips_the_exact_reading_without_changing_the_optimum(args):
    """Plain floats and ints go straight to the float route (`_plain`); NumPy floats still take the exact
    reading (exact() -> shortest decimal -> to_float).  Both give the same optimum, field for field."""
    lam, mu, gamma, K = args
    assert s._plain(lam) and s._plain(mu) and s._plain(gamma)
    direct = s.static_optimum(lam, mu, gamma, K)
    read = s.static_optimum(np.float64(lam), np.float64(mu), np.float64(gamma), K)
    assert direct == read and direct.inputs == "shortest-decimal"
    assert s.static_optimum(1, 2, 3, 4).inputs == "exact"


@pytest.mark.parametrize("kwargs, arg", [({"lam": 1e-300}, "lam"), ({"gamma": 1e301}, "gamma"), ({"mu": -1.0}, "mu"),
                                         ({"gamma": math.nan}, "gamma"), ({"lam": True}, "lam")])
def test_values_the_float_shortcut_does_not_take_are_refused_as_before(kwargs, arg):
    """The shortcut takes only values the exact reading accepts unchanged (bounds strict: the float 1e-300 reads as
    10^-300, below the bound's binary value); the rest keep the exact reading's refusal."""
    call = {"lam": 0.01, "mu": 1.0, "gamma": 0.5, "K": 10, **kwargs}
    assert not s._plain(kwargs[arg])
    with pytest.raises(InvalidInput, match=f"^{arg}"):
        s.static_optimum(**call)


def test_seven_tenths_as_fraction_and_decimal_string_give_the_same_digits_and_the_float_route_their_float():
    """gamma = 7/10 read exactly: as Fraction(7, 10) and as "0.7" the 30-digit route gives the same digits; the float
    route for the float 0.7 (shortest decimal 7/10) returns the float nearest those digits, within one ulp (the
    root between neighbouring floats proved by Q's signs, up to rounding in those signs)."""
    a = s.static_optimum("0.01", 1, Fraction(7, 10), 10, digits=30)
    b = s.static_optimum("0.01", 1, "0.7", 10, digits=30)
    assert (mpmath.nstr(a.rho_opt, 30), a.N_opt, mpmath.nstr(a.cost_opt, 30)) == \
        (mpmath.nstr(b.rho_opt, 30), b.N_opt, mpmath.nstr(b.cost_opt, 30))
    assert a.inputs == b.inputs == "exact"
    f = s.static_optimum(0.01, 1.0, 0.7, 10)
    assert f.inputs == "shortest-decimal" and f.N_opt == a.N_opt
    with mpmath.workdps(40):
        assert abs(mpmath.mpf(f.rho_opt) - a.rho_opt) <= math.ulp(f.rho_opt)
        assert abs(mpmath.mpf(f.cost_opt) - a.cost_opt) <= 4 * math.ulp(f.cost_opt)
