"""Avrachenkov et al., §7 Figures 1–4, regenerated from the BMAP model.

All four use the §7 example (N = 4 robot modes, K = 5;
:func:`crawlmath.numeric.bmap.example_model`, corrected D-matrices)
and the exact cost J of eq. (2) for every threshold j (two modes, the
"paper" threshold convention of :func:`crawlmath.numeric.bmap.optimize`):

- Fig 1: J vs j for every pair of modes;
- Fig 2: J vs j for modes {3, 1} as the service-time variance grows at fixed
  mean b1 = 0.657 (S = diag(−α1, −α2), β = (0.9, 0.1), α1 ∈ {1.521, 3, 5, 7, 9}; α2 from the
  generated :func:`crawlmath.numeric.generated.avrachenkov.avrachenkov_alpha2`, derived in
  :mod:`crawlmath.derive.avrachenkov`);
- Fig 3: the same, each with its optimal pair of modes;
- Fig 4: J vs j for modes {3, 1} as the variance of the time until
  obsolescence grows at fixed mean g1 = 5 (G = diag(−α1, −α2),
  γ = (0.9, 0.1), α1 ∈ {0.2, 0.5, 1, 3, 7}).
"""
from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np

from .figures import FigureSpec, new_figure, save

PAPER = "avrachenkov"
B1, G1 = 0.657, 5.0
BETA1 = 0.9  # probability of the first phase: β = (0.9, 0.1), γ = (0.9, 0.1)
SERVICE_ALPHAS = (1.521, 3.0, 5.0, 7.0, 9.0)
OBSOLESCENCE_ALPHAS = (0.2, 0.5, 1.0, 3.0, 7.0)
K_PAPER = 5  # buffer size of the §7 example
SMALL = {"K": 2}  # the tests' run: the same figures on a buffer of 2


def _two_phase(mean: float, alpha1: float):
    """PH (β, S) with β = (0.9, 0.1), S = diag(−α1, −α2) and mean ``mean``; α2 = α1 (1 − β1)/(α1 mean − β1) from
    the generated formula (derived in crawlmath.derive.avrachenkov, not retyped here)."""
    from ..numeric.bmap import PhaseType  # here: the BMAP solvers load numba, which the other papers' figures do not need
    from ..numeric.generated.avrachenkov import avrachenkov_alpha2_scalar

    alpha2 = avrachenkov_alpha2_scalar(alpha1, mean, BETA1)
    ph = PhaseType([BETA1, 1 - BETA1], [[-alpha1, 0.0], [0.0, -alpha2]])
    return ph, ph.moment(2) - ph.moment(1) ** 2


def _curve(opt) -> tuple[np.ndarray, np.ndarray]:
    th = np.array([t[0] for t, _ in opt.curve])
    return th, np.array([c for _, c in opt.curve])


def pairs_data(K: int = K_PAPER) -> dict:
    """{(modes): (thresholds, costs)} for every pair of the 4 modes (Fig 1), buffer size ``K``."""
    from ..numeric.bmap import example_model, optimize  # here: numba, as in _two_phase

    m, cache = example_model(K), {}
    return {pair: _curve(optimize(m, pair, cache=cache)) for pair in (tuple(sorted(c, reverse=True)) for c in combinations(range(1, 5), 2))}


def variation_data(kind: str, alphas, best_pair: bool = False, K: int = K_PAPER) -> list[dict]:
    """Per α1: variance, modes, thresholds, costs (Figs 2–4), buffer size ``K``."""
    from ..numeric.bmap import example_model, optimize, optimize_all  # here: numba, as in _two_phase

    base = example_model(K)
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


def draw_fig_1(path: Path, K: int = K_PAPER) -> str:
    """Draw Fig 1 of §7 (cost J of eq. (2) against the threshold j for every pair of the 4 modes, K = 5) into ``path``;
    returns the caption with the computed optimum and the printed one.
    """
    data = pairs_data(K)
    fig, ax = new_figure(8.2)
    for pair, (th, cost) in data.items():
        ax.plot(th, cost, "o-", ms=3, label=f"modes {pair[0]} and {pair[1]}")
    ax.set_xlabel("threshold j")
    ax.set_ylabel("cost J (eq. 2)")
    ax.set_title(f"Fig 1: cost vs threshold, two modes, K = {K}")
    # outside the axes: inside, every corner hides a curve's end point
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    save(fig, path)
    pair, (th, cost) = min(data.items(), key=lambda kv: kv[1][1].min())
    return (f"Exact J (stationary distribution of the level chain) for every threshold and every pair of modes; "
            f"minimum {cost.min():.2f} for modes {pair} at j = {th[np.argmin(cost)]} (printed optimum: modes 3 and 1, j = 2, C* = 63.54).")


def _draw_variation(path: Path, kind: str, alphas, best_pair: bool, title: str, K: int) -> str:
    rows = variation_data(kind, alphas, best_pair, K)
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


def draw_fig_2(path: Path, K: int = K_PAPER) -> str:
    """Draw Fig 2 of §7 (J against j as the service-time variance grows, modes 3 and 1) into ``path``; returns the caption."""
    return _draw_variation(path, "service", SERVICE_ALPHAS, False, "Fig 2: service-time variation (b1 = 0.657), modes 3 and 1", K)


def draw_fig_3(path: Path, K: int = K_PAPER) -> str:
    """Draw Fig 3 of §7 (J against j as the service-time variance grows, optimal pair of modes) into ``path``; returns the caption."""
    return _draw_variation(path, "service", SERVICE_ALPHAS, True, "Fig 3: service-time variation, optimal pair of modes", K)


def draw_fig_4(path: Path, K: int = K_PAPER) -> str:
    """Draw Fig 4 of §7 (J against j as the obsolescence-time variance grows, modes 3 and 1) into ``path``; returns the caption."""
    return _draw_variation(path, "obsolescence", OBSOLESCENCE_ALPHAS, False, "Fig 4: obsolescence-time variation (g1 = 5), modes 3 and 1", K)


FIGURES = [
    FigureSpec("avrachenkov-fig-1", PAPER, "cost vs threshold, every pair of modes", "000 §7 Fig 1", draw_fig_1, SMALL),
    FigureSpec("avrachenkov-fig-2", PAPER, "cost vs threshold as service-time variance grows", "000 §7 Fig 2", draw_fig_2, SMALL),
    FigureSpec("avrachenkov-fig-3", PAPER, "cost vs threshold, optimal modes, service-time variance", "000 §7 Fig 3", draw_fig_3, SMALL),
    FigureSpec("avrachenkov-fig-4", PAPER, "cost vs threshold as obsolescence-time variance grows", "000 §7 Fig 4", draw_fig_4, SMALL),
]
