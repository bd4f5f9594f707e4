"""Avrachenkov et al., §7 Figures 1–4, regenerated from the BMAP model.

All four use the §7 example (N = 4 robot modes, K = 5;
:func:`crawlmath.numeric.bmap._model.example_model`, corrected D-matrices)
and the exact cost J of eq. (2) for every threshold j (two modes, the
"paper" threshold convention of :func:`~crawlmath.numeric.bmap._model.optimize`):

- Fig 1: J vs j for every pair of modes;
- Fig 2: J vs j for modes {3, 1} as the service-time variance grows at fixed
  mean b1 = 0.657 (S = diag(−α1, −α2), β = (0.9, 0.1), α1 ∈ {1.521, 3, 5, 7, 9});
- Fig 3: the same, each with its optimal pair of modes;
- Fig 4: J vs j for modes {3, 1} as the variance of the time until
  obsolescence grows at fixed mean g1 = 5 (G = diag(−α1, −α2),
  γ = (0.9, 0.1), α1 ∈ {0.2, 0.5, 1, 3, 7}).
"""
from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np

from .figures import FigureSpec, new_figure, require, save

PAPER = "avrachenkov"
B1, G1 = 0.657, 5.0
SERVICE_ALPHAS = (1.521, 3.0, 5.0, 7.0, 9.0)
OBSOLESCENCE_ALPHAS = (0.2, 0.5, 1.0, 3.0, 7.0)


def _api():
    return require("numeric.bmap._model", "example_model", "optimize", "optimize_all")


def _two_phase(mean: float, alpha1: float):
    """PH (β, S) with β = (0.9, 0.1), S = diag(−α1, −α2) and mean ``mean``: α2 = 0.1 α1 / (mean α1 − 0.9)."""
    PhaseType = require("numeric.bmap._phase_type", "PhaseType")
    alpha2 = 0.1 * alpha1 / (mean * alpha1 - 0.9)
    ph = PhaseType([0.9, 0.1], [[-alpha1, 0.0], [0.0, -alpha2]])
    return ph, ph.moment(2) - ph.moment(1) ** 2


def _curve(opt) -> tuple[np.ndarray, np.ndarray]:
    th = np.array([t[0] for t, _ in opt.curve])
    return th, np.array([c for _, c in opt.curve])


def pairs_data() -> dict:
    """{(modes): (thresholds, costs)} for every pair of the 4 modes (Fig 1)."""
    example_model, optimize, _ = _api()
    m, cache = example_model(), {}
    return {pair: _curve(optimize(m, pair, cache=cache)) for pair in (tuple(sorted(c, reverse=True)) for c in combinations(range(1, 5), 2))}


def variation_data(kind: str, alphas, best_pair: bool = False) -> list[dict]:
    """Per α1: variance, modes, thresholds, costs (Figs 2–4)."""
    example_model, optimize, optimize_all = _api()
    base = example_model()
    out = []
    for a1 in alphas:
        ph, var = _two_phase(B1 if kind == "service" else G1, a1)
        m = base.with_(**{kind if kind == "service" else "obsolescence": ph})
        if best_pair:
            opts = optimize_all(m, [c for c in combinations(range(4, 0, -1), 2)])
            opt = min(opts.values(), key=lambda o: o.cost)
        else:
            opt = optimize(m, (3, 1))
        th, cost = _curve(opt)
        out.append({"alpha1": a1, "variance": var, "modes": opt.modes, "thresholds": th, "costs": cost, "best": (opt.thresholds[0], opt.cost)})
    return out


def draw_fig_1(path: Path) -> str:
    """Draw Fig 1 of §7 (cost J of eq. (2) against the threshold j for every pair of the 4 modes, K = 5) into ``path``;
    returns the caption with the computed optimum and the printed one.
    """
    data = pairs_data()
    fig, ax = new_figure(8.2)
    for pair, (th, cost) in data.items():
        ax.plot(th, cost, "o-", ms=3, label=f"modes {pair[0]} and {pair[1]}")
    ax.set_xlabel("threshold j")
    ax.set_ylabel("cost J (eq. 2)")
    ax.set_title("Fig 1: cost vs threshold, two modes, K = 5")
    # outside the axes: inside, every corner hides a curve's end point
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    save(fig, path)
    pair, (th, cost) = min(data.items(), key=lambda kv: kv[1][1].min())
    return (f"Exact J (stationary distribution of the level chain) for every threshold and every pair of modes; "
            f"minimum {cost.min():.2f} for modes {pair} at j = {th[np.argmin(cost)]} (printed optimum: modes 3 and 1, j = 2, C* = 63.54).")


def _draw_variation(path: Path, kind: str, alphas, best_pair: bool, title: str) -> str:
    rows = variation_data(kind, alphas, best_pair)
    fig, ax = new_figure(9.0)
    for r in rows:
        ax.plot(r["thresholds"], r["costs"], "o-", ms=3, label=f"α1 = {r['alpha1']:g} (var {r['variance']:.3g}), modes {r['modes']}")
    ax.set_xlabel("threshold j")
    ax.set_ylabel("cost J (eq. 2)")
    ax.set_title(title)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    save(fig, path)
    best = "; ".join(f"α1 = {r['alpha1']:g}: modes {r['modes']}, j* = {r['best'][0]}, J* = {r['best'][1]:.2f}" for r in rows)
    return f"Exact J for each threshold. Optima: {best}."


def draw_fig_2(path: Path) -> str:
    """Draw Fig 2 of §7 (J against j as the service-time variance grows, modes 3 and 1) into ``path``; returns the caption."""
    return _draw_variation(path, "service", SERVICE_ALPHAS, False, "Fig 2: service-time variation (b1 = 0.657), modes 3 and 1")


def draw_fig_3(path: Path) -> str:
    """Draw Fig 3 of §7 (J against j as the service-time variance grows, optimal pair of modes) into ``path``; returns the caption."""
    return _draw_variation(path, "service", SERVICE_ALPHAS, True, "Fig 3: service-time variation, optimal pair of modes")


def draw_fig_4(path: Path) -> str:
    """Draw Fig 4 of §7 (J against j as the obsolescence-time variance grows, modes 3 and 1) into ``path``; returns the caption."""
    return _draw_variation(path, "obsolescence", OBSOLESCENCE_ALPHAS, False, "Fig 4: obsolescence-time variation (g1 = 5), modes 3 and 1")


FIGURES = [
    FigureSpec("avrachenkov-fig-1", PAPER, "cost vs threshold, every pair of modes", "000 §7 Fig 1", draw_fig_1),
    FigureSpec("avrachenkov-fig-2", PAPER, "cost vs threshold as service-time variance grows", "000 §7 Fig 2", draw_fig_2),
    FigureSpec("avrachenkov-fig-3", PAPER, "cost vs threshold, optimal modes, service-time variance", "000 §7 Fig 3", draw_fig_3),
    FigureSpec("avrachenkov-fig-4", PAPER, "cost vs threshold as obsolescence-time variance grows", "000 §7 Fig 4", draw_fig_4),
]
