"""Exact in, exact through (issue 30): the reference-value entry points read
exact numbers exactly, a float as its shortest decimal, and certify their
digits for that model; the expected values here are computed independently
(closed forms, SymPy, a separate exact route of the crawler MDP)."""
from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.sparse as sps
import sympy

from crawlmath.numeric.markov import _average_cost as AC
from crawlmath.numeric.markov import _ctmc as CT
from crawlmath.numeric import mdp as M
from crawlmath.numeric.markov import average_cost_mdp, ctmc_stationary
from crawlmath.numeric.errors import InvalidInput
from crawlmath.numeric.exact import Triplets, exact, exact_or_inf, input_kind

K = 12  # M/M/1/12


def mm1k(rate, one=1, zero=0):
    """The M/M/1/12 generator, arrival rate ``rate``, service rate ``one``, as nested lists
    of whatever number type is passed (the diagonal as a string, "-(rate+1)" exactly)."""
    Q = [[zero] * (K + 1) for _ in range(K + 1)]
    for i in range(K + 1):
        if i < K:
            Q[i][i + 1] = rate
        if i > 0:
            Q[i][i - 1] = one
    return Q


def with_diagonal(Q, diag):
    for i, row in enumerate(Q):
        row[i] = diag(i)
    return Q


def geometric(rho: Fraction) -> list[Fraction]:
    """π_i = ρ^i (1 − ρ) / (1 − ρ^(K+1)), the M/M/1/K law."""
    return [rho**i * (1 - rho) / (1 - rho ** (K + 1)) for i in range(K + 1)]


def diag_of(rate_exact: Fraction):
    return lambda i: -((rate_exact if i < K else 0) + (1 if i > 0 else 0))


SEVEN_TENTHS = {
    "Fraction": with_diagonal(mm1k(Fraction(7, 10)), lambda i: diag_of(Fraction(7, 10))(i)),
    "str": with_diagonal(mm1k("0.7"), lambda i: str(diag_of(Fraction(7, 10))(i))),
    "Decimal": with_diagonal(mm1k(Decimal("0.7")), lambda i: Decimal(str(float(diag_of(Fraction(7, 10))(i))))),
    "sympy": with_diagonal(mm1k(sympy.Rational(7, 10)), lambda i: sympy.Rational(diag_of(Fraction(7, 10))(i))),
    "float": with_diagonal(mm1k(0.7), lambda i: float(diag_of(Fraction(7, 10))(i))),
    "numpy": np.array(with_diagonal(mm1k(0.7), lambda i: float(diag_of(Fraction(7, 10))(i)))),
}


@pytest.mark.parametrize("kind", sorted(SEVEN_TENTHS))
def test_mm1k_seven_tenths_is_exact_in_every_input_form(kind):
    """The issue's case: rate 7/10 as a Fraction once gave 30 "certified" digits wrong at the 17th."""
    r = ctmc_stationary(SEVEN_TENTHS[kind], digits=30)
    truth = geometric(Fraction(7, 10))
    assert r.pi_exact == truth
    assert r.error_bound == 0.0
    assert r.inputs == ("shortest-decimal" if kind in ("float", "numpy") else "exact")
    for text, mp, e in zip(r.pi_text, r.pi_mp, truth):
        assert abs(Fraction(text) - e) <= Fraction(1, 2 * 10**29) * e  # 30 significant digits, rounded
        assert abs(as_fraction(mp) - e) <= e / 10**44  # digits + 15 significant digits


def as_fraction(x) -> Fraction:
    """The exact value of an mpmath number."""
    man, exp = x.man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def test_sparse_and_triplet_forms_give_the_same_exact_law():
    dense_q = SEVEN_TENTHS["Fraction"]
    rows, cols, vals = zip(*[(i, j, q) for i, row in enumerate(dense_q) for j, q in enumerate(row) if q != 0])
    # a duplicate split of one rate: (0, 1) given as 3/10 + 4/10
    rows, cols = rows + (0,), cols + (1,)
    vals = tuple(Fraction(3, 10) if (i, j) == (0, 1) else v for i, j, v in zip(rows[:-1], cols[:-1], vals)) + ("0.4",)
    T = Triplets((K + 1, K + 1), rows, cols, vals)
    truth = geometric(Fraction(7, 10))
    assert ctmc_stationary(T, digits=20).pi_exact == truth
    assert ctmc_stationary(sps.csr_matrix(SEVEN_TENTHS["numpy"]), digits=20).pi_exact == truth
    obj = np.array(dense_q, dtype=object)
    assert ctmc_stationary(obj, digits=20).pi_exact == truth
    assert ctmc_stationary(T).pi == pytest.approx([float(p) for p in truth], rel=1e-13)


