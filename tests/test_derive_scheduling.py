"""The scheduling derivations answer for the model they are given (issue 31): Coffman–Liu–Weber's optimum comes from
the Lagrangian of the stated objective, so a modified objective gets its own optimum or a refusal naming the step.

Every expected value here is independent of the derivation: hand-derived (stated in the test), or the KKT system of
the objective, typed here as plain mpmath functions, solved by mpmath's findroot at 40 digits.
"""
from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from crawlmath.derive import DerivationError
from crawlmath.derive import scheduling as sc

h, mu, c0, nu, x, S, G = sc.h, sc.mu, sc.c0, sc.nu, sc.x, sc.S, sc.G
LB = sc.lower_bound_objective_term()

# three pages (h_i, mu_i) and the common nu, c0, with every page kept at the optimum of each model below
PAGES = [{h: "0.5", mu: "1.0"}, {h: "0.4", mu: "1.2"}, {h: "0.6", mu: "0.8"}]
COMMON = {nu: "1.5", c0: "0.7"}


def _kkt(dterm, pages, common, start, dps=40):
    """Solve d/dx term_i(x_i) + lambda = 0 (i = 1..n) and sum x_i = 1 by mpmath.findroot (Newton, derivatives by
    mpmath.diff); ``dterm(x, page, common)`` is d/dx of a page's term, typed by the caller."""
    with mpmath.workdps(dps + 10):
        pv = [{str(k): mpmath.mpf(v) for k, v in p.items()} for p in pages]
        cv = {str(k): mpmath.mpf(v) for k, v in common.items()}
        n = len(pages)

        def system(*v):
            xs, lam = v[:n], v[n]
            return [dterm(xs[i], pv[i], cv) + lam for i in range(n)] + [mpmath.fsum(xs) - 1]

        sol = mpmath.findroot(system, [mpmath.mpf(s) for s in start], tol=mpmath.mpf(10) ** (-dps - 5))
        return [sol[i] for i in range(n)], sol[n]


def _lower_bound_dterm(weight, power=1, h_factor=1):
    """d/dx of c (1 - nu x/mu + h_factor nu x/mu h^(power/x)), c = weight(mu, c0): a page of (7), modified."""
    def dterm(xv, p, cv):
        c = weight(p["mu"], cv["c0"])
        return mpmath.diff(lambda t: c * (1 - cv["nu"] * t / p["mu"] + h_factor * cv["nu"] * t / p["mu"] * p["h"] ** (power / t)), xv)
    return dterm


def _log_h_share(pages):
    """The paper's x_i = ln h_i / sum_j ln h_j at 50 digits."""
    with mpmath.workdps(50):
        logs = [mpmath.log(mpmath.mpf(p[h])) for p in pages]
        return [v / mpmath.fsum(logs) for v in logs]


def _close(a, b, digits=30):
    with mpmath.workdps(50):
        return abs(a - b) <= mpmath.mpf(10) ** (-digits) * max(1, abs(b))


def test_paper_instances_give_the_paper_results():
    assert sc.optimal_frequency(sc.lower_bound_model()) == sp.log(h) / S  # (10)
    assert sp.simplify(sc.optimal_frequency(sc.randomized_model()) - (1 / h - 1) / G) == 0  # (16)
    assert sp.simplify(sc.optimal_cost(sc.lower_bound_model()) - c0 * (mu - nu + nu * sp.exp(S))) == 0  # (6), P = e^S
    assert sp.simplify(sc.optimal_cost(sc.randomized_model()) - c0 * (mu - nu * G / (1 + G))) == 0  # (11)
    derived, printed = sc.randomized_sqrt_lambda(3)  # the remark after Theorem 4.1
    assert sp.simplify(derived - printed) == 0


def test_the_common_level_is_found_not_assumed():
    """The split x_i(lambda) = phi(lambda) A_i + B_i comes out of the solved stationarity: A_i = ln h_i for (8) with
    c_i = c0 mu_i, 1/h_i - 1 (times a constant) for (15)."""
    level, A, B = sc.frequency_split(sc.lower_bound_model())
    assert A == sp.log(h) and B == 0 and level.has(sp.LambertW) and not level.free_symbols & {h, mu}
    level, A, B = sc.frequency_split(sc.randomized_model())
    assert sp.simplify(A / (1 / h - 1)).free_symbols <= {c0, nu} and sp.simplify(B + (1 / h - 1)) == 0


