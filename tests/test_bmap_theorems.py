"""Sojourn-time transforms (Avrachenkov et al. §5–§6, Theorem 4, Corollary 1) and the
independent routes of numeric/bmap_lst.py; Theorem 1's printed formulas; the §7 H2 fit."""
import mpmath
import numpy as np
import pytest

from crawlmath.numeric import bmap_lst as L
from crawlmath.numeric import bmap_model as bm
from crawlmath.numeric.errors import InvalidInput
from crawlmath.numeric.phase_type import BMAP, PhaseType
from crawlmath.proofs.claims import avrachenkov_theorems as th


def exp_model(K, lam=1.0, mu=2.0, theta=0.5):
    """M/M/1/K with Exp(theta) obsolescence of waiting pages, one robot mode."""
    return bm.BmapModel([BMAP([[[-lam]], [[lam]]])], PhaseType([1.0], [[-mu]]), PhaseType([1.0], [[-theta]]), K, reduce=False)


@pytest.fixture(scope="module")
def small():
    m = bm.random_model(5, W=2, M=2, R=2, K=3, kmax=2, N=2)
    lv = m.check_policy(bm.Policy((2, 1), (1,)))
    st = bm.solve_sparse_direct(m, lv)
    return m, lv, st, bm.measures(m, lv, st)


def test_tagged_chain_closed_form():
    # one page ahead in service (rate mu), tagged page waiting (obsolescence theta)
    mu, theta, u = 2.0, 0.5, 0.7
    c = L.tagged_chain(exp_model(2, mu=mu, theta=theta))
    x = np.linalg.solve(u * np.eye(len(c.states)) - c.T, np.stack([c.served, c.obsolete], axis=1))
    k = c.index[(1, 0, 0)]
    assert x[k, 0] == pytest.approx(mu / (u + mu + theta) * mu / (u + mu), rel=1e-14)
    assert x[k, 1] == pytest.approx(theta / (u + mu + theta), rel=1e-14)


def test_no_buffer_is_the_service_transform():
    m = exp_model(1, lam=1.0, mu=2.0)
    lv = m.check_policy(bm.Policy((1,), ()))
    st = bm.solve_sparse_direct(m, lv)
    t = L.sojourn_transforms(m, lv, st, 0.4)
    # M/M/1/1: admitted with probability mu/(lam + mu); served in an Exp(mu) time; nothing becomes obsolete
    assert t.lost == pytest.approx(1 / 3, rel=1e-12)
    assert t.served == pytest.approx(2 / 3 * 2.0 / 2.4, rel=1e-12)
    assert t.obsolete == 0.0


def test_transforms_at_zero_are_the_fate_probabilities(small):
    m, lv, st, r = small
    t = L.sojourn_transforms(m, lv, st, 0.0)
    assert [t.served, t.obsolete, t.lost] == pytest.approx([r.p_success, r.p_obs, r.p_loss], rel=1e-11)
    e1, e2 = L.sojourn_moments(m, lv, st)
    assert e1 / r.p_success == pytest.approx(r.v1, rel=1e-11) and e2 / r.p_obs == pytest.approx(r.v2, rel=1e-11)


def test_printed_theorem_4_and_corollary_1(small):
    m, lv, st, r = small
    for u in (0.2, 5.0):
        t = L.sojourn_transforms(m, lv, st, u)
        assert th.printed_theorem4(m, lv, st.p, r.lam, th.printed_v1(m, u)) == pytest.approx(t.served, rel=1e-12)
        assert th.printed_theorem4(m, lv, st.p, r.lam, th.printed_v2(m, u)) == pytest.approx(t.obsolete, rel=1e-12)
    v2 = th.printed_theorem4(m, lv, st.p, r.lam, th.printed_w2(m, +1)) / r.p_obs
    assert v2 == pytest.approx(r.v2, rel=1e-12)
    assert th.printed_theorem4(m, lv, st.p, r.lam, th.printed_w2(m, -1)) / r.p_obs == pytest.approx(-r.v2, rel=1e-12)
    assert th.printed_theorem4(m, lv, st.p, r.lam, th.printed_w1(m)) / r.p_success == pytest.approx(r.v1, rel=1e-12)


def test_printed_phi_indexing():
    p = [np.array([0.1]), np.array([0.2, 0.1]), np.array([0.3]), np.array([0.3])]
    # N = 3, K = 3, j = (-1, 0, 2, 3): 3 robots at i = 0, 2 robots at i = 1..2, 1 robot at i = 3
    assert th.printed_phi(p, (-1, 0, 2, 3), 3) == pytest.approx([0.3, 0.6, 0.1])
    assert th.printed_n_act([0.3, 0.6, 0.1]) == pytest.approx(1.8)


def test_simulation_is_seeded_and_close(small):
    m, lv, st, r = small
    a = L.simulate_sojourn(m, lv, [1.0], events=20_000, seed=3)
    b = L.simulate_sojourn(m, lv, [1.0], events=20_000, seed=3)
    assert a == b
    assert abs(a.p_star - r.p_star) <= 5 * a.se["p_star"]
    assert abs(a.means[0] - r.v1) <= 5 * a.se["V1"]


def test_bad_input(small):
    m, lv, st, _ = small
    with pytest.raises(InvalidInput):
        L.sojourn_transforms(m, lv, st, -1.0)
    with pytest.raises(InvalidInput):
        L.sojourn_transforms(m, lv, st, float("nan"))
    with pytest.raises(InvalidInput):
        L.simulate_sojourn(m, lv, [1.0], events=10)


def test_h2_fit_round_trip():
    p, a, b = 0.2, 5.0, 0.5  # weight and means
    moments = [mpmath.factorial(k) * (p * a**k + (1 - p) * b**k) for k in (1, 2, 3)]
    q, m1, m2 = th.h2_fit(*moments)
    assert float(q) == pytest.approx(p, rel=1e-14) and float(m1) == pytest.approx(a) and float(m2) == pytest.approx(b)