def test_an_unknown_float_reading_is_refused():
    with pytest.raises(InvalidInput, match="floats: must be one of 'shortest-decimal', 'binary'"):
        ctmc_stationary([[-1, 1], [1, -1]], floats="decimal")


def test_floats_binary_reads_the_binary_value():
    r = ctmc_stationary(SEVEN_TENTHS["float"], digits=30, floats="binary")
    assert r.inputs == "binary"
    assert r.pi_exact == geometric(Fraction(0.7))
    assert r.pi_exact != geometric(Fraction(7, 10))


def test_ball_route_encloses_the_exact_law(monkeypatch):
    """Above EXACT_MAX the first route is arb balls from the exact rates: the returned
    numbers lie within error_bound of the exact π (checked against the closed form)."""
    monkeypatch.setattr(CT, "EXACT_MAX", 5)
    r = ctmc_stationary(SEVEN_TENTHS["str"], digits=30)
    assert r.method.startswith("arb-solve") and r.pi_exact is None and 0 < r.error_bound < 1e-31
    for mp, e in zip(r.pi_mp, geometric(Fraction(7, 10))):
        assert abs(as_fraction(mp) - e) <= Fraction(r.error_bound)


def test_exact_rows_must_sum_to_exactly_zero():
    Q = SEVEN_TENTHS["Fraction"]
    bad = [row[:] for row in Q]
    bad[3][3] -= Fraction(1, 10**30)
    with pytest.raises(InvalidInput, match=r"Q\[3\]: rows must sum to exactly 0"):
        ctmc_stationary(bad, digits=10)


@pytest.mark.parametrize("Q, rule", [
    (np.array([[-1 + 1j, 1], [1, -1]]), r"Q\[0, 0\]: must be real, not complex"),
    ([[-1, True], [1, -1]], "not a bool"),
    ([["-1", "x"], [1, -1]], r"Q\[0, 1\]: must be a finite real number"),
    ([[-1, 1], [1]], "rows of equal length"),
    (Triplets((2, 2), [0, 2], [1, 0], [1, 1]), "outside the shape"),
    ([["-1e400", "1e400"], [1, -1]], r"Q\[0, 0\]: is beyond the float64 range"),
    (Triplets((2, 2), [0, 1.5], [1, 0], [1, 1]), "indices must be integers"),
])
def test_bad_exact_input_is_refused_naming_the_entry(Q, rule):
    for digits in (None,) if "float64 range" in rule else (None, 10):
        with pytest.raises(InvalidInput, match=rule):
            ctmc_stationary(Q, digits=digits)


def test_one_state_chain_is_pi_one():
    """[[0]] is a valid generator (one state, no transitions): π = (1); it used to raise ZeroDivisionError."""
    assert ctmc_stationary([[0.0]]).pi.tolist() == [1.0]
    assert ctmc_stationary([[0]], digits=10).pi_exact == [Fraction(1)]


def test_exact_reads_each_type():
    assert exact(sympy.Rational(7, 10), argument="x") == Fraction(7, 10)
    assert exact(np.float32(0.7), argument="x") == Fraction(7, 10)   # float32's own shortest decimal
    assert ctmc_stationary(sps.csr_matrix(np.array([[-0.7, 0.7], [1, -1]], dtype=np.float32)),
                           digits=10).pi_exact == [Fraction(10, 17), Fraction(7, 17)]
    assert exact(mpmath.mpf(0.7), argument="x") == Fraction(0.7)      # mpf: its exact binary value
    assert exact(Decimal("1e-3"), argument="x") == Fraction(1, 1000)
    assert exact(np.int64(-3), argument="x") == -3
    for bad in (float("inf"), "nan", Decimal("inf"), None, [1], 1j, np.bool_(True)):
        with pytest.raises(InvalidInput):
            exact(bad, argument="x")
    assert exact_or_inf(Decimal("1e400"), argument="c") == 10**400   # finite, though float() of it is inf
    assert exact_or_inf(Decimal("inf"), argument="c") == exact_or_inf("inf", argument="c") == math.inf
    assert input_kind([np.array([1, 2]), ["0.5", Fraction(1, 3)]]) == "exact"
    assert input_kind([sps.csr_matrix(np.eye(2))]) == "shortest-decimal"


# ----------------------------------------------------------------- average cost


