"""Avrachenkov et al. §3 (and §5's B̂_0): the state space and the generator.  The dimension of p, the Lemma's Kronecker
blocks against the generator enumerated state by state, Γ_0^{⊕l}, the level-0 mode D^(N) of Q_{0,j}, and B̂_0 at
i = 0.  The symbolic counterparts derived from the model's rules are in :mod:`.lemma_derived`.
"""
from __future__ import annotations

import numpy as np

from ....derive import avrachenkov as d
from ....numeric import bmap as bm
from ....numeric.generated import avrachenkov as gen
from ....numeric.tolerance import GENERATOR_ABS, KRON_BLOCK_ABS, SAME_CHAIN_REL, close
from ...registry import Method, Outcome, claim
from ._common import P, example, full, paper_policies, src, toy_model


@claim(f"{P}.dimension", source=src("§3", "dimension of p"), method=Method.SYMBOLIC,
       statement="The state count of the chain (levels 0..K) is the derived W(1 + M (R^K - 1)/(R - 1)) (W(1 + M K) for R = 1), "
                 "the form that avrachenkov.formula.avrachenkov_states.printed compares the printed one against; the printed "
                 "W(1 + M (R^{K-1}-1)/(R-1)) and its instance 2046 (K = 10, W = M = R = 2) are that claim's one erratum.")
def _dimension():
    derived = d.state_space_dimension()
    printed = d.printed_dimension()
    counts = {}
    for (W, M, R, K) in [(2, 2, 2, 3), (2, 2, 2, 5), (1, 2, 3, 4), (2, 1, 1, 6), (3, 2, 2, 2)]:
        m = toy_model(W, M, R, K)
        counts[(W, M, R, K)] = (len(bm.state_list(m)), int(gen.avrachenkov_states(*map(np.float64, (W, M, R, K)))),
                                None if R == 1 else int(printed.subs({d.W: W, d.M: M, d.R: R, d.K: K})))
    ok = all(a == b for a, b, _ in counts.values())
    k10 = int(derived.args[1][0].subs({d.W: 2, d.M: 2, d.R: 2, d.K: 10}))
    k10_printed = int(printed.subs({d.W: 2, d.M: 2, d.R: 2, d.K: 10}))
    return Outcome.judge(ok, f"enumerated states / derived formula (generated code) / printed formula for (W, M, R, K): {counts}; "
                             f"at K = 10, W = M = R = 2: derived {k10}, printed formula {k10_printed} (printed 2046): the printed "
                             f"form's sum stops at level K - 1, the erratum recorded once by "
                             f"avrachenkov.formula.avrachenkov_states.printed")


@claim(f"{P}.lemma.two-ways", source=src("§3", "Lemma"), method=Method.FLOAT,
       statement="The generator from the Lemma's Kronecker blocks equals the one built by enumerating states and events.")
def _two_ways():
    rows = []
    cases = [(full(4), (3, 1), (1,)), (full(5), (4, 3, 2, 1), (0, 2, 2)), (toy_model(2, 2, 2, 4, 1), (2, 1), (1,)),
             (toy_model(3, 2, 3, 3, 2, kmax=3), (2, 1), (0,)), (toy_model(1, 3, 2, 4, 3), (1, 2), (2,))]
    for m, modes, th in cases:
        lv = m.check_policy(bm.Policy(modes, th))
        Q1, Q2 = bm.generator_kronecker(m, lv), bm.generator_enumerated(m, lv)
        diff = float(abs(Q1 - Q2).max())
        rows.append((m.states, diff, float(abs(Q1.sum(axis=1)).max())))
    ok = all(df <= GENERATOR_ABS and rs <= GENERATOR_ABS for _, df, rs in rows)
    return Outcome.judge(ok, "(states, max |Q_kron - Q_enum|, max |row sum|): " + ", ".join(f"({n}, {a:.1e}, {b:.1e})" for n, a, b in rows))


@claim(f"{P}.lemma.gamma0-sum", source=src("§3", "Lemma, Γ_0^{⊕l}"), method=Method.FLOAT,
       statement="Γ_0^{⊕l} (printed 'Γ_0 ⊕ ... ⊕ Γ' with l terms; the seed text's last term lacks its subscript 0, "
                 "`\\boldsymbol{\\Gamma}}_{l}`) is the l-fold sum Γ_0 ⊕ ... ⊕ Γ_0 = sum_q I_{R^{q-1}} ⊗ Γ_0 ⊗ I_{R^{l-q}}: with it "
                 "the rows of (Γ^{⊕l} | Γ_0^{⊕l}) sum to 0 and the blocks reproduce the enumerated generator.")
def _gamma0():
    m = full(5)
    G, G0 = m.obsolescence.S, m.obsolescence.exit.reshape(-1, 1)
    R = G.shape[0]
    worst, shapes = 0.0, []
    for l in (1, 2, 3):
        # Γ_0 ⊕ ... ⊕ Γ_0 built term by term with a ⊕ b = a ⊗ I_(rows of b) + I_(rows of a) ⊗ b (the Kronecker sum, which
        # for square blocks is the usual one and for these columns sums over the page that leaves)
        ours = G0
        for _ in range(l - 1):
            ours = np.kron(ours, np.eye(R)) + np.kron(np.eye(ours.shape[0]), G0)
        lib = bm.kron_sum_power(m.obsolescence.exit, l).toarray()
        rows = bm.kron_sum_power(G, l).toarray().sum(axis=1) + lib.sum(axis=1)
        worst = max(worst, float(np.abs(ours - lib).max()), float(np.abs(rows).max()))
        shapes.append(lib.shape)
    ok = worst < KRON_BLOCK_ABS
    return Outcome.judge(ok, f"l = 1, 2, 3: Γ_0 ⊕ ... ⊕ Γ_0 term by term vs sum_q I ⊗ Γ_0 ⊗ I (shapes {shapes}) and the row sums of "
                             f"(Γ^(⊕l) | Γ_0^(⊕l)): largest deviation {worst:.1e}; the printed last term 'Γ' (no subscript 0) is a "
                             f"typo of the paper or of the text extraction (the Γ^(⊕l) definition beside it ends in Γ), not a "
                             f"different formula: no erratum (the blocks' agreement with the enumerated generator: "
                             f"avrachenkov.lemma.two-ways)")


