"""Issue 30 item 6: explicit model files read exactly, and the certified long-run averages.

Expected values come from closed forms derived here (M/M/1/3: π_k ∝ ρ^k) or
from an exact enumeration of the policies (admission MDP), never from the
code under test."""
from __future__ import annotations

import itertools
import json
import os
from fractions import Fraction
from pathlib import Path

import pytest

from crawlmath.numeric import markov
from crawlmath.numeric.markov import _explicit_io as E
from crawlmath.numeric.markov import _enclosure as ENC
from crawlmath.numeric.errors import InvalidInput, TooLarge

DATA = Path(__file__).parent / "data"
RHO = Fraction(3, 10)
PI_MM1K3 = [RHO ** k / sum(RHO ** j for j in range(4)) for k in range(4)]  # M/M/1/3, λ = 0.3, μ = 1


@pytest.mark.parametrize("name, extra", [("storm_mm1k3.drn", {}), ("mm1k3.json", {}),
                                         ("mm1k3.tra", {"srew": DATA / "mm1k3.srew", "lab": DATA / "mm1k3.lab"})])
def test_three_formats_give_the_same_exact_chain(name, extra):
    m = markov.read_model(DATA / name, **extra)
    assert m.kind == "ctmc" and m.n == 4
    rates = {(int(m.choice_state[c]), int(t)): v for c, t, v in zip(m.src, m.dst, m.value)}
    assert rates == {(0, 1): RHO, (1, 0): 1, (1, 2): RHO, (2, 1): 1, (2, 3): RHO, (3, 2): 1}
    assert all(type(v) is Fraction for v in rates.values())  # 0.3 is 3/10, not the double
    assert m.labels["full"].tolist() == [3]


@pytest.mark.parametrize("name, extra, reward", [
    ("storm_mm1k3.drn", {}, "busy"), ("mm1k3.json", {}, "busy"), ("mm1k3.tra", {"srew": DATA / "mm1k3.srew"}, None)])
def test_busy_fraction_to_40_digits_matches_the_closed_form(name, extra, reward):
    a = markov.chain_average(markov.read_model(DATA / name, **extra), reward, 40)
    exact = 1 - PI_MM1K3[0]
    assert a.bounds[0] <= exact <= a.bounds[1]
    assert abs(a.value - exact) <= exact / 10 ** 42
    assert abs(Fraction(a.text) - exact) <= Fraction(1, 10 ** 40)  # 40 significant digits of 0.29...


def _exact_gain(P: dict, cost: dict, n: int) -> Fraction:
    """g of a unichain DTMC by exact Gaussian elimination of π (P - I) = 0, Σ π = 1."""
    A = [[(P.get((j, i), 0) - (i == j)) for j in range(n)] + [0] for i in range(n)]
    A[-1] = [Fraction(1)] * n + [Fraction(1)]
    A = [[Fraction(x) for x in row] for row in A]
    for col in range(n):
        piv = next(r for r in range(col, n) if A[r][col] != 0)
        A[col], A[piv] = A[piv], A[col]
        for r in range(n):
            if r != col and A[r][col] != 0:
                f = A[r][col] / A[col][col]
                A[r] = [x - f * y for x, y in zip(A[r], A[col])]
    pi = [A[i][n] / A[i][i] for i in range(n)]
    return sum(p * cost[i] for i, p in enumerate(pi))


@pytest.mark.parametrize("name, extra", [("storm_admission.drn", {}),
                                         ("admission.tra", {"srew": DATA / "admission.srew",
                                                            "trew": DATA / "admission.trew"})])
def test_admission_mdp_optimum_matches_policy_enumeration(name, extra):
    m = markov.read_model(DATA / name, **extra)
    cost = m.reward_per_choice(None)
    choices = [[c for c in range(m.choice_state.size) if m.choice_state[c] == s] for s in range(m.n)]
    best = None
    for pick in itertools.product(*choices):
        P = {(s, int(t)): v for s, c in enumerate(pick) for k, (cc, t, v) in enumerate(zip(m.src, m.dst, m.value))
             if cc == c}
        g = _exact_gain(P, {s: cost[c] for s, c in enumerate(pick)}, m.n)
        best = g if best is None else min(best, g)
    r = markov.optimal_average(m, None, 30)
    assert best == Fraction(2, 3)  # holding n/3 plus 2 per rejection: the enumeration's optimum
    assert r.bounds[0] <= best <= r.bounds[1] and abs(r.average.value - best) <= best / 10 ** 32
    assert [m.choice_label[c] for c in r.policy] == ["acc", "acc", "rej"]


