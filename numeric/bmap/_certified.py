"""High-precision values for the model of Avrachenkov et al. (seed 000; issues 17, 30): `certified_cost`
encloses J of eq. (2) in arb balls at >= 30 digits for the model's exact inputs (the decimals of the model
file as printed, kept as Fractions through lumping and scaling), cross-checked against float64;
`certify_argmin` decides the cheapest of finitely many policies from those enclosures; `exact_cost` and
`rational_stationary` solve small chains in exact rational arithmetic; `solve_mp`, `evaluate_mp` at a
chosen mpmath precision.

>>> from ._optimise import example_model
>>> c = certified_cost(example_model(K=3), (3, 3, 1, 1))
>>> c.digits >= 30
True
"""
from __future__ import annotations

import math
from fractions import Fraction
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ..errors import InvalidInput, SolverError, TooLarge
from ..tolerance import BMAP_ARGMIN_GAP, FLOAT_REL
from ..validate import require_int, require_real
from ._core import BmapModel, Policy
from ._generator import enumerate_transitions, state_list
from ._stationary import Stationary, split_levels
from ._measures import Measures, exact_ball, exact_fmpq, measures
from ._batched import check_level_vectors
from ._optimise import Optimum, evaluate_levels


HP_STATE_LIMIT = 600  # ball-arithmetic solves: a dense arb LU of at most this many states


RATIONAL_STATE_LIMIT = 200  # exact rational solves (`exact_cost`): rationals grow with the chain, keep it small


def rational_stationary(model: BmapModel, levels: Sequence[int]) -> np.ndarray:
    """p of the *enumerated* generator in exact rational arithmetic
    (``flint.fmpq_mat`` solve of ``Q^T`` with its last row replaced by
    ``p e = 1``), every rate the model's exact input; up to
    ``RATIONAL_STATE_LIMIT`` states (`TooLarge` before any work)."""
    import flint  # lazy: only the high-precision routes need it

    if model.states > RATIONAL_STATE_LIMIT:
        raise TooLarge("K", f"the exact rational solve is limited to {RATIONAL_STATE_LIMIT} states (this chain has {model.states})",
                       value=model.K)
    index = {s: n for n, s in enumerate(state_list(model))}
    n = len(index)
    A = [[flint.fmpq(0)] * n for _ in range(n)]
    for s, t, rate in enumerate_transitions(model, levels, num=exact_fmpq):
        A[index[t]][index[s]] += rate
        A[index[s]][index[s]] -= rate
    A[n - 1] = [flint.fmpq(1)] * n
    x = flint.fmpq_mat(A).solve(flint.fmpq_mat([[0]] * (n - 1) + [[1]]))
    return np.array([x[k, 0] for k in range(n)], dtype=object)


def exact_cost(model: BmapModel, levels: Sequence[int]) -> Fraction:
    """J (eq. 2) of the policy with levels ``(chi(0), ..., chi(K))`` as an
    exact rational: p from `rational_stationary`, every measure in exact
    arithmetic from the model's exact inputs (small chains only).  A
    reference the certified enclosures are tested against.

    >>> from crawlmath.numeric.bmap import evaluate, load_model
    >>> m = load_model("avrachenkov-example.json", K=2)
    >>> J = exact_cost(m, (3, 3, 1))
    >>> abs(float(J) - evaluate(m, Policy((3, 1), (1,))).cost) < 1e-12 * float(J)
    True
    """
    levels = tuple(levels)
    check_level_vectors(model, [levels])
    st = Stationary(split_levels(model, rational_stationary(model, levels)), "exact rational solve", 0.0)
    J = measures(model, levels, st, rational=True).cost
    return Fraction(int(J.p), int(J.q))


