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
from crawlmath.numeric.colours import STRATEGY_NAMES, simulate, step_law, trajectories
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
                                         ("recommended", {}), ("randomized-b", {"r": 0.7}), ("greedy-a", {"stop_at": 0.99}),
                                         ("mice-delta", {"delta": 2}), ("greedy-neutral", {"prefill": 1024}),
                                         ("randomized-a", {"r": 0.6})])
def test_chunked_run_equals_one_call(monkeypatch, strategy, kw):
    """The kernels are resumable: many small chunks give the very same run
    (the kernels hold the state in locals and prefetch from a generator
    state running ahead; both are rebuilt from the arrays at every call)."""
    import crawlmath.numeric.colours._sim as cs

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
    from crawlmath.proofs.claims.buijsrogge._single_run import single_run_certainty

    return single_run_certainty(v, x, inside).certain


def test_single_run_certainty_cases():
    from crawlmath.proofs.claims.buijsrogge._single_run import _order_count, judge_single_run

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
    from crawlmath.proofs.claims.buijsrogge._single_run import TAIL

    from scipy.stats import norm

    rng = np.random.default_rng(17 + n)
    z = norm.ppf(1 - TAIL)
    wrong_out = wrong_in = 0
    for _ in range(20_000):
        x = rng.normal(0.0, 1.0, n)
        wrong_out += _certified(0.98 * z, x, False)
        wrong_in += _certified(1.02 * z, x, True)
    assert wrong_out <= 8 and wrong_in <= 8, (wrong_out, wrong_in)


_M64 = (1 << 64) - 1


def _python_alias(p):
    """Walker's alias table in plain Python (lists as stacks), the
    construction the numba ``alias_columns`` must reproduce bit for bit."""
    n = len(p)
    prob, alias = [0.0] * n, [0] * n
    scaled = [float(x) * n for x in p]
    small = [i for i in range(n) if scaled[i] < 1.0]
    large = [i for i in range(n) if scaled[i] >= 1.0]
    while small and large:
        s, g = small.pop(), large.pop()
        prob[s], alias[s] = scaled[s], g
        scaled[g] = scaled[g] + scaled[s] - 1.0
        (small if scaled[g] < 1.0 else large).append(g)
    for i in large + small:
        prob[i], alias[i] = 1.0, i
    return np.array(prob), np.array(alias, dtype=np.int64)


@pytest.mark.parametrize("p", [nc.colour_distribution("powerlaw", 5000, 0.9), nc.colour_distribution("uniform", 7),
                               np.array([0.5, 0.5, 0.0]), np.random.default_rng(2).dirichlet(np.full(300, 0.1))])
def test_alias_table_equals_plain_python_construction(p):
    from crawlmath.numeric.colours._sim import alias_table

    prob, alias = alias_table(p)
    want_prob, want_alias = _python_alias(p)
    assert prob.tobytes() == want_prob.tobytes() and np.array_equal(alias, want_alias)
    # Walker's invariant: column k keeps prob[k] / C of colour k and gives the rest to alias[k]
    mass = np.bincount(alias, weights=1.0 - prob, minlength=p.size) + prob
    np.testing.assert_allclose(mass / p.size, p, atol=1e-12)


def _reference_delta_run(p, K, total, seed, strategy, rule, every):
    """Plain-Python transcription of the δ-rule game (``mice-delta``: a queue
    per elephant; ``recommended``: one FIFO), with its own splitmix64 /
    xoshiro256** stream and alias draws from ``packed_table``: returns the
    records (t, S, P_new, P_offline, c, 1-q, m) and the source draws."""
    from collections import deque

    from crawlmath.numeric.colours._sim import packed_table

    table = [int(e) for e in packed_table(*_python_alias(p))]
    z, st = (seed + 0x9E3779B97F4A7C15) & _M64, []
    for _ in range(4):
        z = (z + 0x9E3779B97F4A7C15) & _M64
        x = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _M64
        st.append(x ^ (x >> 31))

    def rotl(x, k):
        return ((x << k) | (x >> (64 - k))) & _M64

    def nxt():
        out = (rotl((st[1] * 5) & _M64, 7) * 9) & _M64
        t = (st[1] << 17) & _M64
        st[2] ^= st[0]
        st[3] ^= st[1]
        st[1] ^= st[2]
        st[0] ^= st[3]
        st[2] ^= t
        st[3] = rotl(st[3], 45)
        return out

    def colour():
        x = nxt()
        k = ((x >> 32) * len(p)) >> 32
        return k if (x & 0xFFFFFFFF) < (table[k] & 0x1FFFFFFFF) else table[k] >> 33

    C = len(p)
    cnt, off, eleph = [0] * C, [0] * C, [False] * C
    present, avail, fifo = [], [], deque()
    mass = offmass = elmass = 0.0
    neleph = moves = draws = 0
    lastq = -1
    records = []
    for t in range(total):
        if t >= K:  # rule 1
            c = present[((nxt() & 0xFFFFFFFF) * len(present)) >> 32]
            cnt[c] -= 1
            if cnt[c] == 0:
                last = present.pop()
                if last != c:
                    present[present.index(c)] = last
                mass -= p[c]
                if strategy == "mice-delta" and off[c] > 0 and c not in avail:
                    avail.append(c)
        if strategy == "mice-delta" and avail:  # a queue of an elephant absent online
            c = avail[0]
            off[c] -= 1
            if off[c] == 0:
                offmass -= p[c]
            if c != lastq:
                moves, lastq = moves + 1, c
        elif strategy == "recommended" and fifo and cnt[fifo[0]] == 0:
            c = fifo.popleft()
            off[c] -= 1
            if off[c] == 0:
                offmass -= p[c]
        else:  # draw until a mouse; elephant balls go offline
            while True:
                c = colour()
                draws += 1
                if not eleph[c]:
                    break
                if off[c] == 0:
                    offmass += p[c]
                off[c] += 1
                if strategy == "recommended":
                    fifo.append(c)
                    continue
                if c != lastq:
                    moves, lastq = moves + 1, c
                if cnt[c] == 0 and c not in avail:
                    avail.append(c)
        if cnt[c] == 0:
            present.append(c)
            mass += p[c]
            if c in avail:  # the kernel's swap-removal keeps this order
                k = avail.index(c)
                last = avail.pop()
                if last != c:
                    avail[k] = last
        cnt[c] += 1
        if cnt[c] >= rule and not eleph[c]:
            eleph[c] = True
            neleph += 1
            elmass += p[c]
        if (t + 1) % every == 0:
            records.append((t + 1, len(present), 1.0 - mass, offmass, neleph, elmass, moves))
    return np.array(records), draws


