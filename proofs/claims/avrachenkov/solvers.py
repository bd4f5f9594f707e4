"""Avrachenkov et al. §3 and §6: the solvers agree.  Block recursion, sparse LU, the matrix-free structured solver and
the §6 QBD recursion (single arrivals) give the same measures.
"""
from __future__ import annotations

import numpy as np

from ....numeric import bmap as bm
from ....numeric.tolerance import SOLVERS_REL
from ...registry import Method, Outcome, claim
from ._common import P, full, measure_vector, src, toy_model


@claim(f"{P}.solvers.agree", source=src("§3, §6", "algorithms"), method=Method.FLOAT,
       statement="Block recursion (§3), sparse LU and the matrix-free structured solver agree on every measure (K = 3, 5, 7).")
def _solvers():
    rows, worst = [], 0.0
    for K, modes, th in [(3, (3, 1), (1,)), (5, (4, 3, 1), (0, 2)), (7, (3, 1), (3,))]:
        m = full(K)
        lv = m.check_policy(bm.Policy(modes, th))
        vs = {s: measure_vector(bm.evaluate_levels(m, lv, s)) for s in ("sparse", "block", "structured")}
        dev = max(float(np.max(np.abs(vs[s] - vs["sparse"]) / np.abs(vs["sparse"]).clip(1e-300))) for s in vs)
        worst = max(worst, dev)
        rows.append(f"K={K}: {dev:.1e}")
    return Outcome.judge(worst <= SOLVERS_REL, "max relative deviation from sparse LU over 9 measures: " + ", ".join(rows))


@claim(f"{P}.solvers.qbd", source=src("§6", "QBD recursion"), method=Method.FLOAT,
       statement="For single arrivals the §6 QBD recursion agrees with sparse LU and the general block recursion.")
def _qbd():
    m0 = toy_model(2, 2, 2, 5, 7, kmax=1)
    lv = m0.check_policy(bm.Policy((2, 1), (2,)))
    vs = {s: measure_vector(bm.evaluate_levels(m0, lv, s)) for s in ("sparse", "block", "qbd")}
    dev = max(float(np.max(np.abs(vs[s] - vs["sparse"]) / np.abs(vs["sparse"]))) for s in vs)
    return Outcome.judge(dev <= SOLVERS_REL, f"max relative deviation {dev:.2e} (J = {vs['qbd'][-1]:.12g})")


@claim(f"{P}.solvers.structured-K10", source=src("§3", "scale"), method=Method.FLOAT, slow=True,
       statement="At K = 10 (4094 states) the matrix-free solver agrees with sparse LU to 1e-10 on every measure.")
def _structured10():
    m = full(10)
    lv = m.check_policy(bm.Policy((3, 1), (3,)))
    a = measure_vector(bm.evaluate_levels(m, lv, "sparse"))
    s = bm.evaluate_levels(m, lv, "structured")
    dev = float(np.max(np.abs(measure_vector(s) - a) / np.abs(a)))
    return Outcome.judge(dev <= SOLVERS_REL,
                         f"max relative deviation {dev:.2e}; structured residual {s.residual:.1e}, {s.seconds:.1f} s")
