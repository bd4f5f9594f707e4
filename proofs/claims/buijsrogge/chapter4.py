"""Claims of Buijsrogge (2014), Chapters 3–8: the BUbiNG workbench colours.

Ids: ``buijsrogge.colours.*`` (Ch. 3–5, no offline structure) and
``buijsrogge.exact.*`` (the exact chain and its product form, new here).
Chapters 7–8 (strategies, Tables 7.x and 8.x) are in
:mod:`crawlmath.proofs.claims.buijsrogge_offline`.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

from ...derive import buijsrogge as d
from ...numeric.colours import _workbench as nc
from ...numeric.colours._sim import simulate
from ...numeric.generated import buijsrogge as gen
from ...numeric.tolerance import FLOAT_REL, SIMULATION_SIGMAS, digits_agreed, matches_printed
from ..cells import Hypothesis, Printing, convention, judge_cell
from ..registry import Method, Outcome, Source, claim

K_, C_, S_, i_ = d.K, d.C, d.S, d.i


def src(section: str, ref: str) -> Source:
    """A :class:`Source` in Buijsrogge (section, reference)."""
    return Source("buijsrogge", section, ref)


def _zero(expr) -> bool:
    return sp.simplify(expr) == 0


# --------------------------------------------------------------------------- Chapter 3


@claim("buijsrogge.colours.lemma-3.2.1", source=src("§3.2", "Lemma 3.2.1, eq. (3.1)"),
       statement="E[colours at t=K] = C - sum_i (1-p_i)^K", method=Method.NUMERIC_HP)
def _lemma_321() -> Outcome:
    # route 1: (3.1); route 2: exact enumeration of all C^K draw sequences (rational p)
    p = [Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)]
    K = 5
    formula = d.expected_colours_at_K([sp.Rational(x.numerator, x.denominator) for x in p], K)
    import itertools

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
    ok = all(_zero(d.expected_colours_at_K([sp.Rational(1, c)] * c, k) - d.expected_colours_uniform(k, c))
             for c in range(1, 7) for k in range(1, 7))
    return Outcome.judge(ok, "Lemma 3.2.1 with p_i = 1/C equals C(1-(1-1/C)^K) for all K, C <= 6 exactly")


@claim("buijsrogge.colours.eq-3.2", source=src("§3.2", "eq. (3.2)"),
       statement="C = K: K(1-(1-1/K)^K) = 0.6321K + 1/(2e) + O(1/K); next term 5/(24eK)", method=Method.SYMBOLIC)
def _eq_32() -> Outcome:
    ser = d.expansion_C_equals_K(2)
    want = K_ * (1 - sp.exp(-1)) + sp.exp(-1) / 2 + sp.Rational(5, 24) * sp.exp(-1) / K_
    sym_ok = _zero(ser - want)
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
    if _zero(g - corrected) and not _zero(g - printed):
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
    concave = _zero(h + K_ * (K_ - 1) * (1 - p) ** (K_ - 2))
    rng = np.random.default_rng(321)
    worst = -math.inf
    for C in (2, 5, 50, 1000):
        u = nc.initial_expected(np.full(C, 1 / C), 100)
        for _ in range(50):
            q = rng.dirichlet(np.full(C, rng.choice([0.2, 1.0, 10.0])))
            worst = max(worst, nc.initial_expected(q, 100) - u)
    return Outcome.judge(concave and worst <= 0,
                         f"second derivative {h} < 0 (concave); 200 random p at K=100: max excess over uniform {worst:.3g}")


# --------------------------------------------------------------------------- Chapter 4


def _exact_drift_from_chain(K: int, C: int):
    """Exact E[N(i,t+1)-N(i,t) | state] from the transition list (Fractions)."""
    parts, rows, cols, probs = nc.uniform_transitions(K, C, exact=True)

    def occ(q):
        v = [0] * (K + 1)
        for x in q:
            v[x] += 1
        v[0] = C - len(q)
        return v

    drift = {n: [Fraction(0)] * (K + 1) for n in range(len(parts))}
    for r, c, pr in zip(rows, cols, probs):
        a, b = occ(parts[r]), occ(parts[c])
        for k in range(K + 1):
            drift[r][k] += pr * (b[k] - a[k])
    return parts, drift


@claim("buijsrogge.colours.eq-4.1", source=src("§4.2", "Theorem 4.2.1 proof, eq. (4.1)"),
       statement="the expectation equations (4.1) equal the exact one-step drift of the chain", method=Method.NUMERIC_HP)
def _eq_41() -> Outcome:
    checked = 0
    for K, C in ((2, 2), (3, 2), (4, 3), (5, 5), (6, 4), (7, 9)):
        parts, drift = _exact_drift_from_chain(K, C)
        for n, q in enumerate(parts):
            occ = {}
            for x in q:
                occ[x] = occ.get(x, 0) + 1
            pr = d.printed_drift_4_1(occ, K, sp.Integer(C))
            for k in range(K + 1):
                want = drift[n][k]
                if sp.Rational(want.numerator, want.denominator) != pr[k]:
                    return Outcome.failed(f"K={K}, C={C}, state {q}, i={k}: (4.1) gives {pr[k]}, chain gives {want}")
                checked += 1
    # all K: the drift the model's rules give (derive.buijsrogge.drift_lines) minus the printed lines
    r0, r1, ri, rK = d.printed_lines_residuals()
    if (r0, r1, ri) != (0, 0, 0) or not _zero(rK.subs(S_, 1)):
        return Outcome.failed(f"derived drift minus printed (4.1), lines 0, 1, i, K: {r0}, {r1}, {ri}, {rK}")
    return Outcome.passed(f"{checked} (state, i) pairs, K <= 7: (4.1) equals the exact drift in rationals; for all K the "
                          "drift derived from the rules equals the printed lines i = 0, 1, 2..K-1 identically. The printed "
                          f"i = K line lacks -E[N(K)]/C and has 1/C instead of 2/C: derived minus printed = {rK}, zero on "
                          "reachable states (N(K) = 1 forces S = 1)")


@claim("buijsrogge.colours.eq-4.2-4.4", source=src("§4.2", "eqs. (4.2)-(4.4)"),
       statement="stationary mean-field equations give the recursions (4.2), (4.3), (4.4)", method=Method.SYMBOLIC)
def _eq_42_44() -> Outcome:
    (e0, e1, ei, eK), (n0, n1, n2) = d.printed_mean_field_equations()
    nu0 = C_ - S_
    r42 = sp.solve(e0, n1)[0]
    ok42 = _zero(r42 - S_ * (C_ - S_) / (C_ - 1))
    r43 = sp.solve(e1, n2)[0]
    ok43 = _zero(r43 - ((C_ + S_ - 2) / (C_ - 1) * n1 - S_ / (C_ - 1) * nu0))
    r44 = sp.solve(ei, n2)[0]
    ok44 = _zero(r44 - ((C_ + S_ - 2) / (C_ - 1) * n1 - (S_ - 1) / (C_ - 1) * n0))
    r44K = sp.solve(eK, n1)[0]
    ok44K = _zero(r44K - (S_ - 1) / (C_ - 1) * n0)
    ok = ok42 and ok43 and ok44 and ok44K
    return Outcome.judge(ok, f"nu(1) = {sp.factor(r42)}; nu(2) = {sp.simplify(r43)}; nu(i+1) = {sp.simplify(r44)}; "
                         f"nu(K) = {sp.factor(r44K)}: (4.2) {ok42}, (4.3) {ok43}, (4.4) {ok44}/{ok44K}")


@claim("buijsrogge.colours.thm-4.2.1-nu", source=src("§4.2", "Theorem 4.2.1 proof (induction)"),
       statement="nu(i) = (C-S) S/(C-1) ((S-1)/(C-1))^(i-1) solves (4.2)-(4.4)", method=Method.SYMBOLIC)
def _thm_421_nu() -> Outcome:
    (e0, e1, ei, eK), (n0, n1, n2) = d.printed_mean_field_equations()
    nu = d.nu_printed
    ok = _zero(e0.subs(n1, nu(1))) and _zero(e1.subs({n1: nu(1), n2: nu(2)}))
    for k in range(2, 9):
        ok = ok and _zero(ei.subs({n0: nu(k - 1), n1: nu(k), n2: nu(k + 1)}))
    ok = ok and _zero(eK.subs({n0: nu(7), n1: nu(8)}))
    # general i: the recursion's characteristic roots are 1 and (S-1)/(C-1)
    x = sp.Symbol("x")
    roots = set(sp.solve((C_ - 1) * x**2 - (C_ + S_ - 2) * x + (S_ - 1), x))
    ok_roots = roots == {sp.Integer(1), (S_ - 1) / (C_ - 1)} or all(
        any(_zero(r - w) for r in roots) for w in (1, (S_ - 1) / (C_ - 1)))
    return Outcome.judge(ok and ok_roots, f"residuals vanish for i = 1..8 and the K-line; characteristic roots {sorted(roots, key=sp.default_sort_key)}")  # sorted: a set prints in hash order


@claim("buijsrogge.colours.thm-4.2.1", source=src("§4.2", "Theorem 4.2.1"),
       statement="normalisation sum i nu(i) = K gives S = KC/(K+C-1), P_new = (C-1)/(K+C-1)", method=Method.SYMBOLIC)
def _thm_421() -> Outcome:
    sols = d.normalisation_S()
    okS = len(sols) == 1 and _zero(sols[0] - K_ * C_ / (K_ + C_ - 1))
    okP = _zero(d.mean_field_p_new() - (C_ - 1) / (K_ + C_ - 1))
    # consistency: sum_{i>=1} nu(i) with the infinite geometric series returns S itself
    xx = (S_ - 1) / (C_ - 1)
    okSum = _zero((C_ - S_) * S_ / (C_ - 1) / (1 - xx) - S_)
    f = float(gen.mean_field_colours(100, 1000))
    return Outcome.judge(okS and okP and okSum, f"roots of the normalisation: {sols}; P_new = (C-1)/(K+C-1) {okP}; "
                         f"sum nu(i) = S {okSum}; generated code at K=100, C=1000: {f:.6f}")


@claim("buijsrogge.colours.cor-4.2.1", source=src("§4.2", "Corollary 4.2.1"),
       statement="E[N(i)] ~ K C^2 (K-1)^(i-1) / (K+C-1)^(i+1)", method=Method.SYMBOLIC)
def _cor_421() -> Outcome:
    expr = d.nu_printed(i_, K_ * C_ / (K_ + C_ - 1), C_)
    ok = all(_zero(expr.subs(i_, k) - d.mean_field_nu(k)) for k in range(1, 8))
    # all i by induction: equal at i = 1 and equal ratios nu(i+1)/nu(i)
    S0 = K_ * C_ / (K_ + C_ - 1)
    ok = ok and _zero((S0 - 1) / (C_ - 1) - (K_ - 1) / (K_ + C_ - 1))
    return Outcome.judge(ok, "nu(i) at S = KC/(K+C-1) equals KC^2(K-1)^(i-1)/(K+C-1)^(i+1) for i = 1..7, and for all i "
                         "by induction (same nu(1), same ratio (S-1)/(C-1) = (K-1)/(K+C-1))")


@claim("buijsrogge.colours.cor-4.2.2", source=src("§4.2", "Corollary 4.2.2"),
       statement="C -> infinity: colours -> K, P_new -> 1", method=Method.SYMBOLIC)
def _cor_422() -> Outcome:
    a = sp.limit(d.mean_field_colours(), C_, sp.oo)
    b = sp.limit(d.mean_field_p_new(), C_, sp.oo)
    return Outcome.judge(a == K_ and b == 1, f"limits {a}, {b}")


@claim("buijsrogge.colours.cor-4.2.3", source=src("§4.2", "Corollary 4.2.3"),
       statement="K, C scaled by a: colours ~ a KC/(K+C), P_new ~ C/(K+C)", method=Method.SYMBOLIC)
def _cor_423() -> Outcome:
    a = sp.Symbol("a", positive=True)
    s = d.mean_field_colours(a * K_, a * C_)
    rel = sp.simplify(s / (a * K_ * C_ / (K_ + C_)) - 1)
    lead = sp.limit(rel * a * (K_ + C_), a, sp.oo)
    pn = sp.limit(sp.simplify(d.mean_field_p_new(a * K_, a * C_)), a, sp.oo)
    ok = lead == 1 and _zero(pn - C_ / (K_ + C_))
    return Outcome.judge(ok, f"relative error x a(K+C) -> {lead} (so O(1/(a(K+C)))); P_new -> {pn}")


@claim("buijsrogge.colours.cor-4.2.4-nu", source=src("§4.2", "Corollary 4.2.4"),
       statement="C = K: E[N(i)] ~ (K+1)/2^(i+1)", method=Method.SYMBOLIC)
def _cor_424_nu() -> Outcome:
    got = {k: d.nu_C_equals_K_expansion(k) for k in range(1, 5)}
    printed = {k: (K_ + 1) / 2 ** (k + 1) for k in got}
    corrected = {k: K_ / 2 ** (k + 1) + sp.Rational(3 - k, 2 ** (k + 2)) for k in got}
    ok_corr = all(_zero(got[k] - corrected[k]) for k in got)
    wrong = [k for k in got if not _zero(got[k] - printed[k])]
    with mpmath.workdps(30):
        k6 = mpmath.mpf(10) ** 6
        num = {k: gen.mean_field_nu_mp(k, k6, k6) - k6 / 2 ** (k + 1) for k in got}
    ev = ", ".join(f"i={k}: nu-K/2^(i+1) = {mpmath.nstr(num[k], 6)}" for k in got)
    if ok_corr and wrong:
        return Outcome.erratum_(
            f"expansion wrong at O(1) for i = {wrong}: the step ((K-1)/(2K-1))^(i-1) = (1/2)^(i-1)(1 - O(1/K)) drops a "
            "term that K multiplies into O(1); right at i = 1 only", printed="E[N(i)] ≈ (K+1)/2^{i+1} + O(1/K)",
            corrected="E[N(i)] ≈ K/2^{i+1} + (3-i)/2^{i+2} + O(1/K)", evidence=f"sympy series; at K = 10^6 {ev}")
    return Outcome.judge(ok_corr and not wrong, f"series {got}")


@claim("buijsrogge.colours.cor-4.2.4-colours", source=src("§4.2", "Corollary 4.2.4"),
       statement="C = K: colours ~ K/2 + 1/4", method=Method.SYMBOLIC)
def _cor_424_s() -> Outcome:
    u = sp.Symbol("u", positive=True)
    ser = sp.series(d.mean_field_colours(1 / u, 1 / u), u, 0, 1).removeO().subs(u, 1 / K_)
    return Outcome.judge(_zero(ser - (K_ / 2 + sp.Rational(1, 4))), f"K^2/(2K-1) = {ser} + O(1/K)")


@claim("buijsrogge.colours.cor-4.2.4-pnew", source=src("§4.2", "Corollary 4.2.4 proof"),
       statement="C = K: P_new = (C-1)/(K+C) = 1/2 - 1/(2K)", method=Method.SYMBOLIC)
def _cor_424_p() -> Outcome:
    thm = d.mean_field_p_new(K_, K_)
    u = sp.Symbol("u", positive=True)
    ser = sp.series(thm.subs(K_, 1 / u), u, 0, 2).removeO().subs(u, 1 / K_)
    printed = sp.Rational(1, 2) - 1 / (2 * K_)
    if _zero(ser - (sp.Rational(1, 2) - 1 / (4 * K_))) and not _zero(thm - printed):
        return Outcome.erratum_(
            "the proof uses the denominator K+C instead of Theorem 4.2.1's K+C-1; the limit 1/2 of the statement holds, "
            "the 1/K term is 1/(4K), not 1/(2K)", printed="P_new = (C-1)/(K+C) = (K-1)/(2K) = 1/2 - 1/(2K)",
            corrected="P_new = (C-1)/(K+C-1) = (K-1)/(2K-1) = 1/2 - 1/(4K) + O(1/K^2)",
            evidence=f"Theorem 4.2.1 at C = K gives {sp.factor(thm)}, series {ser}")
    return Outcome.failed(f"series {ser}")


@claim("buijsrogge.colours.super-colour", source=src("§4.3.2", "super colours"),
       statement="the super colour dominates the online structure when p* > E[1/S] (> 1/K), and no longer when "
                 "p* < E[1/S]", method=Method.NUMERIC_HP, slow=True)
def _super() -> Outcome:
    # In stationarity colour i leaves at rate E[1{q_i > 0}/S] and enters at rate p_i, so p_i = E[1{q_i>0}/S] <= E[1/S]:
    # the printed criterion can never hold.  From the product form E[1/S] = h_K/h_{K-1} (numeric/colours/_workbench.py), and
    # P(colour i absent)/K <= E[1{q_i = 0}/S] = E[1/S] - p_i gives P(absent) <= K (E[1/S] - p_i).
    load = sp.simplify(d.super_colour_load(1 / C_, d.mean_field_colours()))
    uniform_ok = _zero(load - K_ / (K_ + C_ - 1))
    K, rows, dominated, printed_fires = 1000, [], True, False
    for gamma, C in (("1.1", 100_000), ("1.0", 10_000)):
        ex = nc.exact_stationary(nc.colour_distribution("powerlaw", C, float(gamma)), K)
        gap = ex.inverse_colours_ball - ex.p_max_ball  # E[1/S] - p*, a ball
        printed_fires = printed_fires or bool(gap < 0)  # the balls would contradict the rate-balance identity
        absent = K * float(gap.upper())
        dominated = dominated and absent < 1e-6 and ex.colours < 0.05 * K
        rows.append(f"γ = {gamma}, C = {C}: E[S] = {ex.colours:.4f}, p* = {float(ex.p_max_ball.mid()):.15f}, E[1/S] = "
                    f"{float(ex.inverse_colours_ball.mid()):.15f}, 0 <= E[1/S] − p* <= {float(gap.upper()):.2e} "
                    f"(balls at {ex.prec} bits), so P(super colour absent) <= {absent:.2e}")
    uni = nc.exact_stationary(np.full(1000, 1e-3), K)
    rows.append(f"uniform C = K = 1000: p*/E[1/S] = {float((uni.p_max_ball / uni.inverse_colours_ball).mid()):.6f} "
                f"= K/(K+C-1) = {K / (2 * K - 1):.6f} (symbolic: p·S at the mean field = {load})")
    evidence = "; ".join(rows)
    if printed_fires or not (dominated and uniform_ok):
        return Outcome.failed("exact product form, K = 1000: " + evidence)
    return Outcome.erratum_(
        "exact product form (arb balls, 30+ digits), K = 1000: " + evidence + ". The super colour dominates (it is "
        "online with probability 1 − O(1e-40) and E[S] is small) while p* <= E[1/S]: the printed criterion never "
        "holds in stationarity (rate balance p_i = E[1{q_i>0}/S] <= E[1/S]); what marks domination is p* = E[1/S] "
        "up to a gap below 1e-43 (E[1/S] at γ = 1.1, C = 1e5 is cross-checked by the series route in "
        "buijsrogge.colours.exact-two-routes)",
        printed="the super colour dominates when p* > E[1/S] > 1/K; not when p* < E[1/S]",
        corrected="in stationarity p* <= E[1/S] always (p_i = E[1{q_i>0}/S]); the super colour dominates when "
                  "E[1/S] − p* is small, since P(it is absent) <= K (E[1/S] − p*)",
        evidence=evidence)


# --------------------------------------------------------------------------- §4.3.1, heterogeneous colours


def _compositions(K: int, C: int):
    return [q for q in itertools.product(range(K + 1), repeat=C) if sum(q) == K]


def _occupancy(q, K: int) -> list[int]:
    """N(i) = #{colours with i balls}, i = 0..K+1 (N(K+1) = 0)."""
    N = [0] * (K + 2)
    for x in q:
        N[x] += 1
    return N


