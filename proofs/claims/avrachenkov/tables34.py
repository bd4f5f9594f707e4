"""Avrachenkov et al. §7, Tables 3 and 4: the service (Table 3) or the obsolescence (Table 4) matrix scaled by s.  Every
cell (the mean, the modes used, j*, C*, C_1..C_4, R) from certified values; R under the tables' row reading (from the
row's printed C* and C_r, `cells.row_reading`).
"""
from __future__ import annotations

import math
from fractions import Fraction

from ...cells import Hypothesis
from ...registry import Claim, Method, Outcome, TableCell, register
from ...tables import avrachenkov as T
from ._common import COSTS, MEANS, P, R_T34, cell, exact_cell, hp_cell, other_reading, prints_as, prints_cost, src
from ._tables import printed_row, row_R_exact, scaled_row


def _scaled_cell(which: str, s: str, col: str, printed: str):
    table = T.TABLE_3 if which == "service" else T.TABLE_4

    def check():
        row = scaled_row(which, float(s))
        if col in ("b_1", "g_1"):
            cv, _ = row["certified"]["mean"]
            return hp_cell(MEANS, cv, printed, f"s = {s}: mean {col}", [other_reading(row["mean"], printed, MEANS)])
        if col == "j^*":
            return exact_cell(row["j^*"], printed, f"s = {s}: j* (last threshold) of the optimum over all 15 mode sets, levels "
                                                   f"{row['levels']}", row["argmin"],
                              [Hypothesis("j* = the first threshold", row["j^*(first)"], row["j^*(first)"] == printed)])
        if col == "numbers of active robots":
            return _modes_cell(row, s, printed, table)
        extra = f"optimal modes {row['modes']}, j* = {row['j^*']}"
        if col == "R, %":
            return _scaled_R(row, s, printed, table, extra)
        cv, bound = row["certified"][col]
        out = hp_cell(COSTS, cv, printed, f"s = {s}, {col}", [other_reading(row[col], printed, COSTS)], note=extra, error_bound=bound)
        if col == "C^*" and out.status.value == "FAIL":
            pr = printed_row(table, "s", s)
            cmin = min(float(pr[f"C_{r}"]) for r in range(1, 5))
            implied = cmin * (1 - float(pr["R, %"]) / 100)
            # the row's own min C_r and R (rounded inputs: good to ~0.02) pin C^* away from the printed value
            if abs(implied - row[col]) < 0.02 and abs(implied - float(printed)) > 0.1:
                return Outcome.erratum_(out.detail, printed=f"C^* = {printed}", corrected=f"C^* = {row[col]:.4f}",
                                        evidence=f"the printed row contradicts itself: its min C_r = {cmin} and R = {pr['R, %']}% give "
                                                 f"C^* = {implied:.2f}, which the computation reproduces", computed=f"{row[col]:.6g}",
                                        digits=out.digits, error_bound=out.error_bound, certain=out.certain)
        return out
    return check


def _scaled_R(row: dict, s: str, printed: str, table: str, extra: str) -> Outcome:
    """Tables 3-4's R under the table's row reading (`cells.row_reading`): R from the row's printed C* and C_r, which the
    evidence of `avrachenkov.R.convention` shows the authors used.  A row whose printed C* our C* does not reproduce (an
    erratum of that cell) cannot be where R came from: that R is judged from the certified costs."""
    pr = printed_row(table, "s", s)
    exact, r_bound = row["R, %"], row["certified"]["R, %"][1]
    own_exact = row_R_exact(pr)
    own = float(own_exact)
    trunc_in = 100 * (1 - _trunc2(row["C^*"]) / min(_trunc2(row[f"C_{r}"]) for r in range(1, 5)))
    tried = [Hypothesis("R from the certified costs", exact, prints_as(R_T34, exact, printed)), other_reading(exact, printed, R_T34),
             Hypothesis("R from the computed costs truncated to 2 decimals", trunc_in, prints_as(R_T34, trunc_in, printed))]
    note = f"{extra}; from the certified C* and C_r: R = {exact:.12f} ± {r_bound:.1e}"
    if prints_cost(row["C^*"], pr["C^*"]):
        return cell(R_T34, own, printed, f"s = {s}, R from the row's printed C* = {pr['C^*']} and min C_r = "
                                         f"{min(float(pr[f'C_{r}']) for r in range(1, 5))} (table-level row reading)",
                    [h for h in tried if h.reading != "R from the computed costs truncated to 2 decimals"], note=note,
                    error_bound=float(abs(Fraction(own) - own_exact)))
    return cell(R_T34, exact, printed, f"s = {s}, R from the certified costs (the row's printed C* = {pr['C^*']} is not our C*, "
                                       f"so the row reading does not apply)",
                [tried[1], tried[2], Hypothesis("R from the row's printed costs", own, prints_as(R_T34, own, printed))],
                note=note, error_bound=r_bound)


def _trunc2(x: float) -> float:
    return math.floor(x * 100 + 1e-9) / 100  # + 1e-9: a 2-decimal number in binary still truncates to itself


def _modes_cell(row: dict, s: str, printed: str, table: str) -> Outcome:
    out = exact_cell(row["modes"], printed, f"s = {s}: modes used by the optimum over all 15 mode sets (J = {row['C^*']:.6g})",
                     row["argmin"])
    if out.status.value != "FAIL":
        return out
    want = tuple(sorted((int(x) for x in printed.split(",")), reverse=True))
    alone = row["res"].get(want)
    own = printed_row(table, "s", s)["C^*"]
    if alone is not None and prints_as(COSTS, row["C^*"], own) and not prints_as(COSTS, alone.cost, own):
        return Outcome.erratum_(out.detail, printed=f"s = {s}: modes {printed}", corrected=f"s = {s}: modes {row['modes']}",
                                evidence=f"the row's own C* = {own} is J of the optimum using modes {row['modes']} (levels {row['levels']}, "
                                         f"J = {row['C^*']:.4f}); the best policy on modes {printed} alone has J = {alone.cost:.4f}",
                                computed=row["modes"], error_bound=out.error_bound, certain=out.certain)
    return out


for _table, _which in (("TABLE_3", "service"), ("TABLE_4", "obsolescence")):
    for _row in T.parse(getattr(T, _table)):
        for _col, _printed in _row.items():
            if _col == "s":
                continue
            _tag = _col.replace("numbers of active robots", "modes").replace("^*", "star").replace(", %", "").replace("_", "")
            _n = _table[-1]
            register(Claim(f"{P}.table-{_n}.s{_row['s']}.{_tag}", src("§7", f"Table {_n}, s = {_row['s']}, {_col}"),
                           f"Table {_n}: {_which} matrix times s = {_row['s']}: {_col} = {_printed}", Method.NUMERIC_HP,
                           _scaled_cell(_which, _row["s"], _col, _printed),
                           TableCell(f"Avrachenkov Table {_n}", f"s = {_row['s']}", _col, _printed), slow=True))
