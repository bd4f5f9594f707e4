r"""Optimal number of always-active crawlers: the M/M/1/K model (Liu–Nain 2005, §1.2.1).

Parameters, as in the paper: ``lam`` (:math:`\lambda`, page rate of one
crawler), ``mu`` (:math:`\mu`, indexing rate), ``gamma`` (:math:`\gamma`,
weight of starvation against loss), ``K`` (buffer size, ``math.inf``
allowed).  :math:`\rho = N\lambda/\mu`.

The minimiser :math:`\rho(\gamma,K)` of the cost (1.4) is the unique
positive root of the deflated stationarity polynomial
:math:`Q = (1.7)/(\rho-1)^2` (see :mod:`crawlmath.derive.static_mm1k`);
:math:`Q(0) = -\gamma < 0` and the sign of
:math:`Q(1) = \frac{K+1}{2}(\mu(K+2) - \gamma K)` says on which side of 1 the
root lies, so it is always bracketed.

The float64 route runs in plain Python floats (the generated ``_scalar``
functions and root finders of its own): a root of (1.7), which has few terms,
as the estimate, then two or three evaluations of Q (2K + 1 terms) that put
the root between neighbouring floats.  NumPy and SciPy would cost more in
call overhead than the arithmetic, and the module imports neither (nor mpmath
or python-flint, which only the ``digits=`` route loads).

>>> import mpmath
>>> round(optimal_rho(1.0, 5), 6)
0.918846
>>> static_optimum(0.01, 1.0, 0.5, 10).N_opt
89
>>> opt = static_optimum(0.01, 1, 0.5, 10, digits=40)
>>> mpmath.nstr(opt.rho_opt, 35)
'0.88707899563213183681236839320213649'
"""
from __future__ import annotations

import math
from fractions import Fraction
from dataclasses import dataclass

from .. import exact as ex
from ..errors import SolverError
from ..generated import static_mm1k as gen
from ..tolerance import FLOAT_ROOT_ABS_FLOOR, FLOAT_ROOT_RTOL
from ..validate import (FLOAT_SAFE_MAX, FLOAT_SAFE_MIN, require_float_magnitude, require_int, require_memory,
                        require_positive, require_seconds)

# Cost models of the two routes, measured (tracemalloc / perf_counter, one core, 2026-11-27):
# float64 with K > SCALAR_MAX_K evaluates Q on NumPy arrays of K + 1 terms: peak 24 bytes per K in the solver,
# 26-30 bytes per K for the whole `crawlmath static` process (benchmarks/estimates.py); 0.23-0.25 µs per K on a
# quiet machine, 0.5-0.8 µs loaded (K = 2-4 10**6); mpmath at 30-100 digits: 23-26 s at K = 1000, 4 s at K = 200.
# One model for the API and the CLI (crawlmath/commands/static.py reads these), within 3x of those runs.
FLOAT_BYTES_PER_K = 32
FLOAT_SECONDS_PER_K = 6e-7
# mpmath at K = 100: 2.6 s at 30 digits, 3.1 s at 300, 10.3 s at 1000 (x 4.0; the model says 4.3).
MP_SECONDS_PER_K = 0.025  # at 30 digits, times (1 + digits/300)


def _check(gamma, K, mu):
    require_positive(gamma, "gamma")
    require_positive(mu, "mu")
    return require_int(K, "K", minimum=2, allow_inf=True)


def _mp(value, name):
    """An mpmath number for the exact reading of ``value`` (see
    :mod:`crawlmath.numeric.exact`: ints, Fractions, SymPy Rationals, Decimals,
    decimal strings exactly, mpmath numbers at their binary value, a float as
    the shortest decimal that prints it, so ``2.4`` is 12/5 as the papers
    mean), rounded once to the working precision; anything else is refused
    with a named error.

    >>> import mpmath
    >>> with mpmath.workdps(30):
    ...     print(_mp(2.4, "gamma"), _mp(Fraction(1, 3), "gamma"))
    2.4 0.333333333333333333333333333333
    """
    return ex.to_mpf(ex.exact(value, argument=name))


def _arb(value, name="gamma"):
    """The same exact reading as a ball (at ``flint.ctx.prec``) that contains it."""
    return ex.to_arb(ex.exact(value, argument=name))


