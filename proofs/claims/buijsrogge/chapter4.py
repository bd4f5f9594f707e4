"""Buijsrogge (2014), Chapter 4: the mean-field recurrences of the uniform workbench (eqs. (4.1)-(4.4), Theorem 4.2.1,
Corollaries 4.2.1-4.2.4) against the exact chain, super colours (§4.3.2), and the transition laws and expectation
recurrences of §4.3.1 (heterogeneous colours) against the chain's laws.
"""
from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

from ....derive import buijsrogge as d
from ....numeric import colours as nc
from ....numeric.generated import buijsrogge as gen
from ....numeric.tolerance import NEGLIGIBLE_PROB
from ...registry import Method, Outcome, claim
from ._common import C_, K_, S_, i_, is_zero, src


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
    if (r0, r1, ri) != (0, 0, 0) or not is_zero(rK.subs(S_, 1)):
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
    ok42 = is_zero(r42 - S_ * (C_ - S_) / (C_ - 1))
    r43 = sp.solve(e1, n2)[0]
    ok43 = is_zero(r43 - ((C_ + S_ - 2) / (C_ - 1) * n1 - S_ / (C_ - 1) * nu0))
    r44 = sp.solve(ei, n2)[0]
    ok44 = is_zero(r44 - ((C_ + S_ - 2) / (C_ - 1) * n1 - (S_ - 1) / (C_ - 1) * n0))
    r44K = sp.solve(eK, n1)[0]
    ok44K = is_zero(r44K - (S_ - 1) / (C_ - 1) * n0)
    ok = ok42 and ok43 and ok44 and ok44K
    return Outcome.judge(ok, f"nu(1) = {sp.factor(r42)}; nu(2) = {sp.simplify(r43)}; nu(i+1) = {sp.simplify(r44)}; "
                         f"nu(K) = {sp.factor(r44K)}: (4.2) {ok42}, (4.3) {ok43}, (4.4) {ok44}/{ok44K}")


@claim("buijsrogge.colours.thm-4.2.1-nu", source=src("§4.2", "Theorem 4.2.1 proof (induction)"),
       statement="nu(i) = (C-S) S/(C-1) ((S-1)/(C-1))^(i-1) solves (4.2)-(4.4)", method=Method.SYMBOLIC)
def _thm_421_nu() -> Outcome:
    (e0, e1, ei, eK), (n0, n1, n2) = d.printed_mean_field_equations()
    nu = d.nu_printed
    ok = is_zero(e0.subs(n1, nu(1))) and is_zero(e1.subs({n1: nu(1), n2: nu(2)}))
    for k in range(2, 9):
        ok = ok and is_zero(ei.subs({n0: nu(k - 1), n1: nu(k), n2: nu(k + 1)}))
    ok = ok and is_zero(eK.subs({n0: nu(7), n1: nu(8)}))
    # general i: the recursion's characteristic roots are 1 and (S-1)/(C-1)
    x = sp.Symbol("x")
    roots = set(sp.solve((C_ - 1) * x**2 - (C_ + S_ - 2) * x + (S_ - 1), x))
    ok_roots = roots == {sp.Integer(1), (S_ - 1) / (C_ - 1)} or all(
        any(is_zero(r - w) for r in roots) for w in (1, (S_ - 1) / (C_ - 1)))
    return Outcome.judge(ok and ok_roots, f"residuals vanish for i = 1..8 and the K-line; characteristic roots {sorted(roots, key=sp.default_sort_key)}")  # sorted: a set prints in hash order


@claim("buijsrogge.colours.thm-4.2.1", source=src("§4.2", "Theorem 4.2.1"),
       statement="normalisation sum i nu(i) = K gives S = KC/(K+C-1), P_new = (C-1)/(K+C-1)", method=Method.SYMBOLIC)