def _chain_laws(q, p, K: int) -> dict:
    """Exact law of N(i, t+1) - N(i, t) from the state q, for every i, built
    from the game's rules (removal uniform over the colours present, then a
    draw from p): ``{i: {change: probability}}``."""
    present = [j for j, n in enumerate(q) if n]
    N0 = _occupancy(q, K)
    laws: dict = {i: {} for i in range(K + 1)}
    for j in present:
        q1 = list(q)
        q1[j] -= 1
        for c, pc in enumerate(p):
            q2 = list(q1)
            q2[c] += 1
            N2 = _occupancy(q2, K)
            for i in range(K + 1):
                laws[i][N2[i] - N0[i]] = laws[i].get(N2[i] - N0[i], 0) + pc / len(present)
    return laws


def _masses(q, p, K: int) -> list:
    """Σ_{j in M(i)} p_j, i = 0..K+1."""
    return [sum((p[c] for c in range(len(q)) if q[c] == i), sp.Integer(0)) for i in range(K + 2)]


def _printed_laws_431(q, p, K: int) -> dict:
    """The transition laws of §4.3.1 for N(0), N(1) and N(K), as printed
    (the N(i), 2 <= i <= K-1, law is not legible in the seed text)."""
    N, M = _occupancy(q, K), _masses(q, p, K)
    S = sum(N[1:K + 1])
    f = lambda a: sp.Rational(a, S)  # noqa: E731  (a count over S)
    law0 = {-1: (1 - f(N[1])) * M[0], 0: (1 - f(N[1])) * (1 - M[0]) + f(N[1]) * M[0] + M[1] / S,
            1: f(N[1]) * (1 - M[0]) - M[1] / S}
    law1 = {-2: f(N[1] - 1) * M[1], -1: f(N[1]) * (1 - M[0] - M[1]) + (1 - f(N[1] + N[2])) * M[1],
            0: f(N[1]) * M[0] + M[1] / S + (1 - f(N[1] + N[2])) * (1 - M[0] - M[1]) + f(N[2]) * M[1] + M[2] / S,
            1: (1 - f(N[1] + N[2])) * M[0] + f(N[2]) * (1 - M[0] - M[1]) - M[2] / S, 2: f(N[2]) * M[0]}
    lawK = {-1: f(N[K]) * (1 - M[K - 1]) - M[K] / S,
            0: f(N[K]) * M[K - 1] + M[K] / S + (1 - f(N[K - 1] + N[K])) * (1 - M[K - 1])
            + f(N[K - 1]) * (1 - M[K - 1]) + M[K - 1] / S,
            1: (1 - f(N[K - 1] + N[K])) * M[K - 1] + f(N[K - 1] - 1) * M[K - 1]}
    return {0: law0, 1: law1, K: lawK}


