"""Liu–Nain (2005) Figures 1.2–1.7, regenerated.

- Fig 1.2: γ → N(γ, K) for 1/λ = 0.6, μ = 1 (§1.2.1, Proposition 2), from
  :func:`crawlmath.numeric.static.static_optimum`.  The extracted text
  does not say which K the two printed curves use; we draw K = 2 and K = 5 (FIG_1_2_KS).
- Figs 1.3 / 1.4: K → ρ(γ, K) for γ = 0.5 and γ = 2, μ = 1 (Propositions 3
  and 4), from :func:`crawlmath.numeric.static.optimal_rho`.
- Figs 1.5–1.7: the optimal activation policy of the dynamic model (§1.2.3)
  for N = 16, K = 5, λ = 0.1, μ = 1 and γ = 1, 1.4, 2, drawn over (r, q) for
  decision epochs s = 0 (departure) and s = 1 (arrival) with the switching
  curves f_s, from :func:`crawlmath.numeric.mdp.policy_iteration`.

The ``*_data`` functions return the plotted numbers (public API); the
``draw_*`` functions write the PNG and return the caption.
"""
from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np

from ..numeric.tolerance import FIGURE_MONOTONE_ABS
from .figures import FigureSpec, new_figure, save

PAPER = "liu-nain"
FIG_1_2_LAM = 1 / 0.6  # "1/λ = 0.6 and μ = 1" (caption of Fig 1.2)
FIG_1_2_KS = (2, 5)  # not legible in the extracted text: our choice
POLICY_CASES = {"1.5": (1.0, "0.20907"), "1.6": (1.4, "0.25924"), "1.7": (2.0, "0.32211")}  # γ, printed cost
GAMMA_POINTS = 80  # γ values of Fig 1.2
K_MAX = 100  # Figs 1.3, 1.4: K = 2..K_MAX
POLICY_N, POLICY_K = 16, 5  # Figs 1.5-1.7 (the printed costs are for these)


def fig_1_2_data(lam: float = FIG_1_2_LAM, mu: float = 1.0, Ks=FIG_1_2_KS, gammas=None) -> dict:
    """{K: (gammas, N(γ, K), ρ(γ, K)μ/λ)} on a γ grid (Fig 1.2)."""
    from ..numeric.static import static_optimum  # here: the report imports every figure module, the solvers on use

    gammas = np.geomspace(0.05, 100, GAMMA_POINTS) if gammas is None else np.asarray(gammas, dtype=float)
    out = {}
    for K in Ks:
        opt = [static_optimum(lam, mu, float(g), K) for g in gammas]
        out[K] = (gammas, np.array([o.N_opt for o in opt]), np.array([float(o.rho_opt) * mu / lam for o in opt]))
    return out


def rho_vs_K_data(gamma: float, mu: float = 1.0, Ks=None) -> tuple[np.ndarray, np.ndarray]:
    """(K, ρ(γ, K)) for K = 2..100 (Figs 1.3, 1.4)."""
    from ..numeric.static import optimal_rho  # lazy: see fig_1_2_data

    Ks = np.arange(2, K_MAX + 1) if Ks is None else np.asarray(Ks)
    return Ks, np.array([float(optimal_rho(gamma, int(K), mu)) for K in Ks])


def draw_fig_1_2(path: Path, points: int = GAMMA_POINTS) -> str:
    """Draw Fig 1.2 (γ → N(γ, K) and ρ(γ, K)μ/λ, Liu–Nain §1.2.1, Prop. 1) into ``path``; returns the caption."""
    data = fig_1_2_data(gammas=np.geomspace(0.05, 100, points))
    fig, ax = new_figure()
    for K, (g, n, x) in data.items():
        ax.step(g, n, where="post", label=f"N(γ, K), K = {K}")
        ax.plot(g, x, ":", lw=1, label=f"ρ(γ, K)μ/λ, K = {K}")
    ax.set_xscale("log")
    ax.set_xlabel("γ")
    ax.set_ylabel("optimal number of crawlers")
    ax.set_title("Fig 1.2: γ → N(γ, K), 1/λ = 0.6, μ = 1")
    ax.legend(fontsize=8)
    save(fig, path)
    mono = all(np.all(np.diff(n) >= 0) for _, n, _ in data.values())
    return (f"Optimal N by Proposition 1 (float64 Brent root of (1.7), better of ⌊ρμ/λ⌋, ⌈ρμ/λ⌉) on {points} γ values in [0.05, 100]; "
            f"K = {', '.join(map(str, FIG_1_2_KS))} (the printed K values are not in the extracted text). "
            f"N nondecreasing in γ (Proposition 2): {'yes' if mono else 'NO'}.")


