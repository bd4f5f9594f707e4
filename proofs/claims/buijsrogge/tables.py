"""Buijsrogge (2014), Tables 7.1-7.2 (deterministic, through the cell engine), the consistency of Tables 8.1 and 8.3,
and the single-run cells of Tables 8.1, 8.2, 8.4-8.10 (judged against the law of single runs, :mod:`._single_run`),
with the reading of the unstated run length T = 2·10⁵.
"""
from __future__ import annotations

import math

import numpy as np

from ....numeric.tolerance import ELEPHANT_MASS_ABS, SINGLE_RUN_MAX_REPLICATES, matches_printed
from ... import certification
from ...cells import Printing, convention, judge_cell
from ...registry import Method, Outcome, TableCell, claim
from ...tables import buijsrogge as T
from ._common import src
from ._offline import C_TAB, K_TAB, ONE_QUEUE, OWN_QUEUES, REPLICATES, STEP, colour_law, series_sample
from ._single_run import judge_single_run, single_run_certainty, where_in_band


convention("Buijsrogge Table 7.1", Printing.EXACT,
           "integer counts #{c : p_c >= 1/(βK)} of the power law over C = 1e5; all 80 cells equal")
convention("Buijsrogge Table 7.2", Printing.ROUND,
           "4 decimals (or 4 mantissa digits, e.g. 2.2140e-04); all 80 cells round to the printed digits, "
           "e.g. β=1, γ=0.9: 1-q = 0.262709... -> 0.2627")


def _elephants_beta(gamma: str, beta: float) -> tuple[int, float]:
    p = colour_law(C_TAB, gamma)
    el = p >= 1.0 / (beta * K_TAB)
    return int(el.sum()), math.fsum(p[el])


for _r71, _r72 in zip(T.parse(T.TABLE_7_1), T.parse(T.TABLE_7_2)):
    for _g in T.GAMMAS:
        def _c71(g=_g, b=_r71["row"], printed=_r71[_g]):
            c, _ = _elephants_beta(g, float(b))
            return judge_cell("Buijsrogge Table 7.1", printed, c, what="#{c: p_c >= 1/(βK)}", error_bound=0)

        def _c72(g=_g, b=_r72["row"], printed=_r72[_g]):
            _, m = _elephants_beta(g, float(b))
            return judge_cell("Buijsrogge Table 7.2", printed, m, what="1-q, mass of the elephants",
                              fmt=lambda v: f"{v:.6g}", error_bound=ELEPHANT_MASS_ABS)

        claim(f"buijsrogge.table-7.1.b{_r71['row']}.g{_g}", source=src("§7.4", f"Table 7.1, β={_r71['row']}, γ={_g}"),
              statement=f"number of elephant colours at β={_r71['row']}, γ={_g} (C=1e5, K=1000)", method=Method.FLOAT,
              cell=TableCell("Buijsrogge Table 7.1", f"β={_r71['row']}", f"γ={_g}", _r71[_g]))(_c71)
        claim(f"buijsrogge.table-7.2.b{_r72['row']}.g{_g}", source=src("§7.4", f"Table 7.2, β={_r72['row']}, γ={_g}"),
              statement=f"elephant probability 1-q at β={_r72['row']}, γ={_g} (C=1e5, K=1000)", method=Method.FLOAT,
              cell=TableCell("Buijsrogge Table 7.2", f"β={_r72['row']}", f"γ={_g}", _r72[_g]))(_c72)


@claim("buijsrogge.table-8.3.consistency", source=src("§8.1", "Tables 8.1 and 8.3"), method=Method.FLOAT,
       statement="(internal consistency of the printed tables) each Table 8.3 cell is the mass of the c most likely "
                 "colours, c read from Table 8.1")
def _table_8_3():
    # The printed c is an input here, so these are not reproduced cells and carry no TableCell.
    bad, n = [], 0
    for r81, r83 in zip(T.parse(T.TABLE_8_1), T.parse(T.TABLE_8_3)):
        for g in T.GAMMAS:
            n += 1
            m = math.fsum(np.sort(colour_law(C_TAB, g))[::-1][: int(r81[g])])
            if not matches_printed(m, r83[g]):
                bad.append((r83["row"], g, r83[g], f"{m:.6g}"))
    return Outcome.judge(not bad, f"{n - len(bad)}/{n} cells of Table 8.3 follow from Table 8.1"
                         + (f"; inconsistent (delta, gamma, printed, from 8.1): {bad[:5]}" if bad else ""))


