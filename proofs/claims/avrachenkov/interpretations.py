"""Avrachenkov et al. §2: the three interpretations of the arrival process (independent robots, thinning, a BMMAP),
checked on small examples: the printed D_0^(l) of interpretation 1 (a Kronecker product) is no generator, the
Kronecker sum is.
"""
from __future__ import annotations

import numpy as np

from ....numeric.bmap import BMAP, bmmap, independent_robots, thinned
from ....numeric.tolerance import CLEARLY_NONZERO_ABS, close
from ...registry import Method, Outcome, claim
from ._common import P, src


def _two_robots():
    a = BMAP([[[-2.0, 1.0], [0.5, -1.5]], [[0.6, 0.2], [0.3, 0.4]], [[0.1, 0.1], [0.1, 0.2]]])
    b = BMAP([[[-1.0]], [[0.7]], [[0.3]]])
    return a, b


@claim(f"{P}.interp.independent", source=src("§2", "interpretation 1"), method=Method.FLOAT,
       statement="Independent robots: D_0^(l) as printed (Kronecker product before D^(l+1)(1)) is no generator; with a Kronecker sum it is, "
                 "and lambda^(l) = sum of the active robots' rates.")
def _interp1():
    a, b = _two_robots()
    printed = np.kron(a.D[0], b.D1)  # D_0^(1) ⊗ D^(2)(1), as printed for l = 1
    printed_D1 = printed + np.kron(a.batch_rates()[1] + a.batch_rates()[2], np.eye(1))
    rows = (printed_D1).sum(axis=1)
    corr = independent_robots([a, b])
    ok = np.abs(rows).max() > CLEARLY_NONZERO_ABS and close(corr[0].lam, a.lam) and close(corr[1].lam, a.lam + b.lam)
    if not ok:
        return Outcome.failed(f"printed rows {rows}, corrected lambda {corr[0].lam}, {corr[1].lam} vs {a.lam}, {a.lam + b.lam}")
    return Outcome.erratum_(
        f"printed form gives D^(1)(1) row sums {rows.round(4).tolist()}; corrected lambda^(1) = {corr[0].lam:.6g} = lambda_a, "
        f"lambda^(2) = {corr[1].lam:.6g} = lambda_a + lambda_b",
        printed="D_0^(l) = D_0^(1) ⊕ ... ⊕ D_0^(l) ⊗ D^(l+1)(1) ⊗ ... ⊗ D^(N)(1)",
        corrected="D_0^(l) = D_0^(1) ⊕ ... ⊕ D_0^(l) ⊕ D^(l+1)(1) ⊕ ... ⊕ D^(N)(1)",
        evidence="a Kronecker product of two generators has non-zero row sums (checked on a 2-robot example); the sum is a generator "
                 "and the rates add")


@claim(f"{P}.interp.thinning-bmmap", source=src("§2", "interpretations 2 and 3"), method=Method.FLOAT,
       statement="Thinning gives rate q_l lambda; the BMMAP gives D^(l)(1) = D_0 + sum D_k^(m) for every l and rate sum_{m<=l} lambda_m.")
def _interp23():
    a, _ = _two_robots()
    th = thinned(a, [0.3, 1.0])
    ok1 = close(th[0].lam, 0.3 * a.lam) and close(th[1].lam, a.lam)
    D0 = [[-3.0, 1.0], [0.5, -2.0]]
    marks = [[[[0.5, 0.2], [0.1, 0.3]]], [[[0.6, 0.7], [0.4, 0.7]]]]
    bm_ = bmmap(D0, marks)
    full = np.asarray(D0) + sum(np.asarray(x[0]) for x in marks)
    ok2 = all(np.allclose(b.D1, full) for b in bm_) and bm_[1].lam > bm_[0].lam
    return Outcome.judge(ok1 and ok2, f"thinned rates {th[0].lam:.6g}, {th[1].lam:.6g} (q lambda = {0.3 * a.lam:.6g}, {a.lam:.6g}); "
                                      f"BMMAP D^(l)(1) equal for all l: {ok2}, rates {[round(b.lam, 6) for b in bm_]}")
