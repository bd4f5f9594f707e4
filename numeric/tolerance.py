"""The one tolerance policy of crawlmath.

Every comparison of floats in the project takes its tolerance from here, so a
reader can see in one place how strict each kind of check is.  Values are
relative unless the name says ``ABS``.

- ``STRUCTURE_ABS``: how far a row sum of a generator (or a probability
  vector's sum) may be from its exact value when the input is given in
  floating point (typed input, JSON files).  Inputs are validated with it.
- ``FLOAT_REL``: agreement between two independent float64 routes to the
  same number (e.g. two solvers).
- ``HP_DIGITS``: significant digits a ``numeric-hp`` claim must certify.
- ``SIMULATION_SIGMAS``: a simulated estimate agrees with an exact value when
  within this many standard errors.
- ``SINGLE_RUN_CENTRAL``: a value printed from *one* simulation run is
  reproduced when it lies in this central fraction of the distribution of
  single runs (a two-sided prediction interval from replicated runs).
- ``SINGLE_RUN_FLIP``: such a verdict is *certain (statistical)* when the
  probability that it is wrong, bounded with order statistics or under the
  normal model of single runs, is below this; ``SINGLE_RUN_MAX_REPLICATES``
  caps the replicated runs spent trying (``proofs.claims.buijsrogge._single_run``).
- ``MDP_TIE_REL``: actions whose Q-values agree to this relative tolerance tie.
- ``CURVES_FLOAT_GAIN``: the float route is trusted for the switching curves
  only above this gain (below it, rounding of h, ~1e-16 absolute, is no longer
  far below the θ-relative improvements the exact-Q step of certified_gain acts on).
- ``GENERATED_REL``: generated float64 code against its mpmath twin;
  ``EXPORT_REL``: the exported C against the Python generated code.
- ``printed_tolerance(text)``: a value printed in a paper with d decimals is
  matched by any computed value that rounds to it, i.e. within half a unit
  of the last printed digit (plus a hair for binary representation);
  ``matches_truncated`` is the reading for papers that truncate instead.

>>> printed_tolerance("0.17541")
5.000000005000001e-06
>>> matches_printed(0.175414, "0.17541"), matches_printed(0.17552, "0.17541")
(True, False)
"""
from __future__ import annotations

import math

STRUCTURE_ABS = 1e-10
FLOAT_REL = 1e-9
HP_DIGITS = 30
SIMULATION_SIGMAS = 4.0
SINGLE_RUN_CENTRAL = 0.999
SINGLE_RUN_FLIP = 1e-4
SINGLE_RUN_MAX_REPLICATES = 64
# Two MDP actions whose Q-values agree to this (relative to max|h|) are a tie;
# policy iteration then keeps the current action, so it terminates.
MDP_TIE_REL = 1e-9
CURVES_FLOAT_GAIN = 1e-6
# Generated float64 code (numeric/generated) against its mpmath twin, on the
# whole domain of each formula (tests/test_generated_accuracy.py), and the C
# export against the Python generated code (tests/test_export.py).
GENERATED_REL = 1e-12
EXPORT_REL = 1e-13
# A generated function's domain edge that depends on other arguments (Formula.requires, e.g. h >= e^(-mu m)) meets
# arguments that carry their own rounding: an argument within this relative distance beyond the edge is accepted
# (computed as given; the accuracy bound GENERATED_REL x Formula.scale still holds there), further is refused.  A
# computed h = (rate/(rate + mu))^shape of a Gamma access time sits ~shape ulps below the edge when mu E[X] -> 0
# (3.2e-15 at shape 36, tests/test_scheduling.py); 1e-9 covers shapes up to ~1e6 and still refuses the audit's
# corners (h = 0.521 against e^(-mu m) = 0.981).
DOMAIN_EDGE_REL = 1e-9


def printed_tolerance(text: str) -> float:
    """Half a unit in the last printed place of ``text`` (a decimal literal)."""
    text = text.strip().rstrip("%")
    decimals = len(text.split(".", 1)[1]) if "." in text else 0
    return 0.5 * 10.0 ** (-decimals) * (1 + 1e-9)


def matches_printed(value: float, printed: str) -> bool:
    """True when ``value`` rounds to the printed decimal ``printed``."""
    return abs(value - float(printed.rstrip("%"))) <= printed_tolerance(printed)


