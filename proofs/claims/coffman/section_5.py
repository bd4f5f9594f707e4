"""Claims of Coffman–Liu–Weber (1997) §5, opening remarks: C* > 0 (end of the proof of Theorem 3.4), the
limit (17) and cyclic policies as mu -> 0.  The golden-ratio policy of §5 is in :mod:`.golden_policy` and
:mod:`.golden_bound`.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np

from ....numeric import scheduling as s
from ....numeric.generated import scheduling as gen
from ....numeric.tolerance import FINITE_SIZE_GAP_ABS
from ...registry import Method, Outcome, claim
from ._common import P, access_zoo, random_cyclic, random_rates, src


# --- §5 opening remarks and (17) ------------------------------------------------------

@claim(f"{P}.cstar-positive", source=src("§3", "end of proof of Theorem 3.4"), method=Method.FLOAT,
       statement="prod h_i = E exp(-sum mu_i X_i) > 1 - mu/nu, so C* > 0.")
def _cstar_pos():
    rng = np.random.default_rng(17)
    worst = math.inf
    for X in access_zoo().values():
        for _ in range(20):
            mu = random_rates(rng, int(rng.integers(1, 8)), spread=3)
            p = s.make_problem(mu, X)
            worst = min(worst, float(np.prod(p.h)) - (1 - p.mu / p.nu))
    return Outcome.judge(worst > 0, f"min over 120 instances of prod h - (1 - mu/nu) = {worst:.3g} > 0")


@claim(f"{P}.eq-17", source=src("§5", "(17)"), method=Method.NUMERIC_HP,
       statement="With mu fixed and every mu_i -> 0, C* -> c0(mu - nu + nu e^(-mu/nu)).")
def _eq_17():
    rows, ok = [], True
    for name in ("exp", "gamma", "uniform", "hyperexp"):
        X = access_zoo()[name]
        errs = []
        with mpmath.workdps(30):
            for N in (10, 100, 1000, 10000):
                mu_i = mpmath.mpf(2) / N  # equal pages, mu = 2
                prodh = X.h_mp(mu_i) ** N
                nu = mpmath.mpf(1) / mpmath.mpf(X.mean)
                cst = gen.cstar_mp(1, 2, nu, prodh)
                errs.append(float(abs(cst - gen.cstar_limit_mp(1, 2, nu))))
        shrinking = all(b < a / 5 for a, b in zip(errs, errs[1:]))
        ok &= shrinking and errs[-1] < FINITE_SIZE_GAP_ABS
        rows.append(f"{name}: |C* - (17)| at N=10..1e4: " + ", ".join(f"{e:.2g}" for e in errs))
    return Outcome.judge(ok, "; ".join(rows) + " (O(1/N))")


@claim(f"{P}.cyclic-small-mu", source=src("§5", "remark: cyclic policies as mu -> 0"), method=Method.FLOAT,
       statement="For any cyclic policy C = O(mu^2) as the total change rate mu -> 0.")
def _small_mu():
    rng = np.random.default_rng(50)
    rows, ok = [], True
    for name in ("det", "exp", "hyperexp"):
        X = access_zoo()[name]
        base = random_rates(rng, 4)
        seq = random_cyclic(rng, 4, 11)
        ratios = []
        for scale in (1e-1, 1e-2, 1e-3):
            mu = base / base.sum() * scale
            ratios.append(s.cyclic_cost(seq, s.make_problem(mu, X)).cost / scale**2)
        ok &= max(ratios) / min(ratios) < 1.5
        rows.append(f"{name}: C/mu^2 = " + ", ".join(f"{r:.4g}" for r in ratios))
    return Outcome.judge(ok, "; ".join(rows) + " (bounded as mu -> 0)")