def _bracket(q, K, one, q_one):
    """A bracket (a, q(a), b, q(b)) with q(a) < 0 < q(b) for Q's unique
    positive root, given q_one = q(1) != 0.  Q(0) = -gamma < 0; below 1 the
    bracket is [0, 1].  Above 1 the root is within O(1/K) of 1 for large K
    (Proposition 4), so the excess over 1 doubles from 1/K: this never
    evaluates Q far from its root."""
    if q_one > 0:
        return 0 * one, q(0 * one), one, q_one
    a, q_a, h = one, q_one, one / K
    for _ in range(2000):
        value = q(one + h)
        if value != value or value in (math.inf, -math.inf):
            raise SolverError(f"cannot bracket rho(gamma, K) in float64: Q({1 + h}) overflows; use digits=...")
        if value > 0:
            return a, q_a, one + h, value
        a, q_a, h = one + h, value, 2 * h
    raise SolverError("cannot bracket rho(gamma, K): Q stays negative")


def _brent(q, a, q_a, b, q_b, what: str = "the root", maxiter: int = 500) -> float:
    """The root of q in [a, b], given q(a) and q(b) of opposite signs
    (Brent 1973, ch. 4: inverse quadratic interpolation or a secant step when
    it falls well inside the bracket, bisection otherwise).

    Bracketing is an invariant: ``x`` (the best point) and ``x_blk`` always
    have values of opposite signs, so by intermediate values a root lies
    between them; each step replaces one of them by a point strictly between.
    It stops when half the bracket is below ``(FLOAT_ROOT_ABS_FLOOR + FLOAT_ROOT_RTOL |x|)/2``
    (full float64 accuracy) or q(x) = 0.  For Q the root is the only positive
    one (Lemma 1), so it is rho(gamma, K).

    >>> round(_brent(lambda x: x * x - 2, 0.0, -2.0, 2.0, 2.0), 15)
    1.414213562373095
    """
    if q_a == 0:
        return a
    if q_b == 0:
        return b
    x_pre, x, q_pre, q_x = a, b, q_a, q_b
    x_blk = q_blk = step_pre = step = 0.0
    for _ in range(maxiter):
        if q_pre != 0 and q_x != 0 and (q_pre < 0) != (q_x < 0):
            x_blk, q_blk = x_pre, q_pre
            step_pre = step = x - x_pre
        if abs(q_blk) < abs(q_x):  # x is the point with the smaller |q|
            x_pre, x, x_blk = x, x_blk, x
            q_pre, q_x, q_blk = q_x, q_blk, q_x
        tol = (FLOAT_ROOT_ABS_FLOOR + FLOAT_ROOT_RTOL * abs(x)) / 2
        half = (x_blk - x) / 2
        if q_x == 0 or abs(half) < tol:
            return x
        if abs(step_pre) > tol and abs(q_x) < abs(q_pre):
            try:
                if x_pre == x_blk:  # secant
                    trial = -q_x * (x - x_pre) / (q_x - q_pre)
                else:  # inverse quadratic interpolation through x_pre, x, x_blk
                    d_pre = (q_pre - q_x) / (x_pre - x)
                    d_blk = (q_blk - q_x) / (x_blk - x)
                    trial = -q_x * (q_blk * d_blk - q_pre * d_pre) / (d_blk * d_pre * (q_blk - q_pre))
            except ZeroDivisionError:  # an underflowed difference; IEEE would give inf/nan here
                trial = math.nan  # fails the test below: bisect
            if 2 * abs(trial) < min(abs(step_pre), 3 * abs(half) - tol):
                step_pre, step = step, trial
            else:
                step_pre = step = half
        else:
            step_pre = step = half
        x_pre, q_pre = x, q_x
        x += step if abs(step) > tol else (tol if half > 0 else -tol)
        q_x = q(x)
    raise SolverError(f"{what}: Brent did not converge in float64 (convergence error); use digits=...")


# Up to this K one evaluation of Q in Python floats (2K + 1 terms) is faster
# than NumPy's call overhead; above it the vectorised sum wins.
SCALAR_MAX_K = 400


Q1_ROUNDINGS = 8  # |float Q(1) - Q(1)| <= this many eps of its terms' size: the emitted form rounds 5 times