def _arb_stationary(model: BmapModel, levels: Sequence[int], ball: Callable) -> np.ndarray:
    """p of the *enumerated* generator as arb balls (at the caller's
    ``flint.ctx.prec``): ``Q^T`` with its last row replaced by ``p e = 1``,
    solved by arb's LU; every input rate converted by ``ball``."""
    import flint  # lazy: only the high-precision routes need it

    if model.states > HP_STATE_LIMIT:
        raise TooLarge("K", f"the ball-arithmetic solve is limited to {HP_STATE_LIMIT} states (this chain has {model.states})",
                       value=model.K)
    index = {s: n for n, s in enumerate(state_list(model))}
    n = len(index)
    A = flint.arb_mat(n, n)
    diag = [flint.arb(0)] * n
    for s, t, rate in enumerate_transitions(model, levels, num=ball):
        A[index[t], index[s]] += rate
        diag[index[s]] -= rate
    for j in range(n):
        A[j, j] += diag[j]
        A[n - 1, j] = 1
    b = flint.arb_mat(n, 1)
    b[n - 1, 0] = 1
    try:
        # plain ball LU: ~10x faster than arb's default preconditioned solve on these chains, and its enclosures (a few
        # digits wider) stay far below what the callers need (checked by them: they test the radius they get)
        x = A.solve(b, algorithm="lu")
    except ZeroDivisionError:
        raise SolverError(f"arb LU: the {n}-state system is singular at {flint.ctx.prec} bits (a reducible chain?)") from None
    return np.array([x[k, 0] for k in range(n)], dtype=object)


def solve_mp(model: BmapModel, levels: Sequence[int], dps: int = 50) -> Stationary:
    """Ball-arithmetic (python-flint ``arb``) LU of the *enumerated* generator
    at about ``dps`` digits (small K only).  The entries enclose the model's
    exact inputs; ``residual`` is the largest relative radius of the enclosures of
    ``p``, i.e. a rigorous bound ``10^-digits``."""
    import flint  # lazy: only the high-precision routes need it
    import mpmath  # lazy: only the high-precision routes need it

    old = flint.ctx.prec
    flint.ctx.prec = int(dps * 3.33) + 20
    try:
        x = _arb_stationary(model, levels, exact_ball)
        xs = np.array([_arb_to_mpf(v, mpmath) for v in x], dtype=object)
        # 1e-300 is not a tolerance: it guards the division for a ball whose midpoint is 0
        rel = max(float(v.rad()) / max(abs(float(v.mid())), 1e-300) for v in x)
    finally:
        flint.ctx.prec = old
    return Stationary(split_levels(model, xs), f"arb ball LU ({dps} digits, enumerated generator)", rel)


def ball_cost(model: BmapModel, levels: Sequence[int], ball: Callable | None = None, prec: int = 170) -> "flint.arb":
    """An arb ball enclosing J (eq. 2) of the model whose exact inputs x are
    replaced by the balls ``ball(x)`` (default `exact_ball`): p from
    `_arb_stationary`, the measures in ball arithmetic, at ``prec`` bits
    (restored afterwards)."""
    ball = exact_ball if ball is None else ball
    import flint  # lazy: only the high-precision routes need it

    old = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        x = _arb_stationary(model, levels, ball)
        st = Stationary(split_levels(model, x), "arb ball LU", 0.0)
        return measures(model, levels, st, ball=ball).cost
    finally:
        flint.ctx.prec = old


@dataclass(frozen=True)
class CertifiedValue:
    """A measure certified by ball arithmetic (issues 17, 30).

    ``value`` (mpmath) is the midpoint of an arb enclosure of the measure of
    the model with its exact inputs (the decimals of the model file as
    printed, kept exact through scaling and lumping); ``radius`` bounds
    ``|value - that measure|`` rigorously, so ``digits`` =
    ``-log10(radius/|value|)`` significant digits are certified.
    ``float_value`` is the float64 route (Lemma blocks, SuperLU), checked to
    agree within ``FLOAT_REL``."""

    value: object  # mpmath.mpf
    radius: float
    float_value: float
    digits: float
    method: str

    @property
    def error_bound(self) -> float:
        """Bound on ``|float(value) - J|``: the radius plus the float conversion of ``value`` (half an ulp, doubled for
        safety)."""
        return self.radius + float(np.spacing(abs(float(self.value))))

    def value_str(self, n: int = 35) -> str:
        """The value with ``n`` significant digits and its bound, for a claim's detail."""
        import mpmath  # lazy: only the high-precision routes need it

        return f"{mpmath.nstr(self.value, n)} (± {self.radius:.1e} for the model's exact decimal inputs; {self.digits:.0f} digits)"

    def ball(self):
        """The enclosure ``value ± radius`` as an arb (for propagating bounds
        through formulas such as R = 100 (1 - C*/min C_r)).  Its midpoint is
        ``value`` exactly (a binary mpmath number, moved bit for bit), so the
        ball is as narrow as the certificate, not float64-wide (issue 30: it
        was ``float(value) ± error_bound``, ~1e-16 relative)."""
        import flint  # lazy: only the high-precision routes need it

        man, exp = self.value.man_exp
        old = flint.ctx.prec
        flint.ctx.prec = max(old, int(man).bit_length() + 8)  # man · 2^exp exactly
        try:
            mid = flint.arb(int(man)) * flint.arb(2) ** int(exp)
        finally:
            flint.ctx.prec = old
        return flint.arb(mid.mid(), self.radius)


