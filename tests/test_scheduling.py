"""Crawler scheduling (Coffman–Liu–Weber): solvers, policies, CLI."""
import json

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from crawlmath.numeric import scheduling as s
from crawlmath.numeric.scheduling import Deterministic, Exponential, Gamma, HyperExponential, Uniform
from crawlmath.numeric.errors import InvalidInput, TooLarge
from crawlmath.numeric.tolerance import LEVEL_NEWTON_STEP_REL

LAWS = [Deterministic(1.0), Exponential(1.0), Gamma(2.0, 2.0), Uniform(0.2, 1.8), HyperExponential((0.3, 0.7), (0.4, 2.8))]

rates_st = st.lists(st.floats(0.05, 4.0), min_size=1, max_size=6)
law_st = st.sampled_from(LAWS)


@settings(max_examples=40, deadline=None)
@given(rates_st, law_st, st.data())
def test_any_cyclic_schedule_costs_at_least_cstar(rates, X, data):
    p = s.make_problem(rates, X)
    N = len(rates)
    extra = data.draw(st.lists(st.integers(0, N - 1), max_size=12))
    seq = np.array(list(range(N)) + extra)
    seq = seq[np.array(data.draw(st.permutations(range(seq.size))))]
    lb = s.optimal_frequencies(p)
    assert s.cyclic_cost(seq, p).cost >= lb.lower_bound * (1 - 1e-12)


@settings(max_examples=40, deadline=None)
@given(rates_st, law_st)
def test_randomized_optimum_at_least_cstar(rates, X):
    p = s.make_problem(rates, X)
    assert s.randomized_optimal(p).lower_bound >= s.optimal_frequencies(p).lower_bound * (1 - 1e-12)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0.05, 1.0), min_size=1, max_size=12), st.integers(10, 20))
def test_golden_schedule_realises_counts(w, k):
    x = np.array(w) / sum(w)
    if (s.apportion(x, s.fibonacci(k)) == 0).any():  # a page with no access per cycle is refused
        with pytest.raises(InvalidInput):
            s.golden_schedule(x, k)
        return
    sch = s.golden_schedule(x, k)
    assert sch.sequence.size == sch.F == s.fibonacci(k)
    assert np.array_equal(np.bincount(sch.sequence, minlength=x.size), sch.counts)
    assert np.all(sch.counts >= np.floor(x * sch.F)) and np.all(sch.counts <= np.ceil(x * sch.F))


def test_golden_example_of_liu_nain():
    assert (s.golden_sequence([2, 3, 3, 5]) + 1).tolist() == [4, 2, 4, 1, 3, 4, 2, 4, 1, 3, 4, 2, 3]
    assert s.fibonacci(7) == 13


def test_golden_integer_keys_match_float_order():
    M = [5, 8, 13, 7, 11]
    F = sum(M)
    j = np.arange(1, F + 1)
    owner = np.repeat(np.arange(5), M)
    assert np.array_equal(owner[np.argsort((j / s.PHI) % 1.0)], s.golden_sequence(M))


def test_golden_distances_use_corrected_bracket():
    x = np.array([0.3, 0.2, 0.1, 0.05, 0.35])
    sch = s.golden_schedule(x, 22)
    pg, d = s.interaccess_distances(sch.sequence, 5)
    for i in range(5):
        j = s.golden_bracket(sch.counts[i] / sch.F)
        assert set(np.unique(d[pg == i])) <= {s.fibonacci(j), s.fibonacci(j + 1), s.fibonacci(j + 2)}


def test_printed_golden_index_readings():
    """Issue 32 item 8: ceil(ln_phi f) with ln_phi to the base phi^-1 is the bracket (PASS); floor under either base,
    or an index one off, is not (the check can fail)."""
    import math

    from crawlmath.proofs.claims.coffman import golden_policy as cg

    f = np.linspace(0.001, 0.999, 997)
    assert all(math.ceil(cg._log(v, 1 / s.PHI)) == s.golden_bracket(v) for v in f)
    assert cg._judge_index("ceil, base phi^-1", math.ceil).status.value == "PASS"
    assert cg._judge_index("floor", math.floor).status.value == "ERRATUM"
    assert cg._judge_index("ceil + 2", lambda y: math.ceil(y) + 2).status.value != "PASS"


