"""BUbiNG workbench colours (Buijsrogge 2014): exact chain, product form,
simulation, offline strategies, bad input, CLI."""
from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from crawlmath.cli import main
from crawlmath.numeric import colours as nc
from crawlmath.numeric.colours_sim import STRATEGY_NAMES, simulate, step_law, trajectories
from crawlmath.numeric.errors import InvalidInput, SolverError, TooLarge
from crawlmath.numeric.generated import buijsrogge as gen
from crawlmath.numeric.tolerance import SIMULATION_SIGMAS


def _brute_force(p: np.ndarray, K: int):
    """Chain on occupancy vectors built from the game's rules, solved as the
    left Perron eigenvector (independent of the library's builders)."""
    C = len(p)
    states = [q for q in itertools.product(range(K + 1), repeat=C) if sum(q) == K]
    idx = {q: n for n, q in enumerate(states)}
    P = np.zeros((len(states), len(states)))
    for q in states:
        present = [c for c in range(C) if q[c] > 0]
        for j in present:
            for c in range(C):
                r = list(q)
                r[j] -= 1
                r[c] += 1
                P[idx[q], idx[tuple(r)]] += p[c] / len(present)
    w, v = np.linalg.eig(P.T)
    pi = np.real(v[:, np.argmin(abs(w - 1))])
    pi /= pi.sum()
    S = np.array([sum(1 for x in q if x) for q in states])
    return float(pi @ S)


@pytest.mark.parametrize("K,C", [(1, 3), (2, 2), (3, 2), (4, 3), (5, 4), (6, 3)])
def test_exact_chain_matches_brute_force(K, C):
    want = _brute_force(np.full(C, 1 / C), K)
    for method in ("lu", "power", "rational"):
        assert nc.exact_uniform(K, C, method).colours == pytest.approx(want, rel=1e-10)
    if K + C > 2:
        assert gen.exact_colours_uniform(K, C) == pytest.approx(want, rel=1e-12)


def test_heterogeneous_product_form_matches_brute_force():
    p = np.array([0.55, 0.25, 0.15, 0.05])
    want = _brute_force(p, 5)
    assert nc.exact_general(p, 5).colours == pytest.approx(want, rel=1e-10)
    assert nc.exact_stationary(p, 5).colours == pytest.approx(want, rel=1e-12)


def test_partition_count():
    assert [nc.partition_count(k, k) for k in range(1, 11)] == [1, 2, 3, 5, 7, 11, 15, 22, 30, 42]
    assert nc.partition_count(6, 2) == 4
    assert nc.exact_uniform(9, 4).states == nc.partition_count(9, 4)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 60), st.integers(1, 200))
def test_exact_and_mean_field_properties(K, C):
    mf = nc.mean_field(K, C)
    assert 0 < mf.colours <= min(K, C) + 1e-12
    if K + C > 2:
        ex = gen.exact_colours_uniform(K, C)
        assert mf.colours - 1e-12 <= ex <= min(K, C) + 1e-12
        assert ex - mf.colours < 0.25  # exact - mean field in [0, 1/4)
    assert nc.initial_expected(np.full(C, 1 / C), K) <= min(K, C) + 1e-9


@settings(max_examples=10, deadline=None)
@given(st.integers(2, 8), st.integers(2, 6), st.integers(0, 10**6))
def test_uniform_is_not_beaten(K, C, seed):
    p = np.random.default_rng(seed).dirichlet(np.ones(C))
    assert nc.exact_stationary(p, K, dps=20).colours <= gen.exact_colours_uniform(K, C) + 1e-12


def test_simulation_within_confidence_of_exact():
    for dist, C, par in (("uniform", 30, ()), ("powerlaw", 50, (1.2,))):
        p = nc.colour_distribution(dist, C, *par)
        sim = simulate(p, 20, 400_000, seed=3)
        ex = nc.exact_stationary(p, 20)
        assert abs(sim.mean - ex.colours) <= SIMULATION_SIGMAS * sim.stderr
        assert abs(sim.p_new_mean - ex.p_new) < 0.02


