"""What Liu–Nain (2005) §1.2.3 reads off the optimal policy: communication (Lemma 2), N_max, N̄, the conjecture."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sps
import scipy.sparse.csgraph as csgraph

from ..errors import InvalidInput
from ..linalg._multichain import stationary_distribution
from ..tolerance import CURVES_FLOAT_GAIN, CURVES_GREEDY_REL, MDP_TIE_REL as TIE_REL
from ..validate import require_open_unit
from ._model import CrawlerMDP, static_count
from ._policy_iteration import MDPSolution, evaluate_policy, policy_iteration
from ._rvi import RVIResult, relative_value_iteration


# ------------------------------------------------------ structure of X, A_x


@dataclass(frozen=True)
class Communication:
    """The communication structure of X under all allowed actions (Lemma 2): whether X is one class,
    the size of the largest class, the states outside it, and whether those can ever be entered.
    """
    communicating: bool  # one strongly connected class on all of X (Lemma 2 as printed)
    main_class: int  # size of the largest communicating class
    outside: list  # states outside it
    outside_unreachable: bool  # no allowed transition enters any of them (transient under every policy)

    @property
    def weakly_communicating(self) -> bool:
        """True when X communicates or the states outside the main class are never entered (Puterman 1994, §8.3)."""
        return self.communicating or self.outside_unreachable


def communication(mdp: CrawlerMDP) -> Communication:
    """Lemma 2 checked on the graph of all allowed (state, action)
    transitions: communicating iff strongly connected; weakly communicating
    when the states outside the main class can never be entered."""
    G = None
    for a in (0, 1):
        idx, prob = mdp.successors[a]
        ok = mdp.allowed[:, a][:, None] & (prob > 0)
        rows = np.repeat(np.arange(mdp.n), 3).reshape(-1, 3)[ok]
        g = sps.csr_matrix((np.ones(rows.size), (rows, idx[ok])), shape=(mdp.n, mdp.n))
        G = g if G is None else G + g
    ncomp, lab = csgraph.connected_components(G, directed=True, connection="strong")
    main = np.bincount(lab).argmax()
    out = np.flatnonzero(lab != main)
    G = G.tocoo()
    entered = set(G.col[G.row != G.col].tolist())
    unreachable = all(int(x) not in entered for x in out)
    return Communication(ncomp == 1, int((lab == main).sum()), [tuple(int(v) for v in mdp.states[x]) for x in out], unreachable)


def activation_max(mdp: CrawlerMDP, h: np.ndarray, rel: float = TIE_REL) -> int:
    """max{r : a = 1 is strictly optimal in some (q, r, 0)}: the largest
    number of active crawlers at which the optimal policy still activates one
    more at a departure.  This is the definition of N_max that reproduces
    Liu–Nain Table 1.3 (the recurrent class may stop 1-3 crawlers lower)."""
    Q = mdp.q_values(h)
    scale = max(1.0, float(np.abs(Q[np.isfinite(Q)]).max()))
    strict = (Q[:, 1] - Q[:, 0]) < -rel * scale
    r, s = mdp.states[:, 1], mdp.states[:, 2]
    return int(r[strict & (s == 0)].max())


@dataclass(frozen=True)
class InstanceReport:
    """What Tables 1.2/1.3 print for one (λ, μ, K, γ), and how it was found.

    ``n_min``: fewest active crawlers in the recurrent class of the optimal
    chain; ``n_mean``: their time average Σπ(x)r; ``n_max``: the largest r
    at which the policy activates (:func:`activation_max`, Table 1.3's
    definition); ``n_max_recurrent``: the largest r actually visited.
    ``N`` is the number of available crawlers used; with ``N='auto'`` it is
    chosen so that it does not bind and ``binds`` records the check.
    """

    lam: float
    mu: float
    K: int
    gamma: float
    N: int
    gain: float
    n_min: int
    n_mean: float
    n_max: int
    n_max_recurrent: int
    iterations: int
    method: str
    f0: list
    f1: list
    monotone: bool
    residual: float
    gain_bounds: tuple[float, float]
    starvation: float
    loss_rate: float
    solution: MDPSolution = field(repr=False)
    rvi: RVIResult | None = field(repr=False, default=None)
    inputs: str = "exact"  # which model the exact routes solved: "exact" or "shortest-decimal" (numeric/exact.py)

    def as_json(self) -> dict:
        """The scalar fields and switching curves as a JSON-ready dict (the solution and RVI objects are left out)."""
        return {
            "lam": self.lam, "mu": self.mu, "K": self.K, "gamma": self.gamma, "N": self.N,
            "gain": self.gain, "n_min": self.n_min, "n_mean": self.n_mean, "n_max": self.n_max,
            "n_max_recurrent": self.n_max_recurrent, "iterations": self.iterations, "method": self.method,
            "switching_curve": {"f0": self.f0, "f1": self.f1, "monotone": self.monotone},
            "residual": self.residual, "gain_bounds": list(self.gain_bounds),
            "starvation": self.starvation, "loss_rate": self.loss_rate,
        }


def extend_policy(policy: np.ndarray, small: CrawlerMDP, big: CrawlerMDP, cap: int) -> np.ndarray:
    """A policy of ``big`` (same λ, μ, K, γ, more crawlers) that takes ``policy``'s action in every state
    (q, r, s) with r < small.N and :meth:`CrawlerMDP.cap_policy` (``cap``) elsewhere.

    Used to warm-start policy iteration when :func:`auto_N` doubles N: the states with r < N have the same
    action sets in both models, and the row r = N is left to the cap policy because a = 1 at a departure
    there is a no-op in ``small`` but activates a crawler in ``big``."""
    if (small.lam, small.mu, small.K, small.gamma) != (big.lam, big.mu, big.K, big.gamma) or small.N > big.N:
        raise InvalidInput("big", "must be the same instance with at least as many crawlers", value=big.N)
    policy = small.check_policy(policy)
    out = big.cap_policy(cap)
    keep = small.states[:, 1] < small.N
    q, r, s = small.states[keep].T
    out[big.index[q, r, s]] = policy[keep]
    return big.check_policy(out)


def auto_N(lam: float, mu: float, K: int, gamma: float, *, solver=None, warm: bool = False,
           seed: MDPSolution | None = None) -> tuple[int, MDPSolution]:
    """An N that does not bind: start at 2N_s + 10 and double until the
    optimal policy activates no crawler at r ≥ N − 1.  ``solver(mdp, initial=...)``
    replaces :func:`policy_iteration` (e.g. :func:`optimal_for_curves`).  Each solve starts from
    the cap policy N_s, or with ``warm`` from a smaller instance's optimum extended by
    :func:`extend_policy`: ``seed`` (a solution of the same instance with fewer crawlers) for the
    first N, the previous optimum after a doubling.  The warm start only saves policy-iteration
    steps; the optimum reached is the same up to ties."""
    solver = policy_iteration if solver is None else solver
    Ns = static_count(lam, mu, K, gamma)[0]
    N, prev = 2 * Ns + 10, seed
    if seed is not None and (not warm or seed.mdp.N > N):
        raise InvalidInput("seed", f"needs warm=True and at most 2N_s + 10 = {N} crawlers", value=seed.mdp.N)
    while True:
        m = CrawlerMDP(lam, mu, K, N, gamma)
        start = m.cap_policy(Ns) if prev is None or not warm else extend_policy(prev.policy, prev.mdp, m, Ns)
        sol = solver(m, initial=start)
        if activation_max(m, sol.h) + 2 <= N:
            return N, sol
        N, prev = 2 * N, sol


def analyse(lam: float, mu: float, K: int, gamma: float, N="auto", *, method: str = "exact",
            tau: float = 0.99999, reference=None, h0="zero") -> InstanceReport:
    """Solve one instance and report the quantities of Tables 1.2/1.3.
    ``method='exact'``: policy iteration; ``'rvi'``: Prop. 6 with x̂
    ``reference`` and ``h0`` (see :func:`relative_value_iteration`; gain
    T(h_k)(x̂) at the stop, ``iterations`` = k; the statistics are those of
    the RVI policy, evaluated exactly)."""
    if method not in ("exact", "rvi"):
        raise InvalidInput("method", "must be 'exact' or 'rvi'", value=method)
    tau = require_open_unit(tau, "tau")
    if isinstance(N, str) and N != "auto":
        raise InvalidInput("N", "must be a positive integer or 'auto'", value=N)
    if isinstance(N, str):
        N, sol = auto_N(lam, mu, K, gamma)
        m = sol.mdp
    else:
        m = CrawlerMDP(lam, mu, K, N, gamma)
        sol = policy_iteration(m)
    rvi = None
    if method == "rvi":
        rvi = relative_value_iteration(m, tau=tau, reference=reference, h0=h0)
        ev = evaluate_policy(m, rvi.policy)
        pi = stationary_distribution(m.policy_matrix(rvi.policy), ev.recurrent)
        residual = float(np.abs(rvi.gain + rvi.h - m.T(rvi.h)).max())
        sol = MDPSolution(ev.gain, rvi.policy, rvi.h, "rvi", rvi.iterations, residual, rvi.gain_bounds, pi,
                          ev.recurrent, m)
    curves = sol.curves
    gain = rvi.gain if rvi else sol.gain
    return InstanceReport(m.lam, m.mu, int(K), m.gamma, int(N), gain, sol.n_min, sol.n_mean,
                          activation_max(m, sol.h), sol.n_max, sol.iterations, sol.method, curves.f0, curves.f1,
                          curves.monotone, sol.residual, sol.gain_bounds, sol.starvation, sol.loss_rate, sol, rvi,
                          m.inputs)


# ------------------------------------------------------------ the conjecture



def optimal_for_curves(mdp: CrawlerMDP, *, initial: np.ndarray | None = None) -> MDPSolution:
    """An optimal policy and its bias for :func:`switching_curves`, certified only where the float route can be blind.

    :func:`switching_curves` reads only Q(x, 1) − Q(x, 0) of the bias h, with ties within
    TIE_REL · max|Q| (≥ 1e-9 absolute) resolved either way.  The float route
    (``policy_iteration(certify=False)``) ends with a policy σ and the bias h of σ; when σ is greedy
    for h up to rounding, i.e. max_x (Q(x, σ(x)) − min_a Q(x, a)) ≤ 64 ε max|Q|, no improvement
    beyond rounding exists (Howard's test), so σ is optimal and h is its bias to rounding, ~1e-16,
    far below the tie tolerance.  The exact-Q improvement of :func:`certified_gain` matters where
    the float route stopped on a tie that hides a better action (σ not greedy beyond rounding) or
    where θ is so small that rounding of h is comparable to θ-relative improvements
    (θ < :data:`CURVES_FLOAT_GAIN`): there the certified :func:`policy_iteration` is used."""
    sol = policy_iteration(mdp, initial=initial, certify=False)
    Q = mdp.q_values(sol.h)
    scale = max(1.0, float(np.abs(Q[np.isfinite(Q)]).max()))
    slack = Q[np.arange(mdp.n), sol.policy] - Q.min(axis=1)
    if sol.gain < CURVES_FLOAT_GAIN or float(slack.max()) > CURVES_GREEDY_REL * scale:
        return policy_iteration(mdp, initial=initial)
    return sol


@dataclass(frozen=True)
class ConjectureResult:
    """Outcome of :func:`check_switching_curve_conjecture`: instances solved, counterexamples (lam, K, gamma, N, where), wall time in s."""
    instances: int
    counterexamples: list  # (lam, K, gamma, N, where)
    seconds: float


def check_switching_curve_conjecture(lams, Ks, gammas, Ns=("Ns", "auto"), mu: float = 1.0) -> ConjectureResult:
    """Solve every instance of the grid exactly (:func:`optimal_for_curves`)
    and test whether some optimal policy is a monotone switching curve
    (§1.2.2, after Fig. 1.7).  ``Ns`` holds integers, "Ns" (the static
    optimum) or "auto" (unrestricted)."""
    t0 = time.perf_counter()
    bad, count = [], 0
    for lam in lams:
        for K in Ks:
            for gamma in gammas:
                n_s = static_count(lam, mu, K, gamma)[0]
                seed = None  # the solution with the most crawlers so far (at most auto_N's first N), to warm-start it
                for spec in Ns:
                    if spec == "auto":
                        N, sol = auto_N(lam, mu, K, gamma, solver=optimal_for_curves, warm=True, seed=seed)
                    else:
                        N = n_s if spec == "Ns" else int(spec)
                        sol = optimal_for_curves(CrawlerMDP(lam, mu, K, N, gamma))
                    if N <= 2 * n_s + 10 and (seed is None or N > seed.mdp.N):
                        seed = sol
                    count += 1
                    c = sol.curves
                    if not c.monotone:
                        bad.append((lam, K, gamma, N, c.where))
    return ConjectureResult(count, bad, time.perf_counter() - t0)


def policy_image(sol: MDPSolution, s: int) -> np.ndarray:
    """The optimal actions of event type ``s`` (0 departure, 1 arrival) as a
    (K+1) × (N+1) array indexed [q, r]: 1 activate, 0 not, −1 where (q, r, s)
    ∉ X.  This is what Figs 1.5–1.7 draw."""
    if s not in (0, 1):
        raise InvalidInput("s", "must be 0 (departure) or 1 (arrival)", value=s)
    m = sol.mdp
    img = np.full((m.K + 1, m.N + 1), -1, dtype=np.int64)
    sel = m.states[:, 2] == s
    img[m.states[sel, 0], m.states[sel, 1]] = sol.policy[sel]
    return img