def test_closed_form_and_kkt_agree_when_weights_proportional():
    p = s.make_problem([0.3, 1.0, 2.5], Gamma(2.0, 2.0), [0.6, 2.0, 5.0])  # c0 = 2
    a = s.optimal_frequencies(p)
    q = s.make_problem([0.3, 1.0, 2.5], Gamma(2.0, 2.0), [0.6, 2.0, 5.0 * (1 + 1e-7)])  # forces the KKT route
    b = s.optimal_frequencies(q)
    assert a.method.startswith("closed") and b.method.startswith("KKT")
    assert np.allclose(a.frequencies, b.frequencies, atol=1e-6) and abs(a.lower_bound - b.lower_bound) < 1e-5
    assert a.residual < 1e-12 and b.residual < 1e-9


def test_cyclic_cost_matches_simulation():
    p = s.make_problem([0.4, 1.0, 2.0], Exponential(1.0))
    seq = s.golden_schedule(s.optimal_frequencies(p).frequencies, 9).sequence
    ex = s.cyclic_cost(seq, p)
    sim = s.simulate(seq, p, 3000, seed=3, batches=30)
    assert np.all(np.abs(sim.rates - ex.rates) <= 5 * sim.rates_stderr)


def test_golden_limit_formula_matches_exact_cost():
    p = s.make_problem([0.2, 0.5, 1.0, 3.0], Deterministic(1.0))
    lim = s.golden_limit_cost(p)
    exact = s.cyclic_cost(s.golden_schedule(s.optimal_frequencies(p).frequencies, 25).sequence, p).cost
    assert abs(lim - exact) < 1e-5 * lim


def test_H_limit_and_certificate():
    assert abs(float(s.H(1e-7)) - 2 * s.PHI**2 / 5) < 1e-6
    assert float(s.H(1.0)) < float(s.H(0.5))
    cert = s.certify_H_decreasing()
    assert cert.proved and cert.tail_margin > 0


@pytest.mark.parametrize("kwargs,arg", [
    (dict(rates=[1.0, -1.0]), "rates"),
    (dict(rates=[1.0, 2.0], weights=[1.0]), "weights"),
    (dict(rates=[1.0, 2.0], weights=[1.0, 0.0]), "weights"),
    (dict(rates=[]), "rates"),
])
def test_make_problem_validation(kwargs, arg):
    with pytest.raises(InvalidInput) as e:
        s.make_problem(kwargs["rates"], Exponential(1.0), kwargs.get("weights"))
    assert e.value.argument == arg


def test_sequence_validation():
    p = s.make_problem([1.0, 2.0], Exponential(1.0))
    with pytest.raises(InvalidInput, match="every page"):
        s.cyclic_cost([0, 0], p)
    with pytest.raises(InvalidInput, match="page indices"):
        s.cyclic_cost([0, 2], p)
    with pytest.raises(TooLarge):
        s.golden_schedule([0.5, 0.5], 60)


