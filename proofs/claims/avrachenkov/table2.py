"""Avrachenkov et al. §7, Table 2: the buffer size K.  Every cell (j*, C*, C_1..C_4, R) from certified values, with the
readings tried before a FAIL (another printing, a shifted C_1 column, R from the row's own printed costs); the text
before the table (only modes 1 and 3 are used; K > 30 changes nothing).
"""
from __future__ import annotations

import math

from ....numeric import bmap as bm
from ... import cells
from ...cells import Hypothesis, Printing
from ...registry import Claim, Method, Outcome, TableCell, claim, register
from ...tables import avrachenkov as T
from ._common import COSTS, P, R_T2, cell, exact_cell, example, hp_cell, other_reading, prints_as, src
from ._tables import printed_row, row_R, table2_certified, table2_row


def _t2_jstar(K: int, printed: str) -> Outcome:
    row = table2_row(K)
    arg = table2_certified(K)["j^*"]
    got = str(arg.label[0])
    at = row["curve"].get((int(printed),))
    tried = [Hypothesis(f"J at the printed j = {printed}", at, False)] if at is not None else []
    out = exact_cell(got, printed, f"K = {K}: optimal threshold for modes (3, 1) (J = {float(arg.cost.value):.6g})", arg, tried)
    if out.status.value != "FAIL" or at is None:
        return out
    own = printed_row(T.TABLE_2, "K", str(K))["C^*"]
    if prints_as(COSTS, row["C^*"], own) and not prints_as(COSTS, at, own):
        return Outcome.erratum_(out.detail, printed=f"K = {K}: j* = {printed}", corrected=f"K = {K}: j* = {got}",
                                evidence=f"the paper contradicts itself: its own C* = {own} is J at j = {got} ({row['C^*']:.4f}), "
                                         f"not J at the printed j = {printed} ({at:.4f}), which is not optimal", computed=got,
                                error_bound=out.error_bound, certain=out.certain)
    return out


def _t2_cell(K: int, col: str, printed: str):
    def check():
        if col == "j^*":
            return _t2_jstar(K, printed)
        v, bound, cv = table2_certified(K)[col]
        if col != "R, %":
            tried = [other_reading(v, printed, COSTS)]
            if col == "C_1" and K < 30:  # the C_1 column reads like the row below's values
                nxt = table2_row({10: 20, 20: 30}.get(K, K + 1))["C_1"]
                tried.append(Hypothesis("C_1 of the next computed row (a shifted column)", nxt, prints_as(COSTS, nxt, printed)))
            out = hp_cell(COSTS, cv, printed, f"K = {K}, {col}" + (" (modes {3, 1})" if col == "C^*" else ""), tried, error_bound=bound)
            return _c1_slip(K, printed, out) if col == "C_1" and out.status.value == "FAIL" else out
        own = row_R(printed_row(T.TABLE_2, "K", str(K)))
        tried = [other_reading(v, printed, R_T2), Hypothesis("R from the row's printed C* and C_r, truncated", own, prints_as(R_T2, own, printed)),
                 Hypothesis("R from the row's printed C* and C_r, rounded", own, cells.matches(Printing.ROUND, own, printed))]
        out = cell(R_T2, v, printed, f"K = {K}, R", tried, note=f"from the certified C* and C_r: R = {v:.12f} ± {bound:.1e}",
                   error_bound=bound)
        if out.status.value == "FAIL" and not prints_as(R_T2, own, printed) and abs(own - v) < 0.1:
            return Outcome.erratum_(out.detail, printed=f"K = {K}: R = {printed}%", corrected=f"K = {K}: R = {v:.2f}%",
                                    evidence=f"the row's own printed C* and C_r give R = {own:.3f}%, as computed ({v:.3f}%), not {printed}",
                                    computed=f"{v:.4g}", error_bound=out.error_bound, certain=out.certain)
        return out
    return check


