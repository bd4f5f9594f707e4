"""Long-run averages of large sparse chains and MDPs to D digits, exact from the input.

The model's numbers are exact rationals (:mod:`crawlmath.numeric.markov._explicit_io`);
write every rate or probability of the chain as q_ij = W_ij / L and every
reward as c_i = C_i / L_c with integers W, C and common denominators L, L_c.
Two independent routes give the long-run average reward g = Σ_i π_i c_i of
the recurrent class, and must agree:

1. **bias bounds** (the Poisson equation).  For any vector h,

       g = c_i + Σ_{j≠i} q_ij (h_j − h_i) − R_i(h)   and   g = Σ_i π_i (c_i + Σ_j q_ij (h_j − h_i)),

   so g lies in [min_i, max_i] of c_i + Σ_j q_ij (h_j − h_i) over the
   recurrent class, whatever h (Odoni 1969; Puterman 1994, §8.5.2).  h is
   refined by iterative refinement: h = H / 2^F in fixed point, the residual
   computed *exactly* in integers, the correction solved with one float64
   sparse LU of the bordered system (h_ref = 0, g in its place).  The loop
   stops when the bounds are narrower than asked: the bounds are then a
   rigorous enclosure, not an estimate.  For an MDP the same h gives
   min over all states and actions ≤ g* (valid for any h), so the bounds
   also certify that the policy is optimal to that width.
2. **refined stationary law**: π of the recurrent class, from a float64
   start, refined to D + 2 digits in every entry with exact integer residuals
   (:func:`refine_scaled`, from a start that never underflows), giving g = π c as an
   exact rational, which must lie inside route 1's bounds.

Route 1 needs O(nnz) integer operations and one sparse LU per step (about
50 bits per step), route 2 the same: the sizes are limited by the sparse LU's
fill-in and Python's big integers, not by O(n³).  The entries of π themselves
get a second route from :func:`~crawlmath.numeric.markov.stationary_enclosure` (block elimination by
breadth-first levels in ball arithmetic), O(Σ m_l³) for level sizes m_l (timed on
tandem queues by ``python benchmarks/pi_enclosure.py``).

>>> from crawlmath.numeric.markov._explicit_io import parse_drn, DRN_EXAMPLE
>>> r = chain_average(parse_drn(DRN_EXAMPLE), "busy", digits=30)
>>> r.text                                   # λ/(λ+μ) = 0.3/1.3 = 3/13
'0.230769230769230769230769230769'
>>> r.bounds[0] <= Fraction(3, 13) <= r.bounds[1]
True
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import scipy.sparse as sps
import scipy.sparse.linalg as spla
from scipy.sparse import csgraph

from ._ctmc import fixed_point, gth_back_substitute, gth_eliminate_levels, integer_ratio, refine_balance
from ..errors import InvalidInput, SolverError, TooLarge
from ..linalg import closed_classes
from ..validate import require_memory, require_seconds
from ._average_cost import optimal_policy, validate_mdp
from ._ctmc import _sparse_lu

# Measured on 2 shared cores at 30 digits (benchmarks/storm_exact.py): 1.3e-3 s per
# transition for M/M/1/10^4 (π spans 1e-1549: 5000-bit integers), 7e-4 retrial 10^4,
# 3.5e-4 tandem 32x32, 2e-4 admission MDP 10^4; i.e. up to ~2e-4 s per transition and
# step over ~6 steps.  Memory ~3 KB per transition.  Estimates use ~3x of the typical.
SECONDS_PER_TRANSITION_STEP = 5e-5
BYTES_PER_TRANSITION = 10_000
MAX_DENOMINATOR_BITS = 4096  # a common denominator beyond this makes every integer step slow


@dataclass(frozen=True)
class IntegerChain:
    """A chain (or one policy of an MDP) with exact integer weights.

    Transition k goes from state ``src[k]`` to ``dst[k]`` (self-loops
    dropped) at rate or probability ``weight[k] / scale``; the reward of state
    i is ``reward[i] / reward_scale`` (per unit time for a CTMC, per step
    otherwise).  ``recurrent``: the states of its single closed class.
    """

    n: int
    src: np.ndarray = field(repr=False)
    dst: np.ndarray = field(repr=False)
    weight: np.ndarray = field(repr=False)  # Python ints
    scale: int
    reward: np.ndarray = field(repr=False)  # Python ints
    reward_scale: int
    recurrent: np.ndarray = field(repr=False)


@dataclass(frozen=True)
class Average:
    """The long-run average reward g of a chain, certified.

    ``value`` (exact rational from route 2), ``text`` (``digits`` significant
    digits), ``bounds`` (exact Fractions from route 1 that contain g),
    ``stationary`` (π of route 2 as exact integers ``mass`` over their sum, on
    ``recurrent``), ``steps`` (route 1, route 2), ``method``, ``bias`` (route 1's
    refined h, None when g = 0 needed no refinement).
    """

    value: Fraction
    text: str
    digits: int
    bounds: tuple[Fraction, Fraction]
    mass: np.ndarray = field(repr=False)
    recurrent: np.ndarray = field(repr=False)
    steps: tuple[int, int]
    method: str
    bias: "Bias | None" = field(default=None, repr=False)


# ----------------------------------------------------------------- building the integer chain


def common_scale(values) -> tuple[np.ndarray, int]:
    """(integers V, L) with values = V / L exactly, L the lcm of the denominators.

    >>> common_scale([Fraction(1, 10), Fraction(1, 4)])
    (array([2, 5], dtype=object), 20)
    """
    L = 1
    for v in values:
        L = math.lcm(L, v.denominator)
    if L.bit_length() > MAX_DENOMINATOR_BITS:
        raise TooLarge("FILE", f"the common denominator of the model's numbers has {L.bit_length()} bits "
                       f"(limit {MAX_DENOMINATOR_BITS})", value=None)
    out = np.empty(len(values), dtype=object)
    out[:] = [v.numerator * (L // v.denominator) for v in values]
    return out, L


def _graph(n: int, src: np.ndarray, dst: np.ndarray) -> sps.csr_matrix:
    """The directed graph src -> dst on n states as a 0/1 pattern (for :func:`crawlmath.numeric.linalg.closed_classes`)."""
    return sps.csr_matrix((np.ones(src.size), (src, dst)), shape=(n, n))


def integer_chain(n: int, src, dst, value, reward, *, argument: str = "FILE") -> IntegerChain:
    """The chain with transitions ``src -> dst`` of exact ``value`` (Fractions)
    and exact per-state ``reward``; InvalidInput unless it has exactly one
    closed class (the long-run average then does not depend on the start)."""
    src, dst = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
    value = np.asarray(value, dtype=object)
    move = (src != dst) & np.array([v != 0 for v in value], dtype=bool)
    src, dst, value = src[move], dst[move], value[move]
    classes = closed_classes(_graph(n, src, dst))
    if len(classes) != 1:
        shown = [int(C[0]) for C in classes[:5]]
        raise InvalidInput(argument, f"must have a single closed class (it has {len(classes)}, containing states "
                           f"{shown}{'...' if len(classes) > 5 else ''}): the long-run average would depend on the "
                           "initial state", value=None)
    W, L = common_scale(list(value))
    C, Lc = common_scale(list(reward))
    return IntegerChain(n, src, dst, W, L, C, Lc, classes[0])


def check_cost(transitions: int, digits: int, argument: str = "FILE") -> None:
    """Refuse (TooLarge) before the work: time and memory grow with the transitions and the digits."""
    steps = digits // 12 + 4
    what = f"{transitions} transitions at {digits} digits"
    require_memory(BYTES_PER_TRANSITION * transitions * (1 + digits / 60), argument, what, value=transitions)
    require_seconds(2 * SECONDS_PER_TRANSITION_STEP * transitions * steps * (1 + digits / 60), argument, what,
                    value=transitions)


# ----------------------------------------------------------------- route 1: bias bounds


@dataclass(frozen=True)
class Bias:
    """h = H / 2^F (H[ref] = 0) and g ≈ G / 2^F after ``steps`` refinement steps;
    ``residual_scaled`` = exact integers R_i · S (S = scale · reward_scale · 2^F)."""

    H: np.ndarray = field(repr=False)
    G: int
    F: int
    S: int
    steps: int
    bounds: tuple[Fraction, Fraction]


def _float_generator(chain: IntegerChain) -> sps.csr_matrix:
    n = chain.n
    q = chain.weight.astype(float) / chain.scale
    Q = sps.csr_matrix((q, (chain.src, chain.dst)), shape=(n, n))
    return (Q - sps.diags(np.asarray(Q.sum(axis=1)).ravel())).tocsr()


def bias_lu(chain: IntegerChain):
    """Route 1's sparse LU for ``chain``: its float64 generator bordered at the first recurrent state."""
    return _bordered_lu(_float_generator(chain), int(chain.recurrent[0]))