@pytest.mark.parametrize("strategy,gamma,delta,strict,seed", [
    ("recommended", 0.9, 2, True, 5), ("recommended", 1.3, 1, False, 6),
    ("mice-delta", 0.9, 2, False, 7), ("mice-delta", 1.5, 1, True, 8)])
def test_delta_rule_kernel_equals_plain_python_transcription(strategy, gamma, delta, strict, seed):
    # Same seed, same stream: the numba kernel and the transcription must agree bit for bit.
    p = nc.colour_distribution("powerlaw", 20_000, gamma)  # mice remain: the run cannot exhaust them
    K, steps, every = 15, 2000, 100
    sim = simulate(p, K, steps, seed=seed, strategy=strategy, delta=delta, strict=strict, every=every)
    rec, draws = _reference_delta_run(p, K, K + steps, seed, strategy, delta + int(strict), every)
    got = np.column_stack([sim.times, sim.colours, sim.p_new, sim.p_offline, sim.elephant_counts,
                           sim.elephant_masses, sim.head_moves])
    assert sim.source_draws == draws
    assert rec[-1, 4] > 0 and rec[-1, 3] > 0  # elephants and offline balls occurred: the rules were exercised
    np.testing.assert_array_equal(got, rec)


def test_absent_mass_is_fsum():
    # free_mass is summed exactly by binary exponent; it must equal math.fsum (correctly rounded) exactly.
    from crawlmath.numeric.colours._sim import absent_mass

    rng = np.random.default_rng(3)
    p = rng.random(5000) ** 8
    p[:3] = (5e-324, 2.2250738585072014e-308, 0.0)  # subnormal, smallest normal, zero
    p /= p.sum()
    zero = np.zeros(p.size, np.int64)
    for absent in (np.ones(p.size, bool), rng.random(p.size) < 0.5, p > 1e-3):
        cnt = np.where(absent, 0, 1 + rng.integers(0, 3, p.size))
        off = np.where(absent | (rng.random(p.size) < 0.5), zero, 1)
        assert absent_mass(p, cnt, off) == math.fsum(p[(cnt == 0) & (off == 0)])
    assert absent_mass(p, np.ones(p.size, np.int64), zero) == 0.0


def test_runs_sharing_a_remembered_distribution_equal_runs_from_a_cold_start(monkeypatch):
    """simulate remembers the validated p, its alias table and the fresh colour records between runs; a run must not
    depend on that: the same seed gives the same run from a cold cache, from a list, and after p is changed in place
    (a changed array is seen as a new distribution, not served from the cache)."""
    from crawlmath.numeric.colours import _sim as cs

    p = np.arange(1.0, 401.0) ** -1.1
    p /= p.sum()

    def run(vec, strategy):
        r = simulate(vec, 20, 3000, seed=7, strategy=strategy, beta=4.0, every=100)
        return r.colours, r.p_new, r.elephant_counts, r.free_mass

    def same(a, b):
        return all(np.array_equal(u, v) for u, v in zip(a, b))

    for strategy in ("recommended", "mice"):
        cs._PREPARED.clear(), cs._RECENT.clear(), cs._TEMPLATES.clear()
        cold = run(p, strategy)
        assert same(run(p, strategy), cold) and same(run(list(p), strategy), cold)
        with monkeypatch.context() as m:  # records built directly, as for games above TEMPLATE_BYTES
            m.setattr(cs, "TEMPLATE_BYTES", 0)
            assert same(run(p, strategy), cold)
    q = p.copy()
    cs._PREPARED.clear(), cs._RECENT.clear(), cs._TEMPLATES.clear()
    uniform = run(np.full(400, 1 / 400), "mice")
    run(q, "mice")
    q[:] = 1 / 400  # same object, new content
    assert same(run(q, "mice"), uniform)
    q[0] = -1.0
    with pytest.raises(InvalidInput, match="p"):
        simulate(q, 20, 3000, seed=7)