def test_cli_json_keys_and_errors(capsys):
    from crawlmath.cli import main

    assert main(["schedule", "--rates", "0.5,1,2", "--access", "exp:1", "--policy", "golden", "--k", "9", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"frequencies", "lower_bound", "cost", "policy", "sequence"} <= set(out)
    assert out["cost"] >= out["lower_bound"] and len(out["sequence"]) == 34
    for bad in (["--rates", "0,1", "--access", "exp:1"], ["--rates", "1,2", "--weights", "1", "--access", "exp:1"],
                ["--rates", "1,2", "--access", "gamma:1"]):
        assert main(["schedule", *bad]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and err.startswith("crawlmath: error:")


def _per_page_reference(p):
    """The KKT system (8)-(9) solved the plain way: for each page, Brent on
    (8) itself (the generated stationarity in x, not its level form), then
    Brent on the multiplier for sum x_i = 1."""
    from scipy import optimize

    from crawlmath.numeric.generated import scheduling as gen

    def x_page(i, lam):
        if lam >= p.weights[i] * p.nu / p.rates[i]:
            return 0.0  # (8) at x -> 0+ is lambda - c nu/mu >= 0: the page is left out
        g = lambda v: float(gen.lagrangian_stationarity(v, p.h[i], p.weights[i], p.rates[i], p.nu, lam))  # noqa: E731
        lo, hi = 1e-300, 1.0
        while g(hi) < 0:
            hi *= 2
        return optimize.brentq(g, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps)

    def total(s):
        return sum(x_page(i, np.exp(s)) for i in range(p.N)) - 1.0

    top = float(np.log(np.max(p.weights * p.nu / p.rates)))
    lo = top - 1
    while total(lo) < 0:
        lo -= 5
    s = optimize.brentq(total, lo, top, xtol=1e-15, rtol=4 * np.finfo(float).eps)
    x = np.array([x_page(i, np.exp(s)) for i in range(p.N)])
    return x / x.sum(), np.exp(s)


@pytest.mark.parametrize("X", LAWS[:3] + LAWS[4:], ids=lambda X: type(X).__name__)
def test_vectorised_kkt_matches_per_page_reference(X):
    rng = np.random.default_rng(7)
    mu = np.exp(rng.uniform(-4.0, -1.0, 25))
    c = mu * np.exp(rng.normal(0.0, 0.8, 25))  # general weights: c_i / mu_i spans about 2 decades; 7 to 10 pages left out
    p = s.make_problem(mu, X, c)
    res = s.optimal_frequencies(p)
    x_ref, lam_ref = _per_page_reference(p)
    assert res.method.startswith("KKT") and 0 < np.count_nonzero(res.frequencies) < p.N  # some pages left out
    assert np.array_equal(res.frequencies > 0, x_ref > 0)
    assert np.max(np.abs(res.frequencies - x_ref)) <= 1e-10
    assert abs(res.multiplier - lam_ref) <= 1e-10 * lam_ref
    assert abs(res.lower_bound - s.lower_bound_objective(p, x_ref)) <= 1e-10 * res.lower_bound


def test_level_root_against_mpmath():
    import mpmath

    from crawlmath.numeric.scheduling import _kernels as kern

    ts = np.concatenate([10.0 ** np.linspace(-320, -0.7, 120), np.linspace(0.2, 0.99, 60), 1 - 10.0 ** np.linspace(-1, -15.5, 60),
                         [kern.SMALL_LEVEL, np.nextafter(kern.SMALL_LEVEL, 1.0), 5e-324]])
    with mpmath.workdps(40):
        for t in ts:
            u, growth = kern.level_root(float(t), kern.R_SERIES, LEVEL_NEWTON_STEP_REL)
            v = mpmath.mpf(u)
            for _ in range(50):  # Newton on P(2, v) = t in 40 digits from the float root
                step = (mpmath.gammainc(2, 0, v, regularized=True) - mpmath.mpf(t)) / (v * mpmath.exp(-v))
                v -= step
                if abs(step) < mpmath.mpf(10) ** -36 * v:
                    break
            assert abs(u - v) <= 4e-16 * v, (t, u, v)
            assert abs(growth - t * mpmath.exp(v) / v**2) <= 1e-7 * growth, t


def test_multiplier_at_a_threshold_within_rounding():
    # Page 2 (h = 8.5e-212) leaves the optimum within a rounding unit of lambda:
    # in float64 its x jumps from ln(1/h)/37 to 0 there, so S(lambda) = 1 has no
    # representable root.  The result must still be stationary, and better
    # than either side of the jump normalised to sum 1 (by 1e-8 here: the
    # optimum lies between them).
    from crawlmath.numeric.scheduling import _kernels as kern

    mu = [7.347587000757234e-11, 7.991088711498175e-10, 182392.69974002187, 0.2008716271362135, 53886671.03393754]
    c = [649165949129.1776, 7.599475784597178e-11, 385986365032.1069, 3.5442776919257494e-11, 0.0010150784331708037]
    p = s.make_problem(mu, Gamma(36.0, 0.25), c)
    res = s.optimal_frequencies(p)
    assert res.residual <= 1e-12 and 0 < res.frequencies[2] < 1
    tau = p.rates / (p.weights * p.nu)
    for lam in (res.multiplier, np.nextafter(res.multiplier, np.inf)):
        x = np.empty(p.N)
        kern.frequencies_at(lam, tau, -np.log(p.h), x)
        assert res.lower_bound < s.lower_bound_objective(p, x / x.sum()) * (1 - 1e-9)