def _bordered_lu(Q: sps.csr_matrix, ref: int):
    """LU of Q with column ``ref`` replaced by −1: unknowns h (h_ref = 0) and g in slot ref."""

    n = Q.shape[0]
    A = Q.tocoo()
    keep = A.col != ref
    M = sps.csc_matrix((np.concatenate([A.data[keep], -np.ones(n)]),
                        (np.concatenate([A.row[keep], np.arange(n)]),
                         np.concatenate([A.col[keep], np.full(n, ref)]))), shape=(n, n))
    try:
        return spla.splu(M)
    except RuntimeError as exc:
        raise SolverError(f"the Poisson equation's bordered system is singular: {exc}") from None


def scaled_values(chain_src, chain_dst, weight, owner, C, H, G: int, F: int, L: int, Lc: int, count: int):
    """(c + Σ_j q (h_j − h_owner)) · S − g · S, exactly, for ``count`` rows
    (states of a chain or choices of an MDP): row r has cost C[r], transitions
    k with chain_src[k] = r to chain_dst[k] of weight W[k], and belongs to
    state owner[r].  S = L · Lc · 2^F."""
    out = np.array([int(c) * L << F for c in C], dtype=object) - G * L * Lc
    if chain_src.size:
        flows = weight * (H[chain_dst] - H[owner[chain_src]]) * Lc
        order = np.argsort(chain_src, kind="stable")
        rows = chain_src[order]
        starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
        out[rows[starts]] += np.add.reduceat(flows[order], starts)
    return out