def test_halved_objective_has_the_same_optimum_and_half_the_multiplier():
    """Hand-derived: halving the objective scales the Lagrangian, so x_i = ln h_i / S, lambda and C* halve."""
    half = sc.SchedulingModel(LB / 2, c0 * mu)
    assert sc.optimal_frequency(half) == sp.log(h) / S
    assert sp.simplify(sc.optimal_multiplier(half) - sc.lower_bound_multiplier() / 2) == 0
    assert sp.simplify(sc.optimal_cost(half) - c0 * (mu - nu + nu * sp.exp(S)) / 2) == 0


def test_h_to_the_two_over_x_is_still_proportional_to_ln_h():
    """Hand-derived: with h^(2/x) the stationarity is (c0 nu)(1 - y + y ln y) = lambda in y = h^(2/x), common to the
    pages, so x_i ∝ ln h_i: x_i = ln h_i / S, y* = e^(2S), C* = c0 (mu - nu + nu e^(2S)); and the KKT system of
    the objective solved numerically gives the same x_i to 30 digits."""
    model = sc.SchedulingModel(LB.subs(h ** (1 / x), h ** (2 / x)), c0 * mu)
    assert sc.optimal_frequency(model) == sp.log(h) / S
    assert sp.simplify(sc.optimal_cost(model) - c0 * (mu - nu + nu * sp.exp(2 * S))) == 0
    xs, _ = _kkt(_lower_bound_dterm(lambda m, c: c * m, power=2), PAGES, COMMON, ["0.3", "0.5", "0.2", "0.5"])
    assert all(_close(a, b) for a, b in zip(xs, _log_h_share(PAGES)))


def test_halved_change_term_keeps_the_level_with_its_own_cost():
    """Hand-derived: with (nu x/mu) h^(1/x)/2 the bracket is 1 - y/2 + (y/2) ln y, still in y = h^(1/x) alone, so
    x_i = ln h_i / S and C* = c0 (mu - nu + nu e^S/2); the multiplier lies in (c0 nu/2, c0 nu) (x -> oo, x -> 0+)."""
    model = sc.SchedulingModel(LB.subs(h ** (1 / x), h ** (1 / x) / 2), c0 * mu)
    assert sc.regime(model) == (c0 * nu / 2, c0 * nu)
    assert sc.optimal_frequency(model) == sp.log(h) / S
    assert sp.simplify(sc.optimal_cost(model) - c0 * (mu - nu + nu * sp.exp(S) / 2)) == 0
    xs, _ = _kkt(_lower_bound_dterm(lambda m, c: c * m, h_factor=sp.Rational(1, 2)), PAGES, COMMON, ["0.3", "0.5", "0.2", "0.6"])
    assert all(_close(a, b) for a, b in zip(xs, _log_h_share(PAGES)))


def test_weights_mu_squared_refuse_the_closed_form_and_the_kkt_route_gives_the_optimum():
    """c_i = c0 mu_i^2: the level (c nu/mu)^-1 lambda differs between pages, so the optimum is not ∝ ln(1/h); the
    closed forms refuse naming that step (never the sum built on x_i = ln h_i / S), and kkt_frequencies (the derived
    x_i(lambda), lambda from sum x_i = 1) agrees with the KKT system solved directly to 30 digits."""
    model = sc.SchedulingModel(LB, c0 * mu**2)
    for step in (sc.optimal_frequency, sc.optimal_cost, sc.optimal_multiplier):
        with pytest.raises(DerivationError, match=r"no common level.*\['mu'\].*not proportional"):
            step(model)
    got, lam = sc.kkt_frequencies(model, PAGES, COMMON, dps=40)
    want, lam_want = _kkt(_lower_bound_dterm(lambda m, c: c * m**2), PAGES, COMMON, [*map(str, _log_h_share(PAGES)), "0.5"])
    assert all(_close(a, b) for a, b in zip(got, want)) and _close(lam, lam_want)
    assert max(abs(a - b) for a, b in zip(got, _log_h_share(PAGES))) > 1e-3  # not the paper's answer


