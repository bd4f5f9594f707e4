r"""Seeded simulation of the BUbiNG workbench game (Buijsrogge 2014, Ch. 5, 7, 8).

One time unit is one draw from the source; the first ``K`` draws fill the
workbench (Ch. 3), every later step removes the first ball of a uniformly
chosen colour present online and then refills (Ch. 4).  State per step is
O(1): ball counts per colour, the list of present colours (for the uniform
choice) and an alias table for drawing colours from ``p``.

Strategies for the offline structure (Ch. 7–8), ``strategy=``:

- ``none``: no offline structure (the baseline of Ch. 5);
- ``neutral``: Alg. 1 with an empty offline structure and source priority
  (every ball accepted; Prop. 7.1.1);
- ``greedy``: Greedy–Greedy–Offline, Alg. 5 (Alg. 4 with acceptance from
  the FIFO when P_offline > 0.99); ``stop_at=0.99`` stops it as Alg. 4;
- ``randomized``: Alg. 9 with parameter ``r``;
- ``mice``: Mice and Elephants, Alg. 11, elephants ``p_c >= 1/(beta K)``,
  one queue per elephant colour;
- ``recommended``: Alg. 12, one FIFO queue, a colour becomes an elephant
  when it has ``delta`` (= 5) balls online (during the first ``t_star``
  steps; always when ``t_star`` is 0).

The JIT kernels (numba, ``cache=True``) compile on first use.

>>> r = simulate(colour_distribution("uniform", 1000), 100, 20000, seed=1)
>>> 85 < r.mean < 97
True
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .colours import colour_distribution  # noqa: F401  (doctest convenience)
from .errors import InvalidInput
from .validate import require_int, require_probability_vector

STRATEGIES = ("none", "neutral", "greedy", "randomized", "mice", "recommended", "greedy-neutral")
_CODES = {s: k for k, s in enumerate(STRATEGIES)}


def alias_table(p: np.ndarray):
    """Walker's alias table: (prob, alias) for O(1) sampling of ``p``."""
    n = p.size
    prob = np.zeros(n)
    alias = np.zeros(n, dtype=np.int64)
    scaled = p * n
    small = [i for i in range(n) if scaled[i] < 1.0]
    large = [i for i in range(n) if scaled[i] >= 1.0]
    while small and large:
        s, g = small.pop(), large.pop()
        prob[s], alias[s] = scaled[s], g
        scaled[g] = scaled[g] + scaled[s] - 1.0
        (small if scaled[g] < 1.0 else large).append(g)
    for i in large + small:
        prob[i], alias[i] = 1.0, i
    return prob, alias


def packed_table(prob: np.ndarray, alias: np.ndarray) -> np.ndarray:
    """One uint64 per column: ``alias << 33 | round(prob * 2^32)``."""
    thr = np.minimum(np.round(prob * 2.0**32), 2.0**32).astype(np.uint64)
    return (alias.astype(np.uint64) << np.uint64(33)) | thr


@dataclass(frozen=True)
class SimResult:
    K: int
    C: int
    steps: int  # draws after the fill (total time T = K + steps)
    seed: int
    strategy: str
    mean: float  # time average of colours online over the second half
    stderr: float  # batch-means standard error (20 batches)
    p_new_mean: float  # time average of P_new over the second half
    times: np.ndarray = field(repr=False)
    colours: np.ndarray = field(repr=False)  # trajectory of S(t)
    p_new: np.ndarray = field(repr=False)  # trajectory of P_new(t) (absent mass)
    p_offline: np.ndarray = field(repr=False)  # trajectory of P_offline(t)
    elephants: int = 0  # number of elephant colours at the end
    elephant_mass: float = 0.0  # their total probability 1 - q
    source_draws: int = 0  # balls drawn from the source in total
    stopped_at: int = -1  # time the run stopped (stop_at reached), else -1
    method: str = "numba kernel, alias sampling (xoshiro256** for strategy none)"


def simulate(p, K: int, steps: int, seed: int = 0, strategy: str = "none", *, beta: float = 1.0,
             delta: int = 5, r: float = 0.5, t_star: int = 0, prefill: int = 0,
             stop_at: float = 2.0, samples: int = 1000) -> SimResult:
    """Run the game for ``K + steps`` draws and return the trajectory of the
    number of colours online and of P_new, with a batch-means estimate of
    the stationary mean over the second half of the run."""
    p = require_probability_vector(p, "p")
    K = require_int(K, "K", minimum=1)
    steps = require_int(steps, "steps", minimum=1)
    seed = require_int(seed, "seed", minimum=0)
    if strategy not in _CODES:
        raise InvalidInput("strategy", f"must be one of {', '.join(STRATEGIES)}", value=strategy)
    if not beta > 0:
        raise InvalidInput("beta", "must be > 0", value=beta)
    delta = require_int(delta, "delta", minimum=1)
    if not 0 <= r <= 1:
        raise InvalidInput("r", "must lie in [0, 1]", value=r)
    samples = require_int(samples, "samples", minimum=2)
    from . import colours_kernels as kern

    prob, alias = alias_table(p)
    total = K + steps
    every = max(1, total // samples)
    elephant = (p >= 1.0 / (beta * K)) if strategy == "mice" else np.zeros(p.size, dtype=np.bool_)
    if strategy == "none":
        out = kern.run_plain(p, packed_table(prob, alias), K, steps, seed, every)
    else:
        out = kern.run(p, prob, alias, K, steps, seed, _CODES[strategy], elephant, delta, r, t_star,
                       prefill, stop_at, every)
    times, S, pn, poff, avg_s, avg_p, batches, draws, stopped, eleph = out
    b = batches[batches[:, 2] > 0]
    means = b[:, 0] / b[:, 2]
    se = float(np.std(means, ddof=1) / math.sqrt(len(means))) if len(means) > 1 else math.nan
    return SimResult(K, p.size, steps, seed, strategy, float(avg_s), se, float(avg_p), times, S, pn, poff,
                     int(eleph.sum()), float(math.fsum(p[eleph])), int(draws), int(stopped))


def trajectories(K: int, C: int, steps: int, seed: int = 0, dist: str = "uniform", params=(),
                 samples: int = 500) -> dict:
    """Fig 5.1-style curves: simulated S(t) and P_new(t), the mean-field
    stationary level KC/(K+C-1), the exact stationary level (product form)
    and the exact E[S(t)] during the fill (eq. 3.1 at t <= K).

    Returns a dict of numpy arrays and floats ready to plot."""
    from .colours import exact_stationary, initial_expected, mean_field

    p = colour_distribution(dist, C, *params)
    sim = simulate(p, K, steps, seed, samples=samples)
    fill_t = sim.times[sim.times <= K]
    fill = np.array([initial_expected(p, int(t)) if t > 0 else 0.0 for t in fill_t])
    ex = exact_stationary(p, K)
    out = {"t": sim.times, "simulated_colours": sim.colours, "simulated_p_new": sim.p_new,
           "fill_t": fill_t, "fill_expected": fill, "exact_colours": ex.colours, "exact_p_new": ex.p_new}
    if dist == "uniform":
        mf = mean_field(K, C)
        out.update(mean_field_colours=mf.colours, mean_field_p_new=mf.p_new)
    return out
