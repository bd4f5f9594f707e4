"""Liu–Nain (2005) Proposition 7 and the Laplace-transform remark after it, which are Coffman–Liu–Weber (1997)
Theorem 3.1 and the remark after Lemma 3.1 (the same statements): decided on two-point access laws, the orders in
exact rationals, the sign of r' - r in ball arithmetic (python-flint), with a simulation and the corrected statement
(monotonicity of (1.23) with Lemma 3 in E[X] and h, by SymPy).  :func:`ordering_outcome` and
:func:`laplace_outcome` are the verdicts of both papers' rows."""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np
import sympy as sp

from ....derive import is_identically_zero as _zero
from ....derive import scheduling as ds
from ....numeric import scheduling as s
from ....numeric.scheduling import Deterministic, Exponential, Gamma, Uniform
from ....numeric.errors import SolverError
from ....numeric.tolerance import STRUCTURE_ABS
from ...registry import Outcome

EX = sp.Symbol("EX", positive=True)  # E[X], the same symbol as in .scheduling

# Proposition 7 (Coffman et al.'s Theorem 3.1, the same statement) is checked on two-point access
# laws, exactly: the orders are decided with rationals and the sign of r' - r in ball arithmetic.
X_TWO = (Fraction(1), Fraction(2))  # X = 1 or 2, equally likely
X_TWO_PRIME = (Fraction(1, 10), Fraction(2))  # X' = 0.1 or 2: X' <=st X, hence X' <=icx X
MU_ONE = Fraction(1)
# (schedule, cycle length K, the page's inter-access distances in one cycle)
SCHEDULES = (("N = 1, the page accessed at every step", 1, (1,)),
             ("N = 2, cycle (1, 1, 1, 2), page 1", 4, (1, 1, 2)))


def _mean(points) -> Fraction:
    return sum(points, Fraction(0)) / len(points)


def stop_loss(points, t: Fraction) -> Fraction:
    """E(X - t)^+ for X uniform on ``points``, exactly."""
    return sum((max(v - t, Fraction(0)) for v in points), Fraction(0)) / len(points)


def icx_ordered(xs, x) -> bool:
    """X' <=icx X, exactly: E(X' - t)^+ <= E(X - t)^+ for every t.  Both sides are
    piecewise linear in t, with slope -1 below every point and 0 above, so the
    kinks (the points) decide."""
    return all(stop_loss(xs, t) <= stop_loss(x, t) for t in set(xs) | set(x))


def st_ordered(xs, x) -> bool:
    """X' <=st X for two laws uniform on equally many points (sorted coupling), exactly.
    It implies X' <=icx X and E e^{-sX'} >= E e^{-sX} for every s >= 0."""
    return len(xs) == len(x) and all(a <= b for a, b in zip(sorted(xs), sorted(x)))


def _arb(q: Fraction):
    return flint.arb(flint.fmpq(q.numerator, q.denominator))


def laplace_arb(points, s: Fraction):
    """h = E e^{-sX} for X uniform on ``points``, in ball arithmetic."""
    return sum((_arb(-s * v).exp() for v in points), flint.arb(0)) / len(points)


def cyclic_rate_arb(points, mu: Fraction, K: int, distances):
    """r of one page, (1.23) with Lemma 3: (1/(K E[X])) sum_j (d_j E[X] - (1 - h^{d_j})/mu), in balls."""
    m, h = _arb(_mean(points)), laplace_arb(points, mu)
    return sum((d * m - (1 - h**d) / _arb(mu) for d in distances), flint.arb(0)) / (K * m)


@dataclass(frozen=True)
class RateComparison:
    """r (access time X) and r' (X') of one page under one schedule, as balls."""

    schedule: str
    r: object
    r_prime: object

    @property
    def increase_proved(self) -> bool:
        """True only when r' − r > 0 is certain in ball arithmetic."""
        return bool(self.r_prime - self.r > 0)  # arb: True only when certain

    def __str__(self) -> str:
        radius = max(float(self.r.rad()), float(self.r_prime.rad()))
        return f"{self.schedule}: r' = {float(self.r_prime.mid()):.6f} vs r = {float(self.r.mid()):.6f} (radii <= {radius:.0e})"


def compare_rates(xs, x, mu: Fraction = MU_ONE) -> list[RateComparison]:
    """For each schedule in SCHEDULES, r under access points ``x`` and r' under ``xs`` ((1.23) with Lemma 3), as balls."""
    return [RateComparison(name, cyclic_rate_arb(x, mu, K, ds_), cyclic_rate_arb(xs, mu, K, ds_)) for name, K, ds_ in SCHEDULES]


