"""How one cell of Liu–Nain (2005) Tables 1.2 and 1.3 is judged (C_d, Rel. Impr., N_min, N̄, N_max): its computed
value with its error bound and the readings tried, through :func:`crawlmath.proofs.cells.judge_cell`; a certain FAIL
becomes an ERRATUM only through the slip rules enabled here for both tables (copied cell, copied input, row
arithmetic; the neighbours they may name: :data:`NEIGHBOURS`; counts: claim ``slip-rules``).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from ....numeric import mdp as M
from ....numeric.linalg import stationary_distribution
from ....numeric.tolerance import REL_IMPR_ROUNDING, matches_printed
from ... import cells
from ...cells import Hypothesis
from ...registry import Outcome
from ...tables.liu_nain_dynamic import TABLE_1_2, TABLE_1_3, parse
from . import static as S
from ._dynamic import (P, MU, TAB, dynamic_gamma, table_N, instance, rvi, cd_value, static, row_label, round5, rel_impr,
                       margin_ok)
from ._dynamic_nbar import nbar_value


# Slip rules (proofs/cells.py), enabled for both tables once; their counts are computed by the claim ``slip-rules``.
NEIGHBOURS = "the same column in the other rows of the cell's (λ, K) block, and in the same row of the sister table"
for _t in TAB:
    cells.slip_rule(TAB[_t], cells.COPIED_CELL, NEIGHBOURS + " (C_d)", f"counts: claim {P}.slip-rules")
    cells.slip_rule(TAB[_t], cells.COPIED_INPUT, NEIGHBOURS + " (the C_d of Rel. Impr.)", f"counts: claim {P}.slip-rules")
    cells.slip_rule(TAB[_t], cells.ROW_ARITHMETIC, "the row's printed C_s and C_d (Rel. Impr.)", f"counts: claim {P}.slip-rules")


def neighbour_rows(table: str, row: dict) -> list[tuple[str, dict]]:
    """The cells a slip rule may name for a cell of ``row`` (:data:`NEIGHBOURS`): (table, row) of the other γ rows of
    the same (λ, K) block of this table, and of the same row of the other table."""
    out = []
    for tab in TAB:
        for other in parse(TABLE_1_2 if tab == "1.2" else TABLE_1_3):
            same_block = (other["lam"], other["K"]) == (row["lam"], row["K"])
            if same_block and ((tab == table) != (other["gamma"] == row["gamma"])):
                out.append((tab, other))
    return out


def _cd_fixed(table: str, row: dict) -> bool:
    """The 5-decimal rounding of the row's computed C_d cannot change within its error bound."""
    v, err, _ = cd_value(table, row)
    return margin_ok(v, err, f"{v:.5f}")


def cd_neighbours(table: str, row: dict) -> list[cells.Neighbour]:
    """The computed C_d of every :func:`neighbour_rows` cell (for :data:`cells.COPIED_CELL`)."""
    return [cells.Neighbour(f"the computed C_d of Table {tab} row {row_label(other)}", cd_value(tab, other)[0], _cd_fixed(tab, other))
            for tab, other in neighbour_rows(table, row)]


def impr_neighbours(table: str, row: dict) -> list[cells.Neighbour]:
    """This row's Rel. Impr. with its C_d replaced by the computed C_d of each :func:`neighbour_rows` cell (for
    :data:`cells.COPIED_INPUT`); certain when both 5-decimal roundings are fixed (:func:`_cs_fixed`)."""
    cs = static(float(row["lam"]), int(row["K"]), float(row["gamma"]))[1]
    return [cells.Neighbour(f"this row's 100(C_s − C_d)/C_d with the computed C_d of Table {tab} row "
                            f"{row_label(other)} ({cd_value(tab, other)[0]:.5f})",
                            rel_impr(cs, cd_value(tab, other)[0]), _cd_fixed(tab, other) and _cs_fixed(row))
            for tab, other in neighbour_rows(table, row)]


