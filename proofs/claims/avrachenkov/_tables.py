"""The computed tables of §7 of Avrachenkov et al. that several sections read: Table 1 (every mode set, K = 5), Table 2
(rows by buffer size K), Tables 3-4 (scaled service / obsolescence), Table 5 (real data) with its hypotheses, their
certified optima (issue 17), and the registration of an optimisation row's cost and threshold cells.  Cached: a
process computes each table once.
"""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from functools import lru_cache

import flint

from ....numeric import bmap as bm
from ....numeric.bmap import PhaseType
from ....numeric.tolerance import COST_TIE_REL, HP_DIGITS
from ...cells import Hypothesis
from ...registry import Claim, Method, Outcome, TableCell, register
from ...tables import avrachenkov as T
from ._common import COSTS, exact_cell, example, hp_cell, other_reading, prints_as, real, relative_profit, src
from ._real import REAL_VARIANTS, moved_real, real_variant


@lru_cache(maxsize=None)
def table1():
    """``optimize_all`` on the §7 example, K = 5, every mode set, paper threshold convention: the data of Table 1; cached."""
    return bm.optimize_all(example(5), convention="paper")


def modes_of(text: str) -> tuple[int, ...]:
    """The mode set of a printed row label, largest first.

    >>> modes_of("3 or 2 or 1"), modes_of("4,1")
    ((3, 2, 1), (4, 1))
    """
    return tuple(sorted((int(x) for x in text.replace("or", ",").split(",") if x.strip()), reverse=True))


def certified(get, model: bm.BmapModel, modes) -> bm.CertifiedArgmin:
    """The certified optimum (`bm.certified_optimum`) of mode set ``modes`` in the float results ``get()``; cached on the model."""
    return bm.certified_optimum(model, get()[modes])


def opt_cells(get, model, table: str, row_label: str, modes, th_printed: str, cost_printed: str, ident: str, slow: bool,
              hypotheses=lambda modes: [], rows: str = "", *, module: str):
    """Register the claims of one row of an optimisation table (Tables 1 and 5): ``ident.cost``, the certified optimal J
    of mode set ``modes`` in the results ``get()`` on ``model()``, against ``cost_printed``, with the readings tried before
    a FAIL (``hypotheses(modes)``; with ``rows``, the printed table, a cost copied from another row is an erratum), and
    ``ident.thresholds``, the certified argmin against ``th_printed`` (none when the row prints no thresholds).
    ``module``: the section module that calls this, whose import registers the claims."""
    def cost_check():
        res = get()
        arg = certified(get, model(), modes)
        o = res[modes]
        v = float(arg.cost.value)
        tried = [other_reading(v, cost_printed, COSTS)] + list(hypotheses(modes))
        out = hp_cell(COSTS, arg.cost, cost_printed, f"optimal J for modes {modes} (thresholds {','.join(map(str, arg.label)) or '-'})",
                      tried, error_bound=arg.cost_bound)
        if out.status.value != "FAIL" or not rows:
            return out
        # evidence only (never a verdict): the printed value is another row's optimum, and this row's optimum is printed in a row
        # with the same policy
        copied_from = [k for k, other in res.items() if k != modes and prints_as(COSTS, other.cost, cost_printed)]
        same_policy = [r for r in T.parse(rows) if r["modes"] != row_label and prints_as(COSTS, v, r["cost"])]
        if copied_from and same_policy:
            return Outcome.erratum_(out.detail, printed=f"{row_label}: {cost_printed}", corrected=f"{row_label}: {v:.4f}",
                                    evidence=f"{cost_printed} is the optimum of modes {copied_from[0]}; the optimum for {row_label}, "
                                             f"thresholds {','.join(map(str, o.thresholds))}, is printed in row '{same_policy[0]['modes']}' "
                                             f"({same_policy[0]['cost']}), the same policy with an empty mode", computed=f"{v:.6g}",
                                    digits=out.digits, error_bound=out.error_bound, certain=out.certain)
        return out

    def th_check():
        o = get()[modes]
        arg = certified(get, model(), modes)
        got = ",".join(map(str, arg.label))
        at = [c for th, c in o.curve if ",".join(map(str, th)) == th_printed]
        tried = [Hypothesis("J at the printed thresholds (a tie would also be optimal)", at[0],
                            abs(at[0] - o.cost) <= COST_TIE_REL * o.cost)] if at else []
        out = exact_cell(got, th_printed, f"modes {modes}: optimal thresholds (J = {float(arg.cost.value):.6g})", arg, tried)
        ths = th_printed.split(",")
        if len(set(ths)) < len(ths):  # the paper's own text forbids this; the contradiction is its own claim
            out = replace(out, detail=out.detail + "; coinciding thresholds, which §7's text forbids (avrachenkov.table-1."
                                                   "coinciding-thresholds)")
        return out

    # a Dask worker imports the module its check names (crawlmath.sweep.claim_module): name the registering section
    cost_check.__module__ = th_check.__module__ = module
    register(Claim(f"{ident}.cost", src("§7", f"{table}, {row_label}"), f"{table}: optimal cost for modes '{row_label}' = {cost_printed}",
                   Method.NUMERIC_HP, cost_check, TableCell(table, row_label, "optimal cost", cost_printed), slow=slow))
    if th_printed.strip() not in ("", "_"):
        register(Claim(f"{ident}.thresholds", src("§7", f"{table}, {row_label}"), f"{table}: optimal thresholds for '{row_label}' = {th_printed}",
                       Method.NUMERIC_HP, th_check, TableCell(table, row_label, "optimal thresholds", th_printed), slow=slow))