def refine_bias(chain: IntegerChain, width: Fraction, *, max_steps: int | None = None, lu=None) -> Bias:
    """Route 1: h refined until the bounds [g + min R, g + max R] over the
    recurrent class are narrower than ``width`` (see the module docstring).
    Each step shrinks the residual by the float LU's accuracy (≥ ~30 bits when
    it converges; SolverError when a step does not halve it), from max|c| down
    to ``width``: the default cap allows for that many steps.  ``lu``: the
    bordered LU of this chain (:func:`bias_lu`) when already factored (it
    does not depend on the reward)."""
    n, L, Lc = chain.n, chain.scale, chain.reward_scale
    rec = chain.recurrent
    ref = int(rec[0])
    if width <= 0:
        raise InvalidInput("width", "must be > 0", value=width)
    # rounding h to 2^-F moves each residual by up to 2^-F times the state's exit rate: 2^-F · max rate <= width / 64
    out = np.zeros(n)
    np.add.at(out, chain.src, chain.weight.astype(float) / L)
    rate_bits = max(0, math.ceil(math.log2(max(float(out.max()), 1.0))) + 1)
    F = max(60, 8 + rate_bits + width.denominator.bit_length() - width.numerator.bit_length())
    S = (L * Lc) << F
    if max_steps is None:
        top = max(abs(int(c)) for c in chain.reward) or 1
        max_steps = 10 + (top.bit_length() - Lc.bit_length() + width.denominator.bit_length()
                          - width.numerator.bit_length()) // 30
    lu = bias_lu(chain) if lu is None else lu
    c = chain.reward.astype(float) / Lc
    Z = fixed_point(lu.solve(-c), F)
    owner = np.arange(n)
    last = None
    for step in range(1, max_steps + 1):
        G = int(Z[ref])
        H = Z.copy()
        H[ref] = 0
        R = scaled_values(chain.src, chain.dst, chain.weight, owner, chain.reward, H, G, F, L, Lc, n)
        lo, hi = min(R[rec]), max(R[rec])
        spread = Fraction(int(hi - lo), S)
        if spread <= width:
            return Bias(H, G, F, S, step, (Fraction(int(lo) + G * L * Lc, S), Fraction(int(hi) + G * L * Lc, S)))
        if last is not None and not spread < last / 2:
            raise SolverError(f"bias refinement stalled: bounds {float(spread):.3g} wide after {step} steps, "
                              f"{float(width):.3g} asked")
        last = spread
        r, k = integer_ratio(R, S)
        Z = Z + fixed_point(lu.solve(-r), F - k)
    raise SolverError(f"bias refinement did not reach bounds {float(width):.3g} wide in {max_steps} steps")