def cd_cell(table: str, row: dict) -> Outcome:
    printed = row["C_d"]
    v, err, how = cd_value(table, row)
    rep = instance(table, row)
    hyps = []
    if table == "1.2":
        hyps.append(Hypothesis("optimal gain θ (policy iteration)", rep.solution.gain, matches_printed(rep.solution.gain, printed)))
    g = float(row["gamma"])
    if dynamic_gamma(row) != g:
        at_printed = cd_at_gamma(table, row, g)
        hyps.append(Hypothesis(f"γ = {row['gamma']} as printed", at_printed, matches_printed(at_printed, printed)))
    out = cells.judge_cell(TAB[table], printed, v, what=f"{how}, N={rep.N if table == '1.3' else table_N(table, row)}",
                           error_bound=err, hypotheses=hyps)
    return cells.copied_cell(TAB[table], out, printed, cd_neighbours(table, row))


def cd_at_gamma(table: str, row: dict, gamma: float) -> float:
    lam, K = float(row["lam"]), int(row["K"])
    if table == "1.2":
        return rvi(lam, K, gamma, table_N("1.2", row)).gain
    return instance(table, row, gamma).solution.gain


def _cs_fixed(row: dict) -> bool:
    """The 5-decimal rounding of the row's C_s is fixed: C_s is an exact rational (liu-nain.static cost_exact) whose
    rounding cannot change within the float's error, or sits on a rounding midpoint (γ = 1.13: C_s = 213/1600) where
    its half-up rounding, the one the table prints, is exact too."""
    lam, K, g = float(row["lam"]), int(row["K"]), float(row["gamma"])
    cs = static(lam, K, g)[1]
    cs_exact = S.cost_exact(row["lam"], K, row["gamma"], static(lam, K, g)[0])
    return margin_ok(cs, float(abs(Fraction(cs) - cs_exact)), f"{cs:.5f}") or \
        (S.on_midpoint(cs_exact, 5) and Fraction(str(round5(cs))) == cs_exact + Fraction(1, 200_000))


def impr_from_printed(row: dict) -> float:
    """100(C_s − C_d)/C_d from the row's printed C_s and C_d."""
    pc, pd = float(row["C_s"]), float(row["C_d"])
    return 100 * (pc - pd) / pd


def rel_impr_cell(table: str, row: dict) -> Outcome:
    printed = row["Rel. Impr."]
    lam, K, g = float(row["lam"]), int(row["K"]), float(row["gamma"])
    cs = static(lam, K, g)[1]
    cd, _, _ = cd_value(table, row)
    v = rel_impr(cs, cd)
    unrounded = 100 * (cs - cd) / cd
    hyps = [Hypothesis("unrounded C_s, C_d", unrounded, matches_printed(unrounded, printed))]
    # the % is exact arithmetic on the 5-decimal roundings: certain when neither rounding can flip
    fixed = _cd_fixed(table, row) and _cs_fixed(row)
    out = cells.judge_cell(TAB[table], printed, v, what=f"100(C_s − C_d)/C_d with C_s = {cs:.7f} (γ = {row['gamma']}), "
                                                        f"C_d = {cd:.7f} (γ = {dynamic_gamma(row):.6g})", hypotheses=hyps,
                           error_bound=REL_IMPR_ROUNDING if fixed else None)
    out = cells.copied_input(TAB[table], out, printed, impr_neighbours(table, row))
    from_row = impr_from_printed(row)
    out = cells.row_arithmetic(TAB[table], out, printed, from_row, f"C_s = {row['C_s']} and C_d = {row['C_d']}")
    if out.status.value == "FAIL":
        return Outcome.failed(out.detail + f"; this row's printed C_s and C_d give {from_row:.2f}%", computed=out.computed,
                              error_bound=out.error_bound, certain=out.certain)
    return out


