"""Buijsrogge (2014), Chapter 7: the strategies for the offline structure.  Propositions 7.2.1, 7.3.1 and 7.3.2 by the
exact law of one step on every state of small systems (then the simulator), Greedy-Greedy (Props 7.2.3-7.2.5,
Figs 7.3-7.4), the randomized strategies (Algs 9-10, Figs 7.5-7.6), neutral and prefilled starts (Props 7.1.1, 7.2.2),
and mice and elephants (§7.4, Figs 7.7-7.9, the bound on η₂).
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import sympy as sp

from ....numeric import colours as nc
from ....numeric.colours import READINGS, simulate, step_law
from ....numeric.tolerance import SIMULATION_SIGMAS
from ...registry import Method, Outcome, claim
from ._common import src
from ._offline import C_TAB, K_TAB, colour_law, exact_none, z_line


def _states(K: int, C: int):
    return [q for q in itertools.product(range(K + 1), repeat=C) if sum(q) == K]


def _same_law_as_none(strategy: str, sizes=((2, 2), (3, 3), (2, 4), (4, 2), (4, 3))) -> tuple[bool, str]:
    """On every state (q, empty FIFO): the strategy's one-step law equals the
    law without offline structure, and the FIFO stays empty, as SymPy
    identities in p_1..p_C (constrained by sum 1 only through the laws) and r."""
    r = sp.Symbol("r", positive=True)
    checked, bad = 0, []
    for K, C in sizes:
        p = sp.symbols(f"p1:{C + 1}", positive=True)
        for q in _states(K, C):
            law = step_law(strategy, q, (), p, r)
            ref = step_law("none", q, (), p, r)
            if set(law) != set(ref) or any(sp.simplify(law[k] - ref[k]) != 0 for k in ref):
                bad.append((K, C, q))
            checked += 1
    return not bad, f"{checked} states (K, C) in {list(sizes)}: law identical to no offline structure and the " \
                    f"offline structure stays empty" + (f"; differs at {bad[:3]}" if bad else "")


def _offline_unused_sim(strategy: str, seed: int, **kw) -> tuple[bool, str]:
    p = colour_law(10_000, "1.0")
    a = simulate(p, K_TAB, 1_000_000, seed=seed, strategy=strategy, **kw)
    z, line = z_line(strategy, a, exact_none(10_000, "1.0"))
    ok = abs(z) <= SIMULATION_SIGMAS and a.p_offline.max() == 0
    return ok, f"simulation (γ=1, C=1e4, K=1000, 1e6 steps, two-sided): {line}, P_offline max {a.p_offline.max()}"


@claim("buijsrogge.offline.prop-7.2.1-source", source=src("§7.2.1", "Proposition 7.2.1, Alg. 1"),
       statement="Greedy–Neutral with priority to the source (Alg. 1): the same results as without offline structure",
       method=Method.SYMBOLIC)
def _p721_source() -> Outcome:
    ok, detail = _same_law_as_none("greedy-neutral")
    return Outcome.judge(ok, "exact one-step law of Alg. 1 (a rejected ball goes offline and the FIFO's head, that same "
                         "ball, is accepted): " + detail)


@claim("buijsrogge.offline.prop-7.2.1-offline", source=src("§7.2.1", "Proposition 7.2.1, Alg. 2"),
       statement="Greedy–Neutral with priority to the offline structure (Alg. 2): stationary colours as without "
                 "offline structure", method=Method.SIMULATION, slow=True)
def _p721_offline() -> Outcome:
    p = colour_law(10_000, "1.0")
    a = simulate(p, K_TAB, 2_000_000, seed=721, strategy="greedy-neutral-offline")
    z, line = z_line("Alg. 2", a, exact_none(10_000, "1.0"))
    return Outcome.judge(abs(z) <= SIMULATION_SIGMAS,
                         f"γ=1, C=1e4, K=1000, 2e6 steps, two-sided: {line} vs exact no-offline "
                         f"{exact_none(10_000, '1.0'):.3f} (product form); every drawn ball enters online in FIFO "
                         f"order, the source draws equal the steps ({a.source_draws}); P_offline max "
                         f"{a.p_offline.max():.3f}")


@claim("buijsrogge.offline.prop-7.3.1", source=src("§7.3", "Proposition 7.3.1, Alg. 7"),
       statement="Randomized strategy (Alg. 7): no ball is added to the offline structure", method=Method.SYMBOLIC)
def _p731() -> Outcome:
    ok, detail = _same_law_as_none("randomized")
    ok2, sim = _offline_unused_sim("randomized", 731, r=0.5)
    return Outcome.judge(ok and ok2, "exact one-step law of Alg. 7 (r symbolic): " + detail + "; " + sim)


@claim("buijsrogge.offline.prop-7.3.2", source=src("§7.3", "Proposition 7.3.2, Alg. 8"),
       statement="Randomized strategy – a (Alg. 8): the result in stationarity is the same as without offline structure",
       method=Method.SYMBOLIC)
def _p732() -> Outcome:
    ok, detail = _same_law_as_none("randomized-a")
    ok2, sim = _offline_unused_sim("randomized-a", 732, r=0.5)
    return Outcome.judge(ok and ok2, "exact one-step law of Alg. 8 (r symbolic): " + detail + "; " + sim)


def _stuck_runs(strategy: str, seeds) -> tuple[bool, list[str]]:
    """Runs of ``strategy`` (γ = 1, C = 1e4, K = 1000, 1e6 steps) that must get stuck: every colour held
    online or offline, so no ball can be accepted (the step's draw cap is hit with probability 0 of success)."""
    p = colour_law(10_000, "1.0")
    rows, ok = [], True
    for seed in seeds:
        a = simulate(p, K_TAB, 1_000_000, seed=seed, strategy=strategy)
        ok = ok and a.stopped_at > 0 and a.free_mass == 0
        rows.append(f"seed {seed}: stuck at t = {a.stopped_at}, mass of colours neither online nor offline {a.free_mass}")
    return ok, rows


@claim("buijsrogge.offline.prop-7.2.3", source=src("§7.2.2", "Proposition 7.2.3, Alg. 4"),
       statement="Greedy–Greedy–Offline (Alg. 4) cannot be continued after finite time", method=Method.SIMULATION,
       slow=True)
def _p723() -> Outcome:
    ok, rows = _stuck_runs("greedy-greedy", (7231, 7232))
    return Outcome.judge(ok, "γ=1, C=1e4, K=1000, Alg. 4 as printed (no fallback): every run reaches a state where "
                         "the online and offline structures together hold every colour, so no ball can ever be "
                         "accepted (the step's 10^7-draw cap is hit with acceptance probability exactly 0): "
                         + "; ".join(rows))


@claim("buijsrogge.offline.prop-7.2.4", source=src("§7.2.2", "Proposition 7.2.4, Alg. 5, Fig 7.3"),
       statement="Alg. 5 does not improve the stationary number of colours", method=Method.SIMULATION)
def _p724() -> Outcome:
    p = colour_law(10_000, "1.0")
    a = simulate(p, K_TAB, 2_000_000, seed=14, strategy="greedy")
    z, line = z_line("Alg. 5", a, exact_none(10_000, "1.0"))
    return Outcome.judge(z <= SIMULATION_SIGMAS, f"γ=1, C=1e4, K=1000, 2e6 steps: {line} vs exact no-offline "
                         f"{exact_none(10_000, '1.0'):.3f}. One-sided (the statement is 'does not improve'; a lower "
                         f"level would agree with it)")


@claim("buijsrogge.offline.prop-7.2.5", source=src("§7.2.2", "Proposition 7.2.5, Alg. 6"),
       statement="Greedy–Greedy–Offline – a (Alg. 6) cannot be continued after finite time", method=Method.SIMULATION,
       slow=True)
def _p725() -> Outcome:
    ok, rows = _stuck_runs("greedy-a", (7251, 7252))
    return Outcome.judge(ok, "γ=1, C=1e4, K=1000; " + READINGS["Alg. 6"] + ": " + "; ".join(rows) + ". (The "
                         "proposition's text says 'see Algorithm 4'; it is about Algorithm 6.)")


def _stop_times(strategy: str, seed0: int, n: int) -> np.ndarray:
    p = colour_law(10_000, "1.0")
    return np.array([simulate(p, K_TAB, 1_000_000, seed=seed0 + k, strategy=strategy, stop_at=0.99).stopped_at
                     for k in range(n)], dtype=float)


@claim("buijsrogge.offline.fig-7.4", source=src("§7.2.2", "Fig 7.4 and the text after it"),
       statement="Alg. 6 does not increase the time until P_offline > 0.99 compared with Alg. 4 (Fig 7.2)",
       method=Method.SIMULATION, slow=True)
def _fig74() -> Outcome:
    a = _stop_times("greedy-greedy", 7400, 12)
    b = _stop_times("greedy-a", 7500, 12)
    diff = b.mean() - a.mean()
    se = math.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
    z = diff / se
    return Outcome.judge(z <= SIMULATION_SIGMAS and (a > 0).all() and (b > 0).all(),
                         f"γ=1, C=1e4, K=1000, 12 seeded runs each: time to P_offline > 0.99 Alg. 4 {a.mean():.0f} ± "
                         f"{a.std(ddof=1):.0f}, Alg. 6 {b.mean():.0f} ± {b.std(ddof=1):.0f}; difference {diff:+.0f} ± "
                         f"{se:.0f} (z = {z:+.2f}). One-sided ('does not increase')")


def _drift_z(colours: np.ndarray, batches: int = 10) -> tuple[float, str]:
    """Stationarity diagnostic (Geweke-type, batch means): the mean of the third quarter of the run against the
    fourth, each with a batch-means standard error; returns (z, text)."""
    n = colours.size
    halves = []
    for part in (colours[n // 2:3 * n // 4], colours[3 * n // 4:]):
        m = part[:part.size // batches * batches].reshape(batches, -1).mean(axis=1)
        halves.append((m.mean(), m.std(ddof=1) / math.sqrt(batches)))
    (a, sa), (b, sb) = halves
    z = (b - a) / math.hypot(sa, sb)
    return z, f"drift within the second half (3rd vs 4th quarter, batch means) {a:.2f} ± {sa:.2f} -> {b:.2f} ± {sb:.2f}, z = {z:+.2f}"


@claim("buijsrogge.offline.randomized-b", source=src("§7.3", "Algorithm 9, Fig 7.5"),
       statement="Randomized strategy – b (Alg. 9): stationarity shows the same behaviour as without offline structure",
       method=Method.SIMULATION, slow=True)
def _rand_b() -> Outcome:
    p = colour_law(10_000, "1.0")
    ex = nc.exact_stationary(p, K_TAB)
    rows, ok, stationary = [], True, True
    # r = 0.8 fills the offline structure to P_offline = 0.99 before it settles: 5e6 steps leave a second half that
    # still drifts upwards, so that run is 4x longer
    for r, steps in ((0.5, 5_000_000), (0.8, 20_000_000)):
        a = simulate(p, K_TAB, steps, seed=15, strategy="randomized-b", r=r, samples=4000)
        z, line = z_line(f"r = {r}, {steps:.0e} steps", a, ex.colours)
        dz, drift = _drift_z(np.asarray(a.colours, dtype=float))
        ok = ok and abs(z) <= SIMULATION_SIGMAS
        stationary = stationary and abs(dz) <= SIMULATION_SIGMAS
        rows.append(f"{line}, P_offline at the end {a.p_offline[-1]:.3f}; {drift}")
    detail = (f"γ=1, C=1e4, K=1000 (Fig 7.5), second-half means, two-sided against the exact no-offline level "
              f"{ex.colours:.6f} (product form, {ex.digits} digits): " + "; ".join(rows))
    if not stationary:
        detail += ". A run failed the stationarity diagnostic: its mean is not a stationary level"
    return Outcome.judge(ok and stationary, detail)


@claim("buijsrogge.offline.fig-7.6", source=src("§7.3", "Algorithm 10, Fig 7.6 and the text after it"),
       statement="Alg. 10 (randomized + Greedy–Greedy combined): the randomization (r) has no effect at all",
       method=Method.SIMULATION, slow=True)
def _fig76() -> Outcome:
    p = colour_law(5000, "1.0")
    levels = {}
    for r, seed0 in ((0.2, 7600), (0.8, 7700)):
        levels[r] = np.array([simulate(p, K_TAB, 1_000_000, seed=seed0 + k, strategy="combined", r=r).mean
                              for k in range(8)])
    a, b = levels[0.2], levels[0.8]
    se = math.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
    z = (b.mean() - a.mean()) / se
    return Outcome.judge(abs(z) <= SIMULATION_SIGMAS,
                         f"γ=1, C=5000, K=1000 (Fig 7.6), 8 seeded runs of 1e6 steps per r, second-half level: r = 0.2 "
                         f"{a.mean():.2f} ± {a.std(ddof=1):.2f}, r = 0.8 {b.mean():.2f} ± {b.std(ddof=1):.2f}; "
                         f"difference z = {z:+.2f} (two-sided). " + READINGS["Alg. 10"])


@claim("buijsrogge.offline.prop-7.1.1", source=src("§7.1", "Proposition 7.1.1"),
       statement="neutral source strategy: identical to no offline structure", method=Method.SIMULATION, slow=True)
def _p711() -> Outcome:
    p = colour_law(10_000, "1.0")
    a = simulate(p, K_TAB, 300_000, seed=11, strategy="neutral")
    b = simulate(p, K_TAB, 300_000, seed=11, strategy="greedy-neutral")
    same = np.array_equal(a.colours, b.colours)
    z, line = z_line("neutral", a, exact_none(10_000, "1.0"))
    return Outcome.judge(same and abs(z) <= SIMULATION_SIGMAS and a.p_offline.max() == 0,
                         f"offline never used (P_offline max {a.p_offline.max()}); Alg. 1 path identical to neutral: "
                         f"{same}; {line} vs exact no-offline {exact_none(10_000, '1.0'):.3f} (two-sided)")


@claim("buijsrogge.offline.prop-7.2.2", source=src("§7.2.1", "Proposition 7.2.2, Fig 7.1"),
       statement="Greedy–Neutral–Source with K balls prefilled: stationary colours as without offline structure",
       method=Method.SIMULATION)
def _p722() -> Outcome:
    p = colour_law(10_000, "1.0")
    rows, ok = [], True
    for strategy, alg in (("greedy-neutral", "Alg. 1 (the text)"), ("greedy-neutral-offline", "Alg. 2 (the caption)")):
        a = simulate(p, K_TAB, 1_000_000, seed=12, strategy=strategy, prefill=K_TAB)
        z, line = z_line(alg, a, exact_none(10_000, "1.0"))
        ok = ok and abs(z) <= SIMULATION_SIGMAS
        rows.append(line)
    return Outcome.judge(ok, f"γ=1, C=1e4, K=1000, K balls prefilled, 1e6 steps, two-sided against exact no-offline "
                         f"{exact_none(10_000, '1.0'):.3f}: " + "; ".join(rows) + ". Fig 7.1's caption names Alg. 2, "
                         "the text source priority (Alg. 1); both readings are checked")


@claim("buijsrogge.offline.mice-improves", source=src("§7.4", "Fig 7.7 vs Fig 7.8"),
       statement="mice and elephants (β = 10) raises the colours online far above the no-offline baseline",
       method=Method.SIMULATION, slow=True)
def _mice() -> Outcome:
    p = colour_law(C_TAB, "1.1")
    a = simulate(p, K_TAB, 500_000, seed=16, strategy="mice", beta=10)
    ex = exact_none(C_TAB, "1.1")
    return Outcome.judge(a.mean - SIMULATION_SIGMAS * a.stderr > 2 * ex,
                         f"γ=1.1, C=1e5, K=1000, β=10: {a.mean:.2f} ± {a.stderr:.2f} colours, {a.elephants} elephants "
                         f"(Table 7.1: 699), vs exact no-offline {ex:.2f}. One-sided ('increased')")


@claim("buijsrogge.offline.fig-7.9", source=src("§7.4", "Fig 7.9 and the text after it"),
       statement="initialising with one ball per elephant colour: the same stationary level as Fig 7.8, reached in "
                 "fewer steps (a higher average)", method=Method.SIMULATION, slow=True)
def _fig79() -> Outcome:
    p = colour_law(C_TAB, "0.9")
    runs = {fill: simulate(p, K_TAB, 300_000, seed=79, strategy="mice", beta=5, fill=fill, every=1000)
            for fill in ("source", "one-per-elephant")}
    a, b = runs["source"], runs["one-per-elephant"]
    se = math.hypot(a.stderr, b.stderr)
    z = (b.mean - a.mean) / se
    early = slice(0, 20)  # t <= 20 000: the approach to stationarity
    ea, eb = a.colours[early].mean(), b.colours[early].mean()
    return Outcome.judge(abs(z) <= SIMULATION_SIGMAS and eb > ea,
                         f"γ=0.9, β=5, C=1e5, K=1000: second-half level Fig 7.8 init {a.mean:.2f} ± {a.stderr:.2f}, "
                         f"Fig 7.9 init {b.mean:.2f} ± {b.stderr:.2f} (z = {z:+.2f}, two-sided); average over t <= "
                         f"2e4: {ea:.1f} vs {eb:.1f} (the new initialisation higher)")


@claim("buijsrogge.offline.bound-7.4", source=src("§7.4.1", "η₂ = η₁q*/(α − q*) ≤ cq*/(α − q*) ≤ cq/(α − q)"),
       statement="the stationarity balance gives η₂ = η₁q*/(α−q*), and η₂ ≤ cq/(α−q) for η₁ ≤ c, q* ≤ q < α",
       method=Method.SYMBOLIC)
def _bound74() -> Outcome:
    e1, e2, a, qs, q, c = sp.symbols("eta1 eta2 alpha qstar q c", positive=True)
    balance = sp.Eq(e2 - e2 / (e1 + e2) * (a * e2 / e2) + qs, e2)
    sol = sp.solve(balance, e2)
    ok_sol = len(sol) == 1 and sp.simplify(sol[0] - e1 * qs / (a - qs)) == 0
    f = qs / (a - qs)
    slope = sp.simplify(sp.diff(f, qs))
    ok_mono = sp.simplify(slope - a / (a - qs) ** 2) == 0  # > 0 for alpha > 0: f increases with q*
    # first inequality: (c - eta1) f >= 0; second: c (f(q) - f(q*)) = c alpha (q - q*)/((alpha-q)(alpha-q*)) >= 0
    gap = sp.factor(c * q / (a - q) - c * qs / (a - qs))
    ok_gap = sp.simplify(gap - c * a * (q - qs) / ((a - q) * (a - qs))) == 0
    return Outcome.judge(ok_sol and ok_mono and ok_gap,
                         f"solve(balance, η₂) = {sol}; d/dq* [q*/(α−q*)] = {slope} > 0; cq/(α−q) − cq*/(α−q*) = {gap}, "
                         "≥ 0 when q* ≤ q < α; so both inequalities hold under η₁ ≤ c and q* ≤ q < α (the text's "
                         "stability argument q* < α). The balance itself is the thesis's mean-field assumption")
