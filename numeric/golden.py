"""The golden-ratio bound of Coffman–Liu–Weber (1997, §5, Corollary 5.1).

With q = mu/nu the printed ratio of (18) to (17) is

    H(q) = (q - 1 + (1 - 1/phi) e^{-a q} + (1/phi) e^{-b q}) / (q - 1 + e^{-q}),
    a = phi/sqrt5, b = phi^2/sqrt5,

and the text claims H decreasing on q > 0 with H(0+) = 2 phi^2/5.  Since
H' = R/Q^2 with R(q) = -q D(q) and (printed identity, checked symbolically)

    D(q) = lambda_1 e^{-a q} + lambda_2 e^{-b q} - e^{-q},

H is decreasing exactly where D > 0.  :func:`certify_H_decreasing` proves
D > 0 on all of (0, inf) with interval arithmetic (python-flint ``arb``):

- (0, q0]: D(q) = sum_{n>=3} d_n q^n (d_0 = d_1 = d_2 = 0 exactly, checked
  symbolically); the d_n for n < n_terms are enclosed in arb, the rest bounded
  by |d_n| <= 3 (2.2)^n / n! (each of the three exponential series in D has
  coefficients at most (1 + b)^n / n! < 2.2^n / n!, weights 2, 2 k0, 2 c);
  the polynomial is enclosed on a cover of [0, q0].
- [q0, Q]: D enclosed directly on an adaptive cover by balls.
- [Q, inf): D e^q > k0 e^{(1-a) Q} - 1 > 0, since lambda_1 > k0 =
  (sqrt5 - 1)/(2 sqrt5) and lambda_2 > 0.

>>> round(float(H(1e-6)), 6), round(2 * PHI**2 / 5, 6)
(1.047214, 1.047214)
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from .generated import scheduling as gen

PHI = (1 + math.sqrt(5)) / 2
TWO_PHI2_OVER_5 = 2 * PHI**2 / 5
WORST_PROFILE = PHI**5 / 10  # max over s of lim_{q->0} G(q, s), at s = phi^2/2


def H(q):
    """H(q) (proof of Corollary 5.1), float64, vectorised; series near 0."""
    q = np.asarray(q, dtype=float)
    small = np.abs(q) < 1e-3
    with np.errstate(all="ignore"):
        direct = gen.golden_H(q)
    # Below 1e-3 both numerator and denominator lose digits to cancellation;
    # use the mpmath route (exact closed form at 50 digits) instead.
    if np.any(small):
        import mpmath

        with mpmath.workdps(50):
            vals = [float(gen.golden_H_mp(mpmath.mpf(float(v)))) for v in np.atleast_1d(q)[np.atleast_1d(small)]]
        out = np.array(direct, dtype=float, ndmin=1)
        out[np.atleast_1d(small)] = vals
        return out.reshape(q.shape) if q.shape else out[0]
    return direct


def H_curve(q_max: float = 10.0, points: int = 400) -> tuple[np.ndarray, np.ndarray, float]:
    """(q, H(q), 2 phi^2/5) on a log grid of (0, q_max] for the report figure."""
    qs = np.geomspace(1e-4, q_max, points)
    return qs, np.asarray(H(qs), dtype=float), TWO_PHI2_OVER_5


def profile(q, s):
    """G(q, s): asymptotic cost ratio C(gamma(N))/C* of N equal pages whose
    frequency sits at s in its Fibonacci bracket (x = s phi^{-j}); G(q, 1) = H(q)."""
    return gen.golden_profile(np.asarray(q, dtype=float), np.asarray(s, dtype=float))


@dataclass(frozen=True)
class Certificate:
    """Interval-arithmetic proof that H is decreasing on (0, inf)."""

    proved: bool
    q0: float
    Q: float
    n_terms: int
    boxes_series: int
    boxes_direct: int
    min_lower_series: float  # smallest certified lower bound of D/q^3 on (0, q0]
    min_lower_direct: float  # smallest certified lower bound of D on [q0, Q]
    tail_bound: float  # bound on the truncated Taylor tail / q^3 on (0, q0]
    tail_margin: float  # k0 e^{(1-a)Q} - 1 (lower end of its enclosure)
    prec_bits: int
    seconds: float
    method: str = "python-flint arb: Taylor enclosure on (0, q0], adaptive ball cover of [q0, Q], analytic tail"
    notes: list = field(default_factory=list)


def _consts(arb):
    r5 = arb(5).sqrt()
    phi = (1 + r5) / 2
    return dict(a=phi / r5, b=phi * phi / r5, c=1 - 2 / r5, k0=(r5 - 1) / (2 * r5))


def _D_ball(arb, K, qb):
    g = (1 - (-qb).exp()) / qb
    l1 = K["c"] * g + K["k0"]
    return l1 * (-K["a"] * qb).exp() + (1 - l1) * (-K["b"] * qb).exp() - (-qb).exp()


def taylor_coefficients(arb, K, n_terms: int) -> list:
    """Enclosures of d_0..d_{n_terms-1}, the Taylor coefficients of D at 0."""
    fact = [arb(1)]
    for n in range(1, n_terms + 2):
        fact.append(fact[-1] * n)

    def ex(alpha, n):
        return (-alpha) ** n / fact[n] if n else arb(1)

    g = [arb(-1) ** n / fact[n + 1] for n in range(n_terms)]  # (1 - e^{-q})/q
    l1 = [K["c"] * g[0] + K["k0"]] + [K["c"] * g[n] for n in range(1, n_terms)]
    out = []
    for n in range(n_terms):
        diff = [ex(K["a"], i) - ex(K["b"], i) for i in range(n + 1)]
        s = sum((l1[kk] * diff[n - kk] for kk in range(n + 1)), arb(0))
        out.append(s + ex(K["b"], n) - ex(arb(1), n))
    return out


def certify_H_decreasing(q0: float = 1.0, Q: float = 5.0, n_terms: int = 40, prec: int = 128, pieces: int = 64, max_boxes: int = 200000) -> Certificate:
    """Prove D > 0 on (0, inf), hence H' < 0 on (0, inf).  See the module docstring."""
    import flint
    from flint import arb

    t0 = time.perf_counter()
    old = flint.ctx.prec
    try:
        flint.ctx.prec = prec
        K = _consts(arb)
        notes = []
        # Constants used by the tail bound |d_n| <= 3 * 2.2^n / n!.
        assert (1 + K["b"]) < arb("2.2") and 2 + 2 * K["k0"] + 2 * K["c"] < 3 and K["c"] > 0 and K["k0"] > 0
        d = taylor_coefficients(arb, K, n_terms)
        B, Kc = arb("2.2"), arb(3)
        x = B * arb(q0)
        fact = arb(1)
        for n in range(2, n_terms + 1):
            fact *= n
        if not (x < n_terms + 1):
            raise ValueError("q0 too large for n_terms")
        tail = Kc * B**n_terms * arb(q0) ** (n_terms - 3) / fact / (1 - x / (n_terms + 1))
        tail_ub = float(tail.mid() + tail.rad())
        # Polynomial part of D/q^3 on pieces of [0, q0].
        min_series = math.inf
        boxes_series = 0
        stack = [(q0 * i / pieces, q0 * (i + 1) / pieces) for i in range(pieces)]
        while stack:
            lo, hi = stack.pop()
            boxes_series += 1
            qb = arb((lo + hi) / 2, (hi - lo) / 2)
            p = arb(0)
            for n in range(n_terms - 1, 2, -1):  # Horner on d_3 + d_4 q + ...
                p = p * qb + d[n]
            low = float((p - tail).lower())
            if low > 0:
                min_series = min(min_series, low)
            elif boxes_series < max_boxes and hi - lo > 1e-9:
                mid = (lo + hi) / 2
                stack += [(lo, mid), (mid, hi)]
            else:
                notes.append(f"series part not certified on [{lo}, {hi}]")
                return Certificate(False, q0, Q, n_terms, boxes_series, 0, min_series, math.nan, tail_ub, math.nan, prec, time.perf_counter() - t0, notes=notes)
        # Direct enclosure of D on [q0, Q].
        min_direct = math.inf
        boxes_direct = 0
        stack = [(q0 + (Q - q0) * i / pieces, q0 + (Q - q0) * (i + 1) / pieces) for i in range(pieces)]
        while stack:
            lo, hi = stack.pop()
            boxes_direct += 1
            qb = arb((lo + hi) / 2, (hi - lo) / 2)
            low = float(_D_ball(arb, K, qb).lower())
            if low > 0:
                min_direct = min(min_direct, low)
            elif boxes_direct < max_boxes:
                mid = (lo + hi) / 2
                stack += [(lo, mid), (mid, hi)]
            else:
                notes.append(f"direct part not certified on [{lo}, {hi}]")
                return Certificate(False, q0, Q, n_terms, boxes_series, boxes_direct, min_series, min_direct, tail_ub, math.nan, prec, time.perf_counter() - t0, notes=notes)
        margin = K["k0"] * ((1 - K["a"]) * arb(Q)).exp() - 1
        tail_margin = float(margin.lower())
        proved = tail_margin > 0 and (1 - K["a"]) > 0
        return Certificate(proved, q0, Q, n_terms, boxes_series, boxes_direct, min_series, min_direct, tail_ub, tail_margin, prec, time.perf_counter() - t0, notes=notes)
    finally:
        flint.ctx.prec = old