def matches_truncated(value: float, printed: str) -> bool:
    """True when ``value`` *truncates* to the printed decimal: same sign and
    |printed| <= |value| < |printed| + one unit of the last printed place.
    For papers that print by truncation (Avrachenkov et al. print 89.405 as
    89.40); claims say in their detail which reading matched.

    >>> matches_truncated(89.405, "89.40"), matches_truncated(89.411, "89.40")
    (True, False)
    """
    p = float(printed.rstrip("%"))
    unit = 2 * printed_tolerance(printed) * (1 - 1e-9)
    return (value >= 0) == (p >= 0) and abs(p) - 1e-12 <= abs(value) < abs(p) + unit


def close(a: float, b: float, rel: float = FLOAT_REL, abs_: float = 0.0) -> bool:
    """Relative closeness under the project policy (symmetric in a, b)."""
    return abs(a - b) <= max(rel * max(abs(a), abs(b)), abs_)


def digits_agreed(a, b) -> float:
    """Number of significant decimal digits on which ``a`` and ``b`` agree.

    Works for floats and mpmath numbers; returns ``inf`` when equal.
    """
    a_f, b_f = a, b
    diff = abs(a_f - b_f)
    if diff == 0:
        return math.inf
    scale = max(abs(a_f), abs(b_f))
    return float(-_log10(diff / scale))


def _log10(x) -> float:
    try:
        return math.log10(x)
    except (TypeError, ValueError, OverflowError):
        import mpmath

        return float(mpmath.log10(x))


