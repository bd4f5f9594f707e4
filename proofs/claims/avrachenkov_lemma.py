"""The Lemma of Avrachenkov et al. (§3) derived symbolically: the generator
of ξ_t is built state by state from the model's rules on a generic symbolic
instance (:func:`crawlmath.derive.avrachenkov.generator_from_rules`) and
compared block by block with the Lemma's Kronecker form
(:func:`crawlmath.derive.avrachenkov.lemma_block`, the recipe of
:func:`~crawlmath.derive.avrachenkov.lemma_recipe`).

Seed ``000_5df23f3f1376a820.txt``.  The float versions of these checks (the
numeric generator two ways, the printed level-0 mode against Table 1) are in
:mod:`.avrachenkov`.
"""
from __future__ import annotations

import sympy as sp

from ...derive import avrachenkov as d
from ..registry import Method, Outcome, Source, claim

P = "avrachenkov.lemma.derived"
SRC = Source("avrachenkov", "§3", "Lemma")
# W̄ = M = R = 2, batches up to 3 = K (tail blocks at every level), mode 1 at
# level 0 and at level K, mode 2 = N in between.
INSTANCE = dict(W_=2, M_=2, R_=2, kmax=3, K_=3, chi=(1, 2, 2, 1))


def _nonzero(matrix: sp.Matrix) -> bool:
    return any(sp.expand(e) != 0 for e in matrix)


@claim(f"{P}.blocks", source=SRC, method=Method.SYMBOLIC,
       statement="Every block Q_{i,i'} of the generator built from the model's rules equals the Lemma's Kronecker form "
                 "(with D^(chi(0)) at level 0 and Γ_0^{⊕n} = sum_q I ⊗ Γ_0 ⊗ I).")
def _blocks() -> Outcome:
    bad = d.lemma_residuals(**INSTANCE)
    K = INSTANCE["K_"]
    model = d.LemmaModel(INSTANCE["W_"], INSTANCE["M_"], INSTANCE["R_"], INSTANCE["kmax"], max(INSTANCE["chi"]))
    states = len(d.lemma_states(model, K))
    nonzero = sum(1 for i in range(K + 1) for j in range(K + 1) if d.lemma_recipe(i, j, K))
    detail = (f"generic symbolic instance W̄ = M = R = 2, batches <= 3, K = 3, modes chi = {INSTANCE['chi']}: "
              f"{states} states; {(K + 1) ** 2} blocks compared ({nonzero} non-zero in the Lemma), "
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
