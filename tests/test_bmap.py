"""BMAP/PH/1/K with PH obsolescence (Avrachenkov et al.): generator, solvers, measures, CLI."""
import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from crawlmath.numeric import bmap as bm
from crawlmath.numeric.bmap import _batched, _certified, _generator, _stationary  # internals the tests reach
from crawlmath.numeric.bmap import load_model, model_from_spec, read_spec
from crawlmath.numeric.bmap._structured import KronSumSolver, LevelOperators, solve_structured
from crawlmath.numeric.errors import InvalidInput
from crawlmath.numeric.bmap import PhaseType


@pytest.fixture(scope="module")
def ex():
    return load_model("avrachenkov-example.json", K=4, reduce=False)  # the full chain: R = 2 obsolescence phases


random_model = bm.random_model


def measure_vector(m):
    return np.array([m.p_star, m.n_act, m.lam, m.p_loss, m.p_obs, m.p_success, m.v1, m.v2, m.cost])


def test_table1_highlighted_row(ex):
    m = load_model("avrachenkov-example.json")
    r = bm.evaluate(m, bm.Policy((3, 1), (2,)))
    assert r.cost == pytest.approx(63.5425476900, rel=1e-10)
    assert (m.full_states, m.states, m.R, m.given_obsolescence.order) == (126, 22, 1, 2)  # (γ, Γ) lumps to Exp(0.2)


def test_generator_two_ways(ex):
    for pol in (bm.Policy((3, 1), (1,)), bm.Policy((4, 3, 2, 1), (0, 2, 2)), bm.Policy((2,), ())):
        lv = ex.check_policy(pol)
        Q1, Q2 = bm.generator_kronecker(ex, lv), bm.generator_enumerated(ex, lv)
        assert abs(Q1 - Q2).max() < 1e-13
        assert abs(Q1.sum(axis=1)).max() < 1e-13


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 3), st.integers(1, 2), st.integers(1, 2), st.integers(1, 3), st.integers(1, 3))
def test_random_models_all_solvers_and_invariants(seed, W, M, R, K, kmax):
    m = random_model(seed, W, M, R, K, kmax)
    lv = m.check_policy(bm.Policy((2, 1), (min(1, K - 1),)))
    assert abs(bm.generator_kronecker(m, lv) - bm.generator_enumerated(m, lv)).max() < 1e-12
    ref = bm.evaluate_levels(m, lv, "sparse")
    for solver in ("block", "structured"):
        other = bm.evaluate_levels(m, lv, solver)
        np.testing.assert_allclose(measure_vector(other), measure_vector(ref), rtol=1e-9, atol=1e-13)
    assert ref.p_loss + ref.p_obs + ref.p_success == pytest.approx(1, abs=1e-12)
    assert ref.p_loss == pytest.approx(ref.p_loss_eq8, abs=1e-12) and ref.p_loss >= 0
    assert sum(ref.phi) == pytest.approx(1, abs=1e-12)
    assert ref.lam * ref.v == pytest.approx(ref.mean_number, rel=1e-10)
    assert ref.p_success == pytest.approx(ref.p_success_tagged, rel=1e-10)


def test_qbd_recursion_single_arrivals():
    m = random_model(5, K=4, kmax=1)
    lv = m.check_policy(bm.Policy((2, 1), (1,)))
    np.testing.assert_allclose(measure_vector(bm.evaluate_levels(m, lv, "qbd")), measure_vector(bm.evaluate_levels(m, lv, "sparse")), rtol=1e-10)
    with pytest.raises(InvalidInput):
        bm.evaluate_levels(random_model(5, K=3, kmax=2), lv[:4], "qbd")


def test_high_precision_agrees_with_float():
    m = load_model("avrachenkov-example.json", K=2)
    pol = bm.Policy((3, 1), (0,))
    hp = bm.evaluate_mp(m, pol, 40)
    fl = bm.evaluate(m, pol)
    assert float(hp.cost) == pytest.approx(fl.cost, rel=1e-13)
    assert abs(hp.p_loss + hp.p_obs + hp.p_success - 1) < 1e-35


