"""The Lemma of Avrachenkov et al. (§3) and the measures of Theorems 1-3
derived from the model's rules (:func:`crawlmath.derive.avrachenkov.paper_rules`):
the block recipe the rules give (:func:`~crawlmath.derive.avrachenkov.lemma_recipe`,
emitted for numeric use) against the generator built state by state from the
same rules on a generic symbolic instance and against the printed Lemma; the
measure functionals built from the rules against the printed eqs. (5), (7)-(9),
(14), (15), and against crawlmath's exact numeric route; the tagged page's
chain built from the rules (Theorem 4, Corollary 1) against the numeric route
and the printed transforms.

Seed ``000_5df23f3f1376a820.txt``.  The float versions of these checks (the
numeric generator two ways, the printed level-0 mode against Table 1) are in
:mod:`.chain`.
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from ....derive import avrachenkov as d
from ....numeric import bmap as bm
from ....numeric.bmap import load_model
from ....numeric.tolerance import FLOAT_REL
from ...registry import Method, Outcome, Source, claim
from ._printed import printed_theorem4, printed_v1, printed_v2

P = "avrachenkov.lemma.derived"
SRC = Source("avrachenkov", "§3", "Lemma")
# W̄ = M = R = 2, batches up to 3 = K (tail blocks at every level), mode 1 at
# level 0 and at level K, mode 2 = N in between.
INSTANCE = dict(W_=2, M_=2, R_=2, kmax=3, K_=3, chi=(1, 2, 2, 1))


def _nonzero(matrix: sp.Matrix) -> bool:
    return any(sp.expand(e) != 0 for e in matrix)


@claim(f"{P}.blocks", source=SRC, method=Method.SYMBOLIC,
       statement="Every block Q_{i,i'} of the generator built state by state from the rules of §2 equals the Kronecker "
                 "form the same rules give (the recipe emitted for the numeric generator, D^(chi(0)) at level 0).")
def _blocks() -> Outcome:
    bad = d.lemma_residuals(**INSTANCE)
    K = INSTANCE["K_"]
    model = d.LemmaModel(INSTANCE["W_"], INSTANCE["M_"], INSTANCE["R_"], INSTANCE["kmax"], max(INSTANCE["chi"]))
    states = len(d.lemma_states(model, K))
    nonzero = sum(1 for i in range(K + 1) for j in range(K + 1) if d.lemma_recipe(i, j, K))
    detail = (f"generic symbolic instance W̄ = M = R = 2, batches <= 3, K = 3, modes chi = {INSTANCE['chi']}: "
              f"{states} states; {(K + 1) ** 2} blocks compared ({nonzero} non-zero in the generated recipe), "
              f"every difference expands to 0" if not bad else f"blocks differing: {sorted(bad)}")
    return Outcome.judge(not bad, detail)


@claim(f"{P}.level0-mode", source=Source("avrachenkov", "§3", "Lemma, Q_{0,j}"), method=Method.SYMBOLIC,
       statement="Q_{0,j} built from D^(N) (as printed) are the rule-derived blocks whenever the empty system runs "
                 "all N robots, as the paper's thresholds (j_0 = -1 < 0 <= j_1) make it do.")
def _level0() -> Outcome:
    K = INSTANCE["K_"]
    model = d.LemmaModel(INSTANCE["W_"], INSTANCE["M_"], INSTANCE["R_"], INSTANCE["kmax"], max(INSTANCE["chi"]))
    offsets = d.level_offsets(model, K)

    def off_blocks(chi):
        """Targets j where the printed / the D^(chi(0)) form of Q_{0,j} differ from the rules."""
        Q = d.generator_from_rules(model, K, chi)
        printed, corrected = [], []
        for j in range(K + 1):
            derived = Q[0:model.W, offsets[j]:offsets[j + 1]]
            if _nonzero(derived - d.printed_level0_block(model, j, K)):
                printed.append(j)
            if _nonzero(derived - d.lemma_block(model, 0, j, K, chi)):
                corrected.append(j)
        return printed, corrected

    paper_chi, other_chi = (2, 2, 1, 1), INSTANCE["chi"]
    in_paper, in_paper_corr = off_blocks(paper_chi)
    outside, outside_corr = off_blocks(other_chi)
    ok = not in_paper and not in_paper_corr and not outside_corr
    return Outcome.judge(ok, f"modes chi = {paper_chi} (N = 2 robots at the empty system): printed Q_(0,j) off the rule-derived "
                             f"blocks at j = {in_paper or 'none'}; scope: with chi = {other_chi} (outside the paper's "
                             f"convention) the printed blocks are off at j = {outside}, D^(chi(0)) off at j = {outside_corr or 'none'}")


@claim(f"{P}.printed", source=SRC, method=Method.SYMBOLIC,
       statement="The block recipe generated from the rules of §2 is the printed Lemma (Kronecker sums expanded, "
                 "Γ_0^{⊕n} = sum_q I ⊗ Γ_0 ⊗ I) term for term, for every block and K = 1..8.")
def _printed() -> Outcome:
    diff = d.recipe_vs_printed(8)
    blocks = sum((K + 1) ** 2 for K in range(1, 9))
    nonzero = sum(1 for K in range(1, 9) for i in range(K + 1) for j in range(K + 1) if d.lemma_recipe(i, j, K))
    if diff:
        first = sorted(diff)[0]
        return Outcome.judge(False, f"{len(diff)} of {blocks} blocks differ, first {first}: generated {diff[first][0]} "
                                    f"vs printed {diff[first][1]}")
    return Outcome.judge(True, f"K = 1..8: {blocks} blocks ({nonzero} non-zero), the generated terms equal the printed "
                               f"ones as multisets; the printed level-0 mode N is compared in {P}.level0-mode")


THM = "avrachenkov.thm.derived"
THM_SRC = Source("avrachenkov", "§4", "Theorems 1-3, eqs. (5), (7)-(9), (14), (15)")


@claim(f"{THM}.functionals", source=THM_SRC, method=Method.SYMBOLIC,
       statement="The measures of Theorems 1-3 as functionals sum_i p_i f_i built from the rules of §2 (pages offered, "
                 "lost, served, obsolete per move; idle and mode indicators) equal the printed ones, level by level.")
def _functionals() -> Outcome:
    model = d.LemmaModel(2, 1, 2, kmax=3, modes=2)
    diff = d.functionals_vs_printed(model, 3, (1,))
    detail = ("generic symbolic instance W̄ = 2, M = 1, R = 2, batches <= 3, K = 3, thresholds j_1 = 1 (N = 2): "
              "lambda (9), P_loss (8) (equal through D(1)e = 0), P_obs (14), P_success (15), P_star (5), phi_n (7)")
    return Outcome.judge(not diff, f"{detail}: every level's vector equal" if not diff
                         else f"{detail}: differing {sorted(diff)}")


def _example_k3():
    """The §7 example at K = 3, modes 3,1, j_1 = 1, solved in exact rationals: (model, levels, stationary, numeric measures,
    the model as a concrete LemmaModel, the stationary blocks as SymPy rows); shared by the derived-theorem claims."""
    model = load_model("avrachenkov-example.json", K=3, reduce=False)
    levels = model.check_policy(bm.Policy((3, 1), (1,)))
    st = bm.Stationary(bm.split_levels(model, bm.rational_stationary(model, levels)), "exact rational solve", 0.0)
    numeric = bm.measures(model, levels, st, rational=True)
    D = {r: {k: sp.Matrix(model.D_exact(r, k).tolist()) for k in range(model.kmax + 1)} for r in range(1, model.N + 1)}
    ph, ob = model.service, model.obsolescence
    concrete = d.LemmaModel.concrete(D, ph.S_exact.tolist(), [list(ph.beta_exact)], ob.S_exact.tolist(), [list(ob.beta_exact)])
    blocks = [sp.Matrix([[sp.Rational(int(x.p), int(x.q)) for x in b]]) for b in st.p]
    return model, levels, st, numeric, concrete, blocks


def _rational(x):
    return sp.Rational(int(x.p), int(x.q))


@claim(f"{THM}.numeric", source=THM_SRC, method=Method.SYMBOLIC,
       statement="crawlmath's exact numeric measures (bmap_model.measures on the rational stationary vector of the "
                 "generator enumerated in numeric code) equal the derived functionals on the same vector.")
def _numeric() -> Outcome:
    model, levels, _, numeric, concrete, blocks = _example_k3()
    derived = d.measures_from(blocks, d.rate_functionals(concrete, model.K, levels))
    q = _rational

    pairs = {"lambda": q(numeric.lam), "P_loss": q(numeric.p_loss), "P_obs": q(numeric.p_obs),
             "P_success": q(numeric.p_success), "P_star": q(numeric.p_star), "N_act": q(numeric.n_act),
             "V_bar": q(numeric.mean_number) / q(numeric.lam)}
    off = [k for k, v in pairs.items() if derived[k] != v]
    detail = (f"§7 example, K = 3, modes 3,1, j_1 = 1 ({model.states} states, exact rationals): "
              + ", ".join(f"{k} = {float(v):.15g}" for k, v in pairs.items()))
    return Outcome.judge(not off, detail + (": all equal exactly" if not off else f"; differing: {off}"))


@claim(f"{THM}.sojourn", source=Source("avrachenkov", "§5", "Theorem 4, eqs. (16)-(21); Corollary 1, eqs. (22)-(25)"),
       method=Method.FLOAT, slow=True,
       statement="The tagged page's chain built from the rules of §2 gives Corollary 1's V̄^(1), V̄^(2), V̄ equal to "
                 "crawlmath's exact numeric route, and Theorem 4's transforms equal to the printed (16)-(21) at u = 1.")
def _sojourn() -> Outcome:
    model, levels, st, numeric, concrete, blocks = _example_k3()
    derived = d.sojourn_means(concrete, model.K, levels, blocks)
    q = _rational

    pairs = {"V1": q(numeric.v1), "V2": q(numeric.v2), "P_served": q(numeric.p_success_tagged), "V": q(numeric.v)}
    off = [k for k, v in pairs.items() if derived[k] != v]
    # Theorem 4 as printed, in float64 on the float stationary vector (the printed formulas' own route)
    p_float = [np.array([float(x) for x in b]) for b in st.p]
    r = bm.measures(model, levels, bm.Stationary(tuple(p_float), "float", 0.0))
    s1 = printed_theorem4(model, levels, p_float, r.lam, printed_v1(model, 1.0))
    s2 = printed_theorem4(model, levels, p_float, r.lam, printed_v2(model, 1.0))
    printed = {"v1": s1 / r.p_success, "v2": s2 / r.p_obs}
    printed["v"] = printed["v1"] * r.p_success + printed["v2"] * r.p_obs + r.p_loss
    ours = d.sojourn_transforms(concrete, model.K, levels, blocks, 1)
    worst = max(abs(float(ours[k]) - printed[k]) / abs(float(ours[k])) for k in printed)
    detail = (f"§7 example, K = 3, modes 3,1, j_1 = 1 (exact rationals): V̄^(1) = {float(derived['V1']):.15g}, "
              f"V̄^(2) = {float(derived['V2']):.15g}, V̄ = {float(derived['V']):.15g}, P_success = "
              f"{float(derived['P_served']):.15g}: " + ("equal to the numeric route exactly" if not off else f"differing {off}")
              + f"; at u = 1: v = {float(ours['v']):.15g}, v^(1) = {float(ours['v1']):.15g}, v^(2) = {float(ours['v2']):.15g}, "
              f"largest relative difference to the printed (16)-(21) in float64 {worst:.1e} (bound {FLOAT_REL:.0e})")
    return Outcome.judge(not off and worst <= FLOAT_REL, detail)