def nbar_averages(rep: M.InstanceReport) -> list[tuple[str, float]]:
    """Other averages of the number of active crawlers under the optimal
    policy, read off its stationary law.  Over both tables the time average
    (the column's definition) reproduces 53 of the 54 printed N̄, the Palm
    average seen by arriving pages 1 (table-1.3.convention recounts)."""
    sol = rep.solution
    m, pi = sol.mdp, sol.stationary
    q, r, s = m.states.T
    a = sol.policy
    post = np.where(s == 0, np.minimum(r + a, m.N), np.where(s == 1, r - 1 + a, r))
    arr, dep = pi * (s == 1), pi * (s == 0)
    rec = m.states[sol.recurrent, 1]
    return [("post-decision r' (stationary)", float(pi @ post)),
            ("r seen by arriving pages (Palm)", float(arr @ r / arr.sum())),
            ("r at departures (Palm)", float(dep @ r / dep.sum())),
            ("uniform over recurrent states", float(rec.mean())),
            ("(N_min + N_max)/2", (rep.n_min + rep.n_max) / 2)]


def _nbar_other_policies(rep: M.InstanceReport) -> list[tuple[str, float]]:
    """N̄ of the RVI policy at its stop (stated reading) and of the optimal
    policy at N = N_s (a binding N)."""
    m = rep.solution.mdp
    rv = rvi(rep.lam, rep.K, rep.gamma, rep.N)
    ev = M.evaluate_policy(m, rv.policy)
    pi_rvi = stationary_distribution(m.policy_matrix(rv.policy), ev.recurrent)
    ns = static(rep.lam, rep.K, rep.gamma)[0]
    at_ns = M.policy_iteration(M.CrawlerMDP(rep.lam, MU, rep.K, ns, rep.gamma))
    return [("policy of RVI at its stop (x̂=(1,1,1))", float(pi_rvi @ m.states[:, 1])), (f"N = N_s = {ns}", at_ns.n_mean)]


def column_cell(table: str, row: dict, col: str) -> Outcome:
    rep = instance(table, row)
    printed = row[col]
    value = {"N_min": rep.n_min, "N_bar": rep.n_mean, "N_max": rep.n_max}[col]
    hyps = []
    if dynamic_gamma(row) != float(row["gamma"]):
        at = instance(table, row, float(row["gamma"]))
        v2 = {"N_min": at.n_min, "N_bar": at.n_mean, "N_max": at.n_max}[col]
        hyps.append(Hypothesis(f"γ = {row['gamma']} as printed", v2, matches_printed(v2, printed)))
    if col == "N_bar" and not matches_printed(value, printed):
        hyps += [Hypothesis(name, v, matches_printed(v, printed)) for name, v in nbar_averages(rep) + _nbar_other_policies(rep)]
    what = f"{col} of the optimal policy"
    if col == "N_max":
        what = "N_max = the largest r at which the optimal policy activates at a departure (N_max-reading)"
        hyps.append(Hypothesis(N_MAX_READINGS[1][0], rep.n_max_recurrent, str(rep.n_max_recurrent) == printed.strip()))
    where = f"N={rep.N}" + (" (N_s)" if table == "1.2" else " (does not bind)")
    if col != "N_bar":
        return cells.judge_cell(TAB[table], printed, value, what=f"{what}, {where}", hypotheses=hyps, error_bound=0)
    value, err, how = nbar_value(table, row)
    return cells.judge_cell(TAB[table], printed, value, what=f"{col} of the optimal policy, {where}", hypotheses=hyps,
                            error_bound=err, note=how)


# N_max (Table 1.3, "the maximum number of crawlers used by the overall optimal dynamic policy"): the reading
# recorded, and the natural alternative, each as a function of the exact solution of a row.
N_MAX_READINGS = (
    ("largest r at which the optimal policy activates at a departure", lambda rep: rep.n_max),
    ("largest r visited (recurrent class of the optimal chain)", lambda rep: rep.n_max_recurrent),
    ("largest r the policy reaches by activating, max activating r + 1", lambda rep: rep.n_max + 1),
)
