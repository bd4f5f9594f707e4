"""The generic reference-value routines (`ctmc_stationary`, `average_cost_mdp`)
against crawlmath's model-specific solvers and against exact answers."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sps

from crawlmath.numeric import mdp as M
from crawlmath.numeric.markov import average_cost_mdp, ctmc_stationary
from crawlmath.numeric.errors import InvalidInput, SolverError, TooLarge


def crawler_instance(lam=0.1, K=5, N=16, gamma=1.0):
    mdp = M.CrawlerMDP(lam, 1.0, K, N, gamma)
    c = np.column_stack([np.where(mdp.allowed[:, a], mdp.cost, np.inf) for a in (0, 1)])
    return mdp, list(mdp.P), c


def test_average_cost_matches_the_crawler_solver_fig_1_5():
    mdp, P, c = crawler_instance()
    ours = average_cost_mdp(P, c)
    theirs = M.solve(mdp)
    assert ours.gain == pytest.approx(theirs.gain, rel=1e-12)
    assert ours.residual < 1e-10
    assert ours.stationary.sum() == pytest.approx(1.0)


def test_average_cost_digits_matches_the_crawler_high_precision_route():
    mdp, P, c = crawler_instance(K=3, N=6)
    ours = average_cost_mdp(P, c, digits=30)
    sol = M.solve(mdp)
    hp = M.gain_hp(mdp, sol.policy, dps=40)
    assert ours.digits >= 30 and len(ours.gain_text.lstrip("0.")) >= 30
    # gain_hp reads λ, μ, γ as exact decimals, ours the binary floats of P: they agree to float precision
    assert float(ours.gain_text) == pytest.approx(float(hp.gain), rel=1e-14)


def test_mm1k_stationary_law_is_geometric_exactly():
    lam, mu, K = 1.0, 3.0, 12
    Q = np.diag([lam] * K, 1) + np.diag([mu] * K, -1)
    Q -= np.diag(Q.sum(axis=1))
    r = ctmc_stationary(Q, digits=40)
    rho = Fraction(1, 3)
    exact = [rho**k * (1 - rho) / (1 - rho ** (K + 1)) for k in range(K + 1)]
    for text, e in zip(r.pi_text, exact):
        assert abs(Fraction(text) - e) <= Fraction(1, 10**38) * e


def test_tiny_probabilities_keep_relative_accuracy_in_float():
    """GTH subtracts nothing: a birth-death chain with π_K ≈ 1e-200."""
    K = 100
    Q = np.diag([1e-2] * K, 1) + np.diag([1.0] * K, -1)
    Q -= np.diag(Q.sum(axis=1))
    pi = ctmc_stationary(Q).pi
    assert pi[-1] / pi[-2] == pytest.approx(1e-2, rel=1e-13)


def test_sparse_and_dense_agree():
    rng = np.random.default_rng(3)
    n = 60
    A = rng.random((n, n)) * (rng.random((n, n)) < 0.2)
    A[np.arange(n), (np.arange(n) + 1) % n] += 0.5
    np.fill_diagonal(A, 0.0)
    Q = A - np.diag(A.sum(axis=1))
    assert np.allclose(ctmc_stationary(Q).pi, ctmc_stationary(sps.csr_matrix(Q)).pi, rtol=1e-12, atol=0)


@pytest.mark.parametrize("Q, rule", [
    ([[-1.0, 1.0], [1.0, -2.0]], "rows must sum to 0"),
    ([[-1.0, 1.0], [-1.0, 1.0]], "off-diagonal"),
    ([[-1.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 1.0, -1.0]], "closed class"),
    ([[np.nan, 0.0], [0.0, 0.0]], "finite"),
])
def test_bad_generators_are_refused_naming_the_rule(Q, rule):
    with pytest.raises(InvalidInput, match=rule):
        ctmc_stationary(np.array(Q))


def test_high_precision_size_is_capped_before_work():
    n = 500
    Q = np.diag(np.ones(n - 1), 1) + np.diag(np.ones(n - 1), -1)
    Q -= np.diag(Q.sum(axis=1))
    with pytest.raises(TooLarge):
        ctmc_stationary(Q, digits=30)


def test_multichain_mdp_returns_state_dependent_gain():
    # two absorbing states with costs 1 and 2, a start state choosing between them
    P = [np.array([[0, 1, 0], [0, 1, 0], [0, 0, 1.0]]), np.array([[0, 0, 1.0], [0, 1, 0], [0, 0, 1]])]
    c = np.array([[0.0, 0.0], [1.0, np.inf], [2.0, np.inf]])
    s = average_cost_mdp(P, c)
    assert s.gain is None
    assert s.g.tolist() == [1.0, 1.0, 2.0]
    assert s.policy[0] == 0
    with pytest.raises(SolverError, match="unichain"):
        average_cost_mdp(P, c, digits=20)


@pytest.mark.parametrize("P, c, arg", [
    ([np.eye(2)], np.array([[1.0, 2.0], [1.0, 2.0]]), "P"),
    ([np.eye(2), np.eye(3)], np.ones((2, 2)), "P[1]"),
    ([np.eye(2), 0.5 * np.eye(2)], np.ones((2, 2)), "P[1]"),
    ([np.eye(2), np.eye(2)], np.array([[np.inf, np.inf], [1.0, 1.0]]), "c"),
    ([np.eye(2), np.eye(2)], np.array([[np.nan, 1.0], [1.0, 1.0]]), "c"),
])
def test_bad_mdps_are_refused_naming_the_argument(P, c, arg):
    with pytest.raises(InvalidInput) as e:
        average_cost_mdp(P, c)
    assert str(e.value).startswith(arg)


def test_ctmc_stationary_matches_the_bmap_solver_on_the_papers_example():
    """The generic routine against the Avrachenkov model's own sparse solver (K = 4, full chain)."""
    from crawlmath.numeric import bmap as bm
    from crawlmath.numeric.bmap import load_model

    model = load_model("avrachenkov-example.json", K=4, reduce=False)
    levels = model.check_policy(bm.Policy((3, 1), (2,)))
    Q = bm.generator_kronecker(model, levels)
    ours = ctmc_stationary(Q)
    theirs = np.concatenate(bm.solve_sparse_direct(model, levels, Q).p)
    assert np.allclose(ours.pi, theirs, rtol=1e-10, atol=1e-15)
    hp = ctmc_stationary(Q, digits=20)
    assert np.allclose(hp.pi, theirs, rtol=1e-10, atol=1e-15)