def _q_at_one(gamma: float, K: int, mu: float):
    r"""Q(1) = (K+1)/2 (mu(K+2) - gamma K) (generated ``deflated_at_one``,
    derived in `crawlmath.derive.static_mm1k.deflated_at_one`) as (its exact
    sign, its value in float64).

    The sign says on which side of 1 the root lies (Q < 0 below the root,
    > 0 above it).  The float evaluation rounds five times, so its error is
    below ``Q1_ROUNDINGS`` eps (K+1)/2 (K|gamma| + (K+2)|mu|); a value that
    large decides the sign.  Nearer 0 (gamma next to gamma(K)), the generated
    ball twin decides at 128 + 2 bitlen(K) bits, where every operation on the
    53-bit inputs is exact (a zero-width ball).

    >>> _q_at_one(1.25, 4, 1.0)  # 5/2 (6 - 5)
    (1, 2.5)
    >>> _q_at_one(1.5, 4, 1.0)  # gamma = gamma(4): the root is 1
    (0, 0.0)
    """
    value = gen.deflated_at_one_scalar(gamma, K, mu)
    if not math.isfinite(value):
        raise SolverError(f"Q(1) = {value} overflows float64 at gamma = {gamma!r}, K = {K}; use digits=...")
    slack = Q1_ROUNDINGS * math.ulp(1.0) * (K + 1) / 2 * (K * abs(gamma) + (K + 2) * abs(mu))
    if abs(value) > slack:
        return (value > 0) - (value < 0), value
    import flint

    saved = flint.ctx.prec
    try:
        flint.ctx.prec = 128 + 2 * K.bit_length()
        ball = gen.deflated_at_one_arb(flint.arb(gamma), K, flint.arb(mu))
    finally:
        flint.ctx.prec = saved
    if ball.is_zero():
        return 0, 0.0
    if not (ball > 0 or ball < 0):  # cannot happen: the ball is exact
        raise SolverError(f"the sign of Q(1) is not decided at gamma = {gamma!r}, K = {K}: {ball}")
    return (1 if ball > 0 else -1), value


def _anderson_bjorck(p, a, p_a, b, p_b, maxiter: int = 100) -> float:
    """A root of p in [a, b] with p(a) < 0 < p(b), to about float64 accuracy
    of p (Anderson–Björck 1973: regula falsi whose stale end's value is
    scaled by 1 - p(x)/p(end) when the same end is replaced twice, which
    makes it superlinear).  A bracketing method with one evaluation of p and
    a few operations per step: the cheap first estimate for `_near_bracket`.
    Stops when a step moves x by at most ``FLOAT_ROOT_RTOL`` relative; the
    bracket [a, b] stays valid throughout.

    >>> round(_anderson_bjorck(lambda x: x * x - 2, 0.0, -2.0, 2.0, 2.0), 15)
    1.414213562373095
    """
    x, side = b, 0
    for _ in range(maxiter):
        x_new = a - p_a * (b - a) / (p_b - p_a)
        if not a < x_new < b:  # rounding put it on an end: the bracket is a few ulps wide
            return x
        p_x = p(x_new)
        if p_x == 0 or abs(x_new - x) <= FLOAT_ROOT_RTOL * abs(x_new):
            return x_new
        x = x_new
        if p_x < 0:
            if side < 0:
                m = 1 - p_x / p_a
                p_b *= m if m > 0 else 0.5
            a, p_a, side = x, p_x, -1
        else:
            if side > 0:
                m = 1 - p_x / p_b
                p_a *= m if m > 0 else 0.5
            b, p_b, side = x, p_x, 1
    return x


def _bracket_below_one(p, K, q_one):
    """A bracket (a, p(a), b, p(b)) with p(a) < 0 < p(b) inside [0, 1], given
    p(1) = q_one > 0 and p(0) < 0: the distance below 1 doubles from 1/K, as
    the root is within O(1/K) of 1 for large K (Proposition 4), so that the
    interpolation starts next to the root rather than across [0, 1]."""
    b, p_b, h = 1.0, q_one, 1.0 / K
    while h < 1:
        p_a = p(1 - h)
        if p_a < 0:
            return 1 - h, p_a, b, p_b
        b, p_b, h = 1 - h, p_a, 2 * h
    return 0.0, p(0.0), b, p_b


