"""Policy iteration of the crawler MDP of Liu–Nain (2005, §1.2.2) (Puterman 1994, §9.2), each policy evaluated exactly
by LU (the one multichain evaluator, :mod:`crawlmath.numeric.linalg`).

Solvers: :func:`relative_value_iteration` (Proposition 6, with its stopping
rule; x̂ = (1, 1, 1) and h_0 = 0 by default, the reading of the unstated
choices that reproduces every printed count and C_d, found by
:func:`rvi_stop_counts` over all x̂), :func:`policy_iteration` (exact policy evaluation by LU,
then :func:`certified_gain`: improvement on exact Q-values, θ from a relative-accurate
stationary law and valid Odoni bounds, so tiny gains keep their digits),
:func:`gain_hp` (≥ 30 digits by mixed-precision iterative refinement with exact residuals) and
:func:`gain_exact` (exact rationals on the continuous-time chain, python-flint).

>>> m = CrawlerMDP(lam=0.1, mu=1, K=5, N=16, gamma=1)
>>> res = policy_iteration(m)
>>> round(res.gain, 5)
0.20907
>>> res.n_min, res.n_max
(4, 14)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..errors import InvalidInput, SolverError
from ..linalg._multichain import PolicySystem, bordered_lu, closed_classes, stationary_distribution
from ..tolerance import MDP_TIE_REL as TIE_REL
from ._certified import CertifiedGain, certified_gain
from ._model import CrawlerMDP, SwitchingCurves, _greedy, static_count, switching_curves
from ._rvi import relative_value_iteration


@dataclass(frozen=True)
class MDPSolution:
    """Optimal gain, policy and its statistics for one instance."""

    gain: float
    policy: np.ndarray = field(repr=False)
    h: np.ndarray = field(repr=False)
    method: str
    iterations: int
    residual: float  # max_x |θ + h(x) − T(h)(x)|  (optimality equation 1.19)
    gain_bounds: tuple[float, float]  # [min, max] of T(h) − h
    # π as computed by the solver; None defers it to the first use of ``stationary`` (the switching-curve
    # conjecture solves ~1400 instances and reads only h)
    given_stationary: np.ndarray | None = field(repr=False, default=None)
    recurrent: np.ndarray | None = field(repr=False, default=None)  # states of the closed class
    mdp: CrawlerMDP | None = field(repr=False, default=None)
    certificate: CertifiedGain | None = field(repr=False, default=None)  # how gain and gain_bounds were certified

    @cached_property
    def stationary(self) -> np.ndarray:
        """The stationary law π of the policy on X (zero on transient states): the solver's, else
        :func:`stationary_distribution` of P(π) on ``recurrent``, computed once on first use."""
        if self.given_stationary is not None:
            return self.given_stationary
        return stationary_distribution(self.mdp.policy_matrix(self.policy), self.recurrent)

    @property
    def n_min(self) -> int:
        """Fewest active crawlers in the recurrent class of the optimal chain."""
        return int(self.mdp.states[self.recurrent, 1].min())

    @property
    def n_max(self) -> int:
        """Most active crawlers in the recurrent class of the optimal chain."""
        return int(self.mdp.states[self.recurrent, 1].max())

    @property
    def n_mean(self) -> float:
        """Time-average number of active crawlers, Σ π(x) r(x) (PASTA)."""
        return float(self.stationary @ self.mdp.states[:, 1])

    @property
    def starvation(self) -> float:
        """Starvation probability Σ_x π(x) 1(q = 0) under the stationary law π of the solution's policy."""
        return float(self.stationary @ (self.mdp.states[:, 0] == 0))

    @property
    def loss_rate(self) -> float:
        """Loss rate Σ_x π(x) ν 1(q = K, s = 1): the second term of the cost (1.13) averaged over π."""
        q, r, s = self.mdp.states.T
        return float(self.stationary @ (self.mdp.nu * ((q == self.mdp.K) & (s == 1))))

    @cached_property
    def curves(self) -> SwitchingCurves:
        """The switching curves f_0, f_1 read from the bias h (see :func:`switching_curves`)."""
        return switching_curves(self.mdp, self.h)


# ------------------------------------------------------------------ evaluation


@dataclass(frozen=True)
class Evaluation:
    """Exact evaluation of a unichain policy: gain g, bias h with h(x̂) = 0, and the states of its recurrent class."""
    gain: float
    h: np.ndarray = field(repr=False)
    recurrent: np.ndarray = field(repr=False)


def evaluate_policy(mdp: CrawlerMDP, policy: np.ndarray, reference: int | None = None) -> Evaluation:
    """Exact (sparse LU) evaluation of a unichain policy:
    g + h = c + P(π) h with h(x̂) = 0, x̂ in the recurrent class.
    A multichain policy raises SolverError (its gain is not one number)."""
    P = mdp.policy_matrix(policy)
    classes = closed_classes(P)
    if len(classes) != 1:
        raise SolverError(f"policy is multichain ({len(classes)} recurrent classes); exact unichain evaluation refused")
    ref = int(classes[0][0]) if reference is None else reference
    z = bordered_lu(P, ref).solve(mdp.cost.astype(float))
    g = float(z[ref])
    h = z.copy()
    h[ref] = 0.0
    return Evaluation(g, h, classes[0])


@dataclass(frozen=True)
class MultichainEvaluation:
    """Evaluation of a possibly multichain policy: gain g(x) per state, a bias h, and the list of closed classes."""
    g: np.ndarray = field(repr=False)  # gain per state
    h: np.ndarray = field(repr=False)  # a bias: g + h = c + P h, h = 0 at one state of each class
    classes: list = field(repr=False)