# ----------------------------------------------------------------- route 2: refined stationary law


def refined_stationary(chain: IntegerChain, digits: int):
    """π on the recurrent class to ``digits`` digits per entry: (mass, steps), π = mass / Σ mass exactly."""
    rec = chain.recurrent
    pos = np.full(chain.n, -1)
    pos[rec] = np.arange(rec.size)
    keep = (pos[chain.src] >= 0) & (pos[chain.dst] >= 0)
    src, dst, W = pos[chain.src[keep]], pos[chain.dst[keep]], chain.weight[keep]
    if rec.size == 1:
        return np.array([1], dtype=object), 0
    rates = sps.csr_matrix((W.astype(float) / chain.scale, (src, dst)), shape=(rec.size, rec.size))
    mant, expo = float_start(rates)
    return refine_scaled(src, dst, W, mant, expo, digits)


GTH_LEVELS_MAX_WORK = 3e8  # Σ (m_{l-1} + m_l)^2 m_l flops of the level-by-level GTH start (~1 s per 1e8)
GTH_LEVELS_SLOW_WORK = 3e9  # ... when the sparse LU, tried first above GTH_LEVELS_MAX_WORK, loses small entries


def float_start(rates: sps.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """A stationary law π̂_i = mant_i · 2^expo_i with small *relative* error in
    every entry, however small (10^-1500 is common in a long queue), the start of
    the refinement.

    The levels are the breadth-first distances from state 0 in the undirected
    graph of the transitions, so every transition joins levels at most one
    apart and the GTH elimination level by level applies to *any* chain (see
    :func:`crawlmath.numeric.markov._ctmc.gth_levels`; here each level's values are
    rescaled by a power of two in the back substitution, so nothing
    underflows).  Its work Σ (m_{l−1} + m_l)² m_l is small for queueing chains
    (one state per level for a birth-death chain).  Beyond
    ``GTH_LEVELS_MAX_WORK`` a float64 sparse LU gives the start (exponent 0);
    when its absolute error leaves an entry ≤ 0 (π spanning 40 orders of
    magnitude, e.g. a skewed colour law), the GTH start up to
    ``GTH_LEVELS_SLOW_WORK``, else SolverError.  The start only steers the
    refinement: the digits are certified the same way whichever start is used.

    >>> m, e = float_start(sps.csr_matrix(np.array([[0, 1.0], [3.0, 0]])))
    >>> (m * 2.0 ** e / (m * 2.0 ** e).sum()).tolist()
    [0.75, 0.25]
    """

    n = rates.shape[0]
    level = csgraph.shortest_path(rates, unweighted=True, directed=False, indices=0).astype(np.int64)
    sizes = np.bincount(level)
    pairs = sizes[1:] + sizes[:-1]
    work = float(sizes[0]) ** 3 + float((pairs.astype(float) ** 2 * sizes[1:]).sum())
    if work <= GTH_LEVELS_MAX_WORK:
        return _gth_levels_scaled(rates, level)
    Q = (rates - sps.diags(np.asarray(rates.sum(axis=1)).ravel())).tocsr()
    pi = _sparse_lu(Q)
    if np.all(pi > 0):
        return pi, np.zeros(n, dtype=np.int64)
    if work <= GTH_LEVELS_SLOW_WORK:  # the LU's absolute error swamped the small entries: the start that keeps them
        return _gth_levels_scaled(rates, level)
    raise SolverError("the float64 sparse-LU stationary law has entries <= 0 (π spans more orders of magnitude than "
                      f"its absolute accuracy), and the level-by-level GTH start would need {work:.2g} flops "
                      f"(limit {GTH_LEVELS_SLOW_WORK:.0e}): the refinement cannot start")


def _gth_levels_scaled(rates: sps.csr_matrix, level: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """GTH by levels (Grassmann, Taksar & Heyman 1985), top level eliminated
    first, each eliminated state's column A_{:k,k} / s_k kept for the back
    substitution π_k = Σ_{i<k} π_i A_ik / s_k, which adds positive products
    only (O'Cinneide 1993: small relative error in every entry).  Each level's
    π is rescaled by 2^-e (its largest entry in [1/2, 1)) and e accumulated,
    so π of a level 1500 orders of magnitude down is (mantissa, exponent)."""
    n = rates.shape[0]
    R = rates.tocsr().copy()
    R.setdiag(0)
    R.eliminate_zeros()
    members = [np.flatnonzero(level == v) for v in range(int(level.max()) + 1)]
    mant, expo = np.zeros(n), np.zeros(n, dtype=np.int64)
    e_total = 0
    for idx, x, e in gth_back_substitute(gth_eliminate_levels(R, members), members, scaled=True):
        e_total += e
        mant[idx], expo[idx] = x, e_total
    return mant, expo


def refine_scaled(src, dst, weight, mant, expo, digits: int, *, max_steps: int = 40):
    """Iterative refinement of π = π̂ ∘ y, π̂_i = mant_i 2^expo_i, to ``digits``
    digits in every entry: the scaled balance equations

        e_j(y) = Σ_i (π̂_i w_ij / (π̂_j w_j)) y_i − y_j = 0,   w_j = Σ_k w_jk,

    have the coefficients of the time-reversed jump chain (in [0, 1], whatever
    the spread of π), so y ≈ 1 is refined to the same relative accuracy in
    every entry; residuals exact (integers), corrections from one float64
    sparse LU (as :func:`crawlmath.numeric.markov._ctmc.refine_stationary`, with an
    exponent per state).  Returns (mass, steps): π = mass / Σ mass exactly."""
    if not np.all(mant > 0):
        raise SolverError("the start of the refinement has a zero entry")
    ratios = [float(m).as_integer_ratio() for m in mant]
    # π̂_i = num_i / den_i · 2^expo_i = P_i / 2^B exactly (den_i a power of two)
    shift = [int(e) - (d.bit_length() - 1) for (_, d), e in zip(ratios, expo)]
    B = -min(shift)
    P = np.array([num << (sh + B) for (num, _), sh in zip(ratios, shift)], dtype=object)
    w = np.asarray(weight, dtype=object)
    j0 = int(np.argmax(expo + np.log2(mant)))
    ratio = np.ldexp(mant[src] / mant[dst], (expo[src] - expo[dst]).astype(np.int64))
    mass, steps, _ = refine_balance(src, dst, w, P, ratio, j0, digits, max_steps, "refinement of π: ")
    return mass, steps


# ----------------------------------------------------------------- both routes


def decimal_text(value: Fraction, digits: int) -> str:
    """``value`` to ``digits`` significant digits, as mpmath prints it (scientific
    notation below 1e-5 or from 10^digits on).

    >>> decimal_text(Fraction(2, 3), 5), decimal_text(Fraction(1, 3 * 10 ** 900), 3)
    ('0.66667', '3.33e-901')
    """
    import mpmath  # lazy: slow to import; only the high-precision routes need it

    with mpmath.workdps(digits + 10):
        x = mpmath.mpf(value.numerator) / value.denominator
        return mpmath.nstr(x, digits, strip_zeros=False) if value else "0"


def outward_text(value: Fraction, digits: int, up: bool) -> str:
    """``value`` rounded *outwards* (towards +inf when ``up``, else −inf) to
    ``digits`` significant digits, so that a printed lower/upper bound stays a bound.

    >>> outward_text(Fraction(2, 3), 5, up=False), outward_text(Fraction(2, 3), 5, up=True)
    ('0.66666', '0.66667')
    >>> outward_text(Fraction(-2, 3), 3, up=False)
    '-0.667'
    """
    if value == 0:
        return "0"
    # within a few of floor(log10 |value|), from the bit lengths (str() of a 5000-digit integer is refused)
    e = int((abs(value.numerator).bit_length() - value.denominator.bit_length()) * 0.30103)
    while abs(value) >= Fraction(10) ** (e + 1):
        e += 1
    while abs(value) < Fraction(10) ** e:
        e -= 1
    shift = digits - 1 - e
    scaled = value * Fraction(10) ** shift
    k = -((-scaled.numerator) // scaled.denominator) if up else scaled.numerator // scaled.denominator
    sign, k = ("-" if k < 0 else ""), abs(k)
    text = str(k).rjust(max(shift, 0) + 1, "0")
    if shift > 0:
        text = text[:-shift] + "." + text[-shift:]
    else:
        text += "0" * -shift
    return sign + text


def average(chain: IntegerChain, digits: int, stationary: tuple | None = None, lu=None) -> Average:
    """g = Σ π_i c_i to ``digits`` digits by both routes (module docstring);
    SolverError when route 2's exact value lies outside route 1's bounds.
    ``stationary``: route 2's (mass, steps) when already refined to digits + 2
    for this chain's transitions (the rewards do not enter it); ``lu``: route 1's
    bordered LU when already factored (:func:`bias_lu`, reward-free too)."""
    rec = chain.recurrent
    if all(chain.reward[i] == 0 for i in rec):
        mass = np.ones(rec.size, dtype=object)
        return Average(Fraction(0), "0", digits, (Fraction(0), Fraction(0)), mass, rec, (0, 0),
                       "no reward on the recurrent class: g = 0 exactly")
    mass, steps2 = refined_stationary(chain, digits + 2) if stationary is None else stationary
    value = Fraction(int((mass * chain.reward[rec]).sum()), int(mass.sum()) * chain.reward_scale)
    width = abs(value) / 10 ** (digits + 2) if value else Fraction(1, 10 ** (digits + 2))
    bias = refine_bias(chain, width, lu=lu)
    lo, hi = bias.bounds
    if not lo <= value <= hi:
        raise SolverError(f"route 2 (refined π) g = {float(value)!r} lies outside route 1's exact bounds "
                          f"[{float(lo)!r}, {float(hi)!r}]")
    method = (f"bias refined with exact integer residuals, bounds [min, max] of c + Q h on the recurrent class "
              f"({bias.steps} steps); π refined to {digits + 2} digits per entry ({steps2} steps), g = π c exact, "
              "inside the bounds")
    return Average(value, decimal_text(value, digits), digits, (lo, hi), mass, rec, (bias.steps, steps2), method, bias)


def chain_averages(model, rewards, digits: int) -> tuple[dict, IntegerChain, tuple]:
    """The long-run average of each named reward (``rewards``: names of
    ``model``'s reward models) for a CTMC (per unit time) or DTMC (per step)
    read by :mod:`crawlmath.numeric.markov._explicit_io`, certified to ``digits``
    digits: ({name: Average}, the chain, route 2's (mass, steps)), by
    :func:`averages_of`."""
    if model.kind == "mdp":
        raise InvalidInput("FILE", "is an MDP: use crawlmath avg-cost", value=model.source)
    check_cost(model.src.size, digits)
    state_of = model.choice_state
    chain = integer_chain(model.n, state_of[model.src], model.dst, model.value, [0] * model.n)
    rewards_per_state = {}
    for name in rewards:
        r = np.full(model.n, Fraction(0), dtype=object)
        r[state_of] = model.reward_per_choice(name)
        rewards_per_state[name] = list(r)
    out, stationary = averages_of(chain, rewards_per_state, digits)
    return out, chain, stationary


def averages_of(chain: IntegerChain, rewards: dict, digits: int) -> tuple[dict, tuple]:
    """The long-run average of each reward (``rewards``: name -> exact value
    per state) of ``chain``, each by both routes of :func:`average`:
    ({name: Average}, route 2's (mass, steps)).  π is refined once and
    shared; route 1 runs per reward."""
    stationary = refined_stationary(chain, digits + 2)
    lu = bias_lu(chain) if len(rewards) > 1 else None  # one factorisation for every reward's route 1
    out = {}
    for name, r in rewards.items():
        C, Lc = common_scale(list(r))
        out[name] = average(IntegerChain(chain.n, chain.src, chain.dst, chain.weight, chain.scale, C, Lc,
                                         chain.recurrent), digits, stationary, lu)
    return out, stationary


def chain_average(model, reward: str | None, digits: int) -> Average:
    """:func:`chain_averages` of one reward model (``None``: the only one)."""
    name = model._reward_name(reward)
    return chain_averages(model, [name], digits)[0][name]


# ----------------------------------------------------------------- average-cost MDPs


@dataclass(frozen=True)
class OptimalAverage:
    """The optimal long-run average cost g* of an MDP, certified.

    ``policy``: the chosen choice (index into the model's choices) per state;
    ``average``: that policy's :class:`Average` (route 2's exact value inside
    route 1's bounds); ``bounds`` = (lower, upper) exact Fractions with lower ≤
    g* ≤ g^σ ≤ upper (lower = min over every state and action of
    c + Σ_j p (h_j − h_s), valid for any h); ``changes``: actions changed by
    exact policy improvement after float policy iteration; ``bias``: h as floats.
    """

    policy: np.ndarray = field(repr=False)
    average: Average
    bounds: tuple[Fraction, Fraction]
    changes: int
    bias: np.ndarray = field(repr=False)


def float_mdp(model, cost: np.ndarray):
    """(P, c, rank) for :func:`crawlmath.numeric.markov._average_cost.average_cost_mdp`: action k of a
    state is its k-th choice (``rank``), ``inf`` where a state has fewer choices."""
    cs = model.choice_state
    order = np.argsort(cs, kind="stable")
    first = np.searchsorted(cs[order], np.arange(model.n))
    rank = np.empty(cs.size, dtype=np.int64)
    rank[order] = np.arange(cs.size) - first[cs[order]]
    A = int(rank.max()) + 1
    c = np.full((model.n, A), np.inf)
    c[cs, rank] = cost.astype(float)
    P = [sps.csr_matrix((model.value[m].astype(float), (cs[model.src[m]], model.dst[m])), shape=(model.n, model.n))
         for m in (rank[model.src] == a for a in range(A))]
    return P, c, rank


def float_policy(model, cost: np.ndarray, *, max_iter: int = 200) -> np.ndarray:
    """A start for the exact stage, the choice per state: the policy iteration of
    :func:`crawlmath.numeric.markov._average_cost.optimal_policy` (the one float64
    evaluator) on :func:`float_mdp`'s arrays with ``unichain=True``: every
    policy it meets must have one recurrent class (SolverError otherwise).  No residual test here: the
    exact stage improves the policy further and certifies the result."""

    P, c, rank = float_mdp(model, cost)
    return policy_choices(model, rank, optimal_policy(*validate_mdp(P, c), max_iter=max_iter, unichain=True)[0])


def policy_choices(model, rank: np.ndarray, policy: np.ndarray) -> np.ndarray:
    """The model's choice index per state for a policy over :func:`float_mdp`'s actions."""
    choice_of = np.full((model.n, int(rank.max()) + 1), -1, dtype=np.int64)
    choice_of[model.choice_state, rank] = np.arange(rank.size)
    return choice_of[np.arange(model.n), policy]


def _policy_chain(model, W, L: int, C, Lc: int, choice: np.ndarray) -> IntegerChain:
    chosen = np.zeros(model.choice_state.size, dtype=bool)
    chosen[choice] = True
    k = chosen[model.src] & (model.choice_state[model.src] != model.dst) & np.array([w != 0 for w in W], dtype=bool)
    src, dst = model.choice_state[model.src[k]], model.dst[k]
    classes = closed_classes(_graph(model.n, src, dst))
    if len(classes) != 1:
        raise SolverError(f"the optimal policy found has {len(classes)} recurrent classes: --digits needs a "
                          "unichain optimal policy")
    return IntegerChain(model.n, src, dst, W[k], L, C[choice], Lc, classes[0])


def optimal_average(model, reward: str | None, digits: int, *, max_rounds: int = 20) -> OptimalAverage:
    """g* = min over policies of the long-run average of ``reward`` (a cost per
    step) of an MDP read by :mod:`crawlmath.numeric.markov._explicit_io`, to ``digits``
    digits: float policy iteration (:func:`float_policy`), then exact policy improvement on the
    refined bias until no action gains more than a quarter of the width, then
    both routes of :func:`average` on the final policy and the lower bound
    min_{s,a} (c + P h − h) ≤ g*."""
    check_cost(model.src.size, digits)
    cost = model.reward_per_choice(reward)
    choice = float_policy(model, cost)
    W, L = common_scale(list(model.value))
    C, Lc = common_scale(list(cost))
    changes = 0
    for _ in range(max_rounds):
        chain = _policy_chain(model, W, L, C, Lc, choice)
        avg = average(chain, digits)
        width = abs(avg.value) / 10 ** (digits + 2) if avg.value else Fraction(1, 10 ** (digits + 2))
        bias = avg.bias or refine_bias(chain, width)
        V = scaled_values(model.src, model.dst, W, model.choice_state, C, bias.H, bias.G, bias.F, L, Lc,
                          model.choice_state.size) + bias.G * L * Lc
        best = _exact_best(model.choice_state, V, model.n)
        gain = V[best] < V[choice] - int(width * bias.S / 4)
        if not gain.any():
            break
        changes += int(gain.sum())
        choice = np.where(gain, best, choice)
    else:
        raise SolverError(f"exact policy improvement still changing actions after {max_rounds} rounds")
    lower = Fraction(int(min(V)), bias.S)
    upper = bias.bounds[1]
    if not lower <= avg.value <= upper:
        raise SolverError(f"g = {float(avg.value)!r} lies outside the exact bounds [{float(lower)!r}, {float(upper)!r}]")
    return OptimalAverage(choice, avg, (lower, upper), changes, bias.H.astype(float) / 2.0 ** bias.F)


def _exact_best(owner: np.ndarray, V: np.ndarray, n: int) -> np.ndarray:
    """Per state the choice with the least exact value V (Python integers; the first on ties)."""
    best = np.full(n, -1, dtype=np.int64)
    for k, s in enumerate(owner):
        if best[s] < 0 or V[k] < V[best[s]]:
            best[s] = k
    return best