def _estimate(gamma, K, mu, side, q_one):
    """A first estimate (x0, slope) of ρ(γ, K) and of dQ/dρ there from (1.7)
    itself; x0 None when P is not finite in float64, slope None when it
    cannot be trusted.

    P = (1.7) in its derived form (``stationarity_derived_scalar``; the
    float form ``stationarity_scalar`` is (ρ−1)² Q, as costly as Q) has a
    fixed number of terms where Q has 2K + 1, and
    P/(ρ−1)² = Q exactly, so the root of p = P/(ρ−1)² is ρ(γ, K); but P
    cancels near its double root at 1, so in float64 this root is only
    approximate (within 1 ulp for 2/3 of the inputs, up to ~1e-10 relative
    next to 1).  p's slope, a central difference over ±1e-7 x0 (rounding in
    p is then far below the change; less next to 1), is Q's slope to about
    1e-6: Newton steps on Q in `_near_bracket` use it.  Both only tell `_near_bracket` where to
    look.  ``side`` and ``q_one`` are the sign and value of Q(1)
    (`_q_at_one`), standing in for p at 1 (0/0 there)."""
    derived = gen.stationarity_derived_scalar  # 10-16 calls: bound once

    def p(r):
        return q_one if r == 1 else derived(r, gamma, K, mu) / (r - 1) ** 2

    try:
        x0 = _anderson_bjorck(p, *(_bracket_below_one(p, K, q_one) if side > 0 else _bracket(p, K, 1.0, q_one)))
    except SolverError:  # P not finite in float64: no estimate, the full search decides
        return None, None
    h = min(1e-7 * x0, abs(x0 - 1) / 4)  # both points on x0's side of 1
    try:
        slope = (p(x0 + h) - p(x0 - h)) / (2 * h)
    except (SolverError, ZeroDivisionError):
        return x0, None
    return x0, slope if 0 < slope < math.inf else None


NEAR_EVALUATIONS = 8  # evaluations of Q before `_near_bracket` gives up


def _near_bracket(q, x0, slope=None):
    """Two neighbouring floats a < b = nextafter(a) with q(a) <= 0 <= q(b), near an estimate x0, or None.

    Q has exactly one positive root (Lemma 1, Descartes) and Q(0) = −γ < 0,
    so Q < 0 below it and Q > 0 above it: the sign of Q(x) says on which
    side of x the root lies, and Q(x), Q(nextafter(x)) of opposite signs
    prove that the root lies between these neighbouring floats.  From each
    evaluated x the next point is the Newton step x − Q(x)/slope (``slope``
    from `_estimate`; without it, the secant through the last two points),
    or x's neighbour towards the root when that step is under half an ulp,
    points the wrong way or returns to a point already evaluated (then
    2^n ulps on).  With the estimate within an ulp (most inputs) that is 2
    evaluations of Q, else mostly 3.  None after `NEAR_EVALUATIONS` or when
    Q overflows (the full search from 1 then decides)."""
    if x0 is None or not x0 > 0:
        return None
    x, known, x_pre, q_pre = x0, {}, None, None
    try:
        for n in range(NEAR_EVALUATIONS):
            q_x = known[x] = q(x)
            if q_x == 0:
                return x, q_x, x, q_x
            towards = 0.0 if q_x > 0 else math.inf
            y = math.nextafter(x, towards)
            q_y = known.get(y)
            if q_y is not None and (q_y == 0 or (q_y > 0) != (q_x > 0)):
                return (x, q_x, y, q_y) if x < y else (y, q_y, x, q_x)
            step = slope or ((q_x - q_pre) / (x - x_pre) if x_pre is not None else 0.0)
            target = x - q_x / step if step > 0 else math.nan
            if not (0 < target < math.inf) or target in known or (target >= x if q_x > 0 else target <= x):
                target = y if q_y is None else x + (y - x) * 2.0 ** (n + 1)
            x_pre, q_pre, x = x, q_x, target
    except SolverError:
        return None
    return None