def adversarial_ratio_curve(qs=None, j: int = 10, k: int = 26) -> dict:
    """Exact cost ratio C(gamma(k, N))/C* of N = round(2 phi^(j-2)) equal pages
    (X = 1, so C* = (17) exactly) against q = mu/nu, with H(q) (the printed
    bound of Corollary 5.1) and G(q, phi^2/2) (the asymptotic value for this
    bracket position).  For the report: the exact ratio exceeds H and 2 phi^2/5."""
    from . import scheduling as s
    from .access_time import Deterministic

    qs = np.geomspace(1e-3, 10, 25) if qs is None else np.asarray(qs, dtype=float)
    N = round(2 * PHI ** (j - 2))
    exact = []
    for qv in qs:
        p = s.make_problem(np.full(N, qv / N), Deterministic(1.0))
        lb = s.optimal_frequencies(p)
        exact.append(s.cyclic_cost(s.golden_schedule(lb.frequencies, k).sequence, p).cost / lb.lower_bound)
    return {"q": qs, "N": N, "k": k, "exact_ratio": np.array(exact), "H": np.asarray(H(qs), dtype=float),
            "profile_worst": np.asarray(profile(qs, PHI**2 / 2), dtype=float), "two_phi2_over_5": TWO_PHI2_OVER_5, "phi5_over_10": WORST_PROFILE}
