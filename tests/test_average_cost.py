"""The float route of `average_cost_mdp` (the one policy iteration, `optimal_policy`, on the one evaluator,
`numeric.linalg.PolicySystem`):
per-state ties, refined bias, rigorous bounds on the optimal gain, and the refusal
when they do not give one digit; `sparse_refine.float_policy` on the same evaluator."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sps

from crawlmath.cli import main
from crawlmath.numeric import markov
from crawlmath.numeric.linalg import PolicySystem, closed_classes
from crawlmath.numeric.markov import _average_cost as AC
from crawlmath.numeric.markov import _sparse_refine as R
from crawlmath.numeric.markov import average_cost_mdp
from crawlmath.numeric.errors import SolverError


def admission(K: int):
    """benchmarks/storm_exact.py's admission MDP as arrays: arrivals 0.4, service 0.5, states 0..K;
    action 0 admits (not at K), action 1 rejects at cost 3; holding cost n/4 per step."""
    n = np.arange(K + 1)

    def law(up):
        rows = np.concatenate([n, n, n])
        cols = np.concatenate([up, np.maximum(n - 1, 0), n])
        p = np.concatenate([np.full(K + 1, 0.4), np.full(K + 1, 0.5), np.full(K + 1, 0.1)])
        return sps.csr_matrix((p, (rows, cols)), shape=(K + 1, K + 1))

    c = np.column_stack([n / 4, n / 4 + 3.0])
    c[K, 0] = np.inf
    return [law(np.minimum(n + 1, K)), law(n)], c


@pytest.fixture(scope="module")
def exact_admission_gain():
    """The optimal gain of the admission MDP by the exact route (fmpq policy iteration and
    mpmath GTH), at K = 60: admit below 5, so the recurrent class {0..5} is far from the buffer."""
    r = average_cost_mdp(*admission(60), digits=30)
    assert r.policy.tolist()[:7] == [0, 0, 0, 0, 0, 1, 1] and r.error_bound == 0
    return r.gain_exact, r.policy


def test_float_route_delivers_the_10k_state_admission_mdp(exact_admission_gain):
    """It was refused ("optimality equations violated by 0.0123"): the tie 1e-9 x max|Q| (h reaches
    2.5e7 at the buffer end) hid the improvement 0.0123 at state 5, policy iteration stopped one
    threshold off (g 0.73463).  Now: the exact optimum's policy and gain, inside rigorous bounds."""
    gain, policy = exact_admission_gain
    s = average_cost_mdp(*admission(9999))
    assert s.policy[:61].tolist() == policy.tolist()[:61] and (s.policy[61:] == 1).all()
    lo, hi = s.gain_bounds
    assert Fraction(lo) <= gain <= Fraction(hi)
    assert s.error_bound == max(s.gain - lo, hi - s.gain) and s.error_bound < 1e-10
    assert abs(Fraction(s.gain) - gain) < Fraction(1, 10 ** 15)
    assert s.residual < 1e-12  # the refined (double-double) bias: a single float64 h resolves 2.5e7 to 4e-9 only


def test_bounds_contain_the_optimum_when_a_tie_hides_an_improvement():
    """State 0 chooses state 1 (cost 1) or state 2 (cost 1 - 1e-7) after paying 1000: the 1e-7
    improvement is below the per-state tie (1e-9 x ~1500), so the policy keeps state 1, and the
    lower bound min_{s,a} (c + P h - h) = g - 1e-7 reports the gap: the optimum 500.49999995 is inside."""
    P = [np.array([[0, 1, 0], [1, 0, 0], [1, 0, 0.0]]), np.array([[0, 0, 1], [1, 0, 0], [1, 0, 0.0]])]
    c = np.array([[1000.0, 1000.0], [1.0, np.inf], [1 - 1e-7, np.inf]])
    s = average_cost_mdp(P, c)
    assert s.policy[0] == 0 and s.gain == pytest.approx(500.5, rel=1e-15)
    lo, hi = s.gain_bounds
    optimum = (Fraction(1000) + Fraction(1 - 1e-7)) / 2  # the float MDP's costs, exactly
    assert Fraction(lo) <= optimum <= Fraction(hi) < Fraction(s.gain) + Fraction(1, 10 ** 11)
    assert 0.99e-7 < s.error_bound < 1.01e-7 and s.residual == pytest.approx(1e-7, rel=1e-5)  # the gap, reported


