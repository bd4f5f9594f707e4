"""Certified gains of a crawler policy: high precision, exact rationals, and Odoni bounds at scale."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import scipy.sparse as sps

from ..errors import InvalidInput, SolverError, TooLarge
from ..linalg._multichain import bordered_lu, closed_classes
from ..markov._ctmc import fixed_point, gth_levels, integer_ratio, refine_stationary
from ..tolerance import MDP_EXACT_LAW_ABS, MDP_GAIN_REL_WIDTH, MDP_GTH_SLACK_REL
from ..validate import require_int
from ._model import CrawlerMDP


# ------------------------------------------------------------ high precision


@dataclass(frozen=True)
class HPGain:
    """A high-precision gain: the value (mpf or Fraction), its estimated correct significant digits, the method and its step count."""
    gain: object  # mpmath.mpf or Fraction
    digits: float  # estimated correct significant digits
    method: str
    iterations: int


def gain_hp(mdp: CrawlerMDP, policy: np.ndarray, dps: int = 40, max_steps: int = 12) -> HPGain:
    """Gain of a unichain ``policy`` to ``dps`` significant digits: mixed-precision
    iterative refinement of g + h = c + P(π)h, h(x̂) = 0, with *exact*
    integer residuals from the decimal-exact parameters and corrections from
    the float64 sparse LU (:func:`refine_bias`), until the exact bounds on
    the gain, [min, max] over the recurrent class of c + P h − h, are
    10^-(dps+2) relative wide.  The gain is their midpoint; ``digits`` is
    what their width certifies (the bounds hold whatever h is).  The scale of
    θ comes from the relative-accurate stationary law, so tiny gains get
    their digits too."""
    import mpmath  # imported on the high-precision paths only (slow to import)

    dps = require_int(dps, "dps", minimum=1)
    chain = policy_chain(mdp, policy)
    _, rec, theta, _ = _stationary_accurate(mdp, chain)
    if not theta > 0:
        raise SolverError(f"θ = π c = {theta!r}: the stationary law underflows on the costly states")
    bb = refine_bias(mdp, policy, Fraction(theta) / 10 ** (dps + 2), recurrent=rec, max_steps=max_steps)
    lo, hi = bb.policy
    mid = (lo + hi) / 2
    half = (hi - lo) / 2
    digits = float(dps + 10) if half == 0 else min(dps + 10.0, math.log10(mid / half))
    with mpmath.workdps(dps):
        g = mpmath.mpf(mid.numerator) / mid.denominator
    return HPGain(g, digits, "mixed-precision iterative refinement (float64 LU, exact integer residuals)", bb.steps)


def _post_decision_one(mdp: CrawlerMDP, q: int, r: int, s: int, a: int) -> tuple[int, int]:
    if s == 0:
        return q - 1, min(r + a, mdp.N)
    if s == 1:
        return min(q + 1, mdp.K), r - 1 + a
    return q, r


def ctmc_of_policy(mdp: CrawlerMDP, policy: np.ndarray):
    """The continuous-time chain on post-decision states (q, r) that the
    uniformised MDP samples: arrivals at rate λr move to (min(q+1,K),
    r−1+π(q,r,1)), departures at rate μ to (q−1, min(r+π(q,r,0), N)).
    Returns (states, transitions {i: [(j, rate-as-Fraction)]}, cost rate
    per state as Fractions): γ·1(q=0) + λr·1(q=K) (starvation + loss rate)."""
    lam, mu, gam = mdp.exact("lam"), mdp.exact("mu"), mdp.exact("gamma")
    act = {tuple(map(int, x)): int(a) for x, a in zip(mdp.states, policy)}
    start = (0, mdp.N) if (0, mdp.N, 2) in act else (1, mdp.N)
    seen, order, trans = {start: 0}, [start], {}
    while len(trans) < len(order):
        i = len(trans)
        q, r = order[i]
        out = []
        if r > 0:
            out.append((_post_decision_one(mdp, q, r, 1, act[(q, r, 1)]), lam * r))
        if q > 0:
            out.append((_post_decision_one(mdp, q, r, 0, act[(q, r, 0)]), mu))
        trans[i] = []
        for y, rate in out:
            if y == (0, 0):
                raise SolverError("policy reaches the absorbing state (0, 0)")
            if y not in seen:
                seen[y] = len(order)
                order.append(y)
            trans[i].append((seen[y], rate))
    cost = [gam * (q == 0) + lam * r * (q == mdp.K) for q, r in order]
    return order, trans, cost


def gain_exact(mdp: CrawlerMDP, policy: np.ndarray, max_states: int = 600) -> HPGain:
    """The gain of ``policy`` as an exact rational: the stationary law of
    the continuous-time chain of :func:`ctmc_of_policy` on the states
    reachable from (0, N) (or (1, N)), solved in exact arithmetic with
    python-flint's fmpq_mat, then restricted to its closed class."""
    import flint  # imported on the exact path only

    order, trans, cost = ctmc_of_policy(mdp, policy)
    # keep the closed class reachable from the start: states every state reaches
    n = len(order)
    rows, cols = [], []
    for i, lst in trans.items():
        for j, _ in lst:
            rows.append(i)
            cols.append(j)
    G = sps.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    cls = closed_classes(G)
    if len(cls) != 1:
        raise SolverError(f"policy has {len(cls)} recurrent classes")
    rec = [int(i) for i in cls[0]]
    m = len(rec)
    if m > max_states:
        raise TooLarge("policy", f"recurrent class must have <= {max_states} states for exact arithmetic", value=m)
    pos = {i: k for k, i in enumerate(rec)}
    Qm = flint.fmpq_mat(m, m)
    for i in rec:
        for j, rate in trans[i]:
            fr = flint.fmpq(rate.numerator, rate.denominator)
            Qm[pos[i], pos[j]] += fr
            Qm[pos[i], pos[i]] -= fr
    # π Q = 0, Σπ = 1: transpose and replace the first equation
    A = Qm.transpose()
    for k in range(m):
        A[0, k] = 1
    b = flint.fmpq_mat(m, 1)
    b[0, 0] = 1
    pi = A.solve(b)
    g = sum((pi[pos[i], 0] * flint.fmpq(cost[i].numerator, cost[i].denominator) for i in rec), flint.fmpq(0))
    return HPGain(Fraction(int(g.p), int(g.q)), math.inf, "exact rational (python-flint fmpq_mat) on the CTMC", 1)