def _printed_drift_431(q, p, K: int) -> list:
    """E[N(i,t+1) - N(i,t) | state] for i = 0..K as printed at the end of §4.3.1."""
    N, M = _occupancy(q, K), _masses(q, p, K)
    S = sum(N[1:K + 1])
    out = [sp.Rational(N[1], S) - M[0] - M[1] / S,
           M[0] - M[1] - M[2] / S + 2 * M[1] / S + sp.Rational(N[2] - N[1], S)]
    for i in range(2, K):
        out.append(M[i - 1] - M[i] - M[i + 1] / S + 2 * M[i] / S - M[i - 1] / S + sp.Rational(N[i + 1] - N[i], S))
    out.append(M[K - 1] + M[K] / S - M[K - 1] / S - sp.Rational(N[K], S))
    return out


_SIZES_431 = ((3, 3), (4, 3), (3, 4), (5, 2), (4, 4))


def _check_431(compare) -> tuple[int, list]:
    """Run ``compare(q, p, K, exact_laws, sum-1 substitution)`` on every state of the sizes above."""
    checked, bad = 0, []
    for K, C in _SIZES_431:
        p = sp.symbols(f"p1:{C + 1}", positive=True)
        sub = {p[-1]: 1 - sum(p[:-1])}
        for q in _compositions(K, C):
            checked += 1
            bad += [(K, C, q, what) for what in compare(q, p, K, _chain_laws(q, p, K), sub)]
    return checked, bad