def _thm_421() -> Outcome:
    sols = d.normalisation_S()
    okS = len(sols) == 1 and is_zero(sols[0] - K_ * C_ / (K_ + C_ - 1))
    okP = is_zero(d.mean_field_p_new() - (C_ - 1) / (K_ + C_ - 1))
    # consistency: sum_{i>=1} nu(i) with the infinite geometric series returns S itself
    xx = (S_ - 1) / (C_ - 1)
    okSum = is_zero((C_ - S_) * S_ / (C_ - 1) / (1 - xx) - S_)
    f = float(gen.mean_field_colours(100, 1000))
    return Outcome.judge(okS and okP and okSum, f"roots of the normalisation: {sols}; P_new = (C-1)/(K+C-1) {okP}; "
                         f"sum nu(i) = S {okSum}; generated code at K=100, C=1000: {f:.6f}")


@claim("buijsrogge.colours.cor-4.2.1", source=src("§4.2", "Corollary 4.2.1"),
       statement="E[N(i)] ~ K C^2 (K-1)^(i-1) / (K+C-1)^(i+1)", method=Method.SYMBOLIC)
def _cor_421() -> Outcome:
    expr = d.nu_printed(i_, K_ * C_ / (K_ + C_ - 1), C_)
    ok = all(is_zero(expr.subs(i_, k) - d.mean_field_nu(k)) for k in range(1, 8))
    # all i by induction: equal at i = 1 and equal ratios nu(i+1)/nu(i)
    S0 = K_ * C_ / (K_ + C_ - 1)
    ok = ok and is_zero((S0 - 1) / (C_ - 1) - (K_ - 1) / (K_ + C_ - 1))
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
    ok = lead == 1 and is_zero(pn - C_ / (K_ + C_))
    return Outcome.judge(ok, f"relative error x a(K+C) -> {lead} (so O(1/(a(K+C)))); P_new -> {pn}")


@claim("buijsrogge.colours.cor-4.2.4-nu", source=src("§4.2", "Corollary 4.2.4"),
       statement="C = K: E[N(i)] ~ (K+1)/2^(i+1)", method=Method.SYMBOLIC)
def _cor_424_nu() -> Outcome:
    got = {k: d.nu_C_equals_K_expansion(k) for k in range(1, 5)}
    printed = {k: (K_ + 1) / 2 ** (k + 1) for k in got}
    corrected = {k: K_ / 2 ** (k + 1) + sp.Rational(3 - k, 2 ** (k + 2)) for k in got}
    ok_corr = all(is_zero(got[k] - corrected[k]) for k in got)
    wrong = [k for k in got if not is_zero(got[k] - printed[k])]
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
    return Outcome.judge(is_zero(ser - (K_ / 2 + sp.Rational(1, 4))), f"K^2/(2K-1) = {ser} + O(1/K)")


@claim("buijsrogge.colours.cor-4.2.4-pnew", source=src("§4.2", "Corollary 4.2.4 proof"),
       statement="C = K: P_new = (C-1)/(K+C) = 1/2 - 1/(2K)", method=Method.SYMBOLIC)
def _cor_424_p() -> Outcome:
    thm = d.mean_field_p_new(K_, K_)
    u = sp.Symbol("u", positive=True)
    ser = sp.series(thm.subs(K_, 1 / u), u, 0, 2).removeO().subs(u, 1 / K_)
    printed = sp.Rational(1, 2) - 1 / (2 * K_)
    if is_zero(ser - (sp.Rational(1, 2) - 1 / (4 * K_))) and not is_zero(thm - printed):
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
    # the printed criterion can never hold.  From the product form E[1/S] = h_K/h_{K-1} (numeric/colours/_product_form.py), and
    # P(colour i absent)/K <= E[1{q_i = 0}/S] = E[1/S] - p_i gives P(absent) <= K (E[1/S] - p_i).
    load = sp.simplify(d.super_colour_load(1 / C_, d.mean_field_colours()))
    uniform_ok = is_zero(load - K_ / (K_ + C_ - 1))
    K, rows, dominated, printed_fires = 1000, [], True, False
    for gamma, C in (("1.1", 100_000), ("1.0", 10_000)):
        ex = nc.exact_stationary(nc.colour_distribution("powerlaw", C, float(gamma)), K)
        gap = ex.inverse_colours_ball - ex.p_max_ball  # E[1/S] - p*, a ball
        printed_fires = printed_fires or bool(gap < 0)  # the balls would contradict the rate-balance identity
        absent = K * float(gap.upper())
        dominated = dominated and absent < NEGLIGIBLE_PROB and ex.colours < 0.05 * K
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
