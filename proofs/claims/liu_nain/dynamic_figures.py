"""Claims of Liu–Nain (2005) §1.2.2, Figures 1.5–1.7 (N = 16, K = 5, λ = 0.1, μ = 1, γ = 1, 1.4, 2): the printed
optimal cost and RVI count of each figure, its monotone switching curve, and the optimal gain to 30 digits by two
routes.
"""
from __future__ import annotations

from ....numeric import mdp as M
from ....numeric.tolerance import HP_DIGITS, digits_agreed, matches_printed
from ... import cells
from ...cells import Hypothesis
from ...registry import Method, Outcome, TableCell, claim
from ._dynamic import P, FIGS, FIG_LAM, FIG_K, FIG_N, src, FIG_MDP, FIG_TABLE, rvi_value, count_cell


# ----------------------------------------------------------------- figures


def _fig_claims(fig: str, gamma: float, cost: str, iters: str) -> None:
    s_ = src("§1.2.2", f"Figure {fig}")
    label = f"N=16 K=5 lam=0.1 mu=1 gamma={gamma:g}"
    table = FIG_TABLE.format(fig)

    @claim(f"{P}.fig-{fig}.cost", source=s_, method=Method.FLOAT, cell=TableCell(table, label, "Cost", cost),
           statement=f"the optimal average cost for γ = {gamma:g} is {cost}")
    def _cost() -> Outcome:
        v, err = rvi_value(FIG_LAM, FIG_K, gamma, FIG_N)
        s = M.policy_iteration(M.CrawlerMDP(**FIG_MDP, gamma=gamma))
        return cells.judge_cell(table, cost, v, what="RVI T(h_k)(x̂) (x̂=(1,1,1), h_0=0)", error_bound=err,
                                hypotheses=[Hypothesis("optimal gain θ (policy iteration)", s.gain, matches_printed(s.gain, cost))])

    @claim(f"{P}.fig-{fig}.iterations", source=s_, method=Method.FLOAT, cell=TableCell(table, label, "iterations", iters),
           statement=f"relative value iteration stops after {iters} iterations")
    def _iters() -> Outcome:
        return count_cell(table, iters, FIG_LAM, FIG_K, gamma, FIG_N, "figures")

    @claim(f"{P}.fig-{fig}.switching-curve", source=s_, method=Method.FLOAT,
           statement="the optimal policy is a monotone (decreasing) switching curve with f_0(0) ≥ 1")
    def _curve() -> Outcome:
        s = M.policy_iteration(M.CrawlerMDP(**FIG_MDP, gamma=gamma))
        c = s.curves
        return Outcome.judge(c.monotone and c.f0[0] >= 1, f"f0 = {c.f0}; f1 = {c.f1}; {c.where or 'monotone'}")

    @claim(f"{P}.fig-{fig}.hp", source=s_, method=Method.NUMERIC_HP,
           statement=f"the optimal gain for γ = {gamma:g} to ≥ {HP_DIGITS} digits by two routes")
    def _hp() -> Outcome:
        import mpmath

        m = M.CrawlerMDP(**FIG_MDP, gamma=gamma)
        s = M.policy_iteration(m)
        a = M.gain_hp(m, s.policy, dps=HP_DIGITS + 10)
        b = M.gain_exact(m, s.policy)
        with mpmath.workdps(HP_DIGITS + 20):
            bm = mpmath.mpf(b.gain.numerator) / b.gain.denominator
            d = digits_agreed(a.gain, bm)
            text = mpmath.nstr(bm, HP_DIGITS + 2)
        return Outcome.judge(d >= HP_DIGITS and matches_printed(float(bm), cost),
                             f"exact rational (CTMC, flint) {text}...; mixed-precision refinement agrees to {d:.1f} digits",
                             digits=round(d, 1), computed=text)


for _fig, (_g, _c, _i) in FIGS.items():
    _fig_claims(_fig, _g, _c, _i)
