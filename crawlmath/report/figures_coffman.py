"""Coffman–Liu–Weber (1997) §5: the golden-ratio policy, regenerated.

- H(q), the ratio in the proof of Corollary 5.1, decreasing from its limit
  2φ²/5 at q → 0+ (:func:`crawlmath.numeric.scheduling._golden.H`), against the worst
  bracket position max_s G(q, s), which exceeds the printed bound 2φ²/5 (marked
  false) and tends to φ⁵/10;
- the exact cost of the golden-ratio schedule γ(k, N) (Lemma 3.1 via
  :func:`crawlmath.numeric.scheduling._frequencies.cyclic_cost`) against the lower bound
  C* of Theorem 3.4 and the limit formula of §5, as k grows.

The paper prints no such plots; these figures show the §5 statements.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .figures import FigureSpec, new_figure, require, save

PAPER = "coffman"
GOLDEN_RATES = (0.2, 0.5, 1.0, 2.0, 4.0)  # page change rates mu_i of the example instance
GOLDEN_ACCESS = "exp:1"  # access times X ~ Exp(1)
GOLDEN_KS = range(4, 26)


def H_data(q_max: float = 10.0, points: int = 300):
    """(q, H(q), max_s G(q, s), 2φ²/5, φ⁵/10)."""
    H, profile_max, limit, worst = require("numeric.scheduling._golden", "H", "profile_max", "TWO_PHI2_OVER_5", "WORST_PROFILE")
    q = np.linspace(q_max / points, q_max, points)
    return q, np.asarray(H(q), dtype=float), np.asarray(profile_max(q), dtype=float), float(limit), float(worst)


def draw_H(path: Path) -> str:
    """Draw H(q) = G(q, 1) and max_s G(q, s) against the printed bound 2φ²/5 (marked FALSE) and φ⁵/10 into ``path``
    (Coffman et al. 1997, §5, proof of Corollary 5.1); returns the caption.
    """
    q, h, gmax, limit, worst = H_data()
    fig, ax = new_figure()
    ax.plot(q, h, label="H(q) = G(q, 1): pages at bracket ends")
    ax.plot(q, gmax, color="tab:orange", label="max over s of G(q, s): worst bracket position")
    ax.axhline(limit, color="tab:red", ls="--", lw=1, label=f"printed bound 2φ²/5 = {limit:.6f} (FALSE)")
    ax.axhline(worst, color="tab:green", ls="-.", lw=1, label=f"φ⁵/10 = {worst:.6f} (certified supremum)")
    ax.axhline(1.0, color="grey", lw=0.8, ls=":")
    ax.set_xlabel("q = μ/ν")
    ax.set_ylabel("lim C(γ(N)) / C*")
    ax.set_title("Corollary 5.1: the printed bound 2φ²/5 is exceeded")
    ax.legend(fontsize=8)
    save(fig, path)
    dec = bool(np.all(np.diff(h) < 0))
    above = int(np.sum(gmax > limit))
    return (f"H on {q.size} points of (0, {q[-1]:g}] (float64, cancellation-free generated form): "
            f"H({q[0]:.3g}) = {h[0]:.6f} vs 2φ²/5 = {limit:.6f}; decreasing on the grid: {'yes' if dec else 'NO'}. "
            f"The printed bound 2φ²/5 of Corollary 5.1 is false: max over s of G(q, s) exceeds it at {above} of {q.size} points "
            f"(max {gmax.max():.6f}); φ⁵/10 = {worst:.6f} is the certified supremum (registry rows coffman.sched.cor-5.1, cor-5.1.sup).")


def golden_cost_data(rates=GOLDEN_RATES, access: str = GOLDEN_ACCESS, ks=GOLDEN_KS) -> dict:
    """Exact cost of γ(k, N) for each k, the lower bound C*, the §5 limit and the randomized optimum."""
    sched = require("numeric.scheduling", "make_problem", "parse_access", "optimal_frequencies", "golden_schedule",
                    "cyclic_cost", "golden_limit_cost", "randomized_optimal", "randomized_cost")
    make_problem, parse_access, optimal_frequencies, golden_schedule, cyclic_cost, golden_limit_cost, randomized_optimal, randomized_cost = sched
    p = make_problem(list(rates), parse_access(access))
    lb = optimal_frequencies(p)
    from ..numeric.errors import InvalidInput

    kept, costs = [], []
    for k in ks:
        try:
            seq = golden_schedule(lb.frequencies, k).sequence
        except InvalidInput:  # F_k too small to give every page an access
            continue
        kept.append(k)
        costs.append(cyclic_cost(seq, p).cost)
    ks = kept
    rnd = randomized_optimal(p)
    return {"k": np.array(ks), "cost": np.array(costs), "lower_bound": lb.lower_bound, "limit": golden_limit_cost(p, lb.frequencies),
            "randomized": randomized_cost(rnd.frequencies, p).cost}


def _zoom_on_schedule(ax, d: dict) -> None:
    """Inset on the γ(k, N) costs and the §5 limit: the randomized optimum sits
    ~0.08 above them, which squashes their ~0.003 variation in k into a line."""
    from matplotlib.ticker import MaxNLocator

    ins = ax.inset_axes([0.09, 0.40, 0.42, 0.40])
    ins.plot(d["k"], d["cost"], "o-", ms=2.5, color="tab:blue")
    ins.axhline(d["limit"], color="tab:green", ls="--", lw=1)
    ins.xaxis.set_major_locator(MaxNLocator(integer=True))
    ins.tick_params(labelsize=7)
    ins.ticklabel_format(axis="y", useOffset=False)
    ins.set_title("zoom: γ(k, N) and the §5 limit", fontsize=7)
    ax.indicate_inset_zoom(ins, edgecolor="0.5")


def draw_golden_cost(path: Path) -> str:
    """Draw the exact cost of γ(k, N) (Lemma 3.1) against k, with the §5 limit, C* (Thm 3.4) and the best randomized
    cost (Thm 4.1), plus an inset on the γ(k, N) costs, into ``path``; returns the caption.
    """
    from matplotlib.ticker import MaxNLocator

    d = golden_cost_data()
    fig, ax = new_figure()
    ax.plot(d["k"], d["cost"], "o-", ms=3, label="γ(k, N), exact cost (Lemma 3.1)")
    ax.axhline(d["limit"], color="tab:green", ls="--", lw=1, label=f"limit formula §5 = {d['limit']:.5f}")
    ax.axhline(d["lower_bound"], color="tab:red", ls="-", lw=1, label=f"lower bound C* = {d['lower_bound']:.5f}")
    ax.axhline(d["randomized"], color="tab:purple", ls=":", lw=1, label=f"best randomized = {d['randomized']:.5f}")
    ax.set_xlabel("k (cycle length F_k)")
    ax.set_ylabel("cost C")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title(f"Golden-ratio schedule, μ = {GOLDEN_RATES}, X ~ {GOLDEN_ACCESS}")
    ax.legend(fontsize=8, loc="center right")
    _zoom_on_schedule(ax, d)
    save(fig, path)
    above = bool(np.all(d["cost"] >= d["lower_bound"] * (1 - 1e-12)))
    return (f"Exact cost of the cyclic golden-ratio schedule for k = {d['k'][0]}..{d['k'][-1]}, pages with change rates "
            f"{GOLDEN_RATES}, access times {GOLDEN_ACCESS}; cost at k = {d['k'][-1]}: {d['cost'][-1]:.6f}, "
            f"§5 limit {d['limit']:.6f}, C* {d['lower_bound']:.6f}; every cost ≥ C*: {'yes' if above else 'NO'}.")


FIGURES = [
    FigureSpec("coffman-H", PAPER, "H(q), the worst bracket position, and the false bound 2φ²/5", "002 §5 proof of Corollary 5.1", draw_H),
    FigureSpec("coffman-golden-cost", PAPER, "golden-ratio schedule cost vs lower bound", "002 §5, Theorem 3.4, Theorem 5.1", draw_golden_cost),
]