def optimal_rho(gamma: float, K, mu: float = 1.0) -> float:
    """ρ(γ, K) in float64 (Lemma 1): the root of Q = (1.7)/(ρ−1)² between two
    neighbouring floats, proved by the signs of Q itself there (`_near_bracket`),
    the one with the smaller |Q| (nearly always the nearer).  When no such
    pair is found near the estimate, bracketed Brent (`_brent`) from a bracket
    at 1 (`_bracket`), to a relative accuracy of ``FLOAT_ROOT_RTOL``."""
    K = _check(gamma, K, mu)
    return 1.0 if K == math.inf else _rho_float(float(gamma), K, float(mu))  # K = inf: Proposition 4


def _rho_float(gamma: float, K: int, mu: float) -> float:
    """`optimal_rho` for checked arguments, K finite."""
    side, q_one = _q_at_one(gamma, K, mu)
    if side == 0:
        return 1.0

    if K <= SCALAR_MAX_K:
        deflated = gen.stationarity_deflated_scalar

        def q(r):
            return deflated(r, gamma, K, mu)
    else:
        def q(r):
            return float(gen.stationarity_deflated(r, gamma, K, mu))

    # Q costs 2K + 1 terms per evaluation: bracket the root between
    # neighbouring floats next to a cheap estimate from (1.7) (2 or 3
    # evaluations of Q, 2.3 on average over a grid of 1680 inputs), else
    # search from 1 (~10-15).
    estimate, slope = _estimate(gamma, K, mu, side, q_one)
    bracket = _near_bracket(q, estimate, slope)
    if bracket is None:
        return _brent(q, *_bracket(q, K, 1.0, q_one), what=f"rho(gamma={gamma}, K={K})")
    a, q_a, b, q_b = bracket
    # Equal |Q| (rounding in Q is as large as its change over an ulp): the
    # estimate from (1.7), which has other rounding errors, breaks the tie.
    return a if (abs(q_a), abs(a - estimate)) <= (abs(q_b), abs(b - estimate)) else b


def optimal_rho_mp(gamma, K, mu=1, digits: int = 50):
    """ρ(γ, K) to ``digits`` significant digits (mpmath bracketed Anderson–Björck
    on Q, guard digits added and the caller's precision restored)."""
    import mpmath

    with mpmath.workdps(digits + 15):
        g, m = _mp(gamma, "gamma"), _mp(mu, "mu")
        K = _check(g, K, m)
        if K == math.inf:
            return mpmath.mpf(1)

        def q(r):
            return gen.stationarity_deflated_mp(r, g, K, m)

        q_one = q(1)
        if q_one == 0:
            return mpmath.mpf(1)
        a, _, b, _ = _bracket(q, K, mpmath.mpf(1), q_one)
        root = mpmath.findroot(q, (a, b), solver="anderson", verify=False, maxsteps=500)
        # Certificate: Q changes sign across [root(1 - eps), root(1 + eps)].
        eps = mpmath.mpf(10) ** -(digits + 2)
        if not (q(root * (1 - eps)) < 0 < q(root * (1 + eps))):
            raise SolverError(f"rho(gamma={gamma}, K={K}) not certified to {digits} digits (no sign change of Q)")
        return root


def optimal_rho_by_derivative_mp(gamma, K, mu=1, digits: int = 50, start=None):
    """Second, independent route to ρ(γ, K): the zero of dC/dρ, with the
    derivative of the cost (1.4) taken numerically by mpmath (no use of
    (1.7) or its deflation)."""
    import mpmath

    with mpmath.workdps(2 * digits + 20):
        g, m = _mp(gamma, "gamma"), _mp(mu, "mu")
        K = _check(g, K, m)
        x0 = mpmath.mpf(start if start is not None else optimal_rho(float(g), K, float(m)))

        def dcost(r):
            return mpmath.diff(lambda x: gen.cost_mp(x, g, K, m), r)

        return mpmath.findroot(dcost, (x0, x0 * (1 + mpmath.mpf(10) ** -6)), solver="secant",
                               tol=mpmath.mpf(10) ** (-2 * (digits + 5)))