def repair_mdp(p_fail=Fraction(1, 10), q_fix=Fraction(4, 5), wait_cost=1, fix_cost=3, conv=lambda x: x):
    """States 0 = up, 1 = down; a = 0 wait, a = 1 repair (only when down); every
    number passed through ``conv`` (the input form under test)."""
    P = [[[1 - p_fail, p_fail], [0, 1]], [[1, 0], [q_fix, 1 - q_fix]]]
    c = [[0, "inf"], [wait_cost, fix_cost]]
    return [[[conv(x) for x in row] for row in M] for M in P], [[x if x == "inf" else conv(x) for x in row] for row in c]


def sympy_optimal_gain(P, c) -> Fraction:
    """min over all deterministic policies of the exact gain, each from SymPy's solve of
    π P_d = π, Σπ = 1 (every policy here is unichain)."""
    S, A = len(c), len(P)
    best = None
    for policy in np.ndindex(*(A,) * S):
        if any(c[s][a] == "inf" for s, a in enumerate(policy)):
            continue
        Pd = sympy.Matrix([[sympy.Rational(str(P[a][s][j])) for j in range(S)] for s, a in enumerate(policy)])
        pi = sympy.symbols(f"p0:{S}")
        sol = sympy.solve(list(sympy.Matrix([pi]) * Pd - sympy.Matrix([pi])) + [sum(pi) - 1], pi, dict=True)[0]
        g = sum(sol[pi[s]] * sympy.Rational(str(c[s][a])) for s, a in enumerate(policy))
        best = g if best is None else min(best, g)
    return Fraction(int(best.p), int(best.q))


@pytest.mark.parametrize("form", ["Fraction", "str", "Decimal", "sympy", "float"])
def test_average_cost_gain_is_the_exact_optimal_gain(form):
    conv = {"Fraction": Fraction, "str": str, "Decimal": lambda x: Decimal(str(float(x))),
            "sympy": sympy.Rational, "float": float}[form]
    r = average_cost_mdp(*repair_mdp(conv=conv), digits=40)
    truth = sympy_optimal_gain(*repair_mdp())
    assert r.gain_exact == truth == Fraction(1, 3)
    assert r.inputs == ("shortest-decimal" if form == "float" else "exact")
    assert abs(Fraction(r.gain_text) - truth) <= truth / (2 * 10**39)


def test_float_rows_are_read_as_decimals_and_divided_by_their_sum():
    """1 − 0.8 in float64 prints as 0.19999999999999996: that row sums to 0.99999999999999996
    as decimals, and the documented model divides it by that sum."""
    P, c = repair_mdp(p_fail=0.1, q_fix=0.8, conv=float)
    r = average_cost_mdp(P, c, digits=30)
    total = Fraction("0.8") + Fraction("0.19999999999999996")
    normalised = [[[x / sum(row) for x in row] for row in M] for M in repair_mdp(q_fix=Fraction("0.8"), conv=Fraction)[0]]
    normalised[1][1] = [Fraction("0.8") / total, Fraction("0.19999999999999996") / total]
    assert r.inputs == "shortest-decimal"
    assert r.gain_exact == sympy_optimal_gain(normalised, c) != Fraction(1, 3)


def test_average_cost_ball_route_encloses_the_exact_gain(monkeypatch):
    monkeypatch.setattr(AC, "EXACT_MAX", 1)
    P, c = repair_mdp()
    r = average_cost_mdp(P, c, digits=30)
    truth = sympy_optimal_gain(P, c)
    assert r.gain_exact is None and r.method.endswith("arb-bias+mpmath-gth")
    assert abs(as_fraction(r.gain_mp) - truth) <= Fraction(r.error_bound)


def test_exact_route_improves_a_policy_the_floats_cannot_separate():
    """Two self-loops whose costs differ by 1e-20: equal in float64, so policy iteration
    keeps action 0; the exact check finds action 1 strictly better."""
    P = [[[1]], [[1]]]
    c = [[1, Fraction(1) - Fraction(1, 10**20)]]
    assert average_cost_mdp(P, c).policy.tolist() == [0]
    r = average_cost_mdp(P, c, digits=25)
    assert r.policy.tolist() == [1] and r.gain_exact == Fraction(1) - Fraction(1, 10**20)
    assert "exact-improvement" in r.method


def test_exact_mdp_rows_must_sum_to_exactly_one():
    P, c = repair_mdp()
    P[0][0] = [Fraction(9, 10), Fraction(1, 10) + Fraction(1, 10**25)]
    with pytest.raises(InvalidInput, match=r"P\[0\]\[0\]: rows of available actions must sum to exactly 1"):
        average_cost_mdp(P, c, digits=10)