def test_multichain_transient_states_take_their_class_gains():
    """A transient start 0 that moves to absorbing 1 (cost 1) or 2 (cost 2) with probability 1/2
    each, or stays (cost 5): gains 1.5, 1, 2, no single gain, no bounds."""
    P = [np.array([[0, 0.5, 0.5], [0, 1, 0], [0, 0, 1.0]]), np.array([[1.0, 0, 0], [0, 1, 0], [0, 0, 1]])]
    c = np.array([[0.0, 5.0], [1.0, np.inf], [2.0, np.inf]])
    s = average_cost_mdp(P, c)
    assert s.gain is None and s.gain_bounds is None and s.error_bound is None
    assert s.g.tolist() == pytest.approx([1.5, 1.0, 2.0], rel=1e-15) and s.policy[0] == 0


def test_refused_when_the_bounds_give_no_digit(monkeypatch, capsys, tmp_path):
    """The refusal path (a rounding bound as wide as the gain stands in for a failed float solve):
    SolverError with the bounds and the measured residual; the CLI exits 3 with one line."""
    monkeypatch.setattr(AC, "_rounding_bound", lambda k, mag, sigma: mag + 1.0)
    with pytest.raises(SolverError, match=r"only within .*optimality residual"):
        average_cost_mdp(*admission(20))
    code = main(["avg-cost", "tests/data/storm_admission.drn"])
    err = capsys.readouterr().err
    assert code == 3 and err.count("\n") == 1 and "optimality residual" in err


@pytest.mark.parametrize("name, extra", [("storm_admission.drn", {}),
                                         ("admission.tra", {"srew": "tests/data/admission.srew",
                                                            "trew": "tests/data/admission.trew"})])
def test_float_policy_is_average_cost_mdps_policy(name, extra):
    m = markov.read_model(f"tests/data/{name}", **extra)
    cost = m.reward_per_choice(None)
    P, c, rank = markov.float_mdp(m, cost)
    s = average_cost_mdp(P, c)
    choice = R.float_policy(m, cost)
    assert choice.tolist() == markov.policy_choices(m, rank, s.policy).tolist()
    assert [m.choice_label[k] for k in choice] == ["acc", "acc", "rej"]
    assert Fraction(s.gain_bounds[0]) <= Fraction(2, 3) <= Fraction(s.gain_bounds[1])


def test_float_policy_refuses_a_multichain_policy_on_its_way():
    """The exact stage's start keeps its rule: every policy met must be unichain.  Here the cheapest
    actions (the start) make states 0 and 1 absorbing."""
    m = markov.parse_json('{"type": "mdp", "states": 2, "transitions": [[0, 0, 0, 1], [0, 1, 1, 1], [1, 0, 1, 1], '
                     '[1, 1, 0, 1]], "choice_rewards": {"c": [[0, 0, 1], [0, 1, 2], [1, 0, 1], [1, 1, 2]]}}')
    with pytest.raises(SolverError, match="2 recurrent classes"):
        R.float_policy(m, m.reward_per_choice("c"))
    s = average_cost_mdp(*markov.float_mdp(m, m.reward_per_choice("c"))[:2])  # the general route accepts it
    assert s.gain == 1.0 and s.policy.tolist() == [0, 0]


@pytest.mark.parametrize("seed", range(8))
def test_one_evaluator_dense_and_sparse_solve_the_evaluation_equations(seed):
    """numeric.linalg.PolicySystem, the evaluator both policy iterations use: its classes are the closed classes
    (as sets, listed by first state), and its dense path (the crawler's) and all-SuperLU path (average_cost_mdp's,
    dense_max=0) both solve g = P g, g + h = c + P h with h = 0 at each class's first state."""
    rng = np.random.default_rng(seed)
    S = int(rng.integers(5, 80))
    P = sps.random(S, S, density=3 / S, random_state=rng, format="lil")
    for s in rng.choice(S, size=max(1, S // 10), replace=False):  # absorbing states: several closed classes
        P[s, :] = 0
        P[s, s] = 1.0
    P = sps.csr_matrix(P) + sps.diags((np.asarray(P.sum(axis=1)).ravel() == 0).astype(float))
    P = sps.csr_matrix(sps.diags(1 / np.asarray(P.sum(axis=1)).ravel()) @ P)
    c = rng.uniform(0, 5, S)
    expected = sorted((C.tolist() for C in closed_classes(P)), key=lambda C: C[0])
    results = []
    for dense_max in (None, 0):
        system = PolicySystem(P, dense_max=dense_max)
        assert [C.tolist() for C in system.classes] == expected
        g, h = system.solve(np.zeros(S), c)
        scale = max(1.0, float(np.abs(h).max()))
        assert np.abs(P @ g - g).max() <= 1e-12 * max(1.0, float(np.abs(g).max()))
        assert np.abs(c + P @ h - g - h).max() <= 1e-12 * scale
        assert all(h[C[0]] == 0.0 for C in system.classes)
        results.append(g)
    assert np.abs(results[0] - results[1]).max() <= 1e-10 * max(1.0, float(np.abs(results[1]).max()))