@pytest.mark.parametrize("text, rule, line", [
    ("1 : 3/10", "a CTMC rate must be >= 0", 12),
    ("!3/10", "the exit rate must equal the sum", 10),
    ("0 : 1\n", "expected 'state S", 16),
])
def test_bad_drn_lines_name_file_line_and_rule(text, rule, line):
    bad = {"1 : 3/10": E.DRN_EXAMPLE.replace("1 : 3/10", "1 : -3/10"),
           "!3/10": E.DRN_EXAMPLE.replace("!3/10", "!1/2"),
           "0 : 1\n": E.DRN_EXAMPLE + "garbage here\n"}[text]
    with pytest.raises(InvalidInput, match=rule) as exc:
        markov.parse_drn(bad, "m.drn")
    assert str(exc.value).startswith(f"m.drn:{line}:")


def test_probabilities_must_sum_to_exactly_one():
    tra = "2 3\n0 1 0.3333333333333333\n0 0 0.6666666666666666\n1 0 1\n"
    m = markov.parse_prism(tra, "p.tra")
    assert m.kind == "ctmc"  # a row that does not sum to 1 cannot be a DTMC: read as rates
    mdp = "2 2 3\n0 0 1 0.3333333333333333\n0 0 0 0.6666666666666666\n1 0 0 1\n"
    with pytest.raises(InvalidInput, match="sum to exactly 1") as exc:
        markov.parse_prism(mdp, "p.tra")
    assert str(exc.value).startswith("p.tra:2:")


def test_json_schema_violation_is_one_line_with_its_path():
    with pytest.raises(InvalidInput, match=r"\.transitions\[1\]"):
        markov.parse_json('{"type": "ctmc", "states": 2, "transitions": [[0, 1, 1], [1, "x", 1]]}', "t.json")
    with pytest.raises(InvalidInput, match="NaN and Infinity"):
        markov.parse_json('{"type": "ctmc", "states": 2, "transitions": [[0, 1, NaN]]}', "t.json")


def test_fifo_is_refused_before_reading(tmp_path):
    fifo = tmp_path / "m.drn"
    os.mkfifo(fifo)
    with pytest.raises(InvalidInput, match="regular file"):
        markov.read_model(fifo)  # would block forever if opened


def test_oversized_file_is_too_large_before_reading(tmp_path, monkeypatch):
    f = tmp_path / "m.drn"
    f.write_text(E.DRN_EXAMPLE)
    monkeypatch.setattr(E, "MAX_FILE_BYTES", 100)
    with pytest.raises(TooLarge, match="exceed the limit"):
        markov.read_model(f)


def test_two_closed_classes_are_refused():
    mdp = "3 1 2\n0 0 1 0.5\n0 0 2 0.5\n"  # states 1 and 2 of an MDP without any action
    with pytest.raises(InvalidInput, match="every state needs a choice"):
        markov.parse_prism(mdp, "c.tra")
    absorbing = markov.parse_prism("3 2\n0 1 1\n0 2 1\n", "c.tra")  # a CTMC state without rates is absorbing
    with pytest.raises(InvalidInput, match="single closed class"):
        markov.chain_average(markov.parse_prism("3 2\n0 1 1\n0 2 1\n", "c.tra", srew=("c.srew", "3 1\n0 1\n")), None, 10)
    assert absorbing.choice_state.size == 3
    tra = "4 4\n0 1 1\n1 0 1\n2 3 1\n3 2 1\n"
    with pytest.raises(InvalidInput, match="single closed class"):
        markov.chain_average(markov.parse_prism(tra, "c.tra", srew=("c.srew", "4 1\n0 1\n")), None, 10)


def test_bias_bounds_are_a_valid_enclosure_for_a_stiff_chain():
    # birth-death with rates spanning 1e-12..1: π_k spans 24 orders; the bounds must still contain g
    n = 5
    up, down = Fraction(1, 10 ** 6), Fraction(1)
    tra = f"{n} {2 * (n - 1)}\n" + "".join(f"{k} {k + 1} {up}\n{k + 1} {k} {down}\n" for k in range(n - 1))
    m = markov.parse_prism(tra, "b.tra", srew=("b.srew", f"{n} 1\n{n - 1} 1\n"))
    a = markov.chain_average(m, None, 30)
    exact = up ** (n - 1) / sum(up ** k for k in range(n))
    assert a.value == exact or abs(a.value - exact) <= exact / 10 ** 32
    assert a.bounds[0] <= exact <= a.bounds[1]