def certified_cost(model: BmapModel, levels: Sequence[int], digits: int = 30, float_cost: float | None = None) -> CertifiedValue:
    """J (eq. 2) of the policy with levels ``(chi(0), ..., chi(K))`` to at
    least ``digits`` significant digits, with rigorous bounds (`certify` of
    `ball_cost`; the float route is ``float_cost`` or `evaluate_levels`);
    cached per (model, levels, digits).  Above ``HP_STATE_LIMIT`` states:
    `TooLarge`, before any work."""
    if model.states > HP_STATE_LIMIT:
        raise TooLarge("K", f"certified values need the ball-arithmetic solve, limited to {HP_STATE_LIMIT} states "
                            f"(this chain has {model.states})", value=model.K)
    digits = require_int(digits, "digits", minimum=1)
    levels = tuple(levels)
    return model.memo(("certified", levels, digits),
                      lambda: certify(lambda ball, prec: ball_cost(model, levels, ball, prec),
                                      evaluate_levels(model, levels).cost if float_cost is None else float_cost, digits, "J"))


def certify(compute: Callable, float_value: float, digits: int = 30, what: str = "value") -> CertifiedValue:
    """Certify a number given ``compute(ball, prec) -> arb`` (its enclosure
    when every exact input x is replaced by ``ball(x)``, at ``prec`` bits).

    (1) ``compute(exact_ball, prec)`` from ``(digits + 15) log2(10)`` bits,
    doubled (at most 3 times) until the enclosure is ``10^-digits``
    relative; (2) ``float_value``, the float64 route, which must lie within
    ``FLOAT_REL`` of (1).  A failed check is a `SolverError` naming both
    values.  The inputs are exact, so no widening for input rounding is
    needed: the enclosure is that of the model as written."""
    import mpmath  # lazy: only the high-precision routes need it

    prec = int((digits + 15) * 3.33) + 10
    for _ in range(4):
        x = compute(exact_ball, prec)
        mid, rad = _arb_to_mpf(x, mpmath), float(x.rad())
        if mid and rad <= abs(mid) * 10.0 ** -digits:
            break
        prec *= 2
    else:
        raise SolverError(f"{what}: enclosure {x.str(20)} not {digits}-digit accurate at {prec // 2} bits")
    fl = float(float_value)
    if not abs(fl - float(mid)) <= FLOAT_REL * abs(fl):
        raise SolverError(f"{what}: float64 {fl!r} disagrees with the ball-arithmetic {mpmath.nstr(mid, 30)} "
                          f"(relative {abs(fl - float(mid)) / abs(fl):.2e} > {FLOAT_REL:g})")
    with mpmath.workdps(digits + 20):
        dig = float(-mpmath.log10(mpmath.mpf(rad) / abs(mid))) if rad else math.inf
    return CertifiedValue(mid, rad, fl, dig, f"arb balls at {prec} bits from the exact inputs, float64 cross-check")


ARGMIN_GAP = BMAP_ARGMIN_GAP  # candidates within this relative distance of the float minimum are recomputed with balls


