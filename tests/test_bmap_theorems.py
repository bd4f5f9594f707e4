"""Sojourn-time transforms (Avrachenkov et al. §5–§6, Theorem 4, Corollary 1) and the
independent routes of numeric/bmap/_lst.py; Theorem 1's printed formulas; the §7 H2 fit."""
import mpmath
import numpy as np
import pytest

from crawlmath.numeric import bmap as bm
from crawlmath.numeric.errors import InvalidInput
from crawlmath.numeric.bmap import BMAP, PhaseType
from crawlmath.proofs.claims.avrachenkov import _printed as pf
from crawlmath.proofs.claims.avrachenkov import theorems as th


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
    c = bm.tagged_chain(exp_model(2, mu=mu, theta=theta))
    x = np.linalg.solve(u * np.eye(len(c.states)) - c.T, np.stack([c.served, c.obsolete], axis=1))
    k = c.index[(1, 0, 0)]
    assert x[k, 0] == pytest.approx(mu / (u + mu + theta) * mu / (u + mu), rel=1e-14)
    assert x[k, 1] == pytest.approx(theta / (u + mu + theta), rel=1e-14)


def test_no_buffer_is_the_service_transform():
    m = exp_model(1, lam=1.0, mu=2.0)
    lv = m.check_policy(bm.Policy((1,), ()))
    st = bm.solve_sparse_direct(m, lv)
    t = bm.sojourn_transforms(m, lv, st, 0.4)
    # M/M/1/1: admitted with probability mu/(lam + mu); served in an Exp(mu) time; nothing becomes obsolete
    assert t.lost == pytest.approx(1 / 3, rel=1e-12)
    assert t.served == pytest.approx(2 / 3 * 2.0 / 2.4, rel=1e-12)
    assert t.obsolete == 0.0


def test_transforms_at_zero_are_the_fate_probabilities(small):
    m, lv, st, r = small
    t = bm.sojourn_transforms(m, lv, st, 0.0)
    assert [t.served, t.obsolete, t.lost] == pytest.approx([r.p_success, r.p_obs, r.p_loss], rel=1e-11)
    e1, e2 = bm.sojourn_moments(m, lv, st)
    assert e1 / r.p_success == pytest.approx(r.v1, rel=1e-11) and e2 / r.p_obs == pytest.approx(r.v2, rel=1e-11)


def test_printed_theorem_4_and_corollary_1(small):
    m, lv, st, r = small
    for u in (0.2, 5.0):
        t = bm.sojourn_transforms(m, lv, st, u)
        assert pf.printed_theorem4(m, lv, st.p, r.lam, pf.printed_v1(m, u)) == pytest.approx(t.served, rel=1e-12)
        assert pf.printed_theorem4(m, lv, st.p, r.lam, pf.printed_v2(m, u)) == pytest.approx(t.obsolete, rel=1e-12)
    v2 = pf.printed_theorem4(m, lv, st.p, r.lam, pf.printed_w2(m, +1)) / r.p_obs
    assert v2 == pytest.approx(r.v2, rel=1e-12)
    assert pf.printed_theorem4(m, lv, st.p, r.lam, pf.printed_w2(m, -1)) / r.p_obs == pytest.approx(-r.v2, rel=1e-12)
    assert pf.printed_theorem4(m, lv, st.p, r.lam, pf.printed_w1(m)) / r.p_success == pytest.approx(r.v1, rel=1e-12)


def test_printed_phi_indexing():
    p = [np.array([0.1]), np.array([0.2, 0.1]), np.array([0.3]), np.array([0.3])]
    # N = 3, K = 3, j = (-1, 0, 2, 3): 3 robots at i = 0, 2 robots at i = 1..2, 1 robot at i = 3
    assert pf.printed_phi(p, (-1, 0, 2, 3), 3) == pytest.approx([0.3, 0.6, 0.1])
    assert pf.printed_n_act([0.3, 0.6, 0.1]) == pytest.approx(1.8)


def test_simulation_is_seeded_and_close(small):
    m, lv, st, r = small
    a = bm.simulate_sojourn(m, lv, [1.0], events=20_000, seed=3)
    b = bm.simulate_sojourn(m, lv, [1.0], events=20_000, seed=3)
    assert a == b
    assert abs(a.p_star - r.p_star) <= 5 * a.se["p_star"]
    assert abs(a.means[0] - r.v1) <= 5 * a.se["V1"]