def test_simulation_is_seeded_and_trajectory_shapes():
    p = nc.colour_distribution("uniform", 100)
    a = simulate(p, 10, 5000, seed=9, samples=50)
    b = simulate(p, 10, 5000, seed=9, samples=50)
    assert np.array_equal(a.colours, b.colours)
    assert a.times[0] == (10 + 5000) // 50 and len(a.times) == len(a.colours) == len(a.p_new) == 50
    assert np.all((a.colours >= 1) & (a.colours <= 10))


def test_strategies_run_and_greedy_neutral_is_pathwise_neutral():
    p = nc.colour_distribution("powerlaw", 500, 1.0)
    a = simulate(p, 50, 20_000, seed=4, strategy="neutral")
    b = simulate(p, 50, 20_000, seed=4, strategy="greedy-neutral")
    assert np.array_equal(a.colours, b.colours)
    m = simulate(p, 50, 20_000, seed=4, strategy="mice", beta=5)
    assert m.mean > a.mean
    r = simulate(p, 50, 20_000, seed=4, strategy="recommended")
    assert r.elephants > 0 and r.mean > a.mean
    g = simulate(p, 50, 200_000, seed=4, strategy="greedy", stop_at=0.99)
    assert g.stopped_at > 0


@pytest.mark.parametrize("strategy,kw", [("none", {}), ("greedy", {}), ("mice", {"beta": 5}),
                                         ("recommended", {}), ("randomized-b", {"r": 0.7}), ("greedy-a", {"stop_at": 0.99})])
def test_chunked_run_equals_one_call(monkeypatch, strategy, kw):
    """The kernels are resumable: many small chunks give the very same run."""
    import crawlmath.numeric.colours_sim as cs

    p = nc.colour_distribution("powerlaw", 400, 1.0)
    whole = simulate(p, 40, 30_000, seed=8, strategy=strategy, **kw)
    monkeypatch.setattr(cs, "CHUNK_STEPS", 777)
    monkeypatch.setattr(cs, "CHUNK_DRAWS", 999)
    parts = cs.simulate(p, 40, 30_000, seed=8, strategy=strategy, **kw)
    assert np.array_equal(whole.colours, parts.colours) and whole.mean == parts.mean
    assert whole.source_draws == parts.source_draws and whole.elephants == parts.elephants


@pytest.mark.parametrize("strategy", ["none", "recommended"])
def test_ctrl_c_stops_a_long_run_between_chunks(strategy):
    import os
    import signal
    import threading

    p = nc.colour_distribution("powerlaw", 1000, 1.1)
    simulate(p, 50, 100, strategy=strategy)  # compile first
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            simulate(p, 50, 10**9, strategy=strategy)
    finally:
        timer.cancel()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_seeds_cover_64_bits():
    p = nc.colour_distribution("uniform", 50)
    a = simulate(p, 10, 1000, seed=2**64 - 1)
    b = simulate(p, 10, 1000, seed=2**63)
    assert not np.array_equal(a.colours, b.colours)


def test_costs_are_refused_before_running():
    with pytest.raises(TooLarge, match="steps"):
        simulate(np.full(4, 0.25), 3, 10**13)
    with pytest.raises(TooLarge, match="product form"):
        nc.exact_stationary(np.full(4, 0.25), 10**6)


def test_stopped_run_has_no_average():
    p = nc.colour_distribution("powerlaw", 1000, 1.1)
    r = simulate(p, 100, 100_000, seed=0, strategy="greedy", stop_at=0.99)
    assert 0 < r.stopped_at < 50_000 and r.mean is None and r.stderr is None


