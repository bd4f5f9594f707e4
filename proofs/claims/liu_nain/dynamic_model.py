"""Claims of Liu–Nain (2005) §1.2.2: the crawler-activation MDP, model (1.13)–(1.16) and its errata, Lemma 2, the
multichain example, the static policy's cost, Propositions 5 and 6.  Computations live in
:mod:`crawlmath.numeric.mdp`.
"""
from __future__ import annotations

import numpy as np

from ....numeric import mdp as M
from ....numeric.linalg import closed_classes
from ...readings.liu_nain import printed_row_sums, printed_rows, printed_successors_outside
from ....numeric.tolerance import FLOAT_REL, RVI_CONVERGED_TOL, STRUCTURE_ABS, close, matches_printed
from ...registry import Method, Outcome, claim
from ._dynamic import P, MU, FIGS, FIG_LAM, FIG_K, FIG_N, src, FIG_MDP, rvi


# --------------------------------------------------------------- the model


@claim(f"{P}.state-space", source=src("§1.2.2", "definition of X and A_x"), method=Method.FLOAT,
       statement="|X| = 3(K+1)(N+1) − (N+1) − (K+1) − 1 and the corrected law keeps every row stochastic and inside X")
def _state_space() -> Outcome:
    worst, details = 0.0, []
    for K, N in ((2, 1), (5, 16), (15, 11), (3, 40)):
        m = M.CrawlerMDP(0.1, MU, K, N, 1.0)
        want = 3 * (K + 1) * (N + 1) - (N + 1) - (K + 1) - 1
        if m.n != want:
            return Outcome.failed(f"K={K}, N={N}: |X| = {m.n}, formula gives {want}")
        for a in (0, 1):
            _, prob = m.successors[a]
            ok = m.allowed[:, a]
            worst = max(worst, float(np.abs(prob[ok].sum(axis=1) - 1).max()), float(-prob.min()))
        details.append(f"K={K},N={N}:|X|={m.n}")
    # successors inside X is enforced by CrawlerMDP.successors (raises otherwise)
    return Outcome.judge(worst < STRUCTURE_ABS, f"{', '.join(details)}; max |row sum − 1| = {worst:.1e}, all successors in X")


@claim(f"{P}.eq-1.14", source=src("§1.2.2", "eq. (1.14), departure rows"), method=Method.FLOAT,
       statement="transition probabilities after a departure (s = 0)")
def _eq_1_14() -> Outcome:
    m = M.CrawlerMDP(**FIG_MDP, gamma=1.0)
    err, where = printed_row_sums(m)
    frozen = M.policy_iteration(M.CrawlerMDP(**FIG_MDP, gamma=1.0, law="printed-1.14")).gain
    right = M.policy_iteration(m).gain
    ok_printed_fails = err > STRUCTURE_ABS
    ok_frozen_misses = not matches_printed(frozen, FIGS["1.5"][1])
    ok_right = matches_printed(right, FIGS["1.5"][1])
    if ok_printed_fails and ok_frozen_misses and ok_right:
        return Outcome.erratum_(
            f"printed rows sum to up to 1 + {err:.3f} (at x={where[0]}, a={where[1]}); with the sign fixed but λr kept, "
            f"Fig 1.5 costs {frozen:.5f} ≠ 0.20907; corrected law gives {right:.5f}",
            printed="P(x'=(q−1,min{r+a,N},1)) = λr/ν;  P(x'=(q−1,min{r+a,N},2)) = 1 − (μ1(q>1) − λr)/ν",
            corrected="P(x'=(q−1,r',1)) = λr'/ν;  P(x'=(q−1,r',2)) = 1 − (μ1(q>1) + λr')/ν,  r' = min{r+a,N}",
            evidence=f"printed row sums reach {1 + err:.3f}; the activated crawler must count in the next epoch's "
                     f"arrival probability: only r' reproduces Fig 1.5 (0.20907 vs {frozen:.5f})")
    return Outcome.failed(f"printed max row-sum error {err:.3g}; frozen-rate gain {frozen:.6f}; corrected gain {right:.6f}")