@claim(f"{P}.lemma.level0-mode", source=src("§3", "Lemma, Q_{0,j}; §2 threshold strategies; §7 Table 1 mode sets"),
       method=Method.FLOAT,
       statement="Q_{0,j} uses D^(N), N = 4 in §7: with §2's strict thresholds the empty system runs mode N whenever N is in use, "
                 "so the printed blocks equal the enumerated generator for the mode sets containing 4; a set without mode 4 (e.g. "
                 "Table 1's optimum '3 or 1') is a smaller model whose own N is its largest mode, and the printed blocks hold "
                 "with that N.")
def _level0():
    m = example(4).with_(reduce=False)
    literal, relabelled, count = {}, 0.0, 0
    for pol in paper_policies(m.N, m.K):
        lv = m.check_policy(pol)
        Q = bm.generator_enumerated(m, lv)
        diff = float(abs(bm.assemble(m, bm.kronecker_blocks(m, lv, level0_mode=m.N)) - Q).max())
        literal[pol.modes] = max(literal.get(pol.modes, 0.0), diff)
        relabelled = max(relabelled, float(abs(bm.assemble(m, bm.kronecker_blocks(m, lv, level0_mode=max(pol.modes))) - Q).max()))
        count += 1
    holds = sorted(k for k, v in literal.items() if v <= GENERATOR_ABS)
    off = sorted(k for k, v in literal.items() if v > GENERATOR_ABS)
    ok = all((m.N in k) == (k in holds) for k in literal) and relabelled <= GENERATOR_ABS
    return Outcome.judge(ok, f"{count} strict-threshold policies over all {len(literal)} mode sets (K = 4, full chain).  Printed "
                             f"D^(N) with N = {m.N}: equals the enumerated generator for {len(holds)} mode sets (all containing "
                             f"{m.N}); off at level 0 for {len(off)} ({', '.join(','.join(map(str, k)) for k in off)}; largest "
                             f"|diff| {max(literal[k] for k in off):.3g}), among them Table 1's optimum 3,1.  With N the largest "
                             f"mode in use (the mode set as its own model): max |diff| {relabelled:.1e} over all policies.  §7 "
                             f"never says that a row's N is its largest mode; the Lemma as printed covers §2's model, where "
                             f"every mode is in use")


def _bhat0_printed(m: bm.BmapModel) -> np.ndarray:
    """The printed B̂_0 = B_0 ⊗ I_R with B_0 = S_0 beta ⊗ e_R ⊗ I_{R^{-1}} + I_M ⊗ Γ_0^{⊕0}, read with the degenerate
    factors of i = 0 completed as the i >= 1 case does: I_{R^{i-1}} ⊗ I_R = I_{R^i} (so I_1 at i = 0) and Γ_0^{⊕0} = 0
    (an empty Kronecker sum: no buffered page to leave)."""
    S0b = np.outer(m.service.exit, m.service.beta)
    I_R_pow_0 = np.eye(1)  # I_{R^{-1}} ⊗ I_R = I_{R^0}
    return np.kron(np.kron(S0b, np.ones((m.R, 1))), I_R_pow_0)


@claim(f"{P}.lemma.bhat0", source=src("§5", "eqs. (20)-(21), B̂_0"), method=Method.FLOAT,
       statement="B̂_0 = B_0 ⊗ I_R, with the degenerate factors of i = 0 read as the i >= 1 case reads them (I_{R^{-1}} ⊗ I_R = "
                 "I_1, Γ_0^{⊕0} = 0), is S_0 beta ⊗ e_R: the tagged page enters service; with it the recursion gives P_success of "
                 "eq. (15) and Little's law (a notation gap at i = 0, not a wrong formula).")
def _bhat0():
    m = full(5)
    read = _bhat0_printed(m)
    direct = np.kron(np.outer(m.service.exit, m.service.beta), np.ones((m.R, 1)))  # the tagged page (head of the buffer) starts service
    r = bm.evaluate(example(), bm.Policy((3, 1), (2,)))
    same = read.shape == direct.shape and float(np.abs(read - direct).max()) == 0.0
    ok = (same and close(r.p_success, r.p_success_tagged, rel=SAME_CHAIN_REL)
          and close(r.lam * r.v, r.mean_number, rel=SAME_CHAIN_REL))
    return Outcome.judge(ok, f"printed B̂_0 read with I_(R^-1) ⊗ I_R = I_1 and Γ_0^(⊕0) = 0: shape {read.shape}, equal to "
                             f"S_0 beta ⊗ e_R entry for entry: {same} (R = {m.R}, full chain); the recursion with it: P_success "
                             f"eq. (15) {r.p_success:.15g} vs tagged chain {r.p_success_tagged:.15g}; lambda V = {r.lam * r.v:.15g} "
                             f"vs L = {r.mean_number:.15g}.  The formula as printed is only undefined at i = 0 through I_(R^-1); "
                             f"no erratum")
