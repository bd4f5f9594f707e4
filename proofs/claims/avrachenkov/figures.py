"""Avrachenkov et al. §7, the constant-mean hyperexponentials of Figures 2-4: alpha_2 = 0.1 alpha_1/(b_1 alpha_1 - 0.9)
(SymPy), the variances the text quotes (a float PH route and a 40-digit closed form), and the optimal modes and
thresholds the text reads off the figures (certified argmins).
"""
from __future__ import annotations

import itertools

import mpmath
import sympy as sp

from ....derive import avrachenkov as d
from ....numeric import bmap as bm
from ....numeric.bmap import hyperexponential
from ....numeric.bmap import PhaseType
from ....numeric.errors import SolverError
from ....numeric.generated import avrachenkov as gen
from ....numeric.tolerance import CLOSED_FORM_REL, FLOAT_REL, close
from ...registry import Method, Outcome, claim
from ._common import P, TEXT, example, margin_ok, prints_as, src
from ._tables import certified_best


@claim(f"{P}.alpha2", source=src("§7", "alpha_2 = 0.1 alpha_1/(b_1 alpha_1 - 0.9)"), method=Method.SYMBOLIC,
       statement="With beta = (0.9, 0.1), S = diag(-alpha_1, -alpha_2), the mean is b_1 iff alpha_2 = 0.1 alpha_1/(b_1 alpha_1 - 0.9); "
                 "var_s ranges 0.431..5.798 for alpha_1 in [1.521, 9] (b_1 = 0.657, the example's mean service time).")
def _alpha2():
    derived = d.alpha2_for_mean().subs(d.beta1, sp.Rational(9, 10))
    same = sp.simplify(derived - d.printed_alpha2()) == 0
    b1 = example().service.mean  # 23/35 = 0.65714...; the rounded 0.657 gives var 5.7956 at alpha_1 = 9
    vals = []
    for a1 in (1.521, 9.0):
        a2 = float(gen.avrachenkov_alpha2(a1, b1, 0.9))
        ph = PhaseType([0.9, 0.1], [[-a1, 0], [0, -a2]])
        vals.append((a2, ph.mean, ph.variance, float(gen.avrachenkov_h2_variance(a1, a2, 0.9))))
    ok_var = (prints_as(TEXT, vals[0][2], "0.431") and prints_as(TEXT, vals[1][2], "5.798")
              and all(close(v[2], v[3], CLOSED_FORM_REL) for v in vals))
    return Outcome.judge(same and ok_var, f"derived alpha_2 == printed: {same}; (alpha_2, mean, var (PH), var (closed form)) at "
                                           f"alpha_1 = 1.521, 9: {[tuple(round(x, 6) for x in v) for v in vals]} vs printed var 0.431, 5.798 "
                                           f"(b_1 = {b1:.9g}, the exact mean of the example's service)")


def _hyper_variance_mp(alpha1: float, mean: float, p1: float = 0.9):
    """Variance of the two-phase hyperexponential of `bmap_figures.hyperexponential`, in 40-digit mpmath from the same
    inputs (alpha_2 from the mean: p1/alpha1 + (1 - p1)/alpha2 = mean; var = 2 sum p_i/alpha_i^2 - mean^2): the second
    route for the printed variances."""
    with mpmath.workdps(40):
        a1, m, q = mpmath.mpf(repr(float(alpha1))), mpmath.mpf(repr(float(mean))), mpmath.mpf(repr(float(p1)))
        a2 = (1 - q) / (m - q / a1)
        return 2 * (q / a1**2 + (1 - q) / a2**2) - m**2


def _variance_checked(ph, alpha1: float, mean: float) -> tuple[float, float]:
    """(float variance, error bound): the float64 PH variance and the mpmath closed form must agree."""
    v, hp = ph.variance, _hyper_variance_mp(alpha1, mean)
    err = abs(v - float(hp)) + 1e-15 * abs(v)  # and the float64 rounding of v (a few ulps)
    if err > FLOAT_REL * abs(v):
        raise SolverError(f"variance at alpha_1 = {alpha1}: PH route {v!r} vs closed form {mpmath.nstr(hp, 20)}")
    return v, err


@claim(f"{P}.figure-4.text", source=src("§7", "Figure 4 text"), method=Method.NUMERIC_HP,
       statement="Hyperexponential obsolescence with g_1 = 5: the variance runs from 25 to 449 for alpha_1 in [0.2, 7], and the optimal "
                 "threshold (modes 3, 1) decreases from 2 to 0 as the variance grows.")
def _fig4():
    base = example(5)
    var, best, notes, certain = [], [], [], True
    for a in (0.2, 0.5, 1, 3, 7):
        ph = hyperexponential(a, base.obsolescence.mean)
        v, err = _variance_checked(ph, a, base.obsolescence.mean)
        m = base.with_(obsolescence=ph)
        arg = bm.certified_optimum(m, bm.optimize(m, (3, 1), convention="strict"))
        var.append((v, err))
        best.append(arg.label[0])
        certain &= arg.decided
        notes.append(f"alpha_1 = {a}: var {v:.6g} ± {err:.1e}, j = {arg.label[0]} ({arg.summary()})")
    ends = [(var[0], "25"), (var[-1], "449")]
    ok = all(prints_as(TEXT, v, p) for (v, _), p in ends) and best[0] == 2 and best[-1] == 0 and best == sorted(best, reverse=True)
    certain &= all(margin_ok(TEXT, v, p, e) for (v, e), p in ends)
    return Outcome.judge(ok, f"variance {[round(v, 2) for v, _ in var]} (printed 25 .. 449), optimal threshold {best}; "
                             + "; ".join(notes) + ("" if certain else "; not certain: at alpha_1 = 0.2 the hyperexponential is "
                                                   "Exp(1/g_1), whose variance g_1^2 = 25 sits exactly on the truncation boundary "
                                                   "of the printed 25"), certain=certain)


@claim(f"{P}.figure-2.text", source=src("§7", "Figures 2-3 text"), method=Method.NUMERIC_HP, slow=True,
       statement="Hyperexponential service with b_1 fixed: var_s = 3.415 at alpha_1 = 4; modes (3, 1) are optimal below, (4, 1) above.")
def _fig2():
    base = example(5)
    b1 = base.service.mean
    v4, err4 = _variance_checked(hyperexponential(4.0, b1), 4.0, b1)
    modes, notes, certain = {}, [], margin_ok(TEXT, v4, "3.415", err4)
    for a in (1.521, 3, 5, 7, 9):
        m = base.with_(service=hyperexponential(a, b1))
        opts = {pair: bm.optimize(m, pair, convention="strict") for pair in itertools.combinations(range(m.N, 0, -1), 2)}
        arg = certified_best(lambda opts=opts: opts, m)
        modes[a] = arg.label[0]
        certain &= arg.decided
        notes.append(f"alpha_1 = {a}: modes {arg.label[0]}, thresholds {arg.label[1]} ({arg.summary()})")
    ok = prints_as(TEXT, v4, "3.415") and all(modes[a] == (3, 1) for a in modes if a < 4) and all(modes[a] == (4, 1) for a in modes if a > 4)
    return Outcome.judge(ok, f"var_s(alpha_1 = 4) = {v4:.6g} ± {err4:.1e} (printed 3.415); best two-mode set per alpha_1 "
                             f"(certified argmin over all pairs and thresholds): " + "; ".join(notes)
                             + ("" if certain else "; not certain: an argmin or a printed digit is undecided within its bound"),
                         certain=certain)
