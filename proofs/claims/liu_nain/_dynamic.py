"""What the claims of Liu–Nain (2005) §1.2.2–1.2.3 share: the instances (Figs 1.5–1.7, the rows of Tables 1.2
and 1.3 with the γ reading of :data:`GAMMA_K_ROWS`), the stated reading of Proposition 6 (x̂ = (1, 1, 1), h_0 = 0,
τ = 0.99999, counts k in the figures and k + 1 in Table 1.2; evidence: claim ``rvi-reading``), the computed value of
a printed C_d with its error bound, the printing conventions of both tables (evidence: claims
``table-1.x.convention``) and the judgement of a printed RVI count.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ....numeric import mdp as M
from ....numeric.errors import SolverError
from ....numeric.tolerance import matches_printed
from ... import cells
from ...cells import Hypothesis, Printing
from ...registry import Outcome, Source
from ...tables.liu_nain_dynamic import TABLE_1_2, parse


PAPER = "liu-nain"
P = "liu-nain.dynamic"
MU = 1.0
TAU = 0.99999
FIGS = {"1.5": (1.0, "0.20907", "254"), "1.6": (1.4, "0.25924", "255"), "1.7": (2.0, "0.32211", "256")}
FIG_LAM, FIG_K, FIG_N = 0.1, 5, 16


def src(section: str, ref: str) -> Source:
    """A :class:`Source` in Liu–Nain 2005 (section, reference)."""
    return Source(PAPER, section, ref)


FIG_MDP = dict(lam=FIG_LAM, mu=MU, K=FIG_K, N=FIG_N)

# x̂ candidates stated for every instance (K, N): the search scores each of
# them, with h_0 ∈ {0, c} and both count conventions, on all 30 printed counts.
NATURAL_REFERENCES = {
    "(1,1,1)": lambda K, N: (1, 1, 1), "(0,1,1)": lambda K, N: (0, 1, 1), "(1,0,0)": lambda K, N: (1, 0, 0),
    "(0,N,2)": lambda K, N: (0, N, 2), "(1,N,0)": lambda K, N: (1, N, 0), "(K,N,1)": lambda K, N: (K, N, 1),
    "(K,1,1)": lambda K, N: (K, 1, 1), "(1,1,0)": lambda K, N: (1, 1, 0), "(0,1,2)": lambda K, N: (0, 1, 2),
    "(K,0,0)": lambda K, N: (K, 0, 0), "(1,N,1)": lambda K, N: (1, N, 1), "(K,N,0)": lambda K, N: (K, N, 0),
}
COUNTS = {"k": 0, "k+1": 1}  # printed count = k (updates) or k + 1 (evaluations of T)
READING = ("(1,1,1)", "zero")  # x̂, h_0 of crawlmath's --method rvi default (numeric.mdp.RVI_REFERENCE)
COUNT_OF = {"figures": "k", "table-1.2": "k+1"}


def reading_instances() -> list[tuple[str, float, int, float, int, str, str]]:
    """(source, λ, K, γ, N, printed count, printed C_d) for the 3 figures and
    the 27 rows of Table 1.2, γ read with :func:`dynamic_gamma`."""
    out = [("figures", FIG_LAM, FIG_K, g, FIG_N, it, cost) for g, cost, it in FIGS.values()]
    for row in parse(TABLE_1_2):
        lam, K = float(row["lam"]), int(row["K"])
        out.append(("table-1.2", lam, K, dynamic_gamma(row), table_N("1.2", row), row["N_iter"], row["C_d"]))
    return out


@lru_cache(maxsize=None)
def _mdp(lam: float, K: int, gamma: float, N: int) -> M.CrawlerMDP:
    """One model object per instance (its transition arrays are built once and shared by the claims)."""
    return M.CrawlerMDP(lam, MU, K, N, gamma)


@lru_cache(maxsize=None)
def _stops(lam: float, K: int, gamma: float, N: int, h0: str) -> dict[str, tuple[int, float]]:
    """{x̂ name: (stop k, T(h_k)(x̂))} for every :data:`NATURAL_REFERENCES`, one simultaneous RVI run (the columns
    of :func:`numeric.mdp.rvi_stop_counts` are independent recursions): shared by the reading search and the count
    cells."""
    stop, gain = M.rvi_stop_counts(_mdp(lam, K, gamma, N), [f(K, N) for f in NATURAL_REFERENCES.values()], tau=TAU,
                                   h0=h0)
    return {name: (int(k), float(g)) for name, k, g in zip(NATURAL_REFERENCES, stop, gain)}


@lru_cache(maxsize=None)
def reading_scores() -> dict:
    """{(x̂, h0, source, count): (counts reproduced, C_d reproduced, cases)} over
    :func:`reading_instances`; one simultaneous RVI run per instance and h_0."""
    scores: dict = {}
    for source, lam, K, gamma, N, it, cost in reading_instances():
        for h0 in M.RVI_H0:
            for name, (k, g) in _stops(lam, K, gamma, N, h0).items():
                for cname, extra in COUNTS.items():
                    c, d, n = scores.get((name, h0, source, cname), (0, 0, 0))
                    scores[(name, h0, source, cname)] = (c + (k + extra == int(it)), d + matches_printed(g, cost), n + 1)
    return scores


TAB = {"1.2": "Liu–Nain Table 1.2", "1.3": "Liu–Nain Table 1.3"}
FIG_TABLE = "Liu–Nain Fig {}"
cells.convention(TAB["1.2"], Printing.ROUND,
                 "C_d: 27/27 computed values (RVI reading) round to the print, 14/27 truncate to it; N̄: 27/27 round, 15/27 truncate")
cells.convention(TAB["1.3"], Printing.ROUND,
                 "C_d: 25/27 round to the print (the other 2 are copying slips), 18/27 truncate to it; N̄: 26/27 round, 13/27 truncate")
for _fig in FIGS:
    cells.convention(FIG_TABLE.format(_fig), Printing.ROUND, "costs printed to 5 decimals; 3/3 figure costs round to the print")


# -------------------------------------------------------- computations


def gamma_K(K: int) -> float:
    """γ(K) = μ(K + 2)/K of Lemma 1."""
    return MU * (K + 2) / K


# The table-level γ reading (claim ``gamma-K-rows``, issue 32 item 10): the rows of the K = 15 blocks printed
# γ = 1.13, the γ = γ(K) row of their block, have their dynamic columns at γ(15) = 17/15.  Applied by row key, to
# every cell of those rows, whatever the cell prints.
GAMMA_K_ROWS = {("15", "1.13")}


def dynamic_gamma(row: dict) -> float:
    """The γ of a row's dynamic columns: γ(K) = μ(K+2)/K for the rows of :data:`GAMMA_K_ROWS` (§1.2.3, as Figs
    1.5-1.7, compares γ < γ(K), γ = γ(K) and γ > γ(K); 17/15 prints as 1.13), else the printed γ.  The static columns
    were computed at the printed γ (C_s = 0.13313 = (1.13 + 1)/16); evidence in the claim ``gamma-K-rows``.

    >>> dynamic_gamma({"K": "15", "gamma": "1.13"}) == 17 / 15, dynamic_gamma({"K": "10", "gamma": "1.2"})
    (True, 1.2)
    """
    return gamma_K(int(row["K"])) if (row["K"], row["gamma"]) in GAMMA_K_ROWS else float(row["gamma"])


def table_N(table: str, row: dict):
    """N of a row: N_s of the static optimum at the printed γ (Table 1.2),
    or "auto", an N that does not bind (Table 1.3)."""
    return static(float(row["lam"]), int(row["K"]), float(row["gamma"]))[0] if table == "1.2" else "auto"


@lru_cache(maxsize=None)
def solve_instance(table: str, lam: float, K: int, gamma: float, N) -> M.InstanceReport:
    return M.analyse(lam, MU, K, gamma, N)


def instance(table: str, row: dict, gamma: float | None = None) -> M.InstanceReport:
    """The exact solution (policy iteration) of a row at its dynamic γ (or ``gamma``)."""
    g = dynamic_gamma(row) if gamma is None else gamma
    return solve_instance(table, float(row["lam"]), int(row["K"]), g, table_N(table, row))


@lru_cache(maxsize=None)
def rvi(lam: float, K: int, gamma: float, N: int) -> M.RVIResult:
    """Prop. 6 under the stated reading (x̂ = (1,1,1), h_0 = 0, τ = 0.99999)."""
    return M.relative_value_iteration(_mdp(lam, K, gamma, N), tau=TAU)


@lru_cache(maxsize=None)
def rvi_extended(lam: float, K: int, gamma: float, N: int) -> float:
    """T(h_k)(x̂) recomputed in long double for the same k: the second route."""
    k = rvi(lam, K, gamma, N).iterations
    return M.relative_value_iteration(_mdp(lam, K, gamma, N), tau=TAU, sweeps=k, precision="extended").gain


def rvi_value(lam: float, K: int, gamma: float, N: int) -> tuple[float, float]:
    """(T(h_k)(x̂), error bound): the bound is 4× the float64/long-double
    difference plus 64 ulp (the two routes share only the recursion)."""
    g = rvi(lam, K, gamma, N).gain
    return g, 4 * abs(g - rvi_extended(lam, K, gamma, N)) + 64 * np.spacing(g)


def exact_value(rep: M.InstanceReport) -> tuple[float, float]:
    """(θ by policy iteration, error bound): θ lies in [min, max] of T(h) − h
    for the solution's h (Odoni's bounds), widened by the float64 rounding of
    T(h) − h."""
    m, h = rep.solution.mdp, rep.solution.h
    gap = m.T(h) - h
    slack = 16 * np.finfo(float).eps * (float(np.abs(h).max()) + float(m.cost.max()))
    v = rep.solution.gain
    return v, max(float(gap.max()) - v, v - float(gap.min()), 0.0) + slack


def cd_value(table: str, row: dict) -> tuple[float, float, str]:
    """The C_d a row prints: Table 1.2 (N = N_s) the RVI estimate T(h_k)(x̂)
    under the stated reading, as §1.2.3 says it was computed; Table 1.3 (N
    unrestricted, the N used is not stated) the optimal gain θ."""
    if table == "1.2":
        lam, K = float(row["lam"]), int(row["K"])
        v, err = rvi_value(lam, K, dynamic_gamma(row), table_N("1.2", row))
        return v, err, "RVI T(h_k)(x̂), x̂=(1,1,1), h_0=0, τ=0.99999"
    v, err = exact_value(instance(table, row))
    return v, err, "optimal gain θ (policy iteration, Odoni bracket)"


@lru_cache(maxsize=None)
def static(lam: float, K: int, gamma: float) -> tuple[int, float]:
    """(N_s, C_s): argmin of (1.4) over n (Prop. 1)."""
    return M.static_count(lam, MU, K, gamma)


def row_label(row: dict) -> str:
    """A printed table row as text: lam=... K=... gamma=...."""
    return f"lam={row['lam']} K={row['K']} gamma={row['gamma']}"


def row_id(row: dict) -> str:
    """A printed table row as a claim-id fragment: l<lam>.K<K>.g<gamma>."""
    return f"l{row['lam']}.K{row['K']}.g{row['gamma']}"


def round5(x: float) -> float:
    """Round half up at the 5th decimal of the shortest repr (0.133125 -> 0.13313, as printed)."""
    from decimal import ROUND_HALF_UP, Decimal

    return float(Decimal(repr(x)).quantize(Decimal("0.00001"), rounding=ROUND_HALF_UP))


def rel_impr(cs: float, cd: float) -> float:
    """100(C_s − C_d)/C_d on the 5-decimal roundings of C_s and C_d: the
    convention that reproduces the printed column (the large percentages of
    Table 1.3 are sensitive to the 5th decimal of C_d)."""
    cs, cd = round5(cs), round5(cd)
    return 100 * (cs - cd) / cd


def count_cell(table: str, printed: str, lam: float, K: int, gamma: float, N: int, source: str) -> Outcome:
    """A printed RVI count under the stated reading: k updates (figures) or
    k + 1 evaluations of T (Table 1.2), x̂ = (1,1,1), h_0 = 0.  The count is
    computed twice (relative_value_iteration and the simultaneous runs of
    rvi_stop_counts); other readings are listed."""
    r = rvi(lam, K, gamma, N)
    if NATURAL_REFERENCES[READING[0]](K, N) != M.RVI_REFERENCE:
        raise SolverError(f"the stated reading's x̂ {READING[0]} is not numeric.mdp's RVI_REFERENCE {M.RVI_REFERENCE}")
    k2, k_old = _stops(lam, K, gamma, N, "zero")[READING[0]][0], _stops(lam, K, gamma, N, "zero")["(0,N,2)"][0]
    k_cost = _stops(lam, K, gamma, N, "cost")[READING[0]][0]
    extra = COUNTS[COUNT_OF[source]]
    if k2 != r.iterations:
        return Outcome.failed(f"the two RVI implementations stop at different k: {r.iterations} and {k2}")
    other = "k+1" if extra == 0 else "k"
    hyps = [Hypothesis(f"same run counted as {other}", r.iterations + COUNTS[other], r.iterations + COUNTS[other] == int(printed)),
            Hypothesis("x̂=(0,N,2)", int(k_old) + extra, int(k_old) + extra == int(printed)),
            Hypothesis("h_0=c", int(k_cost) + extra, int(k_cost) + extra == int(printed))]
    return cells.judge_cell(table, printed, r.iterations + extra, error_bound=0, hypotheses=hyps,
                            what=f"RVI x̂=(1,1,1), h_0=0, τ={TAU}, N={N}, γ={gamma:.6g}, stop k={r.iterations}, "
                                 f"printed as {COUNT_OF[source]} (rvi-reading)")


def margin_ok(value: float, err: float, printed: str) -> bool:
    """The verdict on ``value`` vs ``printed`` cannot flip within ``err``."""
    return cells.stable_within(Printing.ROUND, value, printed, err)