def exact_crawler(mdp: M.CrawlerMDP):
    """The crawler MDP (Liu–Nain 2005, §1.2.2) with exact probabilities, built here from
    the integer post-decision states and the exact rates (λ, μ, γ as decimals):
    departure μ1(q'>0)/ν, arrival λr'/ν, fictitious (λ(N − r') + μ1(q'=0))/ν, ν = λN + μ."""
    lam, mu, gamma = mdp.exact("lam"), mdp.exact("mu"), mdp.exact("gamma")
    N, n = mdp.N, mdp.n
    nu = lam * N + mu
    P = []
    for a in (0, 1):
        qp, rp = mdp.post_decision(a)
        rows = [[] for _ in range(n)]
        for x in range(n):
            if not mdp.allowed[x, a]:
                rows[x] = [(x, Fraction(1))]
                continue
            q, r = min(max(int(qp[x]), 0), mdp.K), min(max(int(rp[x]), 0), N)
            for s, p in ((0, mu * (q > 0) / nu), (1, lam * r / nu), (2, (lam * (N - r) + mu * (q == 0)) / nu)):
                if p:
                    rows[x].append((int(mdp.index[q, r, s]), p))
        P.append(Triplets((n, n), [x for x in range(n) for _ in rows[x]],
                          [j for x in range(n) for j, _ in rows[x]], [p for x in range(n) for _, p in rows[x]]))
    q, r, s = mdp.states.T
    cost = [gamma * (int(q[x]) == 0) + nu * (int(q[x]) == mdp.K and int(s[x]) == 1) for x in range(n)]
    c = [[cost[x] if mdp.allowed[x, a] else "inf" for a in (0, 1)] for x in range(n)]
    return P, c


def test_fig_1_5_mdp_in_fractions_gives_the_exact_gain_of_the_crawler_solver():
    """The issue's second case: the crawler MDP in exact Fractions (a Fig 1.5 instance made
    small, K = 3, N = 6), against mdp.gain_exact, which solves the policy's CTMC over the
    rationals by another construction."""
    mdp = M.CrawlerMDP(0.1, 1.0, 3, 6, 1.0)
    P, c = exact_crawler(mdp)
    r = average_cost_mdp(P, c, digits=30)
    assert r.inputs == "exact" and r.error_bound == 0.0
    assert r.gain_exact == M.gain_exact(mdp, M.solve(mdp).policy).gain == M.gain_exact(mdp, r.policy).gain


def test_average_cost_does_not_modify_the_callers_matrices():
    """It once pruned the explicit zeros of a caller's CSR matrix in place (shared arrays)."""
    mdp = M.CrawlerMDP(0.1, 1.0, 3, 6, 1.0)
    P = [A.copy() for A in mdp.P]
    c = np.column_stack([np.where(mdp.allowed[:, a], mdp.cost, np.inf) for a in (0, 1)])
    before = [(A.indptr.copy(), A.indices.copy(), A.data.copy()) for A in P]
    average_cost_mdp(P, c)
    for A, (ptr, idx, val) in zip(P, before):
        assert np.array_equal(A.indptr, ptr) and np.array_equal(A.indices, idx) and np.array_equal(A.data, val)


@pytest.mark.parametrize("c, rule", [
    ([[1j, 1]], "must be real, not complex"),
    ([["-inf", 1]], "finite real number"),
    ([[True, 1]], "not a bool"),
])
def test_bad_costs_are_refused(c, rule):
    with pytest.raises(InvalidInput, match=rule):
        average_cost_mdp([[[1]], [[1]]], c)


# ----------------------------------------------------------------- static optimum and the crawler MDP


@pytest.mark.parametrize("gamma", [Fraction(12, 5), "2.4", "12/5", Decimal("2.4"), sympy.Rational(12, 5), 2.4,
                                   np.float64(2.4)])
def test_static_optimum_reads_every_form_of_the_same_number(gamma):
    """2.4 as a float means 12/5 (shortest decimal): every form gives the same digits;
    np.float64 was refused (its repr is 'np.float64(2.4)')."""
    from crawlmath.numeric.static import static_optimum

    ref = static_optimum("0.05", 1, Fraction(12, 5), 15, digits=40)
    r = static_optimum(0.05 if isinstance(gamma, float) else "0.05", 1, gamma, 15, digits=40)
    assert mpmath.nstr(r.rho_opt, 40) == mpmath.nstr(ref.rho_opt, 40) and r.N_opt == ref.N_opt == 21
    assert r.inputs == ("shortest-decimal" if isinstance(gamma, float) else "exact")
    assert static_optimum("0.05", 1, gamma, 15).N_opt == 21  # the float route takes the same forms


