"""Buijsrogge (2014), Chapter 3: the expected number of colours at t = K (Lemma 3.2.1, Corollary 3.2.1, eq. (3.2)) and
Theorem 3.2.1 (uniform p maximises it) with the Lagrangian of its proof.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

from ....derive import buijsrogge as d
from ....numeric import colours as nc
from ....numeric.tolerance import matches_printed
from ...registry import Method, Outcome, claim
from ._common import K_, is_zero, src


@claim("buijsrogge.colours.lemma-3.2.1", source=src("§3.2", "Lemma 3.2.1, eq. (3.1)"),
       statement="E[colours at t=K] = C - sum_i (1-p_i)^K", method=Method.NUMERIC_HP)
def _lemma_321() -> Outcome:
    # route 1: (3.1); route 2: exact enumeration of all C^K draw sequences (rational p)
    p = [Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)]
    K = 5
    formula = d.expected_colours_at_K([sp.Rational(x.numerator, x.denominator) for x in p], K)
    brute = Fraction(0)
    for seq in itertools.product(range(3), repeat=K):
        pr = Fraction(1)
        for c in seq:
            pr *= p[c]
        brute += pr * len(set(seq))
    ok = sp.Rational(brute.numerator, brute.denominator) == formula
    return Outcome.judge(ok, f"(3.1) = {formula}, enumeration of 3^5 sequences = {brute} (p = 1/2, 1/3, 1/6; K = 5)")


@claim("buijsrogge.colours.cor-3.2.1", source=src("§3.2", "Corollary 3.2.1"),
       statement="uniform p: E[colours at t=K] = C(1-(1-1/C)^K)", method=Method.SYMBOLIC)
def _cor_321() -> Outcome:
    ok = all(is_zero(d.expected_colours_at_K([sp.Rational(1, c)] * c, k) - d.expected_colours_uniform(k, c))
             for c in range(1, 7) for k in range(1, 7))
    return Outcome.judge(ok, "Lemma 3.2.1 with p_i = 1/C equals C(1-(1-1/C)^K) for all K, C <= 6 exactly")


@claim("buijsrogge.colours.eq-3.2", source=src("§3.2", "eq. (3.2)"),
       statement="C = K: K(1-(1-1/K)^K) = 0.6321K + 1/(2e) + O(1/K); next term 5/(24eK)", method=Method.SYMBOLIC)
def _eq_32() -> Outcome:
    ser = d.expansion_C_equals_K(2)
    want = K_ * (1 - sp.exp(-1)) + sp.exp(-1) / 2 + sp.Rational(5, 24) * sp.exp(-1) / K_
    sym_ok = is_zero(ser - want)
    lead_ok = matches_printed(float(1 - sp.exp(-1)), "0.6321")
    with mpmath.workdps(40):
        k = mpmath.mpf(10) ** 4
        exact = k * (1 - (1 - 1 / k) ** k)
        rem = exact - (k * (1 - mpmath.e ** -1) + mpmath.e ** -1 / 2 + 5 / (24 * mpmath.e * k))
        rem_ok = abs(rem) * k**2 < 1
    return Outcome.judge(sym_ok and lead_ok and rem_ok,
                         f"series {ser}; 1-1/e = {float(1 - sp.exp(-1)):.6f} ~ 0.6321; remainder at K=1e4 is "
                         f"{mpmath.nstr(rem, 3)} = O(1/K^2)")


@claim("buijsrogge.colours.thm-3.2.1-gradient", source=src("§3.2", "Theorem 3.2.1, proof"),
       statement="Lagrangian: dΛ/dp_i = (K-1)(1-p_i)^(K-1) + λ as printed", method=Method.SYMBOLIC)
def _thm_321_grad() -> Outcome:
    g, p = d.lagrangian_gradient()
    printed = (K_ - 1) * (1 - p) ** (K_ - 1)
    corrected = K_ * (1 - p) ** (K_ - 1)
    if is_zero(g - corrected) and not is_zero(g - printed):
        return Outcome.erratum_(
            "d/dp_i of C - sum(1-p_i)^K is K(1-p_i)^(K-1), not (K-1)(1-p_i)^(K-1); the conclusion p_i = 1/C is unaffected "
            "(the factor is the same for every i)",
            printed="dΛ/dp_i = (K-1)(1-p_i)^{K-1} + λ", corrected="dΛ/dp_i = K(1-p_i)^{K-1} + λ",
            evidence=f"sympy.diff gives {g}")
    return Outcome.failed(f"derivative {g} matches neither form")


@claim("buijsrogge.colours.thm-3.2.1", source=src("§3.2", "Theorem 3.2.1"),
       statement="uniform p maximises E[colours at t=K]", method=Method.NUMERIC_HP)
def _thm_321() -> Outcome:
    # the objective is a sum of concave functions of p_i (second derivative -K(K-1)(1-p)^(K-2) < 0),
    # so the stationary point of the Lagrangian is the global maximum; check with random p too.
    p = sp.Symbol("p", positive=True)
    h = sp.diff(-(1 - p) ** K_, p, 2)
    concave = is_zero(h + K_ * (K_ - 1) * (1 - p) ** (K_ - 2))
    rng = np.random.default_rng(321)
    worst = -math.inf
    for C in (2, 5, 50, 1000):
        u = nc.initial_expected(np.full(C, 1 / C), 100)
        for _ in range(50):
            q = rng.dirichlet(np.full(C, rng.choice([0.2, 1.0, 10.0])))
            worst = max(worst, nc.initial_expected(q, 100) - u)
    return Outcome.judge(concave and worst <= 0,
                         f"second derivative {h} < 0 (concave); 200 random p at K=100: max excess over uniform {worst:.3g}")