def _differs(a, b, sub) -> bool:
    return sp.expand((a - b).subs(sub)) != 0


@claim("buijsrogge.colours.sec-4.3.1-transitions", source=src("§4.3.1", "transition laws of N(0), N(1), N(K)"),
       statement="the printed heterogeneous transition probabilities of N(0), N(1) and N(K) equal the chain's",
       method=Method.SYMBOLIC)
def _sec431_laws() -> Outcome:
    def compare(q, p, K, exact, sub):
        out = []
        for i, law in _printed_laws_431(q, p, K).items():
            out += [f"N({i}) change {d}" for d in set(law) | set(exact[i])
                    if _differs(law.get(d, 0), exact[i].get(d, 0), sub)]
        return out

    checked, bad = _check_431(compare)
    return Outcome.judge(not bad, f"{checked} states, (K, C) in {list(_SIZES_431)}, generic p_1..p_C (Σp = 1): every "
                         "printed probability of N(0), N(1), N(K) equals the law built from the rules"
                         + (f"; differences {bad[:3]}" if bad else "") + ". The N(i) law for 2 <= i <= K-1 is "
                         "garbled in the seed text and is checked through its expectation (sec-4.3.1-expectations)")


@claim("buijsrogge.colours.sec-4.3.1-expectations", source=src("§4.3.1", "expectation recurrences E[N(i,t+1)]"),
       statement="the printed heterogeneous expectation recurrences for N(0), N(1), N(i), N(K) equal the exact "
                 "one-step drift", method=Method.SYMBOLIC)