def test_storm_exact_export_round_trip(tmp_path):
    stormpy = pytest.importorskip("stormpy")
    import stormpy.developer as dev

    prog = tmp_path / "r.prism"
    prog.write_text("ctmc\nmodule r\n o : [0..6] init 0;\n s : [0..1] init 0;\n [] s=0 -> 0.6 : (s'=1);\n"
                    " [] s=0 & o>0 -> 0.35*o : (s'=1) & (o'=o-1);\n [] s=1 & o<6 -> 0.6 : (o'=o+1);\n"
                    " [] s=1 -> 1 : (s'=0);\nendmodule\nrewards \"orbit\"\n true : o;\nendrewards\n")
    program = stormpy.parse_prism_program(str(prog), prism_compatibility=True)
    props = stormpy.parse_properties('R{"orbit"}=? [ LRA ]', program)
    model = stormpy.build_model[stormpy.Rational](program, props)
    storm = Fraction(str(stormpy.model_checking(model, props[0], environment=stormpy.environments.exact())
                         .get_value(model.initial_states[0])))
    dev.export_sparse_model_as_drn(model, str(tmp_path / "r.drn"), dev.DirectEncodingExporterOptions())
    a = markov.chain_average(markov.read_model(tmp_path / "r.drn"), "orbit", 30)
    assert a.bounds[0] <= storm <= a.bounds[1] and abs(a.value - storm) <= storm / 10 ** 32


def test_probabilities_far_below_float64_are_refined_to_every_digit():
    # birth-death, up 1/1000, down 1, 300 states: π_k ∝ 10^-3k reaches 1e-897, far below the float64 range
    n, rho = 300, Fraction(1, 1000)
    tra = f"{n} {2 * (n - 1)}\n" + "".join(f"{k} {k + 1} 0.001\n{k + 1} {k} 1\n" for k in range(n - 1))
    m = markov.parse_prism(tra, "deep.tra", srew=("top.srew", f"{n} 1\n{n - 1} 1\n"))
    a = markov.chain_average(m, None, 30)
    exact = rho ** (n - 1) * (1 - rho) / (1 - rho ** n)  # π of the top state
    assert a.bounds[0] <= exact <= a.bounds[1] and abs(a.value - exact) <= exact / 10 ** 32
    assert a.text.endswith("e-898") and abs(Fraction(a.text) - exact) <= exact / 10 ** 29  # 30 digits, scientific


def test_dtmc_average_is_per_step():
    # P = [[0.9, 0.1], [0.5, 0.5]]: π = (5/6, 1/6); reward 1 in state 1 -> 1/6 per step
    m = markov.parse_json('{"type": "dtmc", "states": 2, "transitions": [[0, 0, 0.9], [0, 1, 0.1], [1, 0, "1/2"], '
                     '[1, 1, 0.5]], "state_rewards": {"r": [[1, 1]]}}', "d.json")
    a = markov.chain_average(m, "r", 25)
    assert m.kind == "dtmc" and a.bounds[0] <= Fraction(1, 6) <= a.bounds[1]
    assert a.text == "0.1666666666666666666666667"


def test_label_as_reward_is_its_long_run_probability():
    m = markov.read_model(DATA / "mm1k3.tra", lab=DATA / "mm1k3.lab")
    a = markov.chain_average(m, "full", 30)
    assert a.bounds[0] <= PI_MM1K3[3] <= a.bounds[1]
    with pytest.raises(InvalidInput, match="no such reward model or label"):
        markov.chain_average(m, "empty", 30)


def test_ball_enclosure_contains_the_exact_law_and_rejects_a_perturbed_one():
    n, rho = 300, Fraction(1, 1000)
    tra = f"{n} {2 * (n - 1)}\n" + "".join(f"{k} {k + 1} 0.001\n{k + 1} {k} 1\n" for k in range(n - 1))
    _, chain, (mass, _) = markov.chain_averages(markov.parse_prism(tra, "deep.tra"), [], 30)
    balls = markov.stationary_enclosure(chain, 30)
    exact = [rho ** k * (1 - rho) / (1 - rho ** n) for k in range(n)]
    from flint import arb, ctx, fmpq

    old = ctx.prec
    ctx.prec = 400
    try:
        assert all(b.contains(fmpq(e.numerator, e.denominator)) for b, e in zip(balls, exact))
    finally:
        ctx.prec = old
    assert markov.agrees_with_enclosure(mass, balls, 30)
    bent = mass.copy()
    bent[-1] = bent[-1] + bent[-1] // 10 ** 26  # π_299 off by 1e-26 relative
    assert not markov.agrees_with_enclosure(bent, balls, 30)


