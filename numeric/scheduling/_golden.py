"""The golden-ratio policy's cost ratio (Coffman–Liu–Weber 1997, §5, Theorem 5.1,
Corollary 5.1; Liu–Nain 2005, §1.3.4, Proposition 12, (1.34)).

With q = mu/nu and every page at position s in its Fibonacci bracket
(x = s phi^(-J), s in [1, phi]) the k, N -> infinity cost ratio to C* of (17) is
(derived in :mod:`crawlmath.derive.golden`)

    G(q, s) = sum_m w_m(s) c_m(s)^2 psi_2(c_m(s) q) / psi_2(q),
    psi_2(x) = (e^(-x) - 1 + x)/x^2,

and the ratio of any frequency vector is a frequency-weighted average of G.
H(q) = G(q, 1) is the printed ratio of (18) to (17).  Two interval-arithmetic
certificates (python-flint ``arb``):

- :func:`certify_H_decreasing`: H' < 0 on (0, inf), i.e. D(q) = -R(q)/q > 0
  ((0, q0] by a Taylor enclosure, [q0, Q] by balls, [Q, inf) analytically);
- :func:`certify_profile_bound`: G(q, s) < phi^5/10 on (0, inf) x [1, phi]
  ((0, Q] x [1, phi] by adaptive boxes, [Q, inf) analytically), while
  G(q, phi^2/2) -> phi^5/10 as q -> 0: the supremum phi^5/10 is not attained.

>>> round(float(H(1e-9)), 9), round(2 * PHI**2 / 5, 9)
(1.047213595, 1.047213595)
"""
from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import SolverError
from ..validate import require_int, require_memory, require_positive, require_seconds
from ..generated import golden as gen
from ..tolerance import H_BOX_MIN_WIDTH
from ._access_time import Deterministic
from ._frequencies import (PHI, cyclic_cost, golden_estimate, golden_schedule, make_problem, optimal_frequencies,
                           require_golden_budget)

TWO_PHI2_OVER_5 = 2 * PHI**2 / 5  # lim_(q->0) H(q): the printed constant of (19)
# float64 temporaries per grid point of H_curve / profile_max, and work arrays per
# page of adversarial_ratio_curve (as the schedule command's BYTES_PER_PAGE)
_GRID_BYTES, _PAGE_BYTES = 64, 200
WORST_PROFILE = float(gen.golden_worst())  # phi^5/10 = max_s lim_(q->0) G(q, s), at s = phi^2/2


def H(q):
    """H(q) = G(q, 1) (proof of Corollary 5.1), float64, vectorised, accurate to
    ~1e-15 relative for every q > 0 (the generated cancellation-free form)."""
    return gen.golden_H(q)


def H_curve(q_max: float = 10.0, points: int = 400) -> tuple[np.ndarray, np.ndarray, float]:
    """(q, H(q), 2 phi^2/5) on a log grid of (0, q_max] for the report figure."""
    q_max = require_positive(q_max, "q_max")
    points = require_int(points, "points", minimum=2)
    require_memory(_GRID_BYTES * points, "points", f"a curve of {points} points", value=points)
    qs = np.geomspace(1e-4, q_max, points)
    return qs, np.asarray(H(qs), dtype=float), TWO_PHI2_OVER_5


def profile(q, s):
    """G(q, s): asymptotic cost ratio C(gamma(N))/C* of pages whose frequency sits
    at s in its Fibonacci bracket (x = s phi^(-J)); G(q, 1) = G(q, phi) = H(q)."""
    return gen.golden_profile(np.asarray(q, dtype=float), np.asarray(s, dtype=float))


def profile_max(q, points: int = 801) -> np.ndarray:
    """max over a grid of s in [1, phi] of G(q, s) (for figures: the worst bracket
    position at each q; the certified bound is :func:`certify_profile_bound`)."""
    points = require_int(points, "points", minimum=2)
    qs = np.atleast_1d(np.asarray(q, dtype=float))
    require_memory(_GRID_BYTES * float(qs.size) * points, "points", f"a grid of {qs.size} x {points} (q, s)",
                   value=points)
    ss = np.linspace(1.0, PHI, points)
    return np.max(profile(qs[:, None], ss[None, :]), axis=1)


# --- interval arithmetic helpers ---------------------------------------------------------

def _hull(arb, lo, hi):
    """A ball containing [lo.lower(), hi.upper()] (lo, hi arb balls)."""
    a, b = lo.lower(), hi.upper()
    return (a + b) / 2 + (b - a) / 2 * arb(0, 1)


