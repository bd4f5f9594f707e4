"""Tests of the dynamic crawler-activation MDP (Liu–Nain §1.2.2)."""
from __future__ import annotations

import itertools
import json
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from crawlmath.cli import main
import scipy.sparse as sps

from crawlmath.numeric import mdp as M
from crawlmath.numeric.linalg import bordered_lu, closed_classes, stationary_distribution
from crawlmath.numeric.linalg import _multichain as multichain
from crawlmath.numeric.linalg._multichain import _block_solve_kernels, _dense_lu
from crawlmath.numeric.mdp import _analysis as mdp_analysis
from crawlmath.numeric.mdp._analysis import extend_policy, policy_image
from crawlmath.numeric.mdp._rvi import _initial_h, _q_values, _reference_index
from crawlmath.proofs.readings import liu_nain as readings
from crawlmath.numeric.errors import InvalidInput, SolverError
from crawlmath.numeric.tolerance import digits_agreed

small = st.builds(
    lambda lam, mu, K, N, gamma: M.CrawlerMDP(lam, mu, K, N, gamma),
    st.sampled_from([0.05, 0.1, 0.3, 0.7, 1.5]), st.sampled_from([0.5, 1.0, 2.0]),
    st.integers(2, 5), st.integers(1, 6), st.sampled_from([0.1, 0.4, 1.0, 2.4, 6.0]))


def brute_force_gain(m: M.CrawlerMDP) -> float:
    """min over every pure stationary policy of its worst-state gain (the
    optimal gain is constant, so the minimiser is a unichain policy)."""
    free = np.flatnonzero(m.allowed.all(axis=1))
    base = np.where(m.allowed[:, 1], 1, 0)
    best = np.inf
    for bits in itertools.product((0, 1), repeat=len(free)):
        pol = base.copy()
        pol[free] = bits
        ev = M.evaluate_multichain(m, pol)
        best = min(best, float(ev.g.max()))
    return best


@pytest.mark.parametrize("lam,mu,K,N,gamma", [(0.5, 1, 2, 1, 1.0), (0.3, 1, 3, 1, 2.0), (0.4, 1, 2, 2, 0.5)])
def test_policy_iteration_matches_brute_force(lam, mu, K, N, gamma):
    m = M.CrawlerMDP(lam, mu, K, N, gamma)
    assert M.policy_iteration(m).gain == pytest.approx(brute_force_gain(m), rel=1e-10)


@settings(max_examples=25, deadline=None)
@given(small)
def test_rvi_agrees_with_exact(m):
    exact = M.policy_iteration(m)
    r = M.relative_value_iteration(m, tau=0.9, tol=1e-10)
    lo, hi = r.gain_bounds
    assert lo - 1e-12 <= exact.gain <= hi + 1e-12
    assert r.gain == pytest.approx(exact.gain, rel=1e-6)
    assert exact.residual < 1e-9


@settings(max_examples=25, deadline=None)
@given(small)
def test_stationary_distribution(m):
    s = M.policy_iteration(m)
    pi = s.stationary
    assert pi.min() >= 0 and pi.sum() == pytest.approx(1, abs=1e-12)
    P = m.policy_matrix(s.policy)
    assert np.abs(pi @ P - pi).max() < 1e-12
    assert float(pi @ m.cost) == pytest.approx(s.gain, rel=1e-9)
    assert s.gain == pytest.approx(s.starvation * m.gamma + s.loss_rate, rel=1e-9)
    assert s.n_min <= s.n_mean <= s.n_max
    assert 0 <= s.gain_bounds[0] <= s.gain <= s.gain_bounds[1]


@settings(max_examples=15, deadline=None)
@given(small)
def test_static_policy_is_mm1k_formula_and_dynamic_is_no_worse(m):
    g = M.evaluate_policy(m, m.static_policy()).gain
    assert g == pytest.approx(M.static_cost(m.lam, m.mu, m.K, m.N, m.gamma), rel=1e-9)
    assert M.policy_iteration(m).gain <= g * (1 + 1e-12)


def test_rows_stochastic_and_sparse():
    m = M.CrawlerMDP(0.1, 1, 5, 16, 1.0)
    for a in (0, 1):
        P = m.P[a]
        assert P.format == "csr" and P.nnz <= 3 * m.n
        assert np.allclose(np.asarray(P.sum(axis=1)).ravel(), 1)
    assert m.n == 3 * 6 * 17 - 17 - 6 - 1