def certified_best(get, model: bm.BmapModel) -> bm.CertifiedArgmin:
    """The certified optimum over every mode set of ``get()`` (``{modes: Optimum}``), labels ``(modes, thresholds)``; chains
    with the same levels (a mode set with an empty mode) count once."""
    cands = [((o.modes, th), bm.Policy(o.modes, th).levels(model.K), c) for o in get().values() for th, c in o.curve]
    return bm.certify_argmin(model, cands)


# K = 20 and 30 are ordinary rows: the obsolescence PH lumps to Exp(0.2), so the chain has 2(1 + 2K) states.

T2_MODES = [(1,), (2,), (3,), (4,), (3, 1)]


@lru_cache(maxsize=None)
def table2_row(K: int):
    """The row as the paper defines it: C_r, and C^*, j^* over modes {3, 1} ('the optimal control only uses the modes with one
    and three active robots' -- checked separately by `avrachenkov.table-2.modes-1-3`)."""
    res = bm.optimize_all(example(K), T2_MODES, convention="paper")
    C = [res[(r,)].cost for r in range(1, 5)]
    o = res[(3, 1)]
    return {"j^*": str(o.thresholds[0]), "C^*": o.cost, **{f"C_{r}": C[r - 1] for r in range(1, 5)}, "R, %": 100 * (1 - o.cost / min(C)),
            "curve": dict(o.curve), "res": res}


@lru_cache(maxsize=None)
def table2_certified(K: int) -> dict:
    """Row K of Table 2 from certified values: ``"j^*"`` the certified argmin over the (3, 1) thresholds; ``"C^*"``, ``"C_r"``
    and ``"R, %"`` as (float value, error bound, CertifiedValue or None), R propagated from the certified C* and C_r."""
    m, res = example(K), table2_row(K)["res"]
    arg = bm.certified_optimum(m, res[(3, 1)])
    crs = [bm.certified_optimum(m, res[(r,)]).cost for r in range(1, 5)]
    R, bound = relative_profit(arg.cost, crs, arg.cost_bound)
    return {"j^*": arg, "C^*": (float(arg.cost.value), arg.cost_bound, arg.cost), "R, %": (R, bound, None),
            **{f"C_{r}": (float(c.value), c.error_bound, c) for r, c in enumerate(crs, start=1)}}


def printed_row(table: str, key: str, value: str) -> dict:
    """The first parsed row of printed table ``table`` whose column ``key`` reads ``value``."""
    return next(r for r in T.parse(table) if r[key] == value)


def row_R_exact(pr: dict) -> Fraction:
    """R = 100 (1 - C*/min C_r) from a printed row's own C^* and C_r, exactly (the printed decimals as rationals)."""
    return 100 * (1 - Fraction(pr["C^*"]) / min(Fraction(pr[f"C_{r}"]) for r in range(1, 5)))


def row_R(pr: dict) -> float:
    """R from a printed row's own C^* and C_r (evidence for an ERRATUM only)."""
    return 100 * (1 - float(pr["C^*"]) / min(float(pr[f"C_{r}"]) for r in range(1, 5)))


def jstar(levels) -> str:
    """j* of a policy: the last threshold, i.e. the largest level served by more robots than the full system (the hand-over to
    the last mode); "_" for a single mode.  §7 reads "0,2,2" as 'four robots when empty, three up to two pages, then one'."""
    top = [i for i in range(len(levels)) if levels[i] != levels[-1]]
    return str(max(top)) if top else "_"