def _sec431_drift() -> Outcome:
    def compare(q, p, K, exact, sub):
        printed = _printed_drift_431(q, p, K)
        return [f"i={i}" for i in range(K + 1)
                if _differs(printed[i], sum(d * w for d, w in exact[i].items()), sub)]

    checked, bad = _check_431(compare)
    return Outcome.judge(not bad, f"{checked} states, (K, C) in {list(_SIZES_431)}, generic p: the printed recurrences "
                         "(read conditionally on the state: the thesis writes Σ_{M(i,t)} p_j outside E[...] although "
                         "it is random) equal the exact drift for every i" + (f"; differences {bad[:3]}" if bad else "")
                         + ". As for (4.1), the printed i = K line lacks -Σ_{M(K)}p and has 1/S for 2/S; the two "
                         "agree because N(K) = 1 forces S = 1")


# --------------------------------------------------------------------------- the exact chain (new)


@claim("buijsrogge.exact.product-form", source=src("§4.1", "balance equations"),
       statement="pi(q) ∝ NNZ(q) prod p_i^q_i solves the balance equations of §4.1 (any p)", method=Method.SYMBOLIC)
def _product_form() -> Outcome:
    # derived: detailed balance of the model's step for a generic move, all K, C, symbolic p
    factor = d.colour_factor(d.WorkbenchModel(draw="any"))
    derived_ok = _zero(factor - d.p_i ** d.n_)
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
    sym = _zero(ratio - (K_ * C_ - 1) / (K_ + C_ - 2))
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
        if worst > 1e-13:
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
    ok = _zero(gap - (K_ - 1) * (C_ - 1) / ((K_ + C_ - 1) * (K_ + C_ - 2)))
    a, b = sp.symbols("a b", nonnegative=True)
    bound = sp.factor(sp.Rational(1, 4) * (a + b + 1) * (a + b) - a * b)  # >= (a-b)^2/4 + (a+b)/4 >= 0
    ok = ok and _zero(sp.expand(bound - ((a - b) ** 2 / 4 + (a + b) / 4)))
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