@dataclass(frozen=True)
class Enclosure:
    """A rigorous enclosure lo <= rho(gamma, K) <= hi (decimal strings)."""

    lo: str
    hi: str
    prec_bits: int  # ball-arithmetic precision of the proof

    @property
    def digits(self) -> float:
        """Correct significant digits the enclosure guarantees."""
        import mpmath

        with mpmath.workdps(len(self.lo) + 10):
            lo, hi = mpmath.mpf(self.lo), mpmath.mpf(self.hi)
            return math.inf if hi == lo else float(-mpmath.log10((hi - lo) / lo))

    def contains(self, x) -> bool:
        """True when lo <= x <= hi, compared at len(lo) + 10 working digits."""
        import mpmath

        with mpmath.workdps(len(self.lo) + 10):
            return mpmath.mpf(self.lo) <= x <= mpmath.mpf(self.hi)


def rho_enclosure(gamma, K, mu=1, digits: int = 50) -> Enclosure:
    """A proved enclosure of ρ(γ, K) of relative width ~10^-digits.

    Proof: Q = (1.7)/(ρ−1)² is evaluated in python-flint ball arithmetic
    (γ, μ as exact decimals, e.g. "0.1") at the two ends; ``Q(lo) < 0 < Q(hi)``
    holding for the balls means it holds for the exact numbers, so Q has a
    root in [lo, hi] (intermediate values), which is ρ(γ, K) because Q has
    exactly one positive root (Lemma 1, Descartes)."""
    import flint
    import mpmath

    digits = require_int(digits, "digits", minimum=5)
    K = require_int(K, "K", minimum=2)
    root = optimal_rho_mp(gamma, K, mu, digits + 5)
    with mpmath.workdps(digits + 15):
        width = mpmath.mpf(10) ** -digits / 4
        lo, hi = (mpmath.nstr(root * (1 + sign * width), digits + 8, strip_zeros=False) for sign in (-1, 1))
    saved = flint.ctx.prec
    bits = int(3.33 * (digits + 20) + 4 * math.log2(K + 2)) + 64
    try:
        flint.ctx.prec = bits
        g, m = _arb(gamma, "gamma"), _arb(mu, "mu")
        if root == 1:
            q1 = gen.stationarity_deflated_arb(1, g, K, m)
            if q1.is_exact() and q1 == 0:
                return Enclosure("1", "1", bits)
        proved = gen.stationarity_deflated_arb(flint.arb(lo), g, K, m) < 0 < gen.stationarity_deflated_arb(flint.arb(hi), g, K, m)
    finally:
        flint.ctx.prec = saved
    if not proved:
        raise SolverError(f"could not prove an enclosure of rho(gamma={gamma}, K={K}) at {digits} digits ({bits}-bit balls)")
    return Enclosure(lo, hi, bits)


def _candidates(rho_opt, lam, mu):
    x = rho_opt * mu / lam
    if isinstance(x, float):
        if not x <= 2.0**53:  # nan fails too
            raise SolverError(f"N = rho mu/lam = {x!r} is no exact float64 count; use digits=...")
        floor, ceil = math.floor, math.ceil
    else:
        import mpmath

        floor, ceil = mpmath.floor, mpmath.ceil
    return sorted({max(1, int(floor(x))), max(1, int(ceil(x)))})


def _cost_of_n(n, lam, mu, gamma, K, mp: bool):
    if mp:
        import mpmath

        r = mpmath.mpf(n) * mpmath.mpmathify(lam) / mpmath.mpmathify(mu)
        return gen.cost_infinite_K_mp(r, gamma, mu) if K == math.inf else gen.cost_mp(r, gamma, K, mu)
    r = n * lam / mu
    return (gen.cost_infinite_K_scalar(r, gamma, mu) if K == math.inf else gen.cost_scalar(r, gamma, K, mu)) + 0.0  # no -0.0


def _best_n(lam, mu, gamma, K, rho_opt, kind):
    """(N, C(N lam/mu, gamma, K)): of floor and ceil of rho_opt mu/lam (at least 1), the one of smaller cost, the smaller on a tie."""
    mp = kind is not float
    return min((_cost_of_n(n, lam, mu, gamma, K, mp), n) for n in _candidates(rho_opt, lam, mu))[::-1]