def _psi3_point(arb, x):
    """psi_3(x) = (e^(-x) - 1 + x - x^2/2)/x^3 at an exact point x >= 0: the
    alternating series -sum_k (-x)^k/(k+3)! with its next term as error when
    x < 1, the closed form otherwise (no cancellation issue in ball arithmetic)."""
    if x == 0:
        return arb(-1) / 6
    if x < 1:
        total, term, k = arb(0), arb(1) / 6, 0
        while True:
            total -= term
            k += 1
            term = term * (-x) / (k + 3)
            if term.abs_upper() < arb(2) ** -200:
                return total + arb(0, 1) * term.abs_upper()
    return ((-x).exp() - 1 + x - x * x / 2) / (x * x * x)


def _psi3_range(arb, xball):
    """An enclosure of psi_3 on the nonnegative part of ``xball``: psi_3 is
    increasing (psi_3(x) = -int_0^1 (1-t)^2/2 e^(-x t) dt)."""
    lo, hi = xball.lower(), xball.upper()
    lo = arb(0) if lo < 0 else lo
    return _hull(arb, _psi3_point(arb, lo), _psi3_point(arb, hi))


@dataclass(frozen=True)
class ProfileCertificate:
    """Interval-arithmetic proof that G(q, s) < phi^5/10 for q > 0, s in [1, phi]."""

    proved: bool
    Q: float
    boxes: int  # boxes of (0, Q] x [1, phi] accepted
    boxes_by_slope: int  # of which accepted by F > 0 (the corner q -> 0, s -> phi^2/2)
    min_margin: float  # smallest certified lower bound of e_2 + q F over boxes accepted by the gap
    tail_margin: float  # phi^5/10 - 1 - e^(-Q/sqrt5)/(Q - 1), lower end
    prec_bits: int
    seconds: float
    method: str = ("python-flint arb: (phi^5/10 - G) psi_2(q) = e_2(s) + q F(q, s) enclosed on adaptive boxes of (0, Q] x [1, phi] "
                   "(psi_3 monotone); [Q, inf) by G <= 1 + e^(-q/sqrt5)/(q - 1)")
    notes: list = field(default_factory=list)


def _slope_ball(arb, B, sb, ql, qh):
    """F(q, s) = B psi_3(q) - sum_m w_m(s) c_m(s)^3 psi_3(c_m(s) q) on the box."""
    qball = _hull(arb, arb(ql), arb(qh))
    F = B * _psi3_range(arb, qball)
    weights = (gen.golden_weight0_arb, gen.golden_weight1_arb, gen.golden_weight2_arb)
    for r, w in enumerate(weights):
        c = gen.golden_rate_arb(sb, r)
        F -= w(sb) * c**3 * _psi3_range(arb, c * qball)
    return F


@functools.lru_cache(maxsize=8)  # a pure function of its arguments, wanted by four claims of two papers
def certify_profile_bound(Q: float = 4.0, prec: int = 96, q_pieces: int = 16, s_pieces: int = 16, max_boxes: int = 400000,
                          bound: str | None = None) -> ProfileCertificate:
    """Prove b - G(q, s) > 0 on (0, inf) x [1, phi] for b = phi^5/10 (or ``bound``,
    a decimal string, to show that a smaller constant cannot be certified).

    On (0, Q]: (b - G) psi_2(q) = e_2(s) + (b - phi^5/10)/2 + q F_b(q, s) with
    e_2 = (phi/5)(s - phi^2/2)^2 >= 0 and F_b = b psi_3(q) - sum_m w_m c_m^3
    psi_3(c_m q) (derived in derive.golden).  A box is accepted when its
    constant part is >= 0 and F_b > 0 on it (then the sum is > 0 for q > 0), or
    when lower(constant part) + max(q) min(lower(F_b), 0) > 0; otherwise it is
    split.  On [Q, inf): G <= 1 + e^(-q/sqrt5)/(q - 1), decreasing in q.
    Raises SolverError when the cover needs more than ``max_boxes`` boxes.
    """
    import flint  # python-flint: loaded only by the ball (certified) routes
    from flint import arb

    t0 = time.perf_counter()
    old = flint.ctx.prec
    try:
        flint.ctx.prec = prec
        worst = gen.golden_worst_arb()
        B = worst if bound is None else arb(bound)
        shift = arb(0) if bound is None else (B - worst) / 2
        phi = (1 + arb(5).sqrt()) / 2
        s_hi = float(phi.upper())  # covers [1, phi]
        stack = [(Q * i / q_pieces, Q * (i + 1) / q_pieces, 1 + (s_hi - 1) * j / s_pieces, 1 + (s_hi - 1) * (j + 1) / s_pieces)
                 for i in range(q_pieces) for j in range(s_pieces)]
        boxes = by_slope = 0
        min_margin = math.inf
        while stack:
            ql, qh, sl, sh = stack.pop()
            if boxes + len(stack) > max_boxes:
                raise SolverError(f"profile bound: more than {max_boxes} boxes needed (last box examined: q in [{ql}, {qh}], s in [{sl}, {sh}])")
            sb = _hull(arb, arb(sl), arb(sh))
            F = _slope_ball(arb, B, sb, ql, qh)
            gap = gen.golden_gap0_arb(sb).lower()
            gap = (arb(0) if gap < 0 else gap) + shift  # e_2 >= 0 exactly
            if F > 0 and gap >= 0:
                boxes += 1
                by_slope += 1
                continue
            margin = gap + arb(qh) * (F.lower() if F.lower() < 0 else arb(0))
            if margin > 0:
                boxes += 1
                min_margin = min(min_margin, float(margin.lower()))
                continue
            if (qh - ql) / Q >= (sh - sl) / (s_hi - 1):
                mid = (ql + qh) / 2
                stack += [(ql, mid, sl, sh), (mid, qh, sl, sh)]
            else:
                mid = (sl + sh) / 2
                stack += [(ql, qh, sl, mid), (ql, qh, mid, sh)]
        tail = B - 1 - (-arb(Q) / arb(5).sqrt()).exp() / (arb(Q) - 1)
        proved = bool(tail > 0)
        return ProfileCertificate(proved, Q, boxes, by_slope, min_margin, float(tail.lower()), prec, time.perf_counter() - t0)
    finally:
        flint.ctx.prec = old


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


