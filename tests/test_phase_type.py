"""PH distributions and BMAPs: validation, moments, characteristics."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from crawlmath.numeric.errors import InvalidInput
from crawlmath.numeric.bmap._phase_type import BMAP, PhaseType, bmmap, independent_robots, stationary, thinned


def test_exponential_and_erlang_moments():
    e = PhaseType([1.0], [[-2.0]])
    assert e.mean == 0.5 and e.scv == pytest.approx(1.0) and e.moment(3) == pytest.approx(6 / 8)
    er = PhaseType([1.0, 0.0], [[-3.0, 3.0], [0.0, -3.0]])
    assert er.mean == pytest.approx(2 / 3) and er.scv == pytest.approx(0.5)
    assert er.laplace(1.0) == pytest.approx((3 / 4) ** 2)
    assert er.cdf(0.0) == pytest.approx(0.0)


def test_example_service_and_obsolescence_means():
    assert PhaseType([0.4, 0.6], [[-3, 1], [2, -3]]).mean == pytest.approx(23 / 35)
    assert PhaseType([0.3, 0.7], [[-0.6, 0.4], [0.1, -0.3]]).mean == pytest.approx(5.0)


@pytest.mark.parametrize("beta,S,arg,entry", [
    ([0.5, 0.6], [[-1, 0], [0, -1]], "beta", None),
    ([-0.1, 1.1], [[-1, 0], [0, -1]], "beta", 0),
    ([0.5, 0.5], [[-1, -0.1], [0, -1]], "S", (0, 1)),
    ([0.5, 0.5], [[-1, 1], [1, -1]], "S", None),  # not transient
    ([0.5, 0.5], [[1.0, 0], [0, -1]], "S", 0),  # row sum > 0
    ([1.0], [[-1, 0], [0, -1]], "S", None),  # size mismatch
])
def test_phase_type_rejects(beta, S, arg, entry):
    with pytest.raises(InvalidInput) as e:
        PhaseType(beta, S)
    assert e.value.argument == arg
    if entry is not None:
        assert e.value.entry == entry


def test_bmap_rejects_printed_example_matrices():
    with pytest.raises(InvalidInput, match=r"D_1\[0, 0\]: entries must be >= 0"):
        BMAP([[[-5.65, 1.1], [0, -0.85]], [[-0.01, 2.5], [0.25, 0]], [[-0.02, 0.5], [0.25, 0]], [[0.02, 1.5], [0.1, 0.25]]])
    with pytest.raises(InvalidInput) as e:
        BMAP([[[-2.48, 0.48], [0.48, 3.48]], [[1.5, 0], [0, 2.25]], [[0.5, 0], [0, 0.75]]])
    assert e.value.argument in ("D_0", "D(1)")
    with pytest.raises(InvalidInput, match="row 0 must sum to 0"):
        BMAP([[[-0.0038, 0], [0, -0.0066]], [[0.0037, 6.58e-5], [1.3e-4, 0.0064]]])


def test_bmap_characteristics_of_example():
    b = BMAP([[[-1.45, 0.45], [0.6, -2.6]], [[0.25, 0], [0, 0.5]], [[0, 0], [0, 0]], [[0, 0], [0, 0]], [[0.75, 0], [0, 1.5]]])
    assert b.kmax == 4 and b.lam == pytest.approx(4.642857142857) and b.lam_g == pytest.approx(1.4285714285714)
    poisson = BMAP([[[-2.0]], [[2.0]]])
    assert poisson.c_cor == pytest.approx(0.0, abs=1e-12) and poisson.variance == pytest.approx(0.25)


@st.composite
def bmaps(draw):
    n = draw(st.integers(1, 3))
    kmax = draw(st.integers(1, 3))
    rates = st.floats(0.0, 2.0, allow_nan=False)
    Ds = [np.array([[draw(rates) for _ in range(n)] for _ in range(n)]) for _ in range(kmax + 1)]
    Ds[1] = Ds[1] + 0.1 * np.roll(np.eye(n), 1, axis=1)  # keeps D(1) irreducible
    D0 = Ds[0] - np.diag(np.diag(Ds[0]))
    D0 = D0 - np.diag(D0.sum(1) + sum(x.sum(1) for x in Ds[1:]))
    return BMAP([D0] + Ds[1:])


@settings(max_examples=25, deadline=None)
@given(bmaps())
def test_random_bmap_invariants(b):
    assert np.allclose(b.theta @ b.D1, 0, atol=1e-10) and b.theta.sum() == pytest.approx(1)
    assert b.lam >= b.lam_g * (1 - 1e-12) and b.lam_g > 0 and b.variance > 0  # equal when every batch is 1
    assert -1 <= b.c_cor <= 1
    assert b.scaled(2.0).lam == pytest.approx(2 * b.lam)


def test_interpretations():
    a = BMAP([[[-2.0, 1.0], [0.5, -1.5]], [[0.8, 0.2], [0.3, 0.7]]])
    c = BMAP([[[-1.0]], [[1.0]]])
    ind = independent_robots([a, c])
    assert ind[0].lam == pytest.approx(a.lam) and ind[1].lam == pytest.approx(a.lam + 1.0)
    th = thinned(a, [0.5, 1.0])
    assert th[0].lam == pytest.approx(0.5 * a.lam)
    with pytest.raises(InvalidInput):
        thinned(a, [0.0, 1.0])
    bm = bmmap([[-2.0]], [[[[1.0]]], [[[1.0]]]])
    assert [x.lam for x in bm] == pytest.approx([1.0, 2.0])


def test_stationary_rejects_reducible():
    with pytest.raises(InvalidInput):
        stationary(np.array([[0.0, 0.0], [0.0, 0.0]]))
    with pytest.raises(InvalidInput, match="irreducible"):
        BMAP([[[-1.0, 0.0], [0.0, -1.0]], [[1.0, 0.0], [0.0, 1.0]]])


def test_lumping_finds_planted_partition_and_keeps_the_law():
    from crawlmath.numeric.bmap import Lumping, random_lumpable_phase_type, random_phase_type

    rng = np.random.default_rng(7)
    base = random_phase_type(rng, 3)
    big = random_lumpable_phase_type(rng, base, 3)
    lp = Lumping(big)
    assert lp.order_after == 3 and lp.blocks == ((0, 1, 2), (3, 4, 5), (6, 7, 8))
    np.testing.assert_allclose(lp.reduced.S, base.S, atol=1e-13)
    for x in (0.1, 1.0, 4.0):
        assert lp.reduced.cdf(x) == pytest.approx(big.cdf(x), abs=1e-13)
    assert lp.reduced.moment(3) == pytest.approx(big.moment(3), rel=1e-12)


def test_lumping_of_the_example_and_of_a_generic_ph():
    from crawlmath.numeric.bmap import Lumping, random_phase_type

    obs = Lumping(PhaseType([0.3, 0.7], [[-0.6, 0.4], [0.1, -0.3]]))
    assert obs.order_after == 1 and obs.reduced.S[0, 0] == pytest.approx(-0.2, abs=1e-15)
    assert Lumping(PhaseType([0.4, 0.6], [[-3, 1], [2, -3]])).trivial  # exit rates 2 and 1 differ
    assert Lumping(random_phase_type(np.random.default_rng(3), 5)).trivial
    # equal exit rates are not enough when the rates into the other block differ
    assert Lumping(PhaseType([0.2, 0.3, 0.5], [[-3.0, 0.5, 0.5], [0.5, -2.5, 1.0], [1.0, 0.5, -2.5]])).trivial
    ph = PhaseType([0.2, 0.3, 0.5], [[-3.0, 0.5, 0.5], [0.5, -2.5, 1.0], [0.5, 1.0, -2.5]])
    assert Lumping(ph).blocks == ((0,), (1, 2)) and Lumping(ph).reduced.mean == pytest.approx(ph.mean, rel=1e-13)
    # all exit rates equal: exponential, one block
    assert Lumping(PhaseType([0.2, 0.8], [[-3.0, 2.0], [0.5, -1.5]])).order_after == 1