@dataclass(frozen=True)
class StaticOptimum:
    """The static optimum for one (λ, μ, γ, K) and how it was obtained."""

    lam: float
    mu: float
    gamma: float
    K: float  # int, or math.inf
    rho_opt: float  # ρ(γ, K), float or mpmath.mpf
    N_opt: int  # N(γ, K), Proposition 1
    cost_opt: float  # C(N_opt λ/μ, γ, K): the paper's C_s
    N_approx: int  # large-K rule (1.12)
    gamma_K: float  # γ(K) = μ(K+2)/K (μ for K = ∞)
    method: str
    digits: int | None  # working digits for the mpmath route, None for float64
    rho_enclosure: Enclosure | None = None  # proved bounds on rho_opt (with digits, finite K)
    inputs: str = ex.EXACT  # the model the digits are for: "exact" or "shortest-decimal" (numeric/exact.py)

    def as_json(self) -> dict:
        """The optimum as a JSON-ready dict: floats, or decimal strings of ``digits`` digits when ``digits`` is set."""
        def num(x):
            if self.digits is None:
                return float(x)
            import mpmath

            return mpmath.nstr(x, self.digits)

        return {
            "rho_opt": num(self.rho_opt),
            "N_opt": self.N_opt,
            "cost_opt": num(self.cost_opt),
            "N_approx": self.N_approx,
            "gamma_K": num(self.gamma_K),
            "method": self.method,
            "digits": self.digits,
            **({"rho_enclosure": [self.rho_enclosure.lo, self.rho_enclosure.hi]} if self.rho_enclosure else {}),
        }


def _method(finite: str, K) -> str:
    return "K = inf: rho = 1 (Prop. 4), N by comparing C(rho+-, gamma, oo) (1.11)" if K == math.inf else finite


def static_optimum(lam, mu, gamma, K, digits: int | None = None) -> StaticOptimum:
    """Optimal static crawler count (Proposition 1), its cost (1.4), the
    large-K approximation (1.12) and γ(K).

    λ, μ, γ may be any number :mod:`crawlmath.numeric.exact` reads (ints,
    Fractions, SymPy Rationals, Decimals, decimal strings, mpmath numbers,
    floats); a float means the shortest decimal that prints it (``2.4`` is
    exactly 12/5), and ``inputs`` says whether a float was given (plain
    Python floats and ints in float64's safe range go to the float route as
    they are: their exact reading would give them back unchanged, see
    `_plain`).  With
    ``digits`` (>= 5) the whole computation runs in mpmath at that
    precision from the exact values.  A request whose estimated memory or
    time exceeds the limits (K terms per evaluation of Q) is refused with
    `TooLarge` before any work.

    >>> static_optimum(0.05, 1, 2.4, 15, digits=40).N_opt
    21
    >>> static_optimum("0.05", 1, "12/5", 15).inputs
    'exact'
    """
    if digits is None and _plain(lam) and _plain(mu) and _plain(gamma):
        # to_float(exact(x)) == float(x) for these, and every check of the exact reading passes
        inputs = ex.FLOATS if float in (type(lam), type(mu), type(gamma)) else ex.EXACT
        return _static_float(float(lam), float(mu), float(gamma), require_int(K, "K", minimum=2, allow_inf=True), inputs)
    lam_x, mu_x, gamma_x = (ex.exact(v, argument=name) for v, name in ((lam, "lam"), (mu, "mu"), (gamma, "gamma")))
    inputs = ex.input_kind([lam, mu, gamma])
    require_positive(lam_x, "lam")
    for value, name in ((lam_x, "lam"), (mu_x, "mu"), (gamma_x, "gamma")):
        if value > 0:
            require_float_magnitude(value, name, str(value))  # the float route and the estimates work in float64
    K = _check(gamma_x, K, mu_x)
    if digits is None:
        lam_, mu_, gamma_ = (ex.to_float(v, argument=n) for v, n in ((lam_x, "lam"), (mu_x, "mu"), (gamma_x, "gamma")))
        return _static_float(lam_, mu_, gamma_, K, inputs)
    import mpmath

    digits = require_int(digits, "digits", minimum=5)
    _require_budget(K, digits)
    with mpmath.workdps(digits + 15):
        lam_, mu_, gamma_ = ex.to_mpf(lam_x), ex.to_mpf(mu_x), ex.to_mpf(gamma_x)
        rho = optimal_rho_mp(gamma_x, K, mu_x, digits)
        n, cost = _best_n(lam_, mu_, gamma_, K, rho, mpmath.mpf)
        gk = mu_ if K == math.inf else gen.gamma_K_mp(K, mu_)
        approx = int(gen.large_K_rule_mp(lam_, mu_, gamma_))
        enclosure = None if K == math.inf else rho_enclosure(gamma_x, K, mu_x, digits)
        # mpf values keep the precision they were computed at after the block ends.
        return StaticOptimum(lam_, mu_, gamma_, K, rho, n, cost, approx, gk,
                             _method(f"mpmath {digits} digits: Anderson-Bjorck on Q = (1.7)/(rho-1)^2, "
                                     "enclosure proved in ball arithmetic", K), digits, enclosure, inputs)


