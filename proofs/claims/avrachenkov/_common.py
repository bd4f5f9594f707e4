"""What every section of the Avrachenkov et al. claims shares: the paper key and model files, the printing conventions
recorded once per column group (issue 10; the evidence is recounted by `avrachenkov.costs.convention`,
`avrachenkov.R.convention` and `avrachenkov.means.convention`), the cell helpers built on the shared cell engine
(:func:`crawlmath.proofs.cells.judge_cell`), and the cached §7 models.
"""
from __future__ import annotations

import itertools
from dataclasses import replace
from functools import lru_cache

import flint
import numpy as np

from ....numeric import bmap as bm
from ....numeric.bmap import load_model
from ... import cells
from ...cells import Hypothesis, Printing, decimals
from ...registry import Outcome, Source


P = "avrachenkov"
EXAMPLE = "avrachenkov-example.json"
REAL = "avrachenkov-real.json"


def src(section: str, ref: str) -> Source:
    """A :class:`Source` in Avrachenkov et al. (section, reference)."""
    return Source("avrachenkov", section, ref)


# The printing conventions (issue 10), one per column group, from evidence: counts of cells whose computed value prints
# as the printed text under rounding / truncation (both = either); the claims of :mod:`.evidence` recount them.

COSTS = "Avrachenkov costs"  # C^*, C_r and optimal costs of Tables 1-5 and the §7 text
MEANS = "Avrachenkov means"  # b_1, g_1 (Tables 3-4, §7) and the other §7 input-derived numbers
BMAP_CHARS = "Avrachenkov §7 BMAP characteristics"
R_T2 = "Avrachenkov Table 2 R"
R_T34 = "Avrachenkov Tables 3-4 R"
EXACT = "Avrachenkov exact"  # thresholds, j*, mode sets: equality of the text

cells.convention(COSTS, Printing.TRUNCATE, "every distinct cost cell of Tables 1-5 and the text, recounted by claim "
                                           "avrachenkov.costs.convention")
# The last-digit rule (issue 32): costs print as trunc(v (1 + e)), 0 <= e <= LAST_DIGIT_BOUND.  The bound sits in the gap
# the data leave: the largest deviation a cell needs is 4.3e-5 (Table 1, modes 4, 2), the smallest a cell outside the rule
# would need is 1.0e-4 (Table 4, s = 30, C_1); `avrachenkov.costs.last-digit` recounts both, and both directions.
LAST_DIGIT_BOUND = 5e-5
cells.last_digit_rule(COSTS, LAST_DIGIT_BOUND, "recounted per table by claim avrachenkov.costs.last-digit (cells printed one unit "
                                                "high vs one unit low near a truncation boundary)")
cells.convention(MEANS, Printing.ROUND, "b_1 and g_1 columns of Tables 3-4, recounted by claim avrachenkov.means.convention")
cells.convention(BMAP_CHARS, Printing.ROUND, "recounted by claim avrachenkov.means.convention: the two readings tie (one "
                                             "cell needs each), recorded as rounding like MEANS")
cells.convention(R_T2, Printing.TRUNCATE, "Table 2 R column, recounted by claim avrachenkov.R.convention")
cells.convention(R_T34, Printing.ROUND, "R columns of Tables 3-4, recounted by claim avrachenkov.R.convention")
cells.row_reading(R_T34, "R = 100 (1 - C*/min C_r) from the row's printed C* and C_r (except a row whose printed C* is an "
                         "erratum, judged from the computed costs)", "recounted by claim avrachenkov.R.convention")
cells.convention(EXACT, Printing.EXACT, "integers and lists are compared as text")
TEXT = "Avrachenkov §7 variances"  # the variance ranges quoted in the text of Figs 2-4
cells.convention(TEXT, Printing.TRUNCATE, "the four variances of the Figs 2-4 text, recounted by claim avrachenkov.means.convention")


def prints_as(group: str, value: float, printed: str) -> bool:
    """Does ``value`` print as ``printed`` under ``group``'s recorded convention?"""
    return cells.matches(cells.printing_of(group), value, printed)


def cell(group: str, value, printed: str, what: str, hypotheses=(), note: str = "", error_bound: float | None = None) -> Outcome:
    """The shared cell engine with this module's format (6 significant digits)."""
    return cells.judge_cell(group, printed, value, what=what, hypotheses=hypotheses, note=note, error_bound=error_bound,
                            fmt=lambda v: f"{v:.{decimals(printed) + 3}f}" if isinstance(v, float) else str(v))


