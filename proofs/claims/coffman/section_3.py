"""Claims of Coffman–Liu–Weber (1997) §3 (restated in Liu–Nain 2005, §1.3.2): Lemma 3.1 and Theorems 3.1–3.4.

Seed ``002_4ad982fbd4856c9a.txt``; derivations from
:mod:`crawlmath.derive.scheduling`, numbers from
:mod:`crawlmath.numeric.scheduling._frequencies` and :mod:`crawlmath.numeric.scheduling._access_time`.
Theorem 3.1 is Liu–Nain's Proposition 7: one verdict, computed in :mod:`..liu_nain._orderings`.  Importing
:mod:`..liu_nain.scheduling` here registers the Liu–Nain §1.3 claims before these, as they were before the split
into sections (the order of ``crawlmath verify``'s output).
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp

from ....derive import is_identically_zero as _zero
from ....derive import scheduling as d
from ....numeric import scheduling as s
from ....numeric.scheduling import Gamma
from ....numeric.generated import scheduling as gen
from ....numeric.tolerance import (CLOSED_FORM_REL, IDENTITY_RESIDUAL, MULTIPLIER_RESIDUAL, NOT_PROPORTIONAL_ABS,
                                   OPTIMISER_COST_REL, OPTIMISER_FREQUENCY_ABS, ROUNDING_SLACK_ABS, ROUNDING_SLACK_REL,
                                   SIMULATION_SIGMAS)
from ...registry import Method, Outcome, claim
from ..liu_nain import scheduling as _liu_nain_sched  # noqa: F401 - registers Liu–Nain §1.3 before Coffman §3, as before
from ..liu_nain._orderings import laplace_outcome, ordering_outcome
from ._common import P, access_zoo, random_cyclic, random_rates, slsqp as _slsqp, src


# --- §3 Lemma 3.1 -----------------------------------------------------------------

@claim(f"{P}.lemma-3.1", source=src("§3", "Lemma 3.1"), method=Method.SYMBOLIC, slow=True,
       statement="E[Z^i_j] = d E[X] - (1 - h^d)/mu, by the integral of the proof (general X through its Laplace transform).")
def _lemma_3_1():
    inner = d.inner_obsolescence_integral()
    inner_ok = _zero(inner - (d.t - (1 - sp.exp(-d.mu * d.t)) / d.mu))
    printed = d.d * d.m - (1 - d.h**d.d) / d.mu
    general_ok = _zero(d.expected_obsolescence() - printed)
    erl = [_zero(d.expected_obsolescence_erlang(n) - printed.subs({d.d: n, d.m: 1 / d.nu, d.h: d.nu / (d.nu + d.mu)})) for n in (1, 2, 3)]
    return Outcome.judge(inner_ok and general_ok and all(erl),
                         f"inner integral = x - (1-e^(-mu x))/mu: {inner_ok}; integrated against G: {d.expected_obsolescence()} == printed: {general_ok}; "
                         f"direct Erlang(d) integration d=1,2,3 (X ~ Exp(nu)) matches: {erl}")


@claim(f"{P}.lemma-3.1.simulation", source=src("§3", "Lemma 3.1"), method=Method.SIMULATION,
       statement="Lemma 3.1 against Monte Carlo of Z = (X_1+...+X_d - R)^+ for six access laws.")
def _lemma_3_1_mc():
    rng = np.random.default_rng(31)
    rows, ok = [], True
    for name, X in access_zoo().items():
        n = 200000
        for dd, mu in ((1, 0.7), (3, 0.3)):
            tot = sum(X.sample(rng, n) for _ in range(dd))
            z = np.maximum(0.0, tot - rng.exponential(1 / mu, n))
            exact = float(gen.expected_obsolescence(dd, X.mean, mu, float(X.h(mu))))
            se = z.std(ddof=1) / math.sqrt(n)
            good = abs(z.mean() - exact) <= SIMULATION_SIGMAS * se
            ok &= good
            rows.append(f"{name} d={dd}: {exact:.5f} vs MC {z.mean():.5f}±{se:.1g}")
    return Outcome.judge(ok, "; ".join(rows))


# --- Theorem 3.1 ----------------------------------------------------------------------
# Liu–Nain's Proposition 7 is the same statement: one verdict, computed in liu_nain._orderings
# (two-point counterexample decided exactly; the corrected form derived from Lemma 3.1).

@claim(f"{P}.thm-3.1", source=src("§3", "Theorem 3.1"), method=Method.INTERVAL,
       statement="X' <=icx X implies r_i(X') <= r_i(X) for every page under any scheduling policy.")
def _thm_3_1():
    return ordering_outcome()


@claim(f"{P}.thm-3.1.laplace", source=src("§3", "remark after Lemma 3.1 (Laplace-transform ordering)"), method=Method.INTERVAL,
       statement="Theorem 3.1 still holds when the increasing convex ordering is replaced by the weaker Laplace-transform ordering.")
def _thm_3_1_laplace():
    return laplace_outcome()


# --- Theorem 3.2 ----------------------------------------------------------------------

def _majorizes(a, b) -> bool:
    A, B = np.sort(a)[::-1].cumsum(), np.sort(b)[::-1].cumsum()
    return A[-1] == B[-1] and bool(np.all(A >= B - ROUNDING_SLACK_ABS))


@claim(f"{P}.thm-3.2", source=src("§3", "Theorem 3.2"), method=Method.FLOAT,
       statement="For a fixed number of accesses, sum_j E[Z^i_j] is Schur convex in the distances d_j (random majorizing pairs).")
def _thm_3_2():
    rng = np.random.default_rng(32)
    cases, bad = 0, []
    for name, X in access_zoo().items():
        for _ in range(40):
            n = int(rng.integers(2, 7))
            dv = rng.integers(1, 12, n)
            dv2 = dv.copy()
            for _ in range(int(rng.integers(1, 4))):  # Robin Hood transfers give dv > dv2
                i, j = np.argmax(dv2), np.argmin(dv2)
                if dv2[i] - dv2[j] >= 2:
                    dv2[i] -= 1
                    dv2[j] += 1
            mu = float(np.exp(rng.uniform(-2, 1)))
            h = float(X.h(mu))
            tot = lambda v: float(np.sum(gen.expected_obsolescence(v.astype(float), X.mean, mu, h)))  # noqa: E731
            cases += 1
            if not (_majorizes(dv, dv2) and tot(dv) >= tot(dv2) - ROUNDING_SLACK_REL * abs(tot(dv))):
                bad.append((name, dv.tolist(), dv2.tolist()))
    return Outcome.judge(not bad, f"{cases} majorizing pairs d > d' over six laws: total E[Z](d) >= total E[Z](d') in all; violations {bad[:3]}")


# --- Theorem 3.3 ----------------------------------------------------------------------

@claim(f"{P}.thm-3.3", source=src("§3", "Theorem 3.3"), method=Method.FLOAT,
       statement="r_i >= (1/E[X])(E[X] - f_i/mu_i + (f_i/mu_i) h_i^(1/f_i)) for random cyclic schedules; equality for round robin and f_i = 2^-k_i.")
def _thm_3_3():
    rng = np.random.default_rng(33)
    worst, cases = math.inf, 0
    for X in access_zoo().values():
        for _ in range(20):
            N = int(rng.integers(1, 7))
            mu = random_rates(rng, N)
            p = s.make_problem(mu, X)
            res = s.cyclic_cost(random_cyclic(rng, N, int(rng.integers(N, 5 * N + 2))), p)
            lb = gen.rate_lower_bound(res.frequencies, X.mean, mu, p.h)
            worst = min(worst, float(np.min(res.rates - lb)))
            cases += 1
    # Tightness examples of the text.
    X = Gamma(2.0, 2.0)
    p = s.make_problem([0.3, 1.0, 2.0], X)
    rr = s.cyclic_cost([0, 1, 2], p)
    eq_rr = np.max(np.abs(rr.rates - gen.rate_lower_bound(rr.frequencies, X.mean, p.rates, p.h)))
    p4 = s.make_problem([0.3, 1.0, 2.0, 0.5], X)
    dy = s.cyclic_cost([0, 1, 0, 2, 0, 1, 0, 3], p4)  # f = 1/2, 1/4, 1/8, 1/8
    eq_dy = np.max(np.abs(dy.rates - gen.rate_lower_bound(dy.frequencies, X.mean, p4.rates, p4.h)))
    ok = worst >= -CLOSED_FORM_REL and eq_rr < CLOSED_FORM_REL and eq_dy < CLOSED_FORM_REL
    return Outcome.judge(ok, f"{cases} random schedules: min_i (r_i - bound) = {worst:.3g} (>= 0); round robin |r - bound| = {eq_rr:.2g}; "
                             f"f = (1/2, 1/4, 1/8, 1/8) schedule |r - bound| = {eq_dy:.2g}")


# --- Theorem 3.4 ----------------------------------------------------------------------

@claim(f"{P}.thm-3.4.derivation", source=src("§3", "Theorem 3.4, (7)-(10)"), method=Method.SYMBOLIC,
       statement="Stationarity (8) of the Lagrangian of (7); 1 - y + y ln y strictly decreasing on (0,1); hence x_i = ln h_i / sum ln h_j and C* = c0(mu - nu + nu prod h).")
def _thm_3_4_derivation():
    st = d.lagrangian_stationarity()
    printed8 = -(d.c * d.nu / d.mu) * (1 - d.h ** (1 / d.x) + sp.log(d.h) / d.x * d.h ** (1 / d.x)) + d.lam
    ok8 = _zero(st - printed8)
    y = sp.Symbol("y", positive=True)
    br = d.stationarity_in_y()
    ok_y = _zero(br - (1 - y + y * sp.log(y))) and _zero(sp.diff(br, y) - sp.log(y))
    xi = d.optimal_frequencies_proportional()
    S = sp.Symbol("S", negative=True)
    ok10 = _zero(xi - sp.log(d.h) / S)
    # Objective (7) summed over n symbolic pages at x_i = ln h_i / S (derive.scheduling.cstar_at_optimum).
    cstar = d.cstar_at_optimum()
    P = sp.Symbol("P", positive=True)
    okC = _zero(d.cstar_lower_bound() - d.c0 * (d.mu - d.nu + d.nu * P))
    return Outcome.judge(ok8 and ok_y and ok10 and okC,
                         f"(8) derived == printed: {ok8}; bracket = 1 - y + y ln y with derivative ln y < 0: {ok_y}; x_i = {xi} (S = sum ln h): {ok10}; "
                         f"C* at (10), summed over n pages: {cstar} == c0(mu - nu + nu prod h): {okC}")


@claim(f"{P}.thm-3.4.optimiser", source=src("§3", "Theorem 3.4, (6), (10)"), method=Method.FLOAT,
       statement="C* = c0(mu - nu + nu prod h) and x_i ∝ ln(1/h_i) agree with a numeric optimiser of (7) on random instances of six access laws.")
def _thm_3_4_opt():
    rng = np.random.default_rng(34)
    worst_c, worst_x, cases = 0.0, 0.0, 0
    for X in access_zoo().values():
        for _ in range(4):
            N = int(rng.integers(2, 7))
            c0 = float(rng.uniform(0.5, 2))
            mu = random_rates(rng, N)
            p = s.make_problem(mu, X, c0 * mu)
            res = s.optimal_frequencies(p)
            num = _slsqp(lambda x: s.lower_bound_objective(p, x), N)
            worst_c = max(worst_c, abs(num.fun - res.lower_bound) / res.lower_bound)
            worst_x = max(worst_x, float(np.max(np.abs(num.x - res.frequencies))))
            cases += 1
    ok = worst_c < OPTIMISER_COST_REL and worst_x < OPTIMISER_FREQUENCY_ABS
    return Outcome.judge(ok, f"{cases} instances: max relative |C*_SLSQP - C*_closed| = {worst_c:.2g}, max |x_SLSQP - x_closed| = {worst_x:.2g}")


@claim(f"{P}.thm-3.4.bound", source=src("§3", "Theorem 3.4, (6)"), method=Method.FLOAT,
       statement="C >= c0(mu - nu + nu prod h) > 0 for every schedule (random cyclic and golden-ratio schedules, six laws).")
def _thm_3_4_bound():
    rng = np.random.default_rng(341)
    worst, pos, cases = math.inf, math.inf, 0
    for X in access_zoo().values():
        for _ in range(10):
            N = int(rng.integers(1, 6))
            mu = random_rates(rng, N)
            p = s.make_problem(mu, X)
            lb = s.optimal_frequencies(p)
            for seq in (random_cyclic(rng, N, int(rng.integers(N, 4 * N + 2))), s.golden_schedule(lb.frequencies, 12).sequence):
                worst = min(worst, (s.cyclic_cost(seq, p).cost - lb.lower_bound) / lb.lower_bound)
                cases += 1
            pos = min(pos, lb.lower_bound)
    return Outcome.judge(worst >= -ROUNDING_SLACK_ABS and pos > 0, f"{cases} schedules: min (C - C*)/C* = {worst:.3g}; min C* = {pos:.3g} > 0")


@claim(f"{P}.thm-3.4.general-c", source=src("§3", "Theorem 3.4, remark on general c_i"), method=Method.FLOAT,
       statement="For general c_i the KKT system (8)-(9) (solved by bisection on lambda) gives the optimum of (7): agrees with SLSQP, KKT residual small.")
def _thm_3_4_general():
    rng = np.random.default_rng(342)
    worst_c, worst_res, cases = 0.0, 0.0, 0
    for X in access_zoo().values():
        for _ in range(4):
            N = int(rng.integers(2, 6))
            mu = random_rates(rng, N)
            c = np.exp(rng.uniform(-1, 1, N))
            p = s.make_problem(mu, X, c)
            res = s.optimal_frequencies(p)
            num = min((_slsqp(lambda x: s.lower_bound_objective(p, x), N, x0) for x0 in (None, res.frequencies * 0.5 + 0.5 / N)), key=lambda r: r.fun)
            worst_c = max(worst_c, (res.lower_bound - num.fun) / abs(num.fun))
            worst_res = max(worst_res, res.residual)
            cases += 1
    ok = worst_c < OPTIMISER_COST_REL and worst_res < MULTIPLIER_RESIDUAL
    return Outcome.judge(ok, f"{cases} instances: max (C*_KKT - C*_SLSQP)/C* = {worst_c:.2g} (KKT never worse), max KKT residual {worst_res:.2g}")


@claim(f"{P}.thm-3.4.proportionality", source=src("§3", "remark after Theorem 3.4"), method=Method.FLOAT,
       statement="Optimal frequencies are proportional to mu_i when X is constant, but not for a general X.")
def _thm_3_4_prop():
    mu = np.array([0.2, 1.0, 3.0])
    out = {}
    for name, X in access_zoo().items():
        x = s.optimal_frequencies(s.make_problem(mu, X)).frequencies
        out[name] = float(np.max(np.abs(x - mu / mu.sum())))
    ok = out["det"] < IDENTITY_RESIDUAL and all(v > NOT_PROPORTIONAL_ABS for k, v in out.items() if k != "det")
    return Outcome.judge(ok, "max |x_i - mu_i/mu| per law: " + ", ".join(f"{k} {v:.3g}" for k, v in out.items()))
