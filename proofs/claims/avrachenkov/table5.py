"""Avrachenkov et al. §7, Table 5: the real-data crawler.  The rates lambda^(r) of the real MAP, the stated mean interval
212.03 against the printed MAP's rounding boxes, and the optimum of every mode set with the hypotheses tried (model
variants, a·V̄ in eq. (2), the rounding of the inputs).
"""
from __future__ import annotations

import numpy as np

from ....numeric import bmap as bm
from ....numeric.errors import SolverError
from ....numeric.tolerance import HP_DIGITS, SLSQP_FTOL
from ... import cells
from ...cells import Hypothesis, Printing
from ...registry import Claim, Method, Outcome, TableCell, claim, register
from ...tables import avrachenkov as T
from ._common import COSTS, MEANS, P, hp_cell, other_reading, prints_as, real, src
from ._real import bmap_ball, lam_window, map_lam, printed_real, real_variant
from ._tables import modes_of, opt_cells, table5, table5_hypotheses


def _real_lam(r: int, printed: str):
    def check():
        b = real().arrivals[r - 1]
        cv = bm.certify(bmap_ball(b, "lam"), b.lam, HP_DIGITS, f"real lambda^({r})")
        v = float(cv.value)
        alt = real_variant("212.03").arrivals[r - 1].lam
        return hp_cell(MEANS, cv, printed, f"real-data lambda^({r}) (the model's MAP, avrachenkov.inputs.real-D0)",
                    [other_reading(v, printed, MEANS), Hypothesis("MAP rescaled to the stated mean interval 212.03, rounding", alt,
                                                                  prints_as(MEANS, alt, printed)),
                     Hypothesis("MAP rescaled to 212.03, truncation", alt, cells.matches(Printing.TRUNCATE, alt, printed))])
    return check


for _r, _printed in enumerate(T.REAL_LAM, start=1):
    register(Claim(f"{P}.real.lam.r{_r}", src("§7", f"real data lambda^({_r})"), f"Real-data BMAP rate lambda^({_r}) = {_printed}",
                   Method.NUMERIC_HP, _real_lam(_r, _printed), TableCell("Avrachenkov §7 real data", f"r = {_r}", "lambda", _printed)))


def _box_batch_rates() -> tuple[float, float]:
    """(min, max) of the batch rate theta A e over the MAPs D_0 = -diag(A e), D_1 = A with every entry of A and D_0 inside
    its printed rounding box (SLSQP from 6 seeded starts each way)."""
    from scipy.optimize import minimize  # lazy: scipy.optimize takes seconds to import, only this function uses it

    A, hA, D0, hD = printed_real()
    P, H = np.array([float(x) for x in A]), np.array([float(x) for x in hA])
    rows, hr = np.array([-float(x) for x in D0]), np.array([float(x) for x in hD])
    one = [1, 0, 0, 0, 0, 0, 0, 0]  # d = (1, 0, ...): map_lam is then the batch rate itself
    rate = lambda z: float(map_lam(P + z * H, one))  # noqa: E731 - a one-line objective
    cons = [{"type": "ineq", "fun": lambda z: 1 - np.abs(z)},
            {"type": "ineq", "fun": lambda z: 1 - np.abs((np.array([(P + z * H)[:2].sum(), (P + z * H)[2:].sum()]) - rows) / hr)}]
    ends = []
    for sign in (1, -1):
        runs = [minimize(lambda z: sign * rate(z) * 1e3, np.random.default_rng(seed).uniform(-0.5, 0.5, 4), constraints=cons,
                         method="SLSQP", options={"maxiter": 500, "ftol": SLSQP_FTOL}) for seed in range(6)]
        ok = [r for r in runs if r.success]
        if not ok:
            raise SolverError(f"batch-rate range over the printed boxes: {runs[0].message}")
        ends.append(rate(min(ok, key=lambda r: r.fun).x))
    return ends[0], ends[1]


@claim(f"{P}.real.mean-interval", source=src("§7", "real data: mean interval 212.03, MAP D_0, A and lambda^(r)"), method=Method.FLOAT,
       statement="The sample mean interval between batches, 212.03, is within the range of mean intervals 1/(theta A e) of the MAPs "
                 "inside the printed rounding boxes of D_0 and A (the printed MAP is consistent with the estimate it was fitted to).")
def _real_interval():
    lo, hi = _box_batch_rates()
    stated = float(T.REAL_MEAN_INTERVAL)
    model = 1 / real().arrivals[0].lam_g
    mb = real().arrivals[0].mean_batch
    windows = [lam_window(r, p) for r, p in enumerate(T.REAL_LAM, start=1)]
    need = (mb / float(min(w[1] for w in windows)), mb / float(max(w[0] for w in windows)))
    lam212 = [r * mb / stated for r in range(1, 5)]
    hits = {p.value: sum(cells.matches(p, v, t) for v, t in zip(lam212, T.REAL_LAM)) for p in (Printing.ROUND, Printing.TRUNCATE)}
    ok = 1 / hi <= stated <= 1 / lo
    return Outcome.judge(ok, f"mean intervals of the MAPs inside the printed boxes: [{1 / hi:.2f}, {1 / lo:.2f}], which "
                             f"{'contains' if ok else 'misses'} the stated {T.REAL_MEAN_INTERVAL}; the model's MAP: {model:.2f}.  "
                             f"The printed lambda^(r) under the recorded rounding of §7 input-derived numbers need a mean interval in "
                             f"[{need[0]:.2f}, {need[1]:.2f}] (mean batch {mb:.6f}): lambda^(r) = r {mb:.4f}/212.03 = "
                             f"{', '.join(f'{x:.6f}' for x in lam212)} reproduce {hits['rounding']}/4 by rounding, {hits['truncation']}/4 "
                             f"by truncation (a reading the recorded convention does not grant; not a verdict)")


def _t5_hyps(modes):
    return [Hypothesis(name, v, prints_as(COSTS, v, _t5_printed[modes])) if not name.startswith("input rounding")
            else Hypothesis(name + ", this cell alone (all cells at once: avrachenkov.table-5.joint-inputs)", v,
                            abs(table5()[modes].cost - float(_t5_printed[modes])) <= v)
            for name, v in table5_hypotheses()[modes]]


_t5_printed = {modes_of(r["modes"]): r["cost"] for r in T.parse(T.TABLE_5)}


for _row in T.parse(T.TABLE_5):
    _m = modes_of(_row["modes"])
    opt_cells(table5, real, "Avrachenkov Table 5", _row["modes"], _m, _row["thresholds"], _row["cost"],
              f"{P}.table-5.m{''.join(map(str, _m))}", slow=True, hypotheses=_t5_hyps,
              module=__name__)
