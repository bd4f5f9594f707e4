"""Claims of Coffman–Liu–Weber (1997) §4 (restated in Liu–Nain 2005, §1.3.3): Lemma 4.1, its expansions
(f -> 0, f -> 1) and Theorem 4.1; the Liu–Nain restatement (1.31), (1.32).

Derivations from :mod:`crawlmath.derive.scheduling`, numbers from :mod:`crawlmath.numeric.scheduling._frequencies`.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy as sp

from ....derive import is_identically_zero as _zero
from ....derive import scheduling as d
from ....numeric import scheduling as s
from ....numeric.tolerance import (EXPANSION_COEFF_TOL, EXPANSION_F_TO_1_TOL, FREQUENCY_MATCH_ABS,
                                   RANDOMIZED_OPTIMISER_COST_REL, RANDOMIZED_OPTIMISER_FREQUENCY_ABS, SIMULATION_SIGMAS,
                                   WRAP_AROUND_BIAS)
from ...registry import Method, Outcome, Source, claim
from ._common import P, access_zoo, random_rates, slsqp as _slsqp, src


# --- §4 Lemma 4.1 and expansions --------------------------------------------------

@claim(f"{P}.lemma-4.1", source=src("§4", "Lemma 4.1"), method=Method.SYMBOLIC,
       statement="Summing Lemma 3.1 against the geometric law of d gives r_i = (1/E[X])(E[X] - f/mu + (f/mu) f h/(1 - h + f h)).")
def _lemma_4_1():
    printed = (d.m - d.f / d.mu + d.f / d.mu * d.f * d.h / (1 - d.h + d.f * d.h)) / d.m
    ok = _zero(d.randomized_rate() - printed)
    return Outcome.judge(ok, f"derived {d.randomized_rate()} == printed: {ok}")


@claim(f"{P}.lemma-4.1.randomized-sequences", source=src("§4", "Lemma 4.1"), method=Method.SIMULATION,
       statement="Lemma 4.1 against the exact cost of long i.i.d. random access sequences.")
def _lemma_4_1_sim():
    rng = np.random.default_rng(41)
    rows, ok = [], True
    for name in ("exp", "uniform", "hyperexp"):
        X = access_zoo()[name]
        mu = np.array([0.3, 1.0, 2.5])
        p = s.make_problem(mu, X)
        f = np.array([0.2, 0.3, 0.5])
        exact = s.randomized_cost(f, p).cost
        costs = [s.cyclic_cost(rng.choice(3, size=20000, p=f), p).cost for _ in range(20)]
        m, se = float(np.mean(costs)), float(np.std(costs, ddof=1) / math.sqrt(20))
        good = abs(m - exact) <= SIMULATION_SIGMAS * se + WRAP_AROUND_BIAS
        ok &= good
        rows.append(f"{name}: Lemma 4.1 {exact:.5f} vs sequences {m:.5f}±{se:.1g}")
    return Outcome.judge(ok, "; ".join(rows))


def _gap_mp(fv, hv, muv=1.0, nuv=1.0):
    fv, hv, muv, nuv = (mpmath.mpf(v) for v in (fv, hv, muv, nuv))
    return nuv * fv / muv * (fv * hv / (1 - hv + fv * hv) - hv ** (1 / fv))


@claim(f"{P}.lemma-4.1.small-f", source=src("§4", "expansion after Lemma 4.1 (f -> 0)"), method=Method.NUMERIC_HP,
       statement="As f_i -> 0, r_i(randomized) - (Thm 3.3 bound) = (nu h_i/mu_i) f_i^2 + o(f_i^2).")
def _small_f():
    lead = d.randomized_gap_small_f()
    derived_ok = _zero(lead - d.nu * d.h * d.f**2 / (d.mu * (1 - d.h)))
    rows, printed_ok, corrected_ok = [], True, True
    with mpmath.workdps(40):
        for hv in (0.2, 0.5, 0.9):
            fv = mpmath.mpf("1e-6")
            ratio = _gap_mp(fv, hv) / fv**2
            printed, corrected = hv, hv / (1 - hv)
            printed_ok &= abs(ratio - printed) < EXPANSION_COEFF_TOL * printed
            corrected_ok &= abs(ratio - corrected) < EXPANSION_COEFF_TOL * corrected
            rows.append(f"h={hv}: gap/f^2 at f=1e-6 = {float(ratio):.6f}, printed nu h/mu = {printed:.6f}, corrected nu h/(mu(1-h)) = {corrected:.6f}")
    if derived_ok and corrected_ok and not printed_ok:
        return Outcome.erratum_("; ".join(rows), printed="(nu h_i/mu_i) f_i^2 + o(f_i^2)  [Liu–Nain: h_i f_i^2/(mu_i E[X])]",
                                corrected="(nu h_i/(mu_i (1 - h_i))) f_i^2 + o(f_i^2)",
                                evidence=f"series of the exact gap (SymPy: {lead}) and 40-digit evaluation at f = 1e-6")
    return Outcome.judge(printed_ok, "; ".join(rows) + f"; derived leading term {lead}")


@claim(f"{P}.lemma-4.1.f-to-1", source=src("§4", "expansion after Lemma 4.1 (f -> 1)"), method=Method.NUMERIC_HP,
       statement="As f_i -> 1, the gap is (nu h_i/mu_i)(1 + ln h_i)(f_i - 1) + o(1 - f_i).")
def _f_to_1():
    lead = d.randomized_gap_near_one()
    derived_ok = _zero(lead - d.nu * d.h * (1 - d.h + sp.log(d.h)) * (d.f - 1) / d.mu)
    rows, printed_ok, corrected_ok = [], True, True
    with mpmath.workdps(40):
        for hv in (0.2, 0.5, 0.9):
            eps = mpmath.mpf("1e-8")
            ratio = _gap_mp(1 - eps, hv) / (-eps)
            L = mpmath.log(hv)
            printed, corrected = hv * (1 + L), hv * (1 - hv + L)
            printed_ok &= abs(ratio - printed) < EXPANSION_F_TO_1_TOL
            corrected_ok &= abs(ratio - corrected) < EXPANSION_F_TO_1_TOL
            rows.append(f"h={hv}: gap/(f-1) at f=1-1e-8 = {float(ratio):.6f}, printed h(1+ln h) = {float(printed):.6f}, corrected h(1-h+ln h) = {float(corrected):.6f}")
    if derived_ok and corrected_ok and not printed_ok:
        return Outcome.erratum_("; ".join(rows), printed="(nu h_i/mu_i)(1 + ln h_i)(f_i - 1) + o(1 - f_i)",
                                corrected="(nu h_i/mu_i)(1 - h_i + ln h_i)(f_i - 1) + o(1 - f_i)",
                                evidence=f"f-derivative at 1 of the exact gap (SymPy: {lead}) and 40-digit evaluation at f = 1 - 1e-8")
    return Outcome.judge(printed_ok, "; ".join(rows) + f"; derived leading term {lead}")


# --- Theorem 4.1 ----------------------------------------------------------------------

@claim(f"{P}.thm-4.1.derivation", source=src("§4", "Theorem 4.1, (12)-(16)"), method=Method.SYMBOLIC, slow=True,
       statement="(13) is the derivative of (12); it rearranges to lambda mu (1-h+hx)^2 = nu c (1-h)^2, giving (15); with c = c0 mu, (16) and C* = c0(mu - nu G/(1+G)).")
def _thm_4_1_derivation():
    st = d.randomized_stationarity()
    printed13 = -d.c * d.nu / d.mu + d.c * d.nu / d.mu * (2 * d.h * (1 - d.h) * d.x + d.h**2 * d.x**2) / (1 - d.h + d.h * d.x) ** 2 + d.lam
    ok13 = _zero(st - printed13)
    # (13) with lambda moved over: (c nu/mu)(1 - [..]/(1-h+hx)^2) = lambda, and the bracket is (1-h)^2/(1-h+hx)^2.
    rearr = _zero((d.c * d.nu / d.mu) * (1 - (2 * d.h * (1 - d.h) * d.x + d.h**2 * d.x**2) / (1 - d.h + d.h * d.x) ** 2)
                  - d.c * d.nu * (1 - d.h) ** 2 / (d.mu * (1 - d.h + d.h * d.x) ** 2))
    x15 = d.randomized_frequency_general()
    ok15 = _zero(x15 - (sp.sqrt(d.nu * d.c / (d.lam * d.mu)) - 1) * (1 - d.h) / d.h)
    # (16) and C*, for N = 3 with c_i = c0 mu_i.
    hs = sp.symbols("h1:4", positive=True)
    g = [1 / v - 1 for v in hs]
    G = sum(g)
    xs = [gi / G for gi in g]
    # (15) with c_i = c0 mu_i: x_i = (sigma - 1) g_i, sigma = sqrt(nu c0/lambda) common to all i.
    sigma = sp.Symbol("sigma", positive=True)
    sig = sp.solve(sp.Eq(sum((sigma - 1) * gi for gi in g), 1), sigma)
    ok16 = len(sig) == 1 and all(_zero((sig[0] - 1) * gi - xi) for gi, xi in zip(g, xs))
    mus = sp.symbols("mu1:4", positive=True)
    Cst = sum(d.c0 * mus[i] - d.nu * d.c0 * xs[i] + d.nu * d.c0 * xs[i] ** 2 * hs[i] / (1 - hs[i] + xs[i] * hs[i]) for i in range(3))
    okC = _zero(Cst - d.c0 * (sum(mus) - d.nu * G / (1 + G)))
    ok = ok13 and rearr and ok15 and ok16 and okC
    return Outcome.judge(ok, f"(13) == d/dx (12): {ok13}; rearrangement: {rearr}; (15): {ok15} ({x15}); (16) from sum x = 1: {ok16}; C* = c0(mu - nu G/(1+G)) (N=3): {okC}")


@claim(f"{P}.thm-4.1.optimiser", source=src("§4", "Theorem 4.1, (11)"), method=Method.FLOAT,
       statement="The randomized optimum (11) at f_i ∝ 1/h_i - 1 agrees with a numeric optimiser of (12), and is >= C* of Theorem 3.4.")
def _thm_4_1_opt():
    rng = np.random.default_rng(41)
    worst_c, worst_x, worst_gap, cases = 0.0, 0.0, math.inf, 0
    for X in access_zoo().values():
        for _ in range(4):
            N = int(rng.integers(2, 7))
            mu = random_rates(rng, N)
            p = s.make_problem(mu, X)
            res = s.randomized_optimal(p)
            num = _slsqp(lambda x: s.randomized_objective(p, x), N)
            worst_c = max(worst_c, abs(num.fun - res.lower_bound) / res.lower_bound)
            worst_x = max(worst_x, float(np.max(np.abs(num.x - res.frequencies))))
            worst_gap = min(worst_gap, res.lower_bound - s.optimal_frequencies(p).lower_bound)
            direct = s.randomized_cost(res.frequencies, p).cost
            worst_c = max(worst_c, abs(direct - res.lower_bound) / res.lower_bound)
            cases += 1
    ok = worst_c < RANDOMIZED_OPTIMISER_COST_REL and worst_x < RANDOMIZED_OPTIMISER_FREQUENCY_ABS and worst_gap >= 0
    return Outcome.judge(ok, f"{cases} instances: max rel |(11) - SLSQP| and |(11) - Lemma 4.1 cost| = {worst_c:.2g}; max |x diff| = {worst_x:.2g}; "
                             f"min (randomized optimum - C*) = {worst_gap:.3g} >= 0")


@claim(f"{P}.thm-4.1.validity", source=src("§4", "remark after Theorem 4.1 (general c_i)"), method=Method.FLOAT,
       statement="For general c_i, (15) with the printed lambda solves (12) exactly when min sqrt(c_i/mu_i) >= sum sqrt(c_i/mu_i)(1/h_i - 1)/(1 + G).")
def _thm_4_1_validity():
    rng = np.random.default_rng(411)
    agree, cases, detail = True, 0, []
    for X in access_zoo().values():
        for _ in range(6):
            N = int(rng.integers(2, 6))
            mu = random_rates(rng, N)
            c = mu * np.exp(rng.uniform(-1.5, 1.5, N))
            p = s.make_problem(mu, X, c)
            g = 1 / p.h - 1
            sq = np.sqrt(c / mu)
            sqrt_lam = math.sqrt(p.nu) * float(sq @ g) / (1 + g.sum())
            x15 = (math.sqrt(p.nu) * sq / sqrt_lam - 1) * g
            valid = bool(sq.min() >= float(sq @ g) / (1 + g.sum()))
            res = s.randomized_optimal(p)
            same = bool(np.allclose(x15, res.frequencies, atol=FREQUENCY_MATCH_ABS))
            cases += 1
            # valid <=> (15) is non-negative <=> it is the constrained optimum
            if valid != (x15.min() >= 0) or valid != same:
                agree = False
                detail.append(f"valid={valid}, min x15={x15.min():.3g}, same={same}")
            if abs(x15.sum() - 1) > FREQUENCY_MATCH_ABS:
                agree = False
                detail.append(f"sum x15 = {x15.sum()}")
    return Outcome.judge(agree, f"{cases} instances: the condition holds exactly when (15) is >= 0 and equals the KKT optimum with x >= 0; sum (15) = 1 always. {detail[:3]}")


@claim(f"{P}.thm-4.1.sqrt-lambda", source=src("§4", "remark after Theorem 4.1: sqrt(lambda) = ..."), method=Method.SYMBOLIC,
       statement="Solving (15) with sum x_i = 1 gives sqrt(lambda) = sqrt(nu) sum sqrt(c_i/mu_i)(1/h_i - 1) / (1 + sum (1/h_i - 1)).")
def _sqrt_lambda():
    derived, printed = d.randomized_sqrt_lambda(3)
    ok = _zero(derived - printed)
    return Outcome.judge(ok, f"N = 3, general c_i: derived sqrt(lambda) - printed simplifies to 0: {ok}")


@claim("liu-nain.sched.restatement", source=Source("liu-nain", "§1.3", "(1.31), (1.32), Props 10-11"), method=Method.SYMBOLIC,
       statement="Liu–Nain's (1.31), (1.32) are Coffman et al.'s (11), (17) with nu = 1/E[X] (the golden-ratio bound (1.33), (1.34) is judged in liu_nain_sched).")
def _restatement():
    EX = sp.Symbol("EX", positive=True)
    G = sp.Symbol("G", positive=True)
    ln31 = d.c0 * (d.mu - 1 / EX * G / (1 + G))
    ln32 = d.c0 * (d.mu - 1 / EX + sp.exp(-d.mu * EX) / EX)
    oks = [_zero(a - b.subs(d.nu, 1 / EX)) for a, b in ((ln31, d.randomized_cstar()), (ln32, d.cstar_limit()))]
    return Outcome.judge(all(oks), f"(1.31) == (11): {oks[0]}; (1.32) == (17): {oks[1]}")