@dataclass(frozen=True)
class CertifiedArgmin:
    """The cheapest of a finite set of policies, decided from enclosures.

    ``label``/``levels``: the argmin; ``cost``: its certified J; ``decided``:
    its enclosure lies strictly below that of every other candidate
    recomputed (those whose float J is within ``gap`` of the float minimum);
    ``tied``: labels of the candidates whose enclosures overlap it (a genuine
    or unresolved tie; empty when decided); ``cost_bound``: a bound on
    ``|float(cost.value) - min J|`` that holds even under a tie.  Candidates
    beyond the gap are taken as larger from their float J: float64 J agrees
    with the ball value to ``FLOAT_REL`` on every recomputed candidate
    (``float_dev`` is the largest relative deviation seen), and ``gap`` is
    1000 times that."""

    label: object
    levels: tuple
    cost: CertifiedValue
    decided: bool
    tied: tuple
    cost_bound: float
    recomputed: int
    candidates: int
    float_dev: float
    gap: float

    @property
    def error_bound(self) -> float | None:
        """0 when the argmin is decided (the cell engine then calls an exact cell certain), else None."""
        return 0.0 if self.decided else None

    def summary(self) -> str:
        """One line for a claim's detail: how the argmin was decided."""
        how = ("decided by disjoint enclosures" if self.decided else
               f"NOT decided: enclosures overlap with {', '.join(map(str, self.tied))} (a tie)")
        return (f"argmin {how}; {self.recomputed} of {self.candidates} candidates within {self.gap:g} (relative) of the float minimum "
                f"recomputed with balls (float64 vs ball J: <= {self.float_dev:.1e} relative); J = {self.cost.value_str()}")


def certify_argmin(model: BmapModel, candidates: Sequence[tuple], gap: float = ARGMIN_GAP, digits: int = 30) -> CertifiedArgmin:
    """The argmin of J over ``candidates`` = ``[(label, levels, float J), ...]``.

    Candidates with the same levels are the same chain (the first label
    stands for them).  Every distinct chain whose float J is at most
    ``(1 + gap)`` times the float minimum gets `certified_cost`; the argmin
    is the smallest enclosure (``value ± error_bound``), decided when it lies
    below all the others."""
    if not candidates:
        raise InvalidInput("candidates", "needs at least one policy", value=0)
    gap = require_real(gap, "gap")
    if not 0 < gap < 1:
        raise InvalidInput("gap", "must lie in (0, 1)", value=gap)
    distinct: dict = {}
    for label, levels, cost in candidates:
        distinct.setdefault(tuple(levels), (label, float(cost)))
    low = min(c for _, c in distinct.values())
    near = [(lab, lv, c) for lv, (lab, c) in distinct.items() if c <= low + gap * abs(low)]
    cert = [(lab, lv, certified_cost(model, lv, digits, c)) for lab, lv, c in near]
    lab, lv, best = min(cert, key=lambda x: x[2].value)
    hi = best.value + best.error_bound
    tied = tuple(l for l, v, c in cert if v != lv and c.value - c.error_bound <= hi)
    bound = max([best.error_bound] + [c.error_bound for l, _, c in cert if l in tied])
    dev = max(abs(c.float_value - float(c.value)) / abs(float(c.value)) for _, _, c in cert)
    return CertifiedArgmin(lab, lv, best, not tied, tied, bound, len(cert), len(distinct), dev, gap)


def certified_optimum(model: BmapModel, opt: Optimum, gap: float = ARGMIN_GAP, digits: int = 30) -> CertifiedArgmin:
    """`certify_argmin` over the threshold candidates of one mode set (``opt.curve`` from `optimize`); labels are the thresholds."""
    return certify_argmin(model, [(th, Policy(opt.modes, th).levels(model.K), c) for th, c in opt.curve], gap, digits)


def _arb_to_mpf(a, mpmath):
    """The midpoint of the arb ``a`` as an exact mpmath number (whatever the current mpmath precision)."""
    man, exp = a.mid().man_exp()
    with mpmath.workprec(max(53, int(man).bit_length())):
        return mpmath.ldexp(mpmath.mpf(int(man)), int(exp))


def evaluate_mp(model: BmapModel, policy: Policy, dps: int = 50) -> Measures:
    """All measures at ``dps`` digits (mpmath numbers in the result); the
    stationary vector from `solve_mp`, the measures in mpmath."""
    import mpmath  # lazy: only the high-precision routes need it

    levels = model.check_policy(policy)
    with mpmath.workdps(dps):
        st = solve_mp(model, levels, dps)
        return measures(model, levels, st, mp=True)
