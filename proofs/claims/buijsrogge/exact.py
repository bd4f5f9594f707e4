"""Buijsrogge (2014), Chapter 4 made exact (new here, ids ``buijsrogge.exact.*``): the product form of the closed
network's stationary law, the exact counterparts of Theorem 4.2.1 and Corollary 4.2.1, two routes to the chain,
heterogeneous colours, the mean-field error, and the conjecture that uniform colours maximise the level.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import sympy as sp

from ....derive import buijsrogge as d
from ....numeric import colours as nc
from ....numeric.generated import buijsrogge as gen
from ....numeric.tolerance import EXACT_VS_FLOAT_ABS, FLOAT_REL, digits_agreed
from ...registry import Method, Outcome, claim
from ._common import C_, K_, is_zero, src


@claim("buijsrogge.exact.product-form", source=src("§4.1", "balance equations"),
       statement="pi(q) ∝ NNZ(q) prod p_i^q_i solves the balance equations of §4.1 (any p)", method=Method.SYMBOLIC)
def _product_form() -> Outcome:
    # derived: detailed balance of the model's step for a generic move, all K, C, symbolic p
    factor = d.colour_factor(d.WorkbenchModel(draw="any"))
    derived_ok = is_zero(factor - d.p_i ** d.n_)
    # compared: the balance equations as the thesis prints them, at every state of five instances
    bad = []
    for K, C in ((2, 2), (3, 3), (2, 4), (4, 2), (3, 4)):
        bad += d.product_form_balance(K, C)
    return Outcome.judge(derived_ok and not bad,
                         f"derived from the rules (detailed balance of a generic move q -> q - e_j + e_i, all K, C, "
                         f"symbolic p): pi(q) = NNZ(q) prod_c f(q_c), f(n) = {factor}; the printed balance equations' "
                         "residual is identically 0 in generic p_1..p_C for (K, C) in (2,2),(3,3),(2,4),(4,2),(3,4)"
                         + (f"; failures {bad[:2]}" if bad else ""))


@claim("buijsrogge.exact.colours-uniform", source=src("§4.2", "Theorem 4.2.1 (exact counterpart)"),
       statement="exact stationary E[colours] = (KC-1)/(K+C-2) for uniform colours", method=Method.NUMERIC_HP)
def _exact_uniform() -> Outcome:
    es, ess, ratio = d.bose_einstein_moments()
    sym = is_zero(ratio - (K_ * C_ - 1) / (K_ + C_ - 2))
    worst = 0.0
    for K, C in ((2, 2), (4, 4), (6, 3), (8, 11), (9, 9)):
        r = nc.exact_uniform(K, C, "rational")
        if Fraction(r.colours).limit_denominator(10**6) != Fraction(K * C - 1, K + C - 2):
            return Outcome.failed(f"rational chain K={K}, C={C}: {r.colours} vs {(K * C - 1) / (K + C - 2)}")
    for K, C in ((15, 15), (20, 7), (25, 60)):
        r = nc.exact_uniform(K, C, "lu")
        worst = max(worst, abs(r.colours - gen.exact_colours_uniform(K, C)) / r.colours)
    return Outcome.judge(sym and worst < 1e3 * FLOAT_REL,
                         f"E_BE[S^2]/E_BE[S] = {ratio}; rational chain equals (KC-1)/(K+C-2) exactly for 5 (K, C) with "
                         f"K <= 9; sparse LU for K up to 25: max rel. diff {worst:.2e}",
                         digits=digits_agreed(1.0, 1.0 + worst) if worst else math.inf)


@claim("buijsrogge.exact.nu-uniform", source=src("§4.2", "Corollary 4.2.1 (exact counterpart)"),
       statement="exact stationary E[N(i)] from the product form equals the chain's, all i", method=Method.NUMERIC_HP)
def _exact_nu() -> Outcome:
    for K, C in ((3, 3), (5, 2), (6, 4), (7, 9), (9, 5)):
        r = nc.exact_uniform(K, C, "rational")
        nu = nc.exact_nu_uniform(K, C)
        worst = max(abs(float(a) - b) for a, b in zip(nu, r.nu))
        if worst > EXACT_VS_FLOAT_ABS:
            return Outcome.failed(f"K={K}, C={C}: product form {[str(x) for x in nu]} vs chain {list(r.nu)}")
    big = nc.exact_nu_uniform(1000, 1000)
    mf = nc.mean_field(1000, 1000).nu
    rows = ", ".join(f"i={k}: exact {float(big[k]):.4f}, mean field {mf[k]:.4f}, K/2^(i+1)+(3-i)/2^(i+2) "
                     f"{1000 / 2 ** (k + 1) + (3 - k) / 2 ** (k + 2):.4f}" for k in (1, 2, 3))
    return Outcome.passed(f"rational chain = closed form for 5 (K, C), K <= 9; at K = C = 1000: {rows}")


@claim("buijsrogge.exact.chain-two-routes", source=src("§4.1", "closed queueing network"),
       statement="stationary E[colours] by sparse LU and by power iteration agree (K = C = 20)", method=Method.FLOAT)
def _two_routes() -> Outcome:
    a = nc.exact_uniform(20, 20, "lu")
    b = nc.exact_uniform(20, 20, "power")
    dig = digits_agreed(a.colours, b.colours)
    return Outcome.judge(dig >= 10, f"LU {a.colours!r} (residual {a.residual:.1e}), power {b.colours!r} "
                         f"({b.iterations} iterations); closed form {gen.exact_colours_uniform(20, 20)!r}", digits=dig)


@claim("buijsrogge.exact.heterogeneous", source=src("§4.3", "heterogeneous colours"),
       statement="product-form E[colours], P_new for any p equal the chain on occupancy vectors", method=Method.NUMERIC_HP)
def _heterogeneous() -> Outcome:
    rows = []
    ok = True
    for dist, C, par, K in (("powerlaw", 5, (1.1,), 6), ("geometric", 6, (2.0,), 5), ("normal", 4, (2.0, 1.0), 7)):
        p = nc.colour_distribution(dist, C, *par)
        chain = nc.exact_general(p, K)
        pf = nc.exact_stationary(p, K)
        dg = min(digits_agreed(chain.colours, pf.colours), digits_agreed(chain.p_new, pf.p_new))
        ok = ok and dg >= 11
        rows.append(f"{dist} C={C} K={K}: chain {chain.colours:.12f} / {chain.p_new:.12f}, product form "
                    f"{pf.colours:.12f} / {pf.p_new:.12f}")
    return Outcome.judge(ok, "; ".join(rows))


@claim("buijsrogge.exact.mean-field-gap", source=src("§4.2", "Theorem 4.2.1 (mean-field error)"),
       statement="exact minus mean-field colours = (K-1)(C-1)/((K+C-1)(K+C-2)) in [0, 1/4)", method=Method.SYMBOLIC)
def _gap() -> Outcome:
    gap = sp.factor(d.exact_colours_uniform() - d.mean_field_colours())
    ok = is_zero(gap - (K_ - 1) * (C_ - 1) / ((K_ + C_ - 1) * (K_ + C_ - 2)))
    a, b = sp.symbols("a b", nonnegative=True)
    bound = sp.factor(sp.Rational(1, 4) * (a + b + 1) * (a + b) - a * b)  # >= (a-b)^2/4 + (a+b)/4 >= 0
    ok = ok and is_zero(sp.expand(bound - ((a - b) ** 2 / 4 + (a + b) / 4)))
    vals = {kc: float(gap.subs({K_: kc[0], C_: kc[1]})) for kc in ((100, 1000), (1000, 1000), (1000, 10**5))}
    return Outcome.judge(ok, f"gap {gap}; 1/4 - gap over a=K-1, b=C-1 is ((a-b)^2 + a + b)/(4(a+b+1)(a+b)) > 0; "
                         f"values {vals}")


@claim("buijsrogge.exact.uniform-maximises", source=src("§4.3.1", "conjecture after the recurrences"),
       statement="uniform p maximises the stationary E[colours] (thesis's conjecture), checked on random p",
       method=Method.NUMERIC_HP)
def _uniform_max() -> Outcome:
    rng = np.random.default_rng(431)
    worst = -math.inf
    n = 0
    for K, C in ((3, 3), (5, 4), (10, 6), (20, 10), (40, 30)):
        u = gen.exact_colours_uniform(K, C)
        for _ in range(12):
            p = rng.dirichlet(np.full(C, rng.choice([0.3, 1.0, 5.0, 50.0])))
            worst = max(worst, nc.exact_stationary(p, K, dps=20).colours - u)
            n += 1
    return Outcome.judge(worst <= 0, f"{n} random p (Dirichlet) at 5 sizes: max excess over uniform {worst:.3g} "
                         "(evidence for the conjecture, not a proof)")