# ------------------------------------------------------ accurate gain at scale
#
# With K large the optimal chain rarely starves or loses, and θ = π c is tiny
# (K = 120, N = 480, λ = 0.05: θ* ≈ 2.1e-52), far below the absolute error
# of the float bordered solve, and float ties (TIE_REL) hide better actions.  Two routes deliver it to relative accuracy:
#
# 1. π with small relative error in every entry, by the subtraction-free GTH
#    elimination run level by level (q is a level: it moves by at most one),
#    on the chain the policy induces; θ = Σ π c adds positive terms.  With
#    ``digits`` π is refined to that many digits per entry (exact residuals).
# 2. The bias h of the policy refined in fixed point with *exact* integer
#    residuals of g + h = c + P h (the float LU only solves for corrections);
#    then the Odoni bounds min(T h − h) ≤ θ* ≤ g^σ ≤ max_rec(c_σ + P_σ h − h),
#    evaluated exactly in rational arithmetic, bracket θ and are valid for
#    any h: they certify, they are not estimates.
#
# Policy improvement is redone on the exact Q-values of the refined h.

TARGET_REL_WIDTH = MDP_GAIN_REL_WIDTH  # relative width of the gain bounds when no digits are asked


def _exact_rates(mdp: CrawlerMDP) -> tuple[int, int, int, int]:
    """(λL, μL, νL, L): the decimal-exact rates times L, the lcm of the denominators of λ and μ."""
    lam, mu = mdp.exact("lam"), mdp.exact("mu")
    L = math.lcm(lam.denominator, mu.denominator)
    lamL, muL = int(lam * L), int(mu * L)
    return lamL, muL, lamL * mdp.N + muL, L


