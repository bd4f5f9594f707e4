"""Buijsrogge (2014) Fig 5.1-style trajectories, regenerated.

The number of colours online S(t) and P_new(t) from one seeded simulation of
the workbench game, against the mean-field level KC/(K+C-1) (Theorem 4.2.1),
the exact stationary level (product form) and the exact mean during the fill
(eq. 3.1), from :func:`crawlmath.numeric.colours._sim.trajectories`.
"""
from __future__ import annotations

from functools import partial
from pathlib import Path

from .figures import FigureSpec, new_figure, require, save

PAPER = "buijsrogge"
SEED = 1


def trajectory_data(K: int, C: int, steps: int, seed: int = SEED, dist: str = "uniform", params=()) -> dict:
    """A seeded trajectory of S(t) and P_new(t) for K positions and C colours, with the exact fill curve (3.1),
    the exact stationary values and (uniform colours) the mean field (Thm 4.2.1, Cor 4.2.1); a dict of arrays and numbers.
    """
    trajectories = require("numeric.colours._sim", "trajectories")
    return trajectories(K, C, steps, seed=seed, dist=dist, params=params, samples=400)


def draw_trajectories(path: Path, K: int, C: int, steps: int, fig_no: str) -> str:
    """Draw a Fig 5.1/5.4-style plot (S(t) and P_new(t) of one seeded run against the exact and mean-field values)
    into ``path``; returns the caption with the second-half average.
    """
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


# ----------------------------------------------------------------------------- Ch. 7-8: offline strategies
# Each figure reruns the thesis's experiment with crawlmath's seeded simulator (numeric/colours/_sim.py) at
# the thesis's K = 1000, C and γ, with shorter runs where the thesis's curves are already flat.

_PANELS = {"colours": ("colours online S(t)", "colours"), "p_offline": ("P_offline(t)", "p_offline"),
           "cost": ("disk-head moves per step m(t)/t", None)}


def _series(sim, panel):
    if panel == "cost":
        return sim.head_moves / sim.times
    return getattr(sim, _PANELS[panel][1])


def draw_runs(path: Path, runs, panels, title: str, claim_id: str, log_panels=()) -> str:
    """Plot S(t) (and P_offline(t) or m(t)/t) of seeded runs; ``runs`` is a list of
    (label, dist C, γ, steps, simulate keyword arguments).  Panels named in
    ``log_panels`` get a log y axis, for runs whose initial transient would
    otherwise squash the stationary level into the bottom of the plot."""
    colour_distribution = require("numeric.colours", "colour_distribution")
    simulate = require("numeric.colours._sim", "simulate")
    fig, axes = new_figure(4.8 * len(panels), 3.8, ncols=len(panels))
    axes = axes if len(panels) > 1 else [axes]
    notes = []
    for label, C, gamma, steps, kw in runs:
        sim = simulate(colour_distribution("powerlaw", C, gamma), 1000, steps, seed=SEED, samples=400, **kw)
        for ax, panel in zip(axes, panels):
            ax.plot(sim.times, _series(sim, panel), lw=0.9, label=label)
        level = "stopped at t = %d" % sim.stopped_at if sim.mean is None else f"{sim.mean:.1f}"
        notes.append(f"{label}: {level}")
    for ax, panel in zip(axes, panels):
        ax.set_xlabel("t (steps)")
        # t reaches 5·10^5: plain tick labels would run into each other
        ax.ticklabel_format(axis="x", style="sci", scilimits=(0, 0), useMathText=True)
        ax.set_ylabel(_PANELS[panel][0] + (" (log scale)" if panel in log_panels else ""))
        if panel in log_panels:
            ax.set_yscale("log")
        ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=9)
    save(fig, path)
    return (f"Seeded runs (seed {SEED}), K = 1000; second-half colours online: " + "; ".join(notes)
            + f". The claim for what the figure shows: {claim_id}.")


def _fig(fig_no, title, section, runs, panels, claim_id, log_panels=()):
    return FigureSpec(f"buijsrogge-fig-{fig_no}", PAPER, title, f"001 {section} Fig {fig_no}",
                      partial(draw_runs, runs=runs, panels=panels, title=f"Fig {fig_no}: {title}",
                              claim_id=claim_id, log_panels=log_panels))


FIGURES += [
    _fig("7.1", "Greedy–Neutral–Source, K balls prefilled (γ = 1)", "§7.2.1",
         [(f"C = {C}", C, 1.0, 200_000, {"strategy": "greedy-neutral", "prefill": 1000}) for C in (2000, 5000, 10_000)],
         ("colours", "p_offline"), "buijsrogge.offline.prop-7.2.2", log_panels=("colours",)),
    _fig("7.4", "Greedy–Greedy–Offline – a (Alg. 6), stopped at P_offline > 0.99 (γ = 1)", "§7.2.2",
         [(f"C = {C}", C, 1.0, 200_000, {"strategy": "greedy-a", "stop_at": 0.99}) for C in (5000, 10_000)]
         + [("Alg. 4, C = 10000", 10_000, 1.0, 200_000, {"strategy": "greedy-greedy", "stop_at": 0.99})],
         ("colours", "p_offline"), "buijsrogge.offline.fig-7.4, buijsrogge.offline.prop-7.2.5"),
    _fig("7.6", "Alg. 10 (randomized + Greedy–Greedy), C = 5000, γ = 1", "§7.3",
         [(f"r = {r}", 5000, 1.0, 300_000, {"strategy": "combined", "r": r}) for r in (0.0, 0.5, 1.0)],
         ("colours", "p_offline"), "buijsrogge.offline.fig-7.6", log_panels=("colours",)),
    _fig("7.9", "mice and elephants (β = 5, γ = 0.9): two initialisations", "§7.4",
         [(f"fill: {f}", 100_000, 0.9, 100_000, {"strategy": "mice", "beta": 5, "fill": f})
          for f in ("source", "one-per-elephant")], ("colours",), "buijsrogge.offline.fig-7.9"),
    _fig("8.1", "δ rule, a queue per elephant colour", "§8.1",
         [(f"γ = {g}, δ = {d}", 100_000, g, 199_000, {"strategy": "mice-delta", "delta": d, "strict": True})
          for g in (0.9, 1.3) for d in (1, 5, 10)], ("colours",), "buijsrogge.offline.fig-8.1"),
    _fig("8.2", "disk-head cost m(t)/t, a queue per elephant colour", "§8.2",
         [(f"γ = {g}, δ = {d}", 100_000, g, 199_000, {"strategy": "mice-delta", "delta": d, "strict": True})
          for g in (1.3, 1.5) for d in (1, 5, 10)], ("cost",), "buijsrogge.offline.fig-8.2"),
    _fig("8.3", "a queue per elephant vs one queue (γ = 0.9)", "§8.2",
         [(f"{name}, δ = {d}", 100_000, 0.9, 199_000, {"strategy": s, "delta": d, "strict": True})
          for name, s in (("own queues", "mice-delta"), ("one queue", "recommended")) for d in (2, 5, 10)],
         ("colours",), "buijsrogge.offline.fig-8.3"),
    _fig("8.4", "elephant search stopped at T* (δ = 5, γ = 0.9, one queue)", "§8.3",
         [(f"T* = {ts}", 100_000, 0.9, 499_000, {"strategy": "recommended", "delta": 5, "strict": True,
                                                 "t_star": ts}) for ts in (50_000, 100_000, 250_000, 500_000)],
         ("colours",), "buijsrogge.offline.fig-8.4"),
]