def test_static_optimum_refuses_what_cannot_be_served():
    from crawlmath.numeric.errors import TooLarge
    from crawlmath.numeric.static import static_optimum

    with pytest.raises(TooLarge, match=r"^digits: K = 10 at 100000000 digits \(mpmath route\) needs an estimated"):
        static_optimum(0.01, 1, 0.5, 10, digits=10**8)
    with pytest.raises(TooLarge, match=r"^K: K = 1000000000000000 \(float route"):
        static_optimum(0.01, 1, 0.5, 10**15)
    with pytest.raises(TooLarge, match="mpmath route"):
        static_optimum(0.01, 1, 0.5, 10**6, digits=30)
    with pytest.raises(InvalidInput, match="gamma: must be real, not complex"):
        static_optimum(0.01, 1, 0.5 + 1j, 10)


def test_crawler_mdp_keeps_the_exact_parameters():
    """λ = 1/3 is not a decimal: the exact routes see 1/3, not 0.3333333333333333."""
    mdp = M.CrawlerMDP(Fraction(1, 3), "1", 3, 4, sympy.Rational(5, 2))
    assert (mdp.exact("lam"), mdp.exact("mu"), mdp.exact("gamma")) == (Fraction(1, 3), 1, Fraction(5, 2))
    assert mdp.lam == 1 / 3 and mdp.inputs == "exact"
    assert M.CrawlerMDP(0.1, 1.0, 3, 4, 1.0).exact("lam") == Fraction(1, 10)


def test_solve_mdp_takes_exact_numbers_and_says_which_model():
    import crawlmath

    a = crawlmath.solve_mdp(0.1, 1, 1, 5, N=16)
    b = crawlmath.solve_mdp("0.1", 1, Fraction(1), 5, N=16)
    assert a.gain == b.gain and (a.inputs, b.inputs) == ("shortest-decimal", "exact")


def test_a_disagreement_of_the_two_routes_is_an_error_showing_both(monkeypatch):
    """The second route is a real check: perturb it by 1e-25 and the 30-digit answer is refused."""
    from crawlmath.numeric.errors import SolverError

    real = CT._gth_mp
    perturbed = lambda rates: [p * (1 + mpmath.mpf(10) ** -25) for p in real(rates)]  # noqa: E731
    monkeypatch.setattr(CT, "_gth_mp", perturbed)
    monkeypatch.setattr(AC, "_gth_mp", perturbed)  # average_cost imports the GTH route by name
    with pytest.raises(SolverError, match=r"agree to 2\d\.\d digits only, 30 asked: pi\[0\] = 0\.3\d+ \(fmpq-solve\) vs 0\.3\d+ \(mpmath GTH\)"):
        ctmc_stationary(SEVEN_TENTHS["str"], digits=30)
    with pytest.raises(SolverError, match=r"agree to 2\d\.\d digits only, 30 asked \(fmpq-bias: 0\.3\d+, mpmath GTH: 0\.3\d+\)"):
        average_cost_mdp(*repair_mdp(), digits=30)


def test_certified_bmap_value_ball_carries_its_digits():
    """numeric/bmap/_model.py CertifiedValue.ball (issue 30): the ball's midpoint is the certified mpmath value exactly,
    so it is as narrow as the certificate (it was float(value) ± error_bound, ~1e-16 relative); it contains J of the
    model's printed decimals, computed in exact rationals by an independent route (fmpq_mat solve)."""
    import flint

    from crawlmath.numeric import bmap as bm
    from crawlmath.numeric.bmap import load_model

    m = load_model("avrachenkov-example.json", K=4)
    lv = m.check_policy(bm.Policy((3, 1), (1,)))
    cv = bm.certified_cost(m, lv, digits=30)
    J = bm.exact_cost(m, lv)
    ball = cv.ball()
    old = flint.ctx.prec
    flint.ctx.prec = 400
    try:
        assert ball.contains(flint.fmpq(J.numerator, J.denominator))
        assert ball.rad() <= flint.arb(cv.radius) * (1 + flint.arb(2) ** -20)  # the certificate's radius, no more
        assert ball.rad() < abs(ball.mid()) * flint.arb(10) ** -30
    finally:
        flint.ctx.prec = old
    assert cv.error_bound > 1e-17 * abs(float(cv.value))  # what a float midpoint had to add
