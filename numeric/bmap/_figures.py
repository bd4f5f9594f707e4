"""Data behind the figures of Avrachenkov et al. (§7) that claims and the report use.

- Figure 1: J against the threshold for every two-mode combination of the corrected example model
  (``avrachenkov-example.json``), `figure1`;
- Figures 2–4: a hyperexponential service or obsolescence time of a given mean, ``beta = (p1, 1 - p1)``,
  ``S = diag(-alpha_1, -alpha_2)``, ``alpha_2 = (1 - p1) alpha_1/(mean alpha_1 - p1)`` (§7, from the generated
  `crawlmath.numeric.generated.avrachenkov.avrachenkov_alpha2`), `hyperexponential`.

>>> curves = figure1(K=3)
>>> sorted(curves)[:2], len(curves[(2, 1)])
([(2, 1), (3, 1)], 3)
>>> round(hyperexponential(3.0, 5.0).mean, 12)
5.0
"""
from __future__ import annotations

import itertools

from ..generated.avrachenkov import avrachenkov_alpha2
from ._core import BmapModel
from ._io import load_model
from ._optimise import optimize
from ._phase_type import PhaseType


def _curve(model: BmapModel, modes) -> list[tuple[int, float]]:
    o = optimize(model, modes, convention="strict")
    return [(th[0], cost) for th, cost in o.curve]


def figure1(K: int = 5) -> dict:
    """``{(high, low): [(j, J), ...]}`` for the six two-mode combinations (Figure 1, strict thresholds)."""
    m = load_model("avrachenkov-example.json", K=K)
    return {pair: _curve(m, pair) for pair in itertools.combinations(range(m.N, 0, -1), 2)}


def hyperexponential(alpha1: float, mean: float, p1: float = 0.9) -> PhaseType:
    """Two-phase hyperexponential with ``beta = (p1, 1 - p1)`` and the given mean (§7, Figures 2–4):
    ``S = diag(-alpha1, -alpha2)`` with ``alpha2`` from the generated `avrachenkov_alpha2`."""
    alpha2 = float(avrachenkov_alpha2(alpha1, mean, p1))
    return PhaseType([p1, 1 - p1], [[-alpha1, 0.0], [0.0, -alpha2]])