class _ExactBellman:
    """c(x) + Σ_x' p_xx'(a) h(x') in exact integer arithmetic.

    Probabilities are p = num/(νL) with integer numerators from the
    decimal-exact λ, μ; with h = H/2^F and g = G/2^F (integers H, G) every
    term of the optimality equation times S = unit·2^F, unit = νL·L·den(γ),
    is an integer: c·S = cost·2^F, p h S = num·H·L·den(γ), g S = G·unit.
    """

    def __init__(self, mdp: CrawlerMDP):
        lamL, muL, nuL, L = _exact_rates(mdp)
        gam = mdp.exact("gamma")
        q, s = mdp.states[:, 0], mdp.states[:, 2]
        self.unit = nuL * L * gam.denominator
        self.pf = L * gam.denominator
        self.cost = (q == 0).astype(object) * (gam.numerator * nuL * L) \
            + ((q == mdp.K) & (s == 1)).astype(object) * (nuL * nuL * gam.denominator)
        self.idx, self.num = [], []
        for a in (0, 1):
            idx, prob = mdp.successors[a]
            qp, rp = mdp.post_decision(a)
            qp, rp = np.clip(qp, 0, mdp.K), np.clip(rp, 0, mdp.N)
            rr = np.where(mdp.states[:, 2] == 0, mdp.states[:, 1], rp) if mdp.law == "printed-1.14" else rp
            qp, rr = qp.astype(object), rr.astype(object)
            num = np.stack([(qp > 0) * muL, rr * lamL, (mdp.N - rr) * lamL + (qp == 0) * muL], axis=1)
            num[~mdp.allowed[:, a]] = [nuL, 0, 0]
            num[prob == 0] = 0
            if not np.abs(num.astype(float) / nuL - prob).max() <= MDP_EXACT_LAW_ABS:
                raise SolverError("exact transition numerators disagree with the float transition law")
            self.idx.append(idx)
            self.num.append(num)

    def q_scaled(self, H: np.ndarray, F: int, policy: np.ndarray) -> np.ndarray:
        """(c + P(σ) h) · S for the policy σ (actions per state), h = H / 2^F."""
        pick = policy[:, None] == 1
        idx = np.where(pick, self.idx[1], self.idx[0])
        num = np.where(pick, self.num[1], self.num[0])
        return (self.cost << F) + (num * H[idx]).sum(axis=1) * self.pf


@dataclass(frozen=True)
class PolicyChain:
    """The Markov chain a policy induces, on its recurrent class, with exact integer weights.

    Under the corrected law it is the continuous-time chain on post-decision
    states (q, r) that the uniformised MDP samples (arrivals at rate λr to
    (min(q+1, K), r − 1 + σ(q, r, 1)), departures at rate μ to
    (q − 1, min(r + σ(q, r, 0), N))), a third of the size of X; under the
    printed law (1.14) the next event depends on the pre-decision state, so
    it is the uniformised chain on X itself.  ``weight`` are the transition
    rates (probabilities) times a common integer; the cost rate of state i is
    ``cost[i] / cost_scale`` exactly, and θ = Σ π_i cost[i] / cost_scale.
    """

    level: np.ndarray = field(repr=False)  # q, the level of every state
    src: np.ndarray = field(repr=False)
    dst: np.ndarray = field(repr=False)
    weight: np.ndarray = field(repr=False)  # exact integers (object)
    cost: np.ndarray = field(repr=False)  # exact integers (object)
    cost_scale: int
    lift: object = field(repr=False)  # π of the chain -> (π on X, recurrent states of X)

    @property
    def rates(self) -> sps.csr_matrix:
        """The off-diagonal weights as a float sparse matrix."""
        n = self.level.size
        return sps.csr_matrix((self.weight.astype(float), (self.src, self.dst)), shape=(n, n))