@lru_cache(maxsize=None)
def scaled_row(which: str, s: float):
    """One computed row of Table 3 (``which = "service"``) or Table 4 (obsolescence) for the time scale ``s``: the mean,
    the optimal modes, j*, C* and the costs C_r; cached.
    """
    base = example(5)
    m = base.with_(service=base.given_service.scaled(s)) if which == "service" else base.with_(obsolescence=base.given_obsolescence.scaled(s))
    res = bm.optimize_all(m, convention="paper")
    best = certified_best(lambda: res, m)
    levels = best.levels
    crs = [bm.certified_optimum(m, res[(r,)]).cost for r in range(1, 5)]
    R, r_bound = relative_profit(best.cost, crs, best.cost_bound)
    ph = m.given_service if which == "service" else m.given_obsolescence
    mean = bm.certify(_ph_mean_ball(ph), ph.mean, HP_DIGITS, "mean")
    first = {j: i for i, j in enumerate(levels)}
    return {"mean": float(mean.value), "modes": ",".join(map(str, sorted(set(levels)))), "j^*": jstar(levels), "C^*": float(best.cost.value),
            **{f"C_{r}": float(c.value) for r, c in enumerate(crs, start=1)}, "R, %": R, "levels": levels,
            "j^*(first)": str(max(i for i in range(len(levels)) if levels[i] == levels[0])) if len(first) > 1 else "_", "res": res,
            "argmin": best, "certified": {"mean": (mean, mean.error_bound), "C^*": (best.cost, best.cost_bound), "R, %": (None, r_bound),
                                          **{f"C_{r}": (c, c.error_bound) for r, c in enumerate(crs, start=1)}}}


def _ph_mean_ball(ph: PhaseType):
    """``compute(ball, prec)`` for `bm.certify`: the PH mean ``beta (-S)^{-1} e`` in arb ball arithmetic."""
    def compute(ball, prec):
        old = flint.ctx.prec
        flint.ctx.prec = prec
        try:
            n = ph.order
            S = flint.arb_mat([[ball(x) for x in row] for row in ph.S_exact])
            x = (-S).solve(flint.arb_mat([[1]] * n))
            return sum((ball(b) * x[i, 0] for i, b in enumerate(ph.beta_exact)), flint.arb(0))
        finally:
            flint.ctx.prec = old
    return compute


@lru_cache(maxsize=None)
def table5():
    """``optimize_all`` on the real-data model, every mode set, paper threshold convention: the data of Table 5; cached."""
    return bm.optimize_all(real(), convention="paper")


@lru_cache(maxsize=None)
def table5_hypotheses():
    """{modes: [Hypothesis]} over the model variants, a·V̄ instead of a·V̄^(1) in eq. (2), and the spread of the optimal cost when
    beta, S and A vary by half a unit of their last printed digit (first-order, at the computed optimum)."""
    out: dict = {}
    for name in REAL_VARIANTS:
        res = bm.optimize_all(real_variant(name), convention="paper")
        for k, o in res.items():
            out.setdefault(k, []).append((f"model variant '{name}'", o.cost))
    a = real().costs.a
    for k, o in table5().items():
        out[k].append(("a V (all pages) in eq. (2) instead of a V^(1)", o.cost - a * o.measures.v1 + a * o.measures.v))
        out[k].append(("input rounding: largest first-order shift of J (beta, S, A within half a unit of their last digit)",
                       _input_spread(o)))
    return out


def _input_spread(o) -> float:
    """sum_x |dJ/dx| u_x over the printed real-data inputs x with half-units u_x (finite differences, same policy)."""
    m = real()
    lv = m.check_policy(bm.Policy(o.modes, o.thresholds))
    base = o.cost
    total = 0.0
    for which, idx, half in [("beta", 0, 5e-5), ("S", (0, 0), 5e-5), ("S", (1, 1), 5e-5), ("A", (0, 0), 5e-5), ("A", (0, 1), 5e-8),
                             ("A", (1, 0), 5e-6), ("A", (1, 1), 5e-5)]:
        h = half / 10
        moved = moved_real(which, idx, h)
        # cached on the moved model: several mode sets share their optimal policy
        cost = moved.memo(("spread J", lv), lambda moved=moved: bm.evaluate_levels(moved, lv).cost)
        total += abs(cost - base) / h * half
    return total