# --------------------------------------------------------------------------- Chapter 5 numbers


CH5_TEXT = "Buijsrogge Ch. 5 text, eq. (3.1) values"
convention(CH5_TEXT, Printing.TRUNCATE,
           "the five eq. (3.1) values printed in Ch. 5 are the integer parts of (3.1): 95.21 -> 95, 796.73 -> 796, "
           "373.07 -> 373, 599.27 -> 599, 404.82 -> 404 (rounding would print 797 and 405)")


def _text_number(value: float, printed: str, error_bound: float) -> Outcome:
    return judge_cell(CH5_TEXT, printed, value, fmt=lambda v: f"{v:.4f}", error_bound=error_bound,
                      hypotheses=[Hypothesis("rounding to an integer", value, matches_printed(value, printed))])


def _fill_two_routes(p, K) -> tuple[float, float]:
    a = nc.initial_expected(p, K)
    with mpmath.workdps(30):
        b = float(len(p) - mpmath.fsum((1 - mpmath.mpf(float(x))) ** K for x in p))
    return a, b


for _id, _sec, _ref, _stmt, _dist, _C, _par, _K, _printed in (
    ("ch5.uniform-95", "§5.1.2", "text after Fig 5.4", "K=100, C=1000 uniform: 95 colours at t=K", "uniform", 1000, (), 100, "95"),
    ("ch5.exponential-796", "§5.2", "text after eq. (5.1)", "K=1000, λ=1000, C→∞ (C=4e4: tail < 1e-17): ≈796 colours at t=K", "geometric", 40_000, (1000.0,), 1000, "796"),
    ("ch5.normal-373", "§5.3", "text after Fig 5.10", "K=1000, C=1e5, μ ≥ 3σ, σ=100: 373 colours at t=K", "normal", 100_000, (1000.0, 100.0), 1000, "373"),
    ("ch5.poisson-599", "§5.4", "text after Fig 5.15", "K=1000, C=1e5, λ=55000: 599 colours at t=K", "poisson", 100_000, (55000.0,), 1000, "599"),
    ("ch5.powerlaw-404", "§5.5", "text after Fig 5.16", "K=1000, C=1e4, γ=1.1: 404 colours at t=K", "powerlaw", 10_000, (1.1,), 1000, "404"),
):
    def _make(dist=_dist, C=_C, par=_par, K=_K, printed=_printed):
        def check() -> Outcome:
            p = nc.colour_distribution(dist, C, *par)
            a, b = _fill_two_routes(p, K)
            if digits_agreed(a, b) < 10:
                return Outcome.failed(f"float64 {a!r} vs mpmath {b!r}")
            return _text_number(a, printed, error_bound=2 * abs(a - b) + 1e-9)
        return check

    claim(f"buijsrogge.colours.{_id}", source=src(_sec, _ref + ", eq. (3.1)"), statement=_stmt,
          method=Method.NUMERIC_HP)(_make())