def test_kkt_route_leaves_out_a_page_below_its_threshold():
    """c_i = c0 mu_i^2 with a fourth page of small mu (threshold c0 nu mu_4 = 0.21 below the optimum's lambda): the
    KKT conditions give x_4 = 0 and the three-page optimum for the others (solved directly here), with
    lambda >= c0 nu mu_4 (dual feasibility of the page left out)."""
    model = sc.SchedulingModel(LB, c0 * mu**2)
    got, lam = sc.kkt_frequencies(model, [*PAGES, {h: "0.9", mu: "0.2"}], COMMON, dps=40)
    want, lam_want = _kkt(_lower_bound_dterm(lambda m, c: c * m**2), PAGES, COMMON, [*map(str, _log_h_share(PAGES)), "0.5"])
    assert got[3] == 0 and all(_close(a, b) for a, b in zip(got[:3], want)) and _close(lam, lam_want)
    assert lam >= mpmath.mpf("0.7") * mpmath.mpf("1.5") * mpmath.mpf("0.2")


def test_randomized_with_weights_mu_squared_derives_its_own_optimum():
    """(12) with c_i = c0 mu_i^2: (15) is x_i = (sqrt(nu c0 mu_i/lambda) - 1) g_i, g_i = 1/h_i - 1, so the level
    1/sqrt(lambda) is still common and sum x_i = 1 gives sqrt(lambda) = sqrt(nu c0) sum sqrt(mu_i) g_i / (1 + G)
    (hand-derived); the KKT system of (12), typed here, agrees to 30 digits."""
    model = sc.randomized_model(c0 * mu**2)
    xs = sc.optimal_frequencies(model, 3)
    pages = [sc._page(i) for i in (1, 2, 3)]
    g = [1 / p[h] - 1 for p in pages]
    root = sp.sqrt(nu * c0) * sum(sp.sqrt(p[mu]) * gi for p, gi in zip(pages, g)) / (1 + sum(g))
    for p, gi, xi in zip(pages, g, xs):
        assert sp.simplify(xi - (sp.sqrt(nu * c0 * p[mu]) / root - 1) * gi) == 0

    def dterm(xv, p, cv):
        c = cv["c0"] * p["mu"] ** 2
        return mpmath.diff(lambda t: c * (1 - cv["nu"] * t / p["mu"] + cv["nu"] / p["mu"] * t**2 * p["h"] / (1 - p["h"] + t * p["h"])), xv)

    want, _ = _kkt(dterm, PAGES, COMMON, ["0.3", "0.5", "0.2", "0.5"])
    subs = {s_: sp.Float(PAGES[i][q], 50) for i, p in enumerate(pages) for q, s_ in p.items() if q in PAGES[i]}
    subs.update({nu: sp.Float(COMMON[nu], 50), c0: sp.Float(COMMON[c0], 50)})
    with mpmath.workdps(50):
        assert all(_close(mpmath.mpf(str(sp.N(xi.subs(subs), 45))), w) for xi, w in zip(xs, want))
    got, _ = sc.kkt_frequencies(model, PAGES, COMMON, dps=40)
    assert all(_close(a, b) for a, b in zip(got, want))


def test_a_page_term_with_no_closed_form_stationary_point_is_refused_naming_the_step():
    """A quadratic penalty kappa x^2 on each page's share: the stationarity mixes x, 1/x and h^(1/x), and SymPy
    solves it neither in x nor in 1/x; the derivation says so instead of returning the paper's ln h_i / S."""
    kappa = sp.Symbol("kappa", positive=True)
    model = sc.SchedulingModel(LB + kappa * x**2, c0 * mu)
    with pytest.raises(DerivationError, match="no closed-form solution for x"):
        sc.optimal_frequency(model)


def test_a_concave_term_is_refused():
    model = sc.SchedulingModel(-x**2 + c0 * mu * x, c0 * mu)
    with pytest.raises(DerivationError, match="not shown convex"):
        sc.frequency_at_multiplier(model)