@pytest.mark.parametrize("strategy", STRATEGY_NAMES)
def test_every_strategy_keeps_the_invariants(strategy):
    p = nc.colour_distribution("powerlaw", 800, 0.9)
    r = simulate(p, 60, 20_000, seed=5, strategy=strategy, beta=5, stop_at=0.99)
    assert np.all((r.colours >= 1) & (r.colours <= 60))
    assert np.all((r.p_offline >= -1e-12) & (r.p_offline <= 1 + 1e-12))
    assert (r.mean is None) == (r.stopped_at >= 0 and r.stopped_at < 60 + 20_000 // 2)
    assert r.source_draws >= len(r.times)


def test_delta_rule_counts_and_masses_are_consistent():
    p = nc.colour_distribution("powerlaw", 2000, 1.1)
    r = simulate(p, 100, 19_900, seed=6, strategy="recommended", delta=3, every=1000)
    assert np.all(np.diff(r.elephant_counts) >= 0) and r.elephant_counts[-1] == r.elephants
    assert r.elephant_mass == pytest.approx(r.elephant_masses[-1])
    assert 0 < r.elephant_mass <= np.sort(p)[::-1][: r.elephants].sum() + 1e-12  # at most the c heaviest colours


@pytest.mark.parametrize("strategy", ["none", "greedy-neutral", "randomized", "randomized-a"])
def test_step_law_is_a_probability_law(strategy):
    from fractions import Fraction as F

    p = (F(1, 2), F(1, 3), F(1, 6))
    for q in ((2, 1, 0), (1, 1, 1), (3, 0, 0)):
        law = step_law(strategy, q, (), p, F(1, 4))
        assert sum(law.values()) == 1 and all(off == () for _, off in law)
    if strategy != "randomized-a":
        law = step_law(strategy, (1, 1, 0), (2, 0), p, F(1, 4))
        assert sum(law.values()) == 1


def test_step_law_refuses_an_unbounded_step():
    from fractions import Fraction as F

    with pytest.raises(SolverError):
        step_law("randomized-a", (1, 1, 0), (0,), (F(1, 3),) * 3, F(1, 2))
    with pytest.raises(InvalidInput):
        step_law("mice", (1, 1), (), (F(1, 2), F(1, 2)), F(1, 2))


def test_trajectories_curves():
    tr = trajectories(50, 200, 5000, seed=1, samples=100)
    assert tr["mean_field_colours"] == pytest.approx(50 * 200 / 249)
    assert tr["exact_colours"] == pytest.approx((50 * 200 - 1) / 248)
    assert len(tr["fill_t"]) == len(tr["fill_expected"])


def test_chapter5_distributions_normalised():
    for kind, par in (("uniform", ()), ("geometric", (10.0,)), ("normal", (20.0, 5.0)), ("poisson", (30.0,)),
                      ("powerlaw", (1.1,)), ("powerlaw", (0,))):
        p = nc.colour_distribution(kind, 100, *par)
        assert p.sum() == pytest.approx(1.0) and np.all(p >= 0)


@pytest.mark.parametrize("call", [
    lambda: nc.mean_field(0, 5),
    lambda: nc.mean_field(5, 0),
    lambda: nc.colour_distribution("normal", 10, 5.0, -1.0),
    lambda: nc.colour_distribution("geometric", 10, 0.0),
    lambda: nc.colour_distribution("poisson", 10, -2.0),
    lambda: nc.colour_distribution("powerlaw", 10, -1.0),
    lambda: nc.colour_distribution("zipf", 10),
    lambda: simulate(np.full(4, 0.25), 3, 100, strategy="bogus"),
    lambda: simulate(np.full(4, 0.25), 3, 39),
    lambda: simulate(np.full(4, 0.25), 3, 100, seed=2**64),
    lambda: simulate(np.full(4, 0.25), 3, 100, seed=-1),
    lambda: simulate(np.full(4, 0.25), 4, 100, strategy="mice", beta=1.0),  # every colour an elephant
    lambda: simulate(np.full(4, 0.25), 3, 100, strategy="recommended", delta=0),
    lambda: simulate(np.full(4, 0.25), 3, 100, strategy="randomized", r=1.5),
])
def test_bad_input(call):
    with pytest.raises(InvalidInput):
        call()


def test_too_large_is_refused_up_front():
    with pytest.raises(TooLarge, match="190569292 states"):
        nc.exact_uniform(100, 1000)


def test_cli_json_and_errors(capsys):
    assert main(["colours", "--K", "6", "--C", "5", "--exact", "--simulate", "20000", "--seed", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("mean_field", "initial_expected", "exact", "simulated", "p_new"):
        assert key in out
    assert out["exact"]["colours"] == pytest.approx((6 * 5 - 1) / 9)
    assert math.isfinite(out["simulated"]["stderr"])
    for argv in (["colours", "--K", "0", "--C", "5"], ["colours", "--K", "5", "--C", "5", "--dist", "normal:1"],
                 ["colours", "--K", "5", "--C", "5", "--strategy", "x"]):
        assert main(argv) == 2
    assert main(["colours", "--K", "200", "--C", "200", "--dist", "powerlaw:1", "--exact"]) == 4  # TooLarge
    assert main(["colours", "--K", "10", "--C", "50", "--simulate", str(10**13)]) == 4
    err = capsys.readouterr().err
    assert "states" in err and "--K" in err
    for argv in (["--simulate", "1"], ["--simulate", "100", "--seed", str(2**64)], ["--strategy", "mice:x"],
                 ["--strategy", "greedy:3"]):
        assert main(["colours", "--K", "5", "--C", "50"] + argv) == 2
    assert main(["colours", "--K", "100", "--C", "1000", "--dist", "powerlaw:1.1", "--simulate", "100000",
                 "--strategy", "greedy-a", "--json"]) == 0
    text = capsys.readouterr().out
    assert "NaN" not in text and json.loads(text)["simulated"]["mean"] is None


# --------------------------------------------------------------------------- single-run tables: series and certainty


def test_record_at_T_does_not_depend_on_run_length():
    """The single-run series are run once to their longest T and read at every T: the state at T (hence the
    record) must be the same whatever the run's end."""
    p = nc.colour_distribution("powerlaw", 2000, 0.9)
    short = simulate(p, 100, 19_900, seed=5, strategy="recommended", delta=3, strict=True, every=2000)
    long = simulate(p, 100, 39_900, seed=5, strategy="recommended", delta=3, strict=True, every=2000)
    assert np.array_equal(short.elephant_counts, long.elephant_counts[:10])
    assert np.array_equal(short.elephant_masses, long.elephant_masses[:10])
    assert np.array_equal(short.colours, long.colours[:10])


def test_remembered_validation_still_refuses_bad_vectors():
    p = np.full(50, 0.02)
    a = simulate(p, 10, 400, seed=3)
    assert np.array_equal(a.colours, simulate(list(p), 10, 400, seed=3).colours)  # list: validated afresh
    bad = p.copy()
    bad[7] = -0.02
    bad[8] = 0.06
    with pytest.raises(InvalidInput, match="p"):
        simulate(bad, 10, 400, seed=3)


def _certified(v, x, inside):
    from crawlmath.proofs.claims.buijsrogge_offline import single_run_certainty

    return single_run_certainty(v, x, inside).certain


def test_single_run_certainty_cases():
    from crawlmath.proofs.claims.buijsrogge_offline import _order_count, judge_single_run

    assert [_order_count(n) for n in (8, 16, 32, 64)] == [2, 2, 3, 3]
    x = np.array([100.0, 104, 98, 110, 95, 101, 99, 103])
    o = judge_single_run("102", x, "c")
    assert o.status.value == "PASS" and o.certain and "holds" in o.detail
    o = judge_single_run("180", x, "c")  # |v − m|/s = 17.4 < k_hi(8) = 18.2: outside, but not certainly
    assert o.status.value == "FAIL" and o.certain is False
    o = judge_single_run("200", x, "c")
    assert o.status.value == "FAIL" and o.certain
    o = judge_single_run("0", np.zeros(8), "c")  # every run 0: P(X = 0) > 0.0005 beyond doubt
    assert o.status.value == "PASS" and o.certain and o.error_bound == 0
    o = judge_single_run("118", x, "c")  # inside the t band, beyond the 2nd largest run and k_lo: on the edge
    assert o.status.value == "PASS" and o.certain is False


@pytest.mark.parametrize("n", [8, 32])
def test_single_run_certainty_is_calibrated(n):
    """Monte Carlo on normal runs: a value just inside the band edge μ + zσ is almost never certified outside, and
    one just outside almost never certified inside (each below SINGLE_RUN_FLIP; 20000 draws allow 8)."""
    from crawlmath.proofs.claims.buijsrogge_offline import TAIL

    from scipy.stats import norm

    rng = np.random.default_rng(17 + n)
    z = norm.ppf(1 - TAIL)
    wrong_out = wrong_in = 0
    for _ in range(20_000):
        x = rng.normal(0.0, 1.0, n)
        wrong_out += _certified(0.98 * z, x, False)
        wrong_in += _certified(1.02 * z, x, True)
    assert wrong_out <= 8 and wrong_in <= 8, (wrong_out, wrong_in)
