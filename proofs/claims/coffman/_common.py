"""Helpers shared by the claims of Coffman–Liu–Weber (1997) §3–§5: the claim-id prefix, sources, one access law
of each kind, random instances, the SLSQP optimiser the closed forms are checked against."""
from __future__ import annotations

import numpy as np
from scipy import optimize

from ....numeric.scheduling._access_time import (Deterministic, Exponential, Gamma, HyperExponential, PhaseTypeAccess,
                                                 Uniform)
from ....numeric.tolerance import SLSQP_FTOL
from ...registry import Source


P = "coffman.sched"


def src(section: str, ref: str) -> Source:
    """A :class:`Source` in Coffman–Liu–Weber 1997 (section, reference)."""
    return Source("coffman", section, ref)


def access_zoo() -> dict:
    """One access law of each kind (mean 1 except where noted)."""
    return {
        "det": Deterministic(1.0),
        "exp": Exponential(1.0),
        "gamma": Gamma(2.5, 2.5),
        "uniform": Uniform(0.2, 1.8),
        "hyperexp": HyperExponential((0.3, 0.7), (0.4, 2.8)),
        "ph": PhaseTypeAccess([0.6, 0.4], [[-2.0, 1.5], [0.0, -1.0]]),
    }


def random_rates(rng, N: int, spread: float = 2.0) -> np.ndarray:
    """N random change rates mu_i = e^U, U uniform on [-spread, spread/2]."""
    return np.exp(rng.uniform(-spread, spread / 2, N))


def random_cyclic(rng, N: int, K: int) -> np.ndarray:
    """A random cyclic schedule of length K >= N: every page once, the K − N other accesses uniform, shuffled."""
    seq = np.concatenate([np.arange(N), rng.integers(0, N, K - N)])
    rng.shuffle(seq)
    return seq


def slsqp(objective, N, x0=None):
    """min objective(x) over the simplex {x >= 1e-9, sum x = 1} by SLSQP (the numeric optimiser the closed forms of
    Theorems 3.4 and 4.1 are compared with)."""
    x0 = np.full(N, 1.0 / N) if x0 is None else x0
    # x_i >= 1e-9 keeps h^(1/x_i) finite: a bound of the domain, not a tolerance
    res = optimize.minimize(objective, x0, method="SLSQP", bounds=[(1e-9, 1.0)] * N,
                            constraints=[{"type": "eq", "fun": lambda x: x.sum() - 1}], options={"ftol": SLSQP_FTOL, "maxiter": 500})
    return res
