r"""Optimal number of always-active crawlers: the M/M/1/K model (Liu–Nain 2005, §1.2.1).

Parameters, as in the paper: ``lam`` (:math:`\lambda`, page rate of one
crawler), ``mu`` (:math:`\mu`, indexing rate), ``gamma`` (:math:`\gamma`,
weight of starvation against loss), ``K`` (buffer size, ``math.inf``
allowed).  :math:`\rho = N\lambda/\mu`.

The minimiser :math:`\rho(\gamma,K)` of the cost (1.4) is the unique
positive root of the deflated stationarity polynomial
:math:`Q = (1.7)/(\rho-1)^2` (see :mod:`crawlmath.derive.static_mm1k`);
:math:`Q(0) = -\gamma < 0` and the sign of :math:`Q(1)` says on which side of
1 the root lies, so it is always bracketed.

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

import flint
import mpmath
import numpy as np
from scipy.optimize import brentq

from .errors import InvalidInput, SolverError
from .generated import static_mm1k as gen
from .validate import require_int, require_positive


def _check(gamma, K, mu):
    require_positive(gamma, "gamma")
    require_positive(mu, "mu")
    return require_int(K, "K", minimum=2, allow_inf=True)


def _mp(value, name):
    """An mpmath number from a number, a Fraction or a decimal string, exact to
    the working precision; refuses anything else with a named error.

    A float means the shortest decimal that prints it (``2.4`` is 12/5, as the
    papers mean, not the binary double nearest to it): the one reading of a
    float under ``digits=``.

    >>> with mpmath.workdps(30):
    ...     print(_mp(2.4, "gamma"), _mp(Fraction(1, 3), "gamma"))
    2.4 0.333333333333333333333333333333
    """
    if isinstance(value, bool):
        raise InvalidInput(name, "must be a real number", value=value)
    if isinstance(value, float):
        value = repr(value)
    if isinstance(value, Fraction):
        return mpmath.mpf(value.numerator) / value.denominator
    try:
        return mpmath.mpmathify(value)
    except (TypeError, ValueError):
        raise InvalidInput(name, "must be a real number", value=value) from None


def _arb(value):
    """The same exact reading in ball arithmetic (a Fraction exactly, anything else via its decimal text)."""
    if isinstance(value, Fraction):
        return flint.arb(value.numerator) / value.denominator
    return flint.arb(repr(value) if isinstance(value, float) else str(value))


def _bracket(q, K, one):
    """A bracket [a, b] with q(a) < 0 < q(b) for Q's unique positive root,
    given q(1) != 0.  Q(0) = -gamma < 0; below 1 the bracket is [0, 1].  Above
    1 the root is within O(1/K) of 1 for large K (Proposition 4), so the
    excess over 1 doubles from 1/K: this never evaluates Q far from its root."""
    if q(one) > 0:
        return 0 * one, one
    a, h = one, one / K
    for _ in range(2000):
        value = q(one + h)
        if value != value or value in (math.inf, -math.inf):
            raise SolverError(f"cannot bracket rho(gamma, K) in float64: Q({1 + h}) overflows; use digits=...")
        if value > 0:
            return a, one + h
        a, h = one + h, 2 * h
    raise SolverError("cannot bracket rho(gamma, K): Q stays negative")


def optimal_rho(gamma: float, K, mu: float = 1.0) -> float:
    """ρ(γ, K) in float64 (Lemma 1): bracketed root (Brent) of Q = (1.7)/(ρ−1)²."""
    K = _check(gamma, K, mu)
    if K == math.inf:
        return 1.0  # Proposition 4
    gamma, mu = float(gamma), float(mu)

    def q(r):
        return float(gen.stationarity_deflated(r, gamma, K, mu))

    if q(1.0) == 0:
        return 1.0
    a, b = _bracket(q, K, 1.0)
    root, info = brentq(q, a, b, xtol=1e-300, rtol=4 * 2.0**-52, maxiter=500, full_output=True, disp=False)
    if not info.converged:
        raise SolverError(f"rho(gamma={gamma}, K={K}): Brent did not converge in float64 ({info.flag}); use digits=...")
    return root


def optimal_rho_mp(gamma, K, mu=1, digits: int = 50):
    """ρ(γ, K) to ``digits`` significant digits (mpmath bracketed Anderson–Björck
    on Q, guard digits added and the caller's precision restored)."""
    with mpmath.workdps(digits + 15):
        g, m = _mp(gamma, "gamma"), _mp(mu, "mu")
        K = _check(g, K, m)
        if K == math.inf:
            return mpmath.mpf(1)

        def q(r):
            return gen.stationarity_deflated_mp(r, g, K, m)

        if q(1) == 0:
            return mpmath.mpf(1)
        a, b = _bracket(q, K, mpmath.mpf(1))
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
    with mpmath.workdps(2 * digits + 20):
        g, m = _mp(gamma, "gamma"), _mp(mu, "mu")
        K = _check(g, K, m)
        x0 = mpmath.mpf(start if start is not None else optimal_rho(float(gamma), K, float(mu)))

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
        with mpmath.workdps(len(self.lo) + 10):
            lo, hi = mpmath.mpf(self.lo), mpmath.mpf(self.hi)
            return math.inf if hi == lo else float(-mpmath.log10((hi - lo) / lo))

    def contains(self, x) -> bool:
        """True when lo <= x <= hi, compared at len(lo) + 10 working digits."""
        with mpmath.workdps(len(self.lo) + 10):
            return mpmath.mpf(self.lo) <= x <= mpmath.mpf(self.hi)


def rho_enclosure(gamma, K, mu=1, digits: int = 50) -> Enclosure:
    """A proved enclosure of ρ(γ, K) of relative width ~10^-digits.

    Proof: Q = (1.7)/(ρ−1)² is evaluated in python-flint ball arithmetic
    (γ, μ as exact decimals, e.g. "0.1") at the two ends; ``Q(lo) < 0 < Q(hi)``
    holding for the balls means it holds for the exact numbers, so Q has a
    root in [lo, hi] (intermediate values), which is ρ(γ, K) because Q has
    exactly one positive root (Lemma 1, Descartes)."""
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
        g, m = _arb(gamma), _arb(mu)
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
    if isinstance(x, float) and not x <= 2.0**53:  # nan fails too
        raise SolverError(f"N = rho mu/lam = {x!r} is no exact float64 count; use digits=...")
    return sorted({max(1, int(mpmath.floor(x))), max(1, int(mpmath.ceil(x)))})


def _cost_of_n(n, lam, mu, gamma, K, mp: bool):
    if mp:
        r = mpmath.mpf(n) * mpmath.mpmathify(lam) / mpmath.mpmathify(mu)
        return gen.cost_infinite_K_mp(r, gamma, mu) if K == math.inf else gen.cost_mp(r, gamma, K, mu)
    r = n * lam / mu
    return float(gen.cost_infinite_K(r, gamma, mu) if K == math.inf else gen.cost(r, gamma, K, mu)) + 0.0  # no -0.0


def _best_n(lam, mu, gamma, K, rho_opt, kind):
    mp = kind is not float
    costs = {n: _cost_of_n(n, lam, mu, gamma, K, mp) for n in _candidates(rho_opt, lam, mu)}
    return min(costs, key=lambda n: (costs[n], n))


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

    def as_json(self) -> dict:
        """The optimum as a JSON-ready dict: floats, or decimal strings of ``digits`` digits when ``digits`` is set."""
        def num(x):
            return float(x) if self.digits is None else mpmath.nstr(x, self.digits)

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

    With ``digits`` the whole computation runs in mpmath at that precision.
    Inputs may be numbers, Fractions or decimal strings; a float means the
    shortest decimal that prints it (``2.4`` is exactly 12/5).

    >>> static_optimum(0.05, 1, 2.4, 15, digits=40).N_opt
    21
    """
    if digits is None:
        require_positive(lam, "lam")
        K = _check(gamma, K, mu)
        lam_, mu_, gamma_ = float(lam), float(mu), float(gamma)
        rho = optimal_rho(gamma_, K, mu_)
        n = _best_n(lam_, mu_, gamma_, K, rho, float)
        return StaticOptimum(
            lam_, mu_, gamma_, K, rho, n, _cost_of_n(n, lam_, mu_, gamma_, K, False),
            int(gen.large_K_rule(lam_, mu_, gamma_)),
            mu_ if K == math.inf else float(gen.gamma_K(K, mu_)),
            _method("float64: Brent on Q = (1.7)/(rho-1)^2", K), None,
        )
    digits = require_int(digits, "digits", minimum=5)
    with mpmath.workdps(digits + 15):
        lam_, mu_, gamma_ = _mp(lam, "lam"), _mp(mu, "mu"), _mp(gamma, "gamma")
        require_positive(lam_, "lam")
        K = _check(gamma_, K, mu_)
        rho = optimal_rho_mp(gamma_, K, mu_, digits)
        n = _best_n(lam_, mu_, gamma_, K, rho, mpmath.mpf)
        cost = _cost_of_n(n, lam_, mu_, gamma_, K, True)
        gk = mu_ if K == math.inf else gen.gamma_K_mp(K, mu_)
        approx = int(gen.large_K_rule_mp(lam_, mu_, gamma_))
        enclosure = None if K == math.inf else rho_enclosure(gamma, K, mu, digits)
        # mpf values keep the precision they were computed at after the block ends.
        return StaticOptimum(lam_, mu_, gamma_, K, rho, n, cost, approx, gk,
                             _method(f"mpmath {digits} digits: Anderson-Bjorck on Q = (1.7)/(rho-1)^2, "
                                     "enclosure proved in ball arithmetic", K), digits, enclosure)


def brute_force_N(lam, mu, gamma, K, n_max: int | None = None) -> int:
    """argmin over n = 1..n_max of C(nλ/μ, γ, K) by enumeration (a check of
    Proposition 1 that does not use ρ(γ, K))."""
    n_max = n_max or int(4 * mu / lam) + 10
    rho = np.arange(1, n_max + 1) * lam / mu
    costs = gen.cost_infinite_K(rho, gamma, mu) if K == math.inf else gen.cost(rho, gamma, K, mu)
    return 1 + int(np.argmin(costs))  # argmin returns the first (smallest n) of ties
