"""Claims of Coffman–Liu–Weber (1997) §2–§4 (restated in Liu–Nain 2005, §1.3):
Lemma 3.1, Theorems 3.1–3.4, Lemma 4.1 and its expansions, Theorem 4.1.

Seed ``002_4ad982fbd4856c9a.txt``; derivations from
:mod:`crawlmath.derive.scheduling`, numbers from
:mod:`crawlmath.numeric.scheduling._frequencies` and :mod:`crawlmath.numeric.scheduling._access_time`.
The golden-ratio section (§5) is in :mod:`.coffman_golden`.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy as sp
from scipy import optimize

from ...derive import is_identically_zero as _zero
from ...derive import scheduling as d
from ...numeric.scheduling import _frequencies as s
from ...numeric.scheduling._access_time import Deterministic, Exponential, Gamma, HyperExponential, PhaseTypeAccess, Uniform
from ...numeric.generated import scheduling as gen
from ...numeric.tolerance import SIMULATION_SIGMAS
from ..registry import Method, Outcome, Source, claim
from .liu_nain_sched import laplace_outcome, ordering_outcome

P = "coffman.sched"


def src(section: str, ref: str) -> Source:
    """A :class:`Source` in Coffman–Liu–Weber 1997 (section, reference)."""
    return Source("coffman", section, ref)


def access_zoo() -> dict:
    """One access law of each kind (mean 1 except where noted)."""
    return {
        "det": Deterministic(1.0),
        "exp": Exponential(1.0),
        "gamma": Gamma(2.5, 2.5),
        "uniform": Uniform(0.2, 1.8),
        "hyperexp": HyperExponential((0.3, 0.7), (0.4, 2.8)),
        "ph": PhaseTypeAccess([0.6, 0.4], [[-2.0, 1.5], [0.0, -1.0]]),
    }


def random_rates(rng, N: int, spread: float = 2.0) -> np.ndarray:
    """N random change rates mu_i = e^U, U uniform on [-spread, spread/2]."""
    return np.exp(rng.uniform(-spread, spread / 2, N))


def random_cyclic(rng, N: int, K: int) -> np.ndarray:
    """A random cyclic schedule of length K >= N: every page once, the K − N other accesses uniform, shuffled."""
    seq = np.concatenate([np.arange(N), rng.integers(0, N, K - N)])
    rng.shuffle(seq)
    return seq


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
# Liu–Nain's Proposition 7 is the same statement: one verdict, computed in liu_nain_sched
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
    return A[-1] == B[-1] and bool(np.all(A >= B - 1e-12))


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
            if not (_majorizes(dv, dv2) and tot(dv) >= tot(dv2) - 1e-12 * abs(tot(dv))):
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
    ok = worst >= -1e-13 and eq_rr < 1e-13 and eq_dy < 1e-13
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


def _slsqp(objective, N, x0=None):
    x0 = np.full(N, 1.0 / N) if x0 is None else x0
    res = optimize.minimize(objective, x0, method="SLSQP", bounds=[(1e-9, 1.0)] * N,
                            constraints=[{"type": "eq", "fun": lambda x: x.sum() - 1}], options={"ftol": 1e-15, "maxiter": 500})
    return res


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
    ok = worst_c < 1e-7 and worst_x < 1e-3
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
    return Outcome.judge(worst >= -1e-12 and pos > 0, f"{cases} schedules: min (C - C*)/C* = {worst:.3g}; min C* = {pos:.3g} > 0")


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
    ok = worst_c < 1e-7 and worst_res < 1e-8
    return Outcome.judge(ok, f"{cases} instances: max (C*_KKT - C*_SLSQP)/C* = {worst_c:.2g} (KKT never worse), max KKT residual {worst_res:.2g}")


@claim(f"{P}.thm-3.4.proportionality", source=src("§3", "remark after Theorem 3.4"), method=Method.FLOAT,
       statement="Optimal frequencies are proportional to mu_i when X is constant, but not for a general X.")
def _thm_3_4_prop():
    mu = np.array([0.2, 1.0, 3.0])
    out = {}
    for name, X in access_zoo().items():
        x = s.optimal_frequencies(s.make_problem(mu, X)).frequencies
        out[name] = float(np.max(np.abs(x - mu / mu.sum())))
    ok = out["det"] < 1e-14 and all(v > 1e-3 for k, v in out.items() if k != "det")
    return Outcome.judge(ok, "max |x_i - mu_i/mu| per law: " + ", ".join(f"{k} {v:.3g}" for k, v in out.items()))


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
        good = abs(m - exact) <= SIMULATION_SIGMAS * se + 2e-4  # + wrap-around bias O(1/K)
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
            printed_ok &= abs(ratio - printed) < 1e-4 * printed
            corrected_ok &= abs(ratio - corrected) < 1e-4 * corrected
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
            printed_ok &= abs(ratio - printed) < 1e-5
            corrected_ok &= abs(ratio - corrected) < 1e-5
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
    ok = worst_c < 1e-8 and worst_x < 1e-4 and worst_gap >= 0
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
            same = bool(np.allclose(x15, res.frequencies, atol=1e-9))
            cases += 1
            # valid <=> (15) is non-negative <=> it is the constrained optimum
            if valid != (x15.min() >= 0) or valid != same:
                agree = False
                detail.append(f"valid={valid}, min x15={x15.min():.3g}, same={same}")
            if abs(x15.sum() - 1) > 1e-9:
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


# --- §5 opening remarks and (17) ------------------------------------------------------

@claim(f"{P}.cstar-positive", source=src("§3", "end of proof of Theorem 3.4"), method=Method.FLOAT,
       statement="prod h_i = E exp(-sum mu_i X_i) > 1 - mu/nu, so C* > 0.")
def _cstar_pos():
    rng = np.random.default_rng(17)
    worst = math.inf
    for X in access_zoo().values():
        for _ in range(20):
            mu = random_rates(rng, int(rng.integers(1, 8)), spread=3)
            p = s.make_problem(mu, X)
            worst = min(worst, float(np.prod(p.h)) - (1 - p.mu / p.nu))
    return Outcome.judge(worst > 0, f"min over 120 instances of prod h - (1 - mu/nu) = {worst:.3g} > 0")


@claim(f"{P}.eq-17", source=src("§5", "(17)"), method=Method.NUMERIC_HP,
       statement="With mu fixed and every mu_i -> 0, C* -> c0(mu - nu + nu e^(-mu/nu)).")
def _eq_17():
    rows, ok = [], True
    for name in ("exp", "gamma", "uniform", "hyperexp"):
        X = access_zoo()[name]
        errs = []
        with mpmath.workdps(30):
            for N in (10, 100, 1000, 10000):
                mu_i = mpmath.mpf(2) / N  # equal pages, mu = 2
                prodh = X.h_mp(mu_i) ** N
                nu = mpmath.mpf(1) / mpmath.mpf(X.mean)
                cst = gen.cstar_mp(1, 2, nu, prodh)
                errs.append(float(abs(cst - gen.cstar_limit_mp(1, 2, nu))))
        shrinking = all(b < a / 5 for a, b in zip(errs, errs[1:]))
        ok &= shrinking and errs[-1] < 1e-3
        rows.append(f"{name}: |C* - (17)| at N=10..1e4: " + ", ".join(f"{e:.2g}" for e in errs))
    return Outcome.judge(ok, "; ".join(rows) + " (O(1/N))")


@claim(f"{P}.cyclic-small-mu", source=src("§5", "remark: cyclic policies as mu -> 0"), method=Method.FLOAT,
       statement="For any cyclic policy C = O(mu^2) as the total change rate mu -> 0.")
def _small_mu():
    rng = np.random.default_rng(50)
    rows, ok = [], True
    for name in ("det", "exp", "hyperexp"):
        X = access_zoo()[name]
        base = random_rates(rng, 4)
        seq = random_cyclic(rng, 4, 11)
        ratios = []
        for scale in (1e-1, 1e-2, 1e-3):
            mu = base / base.sum() * scale
            ratios.append(s.cyclic_cost(seq, s.make_problem(mu, X)).cost / scale**2)
        ok &= max(ratios) / min(ratios) < 1.5
        rows.append(f"{name}: C/mu^2 = " + ", ".join(f"{r:.4g}" for r in ratios))
    return Outcome.judge(ok, "; ".join(rows) + " (bounded as mu -> 0)")