@claim("buijsrogge.colours.ch5.exponential-0.12", source=src("§5.2", "max of g(c)"),
       statement="C = λ: max difference of exponential and uniform CDFs is 1/(e-1) + ln(1-1/e) = 0.12", method=Method.SYMBOLIC)
def _g_max() -> Outcome:
    c, lam = sp.symbols("c lambda", positive=True)
    g = (1 - sp.exp(-c / lam)) / (1 - sp.exp(-1)) - c / lam
    cstar = sp.solve(sp.diff(g, c), c)[0]
    val = sp.simplify(g.subs(c, cstar))
    ok = _zero(val - (1 / (sp.E - 1) + sp.log(1 - sp.exp(-1)))) and matches_printed(float(val), "0.12")
    return Outcome.judge(ok, f"c* = {cstar}, g(c*) = {float(val):.6f}")


@claim("buijsrogge.colours.ch5.powerlaw-0.9644", source=src("§5.5", "text after Fig 5.21"),
       statement="γ = 5, C = 1e5: the super colour has probability 0.9644", method=Method.NUMERIC_HP)
def _p1_gamma5() -> Outcome:
    a = float(nc.colour_distribution("powerlaw", 100_000, 5.0)[0])
    with mpmath.workdps(30):
        b = float(1 / (mpmath.zeta(5) - mpmath.zeta(5, 100_001)))
    return Outcome.judge(matches_printed(a, "0.9644") and digits_agreed(a, b) > 12,
                         f"p_1 = {a:.6f} (float), 1/H_C(5) = {b:.6f} (mpmath), printed 0.9644")