def _alternatives(strategy, gamma, delta, T_at, mass, n):
    """Other readings for a cell that fails: the other δ rule and the neighbouring T (same number of runs)."""
    alts = [("count >= δ (Alg. 12 wording)", series_sample(strategy, gamma, delta, T_at, mass, strict=False, n=n))]
    for t_alt in (T_at - STEP * 2, T_at + STEP * 2):
        if t_alt >= STEP:
            alts.append((f"T = {t_alt}", series_sample(strategy, gamma, delta, t_alt, mass, n=n)))
    return alts


def _cell_sample(printed, strategy, gamma, delta, T_at, mass) -> np.ndarray:
    """The runs a cell is judged on: REPLICATES, doubled (up to SINGLE_RUN_MAX_REPLICATES) while the verdict is
    uncertain and more runs can make it certain.  Decided by this cell alone (always from the series' first runs)."""
    n = REPLICATES
    while True:
        x = series_sample(strategy, gamma, delta, T_at, mass, n=n)
        cert = single_run_certainty(float(printed), x, where_in_band(float(printed), x)[0])
        if cert.certain or not cert.extensible or n >= SINGLE_RUN_MAX_REPLICATES:
            return x
        n = min(2 * n, SINGLE_RUN_MAX_REPLICATES)


def _cell(table, row, column, printed, strategy, gamma, delta, T_at, mass=False, ref=""):
    def check():
        what = f"{'1-q' if mass else 'c'} at δ={delta}, γ={gamma}, T={T_at}"
        fmt = (lambda v: f"{v:.4g}") if mass else (lambda v: f"{v:.1f}")
        x = _cell_sample(printed, strategy, gamma, delta, T_at, mass)
        out = judge_single_run(printed, x, what, fmt)
        if out.status.value == "PASS":
            return out
        return judge_single_run(printed, x, what, fmt, _alternatives(strategy, gamma, delta, T_at, mass, len(x)))

    queue = "one offline queue" if strategy == ONE_QUEUE else "a queue per elephant colour"
    tid = table.split()[-1]
    claim(f"buijsrogge.table-{tid}.d{row}.{column.replace('/', 's')}", source=src("Ch. 8", f"Table {tid}{ref}"),
          statement=f"single-run {'elephant mass 1-q' if mass else 'number of elephant colours c'}, δ={delta}, "
                    f"γ={gamma}, T={T_at}, {queue}", method=Method.SIMULATION, slow=True,
          cell=TableCell(table, f"δ={row}", column, printed),
          group=f"buijsrogge.table-8:{strategy}:{gamma}:{delta}")(check)  # the cells reading one series run together


for _row in T.parse(T.TABLE_8_1):
    for _g in T.GAMMAS:
        _cell("Buijsrogge Table 8.1", _row["row"], f"g{_g}", _row[_g], OWN_QUEUES, _g, int(_row["row"]), 200_000)


for _row in T.parse(T.TABLE_8_2):
    for _g in T.GAMMAS:
        _cell("Buijsrogge Table 8.2", _row["row"], f"g{_g}", _row[_g], OWN_QUEUES, _g, int(_row["row"]), 200_000,
              mass=True)


for _row in T.parse(T.TABLE_8_4, T.SIM_COLUMNS_8_4):
    for _col in T.SIM_COLUMNS_8_4:
        _cell("Buijsrogge Table 8.4", _row["row"], _col, _row[_col], OWN_QUEUES, "0.9", int(_row["row"]),
              int(_col.split("/")[0]), ref=f", T={_col.split('/')[0]}, simulation {_col.split('/')[1]}")


for _row in T.parse(T.TABLE_8_5, T.GAMMAS_8_5):
    for _g in T.GAMMAS_8_5:
        if _row[_g] != "-":  # γ = 1.3, δ = 1 was not simulated (§8.2)
            _cell("Buijsrogge Table 8.5", _row["row"], f"g{_g}", _row[_g], ONE_QUEUE, _g, int(_row["row"]), 200_000)


for _tab, _cols in (("8.6", T.SIM_COLUMNS_8_4), ("8.7", T.SIM_COLUMNS_8_7)):
    for _row in T.parse(getattr(T, f"TABLE_{_tab.replace('.', '_')}"), _cols):
        for _col in _cols:
            _cell(f"Buijsrogge Table {_tab}", _row["row"], _col, _row[_col], ONE_QUEUE, "0.9", int(_row["row"]),
                  int(_col.split("/")[0]), ref=f", T={_col.split('/')[0]}, simulation {_col.split('/')[1]}")