def _reference_sojourn_path(model, levels, us, events, seed, batches=20):
    """The event loop of `simulate_sojourn` in plain Python (lists, NumPy's searchsorted), as it was before the numba
    kernel: returns the per-batch sums the kernel accumulates."""
    rng = np.random.default_rng(seed)
    K, W, N = model.K, model.W, model.N
    S, S0, beta = model.service.S, model.service.exit, model.service.beta
    G, G0, gam = model.obsolescence.S, model.obsolescence.exit, model.obsolescence.beta
    cb, cg = np.cumsum(beta), np.cumsum(gam)
    arr = {}
    for r in set(levels):
        for nu in range(W):
            rates = np.array([model.D(r, k)[nu] for k in range(model.kmax + 1)])
            rates[0, nu] = 0.0
            arr[(r, nu)] = (float(rates.sum()), np.cumsum(rates.ravel()) / rates.sum())
    jumpS = [np.cumsum(np.append(np.where(np.arange(S.shape[0]) == m, 0.0, S[m]), S0[m])) / -S[m, m] for m in range(S.shape[0])]
    jumpG = [np.cumsum(np.append(np.where(np.arange(G.shape[0]) == r, 0.0, G[r]), G0[r])) / -G[r, r] for r in range(G.shape[0])]
    time_b, idle_b, robots_b, lost_b = np.zeros(batches), np.zeros(batches), np.zeros((batches, N)), np.zeros(batches)
    done_b = np.zeros((batches, 2, 2 + len(us)))
    nu, m, t, since, buf, per = 0, -1, 0.0, 0.0, [], events // batches

    def pick(cum):
        return min(int(np.searchsorted(cum, rng.random() * cum[-1], side="right")), cum.size - 1)

    def finish(b, fate, v):
        done_b[b, fate, 0] += 1
        done_b[b, fate, 1] += v
        done_b[b, fate, 2:] += [np.exp(-u * v) for u in us]

    for n in range(batches * per):
        b = n // per
        i = len(buf) + (m >= 0)
        r = levels[i]
        a_rate, a_cum = arr[(r, nu)]
        s_rate = -S[m, m] if m >= 0 else 0.0
        g_rates = [-G[q[0], q[0]] for q in buf]
        total = a_rate + s_rate + sum(g_rates)
        dt = rng.exponential(1 / total)
        time_b[b] += dt
        robots_b[b, r - 1] += dt
        idle_b[b] += dt if i == 0 else 0.0
        t += dt
        x = rng.random() * total
        if x < a_rate:
            k, nu = divmod(pick(a_cum), W)
            accepted = min(k, K - i)
            lost_b[b] += k - accepted
            for _ in range(accepted):
                if m < 0:
                    m, since = pick(cb), t
                else:
                    buf.append([pick(cg), t])
            continue
        x -= a_rate
        if x < s_rate:
            j = pick(jumpS[m])
            if j < S.shape[0]:
                m = j
                continue
            finish(b, 0, t - since)
            if buf:
                _, since = buf.pop(0)
                m = pick(cb)
            else:
                m = -1
            continue
        x -= s_rate
        q = min(int(np.searchsorted(np.cumsum(g_rates), x, side="right")), len(buf) - 1)
        j = pick(jumpG[buf[q][0]])
        if j < G.shape[0]:
            buf[q][0] = j
        else:
            finish(b, 1, t - buf.pop(q)[1])
    return time_b, idle_b, robots_b, lost_b, done_b


def test_simulation_kernel_follows_the_plain_event_loop(small, monkeypatch):
    """The numba event loop draws NumPy's stream in the same order: the same path, the same sums (the transforms'
    e^{-uV} may differ by an ulp of exp)."""
    m, lv, _, _ = small
    from crawlmath.numeric.bmap import _lst_kernels as kern

    seen = {}
    real = kern.sojourn_events

    def spy(*args):
        real(*args)
        seen["sums"] = [a.copy() for a in args[-5:]]

    monkeypatch.setattr(kern, "sojourn_events", spy)
    bm.simulate_sojourn(m, lv, [0.5, 2.0], events=4_000, seed=11)
    want = _reference_sojourn_path(m, lv, [0.5, 2.0], 4_000, 11)
    for got, ref in zip(seen["sums"][:4], want[:4]):
        assert np.array_equal(got, ref)
    assert np.array_equal(seen["sums"][4][:, :, :2], want[4][:, :, :2])
    np.testing.assert_allclose(seen["sums"][4], want[4], rtol=1e-13)


def test_bad_input(small):
    m, lv, st, _ = small
    with pytest.raises(InvalidInput):
        bm.sojourn_transforms(m, lv, st, -1.0)
    with pytest.raises(InvalidInput):
        bm.sojourn_transforms(m, lv, st, float("nan"))
    with pytest.raises(InvalidInput):
        bm.simulate_sojourn(m, lv, [1.0], events=10)


def test_h2_fit_round_trip():
    p, a, b = 0.2, 5.0, 0.5  # weight and means
    moments = [mpmath.factorial(k) * (p * a**k + (1 - p) * b**k) for k in (1, 2, 3)]
    q, m1, m2 = th.h2_fit(*moments)
    assert float(q) == pytest.approx(p, rel=1e-14) and float(m1) == pytest.approx(a) and float(m2) == pytest.approx(b)