@claim("buijsrogge.colours.ch5.stationary-91", source=src("§5.1.2", "text after Fig 5.4"),
       statement="K=100, C=1000: ≈91 colours and P_new ≈ 91% in stationarity", method=Method.NUMERIC_HP)
def _stat_91() -> Outcome:
    mf = nc.mean_field(100, 1000)
    ex = nc.exact_stationary(nc.colour_distribution("uniform", 1000), 100)
    closed = gen.exact_colours_uniform(100, 1000)
    ok = matches_printed(mf.colours, "91") and matches_printed(100 * mf.p_new, "91") and matches_printed(ex.colours, "91")
    ok = ok and digits_agreed(ex.colours, closed) > 12
    return Outcome.judge(ok, f"mean field {mf.colours:.4f}, P_new {mf.p_new:.4f}; exact (product form, Newton) "
                         f"{ex.colours:.10f} = (KC-1)/(K+C-2) {closed:.10f}; exact P_new {ex.p_new:.4f}",
                         computed=f"{ex.colours:.4f}")


@claim("buijsrogge.colours.sim-vs-exact", source=src("§5.1.2", "Fig 5.4 (stationary level)"),
       statement="the simulator's stationary mean agrees with the exact value (K=100, C=1000, 2e6 steps)",
       method=Method.SIMULATION)
def _sim_exact() -> Outcome:
    p = nc.colour_distribution("uniform", 1000)
    sim = simulate(p, 100, 2_000_000, seed=5)
    ex = gen.exact_colours_uniform(100, 1000)
    z = (sim.mean - ex) / sim.stderr
    return Outcome.judge(abs(z) <= SIMULATION_SIGMAS, f"simulated {sim.mean:.4f} ± {sim.stderr:.4f}, exact {ex:.4f} "
                         f"(z = {z:.2f}); mean field {gen.mean_field_colours(100, 1000):.4f}")


@claim("buijsrogge.colours.exact-two-routes", source=src("§5.5", "Fig 5.16 (γ = 1.1, C = 1e5, K = 1000)"),
       statement="(our exact route at the thesis's largest size) the product-form E[S], P_new and E[1/S] agree to 30 digits "
                 "by power sums with Newton's identities and by series inversion of prod(1 - p_i t)",
       method=Method.INTERVAL, slow=True)
def _exact_two_routes() -> Outcome:
    p = nc.colour_distribution("powerlaw", 100_000, 1.1)
    a = nc.exact_stationary(p, 1000)
    b = nc.exact_stationary_series(p, 1000)
    ok = (a.colours_ball.overlaps(b.colours_ball) and a.p_new_ball.overlaps(b.p_new_ball)
          and a.inverse_colours_ball.overlaps(b.inverse_colours_ball) and min(a.digits, b.digits) >= 30)
    return Outcome.judge(ok, f"E[1/S] {float(a.inverse_colours_ball.mid()):.17f} in both routes' balls (radii "
                         f"{float(a.inverse_colours_ball.rad()):.1e}, {float(b.inverse_colours_ball.rad()):.1e}); E[S]: Newton {a.colours_ball.mid().str(32, radius=False)} ± {float(a.colours_ball.rad()):.1e} "
                         f"({a.prec} bits), series {b.colours_ball.mid().str(32, radius=False)} ± {float(b.colours_ball.rad()):.1e} "
                         f"({b.prec} bits); P_new {a.p_new:.15f} / {b.p_new:.15f}; the float64 power sums of the "
                         "previous release gave 8.2589 (p_1^k underflows for k > ~320)",
                         digits=min(a.digits, b.digits), error_bound=a.radius, certain=ok)


@claim("buijsrogge.colours.sim-vs-exact-powerlaw", source=src("§5.5", "Fig 5.16 (stationary level)"),
       statement="power law γ=1.1, K=1000, C=1e4: simulated stationary colours match the exact product form",
       method=Method.SIMULATION, slow=True)
def _sim_exact_pl() -> Outcome:
    p = nc.colour_distribution("powerlaw", 10_000, 1.1)
    sim = simulate(p, 1000, 20_000_000, seed=6)
    ex = nc.exact_stationary(p, 1000)
    z = (sim.mean - ex.colours) / sim.stderr
    return Outcome.judge(abs(z) <= SIMULATION_SIGMAS, f"simulated {sim.mean:.4f} ± {sim.stderr:.4f}, exact "
                         f"{ex.colours:.4f} (z = {z:.2f}); P_new simulated {sim.p_new_mean:.4f}, exact {ex.p_new:.4f}")