def _simulated_rate(points, mu: float, n: int, rng) -> float:
    """Fraction of time out of date of one page accessed at every step, by simulation of its
    first Poisson change after each access (an independent route to Lemma 3 for d = 1)."""
    X = rng.choice([float(v) for v in points], size=n)
    R = rng.exponential(1 / mu, size=n)
    return float(np.maximum(X - R, 0).sum() / X.sum())


@functools.cache
def rate_monotonicity() -> tuple[bool, bool, str]:
    """Lemma 3 in (1.23): one inter-access distance d (integer >= 1) of a page adds
    (d E[X] - (1 - h^d)/mu)/(K E[X]) to r.  SymPy: its derivative in E[X] is
    (1 - h)(sum_{k<d} h^k)/(mu K E[X]^2) > 0 and in h is d h^(d-1)/(mu K E[X]) > 0 (0 < h < 1).
    So r_i increases with E[X] and with h_i = E e^{-mu_i X}, and r'_i <= r_i whenever
    E[X'] <= E[X] and E e^{-mu_i X'} <= E e^{-mu_i X} (e.g. X' <=cx X: equal means, Jensen).
    Returns (increasing in E[X], increasing in h, the two derivatives)."""
    d, Kc = sp.Symbol("d", integer=True, positive=True), sp.Symbol("K", integer=True, positive=True)
    u = sp.Symbol("u", positive=True)  # h = 1/(1 + u) ranges over (0, 1)
    k = sp.Symbol("k", integer=True, nonnegative=True)
    share = ds.expected_obsolescence().subs({ds.d: d, ds.m: EX}) / (Kc * EX)
    dE, dh = sp.simplify(sp.diff(share, EX)), sp.simplify(sp.diff(share, ds.h))
    geometric = sp.Sum(ds.h**k, (k, 0, d - 1))
    factored = (1 - ds.h) * geometric / (ds.mu * Kc * EX**2)
    in_mean = _zero(dE - factored.doit()) and bool(factored.subs(ds.h, 1 / (1 + u)).is_positive)
    in_h = bool(dh.subs(ds.h, 1 / (1 + u)).is_positive)
    return in_mean, in_h, f"d/dE[X] = {dE} = (1 - h) sum_(k<d) h^k/(mu K E[X]^2); d/dh = {dh}"


def corrected_pairs_max_increase() -> tuple[float, int]:
    """max over pages of r'_i - r_i on random cyclic schedules for pairs with E[X'] <= E[X] and
    h'_i <= h_i at every page's rate (rates in [0.5, 3]): two cx pairs and det(0.9) vs exp(1)."""
    rng = np.random.default_rng(70)
    pairs = ((Deterministic(1.0), Exponential(1.0)), (Uniform(0.2, 1.8), Gamma(0.5, 0.5)), (Deterministic(0.9), Exponential(1.0)))
    worst, n = -math.inf, 0
    for A, B in pairs:
        for _ in range(15):
            N = int(rng.integers(1, 5))
            rates = rng.uniform(0.5, 3.0, N)
            if not (A.mean <= B.mean and np.all(A.h(rates) <= B.h(rates))):
                raise SolverError(f"pair {A} vs {B} does not satisfy the corrected hypothesis at rates {rates}")
            seq = np.concatenate([np.arange(N), rng.integers(0, N, int(rng.integers(0, 3 * N + 2)))])
            rng.shuffle(seq)
            diff = s.cyclic_cost(seq, s.make_problem(rates, A)).rates - s.cyclic_cost(seq, s.make_problem(rates, B)).rates
            worst, n = max(worst, float(diff.max())), n + 1
    return worst, n


CORRECTED_ORDER = ("r'_i <= r_i whenever E[X'] <= E[X] and E e^{-mu_i X'} <= E e^{-mu_i X}, in particular when X' <=cx X "
                   "(equal means); under <=icx with E[X'] < E[X] the rate can increase")