@claim(f"{P}.eq-1.15", source=src("§1.2.2", "eq. (1.15), arrival rows"), method=Method.FLOAT,
       statement="transition probabilities after an arrival (s = 1)")
def _eq_1_15() -> Outcome:
    m = M.CrawlerMDP(**FIG_MDP, gamma=1.0)
    outside = [o for o in printed_successors_outside(m) if o[0][2] == 1]
    if not outside:
        return Outcome.failed("no printed arrival row leaves X (expected (q+1 capped by N) to leave X when N > K)")
    x, a, y = outside[0]
    return Outcome.erratum_(
        f"{len(outside)} printed (state, action) pairs of (1.15) send positive mass outside X, e.g. {x}, a={a} -> {y} (N=16 > K=5); "
        "with min{q+1,K} every row stays in X (state-space claim)",
        printed="x' = (min{q+1, N}, r+a−1, 2) w.p. 1 − (μ + λ(r+a−1))/ν",
        corrected="x' = (min{q+1, K}, r+a−1, 2) w.p. 1 − (μ + λ(r+a−1))/ν",
        evidence=f"q' = min(q+1, N) = {y[0]} > K = {m.K} is not a queue length")


@claim(f"{P}.eq-1.16", source=src("§1.2.2", "eq. (1.16), fictitious rows"), method=Method.FLOAT,
       statement="after a fictitious event the state (q, r) is unchanged; rows sum to 1 and stay in X")
def _eq_1_16() -> Outcome:
    m = M.CrawlerMDP(**FIG_MDP, gamma=1.0)
    bad = [o for o in printed_successors_outside(m) if o[0][2] == 2]
    sums = [abs(sum(p for _, p in rows) - 1) for x, a, rows in printed_rows(m) if x[2] == 2]
    return Outcome.judge(not bad and max(sums) < STRUCTURE_ABS, f"{len(sums)} rows, max |sum−1| = {max(sums):.1e}, {len(bad)} leave X")


@claim(f"{P}.lemma-2", source=src("§1.2.2", "Lemma 2"), method=Method.FLOAT,
       statement="the MDP (x_n) is communicating")
def _lemma_2() -> Outcome:
    infos = [M.communication(M.CrawlerMDP(lam, MU, K, N, 1.0)) for lam, K, N in ((0.1, 5, 16), (0.05, 10, 20), (0.5, 2, 1))]
    if all(i.communicating for i in infos):
        return Outcome.passed("the allowed-transition graph is strongly connected on X")
    bad = next(i for i in infos if not i.communicating)
    if all(i.weakly_communicating for i in infos):
        return Outcome.erratum_(
            f"states {bad.outside} (K=5, N=16) are never entered: a fictitious event with r' = N and q' > 0 has "
            f"probability 1 − (μ + λN)/ν = 0; the other {bad.main_class} states communicate",
            printed="the MDP is communicating",
            corrected="the MDP is weakly communicating: X minus {(q, N, 2): q ≥ 1} is communicating and those K states "
                      "are transient under every policy (Props 5 and 6 still hold, Puterman 1994 §8.3, §9.5)",
            evidence="strongly connected components of the union of allowed transitions; no edge enters (q, N, 2), q ≥ 1")
    return Outcome.failed(f"not even weakly communicating: {bad}")


@claim(f"{P}.multichain-example", source=src("§1.2.2", "example before Lemma 2 (N = 2)"), method=Method.FLOAT,
       statement="the policy reactivating at every arrival and activating only in (1,0,0) has two recurrent classes {r=1}, {r=2}")
def _multichain_example() -> Outcome:
    m = M.CrawlerMDP(0.3, MU, 4, 2, 1.0)
    q, r, s = m.states.T
    pol = ((s == 1) | ((q == 1) & (r == 0) & (s == 0))).astype(int)
    classes = closed_classes(m.policy_matrix(pol))
    rs = sorted(tuple(sorted(set(m.states[c, 1].tolist()))) for c in classes)
    return Outcome.judge(rs == [(1,), (2,)], f"recurrent classes by r: {rs}")