for _tab in ("8.8", "8.9", "8.10"):
    for _row in T.parse(getattr(T, f"TABLE_{_tab.replace('.', '_')}"), T.STEPS_8_8):
        for _col in T.STEPS_8_8:
            # Table 8.10: with the search stopped at T*, c(500000) = c(T*), and the run up to T* is the
            # same process as without the stop: the single-run law of c(T*) is that of Tables 8.8/8.9.
            _cell(f"Buijsrogge Table {_tab}", _row["row"], f"T{_col}k", _row[_col], ONE_QUEUE, "0.9",
                  int(_row["row"]), int(_col) * 1000,
                  ref=f", {'T*' if _tab == '8.10' else 'T'}={_col}·10³")


def table_8_series() -> tuple[int, int, int]:
    """(cells, fewest, most): the single-run cells of Tables 8.1, 8.2, 8.4–8.10 and how many independent
    thesis runs they rest on; cells read from one run are not independent tests.  Shared for certain: Tables 8.1
    and 8.2 print two counts of one run per (γ, δ) (§8.2); Table 8.5's γ = 0.9 column (δ = 10..2) is Table 8.6's
    run 200000/1 (``buijsrogge.table-8.run-length``); a row of Table 8.8 or 8.9 is one trajectory read every
    5·10⁴ steps.  Unknown, hence two counts: whether the columns T/simulation k of Tables 8.4, 8.6 and 8.7 are one
    run per (δ, k) read at several T (fewest) or a run per column (most), and likewise one run per row of Table
    8.10 or one per T*.

    >>> table_8_series()
    (627, 174, 376)
    """
    def shape(name, cols):
        rows = T.parse(getattr(T, f"TABLE_{name}"), cols)
        return rows, sum(r[c] != "-" for r in rows for c in cols)

    (r81, c81), (_, c82) = shape("8_1", T.GAMMAS), shape("8_2", T.GAMMAS)
    (r84, c84), (r86, c86), (_, c87) = (shape("8_4", T.SIM_COLUMNS_8_4), shape("8_6", T.SIM_COLUMNS_8_4),
                                        shape("8_7", T.SIM_COLUMNS_8_7))
    (_, c85), (r88, c88), (r89, c89), (r810, c810) = (shape("8_5", T.GAMMAS_8_5), shape("8_8", T.STEPS_8_8),
                                                      shape("8_9", T.STEPS_8_8), shape("8_10", T.STEPS_8_8))
    cells = c81 + c82 + c84 + c85 + c86 + c87 + c88 + c89 + c810
    certain = c81 + (c85 - len(r86)) + len(r88) + len(r89)  # 8.1 = 8.2; 8.5 minus its 8.6 column; a row per run
    sims = {c.split("/")[1] for c in T.SIM_COLUMNS_8_4 + T.SIM_COLUMNS_8_7}
    fewest = certain + len(r84) * len(sims) + len(r86) * len(sims) + len(r810)
    most = certain + c84 + c86 + c87 + c810
    return cells, fewest, most


def _note_independent_runs() -> None:
    cells, fewest, most = table_8_series()
    certification.note("buijsrogge", f"the {cells} single-run cells of Tables 8.x rest on {fewest}-{most} independent "
                                     "thesis runs (cells read from one run are not independent tests; table_8_series)")


_note_independent_runs()


@claim("buijsrogge.table-8.run-length", source=src("§8.1–8.2", "Tables 8.1, 8.2, 8.5 (T not stated)"),
       statement="(reading) the unstated run length of Tables 8.1, 8.2 and 8.5 is T = 2·10⁵",
       method=Method.FLOAT)
def _run_length() -> Outcome:
    # Printed text against printed text: Table 8.5's γ = 0.9 column against Table 8.6's T = 2e5 runs.
    col85 = [r["0.9"] for r in T.parse(T.TABLE_8_5, T.GAMMAS_8_5)[:9]]
    hits = {c: [r[c] for r in T.parse(T.TABLE_8_6, T.SIM_COLUMNS_8_4)] == col85 for c in T.SIM_COLUMNS_8_4}
    same = [c for c, h in hits.items() if h]
    return Outcome.judge(same == ["200000/1"],
                         f"Table 8.5's γ = 0.9 column (δ = 10..2: {', '.join(col85)}) is verbatim Table 8.6's "
                         f"column(s) {same} (T/simulation); Table 8.1 is the same experiment with a queue per elephant "
                         "(§8.2: 'the results in Figure 8.2 are calculated during the same simulation as ... Figure "
                         "8.1'), so T = 2·10⁵ is read for Tables 8.1, 8.2 and 8.5; failing cells list T ± 10⁵")