# --- claims: liu-nain, coffman, formulas ---
# What the float checks of proofs/claims/liu_nain, proofs/claims/coffman allow for.  Each bounds rounding or a
# known truncation, never a modelling error: the margins the claims find when a statement fails are orders of
# magnitude larger (their details print them).
# An inequality between float64 costs, rates or partial sums of order one (a lower bound, a majorization) holds when
# violated by at most ROUNDING_SLACK_ABS, and two float64 routes to one such cost agree within it; ROUNDING_SLACK_REL
# is the same allowance relative to the size of the quantities compared.
ROUNDING_SLACK_ABS = 1e-12
ROUNDING_SLACK_REL = 1e-12
# A float64 closed form (generated code, a stable rewriting, a lower bound attained with equality) against its exact
# or high-precision value, relative: a few ulps times the condition number of the forms checked.
CLOSED_FORM_REL = 1e-13
# The residual of an identity evaluated in float64 on well-conditioned arguments (values of order one), and the
# frequencies of Coffman–Liu–Weber (10) against mu_i/mu when X is constant (they are equal).
IDENTITY_RESIDUAL = 1e-14
# φ^-1 by two float64 formulas, (sqrt5 - 1)/2 and 1/φ: a few ulps.
PHI_INVERSE_ABS = 1e-15
# A ratio C/C* of an exact schedule's float64 cost (sums over up to F_k ~ 3e5 accesses) compared with a bound.
COST_RATIO_SLACK_REL = 1e-9
# Frequencies that must differ (Coffman–Liu–Weber (10) and Liu–Nain (1.30) against mu_i/mu for a non-constant X): a
# difference above this, far above rounding (IDENTITY_RESIDUAL), is real.
NOT_PROPORTIONAL_ABS = 1e-3
# The closed forms of Coffman–Liu–Weber Theorem 3.4 (cyclic) and Theorem 4.1 (randomized) against SciPy's SLSQP on
# the same objective (SLSQP_FTOL): relative cost and absolute frequency gaps; the optimiser, not the closed form, is
# the less accurate side.  MULTIPLIER_RESIDUAL bounds the residual of the Lagrange-multiplier equation (8)-(9).
OPTIMISER_COST_REL = 1e-7
OPTIMISER_FREQUENCY_ABS = 1e-3
RANDOMIZED_OPTIMISER_COST_REL = 1e-8
RANDOMIZED_OPTIMISER_FREQUENCY_ABS = 1e-4
MULTIPLIER_RESIDUAL = 1e-8
SLSQP_FTOL = 1e-15
# (15) of Coffman–Liu–Weber against numeric.scheduling's randomized optimum, and its sum against 1.
FREQUENCY_MATCH_ABS = 1e-9
# A leading coefficient of an expansion read off the exact gap at f = 1e-6 (error O(f)) or at f = 1 - 1e-8 (error
# O(1 - f)), 40 digits: it agrees with the derived coefficient within EXPANSION_COEFF_TOL (EXPANSION_F_TO_1_TOL for
# Coffman–Liu–Weber's f -> 1 expansion, read closer to its point); a printed coefficient further than
# EXPANSION_REFUTED is refuted.
EXPANSION_COEFF_TOL = 1e-4
EXPANSION_F_TO_1_TOL = 1e-5
EXPANSION_REFUTED = 1e-2
# Simulated sequences of Lemma 4.1: a finite cyclic sequence wraps around, a bias O(1/K) allowed on top of
# SIMULATION_SIGMAS standard errors.
WRAP_AROUND_BIAS = 2e-4
# A finite-size value against its limit, the gap being O(1/size): C(rho, gamma, K = 20000) against K = oo (Liu–Nain
# after (1.11)) and C* at N = 10^4 equal pages against (17) (Coffman–Liu–Weber §5), absolute; |rho(gamma, 4000) - 1|
# (Proposition 4); the exact cost of gamma(28, N) against the limit formula C(gamma(N)), relative.
FINITE_SIZE_GAP_ABS = 1e-3
RHO_FINITE_K_GAP_ABS = 5e-3
GOLDEN_FINITE_K_GAP_REL = 1e-4
# Relative value iteration run to (near) convergence where its gain is compared with the exact one (Proposition 6 at
# τ = 0.5: the two printed forms differ by a factor τ, far above this).
RVI_CONVERGED_TOL = 1e-13
# The error bound of a Rel. Impr. percentage computed in float64 from two 5-decimal roundings that cannot flip
# (Liu–Nain Tables 1.2, 1.3): the rounding of 100(C_s − C_d)/C_d, a few ulps of a number below 10^4.
REL_IMPR_ROUNDING = 1e-9
# proofs/claims/formulas.py: a printed form differs from the derived one at a point when their gap, evaluated at 30
# and at 60 digits, exceeds 10^-FORMULA_GAP_DIGITS of the values' scale and the two evaluations of the gap agree to
# that (evalf's own error at 30 digits is ~10^-30, far below); a difference is nonzero at a point when it exceeds
# 10^-FORMULA_GAP_DIGITS and its 30- and 60-digit values agree to 10^-FORMULA_AGREE_DIGITS relative.
FORMULA_GAP_DIGITS = 20
FORMULA_AGREE_DIGITS = 25
# --- mdp and markov ---
# certified_gain without ``digits`` (crawler MDP, numeric/mdp/_certified.py): the relative width of the gain bounds it
# refines the bias to; exported there as TARGET_REL_WIDTH.
MDP_GAIN_REL_WIDTH = 1e-10
# The float θ = π c from the GTH stationary law must lie in route 2's exact Odoni bounds up to this relative slack
# (GTH's rounding, O(n u) relative per entry).
MDP_GTH_SLACK_REL = 1e-11
# The exact integer transition numerators of the crawler MDP, divided by ν, against its float64 law: each float
# probability is one or two roundings of a ratio of the decimal-exact rates (8 units of 2^-52 absolute).
MDP_EXACT_LAW_ABS = 8 * 2.0 ** -52
# The float route to the switching curves is trusted when the policy it stops on is greedy for its own h up to this
# relative slack (64 units of 2^-52 of max|Q|); beyond it the certified policy iteration is taken.
CURVES_GREEDY_REL = 64 * 2.0 ** -52
# A CTMC stationary vector's residual max|πQ|/max|Q| must be below this times the number of states (GTH is
# backward stable: O(n u)), else SolverError.
CTMC_RESIDUAL_REL = 1e3 * 2.0 ** -52
# --- crawlmath ---
# The report's figure captions (crawlmath/report/figures_*.py) state shapes and bounds of float64 curves;
# these slacks absorb the curves' rounding, nothing more.
# Liu–Nain Figs 1.3/1.4: ρ(γ, K) (float64 Brent roots of (1.7)) is called nondecreasing in K when no step
# goes down by more than this (absolute; ρ is in (0, 1], its roots carry errors of ~1e-15).
FIGURE_MONOTONE_ABS = 1e-12
# Coffman §5 figure: each exact γ(k, N) cost (float64) is called >= C* (Theorem 3.4) when it is at least
# C* (1 - this): a relative rounding slack of both float64 values.
FIGURE_BOUND_REL = 1e-12
# --- static, scheduling, colours, validate ---
# Float64 root finders (numeric/static _brent and _anderson_bjorck, the Brent solve of the randomized
# multiplier in numeric/scheduling) stop when the bracket or step is below FLOAT_ROOT_RTOL |x| (a few units
# in the last place, 4 eps: the best float64 can promise of a root) plus FLOAT_ROOT_ABS_FLOOR, an absolute
# floor that only matters for a root at 0 (SciPy's brentq refuses xtol = 0; every root here is positive).
FLOAT_ROOT_RTOL = 4 * 2.0**-52
FLOAT_ROOT_ABS_FLOOR = 1e-300
# |sum x_i - 1| at which the multiplier iteration of the optimal frequencies (Coffman-Liu-Weber (8)-(9)) stops:
# x is then normalised, which moves each x_i by at most this relative amount.
MULTIPLIER_SUM_ABS = 1e-14
# golden_bracket: x and phi^-j are compared with this relative slack, so an x that is phi^-j up to the rounding
# of log(1/x)/log(phi) and of phi**-j gets bracket j, not j + 1.
GOLDEN_BRACKET_REL = 1e-12
# certify_H_decreasing splits a box of the Taylor part whose enclosure is not positive only while it is wider
# than this; a narrower box is reported as not certified (the certificate fails, it never passes by this).
H_BOX_MIN_WIDTH = 1e-9
# level_root (P(2, u) = t): Newton stops after a step below this relative size; the equations are convex near
# the root with |f''/(2 f')| <= 1/(2u), so the error left is below (1e-8)^2/2, far under one ulp.
LEVEL_NEWTON_STEP_REL = 1e-8
# The colour chains' float64 stationary vector: a sparse-LU entry more negative than this times max(pi) is not
# rounding and the solve is refused; power iteration stops when max|pi_{n+1} - pi_n| < POWER_ITERATION_REL max(pi).
STATIONARY_NEGATIVE_REL = 1e-9
POWER_ITERATION_REL = 1e-14
# --- bmap ---
BMAP_ARGMIN_GAP = 1e-6  # certify_argmin: float costs within this relative distance of the minimum are recomputed in arb balls
BMAP_ARGMIN_TIE_ABS = 1e-12  # optimize: a later candidate replaces the best only when cheaper by more than this (J, absolute)
BMAP_GMRES_REL = 1e-15  # solve_structured: GMRES stops at ||c - x (Q + e c)||_2 <= this * ||c||_2 (true residual)
BMAP_LANES_REL = 1e-13  # CRAWLMATH_SIMD=0 (plain eight-lane kernels, fma rounded twice) against SIMD: one matvec or
#   preconditioner application, relative in the max norm (measured 2.4e-16 at K = 7, R = 2)
BMAP_LANES_SOLVE_REL = 1e-12  # the same for two GMRES solves stopped at BMAP_GMRES_REL from different roundings: their
#   difference is the system's condition times that residual (measured 1.3e-13 at K = 7, R = 2)
# --- claims: avrachenkov, buijsrogge ---
# What each bounds, for the claims of proofs/claims/avrachenkov/ and proofs/claims/buijsrogge/ (float64 comparisons
# whose expected difference is exactly 0 in exact arithmetic unless the name says otherwise).
SOLVERS_REL = 1e-10  # float64 solvers of one chain (block recursion, sparse LU, matrix-free, QBD), 9 measures, relative
GENERATOR_ABS = 1e-12  # two constructions of one generator (Lemma blocks vs states enumerated), entrywise; its row sums
KRON_BLOCK_ABS = 1e-14  # a Kronecker-sum block built term by term vs in one formula (rates O(1)), entrywise
SAME_CHAIN_REL = 1e-12  # two functionals of one solved chain that must agree (eq. (15) vs the tagged chain, Little's law)
LUMPED_REL = 1e-12  # the exactly lumped chain (or PH) against the full one: measures and means, relative
CLOSED_FORM_REL = 1e-12  # a float64 value against a float64 closed form of it (a PH variance vs the H2 formula)
INVARIANTS_ABS = 1e-11  # an identity of the float64 measures (eq. (8), P_loss + P_obs + P_success = 1, Little's law)
QUADRATURE_REL = 1e-7  # scipy quad of the survival function 1 - F against the PH mean
CLEARLY_NONZERO_ABS = 1e-6  # must be non-zero: a non-generator's row sum, a rate spread breaking lumpability (O(1) rates)
COST_TIE_REL = 1e-9  # two policies' float64 costs J closer than this are a tie (both optimal)
DISCRIMINATION_ABS = 1e-3  # the other reading of a printed formula must miss by more than this: the check discriminates
FIT_RESIDUAL_REL = 1e-25  # the H2 3-moment fit's own moments against the printed ones, recomputed at 40 digits, relative
SLSQP_FTOL = 1e-15  # stopping tolerance of the SLSQP searches over the printed rounding boxes of the real-data MAP
EXACT_VS_FLOAT_ABS = 1e-13  # an exact (rational) value against the float64 route to it, values O(1-10)
NEGLIGIBLE_PROB = 1e-6  # a probability bounded below this is negligible (the super colour absent, §4.3.2)
TWO_ROUTE_BOUND_ABS = 1e-9  # added to twice the gap of two routes taken as an error bound, so agreeing routes keep one
ELEPHANT_MASS_ABS = 1e-12  # error bound of the elephants' mass 1 - q: fsum of float64 power-law p_c, each a few ulps off
