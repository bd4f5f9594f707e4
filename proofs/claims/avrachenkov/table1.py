"""Avrachenkov et al. §7, K = 5: the costs C_r of the text, Table 1 (the optimum of every mode set, its thresholds and
cost), Figure 1 and the text after it (modes 3 and 1, R more than 28%), and the text after Table 5 (relative profit
over 9%).
"""
from __future__ import annotations

from ....numeric.bmap import figure1
from ...registry import Claim, Method, Outcome, TableCell, claim, register
from ...tables import avrachenkov as T
from ._common import COSTS, P, T1_GROUP, example, hp_cell, margin_ok, other_reading, prints_as, real, relative_profit, src
from ._tables import certified, certified_best, modes_of, opt_cells, table1, table5


for _r, _printed in enumerate(T.C_TEXT, start=1):
    def _c_check(r=_r, printed=_printed):
        cv = certified(table1, example(5), (r,)).cost
        return hp_cell(COSTS, cv, printed, f"C_{r} (J with {r} robots always active)", [other_reading(float(cv.value), printed, COSTS)])
    register(Claim(f"{P}.example.C{_r}", src("§7", f"C_{_r}"), f"C_{_r} = {_printed}", Method.NUMERIC_HP, _c_check,
                   TableCell("Avrachenkov §7 text", "C_r", f"C_{_r}", _printed), group=T1_GROUP))


for _row in T.parse(T.TABLE_1):
    _m = modes_of(_row["modes"])
    opt_cells(table1, lambda: example(5), "Avrachenkov Table 1", _row["modes"], _m, _row["thresholds"], _row["cost"],
              f"{P}.table-1.m{''.join(map(str, _m))}", slow=False, rows=T.TABLE_1,
              module=__name__)


@claim(f"{P}.figure-1", source=src("§7", "Figure 1 and the text after Table 1"), method=Method.NUMERIC_HP, group=T1_GROUP,
       statement="Figure 1 (J against the threshold, every two-mode set, K = 5): the lowest curve is modes 3, 1 with its minimum 63.54 "
                 "at j = 2, and 'the optimal strategy assumes that only two among four modes (one and three robots) should be used'.")
def _figure1():
    curves = figure1()
    minima = {modes: min(c, key=lambda x: x[1]) for modes, c in curves.items()}
    lowest = min(minima, key=lambda k: minima[k][1])
    best_all = certified_best(table1, example(5))
    used = sorted(set(best_all.levels))
    j, _ = minima[lowest]
    arg = certified(table1, example(5), (3, 1))  # the (3, 1) curve's minimum, certified
    J = float(arg.cost.value)
    ok = (lowest == (3, 1) and j == 2 and arg.label == (2,) and arg.decided and prints_as(COSTS, J, "63.54")
          and margin_ok(COSTS, J, "63.54", arg.cost_bound) and used == [1, 3] and best_all.decided)
    return Outcome.judge(ok, f"minimum of each curve (j, J): {', '.join(f'{k}: ({v[0]}, {v[1]:.4f})' for k, v in minima.items())}; "
                             f"lowest {lowest}; its minimum certified: j = {arg.label[0]}, {arg.summary()}; optimum over all 15 mode sets "
                             f"uses modes {used} ({best_all.summary()})")


@claim(f"{P}.text.R-28", source=src("§7", "after Table 1: 'R more than 28%'"), method=Method.NUMERIC_HP, group=T1_GROUP,
       statement="C* = 63.54 gives the relative profit R = (1 - C*/min C_r) 100% more than 28%.")
def _r28():
    best = certified_best(table1, example(5))
    crs = [certified(table1, example(5), (r,)).cost for r in range(1, 5)]
    R, bound = relative_profit(best.cost, crs, best.cost_bound)
    return Outcome.judge(R - bound > 28, f"C* = {float(best.cost.value):.6f}, min C_r = {min(float(c.value) for c in crs):.6f} "
                                         f"(certified): R = {R:.4f}% ± {bound:.1e} (> 28%)", computed=f"{R:.4f}", error_bound=bound)


@claim(f"{P}.text.profit-9", source=src("§7", "after Table 5: 'relative profit exceeds 9%'"), method=Method.NUMERIC_HP, slow=True,
       group=f"{P}.table-5",
       statement="Real data: the relative profit of mode control over four robots always active exceeds 9%.")
def _profit9():
    best = certified_best(table5, real())
    c4v = certified(table5, real(), (4,)).cost
    R, bound = relative_profit(best.cost, [c4v], best.cost_bound)
    cstar, c4 = float(best.cost.value), float(c4v.value)
    printed = 100 * (1 - float(T.REAL_OPTIMUM[0]) / float(T.REAL_C[3]))
    return Outcome.judge(R - bound > 9, f"C* = {cstar:.4f}, C_4 = {c4:.4f} (certified): {R:.3f}% ± {bound:.1e} (> 9%); with the "
                                        f"printed 563.51 and 621.25: {printed:.3f}%", computed=f"{R:.3f}", error_bound=bound)
