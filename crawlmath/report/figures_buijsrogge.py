"""Buijsrogge (2014) Fig 5.1-style trajectories, regenerated.

The number of colours online S(t) and P_new(t) from one seeded simulation of
the workbench game, against the mean-field level KC/(K+C-1) (Theorem 4.2.1),
the exact stationary level (product form) and the exact mean during the fill
(eq. 3.1), from :func:`crawlmath.numeric.colours_sim.trajectories`.
"""
from __future__ import annotations

from functools import partial
from pathlib import Path

from .figures import FigureSpec, new_figure, require, save

PAPER = "buijsrogge"
SEED = 1


def trajectory_data(K: int, C: int, steps: int, seed: int = SEED, dist: str = "uniform", params=()) -> dict:
    trajectories = require("numeric.colours_sim", "trajectories")
    return trajectories(K, C, steps, seed=seed, dist=dist, params=params, samples=400)


def draw_trajectories(path: Path, K: int, C: int, steps: int, fig_no: str) -> str:
    d = trajectory_data(K, C, steps)
    fig, (a1, a2) = new_figure(9.5, 3.8, ncols=2)
    a1.plot(d["t"], d["simulated_colours"], lw=0.8, label=f"simulation (seed {SEED})")
    a1.plot(d["fill_t"], d["fill_expected"], "--", color="tab:orange", lw=1.2, label="exact E[S(t)], t ≤ K (3.1)")
    a1.axhline(d["exact_colours"], color="tab:green", lw=1, label=f"exact stationary {d['exact_colours']:.2f}")
    a2.plot(d["t"], d["simulated_p_new"], lw=0.8, label="simulation")
    a2.axhline(d["exact_p_new"], color="tab:green", lw=1, label=f"exact stationary {d['exact_p_new']:.4f}")
    if "mean_field_colours" in d:
        a1.axhline(d["mean_field_colours"], color="tab:red", ls=":", lw=1.2, label=f"mean field KC/(K+C−1) = {d['mean_field_colours']:.2f}")
        a2.axhline(d["mean_field_p_new"], color="tab:red", ls=":", lw=1.2, label=f"mean field (C−1)/(K+C−1) = {d['mean_field_p_new']:.4f}")
    a1.set_xlabel("t (draws)")
    a1.set_ylabel("colours online S(t)")
    a2.set_xlabel("t (draws)")
    a2.set_ylabel("P_new(t)")
    a1.legend(fontsize=7)
    a2.legend(fontsize=7)
    fig.suptitle(f"Fig {fig_no}-style: K = {K}, C = {C}, uniform colours")
    save(fig, path)
    half = d["t"] >= d["t"][-1] / 2
    sim_mean = float(d["simulated_colours"][half].mean())
    mf = f", mean field {d['mean_field_colours']:.3f}" if "mean_field_colours" in d else ""
    return (f"One seeded run (seed {SEED}) of K + {steps} draws, sampled at {len(d['t'])} times; second-half average "
            f"{sim_mean:.3f} colours vs exact stationary {d['exact_colours']:.3f}{mf}.")


FIGURES = [
    FigureSpec("buijsrogge-fig-5.1", PAPER, "colours online and P_new over time, C = K", "001 §5.1 Fig 5.1",
               partial(draw_trajectories, K=400, C=400, steps=8000, fig_no="5.1")),
    FigureSpec("buijsrogge-fig-5.4", PAPER, "colours online and P_new over time, K = 100, C = 1000", "001 §5.1 Fig 5.4",
               partial(draw_trajectories, K=100, C=1000, steps=5000, fig_no="5.4")),
]