def draw_rho_vs_K(path: Path, gamma: float, fig_no: str, K_max: int = K_MAX) -> str:
    """Draw Fig 1.3/1.4 (K → ρ(γ, K) with its limit 1, Props 3–4) for ``gamma`` into ``path``; returns the caption."""
    K, rho = rho_vs_K_data(gamma, Ks=np.arange(2, K_max + 1))
    fig, ax = new_figure()
    ax.plot(K, rho, ".-", ms=3, label=f"ρ({gamma:g}, K)")
    ax.axhline(1.0, color="grey", lw=0.8, ls="--", label="limit 1 (Prop 4)")
    ax.set_xlabel("K")
    ax.set_ylabel("ρ(γ, K)")
    ax.set_title(f"Fig {fig_no}: K → ρ(γ, K), γ = {gamma:g}, μ = 1")
    ax.legend()
    save(fig, path)
    k_peak = int(K[np.argmax(rho)])
    shape = "nondecreasing" if np.all(np.diff(rho) >= -FIGURE_MONOTONE_ABS) else f"increasing then decreasing (peak at K = {k_peak})"
    return (f"ρ(γ, K) for K = 2..{K_max} (float64 Brent root of (1.7)); shape: {shape}; "
            f"ρ(γ, {K_max}) = {rho[-1]:.5f} (Proposition 3 {'(a)' if gamma <= 1 else '(b)'}, Proposition 4).")


def policy_data(gamma: float, lam: float = 0.1, mu: float = 1.0, K: int = POLICY_K, N: int = POLICY_N):
    """The optimal policy of the dynamic model: (solution, {s: boolean (K+1)×(N+1) grid of a = 1, NaN-free})."""
    from ..numeric.mdp import CrawlerMDP, policy_iteration  # lazy: see fig_1_2_data

    m = CrawlerMDP(lam=lam, mu=mu, K=K, N=N, gamma=gamma)
    sol = policy_iteration(m)
    grids = {}
    for s in (0, 1):
        g = np.full((K + 1, N + 1), -1, dtype=int)  # -1: no such state
        sel = m.states[:, 2] == s
        q, r = m.states[sel, 0], m.states[sel, 1]
        g[q, r] = np.asarray(sol.policy)[sel]
        grids[s] = g
    return sol, grids


def draw_policy(path: Path, fig_no: str, N: int = POLICY_N, K: int = POLICY_K) -> str:
    """Draw Fig 1.5–1.7 (the optimal policy of the §1.2.2 MDP on the (r, q) grid for s = 0, 1, with the switching
    curves f_0, f_1) into ``path``; returns the caption with the cost against the printed one.
    """
    gamma, printed = POLICY_CASES[fig_no]
    sol, grids = policy_data(gamma, K=K, N=N)
    curves = sol.curves
    fig, axes = new_figure(9.0, 4.3, ncols=2)
    for s, ax in zip((0, 1), axes):
        g = grids[s]
        q1, r1 = np.nonzero(g == 1)
        q0, r0 = np.nonzero(g == 0)
        ax.scatter(r1, q1, marker="s", s=30, color="tab:blue", label="activate (a = 1)")
        ax.scatter(r0, q0, marker="s", s=30, facecolors="none", edgecolors="tab:gray", label="a = 0")
        f = curves.f0 if s == 0 else curves.f1
        r = [i for i, v in enumerate(f) if v is not None]
        ax.step(r, [f[i] for i in r], where="mid", color="tab:red", lw=1.2, label=f"f_{s}(r)")
        ax.set_xlabel("r (active crawlers)")
        ax.set_ylabel("q (queue length)")
        ax.set_title(f"s = {s} ({'departure' if s == 0 else 'arrival'})")
        ax.set_ylim(-0.5, grids[s].shape[0] - 0.5)
        # below the grid: inside it the legend covered states of the policy
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3)
    fig.suptitle(f"Fig {fig_no}: optimal policy, γ = {gamma:g}, N = {N}, K = {K}, λ = 0.1, μ = 1; cost {sol.gain:.5f} (printed {printed})")
    save(fig, path)
    shape = "a monotone switching curve" if curves.monotone else f"not a monotone switching curve ({curves.where})"
    return (f"Optimal policy by {sol.method} ({sol.iterations} iterations, residual {sol.residual:.1e}); "
            f"average cost {sol.gain:.5f} vs printed {printed}; the policy is {shape}.")


FIGURES = [
    FigureSpec("liu-nain-fig-1.2", PAPER, "γ → N(γ, K)", "003 §1.2.1 Fig 1.2", draw_fig_1_2, {"points": 8}),
    FigureSpec("liu-nain-fig-1.3", PAPER, "K → ρ(γ, K), γ = 0.5", "003 §1.2.1 Fig 1.3", partial(draw_rho_vs_K, gamma=0.5, fig_no="1.3"),
               {"K_max": 12}),
    FigureSpec("liu-nain-fig-1.4", PAPER, "K → ρ(γ, K), γ = 2", "003 §1.2.1 Fig 1.4", partial(draw_rho_vs_K, gamma=2.0, fig_no="1.4"),
               {"K_max": 12}),
] + [
    FigureSpec(f"liu-nain-fig-{no}", PAPER, f"optimal policy, γ = {g:g}", f"003 §1.2.3 Fig {no}", partial(draw_policy, fig_no=no),
               {"N": 6, "K": 3})
    for no, (g, _) in POLICY_CASES.items()
]