@claim(f"{P}.static-policy-cost", source=src("§1.2.2", "W_π = γS_π + L_π for π_N; eq. (1.4)"), method=Method.FLOAT,
       statement="the MDP average cost of the static policy π_N equals C(Nλ/μ, γ, K) of (1.4)")
def _static_policy() -> Outcome:
    worst, shown = 0.0, []
    for lam, K, N, gamma in ((0.1, 5, 16, 1.0), (0.01, 10, 100, 1.2), (0.05, 15, 21, 2.4), (0.3, 2, 3, 0.4)):
        m = M.CrawlerMDP(lam, MU, K, N, gamma)
        g = M.evaluate_policy(m, m.static_policy()).gain
        c = M.static_cost(lam, MU, K, N, gamma)
        worst = max(worst, abs(g - c) / c)
        shown.append(f"{g:.12g} vs {c:.12g}")
    return Outcome.judge(worst <= FLOAT_REL, f"MDP vs (1.4): {'; '.join(shown)} (max rel diff {worst:.1e})")


@claim(f"{P}.prop-6.theta", source=src("§1.2.2", "Proposition 6"), method=Method.FLOAT,
       statement="relative value iteration converges and θ = τ·T(h)(x̂)")
def _prop6_theta() -> Outcome:
    m = M.CrawlerMDP(**FIG_MDP, gamma=1.0)
    tau = 0.5  # a τ far from 1 separates the two forms
    r = M.relative_value_iteration(m, tau=tau, tol=RVI_CONVERGED_TOL)
    exact = M.policy_iteration(m).gain
    printed, corrected = tau * r.gain, r.gain
    if not close(printed, exact) and close(corrected, exact):
        return Outcome.erratum_(
            f"τ = {tau}: τT(h)(x̂) = {printed:.12f}, T(h)(x̂) = {corrected:.12f}, exact gain (policy iteration) {exact:.12f}",
            printed="θ = τ T(h)(x̂)", corrected="θ = T(h)(x̂)  (τT(h)(x̂) is the gain of the aperiodic transform τP + (1−τ)I with cost τc)",
            evidence="at the fixed point h = (1−τ)h + τ(T(h) − T(h)(x̂)) gives T(h)(x̂) = θ + h(x̂) = θ; checked numerically at τ = 0.5")
    return Outcome.failed(f"τT(h)(x̂) = {printed}, T(h)(x̂) = {corrected}, exact {exact}")


@claim(f"{P}.prop-6.tau", source=src("§1.2.3", "remark on τ = 0.99999"), method=Method.FLOAT,
       statement="the closer τ is to 1 the faster relative value iteration converges")
def _tau_speed() -> Outcome:
    m = M.CrawlerMDP(**FIG_MDP, gamma=1.0)
    taus = (0.5, 0.9, 0.99, 0.99999)
    its = [M.relative_value_iteration(m, tau=t).iterations for t in taus]
    return Outcome.judge(all(a >= b for a, b in zip(its, its[1:])), f"Fig 1.5 instance, iterations at τ = {taus}: {its}")


@claim(f"{P}.prop-5.optimality-equation", source=src("§1.2.2", "Proposition 5, eq. (1.19)"), method=Method.FLOAT,
       statement="the exact solution satisfies θ + h = c + min_a P(a)h, and RVI's gain bracket contains θ")
def _optimality() -> Outcome:
    parts, ok = [], True
    for fig, (gamma, *_rest) in FIGS.items():
        m = M.CrawlerMDP(**FIG_MDP, gamma=gamma)
        s = M.policy_iteration(m)
        lo, hi = rvi(FIG_LAM, FIG_K, gamma, FIG_N).gain_bounds
        ok &= s.residual < STRUCTURE_ABS and lo <= s.gain <= hi
        parts.append(f"Fig {fig}: residual {s.residual:.1e}, θ={s.gain:.10f} in [{lo:.6f}, {hi:.6f}]")
    return Outcome.judge(ok, "; ".join(parts))