def ordering_outcome() -> Outcome:
    """The verdict of Liu–Nain Proposition 7 and of Coffman et al.'s Theorem 3.1 (the same
    statement): the two-point counterexample (exact orders, r' > r proved in balls, and
    simulated), and the corrected statement (symbolic monotonicity in E[X] and h, and
    random cyclic schedules)."""
    st, icx = st_ordered(X_TWO_PRIME, X_TWO), icx_ordered(X_TWO_PRIME, X_TWO)
    rows = compare_rates(X_TWO_PRIME, X_TWO)
    rng = np.random.default_rng(71)
    sim, sims = (_simulated_rate(v, 1.0, 400000, rng) for v in (X_TWO, X_TWO_PRIME))
    counter = st and icx and all(r.increase_proved for r in rows) and sims > sim
    in_mean, in_h, derivs = rate_monotonicity()
    worst, n = corrected_pairs_max_increase()
    corrected = in_mean and in_h and worst <= STRUCTURE_ABS
    detail = (f"X = 1 or 2 (E[X] = {float(_mean(X_TWO))}), X' = 0.1 or 2 (E[X'] = {float(_mean(X_TWO_PRIME))}), equally likely; "
              f"X' <=st X: {st}, X' <=icx X (stop-loss transform, exact): {icx}; mu = 1: " + "; ".join(map(str, rows))
              + f"; r' - r > 0 proved in ball arithmetic: {[r.increase_proved for r in rows]}; simulation (N = 1): r' = {sims:.4f}, r = {sim:.4f}. "
              "The printed proof bounds (1/E[X']) sum E[Z'] by (1/E[X]) sum E[Z], which needs E[X'] >= E[X]. "
              f"Corrected form: r_i increases with E[X] ({in_mean}) and with h_i ({in_h}) [{derivs}]; {n} random cyclic schedules "
              f"with E[X'] <= E[X], h'_i <= h_i: max r'_i - r_i = {worst:.2g}")
    if counter and corrected:
        return Outcome.erratum_(detail, printed="X' <=icx X implies r'_i <= r_i for every page under any schedule",
                                corrected=CORRECTED_ORDER,
                                evidence="two-point counterexample (N = 1 and N = 2), orders decided exactly, r' > r proved in ball "
                                         "arithmetic and seen in simulation; the corrected form from Lemma 3 by SymPy")
    return Outcome.judge(not counter and corrected, detail)


def laplace_outcome() -> Outcome:
    """The remark after Proposition 7 (Coffman: after Lemma 3.1): 'the result still holds when the
    increasing convex ordering is replaced by the weaker Laplace-transform ordering'.  Readings:
    (a) Stoyan's X' <=Lt X: E e^{-sX'} >= E e^{-sX} for all s >= 0 (implied by <=st);
    (b) the reverse, E e^{-sX'} <= E e^{-sX} for all s >= 0.  Each is refuted by a pair that
    satisfies it exactly with r' > r proved in balls; neither is implied by <=icx."""
    det1, det2, spread = (Fraction(1), Fraction(1)), (Fraction(2), Fraction(2)), (Fraction(0), Fraction(2))
    a_holds = st_ordered(X_TWO_PRIME, X_TWO)  # termwise e^{-s x'} >= e^{-s x}
    a_rows = compare_rates(X_TWO_PRIME, X_TWO)
    b_holds = st_ordered(det1, det2)  # X' = 2 >= X = 1 termwise: e^{-2s} <= e^{-s}
    b_rows = compare_rates(det2, det1)
    # <=icx implies neither: det(1) <=icx {0, 2} but e^{-1} < (1 + e^{-2})/2 (reading (a) fails at s = 1);
    # X' = {0.1, 2} <=icx {1, 2} but its transform is larger (reading (b) fails at s = 1).
    not_a = icx_ordered(det1, spread) and bool(laplace_arb(det1, MU_ONE) < laplace_arb(spread, MU_ONE))
    not_b = icx_ordered(X_TWO_PRIME, X_TWO) and bool(laplace_arb(X_TWO_PRIME, MU_ONE) > laplace_arb(X_TWO, MU_ONE))
    refuted_a = a_holds and all(r.increase_proved for r in a_rows)
    refuted_b = b_holds and all(r.increase_proved for r in b_rows)
    in_mean, in_h, derivs = rate_monotonicity()
    detail = (f"(a) Stoyan's order E e^(-sX') >= E e^(-sX): X' = 0.1 or 2 vs X = 1 or 2 satisfies it ({a_holds}); " + "; ".join(map(str, a_rows))
              + f". (b) the reverse order: X' = 2 vs X = 1 (deterministic) satisfies it ({b_holds}); " + "; ".join(map(str, b_rows))
              + f". <=icx implies neither: det(1) <=icx (0 or 2) violates (a) at s = 1: {not_a}; (0.1 or 2) <=icx (1 or 2) violates (b) at s = 1: {not_b}. "
              f"What the proof supports (Lemma 3: E[Z] depends on X through E[X] and h only): r_i increases with E[X] ({in_mean}) and h_i ({in_h})")
    if refuted_a and refuted_b and in_mean and in_h:
        return Outcome.erratum_(detail, printed="Proposition 7 holds with <=icx replaced by the weaker Laplace-transform ordering",
                                corrected="r'_i <= r_i whenever E[X'] <= E[X] and E e^{-mu_i X'} <= E e^{-mu_i X}; a Laplace-transform "
                                          "order alone (either direction) does not suffice, and it is not weaker than <=icx",
                                evidence="exact two-point pairs for both readings with r' > r proved in ball arithmetic; "
                                         "monotonicity of (1.23) with Lemma 3 in E[X] and h by SymPy")
    return Outcome.judge(not (refuted_a or refuted_b) and in_mean and in_h, detail)