def other_reading(value: float, printed: str, group: str) -> Hypothesis:
    """The reading the group's convention did not choose, as a tried hypothesis."""
    mine = cells.printing_of(group)
    alt = Printing.ROUND if mine is Printing.TRUNCATE else Printing.TRUNCATE
    return Hypothesis(f"printed by {alt.value} instead", value, cells.matches(alt, value, printed))


def hp_cell(group: str, cv: bm.CertifiedValue, printed: str, what: str, hypotheses=(), note: str = "",
            error_bound: float | None = None) -> Outcome:
    """A cell judged from a certified value (issue 17): the >= 30-digit value converted to float, with the error bound of
    the conversion and of the inputs (``cv.error_bound`` unless a propagated ``error_bound`` is given), so the engine can
    tell whether the verdict is certain."""
    bound = cv.error_bound if error_bound is None else error_bound
    note = (note + "; " if note else "") + f"ball value {cv.value_str()}"
    return replace(cell(group, float(cv.value), printed, what, hypotheses, note=note, error_bound=bound), digits=min(cv.digits, 99.0))


def exact_cell(value: str, printed: str, what: str, arg: bm.CertifiedArgmin, hypotheses=()) -> Outcome:
    """An exact cell (thresholds, j*, modes) read off a certified argmin: certain (error bound 0) only when the argmin is
    decided by disjoint enclosures; a tie is reported in the detail and leaves the cell uncertain."""
    return cell(EXACT, value, printed, what, hypotheses, note=arg.summary(), error_bound=arg.error_bound)


def ball_min(values) -> "flint.arb":
    """The enclosure of min_i x_i from enclosures of the x_i (the ball of each certified value)."""
    balls = [v.ball() for v in values]
    out = balls[0]
    for b in balls[1:]:
        out = out.min(b)
    return out


def relative_profit(cstar: bm.CertifiedValue, crs, cstar_bound: float | None = None) -> tuple[float, float]:
    """R = 100 (1 - C*/min C_r) and a bound on its error, from the certified C* (its ``cost_bound`` when given) and C_r,
    propagated in ball arithmetic."""
    c = cstar.ball() if cstar_bound is None else flint.arb(cstar.ball().mid(), cstar_bound)  # midpoint exact, not float64
    R = 100 * (1 - c / ball_min(crs))
    mid = float(R.mid())
    return mid, float(R.rad()) + float(np.spacing(abs(mid)))


@lru_cache(maxsize=None)
def example(K: int = 5) -> bm.BmapModel:
    """The §7 example model (example spec, lumped) with buffer bound K; cached."""
    return load_model(EXAMPLE, K=K)


@lru_cache(maxsize=None)
def full(K: int = 5) -> bm.BmapModel:
    """The example on the representations as printed (no lumping): R = 2, for the claims on the Lemma's structure."""
    return load_model(EXAMPLE, K=K, reduce=False)


@lru_cache(maxsize=None)
def real() -> bm.BmapModel:
    """The §7 real-data model (Table 5 spec); cached."""
    return load_model(REAL)


def toy_model(W, M, R, K, seed=0, kmax=2) -> bm.BmapModel:
    """A random valid model (for structural checks)."""
    return bm.random_model(seed, W, M, R, K, kmax)


def paper_policies(N: int, K: int):
    """Policies inside the paper's own convention (§2): the modes used, in decreasing order of robots as the queue grows, with
    strict thresholds -1 < j_1 < ... < j_{n-1} < K, so every mode serves at least one level."""
    for n in range(1, N + 1):
        for modes in itertools.combinations(range(N, 0, -1), n):
            for th in bm.threshold_candidates(n, K, "strict"):
                yield bm.Policy(modes, th)


def measure_vector(m: bm.Measures):
    """The 9 measures compared between routes: P_star, N_act, lambda, P_loss, P_obs, P_success, V^(1), V^(2) and J."""
    return np.array([m.p_star, m.n_act, m.lam, m.p_loss, m.p_obs, m.p_success, m.v1, m.v2, m.cost], dtype=float)


# The claims on Table 1's optimisation (its cells, C_r, Figure 1, R > 28%, the 50-digit rerun) share `table1` and the
# certified costs cached on ``example(5)``: one work-sharing group (proofs/runner.py)
T1_GROUP = f"{P}.table-1"


def margin_ok(group: str, value: float, printed: str, bound: float) -> bool:
    """The printed digits of ``value`` cannot change within ``bound`` under ``group``'s convention (for text claims)."""
    return cells.stable_within(cells.printing_of(group), value, printed, bound)


def prints_cost(value: float, printed: str) -> bool:
    """Does a computed cost print as ``printed`` (COSTS: truncation, or the last-digit rule)?"""
    return prints_as(COSTS, value, printed) or cells.last_digit_match(COSTS, value, printed) is not None
