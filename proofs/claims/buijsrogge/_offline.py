"""The setting the Buijsrogge (2014) Chapter 7-8 claims share: K and C of every table, the power-law colour laws and
the exact no-offline level, and the seeded single-run series of the δ rule (Tables 8.x and the figures of Ch. 8).
"""
from __future__ import annotations

import functools
import zlib

import numpy as np

from ....numeric import colours as nc
from ....numeric.colours import simulate


K_TAB = 1000  # K of every Ch. 7-8 table
C_TAB = 100_000
REPLICATES = 8  # seeded single runs per table cell (Tables 8.x)
STEP = 50_000  # the T grid of Tables 8.4-8.10


@functools.lru_cache(maxsize=None)
def colour_law(C: int, gamma: str) -> np.ndarray:
    """The power law p_c = c^-gamma / sum_n n^-gamma over C colours (§5.5; gamma as printed, e.g. "0.9"); cached."""
    return nc.colour_distribution("powerlaw", C, float(gamma))


@functools.lru_cache(maxsize=None)
def exact_none(C: int, gamma: str) -> float:
    """The exact stationary mean number of colours without offline structure (K = 1000, power law); cached."""
    return nc.exact_stationary(colour_law(C, gamma), K_TAB).colours


def z_line(name: str, sim, exact: float) -> tuple[float, str]:
    """The z-score of a simulated mean against an exact value, and the detail line that shows it."""
    z = (sim.mean - exact) / sim.stderr
    return z, f"{name}: {sim.mean:.3f} ± {sim.stderr:.3f} (z = {z:+.2f})"


ONE_QUEUE, OWN_QUEUES = "recommended", "mice-delta"

# The runs of one series (strategy, γ, δ, rule): run k has seed tag·1000 + k, so a longer series starts with the
# runs of a shorter one, and the record at T does not depend on how far the run goes (the state at T is the same).
_SERIES: dict[tuple, tuple[int, list]] = {}


def series_runs(strategy: str, gamma: str, delta: int, T_end: int, strict: bool = True, n: int = REPLICATES):
    """The first ``n`` seeded runs of the δ rule (C = 1e5, K = 1000) to time
    ``T_end``; returns (elephant counts, elephant masses), each of shape
    (n, T_end/STEP), at T = STEP, 2 STEP, ...  Runs are kept per series and
    extended on demand (a longer T_end reruns the series)."""
    key = (strategy, gamma, delta, strict)
    t_have, runs = _SERIES.get(key, (0, []))
    if t_have < T_end:
        t_have, runs = T_end, []
    tag = zlib.crc32(f"{strategy}/{gamma}/{delta}/{strict}".encode())
    for k in range(len(runs), n):
        r = simulate(colour_law(C_TAB, gamma), K_TAB, t_have - K_TAB, seed=tag * 1000 + k, strategy=strategy, delta=delta,
                     strict=strict, every=STEP)
        if r.stopped_at >= 0:
            raise RuntimeError(f"{strategy} γ={gamma} δ={delta}: run stopped at t = {r.stopped_at}")
        runs.append((r.elephant_counts, r.elephant_masses))
    _SERIES[key] = (t_have, runs)
    cols = T_end // STEP
    return (np.array([c[:cols] for c, _ in runs[:n]], dtype=float), np.array([m[:cols] for _, m in runs[:n]]))


def series_sample(strategy, gamma, delta, T_at, mass=False, strict=True, n=REPLICATES):
    """The first ``n`` single-run values of the series at time T_at."""
    T_end = 600_000 if (gamma == "0.9" and strategy == ONE_QUEUE and delta > 1) else \
        300_000 if (gamma == "0.9" and strategy == OWN_QUEUES) else 200_000
    T_end = max(T_end, T_at)
    counts, masses = series_runs(strategy, gamma, delta, T_end, strict, n)
    return (masses if mass else counts)[:, T_at // STEP - 1]