def policy_chain(mdp: CrawlerMDP, policy: np.ndarray) -> PolicyChain:
    """The chain of ``policy`` on its recurrent class (see :class:`PolicyChain`);
    SolverError when the policy has several recurrent classes."""
    pol = mdp.check_policy(policy)
    lamL, muL, nuL, L = _exact_rates(mdp)
    gam = mdp.exact("gamma")
    if mdp.law == "printed-1.14":
        return _dtmc_chain(mdp, pol)
    K, N = mdp.K, mdp.N
    q, r = (v.ravel() for v in np.meshgrid(np.arange(K + 1), np.arange(N + 1), indexing="ij"))
    node = q * (N + 1) + r
    arr, dep = r > 0, q > 0
    a1, a0 = pol[mdp.index[q[arr], r[arr], 1]], pol[mdp.index[q[dep], r[dep], 0]]
    src = np.concatenate([node[arr], node[dep]])
    dst = np.concatenate([np.minimum(q[arr] + 1, K) * (N + 1) + r[arr] - 1 + a1,
                          (q[dep] - 1) * (N + 1) + np.minimum(r[dep] + a0, N)])
    weight = np.concatenate([r[arr].astype(object) * lamL, np.full(int(dep.sum()), muL, dtype=object)])
    move = src != dst  # a loss at q = K that keeps r is no transition
    src, dst, weight = src[move], dst[move], weight[move]
    size = (K + 1) * (N + 1)
    G = sps.csr_matrix((np.ones(src.size), (src, dst)), shape=(size, size))
    # (0, 0) has no transition out, so it is a closed class of its own; a valid policy never enters it
    classes = [C for C in closed_classes(G) if not (C.size == 1 and C[0] == 0)]
    if len(classes) != 1:
        raise SolverError(f"policy has {len(classes)} recurrent classes")
    rec = classes[0]
    pos = np.full(size, -1)
    pos[rec] = np.arange(rec.size)
    keep = pos[src] >= 0
    qs, rs = rec // (N + 1), rec % (N + 1)
    cost = (qs == 0).astype(object) * (gam.numerator * L) + ((qs == K) * rs).astype(object) * (lamL * gam.denominator)

    def lift(pi_post: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # π_X(q, r, s) = π(q, r) · P(next event is s | post-decision (q, r)), exactly the uniformisation
        pi, rec_x = np.zeros(mdp.n), []
        for s, num in ((0, muL * (qs > 0)), (1, lamL * rs), (2, lamL * (N - rs) + muL * (qs == 0))):
            ok = num > 0
            x = mdp.index[qs[ok], rs[ok], s]
            pi[x] = pi_post[ok] * (num[ok] / nuL)
            rec_x.append(x)
        return pi, np.sort(np.concatenate(rec_x))

    return PolicyChain(qs, pos[src[keep]], pos[dst[keep]], weight[keep], cost, L * gam.denominator, lift)


def _dtmc_chain(mdp: CrawlerMDP, pol: np.ndarray) -> PolicyChain:
    """The uniformised chain on X itself (printed law), weights the exact numerators of P_σ over νL."""
    op = _ExactBellman(mdp)
    P = mdp.policy_matrix(pol)
    classes = closed_classes(P)
    if len(classes) != 1:
        raise SolverError(f"policy has {len(classes)} recurrent classes")
    rec = classes[0]
    pos = np.full(mdp.n, -1)
    pos[rec] = np.arange(rec.size)
    pick = pol[rec, None] == 1
    idx = np.where(pick, op.idx[1][rec], op.idx[0][rec])
    num = np.where(pick, op.num[1][rec], op.num[0][rec])
    src = np.repeat(np.arange(rec.size), 3)
    ok = num.ravel() != 0

    def lift(pi_rec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        pi = np.zeros(mdp.n)
        pi[rec] = pi_rec
        return pi, rec

    return PolicyChain(mdp.states[rec, 0], src[ok], pos[idx.ravel()[ok]], num.ravel()[ok], op.cost[rec], op.unit, lift)


@dataclass(frozen=True)
class BiasBounds:
    """The refined bias of a policy σ and the exact Odoni bounds it gives.

    h = H / 2^F with h(ref) = 0; ``optimal`` = [min_x (T h − h)(x), max over the recurrent class of
    (c_σ + P_σ h − h)] brackets the optimal gain θ* and the policy's gain g^σ; ``policy`` =
    [min, max] of c_σ + P_σ h − h over the recurrent class brackets g^σ.  ``gap[x] / scale`` =
    (c_σ + P_σ h)(x) − T(h)(x) ≥ 0 exactly, what switching x to ``better[x]`` gains.  All bounds are
    exact Fractions.
    """

    h: np.ndarray = field(repr=False)  # float64 view of H / 2^F
    optimal: tuple[Fraction, Fraction]
    policy: tuple[Fraction, Fraction]
    gap: np.ndarray = field(repr=False)  # exact integers
    scale: int
    better: np.ndarray = field(repr=False)  # argmin_a of the exact Q-values
    residual: float  # max_x |g + h − T(h)|, exact then rounded
    steps: int
    bits: int

    @property
    def improvement(self) -> np.ndarray:
        """(c_σ + P_σ h − T(h))(x) as floats."""
        return (self.gap / self.scale).astype(float)

    def improvement_over(self, threshold: Fraction) -> np.ndarray:
        """The states where another action lowers c + P h by more than ``threshold`` (exact)."""
        t = Fraction(threshold)
        return (self.gap * t.denominator > t.numerator * self.scale).astype(bool)


def refine_bias(mdp: CrawlerMDP, policy: np.ndarray, width, *, recurrent: np.ndarray | None = None,
                max_steps: int = 40, op: _ExactBellman | None = None, progress=None) -> BiasBounds:
    """Refine the bias of a unichain ``policy`` until the exact bounds on its
    gain are narrower than ``width`` (absolute).

    g + h = c_σ + P_σ h, h(ref) = 0 (ref the first recurrent state) is solved
    by iterative refinement: the residual r = c_σ + P_σ h − g − h is computed
    *exactly* (integers, :class:`_ExactBellman`), the correction from the
    float64 bordered LU, and h is kept in fixed point with F bits after the
    binary point, F chosen so that rounding h costs less than width/64.
    Since g^σ = g + π r for the stationary law π, g^σ ∈ [g + min_rec r, g + max_rec r]
    whatever the accuracy of h; the loop stops when that interval is narrower
    than ``width``.  SolverError when the width stops shrinking.  ``progress(done, total)``, when
    given, is called after each step with the bits of the width reached and asked.
    """
    pol = mdp.check_policy(policy)
    op = _ExactBellman(mdp) if op is None else op
    P = mdp.policy_matrix(pol)
    classes = closed_classes(P)
    if len(classes) != 1:
        raise SolverError(f"policy is multichain ({len(classes)} recurrent classes)")
    if recurrent is not None and not np.array_equal(np.sort(recurrent), classes[0]):
        raise SolverError("the recurrent class lifted from the policy's chain differs from that of P_σ")
    recurrent = classes[0]
    ref = int(recurrent[0])
    width = Fraction(width)
    if not width > 0:
        raise InvalidInput("width", "must be > 0", value=width)
    F = max(60, 8 + width.denominator.bit_length() - width.numerator.bit_length())  # 2^-F <= width / 64
    S = op.unit << F
    lu = bordered_lu(P, ref)
    Z = fixed_point(lu.solve(mdp.cost.astype(float)), F)
    last = math.inf
    for step in range(1, max_steps + 1):
        G = Z[ref]
        H = Z.copy()
        H[ref] = 0
        R = op.q_scaled(H, F, pol) - (H + G) * op.unit
        lo, hi = R[recurrent].min(), R[recurrent].max()
        spread = Fraction(int(hi - lo), S)
        if progress is not None:  # bits reached (−log2 of the spread) against those asked (−log2 width)
            asked = max(1, width.denominator.bit_length() - width.numerator.bit_length())
            progress(asked if spread <= width else min(asked - 1, max(0, S.bit_length() - int(hi - lo).bit_length())),
                     asked)
        if spread <= width:
            break
        if not spread < last / 2:
            raise SolverError(f"bias refinement stalled: gain bounds {float(spread):.3g} wide after {step} steps, "
                              f"{float(width):.3g} asked")
        last = spread
        r, k = integer_ratio(R, S)
        Z = Z + fixed_point(lu.solve(r), F - k)
    else:
        raise SolverError(f"bias refinement did not reach gain bounds {float(width):.3g} wide in {max_steps} steps")
    QS = [op.q_scaled(H, F, np.full(mdp.n, a)) for a in (0, 1)]
    cur = np.where(pol == 1, QS[1], QS[0])
    # T(h): the better allowed action (rows of a disallowed action are placeholders)
    take1 = mdp.allowed[:, 1] & (~mdp.allowed[:, 0] | np.less(QS[1], QS[0]).astype(bool))
    TS = np.where(take1, QS[1], QS[0])
    HU = H * op.unit
    low = Fraction(int((TS - HU).min()), S)
    pol_lo, pol_hi = Fraction(int(lo + G * op.unit), S), Fraction(int(hi + G * op.unit), S)
    return BiasBounds((H / (1 << F)).astype(float), (low, pol_hi), (pol_lo, pol_hi), cur - TS, S,
                      take1.astype(np.int64), float(np.abs(TS - HU - G * op.unit).max() / S), step, F)


@dataclass(frozen=True)
class CertifiedGain:
    """The gain of a policy to relative accuracy, with valid bounds, after policy improvement on exact Q-values.

    ``gain``: θ = π c from the relative-accurate stationary law (route 1; to
    ``digits`` digits when asked, then ``value`` is that exact rational and
    ``text`` its decimal digits); ``bounds`` = (lo, hi), exact Fractions with
    lo ≤ θ* ≤ g^σ ≤ hi (route 2, the Odoni bounds of the refined bias; lo is
    also ≥ 0 since c ≥ 0); ``policy_bounds`` bracket g^σ alone;
    ``relative_width`` = (hi − lo)/θ; ``improvement``: the largest exact
    decrease of c + P h that another action offers, relative to θ (actions
    are changed while it exceeds a quarter of the asked width; ``changes``
    counts them); ``policy``, ``stationary``, ``recurrent`` and ``bias`` (the
    refined :class:`BiasBounds`) of the final policy.
    """

    gain: float
    bounds: tuple[Fraction, Fraction]
    policy_bounds: tuple[Fraction, Fraction]
    relative_width: float
    improvement: float
    changes: int
    policy: np.ndarray = field(repr=False)
    stationary: np.ndarray = field(repr=False)
    recurrent: np.ndarray = field(repr=False)
    bias: BiasBounds = field(repr=False)
    digits: int | None = None
    value: Fraction | None = field(default=None, repr=False)
    text: str | None = None
    method: str = ""

    @property
    def float_bounds(self) -> tuple[float, float]:
        """``bounds`` rounded outwards to floats (still valid)."""
        lo, hi = self.bounds
        flo, fhi = float(lo), float(hi)
        return (math.nextafter(flo, -math.inf) if Fraction(flo) > lo else flo,
                math.nextafter(fhi, math.inf) if Fraction(fhi) < hi else fhi)


def _stationary_accurate(mdp: CrawlerMDP, chain: PolicyChain):
    """(π on X, recurrent states of X, θ = π c as a float, π on the chain): GTH level by level."""
    pi_chain = gth_levels(chain.rates, chain.level)
    theta = math.fsum(pi_chain * chain.cost.astype(float)) / chain.cost_scale
    pi, rec = chain.lift(pi_chain)
    return pi, rec, theta, pi_chain


def certified_gain(mdp: CrawlerMDP, policy: np.ndarray, digits: int | None = None, *,
                   improve: bool = True, max_rounds: int = 20, progress=None) -> CertifiedGain:
    """θ of ``policy`` to relative accuracy with valid bounds, improving the
    policy on exact Q-values first (see the section comment above).

    Without ``digits`` the bounds are :data:`TARGET_REL_WIDTH` wide
    (relative) and ``gain`` is the float θ of route 1; with ``digits`` = D the
    bounds are 10^-(D+2) wide and route 1's π is refined to D + 2 digits per
    entry (:func:`~crawlmath.numeric.markov._ctmc.refine_stationary`), giving θ as an
    exact rational that must lie in route 2's bounds: then its first D digits
    are certified.  SolverError when the routes disagree (both values given).
    ``improve=False`` keeps ``policy`` as given (its gain is then what
    ``gain`` and ``policy_bounds`` describe; ``bounds`` still bracket θ*).
    ``progress(done, total, what)`` follows the bias refinement of each round.

    >>> m = CrawlerMDP(lam=0.1, mu=1, K=5, N=16, gamma=1)
    >>> from crawlmath.numeric.mdp import policy_iteration
    >>> c = certified_gain(m, policy_iteration(m).policy, digits=25)
    >>> c.text, c.relative_width < 1e-26
    ('0.2090741346552569396121615', True)
    """
    if digits is not None:
        digits = require_int(digits, "digits", minimum=1)
    pol = mdp.check_policy(policy).copy()
    op = _ExactBellman(mdp)
    rel = Fraction(TARGET_REL_WIDTH) if digits is None else Fraction(1, 10 ** (digits + 2))
    changes = 0
    for round_ in range(1, max_rounds + 1):
        chain = policy_chain(mdp, pol)
        pi, rec, theta, pi_chain = _stationary_accurate(mdp, chain)
        if not theta > 0:
            raise SolverError(f"θ = π c = {theta!r}: the stationary law underflows on the costly states")
        step = None if progress is None else (lambda done, total: progress(done, total, f"round {round_}: bits of h"))
        bb = refine_bias(mdp, pol, rel * Fraction(theta), recurrent=rec, op=op, progress=step)
        # a change that gains less than a quarter of the width cannot move θ out of the bounds
        worse = bb.improvement_over(rel * Fraction(theta) / 4)
        if not improve or not worse.any():
            break
        changes += int(worse.sum())
        pol = np.where(worse, bb.better, pol)
    else:
        raise SolverError(f"exact policy improvement still changing actions after {max_rounds} rounds")
    lo, hi = bb.policy
    if not lo * (1 - MDP_GTH_SLACK_REL) <= Fraction(theta) <= hi * (1 + MDP_GTH_SLACK_REL):
        raise SolverError(f"route 1 (GTH) θ = {theta!r} lies outside route 2's exact bounds [{float(lo)!r}, {float(hi)!r}]")
    bounds = (max(bb.optimal[0], Fraction(0)), bb.optimal[1])
    width = float((bounds[1] - bounds[0]) / Fraction(theta))
    # within the slack, but the exact bounds may be narrower than GTH's rounding: report a float inside them
    theta = min(max(theta, float(lo)), float(hi))
    method = "GTH by levels (route 1); bias refined with exact residuals, Odoni bounds in rationals (route 2)"
    value = text = None
    if digits is not None:
        import mpmath  # only when digits are asked (slow to import)

        ref = refine_stationary(chain.src, chain.dst, chain.weight, pi_chain, digits + 2)
        value = Fraction(int((ref.mass * chain.cost).sum()), int(ref.mass.sum()) * chain.cost_scale)
        if not lo <= value <= hi:
            raise SolverError(f"route 1 (refined π) θ = {float(value)!r} lies outside route 2's exact bounds "
                              f"[{float(lo)!r}, {float(hi)!r}]")
        with mpmath.workdps(digits + 10):
            text = mpmath.nstr(mpmath.mpf(value.numerator) / value.denominator, digits)
        theta = float(value)
        method += f"; π refined to {digits + 2} digits per entry ({ref.steps} steps)"
    return CertifiedGain(theta, bounds, bb.policy, width, float(Fraction(int(bb.gap.max()), bb.scale) / Fraction(theta)),
                         changes, pol, pi, rec,
                         bb, digits, value, text, method)