def _plain(value) -> bool:
    """True for a Python float or int strictly between ``FLOAT_SAFE_MIN`` and ``FLOAT_SAFE_MAX``: the float
    route may take it as it is.  Its exact reading changes nothing there: the shortest decimal of a float
    rounds back to it and such an int rounds as ``float`` does, so ``to_float(exact(v)) == float(v)``; and
    that reading passes ``require_positive`` and ``require_float_magnitude`` (the bounds are strict: the float
    1e-300 reads as 10^-300, below the bound's binary value, and is refused).  Any other value takes the exact
    reading, with its checks and errors.

    >>> _plain(0.7), _plain(1), _plain("0.7"), _plain(True), _plain(1e-300), _plain(float("nan"))
    (True, True, False, False, False, False)
    """
    return type(value) in (float, int) and FLOAT_SAFE_MIN < value < FLOAT_SAFE_MAX


def _static_float(lam: float, mu: float, gamma: float, K, inputs: str) -> StaticOptimum:
    """`static_optimum`'s float64 route from checked arguments (``inputs``: how the caller's numbers were read)."""
    _require_budget(K, None)
    rho = 1.0 if K == math.inf else _rho_float(gamma, K, mu)  # K = inf: Proposition 4
    n, cost = _best_n(lam, mu, gamma, K, rho, float)
    return StaticOptimum(
        lam, mu, gamma, K, rho, n, cost,
        int(gen.large_K_rule_scalar(lam, mu, gamma)),
        mu if K == math.inf else gen.gamma_K_scalar(K, mu),
        _method("float64: root of Q = (1.7)/(rho-1)^2 between neighbouring floats (signs of Q), Brent as fallback", K), None,
        inputs=inputs,
    )


def _require_budget(K, digits: int | None) -> None:
    """Refuse (`TooLarge`) a request whose evaluations of Q (K + 1 terms each) exceed the memory
    or time limits, from the measured costs above, before any work; K = inf costs like K = 2.
    The digits factor 1 + digits/300 is measured to 1000 digits; beyond, it is within a
    factor 3 of the timings in crawlmath/commands/static.py (K = 10: 2.6 s at 10^4 digits,
    69 s at 4 10^4), enough to refuse a runaway request such as digits = 10**8."""
    k = 2 if K == math.inf else K
    if digits is None:
        if K == math.inf or K <= SCALAR_MAX_K:
            return
        require_memory(FLOAT_BYTES_PER_K * (K + 1), "K", f"K = {K} (float route, {FLOAT_BYTES_PER_K} bytes per K)", value=K)
        require_seconds(FLOAT_SECONDS_PER_K * K, "K", f"K = {K} (float route)", value=K)
        return
    argument, value = ("K", K) if k > 1000 else ("digits", digits)
    k_, d_ = min(k, 10**18), min(digits, 10**18)  # beyond, the estimate is refused anyway; keep it a float
    require_seconds(MP_SECONDS_PER_K * k_ * (1 + d_ / 300), argument, f"K = {K} at {digits} digits (mpmath route)",
                    value=value)


def brute_force_N(lam, mu, gamma, K, n_max: int | None = None) -> int:
    """argmin over n = 1..n_max of C(nλ/μ, γ, K) by enumeration (a check of
    Proposition 1 that does not use ρ(γ, K))."""
    import numpy as np

    n_max = n_max or int(4 * mu / lam) + 10
    rho = np.arange(1, n_max + 1) * lam / mu
    costs = gen.cost_infinite_K(rho, gamma, mu) if K == math.inf else gen.cost(rho, gamma, K, mu)
    return 1 + int(np.argmin(costs))  # argmin returns the first (smallest n) of ties