def test_structured_operators_match_sparse(ex):
    lv = ex.check_policy(bm.Policy((4, 1), (1,)))
    Q = bm.generator_kronecker(ex, lv)
    ops = LevelOperators(ex, lv)
    x = np.random.default_rng(0).random(Q.shape[0])
    np.testing.assert_allclose(np.concatenate(ops.apply(bm.split_levels(ex, x))), Q.T @ x, atol=1e-13)
    st_ = solve_structured(ex, lv)
    assert st_.residual < 1e-12 and st_.flat.sum() == pytest.approx(1)


def test_kron_sum_solver():
    rng = np.random.default_rng(1)
    F = [np.array([[-3.0, 1.0], [2.0, -3.0]]), np.array([[-0.6, 0.4], [0.1, -0.3]]), np.array([[-1.0]])]
    A = F[0]
    for f in F[1:]:
        A = np.kron(A, np.eye(f.shape[0])) + np.kron(np.eye(A.shape[0]), f)
    b = rng.random(A.shape[0])
    np.testing.assert_allclose(A @ KronSumSolver(F).solve(b), b, atol=1e-13)


def test_optimize_conventions(ex):
    assert bm.threshold_candidates(2, 3, "strict") == [(0,), (1,), (2,)]
    assert bm.threshold_candidates(2, 3, "paper") == [(0,), (1,), (2,), (3,)]
    assert bm.threshold_candidates(2, 3, "nonstrict")[0] == (-1,)
    o = bm.optimize(ex, (3, 1))
    assert o.cost == min(c for _, c in o.curve)


def test_policy_levels_and_errors(ex):
    assert bm.Policy((4, 3, 1), (0, 2)).levels(4) == (4, 3, 3, 1, 1)
    assert bm.Policy((3, 2, 1), (2, 2)).levels(3) == (3, 3, 3, 1)
    with pytest.raises(InvalidInput, match="thresholds"):
        bm.Policy((3, 1), ())
    with pytest.raises(InvalidInput, match="non-decreasing"):
        bm.Policy((3, 2, 1), (2, 1))
    with pytest.raises(InvalidInput, match="modes"):
        ex.check_policy(bm.Policy((5,), ()))
    with pytest.raises(InvalidInput, match="must be <= K"):
        ex.check_policy(bm.Policy((3, 1), (9,)))


def test_model_files():
    with pytest.raises(InvalidInput, match=r"D\^\(2\)_1\[0, 0\]"):
        load_model("avrachenkov-example-printed.json")
    with pytest.raises(InvalidInput, match="must sum to 0"):
        load_model("avrachenkov-real-printed.json")
    real = load_model("avrachenkov-real.json")
    assert real.N == 4 and real.R == 1 and real.states == 82
    spec = read_spec("avrachenkov-example.json")
    spec["service"]["S"] = [[-3, -1], [2, -3]]
    with pytest.raises(InvalidInput, match=r"S\[0, 1\]"):
        model_from_spec(spec)
    with pytest.raises(InvalidInput, match="missing key"):
        model_from_spec({"K": 3})
    with pytest.raises(InvalidInput, match="not found"):
        load_model("no-such-model.json")


def _cli(*args):
    return subprocess.run([sys.executable, "-c", "from crawlmath.cli import entry; entry()", *args], capture_output=True, text=True)


