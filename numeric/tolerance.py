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
