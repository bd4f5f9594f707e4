"""numba kernels of :func:`crawlmath.numeric.scheduling._frequencies.optimal_frequencies`
(general weights), compiled lazily and cached; imported by that route only, so
the rest of the scheduling module starts without numba.

With y = h^{1/x} = e^{-u}, the stationarity condition (8) of page i reads
P(2, u_i) = t_i, P(2, u) = 1 - (1+u) e^{-u} the regularised lower incomplete
gamma function and t_i = lambda mu_i/(c_i nu) (derive.scheduling.stationarity_level),
so x_i(lambda) = -ln h_i / u_i, and x_i = 0 when t_i >= 1.

>>> import math
>>> u, growth = level_root(0.5, R_SERIES, LEVEL_NEWTON_STEP_REL)
>>> round(1 - (1 + u) * math.exp(-u), 15)
0.5
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..tolerance import LEVEL_NEWTON_STEP_REL

# R(u) = 2 P(2, u)/u^2 = sum_{k>=2} 2 (-1)^k (k-1) u^(k-2)/k!, the series of
# P(2, u) = 1 - (1+u) e^-u without its cancellation; 18 terms reach 1e-18 for
# u <= 0.71, the largest u at which level_root evaluates it.
R_SERIES = np.array([2.0 * (-1) ** k * (k - 1) / math.factorial(k) for k in range(2, 20)])
SMALL_LEVEL = 0.25  # P(2, u) <= 1/4 puts the root at u < 0.97, where P(2, .) is convex


@njit(cache=True)
def level_root(t, series, step_rel):
    """u > 0 with P(2, u) = 1 - (1+u) e^-u = t, for 0 < t < 1, and its
    growth factor t e^u/u^2 = t du/dt / u.

    t <= 1/4: Newton on w = u/s, s = sqrt(2t), for w^2 R(s w) = 1 (scaled, so
    no underflow for subnormal t), from the series reversion
    u = s + s^2/3 + 11 s^3/72 + 43 s^4/540 + 769 s^5/17280 + O(s^6).
    t > 1/4: Newton on u - ln(1+u) = -ln(1-t) (convex) from its two-term
    asymptotic root.  Both equations are convex near the root with
    |f''/(2 f')| <= 1/(2u), so the relative error after a step of relative
    size d is below d^2/2 and a step under ``step_rel`` (tolerance.LEVEL_NEWTON_STEP_REL) ends the iteration at full
    precision (max relative error 2.6e-16 against mpmath on t in
    [5e-324, 1 - 3e-16], tests/test_scheduling.py)."""
    if t <= SMALL_LEVEL:
        s = math.sqrt(2.0 * t)
        w = 1.0 + s * (1.0 / 3.0 + s * (11.0 / 72.0 + s * (43.0 / 540.0 + s * (769.0 / 17280.0))))
        for _ in range(64):
            u = s * w
            r = series[series.size - 1]
            for j in range(series.size - 2, -1, -1):
                r = r * u + series[j]
            e = math.exp(-u)
            step = (w * w * r - 1.0) / (2.0 * w * e)
            w -= step
            if abs(step) <= step_rel * w:
                return s * w, 1.0 / (2.0 * w * w * e)  # e^u/(2 w^2), with e^-u one step old: a slope only
        return math.nan, math.nan
    lq = math.log1p(-t)
    u = -lq + math.log1p(-lq)
    for _ in range(64):
        step = (u - math.log1p(u) + lq) * (1.0 + u) / u
        u -= step
        if abs(step) <= step_rel * u:
            return u, t * (1.0 + u) / ((1.0 - t) * u * u)  # e^u = (1+u)/(1-t) at the root
    return math.nan, math.nan


@njit(cache=True)
def _frequencies_at(lam, tau, a, series, step_rel, x):
    """x_i(lambda) = a_i / u_i into ``x``, with P(2, u_i) = t_i = lambda tau_i
    (0 when t_i >= 1: the page is left out).  Returns
    (sum x_i with Neumaier compensation, -d sum x_i/d ln lambda = sum x_i t_i e^u_i/u_i^2)."""
    total = 0.0
    comp = 0.0
    slope = 0.0
    for i in range(x.size):
        t = lam * tau[i]
        if t >= 1.0:
            x[i] = 0.0
            continue
        u, growth = level_root(t, series, step_rel)
        xi = a[i] / u
        x[i] = xi
        nxt = total + xi
        if abs(total) >= abs(xi):
            comp += (total - nxt) + xi
        else:
            comp += (xi - nxt) + total
        total = nxt
        slope += xi * growth
    return total + comp, slope


def frequencies_at(lam: float, tau: np.ndarray, a: np.ndarray, x: np.ndarray) -> tuple[float, float]:
    """x_i(lambda) for t_i = lambda tau_i and a_i = -ln h_i, written into ``x``;
    returns (sum x_i, -d sum x_i / d ln lambda) (see ``_frequencies_at``)."""
    # The tolerance is an argument, not a global: a cached kernel keeps the compile-time value of a global read
    # from another file (numba's caching limitations), so a change in tolerance.py would not reach it.
    return _frequencies_at(lam, tau, a, R_SERIES, LEVEL_NEWTON_STEP_REL, x)