def _c1_slip(K: int, printed: str, out: Outcome) -> Outcome:
    """ERRATUM when the C_1 column is shifted up by one row at K: the printed C_1 of row K is our C_1 of the next row (not
    our own), and our C_1 of row K is printed nowhere in the column, or only one row up where the same slip put it.
    Evidence only (our values against the printed column), never another cell's verdict."""
    ks = [int(r["K"]) for r in T.parse(T.TABLE_2)]
    ours = {k: table2_certified(k)["C_1"][0] for k in ks}
    col = {k: printed_row(T.TABLE_2, "K", str(k))["C_1"] for k in ks}
    late = [k for k, nxt in zip(ks, ks[1:]) if prints_as(COSTS, ours[nxt], col[k]) and not prints_as(COSTS, ours[k], col[k])]
    where = [k for k in ks if prints_as(COSTS, ours[K], col[k])]
    prev = ks[ks.index(K) - 1] if K != ks[0] else None
    if K not in late or where not in ([], [prev]) or (where and prev not in late):
        return out
    lo = hi = ks.index(K)
    while lo > 0 and ks[lo - 1] in late:
        lo -= 1
    while ks[hi + 1] in late:
        hi += 1
    run = ks[lo:hi + 1]  # the contiguous rows shifted with K
    nxt = {k: ks[ks.index(k) + 1] for k in run}
    lost = [k for k in run if k != K and not any(prints_as(COSTS, ours[k], col[j]) for j in ks)]
    return Outcome.erratum_(
        out.detail, printed=f"K = {K}: C_1 = {printed}", corrected=f"K = {K}: C_1 = {ours[K]:.4f}",
        evidence=f"the printed C_1 at K = {', '.join(map(str, run))} ({', '.join(col[k] for k in run)}) are our C_1 at K = "
                 f"{', '.join(str(nxt[k]) for k in run)} ({', '.join(f'{ours[nxt[k]]:.4f}' for k in run)}): the column is shifted up "
                 f"by one row there; our C_1 at K = {K} ({ours[K]:.4f}) is printed "
                 + (f"one row up (K = {prev})" if where else "in no row of the column")
                 + (f"; our C_1 at K = {', '.join(map(str, lost))} ({', '.join(f'{ours[k]:.4f}' for k in lost)}) appears nowhere" if lost else ""),
        computed=out.computed, digits=out.digits, error_bound=out.error_bound, certain=out.certain)


for _row in T.parse(T.TABLE_2):
    _K = int(_row["K"])
    for _col in ("j^*", "C^*", "C_1", "C_2", "C_3", "C_4", "R, %"):
        _tag = _col.replace("^*", "star").replace(", %", "").replace("_", "")
        register(Claim(f"{P}.table-2.K{_K}.{_tag}", src("§7", f"Table 2, K = {_K}, {_col}"), f"Table 2: K = {_K}, {_col} = {_row[_col]}",
                       Method.NUMERIC_HP, _t2_cell(_K, _col, _row[_col]), TableCell("Avrachenkov Table 2", f"K = {_K}", _col, _row[_col]),
                       slow=_K >= 8))


@claim(f"{P}.table-2.modes-1-3", source=src("§7", "text before Table 2"), method=Method.FLOAT, slow=True,
       statement="'In all cases the optimal control only uses the modes with one and three active robots' (every K of Table 2, "
                 "optimised over all 15 mode sets).")
def _t2_modes():
    rows, bad = [], []
    for K in [int(r["K"]) for r in T.parse(T.TABLE_2)]:
        res = bm.optimize_all(example(K), convention="paper")
        levels = {k: bm.Policy(o.modes, o.thresholds).levels(K) for k, o in res.items()}  # robots per level of each optimum
        best = min(res, key=lambda k: res[k].cost)
        used = sorted(set(levels[best]))
        other = min((o.cost for k, o in res.items() if not set(levels[k]) <= {1, 3}), default=math.inf)
        rows.append(f"K={K}: modes {used}, J = {res[best].cost:.4f} (best policy using another mode {other:.4f})")
        if not set(used) <= {1, 3}:
            bad.append(K)
    return Outcome.judge(not bad, "; ".join(rows) + (f"; other modes optimal at K = {bad}" if bad else ""))


@claim(f"{P}.table-2.beyond-30", source=src("§7", "text before Table 2"), method=Method.FLOAT, slow=True,
       statement="'The results for K > 30 are approximately the same as for K = 30': j*, C* and R at K = 40, 60, 100 equal K = 30's to "
                 "the printed digits (modes {3, 1}).")
def _t2_beyond():
    base = table2_row(30)
    rows, bad = [], []
    for K in (40, 60, 100):
        row = table2_row(K)
        same = row["j^*"] == base["j^*"] and abs(row["C^*"] - base["C^*"]) < 0.05 and abs(row["R, %"] - base["R, %"]) < 0.05
        rows.append(f"K={K}: j* {row['j^*']}, C* {row['C^*']:.4f}, R {row['R, %']:.3f}%, C_r "
                    + ", ".join(f"{row[f'C_{r}']:.2f}" for r in range(1, 5)))
        if not same:
            bad.append(K)
    return Outcome.judge(not bad, f"K=30: j* {base['j^*']}, C* {base['C^*']:.4f}, R {base['R, %']:.3f}%, C_r "
                                  + ", ".join(f"{base[f'C_{r}']:.2f}" for r in range(1, 5)) + "; " + "; ".join(rows)
                                  + "; C_4 (four robots always on) keeps growing with K, the optimum does not")