def test_cli_json_and_errors():
    r = _cli("bmap", "avrachenkov-example.json", "--modes", "3,1", "--thresholds", "2", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    for key in ("p_star", "n_act", "lam", "p_loss", "p_obs", "p_success", "v1", "cost", "thresholds", "modes", "states", "residual"):
        assert key in d
    assert d["cost"] == pytest.approx(63.54254769, rel=1e-8)
    bad = _cli("bmap", "avrachenkov-example-printed.json")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "D^(2)_1[0, 0]" in bad.stderr
    assert _cli("bmap", "avrachenkov-example.json", "--modes", "3,x").returncode == 2


def test_toml_model_file(tmp_path):
    text = """
K = 3
[arrivals]
interpretation = "scaled"
robots = 2
[arrivals.common]
D = [[[-1.0]], [[1.0]]]
[service]
beta = [1.0]
S = [[-2.0]]
[obsolescence]
gamma = [1.0]
Gamma = [[-0.5]]
[costs]
c_loss = 1.0
c_star = 2.0
"""
    p = tmp_path / "mm1k.toml"
    p.write_text(text)
    m = load_model(p)
    assert m.N == 2 and m.states == 4 and m.arrivals[1].lam == pytest.approx(2.0)
    r = bm.evaluate(m, bm.Policy((2, 1), (0,)))
    assert r.p_loss + r.p_obs + r.p_success == pytest.approx(1, abs=1e-13)
    p.write_text("K = [")
    with pytest.raises(InvalidInput, match="not valid TOML"):
        load_model(p)


@pytest.mark.parametrize("K,modes,th", [(3, (3, 1), (1,)), (5, (4, 3, 1), (0, 2)), (7, (2,), ())])
def test_lumped_chain_equals_full_chain(K, modes, th):
    full = load_model("avrachenkov-example.json", K=K, reduce=False)
    red = full.with_(reduce=True)
    assert red.states == 2 * (1 + 2 * K) and full.states == 2 * (2 ** (K + 1) - 1)
    lv = full.check_policy(bm.Policy(modes, th))
    a, b = bm.evaluate_levels(full, lv, "sparse"), bm.evaluate_levels(red, lv, "sparse")
    np.testing.assert_allclose(measure_vector(b), measure_vector(a), rtol=1e-12, atol=1e-15)


def test_random_models_do_not_reduce_and_planted_ones_do():
    from crawlmath.numeric.bmap import random_lumpable_phase_type, random_phase_type

    m = random_model(4, W=2, M=2, R=2, K=3)
    assert m.states == m.full_states and all(x.trivial for x in m.lumpings)
    rng = np.random.default_rng(0)
    planted = m.with_(service=random_lumpable_phase_type(rng, random_phase_type(rng, 2), 2), reduce=False)
    lv = planted.check_policy(bm.Policy((2, 1), (1,)))
    red = planted.with_(reduce=True)
    assert red.M == 2 and planted.M == 4
    np.testing.assert_allclose(measure_vector(bm.evaluate_levels(red, lv)), measure_vector(bm.evaluate_levels(planted, lv)), rtol=1e-12)


def test_large_K_through_the_lumped_chain_no_64_axis_limit():
    m = load_model("avrachenkov-example.json", K=70)
    lv = m.check_policy(bm.Policy((3, 1), (3,)))
    a, b = bm.evaluate_levels(m, lv, "auto"), bm.evaluate_levels(m, lv, "structured")
    assert m.states == 2 * (1 + 2 * 70) and a.residual < 1e-12
    np.testing.assert_allclose(measure_vector(b), measure_vector(a), rtol=1e-9, atol=1e-14)
    assert 0 <= a.p_loss < 1e-12 and a.p_loss + a.p_obs + a.p_success == pytest.approx(1, abs=1e-12)
    # P_loss ~ 7e-27 comes from the top levels: GTH (no subtraction) gets it to full relative accuracy, against 50-digit
    # ball arithmetic (an LU solve printed -1.8e-17, the structured solver 1.4e-17: right only in absolute terms)
    hp = bm.evaluate_mp(m, bm.Policy((3, 1), (3,)), 50)
    assert hp.residual < 1e-20 and a.p_loss == pytest.approx(float(hp.p_loss), rel=1e-12)


def test_cli_reduces_by_default_and_refuses_the_full_chain_at_K30():
    r = _cli("bmap", "avrachenkov-example.json", "--K", "30", "--modes", "3,1", "--thresholds", "3", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["states"] == 122 and d["full_states"] == 2**32 - 2 and d["cost"] == pytest.approx(57.2321464, rel=1e-8)
    big = _cli("bmap", "avrachenkov-example.json", "--K", "30", "--modes", "3,1", "--thresholds", "3", "--no-reduce")
    assert big.returncode == 4 and "too large" in big.stderr


# --- certified values (issue 17) ------------------------------------------------


def test_certified_cost_agrees_with_mpmath_and_float_and_its_bound_holds():
    import mpmath

    m = load_model("avrachenkov-example.json", K=4)
    pol = bm.Policy((3, 1), (1,))
    lv = m.check_policy(pol)
    c = bm.certified_cost(m, lv, digits=30)
    assert c.digits >= 30 and c.radius <= 1e-30 * abs(float(c.value))
    with mpmath.workdps(70):
        ref50 = bm.evaluate_mp(m, pol, 50).cost  # mpmath measures: a different arithmetic on the same chain
        ref60 = bm.evaluate_mp(m, pol, 60).cost
        assert abs(ref50 - c.value) < mpmath.mpf(10) ** -40
        assert abs(ref60 - c.value) <= c.radius  # the radius really bounds the decimal-input J
    assert abs(float(c.value) - bm.evaluate(m, pol).cost) <= 1e-12 * abs(float(c.value))


def test_certified_cost_refuses_large_chains_and_bad_digits():
    from crawlmath.numeric.errors import TooLarge

    big = load_model("avrachenkov-example.json", K=6, reduce=False)  # 2 (1 + 2 (2^6 - 1)) = 254 states: fine
    assert big.states <= _certified.HP_STATE_LIMIT
    huge = load_model("avrachenkov-example.json", K=8, reduce=False)  # 1022 states
    with pytest.raises(TooLarge, match="600 states"):
        bm.certified_cost(huge, huge.check_policy(bm.Policy((3,), ())))
    m = load_model("avrachenkov-example.json", K=3)
    with pytest.raises(InvalidInput, match="digits"):
        bm.certified_cost(m, m.check_policy(bm.Policy((3,), ())), digits=0)


def test_certified_cost_reports_a_float_disagreement():
    from crawlmath.numeric.errors import SolverError

    m = load_model("avrachenkov-example.json", K=3)
    lv = m.check_policy(bm.Policy((3, 1), (1,)))
    with pytest.raises(SolverError, match="float64 .* disagrees"):
        bm.certified_cost(m, lv, float_cost=bm.evaluate_levels(m, lv).cost * (1 + 1e-6))


def _twin_model(eps):
    """Two robot modes whose BMAPs differ by the factor (1 + eps); no robot cost, so J(mode 1) and J(mode 2) differ by O(eps)."""
    base = random_model(3, W=2, M=2, R=1, K=3)
    b = base.arrivals[0]
    return base.with_(arrivals=[b, b.scaled(1 + eps)], costs=bm.Costs(1, 2, 1, 0, 3))


def test_argmin_certified_on_a_near_tie_and_a_genuine_tie_reported():
    near = _twin_model(1e-9)  # float J within the gap: both recomputed, the enclosures separate them
    cands = [(m, near.check_policy(bm.Policy((m,), ())), bm.evaluate(near, bm.Policy((m,), ())).cost) for m in (1, 2)]
    assert abs(cands[0][2] - cands[1][2]) <= _certified.ARGMIN_GAP * cands[0][2]
    arg = bm.certify_argmin(near, cands)
    assert arg.recomputed == 2 and arg.decided and arg.tied == () and arg.error_bound == 0.0
    others = [c for lab, _, c in cands if lab != arg.label]
    assert float(arg.cost.value) < others[0]
    tie = _twin_model(0.0)  # identical BMAPs: a genuine tie
    cands = [(m, tie.check_policy(bm.Policy((m,), ())), bm.evaluate(tie, bm.Policy((m,), ())).cost) for m in (1, 2)]
    arg = bm.certify_argmin(tie, cands)
    assert not arg.decided and arg.tied and arg.error_bound is None and "tie" in arg.summary()
    # the same levels twice are one chain, not a tie
    same = bm.certify_argmin(tie, [("a", cands[0][1], cands[0][2]), ("b", cands[0][1], cands[0][2])])
    assert same.decided and same.candidates == 1


# --- batched threshold optimisation (issue 15) -------------------------------------


def _random_levels(m, rng, count):
    return [tuple(int(x) for x in rng.integers(1, m.N + 1, m.K + 1)) for _ in range(count)]


def _level_models():
    return [random_model(s, W=2, M=2, R=2, K=4, kmax=3, N=3) for s in range(3)] + [
        load_model("avrachenkov-example.json", K=4, reduce=False), load_model("avrachenkov-example.json", K=6),
        load_model("avrachenkov-real.json")]


def test_row_block_of_a_level_depends_only_on_its_mode():
    """What the batched assembly relies on, checked on the generator built from the model's rules (not the Lemma)."""
    rng = np.random.default_rng(11)
    for m in _level_models():
        off = np.concatenate([[0], np.cumsum([m.level_size(i) for i in range(m.K + 1)])])
        uniform = {r: bm.generator_enumerated(m, (r,) * (m.K + 1)).toarray() for r in range(1, m.N + 1)}
        for lv in _random_levels(m, rng, 3):
            Q = bm.generator_enumerated(m, lv).toarray()
            for i in range(m.K + 1):
                rows = slice(off[i], off[i + 1])
                assert np.array_equal(Q[rows], uniform[lv[i]][rows]), (lv, i)
            assert abs(bm.generator_dense(m, lv) - Q).max() < 1e-13  # the dense Lemma blocks
        for t in range(m.K):  # numpy's Kronecker products: the same numbers as scipy's
            assert np.array_equal(bm.A_dense(m, t), bm.A_block(m, t).toarray())


def test_level_weights_reproduce_every_measure_on_arbitrary_vectors():
    """Each measure is the linear functional of p given by `level_weights` (any p, not only the stationary one)."""
    rng = np.random.default_rng(12)
    for m in _level_models():
        for lv in _random_levels(m, rng, 3):
            x = rng.uniform(0.1, 1.0, m.states)
            x /= x.sum()
            r = bm.measures(m, lv, bm.Stationary(bm.split_levels(m, x), "test", 0.0))
            w = {k: np.concatenate([_batched.level_weights(m, i, lv[i])[k] for i in range(m.K + 1)]) for k in
                 ("p_star", "n_act", "lam", "loss", "success", "obs", "h1", "g1", "h2", "g2")}
            dot = {k: x @ v for k, v in w.items()}
            lam = dot["lam"]
            got = {"p_star": dot["p_star"], "n_act": dot["n_act"], "lam": lam, "p_loss": dot["loss"] / lam, "p_obs": dot["obs"] / lam,
                   "p_success": dot["success"] / lam, "p_success_tagged": dot["h1"] / lam, "v1": dot["g1"] / dot["h1"],
                   "v2": dot["g2"] / dot["h2"]}
            for k, v in got.items():
                assert v == pytest.approx(getattr(r, k), rel=1e-13, abs=1e-300), (lv, k)
            s = x @ np.concatenate([_batched.cost_weights(m, i, lv[i]) for i in range(m.K + 1)])  # (p·a_lin, p·g1, p·h1)
            assert s[0] + m.costs.a * s[1] / s[2] == pytest.approx(r.cost, rel=1e-13)


@pytest.mark.parametrize("name,K,count", [("avrachenkov-example.json", 5, None), ("avrachenkov-real.json", None, 150),
                                          ("avrachenkov-example.json", 30, 40)])
def test_batched_curve_equals_evaluate_levels_on_every_candidate(name, K, count):
    """Table 1's model on all 15 mode sets (every candidate), the real model and K = 30 (122 states: the SuperLU branch)
    on a random subset: J of the curve against the full per-policy route, 1e-12 relative."""
    m = load_model(name) if K is None else load_model(name, K=K)
    res = bm.optimize_all(m, convention="paper")
    assert len(res) == 15
    cands = [(o, th, c) for o in res.values() for th, c in o.curve]
    if count is not None:
        cands = [cands[k] for k in np.random.default_rng(13).choice(len(cands), count, replace=False)]
    for o, th, c in cands:
        ref = bm.evaluate_levels(m, bm.Policy(o.modes, th).levels(m.K)).cost
        assert c == pytest.approx(ref, rel=1e-12), (o.modes, th)
    for o in res.values():
        assert o.cost == min(c for _, c in o.curve) and o.measures.cost == pytest.approx(o.cost, rel=1e-12)
        assert o.measures.levels == bm.Policy(o.modes, o.thresholds).levels(m.K)


def test_candidate_levels_are_the_policies_levels():
    for conv in bm.CONVENTIONS:
        for modes in ((4, 3, 1), (3, 1), (2,), (4, 3, 2, 1)):
            for K in (1, 3, 6):
                cands = bm.threshold_candidates(len(modes), K, conv)
                assert bm.candidate_levels(modes, cands, K) == [bm.Policy(modes, th).levels(K) for th in cands]
    with pytest.raises(InvalidInput, match="strict convention uses all 4 modes, impossible with K = 2"):
        bm.optimize(load_model("avrachenkov-example.json", K=2), (4, 3, 2, 1), "strict")


def test_batched_optimum_equals_the_per_policy_loop():
    m = load_model("avrachenkov-example.json", K=8)
    for modes in ((3, 1), (4, 3, 1), (2,)):
        a, b = bm.optimize(m, modes), bm.optimize(m, modes, solver="sparse")
        assert a.thresholds == b.thresholds and a.evaluated == b.evaluated
        np.testing.assert_allclose([c for _, c in a.curve], [c for _, c in b.curve], rtol=1e-12)


def test_batched_costs_gate_limits_and_singular_systems(monkeypatch):
    from crawlmath.numeric.errors import SolverError, TooLarge

    m = load_model("avrachenkov-example.json", K=5)
    lv = m.check_policy(bm.Policy((3, 1), (2,)))
    monkeypatch.setattr(_batched, "FLOAT_REL", 1e-40)  # no float solve meets this residual: the gate must refuse, naming the levels
    with pytest.raises(SolverError, match=r"levels \(3, 3, 3, 1, 1, 1\): not a stationary vector"):
        bm.batched_costs(m, [lv])
    monkeypatch.undo()
    assert lv not in m.memo("batched J", dict)  # nothing cached from the refused chunk
    for K in (5, 30):  # 22 states: one LAPACK call; 122 states: SuperLU per system
        z = load_model("avrachenkov-example.json", K=K)
        assert (z.states <= _batched.BATCH_LAPACK_STATES) == (K == 5)
        tabs = _batched.mode_tables(z)
        z._memo["mode tables"] = dataclasses.replace(tabs, Q=np.where(tabs.level[None, :, None] == K, 0.0, tabs.Q))  # level K absorbs
        # LAPACK may or may not see the exact zero pivot (it depends on the rounding of the rates); either way it is refused
        with pytest.raises(SolverError, match=r"levels \(3, 3, 1.*\)(: not a stationary vector| is singular)"):
            bm.batched_costs(z, [z.check_policy(bm.Policy((3, 1), (1,)))])
    with pytest.raises(InvalidInput, match=r"level_vectors.*robot counts in 1\.\.4"):
        bm.batched_costs(m, [lv, (0,) * 6])
    with pytest.raises(InvalidInput, match="K \\+ 1 = 6"):
        bm.batched_costs(m, [lv[:5]])
    big = load_model("avrachenkov-example.json", K=300)  # 1202 states
    with pytest.raises(TooLarge, match="600 states"):
        bm.batched_costs(big, [(1,) * 301])
    monkeypatch.setenv("CRAWLMATH_MAX_MEMORY", "1K")
    with pytest.raises(TooLarge, match="batched dense solve"):
        bm.batched_costs(m, [lv])


def test_dense_solve_on_the_closed_class_and_refuses_two():
    from crawlmath.numeric.errors import SolverError

    # a service phase that nothing enters: its states are transient, p = 0 there exactly, as the sparse LU finds
    m = random_model(1, K=3).with_(service=PhaseType(np.array([1.0, 0.0]), np.array([[-1.0, 0.0], [0.5, -2.0]])))
    lv = m.check_policy(bm.Policy((2, 1), (1,)))
    st_ = bm.solve_dense(m, lv)
    assert "16 recurrent states" in st_.method and np.count_nonzero(st_.flat) == 16 and st_.flat.min() >= 0
    np.testing.assert_allclose(measure_vector(bm.evaluate_levels(m, lv, "dense")), measure_vector(bm.evaluate_levels(m, lv, "sparse")),
                               rtol=1e-12)
    assert bm.batched_costs(m, [lv])[0] == pytest.approx(bm.evaluate_levels(m, lv).cost, rel=1e-12)
    assert _stationary.closed_class(np.array([[-1.0, 1.0], [0.0, 0.0]])).tolist() == [1]
    with pytest.raises(SolverError, match="2 closed classes"):
        _stationary.closed_class(np.array([[-1.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]))


def _same_csr(a, b) -> bool:
    """Equal CSR matrices down to the stored pattern, its order and the bits of every entry."""
    return (a.shape == b.shape and a.indices.dtype == b.indices.dtype and np.array_equal(a.indptr, b.indptr)
            and np.array_equal(a.indices, b.indices) and np.array_equal(a.data.view(np.uint64), b.data.view(np.uint64)))


@pytest.mark.parametrize("model", [load_model("avrachenkov-example.json", K=5, reduce=False),
                                   load_model("avrachenkov-example.json", K=6), load_model("avrachenkov-real.json").with_K(5),
                                   bm.random_model(31, W=2, M=2, R=2, K=4, kmax=3, N=2),
                                   bm.random_model(5, W=2, M=3, R=3, K=4, kmax=2, N=3)])
def test_small_blocks_built_densely_are_the_sparse_blocks_bit_for_bit(model):
    """`recipe_block` builds small CSR blocks densely: every block equals scipy's sparse sum of Kronecker products exactly
    (pattern, order, bits), so the generator and every solve on it are unchanged."""
    for r in range(1, model.N + 1):
        for i in range(model.K + 1):
            for j in _generator.block_columns(model, i):
                assert _same_csr(_generator.recipe_block(model, r, i, j), _generator.recipe_block_sparse(model, r, i, j)), (r, i, j)


def test_simulation_draws_as_generator_choice():
    """`bmap_sim.simulate` draws a jump from its cumulative law with one uniform, as ``Generator.choice(n, p=p)`` does:
    the same outcomes from the same stream (so a seed gives the simulation it gave with ``choice``)."""
    from crawlmath.numeric.bmap._sim import _cumulative

    laws = [np.array([0.2, 0.5, 0.3]), np.array([0.0, 0.25, 0.75, 0.0]), np.array([1.0]), np.full(7, 1 / 7)]
    a, b = np.random.default_rng(11), np.random.default_rng(11)
    for n in range(4000):
        p = laws[n % len(laws)]
        assert a.choice(p.size, p=p) == int(_cumulative(p).searchsorted(b.random(), side="right"))
    with pytest.raises(InvalidInput):
        _cumulative(np.array([0.5, 0.6]))