def _taylor_coefficients(arb, K, n_terms: int) -> list:
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
    """Prove D > 0 on (0, inf), hence H' < 0 on (0, inf).

    - (0, q0]: D(q) = sum_(n>=3) d_n q^n (d_0 = d_1 = d_2 = 0, checked
      symbolically in the registry); d_n for n < n_terms enclosed in arb, the
      rest bounded by |d_n| <= 3 (2.2)^n/n! (each exponential series of D has
      coefficients at most (1 + b)^n/n! < 2.2^n/n!, weights 2, 2 k0, 2 c);
    - [q0, Q]: D enclosed directly on an adaptive cover by balls;
    - [Q, inf): D e^q > k0 e^((1-a) Q) - 1 > 0 (lambda_1 > k0, lambda_2 > 0).
    """
    import flint  # python-flint: loaded only by the ball (certified) routes
    from flint import arb

    t0 = time.perf_counter()
    old = flint.ctx.prec
    try:
        flint.ctx.prec = prec
        K = _consts(arb)
        notes = []
        if not ((1 + K["b"]) < arb("2.2") and 2 + 2 * K["k0"] + 2 * K["c"] < 3 and K["c"] > 0 and K["k0"] > 0):
            raise SolverError("constants of the Taylor tail bound |d_n| <= 3 (2.2)^n/n! not established")
        d = _taylor_coefficients(arb, K, n_terms)
        B, Kc = arb("2.2"), arb(3)
        x = B * arb(q0)
        fact = arb(1)
        for n in range(2, n_terms + 1):
            fact *= n
        if not (x < n_terms + 1):
            raise SolverError(f"q0 = {q0} too large for {n_terms} Taylor terms")
        tail = Kc * B**n_terms * arb(q0) ** (n_terms - 3) / fact / (1 - x / (n_terms + 1))
        tail_ub = float(tail.mid() + tail.rad())
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
            elif boxes_series < max_boxes and hi - lo > H_BOX_MIN_WIDTH:
                mid = (lo + hi) / 2
                stack += [(lo, mid), (mid, hi)]
            else:
                notes.append(f"series part not certified on [{lo}, {hi}]")
                return Certificate(False, q0, Q, n_terms, boxes_series, 0, min_series, math.nan, tail_ub, math.nan, prec, time.perf_counter() - t0, notes=notes)
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
    qs = np.geomspace(1e-3, 10, 25) if qs is None else np.atleast_1d(np.asarray(qs, dtype=float))
    j = require_int(j, "j", minimum=2)
    k = require_int(k, "k", minimum=2)
    pages = 2 * PHI ** min(j - 2, 1400)  # capped: phi^1475 overflows float64, and far less is refused here
    require_memory(_PAGE_BYTES * pages, "j", f"N = 2 phi^(j-2) = {pages:.3g} pages", value=j)
    require_golden_budget(k)
    _, seconds = golden_estimate(k)
    require_seconds(qs.size * seconds, "qs", f"{qs.size} golden cycles of F_{k} accesses", value=qs.size)
    N = round(2 * PHI ** (j - 2))
    exact = []
    for qv in qs:
        p = make_problem(np.full(N, qv / N), Deterministic(1.0))
        lb = optimal_frequencies(p)
        exact.append(cyclic_cost(golden_schedule(lb.frequencies, k).sequence, p).cost / lb.lower_bound)
    return {"q": qs, "N": N, "k": k, "exact_ratio": np.array(exact), "H": np.asarray(H(qs), dtype=float),
            "profile_worst": np.asarray(profile(qs, PHI**2 / 2), dtype=float), "two_phi2_over_5": TWO_PHI2_OVER_5, "phi5_over_10": WORST_PROFILE}