def test_printed_law_errata():
    m = M.CrawlerMDP(0.1, 1, 5, 16, 1.0)
    err, _ = readings.printed_row_sums(m)
    assert err > 0.5
    assert any(y[0] > m.K for _, _, y in readings.printed_successors_outside(m))
    c = M.communication(m)
    assert not c.communicating and c.weakly_communicating
    assert c.outside == [(q, 16, 2) for q in range(1, 6)]


def test_figure_costs_and_curves():
    for gamma, printed in ((1.0, 0.20907), (1.4, 0.25924), (2.0, 0.32211)):
        s = M.policy_iteration(M.CrawlerMDP(0.1, 1, 5, 16, gamma))
        assert abs(s.gain - printed) <= 5e-6
        assert s.curves.monotone


def test_high_precision_two_routes():
    m = M.CrawlerMDP(0.3, 1, 3, 4, 1.4)
    s = M.policy_iteration(m)
    a = M.gain_hp(m, s.policy, dps=40)
    b = M.gain_exact(m, s.policy)
    with mpmath.workdps(50):
        assert digits_agreed(a.gain, mpmath.mpf(b.gain.numerator) / b.gain.denominator) >= 35


def test_conjecture_small_grid():
    res = M.check_switching_curve_conjecture([0.2, 1.0], [2, 4], [0.3, 3.0], Ns=(1, "Ns"))
    assert res.instances == 16 and res.counterexamples == []


@pytest.mark.parametrize("kw,arg", [(dict(N=0), "N"), (dict(K=1), "K"), (dict(lam=0.0), "lam"),
                                    (dict(mu=-1.0), "mu"), (dict(gamma=float("nan")), "gamma")])
def test_bad_input(kw, arg):
    base = dict(lam=0.1, mu=1.0, K=5, N=16, gamma=1.0)
    base.update(kw)
    with pytest.raises(InvalidInput) as e:
        M.CrawlerMDP(**base)
    assert e.value.argument == arg


def test_bad_tau_and_policy():
    m = M.CrawlerMDP(0.1, 1, 5, 4, 1.0)
    for tau in (0.0, 1.0, 1.5):
        with pytest.raises(InvalidInput):
            M.relative_value_iteration(m, tau=tau)
    bad = m.static_policy()
    bad[m.state_index(1, 0, 0)] = 0
    with pytest.raises(InvalidInput):
        m.policy_matrix(bad)


def test_multichain_policy_refused_by_unichain_evaluation():
    m = M.CrawlerMDP(0.3, 1, 4, 2, 1.0)
    q, r, s = m.states.T
    pol = ((s == 1) | ((q == 1) & (r == 0) & (s == 0))).astype(int)
    with pytest.raises(SolverError):
        M.evaluate_policy(m, pol)
    ev = M.evaluate_multichain(m, pol)
    assert len(ev.classes) == 2


