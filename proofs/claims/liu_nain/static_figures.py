"""Claims of Liu–Nain (2005) §1.2.1 on what Figures 1.2–1.4 show, and the proof
steps (1.6) and (1.8) of Proposition 2.

Seed ``003_dde4fe79a247e1b3.txt``.  The figures are not in the extracted text,
only their captions and the sentences that cite them; each figure claim states
what the text says the figure shows and checks it on data computed from the
model (:mod:`crawlmath.numeric.static._mm1k`: float64 roots of (1.7), proved
ball-arithmetic enclosures as the second route).  The proof steps are checked
symbolically from the derived cost (1.4) and stationarity condition (1.7) of
:mod:`crawlmath.derive.static_mm1k`.

Notation: rho = N lambda/mu, C(rho, gamma, K) the cost (1.4), rho(gamma, K) its
minimiser, gamma(K) = mu(K + 2)/K, N(gamma, K) the optimal number of crawlers.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np
import sympy as sp

from ....derive import static_mm1k as d
from ....numeric import static as s
from ....numeric.generated import static_mm1k as gen
from ...registry import Method, Outcome, Source, claim

P = "liu-nain.static"
MU = 1.0
FIG_1_2_GAMMAS = np.geomspace(0.05, 100.0, 60)
FIG_1_2_KS = (2, 5, 10)  # the caption does not give K; the text says "two numerical examples"
FIG_K = np.arange(2, 101)  # Figs 1.3, 1.4: K -> rho(gamma, K)
ENCLOSED_K = (2, 3, 5, 10, 20, 50, 100)  # where the float route is checked against a proved enclosure


def src(ref: str, section: str = "§1.2.1") -> Source:
    """A :class:`Source` in Liu–Nain 2005 (reference, section; §1.2.1 by default)."""
    return Source("liu-nain", section, ref)


def _zero(expr) -> bool:
    return sp.simplify(expr) == 0


# --- Figure 1.2 ---------------------------------------------------------------------

def n_curve(lam: float, K: int) -> tuple[np.ndarray, np.ndarray]:
    """N(gamma, K) on FIG_1_2_GAMMAS by Proposition 1 (root of (1.7)) and by enumeration of n."""
    by_root = np.array([s.static_optimum(lam, MU, g, K).N_opt for g in FIG_1_2_GAMMAS])
    by_enumeration = np.array([s.brute_force_N(lam, MU, g, K, n_max=400) for g in FIG_1_2_GAMMAS])
    return by_root, by_enumeration


@claim(f"{P}.fig-1.2", source=src("Figure 1.2 and the text of §1.2.1.2"), method=Method.FLOAT,
       statement="Figure 1.2 (gamma -> N(gamma, K), 1/lambda = 0.6, mu = 1) shows the optimal number of crawlers nondecreasing in gamma.")
def _fig_1_2():
    # Growth (rho -> oo, Proposition 2) is row prop-2; over this gamma range N may stay at 1 (lambda = 1/0.6, K = 10).
    rows, ok = [], True
    for reading, lam in (("lambda = 1/0.6 (caption as printed)", 1 / 0.6), ("lambda = 0.6", 0.6)):
        for K in FIG_1_2_KS:
            root, enum = n_curve(lam, K)
            agree = bool(np.array_equal(root, enum))
            mono = bool(np.all(np.diff(root) >= 0))
            ok &= agree and mono
            rows.append(f"{reading}, K = {K}: N from {root[0]} to {root[-1]}, nondecreasing {mono}, two routes agree {agree}")
    return Outcome.judge(ok, f"{FIG_1_2_GAMMAS.size} gammas in [0.05, 100] (K is not legible in the extracted text: K = 2, 5, 10): " + "; ".join(rows))


# --- Figures 1.3 and 1.4 ------------------------------------------------------------

@dataclass(frozen=True)
class RhoCurve:
    """rho(gamma, K) for K = 2..100 in float64, with the largest deviation from proved
    enclosures at ENCLOSED_K (the error bound used to certify the curve's shape)."""

    gamma: float
    K: np.ndarray
    rho: np.ndarray
    error: float

    @property
    def gaps(self) -> np.ndarray:
        """Consecutive differences rho(gamma, K+1) − rho(gamma, K)."""
        return np.diff(self.rho)

    @property
    def shape_certain(self) -> bool:
        """Every consecutive difference is larger than the error bound (with margin 10)."""
        return bool(np.all(np.abs(self.gaps) > 10 * self.error))


def rho_curve(gamma: str) -> RhoCurve:
    """rho(gamma, K) for K in FIG_K in float64 (``optimal_rho``), with ``error`` bounding the float error at ENCLOSED_K:
    the largest width of a proved enclosure, or distance from a value outside it to its far end.
    """
    rho = np.array([s.optimal_rho(float(gamma), int(K), MU) for K in FIG_K])
    error = 0.0
    with mpmath.workdps(30):
        for K in ENCLOSED_K:
            enc = s.rho_enclosure(gamma, K, MU, digits=20)
            value = rho[K - 2]
            if not enc.contains(mpmath.mpf(value)):
                error = max(error, float(max(abs(mpmath.mpf(enc.lo) - value), abs(mpmath.mpf(enc.hi) - value))))
            error = max(error, float(mpmath.mpf(enc.hi) - mpmath.mpf(enc.lo)))
    return RhoCurve(float(gamma), FIG_K, rho, error)


@claim(f"{P}.fig-1.3", source=src("Figure 1.3, Propositions 3(a) and 4", "§1.2.1.3"), method=Method.INTERVAL,
       statement="Figure 1.3 (K -> rho(gamma, K), gamma = 0.5 < mu = 1) shows rho increasing in K, below 1, and tending to 1.")
def _fig_1_3():
    c = rho_curve("0.5")
    increasing = bool(np.all(c.gaps > 0))
    below = bool(np.all(c.rho < 1 - 10 * c.error))
    closing = bool(np.all(np.diff(1 - c.rho) < 0))
    ok = increasing and below and closing and c.shape_certain
    return Outcome.judge(ok, f"K = 2..100: rho from {c.rho[0]:.6f} to {c.rho[-1]:.6f}; strictly increasing: {increasing} (smallest step {c.gaps.min():.2e}); "
                             f"all < 1: {below}; 1 - rho decreasing: {closing}; float vs proved enclosures at K = {ENCLOSED_K}: error <= {c.error:.1e}, "
                             f"shape certain: {c.shape_certain}",
                         error_bound=c.error, certain=c.shape_certain)


@claim(f"{P}.fig-1.4", source=src("Figure 1.4, Propositions 3(b) and 4", "§1.2.1.3"), method=Method.INTERVAL,
       statement="Figure 1.4 (K -> rho(gamma, K), gamma = 2 > mu = 1) shows rho increasing up to K0 - 1, then decreasing to 1.")
def _fig_1_4():
    c = rho_curve("2")
    at_2 = s.rho_enclosure("2", 2, MU, digits=20)
    exactly_one = at_2.lo == at_2.hi == "1" and float(gen.gamma_K(2, MU)) == 2.0  # gamma = gamma(2): rho = 1 (Lemma 1)
    peak = int(np.argmax(c.rho))
    K0 = int(c.K[peak]) + 1
    unimodal = bool(np.all(c.gaps[:peak] > 0) and np.all(c.gaps[peak:] < 0))
    above = bool(np.all(c.rho[1:] > 1 + 10 * c.error))
    bound = math.floor(2 * MU / (2.0 - MU))  # Proposition 3(b) in its corrected form (row liu-nain.static.prop-3b)
    ok = exactly_one and unimodal and above and K0 >= bound and c.shape_certain
    return Outcome.judge(ok, f"rho(2, 2) = 1 exactly (gamma(2) = 2; enclosure [{at_2.lo}, {at_2.hi}]): {exactly_one}; K = 2..100: increasing up to "
                             f"K0 - 1 = {K0 - 1} (rho = {c.rho[peak]:.6f}), decreasing after: {unimodal}; rho > 1 for K >= 3: {above}; "
                             f"rho(2, 100) = {c.rho[-1]:.6f}; K0 = {K0} >= floor(2mu/(gamma - mu)) = {bound}; float vs enclosures: error <= {c.error:.1e}, "
                             f"shape certain: {c.shape_certain}",
                         error_bound=c.error, certain=c.shape_certain)


# --- proof of Proposition 2: (1.6) and (1.8) ------------------------------------------

def _delta_factor() -> sp.Expr:
    """(1 - rho)/(1 - rho^(K+1)) = 1/sum_{j=0}^{K} rho^j, the factor of Delta in the proof."""
    return (1 - d.rho) / (1 - d.rho ** (d.K + 1))


@claim(f"{P}.eq-1.6", source=src("proof of Proposition 2, Delta and (1.6)", "§1.2.1.2"), method=Method.SYMBOLIC,
       statement="Delta = C(rho, gamma2, K) - C(rho, gamma1, K) = (1 - rho)/(1 - rho^(K+1)) (gamma2 - gamma1), decreasing in rho, and the identity (1.6).")
def _eq_1_6():
    g1, g2, r1, r2 = sp.symbols("gamma1 gamma2 rho1 rho2", positive=True)
    cost = d.cost()
    delta = cost.subs(d.gamma, g2) - cost.subs(d.gamma, g1)
    printed_delta = _delta_factor() * (g2 - g1)
    delta_ok = _zero(delta - printed_delta)
    j = sp.Symbol("j", integer=True, nonnegative=True)
    u = sp.Symbol("u", positive=True)
    geometric = sp.Sum(d.rho**j, (j, 0, d.K))
    jp = sp.Symbol("jp", integer=True, positive=True)  # j >= 1: every term of the derivative is positive
    slope = -sp.Sum(jp * d.rho ** (jp - 1), (jp, 1, d.K)) / geometric**2  # d/drho of 1/sum rho^j
    x = sp.Symbol("x")  # identities of rational functions, so checked in a symbol free of rho's positivity, whose sign queries cost SymPy more than the check

    def at(expr, k):
        return expr.subs(d.K, k).doit().subs(d.rho, x)

    as_sum = all(sp.cancel(at(_delta_factor(), k) * at(geometric, k)) == 1
                 and sp.expand(sp.diff(1 / at(geometric, k), x) - at(slope, k)) == 0
                 for k in range(2, 13))
    decreasing = bool((-slope).subs(d.rho, u).is_positive)  # every K >= 1

    def C(r, g):
        return cost.subs({d.rho: r, d.gamma: g})

    def D(r):
        return delta.subs(d.rho, r)

    chain = _zero((D(r2) - D(r1)) - ((C(r2, g2) - C(r1, g2)) + (C(r1, g1) - C(r2, g1))))
    # The brackets are <= 0 at the minimisers: rho(gamma2) minimises C(., gamma2), rho(gamma1) C(., gamma1).
    brackets = []
    for ga, gb, K in ((0.5, 2.0, 5), (1.2, 1.4, 10), (0.1, 7.0, 3)):
        ra, rb = s.optimal_rho(ga, K), s.optimal_rho(gb, K)
        brackets.append(float(gen.cost(rb, gb, K, 1.0) - gen.cost(ra, gb, K, 1.0)) <= 0 and float(gen.cost(ra, ga, K, 1.0) - gen.cost(rb, ga, K, 1.0)) <= 0)
    ok = delta_ok and as_sum and decreasing and chain and all(brackets)
    return Outcome.judge(ok, f"Delta from the derived (1.4) == printed (1 - rho)/(1 - rho^(K+1))(gamma2 - gamma1): {delta_ok}; the factor is "
                             f"1/sum_(j<=K) rho^j with derivative {slope} (K = 2..12 as polynomials: {as_sum}), < 0 for rho > 0 and every K: {decreasing}; identity (1.6) "
                             f"Delta(rho2) - Delta(rho1) = [C(rho2,g2) - C(rho1,g2)] + [C(rho1,g1) - C(rho2,g1)]: {chain}; both brackets <= 0 at "
                             f"computed minimisers (3 instances): {brackets}")


@claim(f"{P}.eq-1.8", source=src("proof of Proposition 2, (1.8)", "§1.2.1.2"), method=Method.SYMBOLIC,
       statement="(1.7) as gamma -> oo with L = lim rho(gamma, K) < oo: (K L^(K+1) - (K+1) L^K + 1) lim gamma = mu L^K (L^(K+2) - (K+2)) L + (K+1), and K L^(K+1) - (K+1) L^K + 1 > 0 for L > 1.")
def _eq_1_8():
    L, u = sp.Symbol("L", positive=True), sp.Symbol("u", positive=True)
    K = d.K
    stationarity = d.derivative_numerator()  # (1.7), derived from (1.4)
    coeff_gamma = sp.diff(stationarity, d.gamma)
    rest = sp.expand(stationarity - d.gamma * coeff_gamma)  # (1.7) = gamma coeff_gamma + rest, rest = mu (...)
    lhs_printed = K * L ** (K + 1) - (K + 1) * L**K + 1
    rhs_printed = d.mu * L**K * (L ** (K + 2) - (K + 2)) * L + (K + 1)  # as printed (seed text)
    rhs_corrected = d.mu * L**K * (L ** (K + 2) - (K + 2) * L + (K + 1))

    def poly(expr):
        return d.in_rho_and_t(sp.expand(expr.subs(L, d.rho)))

    lhs_ok = sp.expand(poly(lhs_printed) + d.in_rho_and_t(coeff_gamma)) == 0  # gamma * lhs = rest, so lhs = -coeff_gamma
    printed_ok = sp.expand(poly(rhs_printed) - d.in_rho_and_t(rest)) == 0
    corrected_ok = sp.expand(poly(rhs_corrected) - d.in_rho_and_t(rest)) == 0
    # lhs(1) = 0 and d lhs/dL = K(K+1) L^(K-1) (L - 1) > 0 for L > 1, so lhs > 0 on L > 1 (every K).
    slope = sp.factor(sp.diff(lhs_printed, L))
    positive = lhs_printed.subs(L, 1) == 0 and bool(slope.subs(L, 1 + u).is_positive)
    at_2 = sp.expand(rhs_printed.subs({K: 2, L: 2, d.mu: 1})), sp.expand(rhs_corrected.subs({K: 2, L: 2, d.mu: 1}))
    detail = (f"(1.7) from the derived cost, collected in gamma: gamma ({sp.factor(-coeff_gamma)}) = {sp.factor(rest)}; printed left factor: {lhs_ok}; "
              f"printed right side mu L^K (L^(K+2) - (K+2)) L + (K+1): {printed_ok}; mu L^K (L^(K+2) - (K+2) L + (K+1)): {corrected_ok} "
              f"(at K = 2, L = 2, mu = 1: printed {at_2[0]}, derived {at_2[1]}); left factor vanishes at L = 1 with slope {slope} > 0 for L > 1: {positive}")
    if lhs_ok and corrected_ok and positive and not printed_ok:
        return Outcome.erratum_(detail, printed="mu L^K (L^(K+2) - (K+2)) L + (K+1)", corrected="mu L^K (L^(K+2) - (K+2) L + (K+1))",
                                evidence="(1.7) derived from (1.4) and collected in gamma by SymPy, compared as polynomials in L and L^K; the "
                                         "misplaced parenthesis may be an artefact of the PDF extraction; the proof's conclusion is unaffected")
    return Outcome.judge(lhs_ok and printed_ok and positive, detail)