def evaluate_multichain(mdp: CrawlerMDP, policy: np.ndarray) -> MultichainEvaluation:
    """Evaluation of any pure stationary policy (Puterman 1994, §9.1) by the one multichain evaluator,
    :class:`crawlmath.numeric.linalg._multichain.PolicySystem`: per closed class C the gain g_C (bordered
    system on C), on transient states g = P g and g + h = c + P h; dense LU for systems of at most
    ``DENSE_MAX`` (200) states, sparse LU above.  Classes are listed by their first state.

    >>> m = CrawlerMDP(lam=0.1, mu=1, K=5, N=16, gamma=1)
    >>> ev = evaluate_multichain(m, m.static_policy())  # all N crawlers kept active: one class, one gain
    >>> len(ev.classes), round(float(ev.g.max() - ev.g.min()), 12), round(float(ev.g[0]), 9)  # = C(Nλ/μ) of (1.4)
    (1, 0.0, 0.676059046)
    >>> from crawlmath.numeric.mdp import static_cost  # the closed form of the static model
    >>> round(static_cost(0.1, 1, 5, 16, 1), 9)
    0.676059046
    """
    system = PolicySystem(mdp.policy_matrix(policy))
    g, h = system.solve(np.zeros(mdp.n), mdp.cost)
    return MultichainEvaluation(g, h, system.classes)


def _improve(mdp: CrawlerMDP, ev: MultichainEvaluation, policy: np.ndarray) -> np.ndarray:
    """Multichain improvement (Puterman 1994, §9.2.1): first on P g, then
    on c + P h among the actions that keep P g minimal; an action changes
    only on a strict improvement."""
    Qg = np.empty((mdp.n, 2))
    for a in (0, 1):
        idx, prob = mdp.successors[a]
        Qg[:, a] = (prob * ev.g[idx]).sum(axis=1)
    Qg[~mdp.allowed] = np.inf
    scale = max(1.0, float(np.abs(ev.g).max()))
    new = _greedy(mdp, Qg, current=policy, scale=scale)
    if not np.array_equal(new, policy):
        return new
    Q = mdp.q_values(ev.h)
    cur = Qg[np.arange(mdp.n), policy]
    Q[Qg > cur[:, None] + TIE_REL * scale] = np.inf
    return _greedy(mdp, Q, current=policy)


def _best_static_start(mdp: CrawlerMDP) -> np.ndarray:
    """The best static policy with at most N crawlers: keep min(N, N_s) active."""
    # C is unimodal in rho (Lemma 1), so the best n <= N is min(N, N_s).
    Ns = static_count(mdp.lam, mdp.mu, mdp.K, mdp.gamma)[0]
    return mdp.static_policy() if Ns >= mdp.N else mdp.cap_policy(Ns)


def policy_iteration(mdp: CrawlerMDP, *, initial: np.ndarray | None = None, max_iter: int = 1000,
                     certify: bool = True) -> MDPSolution:
    """Policy iteration (Puterman 1994, §9.2: the multichain algorithm, as
    policies met on the way may have several recurrent classes) from the
    best static policy (keep min(N, N_s) crawlers active), with exact evaluation by LU
    (:func:`evaluate_multichain`: dense for small systems, sparse otherwise).  Actions change
    only on a strict improvement (beyond TIE_REL), so it terminates.  The
    optimal gain is constant (weakly communicating MDP); the final policy
    must be unichain (checked), and is checked against the optimality
    equation (1.19): ``residual`` = max|θ + h − T(h)|.

    The float policy is then handed to :func:`certified_gain`, which improves
    it further on exact Q-values where float ties hid a better action (tiny θ,
    large K), computes θ = π c from a relative-accurate π and the valid bounds
    ``gain_bounds`` (relative width ≤ :data:`TARGET_REL_WIDTH`);
    ``certificate`` records how.  ``certify=False`` skips that step and
    returns the float route alone (gain from the bordered LU, bounds min/max
    of T(h) − h in float64, π by sparse LU on first use of ``stationary``):
    fast, but blind below ~1e-16 absolute."""
    policy = _best_static_start(mdp) if initial is None else mdp.check_policy(initial)
    for k in range(1, max_iter + 1):
        ev = evaluate_multichain(mdp, policy)
        new = _improve(mdp, ev, policy)
        if np.array_equal(new, policy):
            break
        policy = new
    else:
        raise SolverError(f"policy iteration did not settle in {max_iter} iterations")
    if len(ev.classes) != 1:
        gains = sorted({round(float(ev.g[C[0]]), 15) for C in ev.classes})
        raise SolverError(f"optimal policy found is multichain ({len(ev.classes)} classes, gains {gains})")
    if not certify:
        gain = float(ev.g[ev.classes[0][0]])
        Th = mdp.T(ev.h)
        gap = Th - ev.h
        return MDPSolution(gain, policy, ev.h, "policy-iteration (float)", k, float(np.abs(gain + ev.h - Th).max()),
                           (float(gap.min()), float(gap.max())),
                           None, ev.classes[0], mdp)
    # The float evaluation is only accurate to ~1e-16 absolute and ties within TIE_REL: when θ is tiny
    # both the gain and the policy are re-derived on exact Q-values (see certified_gain).
    cert = certified_gain(mdp, policy)
    return MDPSolution(cert.gain, cert.policy, cert.bias.h, "policy-iteration", k, cert.bias.residual, cert.float_bounds,
                       cert.stationary, cert.recurrent, mdp, cert)


def solve(mdp: CrawlerMDP, method: str = "exact", **kw):
    """``exact`` (policy iteration) → MDPSolution; ``rvi`` → RVIResult."""
    if method == "exact":
        return policy_iteration(mdp, **kw)
    if method == "rvi":
        return relative_value_iteration(mdp, **kw)
    raise InvalidInput("method", "must be 'exact' or 'rvi'", value=method)