def test_cli_json(capsys):
    assert main(["mdp", "--lam", "0.1", "--mu", "1", "--K", "5", "--N", "16", "--gamma", "1", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    for key in ("gain", "n_min", "n_mean", "n_max", "iterations", "method", "switching_curve"):
        assert key in d
    assert set(d["switching_curve"]) >= {"f0", "f1"} and len(d["switching_curve"]["f0"]) == 17
    assert round(d["gain"], 5) == 0.20907


@pytest.mark.parametrize("args", [["--N", "0"], ["--K", "1"], ["--lam", "-1"], ["--gamma", "0"],
                                  ["--method", "rvi", "--tau", "1"], ["--N", "many"],
                                  ["--method", "rvi", "--reference", "0,17,2"], ["--method", "rvi", "--reference", "0,1"],
                                  ["--reference", "1,1,1"], ["--h0", "cost"]])
def test_cli_bad_input_exit_2(args, capsys):
    base = {"--lam": "0.1", "--K": "5", "--N": "16", "--gamma": "1"}
    argv = ["mdp"]
    for k, v in base.items():
        if k not in args:
            argv += [k, v]
    assert main(argv + args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("crawlmath: error:")


def test_auto_N_does_not_bind_and_policy_image():
    rep = M.analyse(0.2, 1.0, 3, 2.0, "auto")
    assert rep.n_max + 2 <= rep.N and rep.n_max_recurrent <= rep.n_max
    bigger = M.policy_iteration(M.CrawlerMDP(0.2, 1.0, 3, rep.N + 10, 2.0))
    assert bigger.gain == pytest.approx(rep.gain, rel=1e-10)
    img = policy_image(rep.solution, 0)
    assert img.shape == (4, rep.N + 1) and (img[0] == -1).all() and img[1, 0] == 1


@pytest.mark.parametrize("lam, K, gamma", [(0.5, 15, 0.05), (1.0, 15, 2.0), (0.2, 3, 2.0)])
def test_auto_N_warm_start_reaches_the_cold_optimum(lam, K, gamma):
    # the first two instances double N (N_s = 1, the start 12 binds), so both warm paths are taken:
    # seeded from the N = N_s optimum, then from the optimum at the smaller N
    Ns = M.static_count(lam, 1.0, K, gamma)[0]
    seed = M.optimal_for_curves(M.CrawlerMDP(lam, 1.0, K, Ns, gamma))
    N0, cold = M.auto_N(lam, 1.0, K, gamma, solver=M.optimal_for_curves)
    N1, warm = M.auto_N(lam, 1.0, K, gamma, solver=M.optimal_for_curves, warm=True, seed=seed)
    assert N1 == N0
    assert warm.gain == pytest.approx(cold.gain, rel=1e-12)
    assert (warm.curves.f0, warm.curves.f1, warm.curves.monotone) == (cold.curves.f0, cold.curves.f1, cold.curves.monotone)
    assert np.array_equal(warm.policy, cold.policy)


def test_extend_policy_keeps_actions_below_the_old_N():
    small, big = M.CrawlerMDP(0.5, 1.0, 4, 3, 1.0), M.CrawlerMDP(0.5, 1.0, 4, 8, 1.0)
    pol = M.policy_iteration(small, certify=False).policy
    ext = extend_policy(pol, small, big, 2)
    q, r, s = big.states.T
    below = r < small.N
    assert np.array_equal(ext[below], pol[small.index[q[below], r[below], s[below]]])
    assert np.array_equal(ext[~below], big.cap_policy(2)[~below])
    with pytest.raises(InvalidInput, match="big"):
        extend_policy(pol, big, small, 2)
    with pytest.raises(InvalidInput, match="seed"):
        M.auto_N(0.5, 1.0, 4, 1.0, seed=M.policy_iteration(small, certify=False))


def test_rvi_stated_reading_reproduces_fig_1_5():
    """Liu–Nain Fig 1.5: 254 iterations, cost 0.20907, under x̂ = (1,1,1), h_0 = 0."""
    m = M.CrawlerMDP(0.1, 1, 5, 16, 1.0)
    r = M.relative_value_iteration(m)
    assert (r.reference, r.h0, r.iterations, r.evaluations) == ((1, 1, 1), "zero", 254, 255)
    assert round(r.gain, 5) == 0.20907
    assert M.relative_value_iteration(m, reference=(0, 16, 2)).iterations != 254  # x̂ matters


def test_rvi_stop_counts_agree_with_single_runs():
    m = M.CrawlerMDP(0.3, 1, 4, 5, 2.0)
    refs = [(1, 1, 1), (0, 5, 2), (4, 5, 1), 7]
    for h0 in ("zero", "cost"):
        stop, gain = M.rvi_stop_counts(m, refs, h0=h0)
        for x, k, g in zip(refs, stop, gain):
            r = M.relative_value_iteration(m, reference=x, h0=h0)
            assert k == r.iterations and g == pytest.approx(r.gain, rel=1e-13)


def _stop_counts_sparse_blocks(m, refs, h0, tau=0.99999, tol=M.RVI_STOP):
    """The same recursion with scipy's sparse products on dense blocks (the route the compiled kernel replaced)."""
    refs = np.array([_reference_index(m, x) for x in refs])
    cols = np.arange(refs.size)
    H = np.repeat(_initial_h(m, h0, np.float64)[0][:, None], refs.size, axis=1)
    H[refs, cols] = 0.0
    P0, P1 = m.P
    bar0 = np.where(m.allowed[:, 0], 0.0, np.inf)[:, None]
    bar1 = np.where(m.allowed[:, 1], 0.0, np.inf)[:, None]
    cost = m.cost[:, None]
    stop, gain = np.full(refs.size, -1), np.full(refs.size, np.nan)
    for k in itertools.count(1):
        TH = cost + np.minimum(P0 @ H + bar0, P1 @ H + bar1)
        new = (1 - tau) * H + tau * (TH - TH[refs, cols])
        diff = np.abs(new - H)
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(H != 0, diff / np.abs(H), np.where(diff == 0, 0.0, np.inf))
        now = (rel.max(axis=0) < tol) & (stop < 0)
        H = new
        TH = cost + np.minimum(P0 @ H + bar0, P1 @ H + bar1)
        stop[now], gain[now] = k, TH[refs[now], cols[now]]
        if (stop > 0).all():
            return stop, gain


@pytest.mark.parametrize("args", [(0.1, 1, 5, 16, 1.0), (0.05, 1, 10, 17, 0.4), (0.3, 1, 4, 2, 2.4)])
def test_rvi_stop_counts_bitwise_equal_to_sparse_products(args):
    m = M.CrawlerMDP(*args)
    refs = [(1, 1, 1), (0, m.N, 2), (m.K, m.N, 1), (1, 0, 0), (m.K, 1, 1)]
    for h0 in ("zero", "cost"):
        stop, gain = M.rvi_stop_counts(m, refs, h0=h0)
        want_stop, want_gain = _stop_counts_sparse_blocks(m, refs, h0)
        assert stop.tolist() == want_stop.tolist()
        assert gain.tobytes() == want_gain.tobytes()  # same operations in the same order: identical bits


def test_rvi_stop_counts_reports_unfinished_runs():
    m = M.CrawlerMDP(0.1, 1, 5, 16, 1.0)
    stop, gain = M.rvi_stop_counts(m, [(1, 1, 1)], max_iter=10)
    assert stop.tolist() == [-1] and np.isnan(gain).all()


@pytest.mark.parametrize("args", [(0.1, 1, 5, 16, 1.0), (0.02, 1, 20, 3, 20.0), (2.0, 1, 3, 1, 0.05), (0.5, 1, 10, 12, 5.0)])
def test_optimal_for_curves_matches_certified_curves(args):
    m = M.CrawlerMDP(*args)
    a, b = M.optimal_for_curves(m), M.policy_iteration(m)
    assert (a.curves.f0, a.curves.f1, a.curves.monotone) == (b.curves.f0, b.curves.f1, b.curves.monotone)
    assert a.gain == pytest.approx(b.gain, rel=1e-9)


def test_optimal_for_curves_escalates_on_tiny_gain(monkeypatch):
    m = M.CrawlerMDP(0.1, 1, 5, 16, 1.0)
    monkeypatch.setattr(mdp_analysis, "CURVES_FLOAT_GAIN", 1.0)  # θ ≈ 0.209 is now "tiny": the certified route must be taken
    assert M.optimal_for_curves(m).certificate is not None
    monkeypatch.setattr(mdp_analysis, "CURVES_FLOAT_GAIN", 1e-6)
    assert M.optimal_for_curves(m).certificate is None


def test_rvi_extended_route_and_fixed_sweeps():
    m = M.CrawlerMDP(0.1, 1, 5, 7, 0.4)
    r = M.relative_value_iteration(m)
    ext = M.relative_value_iteration(m, sweeps=r.iterations, precision="extended")
    assert ext.iterations == r.iterations and np.isnan(ext.relative_change)
    assert abs(ext.gain - r.gain) < 1e-13
    assert M.relative_value_iteration(m, sweeps=3).iterations == 3


@pytest.mark.parametrize("kw,arg", [({"reference": (0, 0, 2)}, "reference"), ({"reference": 10**6}, "reference"),
                                    ({"h0": "ones"}, "h0"), ({"h0": [0.0]}, "h0"), ({"precision": "quad"}, "precision"),
                                    ({"sweeps": 0}, "sweeps")])
def test_rvi_bad_options(kw, arg):
    with pytest.raises(InvalidInput) as e:
        M.relative_value_iteration(M.CrawlerMDP(0.1, 1, 5, 4, 1.0), **kw)
    assert e.value.argument == arg


# ------------------------------------------------------------ tiny gains (issue 15)


def exact_fraction(m, policy):
    g = M.gain_exact(m, policy).gain
    return Fraction(g.numerator, g.denominator)


def test_tiny_gain_certified_against_exact_rationals():
    """λ = 0.3, K = 30, N = 60, γ = 0.4: θ* ≈ 2.6e-19.  The float route's policy is 7 orders of
    magnitude worse (float ties hide the better actions); the certified route finds the optimum, and its
    bounds bracket the exact rational gain (python-flint, on the continuous-time chain) of its policy."""
    m = M.CrawlerMDP(0.3, 1, 30, 60, 0.4)
    sol = M.policy_iteration(m)
    cert = sol.certificate
    lo, hi = cert.bounds
    exact = exact_fraction(m, sol.policy)
    assert 0 < lo <= exact <= hi
    assert sol.gain_bounds[0] <= float(exact) <= sol.gain_bounds[1]
    assert (hi - lo) / exact < 1e-9 and cert.relative_width < 1e-9
    assert abs(Fraction(sol.gain) - exact) / exact < 1e-12
    float_route = M.policy_iteration(m, certify=False)
    worse = exact_fraction(m, float_route.policy)
    assert worse > 1e6 * hi  # the float policy is far from optimal ...
    assert lo <= worse  # ... and the lower bound holds for every policy
    assert cert.changes > 0 and cert.improvement <= M.TARGET_REL_WIDTH


def test_tiny_gain_digits_two_routes():
    m = M.CrawlerMDP(0.3, 1, 30, 60, 0.4)
    sol = M.policy_iteration(m)
    c = M.certified_gain(m, sol.policy, digits=30)
    exact = exact_fraction(m, c.policy)
    assert c.policy_bounds[0] <= exact <= c.policy_bounds[1]
    with mpmath.workdps(50):
        assert digits_agreed(mpmath.mpf(c.text), mpmath.mpf(exact.numerator) / exact.denominator) >= 29.5
    hp = M.gain_hp(m, sol.policy, dps=40)
    with mpmath.workdps(50):
        assert digits_agreed(hp.gain, mpmath.mpf(exact.numerator) / exact.denominator) >= 38


def test_gth_levels_relative_accuracy_on_a_skip_free_chain():
    """A birth-death chain whose π spans 180 orders of magnitude: every entry to ~1e-14 relative,
    and refine_stationary takes it to 40 digits (closed form π_k ∝ (λ/μ)^k)."""
    from crawlmath.numeric.markov import gth_levels, refine_stationary

    n, lam, mu = 30, 3, 7 * 10**6
    src = [i if j == 0 else i + 1 for i in range(n - 1) for j in (0, 1)]
    dst = [i + 1 if j == 0 else i for i in range(n - 1) for j in (0, 1)]
    w = [lam if j == 0 else mu for i in range(n - 1) for j in (0, 1)]
    R = np.zeros((n, n))
    R[src, dst] = w
    pi = gth_levels(R, np.arange(n))
    exact = [Fraction(lam, mu) ** k for k in range(n)]
    total = sum(exact)
    assert max(abs(p / float(e / total) - 1) for p, e in zip(pi, exact)) < 1e-13
    ref = refine_stationary(src, dst, w, pi, 40)
    mass = sum(ref.mass)
    assert max(abs(Fraction(int(x), int(mass)) / (e / total) - 1) for x, e in zip(ref.mass, exact)) < Fraction(1, 10**40)


def test_gth_levels_refuses_a_level_skip():
    from crawlmath.numeric.markov import gth_levels

    R = np.array([[0, 1.0, 1.0], [1.0, 0, 1.0], [1.0, 1.0, 0]])
    with pytest.raises(InvalidInput) as e:
        gth_levels(R, [0, 1, 2])
    assert e.value.argument == "rates"


def test_cli_tiny_gain_digits(capsys):
    argv = ["mdp", "--lam", "0.3", "--mu", "1", "--K", "30", "--N", "60", "--gamma", "0.4", "--digits", "25", "--json"]
    assert main(argv) == 0
    d = json.loads(capsys.readouterr().out)
    exact = exact_fraction(M.CrawlerMDP(0.3, 1, 30, 60, 0.4), M.policy_iteration(M.CrawlerMDP(0.3, 1, 30, 60, 0.4)).policy)
    lo, hi = d["gain_bounds"]
    assert 0 < lo <= float(exact) <= hi and d["gain_bounds_relative_width"] < 1e-9
    with mpmath.workdps(40):
        assert digits_agreed(mpmath.mpf(d["gain_hp"]["value"]), mpmath.mpf(exact.numerator) / exact.denominator) >= 24.5


# ------------------------------------------------ fast paths against the scipy routes they replace


def _random_policy(m, rng):
    pol = rng.integers(0, 2, m.n)
    return np.where(m.allowed[:, 0], np.where(m.allowed[:, 1], pol, 0), 1)


def _sparse_multichain(m, pol):
    """Evaluation of §9.1 with scipy fancy indexing and SuperLU throughout (the route before the dense path)."""
    import scipy.sparse as sps
    import scipy.sparse.linalg as spla

    idx, prob = m.policy_arrays(pol)
    P = sps.csr_matrix((prob.ravel(), (np.repeat(np.arange(m.n), 3), idx.ravel())), shape=(m.n, m.n))
    P.sum_duplicates()
    P.eliminate_zeros()
    classes = closed_classes(P)
    g, h, rec = np.zeros(m.n), np.zeros(m.n), np.zeros(m.n, dtype=bool)
    for C in classes:
        z = bordered_lu(P[C][:, C], 0).solve(m.cost[C].astype(float))
        g[C], h[C], rec[C] = z[0], np.concatenate([[0.0], z[1:]]), True
    T, R = np.flatnonzero(~rec), np.flatnonzero(rec)
    if T.size:
        lu = spla.splu((sps.identity(T.size, format="csc") - P[T][:, T]).tocsc())
        g[T] = lu.solve(P[T][:, R] @ g[R])
        h[T] = lu.solve(m.cost[T] - g[T] + P[T][:, R] @ h[R])
    return P, classes, g, h


@settings(max_examples=30, deadline=None)
@given(small, st.integers(0, 2**32 - 1))
def test_policy_matrix_and_dense_evaluation_equal_sparse_route(m, seed):
    pol = _random_policy(m, np.random.default_rng(seed))
    P, classes, g, h = _sparse_multichain(m, pol)
    A = m.policy_matrix(pol)
    assert (A.indptr.tolist(), A.indices.tolist(), A.data.tobytes()) == (P.indptr.tolist(), P.indices.tolist(), P.data.tobytes())
    ev = M.evaluate_multichain(m, pol)  # n <= 126 here: every system goes through the dense path
    assert [C.tolist() for C in ev.classes] == [C.tolist() for C in classes]
    rec = np.concatenate(classes)
    assert np.abs(ev.g[rec] - g[rec]).max() <= 1e-12 * max(1.0, float(np.abs(g).max()))  # the class gains
    # on transient states I − P_TT can be ill-conditioned (slow exits), so both routes are held to backward
    # stability instead: tiny residuals of g = P g and g + h = c + P h
    scale_g, scale_h = max(1.0, float(np.abs(ev.g).max())), max(1.0, float(np.abs(ev.h).max()))
    assert np.abs(P @ ev.g - ev.g).max() <= 1e-13 * scale_g
    assert np.abs(m.cost + P @ ev.h - ev.g - ev.h).max() <= 1e-13 * scale_h
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(multichain, "DENSE_MAX", 0)  # the sparse path: the same matrices to SuperLU, so the same bits
        sp = M.evaluate_multichain(m, pol)
    assert sp.g.tobytes() == g.tobytes() and sp.h.tobytes() == h.tobytes()


@pytest.mark.parametrize("seed", range(6))
def test_policy_iteration_dense_and_sparse_paths_agree(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    m = M.CrawlerMDP(float(rng.choice([0.05, 0.1, 0.3, 1.0])), 1.0, int(rng.integers(2, 8)), int(rng.integers(1, 12)),
                     float(rng.choice([0.2, 1.0, 4.0])))
    dense = M.policy_iteration(m, certify=False)
    monkeypatch.setattr(multichain, "DENSE_MAX", 0)  # every system through SuperLU
    sparse = M.policy_iteration(m, certify=False)
    assert dense.policy.tolist() == sparse.policy.tolist() and dense.iterations == sparse.iterations
    assert dense.gain == pytest.approx(sparse.gain, rel=1e-12, abs=1e-15)


def test_dense_lu_refuses_a_singular_system():
    with pytest.raises(SolverError, match="singular"):
        _dense_lu(np.array([[1.0, 2.0], [2.0, 4.0]]))


def _rvi_sparse_products(m, tau=0.99999, tol=M.RVI_STOP):
    """Proposition 6 with scipy's sparse products (the numpy loop the compiled kernel replaced)."""
    ref = _reference_index(m, None)
    h = np.zeros(m.n)
    P0, P1 = m.P
    bar0, bar1 = (np.where(m.allowed[:, a], 0.0, np.inf) for a in (0, 1))
    for k in itertools.count(1):
        Th = m.cost + np.minimum(P0 @ h + bar0, P1 @ h + bar1)
        new = (1 - tau) * h + tau * (Th - Th[ref])
        diff = np.abs(new - h)
        with np.errstate(divide="ignore", invalid="ignore"):
            stat = float(np.where(h != 0, diff / np.abs(h), np.where(diff == 0, 0.0, np.inf)).max())
        h = new
        if stat < tol:
            return k, stat, h


@pytest.mark.parametrize("args", [(0.1, 1, 5, 16, 1.0), (0.05, 1, 10, 17, 0.4), (0.3, 1, 4, 2, 2.4), (0.02, 1, 15, 30, 1.13)])
def test_rvi_kernel_bitwise_equal_to_sparse_products(args):
    m = M.CrawlerMDP(*args)
    r = M.relative_value_iteration(m)
    k, stat, h = _rvi_sparse_products(m)
    assert (r.iterations, r.relative_change) == (k, stat)
    assert r.h.tobytes() == h.tobytes()  # same operations in the same order: identical bits
    assert r.gain == float(M.CrawlerMDP(*args).T(h)[_reference_index(m, None)])


def _substochastic(rng, n, blocks):
    """A random sparse substochastic n × n matrix in CSR whose graph has strongly connected pieces of up to
    ``blocks`` states and edges between them in both orders of the state numbering."""
    import scipy.sparse as sps

    perm = rng.permutation(n)
    rows, cols = [], []
    start = 0
    while start < n:  # a cycle through each block makes it strongly connected
        size = int(rng.integers(1, blocks + 1))
        block = perm[start:start + size]
        if size > 1:
            rows += block.tolist()
            cols += np.roll(block, 1).tolist()
        start += size
    extra = int(rng.integers(0, 3 * n))
    rows += rng.integers(0, n, extra).tolist()
    cols += rng.integers(0, n, extra).tolist()
    A = sps.csr_matrix((rng.uniform(0.1, 1.0, len(rows)), (rows, cols)), shape=(n, n))
    A.sum_duplicates()
    # rows sum to at most 0.95: I − A is a nonsingular M-matrix
    return sps.csr_matrix(sps.diags(0.95 * rng.uniform(0.2, 1.0, n) / np.maximum(1e-300, np.asarray(A.sum(axis=1)).ravel())) @ A)


@pytest.mark.parametrize("seed", range(40))
def test_block_solve_matches_superlu(seed):
    import scipy.sparse as sps
    import scipy.sparse.csgraph as csgraph
    import scipy.sparse.linalg as spla

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 80))
    A = _substochastic(rng, n, int(rng.choice([1, 3, 12, 40])))
    order_of, solve = _block_solve_kernels()
    order, start, comp = order_of(A.indptr, A.indices)
    # the components are those of csgraph, numbered so that every edge goes to the same or an earlier one
    _, lab = csgraph.connected_components(A, directed=True, connection="strong")
    assert sorted(tuple(sorted(order[a:b])) for a, b in zip(start, start[1:])) == \
        sorted(tuple(np.flatnonzero(lab == k)) for k in range(lab.max() + 1))
    assert np.array_equal(np.sort(order), np.arange(n))
    assert np.array_equal(comp[order], np.repeat(np.arange(start.size - 1), np.diff(start)))
    assert (comp[A.indices] <= comp[np.repeat(np.arange(n), np.diff(A.indptr))]).all()
    b = rng.normal(size=n)
    want = spla.spsolve(sps.csc_matrix(sps.identity(n) - A), b)
    x = np.zeros(n)
    assert solve(A.indptr, A.indices, A.data, order, start, comp, np.zeros(start.size - 1, dtype=bool), b, x)
    assert np.abs(x - want).max() <= 1e-12 * max(1.0, float(np.abs(want).max()))
    # components marked as skipped keep their given values and enter the others' right-hand sides
    skip = rng.random(start.size - 1) < 0.3
    given = np.flatnonzero(skip[comp])
    x = np.zeros(n)
    x[given] = rng.normal(size=given.size)
    rest = np.flatnonzero(~skip[comp])
    ref = x.copy()
    if rest.size:
        rhs = b[rest] + A[rest][:, given] @ x[given]
        ref[rest] = spla.spsolve(sps.csc_matrix(sps.identity(rest.size) - A[rest][:, rest]), rhs)
    assert solve(A.indptr, A.indices, A.data, order, start, comp, skip, b, x)
    assert np.array_equal(x[given], ref[given])
    assert np.abs(x - ref).max() <= 1e-12 * max(1.0, float(np.abs(ref).max()))


def test_block_solve_refuses_a_closed_state():
    A = sps.csr_matrix(np.array([[0.5, 0.5], [0.0, 1.0]]))  # state 1 is absorbing: I − A is singular
    order_of, solve = _block_solve_kernels()
    order, start, comp = order_of(A.indptr, A.indices)
    assert not solve(A.indptr, A.indices, A.data, order, start, comp, np.zeros(start.size - 1, dtype=bool), np.ones(2),
                     np.zeros(2))


@pytest.mark.parametrize("seed", range(8))
def test_multichain_transient_blocks_against_superlu(seed, monkeypatch):
    # policies with several classes and transient states of every kind; DENSE_MAX = 0 is the SuperLU route
    rng = np.random.default_rng(seed)
    m = M.CrawlerMDP(float(rng.choice([0.05, 0.3, 1.0])), 1.0, int(rng.integers(2, 9)), int(rng.integers(1, 25)), 1.0)
    pol = _random_policy(m, rng)
    ev = M.evaluate_multichain(m, pol)
    assert [C.tolist() for C in ev.classes] == [C.tolist() for C in closed_classes(m.policy_matrix(pol))]
    P = m.policy_matrix(pol)
    monkeypatch.setattr(multichain, "DENSE_MAX", 0)
    sp = M.evaluate_multichain(m, pol)
    rec = np.concatenate(ev.classes)
    assert np.abs(ev.g[rec] - sp.g[rec]).max() <= 1e-12 * max(1.0, float(np.abs(sp.g).max()))  # the class gains
    # transient states: I − P_TT may be ill-conditioned, so both routes are held to backward stability
    for e in (ev, sp):
        assert np.abs(P @ e.g - e.g).max() <= 1e-13 * max(1.0, float(np.abs(e.g).max()))
        assert np.abs(m.cost + P @ e.h - e.g - e.h).max() <= 1e-13 * max(1.0, float(np.abs(e.h).max()))


def _rvi_extended_plain(m, tau, sweeps):
    """Proposition 6 in long double with one gather per successor and fresh temporaries (the numpy code the
    blocked operator replaced)."""
    ref = _reference_index(m, None)
    cost = m.cost.astype(np.longdouble)
    h = np.zeros(m.n, dtype=np.longdouble)
    tau_ = np.longdouble(tau)
    for _ in range(sweeps):
        y = []
        for a, (idx, prob) in enumerate(m.successors):
            t = prob[:, 0].astype(np.longdouble) * h[idx[:, 0]]
            t += prob[:, 1].astype(np.longdouble) * h[idx[:, 1]]
            t += prob[:, 2].astype(np.longdouble) * h[idx[:, 2]]
            t += np.where(m.allowed[:, a], 0.0, np.inf).astype(np.longdouble)
            y.append(t)
        Th = cost + np.minimum(y[0], y[1])
        h = (1 - tau_) * h + tau_ * (Th - Th[ref])
    return h


@pytest.mark.parametrize("args", [(0.1, 1, 5, 16, 1.0), (0.05, 1, 10, 17, 0.4), (0.3, 1, 4, 2, 2.4)])
def test_rvi_extended_bitwise_equal_to_plain_long_double(args):
    m = M.CrawlerMDP(*args)
    k = M.relative_value_iteration(m).iterations
    ext = M.relative_value_iteration(m, sweeps=k, precision="extended")
    h = _rvi_extended_plain(m, 0.99999, k)
    assert ext.h.tobytes() == h.astype(float).tobytes()
    assert ext.gain == float(_q_values(m, h, "extended").min(axis=1)[_reference_index(m, None)])
    stopped = M.relative_value_iteration(m, tau=0.9, precision="extended")  # the stopping-rule path
    assert stopped.h.tobytes() == _rvi_extended_plain(m, 0.9, stopped.iterations).astype(float).tobytes()


def test_float_route_stationary_on_first_use():
    m = M.CrawlerMDP(0.1, 1, 5, 16, 1.0)
    s = M.policy_iteration(m, certify=False)
    assert s.given_stationary is None
    pi = stationary_distribution(m.policy_matrix(s.policy), s.recurrent)
    assert s.stationary.tobytes() == pi.tobytes() and s.stationary is s.stationary
    assert s.n_mean == pytest.approx(M.policy_iteration(m).n_mean, rel=1e-12)


def test_trend_breaks_counts_every_adjacent_comparison():
    """summary.trend (issue 32 item 7): 12 comparisons per γ row over a 3×3 (λ, K) grid; a decrease is found, and
    the γ average can hide a per-row decrease (why both readings are reported)."""
    from crawlmath.proofs.claims.liu_nain import dynamic_summaries as D

    grid = {(lam, K, i): lam * 10 + K + i for lam in (0.01, 0.05, 0.1) for K in (5, 10, 15) for i in range(3)}
    assert D._trend_breaks(grid) == (36, [])
    grid[(0.1, 15, 0)] = 0.0
    n, broken = D._trend_breaks(grid)
    assert n == 36 and len(broken) == 2 and all("γ-row 1" in b for b in broken)
    avg = D._gamma_average({**grid, (0.1, 15, 1): 100.0})
    assert len(avg) == 9 and D._trend_breaks(avg) == (12, [])
