"""The headline findings of each paper, each tied to the claims that are its evidence.

A finding is one sentence a reader should take away ("the golden-ratio bound
2φ²/5 is false"), with the ids of the claims that establish it.  The report
shows every finding on its first screen next to the *current* verdicts of its
claims, so a finding whose evidence stops holding is visibly unsupported
(and a test fails when a finding names a claim that does not exist).

>>> f = Finding("coffman", "example", ("coffman.sched.lemma-3.1",))
>>> f.paper, f.claims
('coffman', ('coffman.sched.lemma-3.1',))
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    """One headline finding: its paper, the sentence, and the ids of the claims that are its evidence."""
    paper: str
    sentence: str
    claims: tuple[str, ...]  # evidence: the finding holds while these keep their recorded verdicts


FINDINGS: list[Finding] = []


def finding(paper: str, sentence: str, *claims: str) -> Finding:
    """Record a headline finding of ``paper`` with its evidence claims."""
    f = Finding(paper, sentence, tuple(claims))
    FINDINGS.append(f)
    return f


def of(paper: str) -> list[Finding]:
    """The headline findings of ``paper``, in the order recorded."""
    return [f for f in FINDINGS if f.paper == paper]


# --- the headline findings, paper by paper (shown on the report's first screen) ---

finding("liu-nain", "Table 1.1 prints N(γ = 1.2, K = 40) = 101; the optimum is 100 (C(101) − C(100) = +1.4·10⁻⁵).",
        "liu-nain.static.table-1.1.g1.2.K40")
finding("liu-nain", "Proposition 3(b)'s bound ⌊2μ/(γ−λ)⌋ fails for μ < λ < γ; ⌊2μ/(γ−μ)⌋ holds.", "liu-nain.static.prop-3b")
finding("liu-nain", "The printed transition laws (1.14) and (1.15) are not stochastic; the corrected law gives the printed costs.",
        "liu-nain.dynamic.eq-1.14", "liu-nain.dynamic.eq-1.15")
finding("liu-nain", "Every printed RVI iteration count and C_d is reproduced by one reading of Proposition 6 "
        "(x̂ = (1,1,1), h₀ = 0), found by an exhaustive search over the unstated choices.", "liu-nain.dynamic.rvi-reading")
finding("liu-nain", "Rows printed γ = 1.13 have their dynamic columns computed at γ(15) = 17/15; "
        "8 printed C_d are the RVI estimate, 1–4 units above the optimal cost in the 5th decimal.",
        "liu-nain.dynamic.gamma-K-rows", "liu-nain.dynamic.table-1.2.C_d-optimality")
finding("liu-nain", "Proposition 7 (as Coffman's Theorem 3.1) is false for the increasing convex order; "
        "it holds when E[X′] ≤ E[X] and h′ ≤ h.", "liu-nain.sched.prop-7")
finding("coffman", "The golden-ratio bound 2φ²/5 ≈ 1.047 (Corollary 5.1, 'within 5%') is false: the sharp constant is "
        "φ⁵/10 ≈ 1.1090, certified by interval arithmetic, approached as μ/ν → 0 and never attained.",
        "coffman.sched.cor-5.1", "coffman.sched.cor-5.1.sup", "coffman.sched.thm-5.1")
finding("coffman", "Theorem 3.1 is false for the increasing convex order (X′ = {0.1, 2} ≤icx X = {1, 2} gives "
        "r′ = 0.543 > r = 0.501): the proof divides by E[X′] < E[X].", "coffman.sched.thm-3.1")
finding("avrachenkov", "The §7 chains reduce exactly (the obsolescence PH is lumpable to one phase): Table 2's K = 20 "
        "and 30 rows are computed from 82- and 122-state chains, and 'only modes 1 and 3 are used' holds.",
        "avrachenkov.reduction.example", "avrachenkov.table-2.modes-1-3", "avrachenkov.table-2.beyond-30")
finding("avrachenkov", "The state count is 2^{K+2} − 2, not 2^{K+1} − 2; the printed example D-matrices carry three "
        "sign errors; the real-data D₀ + A is not a generator.",
        "avrachenkov.dimension", "avrachenkov.inputs.example-D-signs", "avrachenkov.inputs.real-D0")
finding("avrachenkov", "Table 5's optimal costs are 0.98–1.55 above print while every threshold matches; no reading "
        "tried (input rounding, K, cost definition, real-data fit) reproduces them.", "avrachenkov.table-5.m41.cost")
finding("buijsrogge", "New result: the closed workbench has the product-form law π(q) ∝ NNZ(q)·∏ p_i^{q_i}; for uniform "
        "colours E[S] = (KC−1)/(K+C−2), so the mean field KC/(K+C−1) is low by less than 1/4 colour.",
        "buijsrogge.exact.product-form")
finding("buijsrogge", "Theorem 3.2.1's Lagrangian gradient has the factor K, not K − 1.", "buijsrogge.colours.thm-3.2.1-gradient")
