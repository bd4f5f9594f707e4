"""Data behind Figures 1–4 of Avrachenkov et al. (§7), for the report to draw.

Each function returns plain dicts of curves ``[(threshold, J), ...]``
computed from the corrected example model (``avrachenkov-example.json``).

- Figure 1: J against the threshold for every two-mode combination;
- Figure 2: J against the threshold, modes (3, 1), hyperexponential service
  ``beta = (0.9, 0.1)``, ``S = diag(-alpha_1, -alpha_2)`` with the mean kept at
  ``b_1`` (``alpha_2 = 0.1 alpha_1/(b_1 alpha_1 - 0.9)``), alpha_1 in {1.521, 3, 5, 7, 9};
- Figure 3: as Figure 2 but with the best two-mode set for each alpha_1;
- Figure 4: as Figure 2 for the obsolescence time (``gamma = (0.9, 0.1)``, mean
  ``g_1 = 5``), alpha_1 in {0.2, 0.5, 1, 3, 7}.

>>> curves = figure1(K=3)
>>> sorted(curves)[:2], len(curves[(2, 1)])
([(2, 1), (3, 1)], 3)
"""
from __future__ import annotations

import itertools

from ._model import BmapModel, optimize
from ._phase_type import PhaseType


def _example(K: int) -> BmapModel:
    from ._io import load_model

    return load_model("avrachenkov-example.json", K=K)


def _curve(model: BmapModel, modes) -> list[tuple[int, float]]:
    o = optimize(model, modes, convention="strict")
    return [(th[0], cost) for th, cost in o.curve]


def figure1(K: int = 5) -> dict:
    """``{(high, low): [(j, J), ...]}`` for the six two-mode combinations."""
    m = _example(K)
    return {pair: _curve(m, pair) for pair in itertools.combinations(range(m.N, 0, -1), 2)}


def hyperexponential(alpha1: float, mean: float, p1: float = 0.9) -> PhaseType:
    """Two-phase hyperexponential with ``beta = (p1, 1 - p1)`` and the given mean."""
    from ..generated.avrachenkov import avrachenkov_alpha2

    alpha2 = float(avrachenkov_alpha2(alpha1, mean, p1))
    return PhaseType([p1, 1 - p1], [[-alpha1, 0.0], [0.0, -alpha2]])


def _variation(which: str, alphas, K: int, modes) -> dict:
    """``{alpha_1: (variance, [(j, J), ...])}`` with the service or the
    obsolescence time replaced by a hyperexponential of the same mean."""
    base = _example(K)
    out = {}
    for a in alphas:
        ph = hyperexponential(a, getattr(base, which).mean)
        out[a] = (ph.variance, _curve(base.with_(**{which: ph}), modes))
    return out


def figure2(alphas=(1.521, 3, 5, 7, 9), K: int = 5, modes=(3, 1)) -> dict:
    """``{alpha_1: (var_s, [(j, J), ...])}`` for service-time variability."""
    return _variation("service", alphas, K, modes)


def figure3(alphas=(1.521, 3, 5, 7, 9), K: int = 5) -> dict:
    """``{alpha_1: (var_s, best_modes, [(j, J), ...])}`` with the cheapest two-mode set."""
    base = _example(K)
    out = {}
    for a in alphas:
        ph = hyperexponential(a, base.service.mean)
        m = base.with_(service=ph)
        opts = {pair: optimize(m, pair, convention="strict") for pair in itertools.combinations(range(m.N, 0, -1), 2)}
        best = min(opts, key=lambda k: opts[k].cost)
        out[a] = (ph.variance, best, [(th[0], c) for th, c in opts[best].curve])
    return out


def figure4(alphas=(0.2, 0.5, 1, 3, 7), K: int = 5, modes=(3, 1)) -> dict:
    """``{alpha_1: (var_obsolescence, [(j, J), ...])}`` for obsolescence-time variability."""
    return _variation("obsolescence", alphas, K, modes)