def tandem_drn(K: int) -> str:
    """The K x K tandem queue of benchmarks/pi_enclosure.py as Storm DRN text (written once, there)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("crawlmath_benchmark_pi_enclosure",
                                                  Path(__file__).resolve().parent.parent / "benchmarks" / "pi_enclosure.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.tandem_drn(K)


def _assert_balls_contain_exact_law(chain, balls, narrower_than=None):
    """π of ``chain`` solved independently in exact rationals (fmpq_mat: Qᵀπ = 0 with Σπ = 1, the rates read
    back from the chain's integer weights) lies in every ball; each ball narrower than 10^-narrower_than relative."""
    from flint import arb, ctx, fmpq, fmpq_mat

    n = chain.n
    A = fmpq_mat(n, n)
    for s, t, w in zip(chain.src, chain.dst, chain.weight):
        q = fmpq(int(w), chain.scale)
        A[int(t), int(s)] += q
        A[int(s), int(s)] -= q
    for j in range(n):
        A[n - 1, j] = 1
    b = fmpq_mat(n, 1)
    b[n - 1, 0] = 1
    exact = A.solve(b)
    old = ctx.prec
    ctx.prec = 400
    try:
        assert all(balls[i].contains(exact[i, 0]) for i in range(n))
        if narrower_than is not None:
            assert all(x.rad() < x.mid() * arb(10) ** -narrower_than for x in balls)
    finally:
        ctx.prec = old


def test_block_enclosure_of_a_two_dimensional_chain_contains_the_exact_rational_law():
    """Levels of up to 7 states (a + b = const): the block elimination's balls contain π solved independently
    in exact rationals (fmpq_mat, Qᵀπ = 0 with Σπ = 1), each narrower than 10^-32 relative."""

    m = markov.parse_drn(tandem_drn(6), "tandem6.drn")
    _, chain, (mass, _) = markov.chain_averages(m, [], 30)
    balls = markov.stationary_enclosure(chain, 30)
    _assert_balls_contain_exact_law(chain, balls, narrower_than=32)
    assert markov.agrees_with_enclosure(mass, balls, 30)


def test_tandem_pi_is_certified_by_two_routes_at_thousands_of_states(capsys, tmp_path):
    """5041 states (K = 70; K = 100, 10^4 states, is timed by benchmarks/pi_enclosure.py):
    beyond the exact-rational check, the refined π must agree with the ball-arithmetic block elimination, and the
    printed 30-digit π satisfies every balance equation Σ_i π_i q_ij = π_j q_j to 10^-29 relative."""
    from crawlmath.cli import main

    K = 70
    path = tmp_path / "tandem70.drn"
    path.write_text(tandem_drn(K))
    code = main(["ctmc", str(path), "--digits", "30", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert code == 0 and d["pi_certified"] and "ball arithmetic" in d["pi_method"]
    pi = [Fraction(p) for p in d["pi"]]
    idx = lambda a, b: a * (K + 1) + b  # noqa: E731
    inflow, outflow = [Fraction(0)] * len(pi), [Fraction(0)] * len(pi)
    for a in range(K + 1):
        for b in range(K + 1):
            s = idx(a, b)
            for t, q in ((idx(a + 1, b), Fraction(9, 10)) if a < K else (None, 0),
                         (idx(a - 1, b + 1), Fraction(13, 10)) if a and b < K else (None, 0),
                         (idx(a, b - 1), Fraction(11, 10)) if b else (None, 0)):
                if t is not None:
                    inflow[t] += pi[s] * q
                    outflow[s] += pi[s] * q
    assert all(abs(i - o) <= o / 10 ** 29 for i, o in zip(inflow, outflow))
    assert abs(sum(pi) - 1) <= Fraction(1, 10 ** 29)


def test_pi_beyond_both_caps_says_one_route_only(capsys, tmp_path, monkeypatch):
    """Past the exact check and the enclosure's work cap, π keeps its refined digits but is not called certified."""
    import crawlmath.commands.ctmc as C
    from crawlmath.cli import main

    monkeypatch.setattr(C, "PI_EXACT_MAX", 2)
    monkeypatch.setattr(ENC, "ENCLOSURE_MAX_WORK", 1)
    path = tmp_path / "tandem3.drn"
    path.write_text(tandem_drn(3))
    assert main(["ctmc", str(path), "--digits", "20", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert not d["pi_certified"] and "one route only" in d["pi_method"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_block_enclosure_of_random_sparse_chains_contains_the_exact_law(seed):
    """Any chain, not only a grid: random rates on a random strongly connected graph (a cycle plus random arcs, so
    the breadth-first levels have irregular sizes); the balls contain π solved in exact rationals (fmpq_mat)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n = 40
    arcs = {(k, (k + 1) % n) for k in range(n)} | {tuple(map(int, rng.choice(n, 2, replace=False))) for _ in range(80)}
    rates = {a: Fraction(int(rng.integers(1, 1000)), int(rng.integers(1, 1000))) for a in arcs}
    src, dst = zip(*rates)
    chain = markov.integer_chain(n, src, dst, list(rates.values()), [0] * n)
    _assert_balls_contain_exact_law(chain, markov.stationary_enclosure(chain, 30))
