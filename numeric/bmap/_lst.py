"""Sojourn-time Laplace–Stieltjes transforms of the BMAP/PH/1/K obsolescence
queue by routes independent of Theorem 4 (Avrachenkov et al., §5).

Notation of :mod:`crawlmath.numeric.bmap._core`.  A *tagged* page that finds
``t`` pages ahead of it (``t = 0``: it is in service) moves in an absorbing
chain on ``(m, r_1, ..., r_{t-1}, r_tag)`` (service phase, obsolescence phases
of the pages ahead, its own), absorbed in *served* or *obsolete*.  The chain
is built here state by state from the rules of §2 (`tagged_chain`), not from
the Lemma's blocks; with sub-generator ``T`` and absorption columns ``a_1``
(served), ``a_2`` (obsolete), a Poisson flow of "catastrophes" of rate ``u``
(the method of collective marks of the proof of Theorem 4) gives

    E[e^{-u V}; fate m | start x] = ((uI - T)^{-1} a_m)_x,
    E[V; fate m | start x]        = ((-T)^{-2} a_m)_x.

The law of the start state of an arbitrary page is built from the stationary
vector by walking explicit states (`arrival_law`): a batch of size k that
finds i pages admits ``min(k, K - i)`` of them, the l-th (each position with
the batch's rate) sees ``i + l - 1`` pages ahead with fresh phases drawn from
``gamma`` (and ``beta`` for the server when i = 0).

`simulate_sojourn` is a third route: a page-by-page discrete-event simulation
of the whole system (no stationary vector), with batch-means standard errors.

>>> from crawlmath.numeric.bmap._io import load_model
>>> from crawlmath.numeric.bmap import Policy, solve_sparse_direct
>>> m = load_model("avrachenkov-example.json", K=3)
>>> lv = m.check_policy(Policy((3, 1), (1,)))
>>> s = sojourn_transforms(m, lv, solve_sparse_direct(m, lv), 0.0)
>>> round(s.served + s.obsolete + s.lost, 12)
1.0
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ._core import BmapModel
from ._generator import state_list
from ._stationary import Stationary
from ..errors import InvalidInput, TooLarge

TAGGED_LIMIT = 5000  # dense tagged chain: at most this many states


@dataclass(frozen=True)
class TaggedChain:
    """The tagged page's absorbing chain: ``states[n] = (t, m, r_1, .., r_tag)``."""

    states: tuple
    index: dict
    T: np.ndarray  # sub-generator among transient states
    served: np.ndarray  # absorption rate into "served"
    obsolete: np.ndarray  # absorption rate into "obsolete"


def tagged_chain(model: BmapModel) -> TaggedChain:
    """Enumerate the tagged page's chain from the rules of §2: service phase
    changes (S), service completion (S_0; the head of the buffer starts in
    beta, the tagged page itself when it is the head), obsolescence phase
    changes of every waiting page (Γ) and their absorption (Γ_0: a page ahead
    leaves; the tagged page becomes obsolete).  Arrivals behind the tagged
    page never change its sojourn."""
    K, M, R = model.K, model.M, model.R
    n = sum(M * R**t for t in range(K))
    if n > TAGGED_LIMIT:
        raise TooLarge("K", f"the dense tagged-page chain is limited to {TAGGED_LIMIT} states", value=model.K)
    S, S0, beta = model.service.S, model.service.exit, model.service.beta
    G, G0 = model.obsolescence.S, model.obsolescence.exit
    states = [(0, m) for m in range(M)]
    for t in range(1, K):
        states += [(t, *s) for s in itertools.product(range(M), *[range(R)] * t)]
    index = {s: k for k, s in enumerate(states)}
    T = np.zeros((n, n))
    served, obsolete = np.zeros(n), np.zeros(n)
    for s in states:
        x = index[s]
        t, m, buf = s[0], s[1], s[2:]  # buf = (r_1, .., r_{t-1}, r_tag) when t >= 1
        for m2 in range(M):
            if m2 != m:
                T[x, index[(t, m2, *buf)]] += S[m, m2]
        T[x, x] += S[m, m]
        if t == 0:
            served[x] += S0[m]
        else:
            for m2 in range(M):  # the head of the buffer enters service
                T[x, index[(t - 1, m2, *buf[1:])]] += S0[m] * beta[m2]
        for q, r in enumerate(buf):
            for r2 in range(R):
                if r2 != r:
                    T[x, index[(t, m, *buf[:q], r2, *buf[q + 1:])]] += G[r, r2]
            T[x, x] += G[r, r]
            if q == len(buf) - 1:
                obsolete[x] += G0[r]
            else:
                T[x, index[(t - 1, m, *buf[:q], *buf[q + 1:])]] += G0[r]
    return TaggedChain(tuple(states), index, T, served, obsolete)


@dataclass(frozen=True)
class ArrivalLaw:
    """Where an arbitrary page starts: ``alpha[x]`` the probability that it is
    admitted in tagged state x, ``lost`` that it is lost (buffer full)."""

    alpha: np.ndarray
    lost: float
    lam: float


def arrival_law(model: BmapModel, levels: Sequence[int], st: Stationary, chain: TaggedChain) -> ArrivalLaw:
    """The start-state law of an arbitrary page, from the stationary vector
    walked state by state (see the module docstring)."""
    K = model.K
    beta, gam = model.service.beta, model.obsolescence.beta
    p = np.concatenate([np.asarray(x, dtype=float) for x in st.p])
    alpha = np.zeros(len(chain.states))
    lam = lost = 0.0
    fresh = {n: list(_fresh(gam, n)) for n in range(K)}
    for prob, s in zip(p, state_list(model)):
        i, nu = s[0], s[1]
        r = levels[i]
        for k in range(1, model.kmax + 1):
            rate = prob * float(model.D(r, k)[nu].sum())
            if rate == 0.0:
                continue
            lam += k * rate
            admitted = min(k, K - i)
            lost += (k - admitted) * rate
            for l in range(1, admitted + 1):
                if i == 0:  # the first page of the batch starts service
                    for m in range(model.M):
                        for rs, w in fresh[l - 1]:
                            t = l - 1
                            key = (t, m, *rs) if t else (0, m)
                            alpha[chain.index[key]] += rate * beta[m] * w
                else:
                    for rs, w in fresh[l]:
                        alpha[chain.index[(i + l - 1, *s[2:], *rs)]] += rate * w
    if not lam > 0:
        raise InvalidInput("arrivals", "no page ever arrives under this policy", value=lam)
    return ArrivalLaw(alpha / lam, float(lost / lam), float(lam))


def _fresh(gam: np.ndarray, n: int):
    """Phases of n fresh waiting pages and their probability."""
    for rs in itertools.product(range(gam.size), repeat=n):
        yield rs, float(np.prod([gam[r] for r in rs])) if rs else 1.0


@dataclass(frozen=True)
class Transforms:
    """Unnormalised transforms at ``u``: ``served = E[e^{-uV}; served]``,
    ``obsolete = E[e^{-uV}; obsolete]``, ``lost = P_loss`` (sojourn 0);
    ``v = served + obsolete + lost`` is eq. (16)'s v(u)."""

    u: float
    served: float
    obsolete: float
    lost: float

    @property
    def v(self) -> float:
        """v(u) = served + obsolete + lost, eq. (16)."""
        return self.served + self.obsolete + self.lost


def sojourn_transforms(model: BmapModel, levels: Sequence[int], st: Stationary, u: float,
                       chain: TaggedChain | None = None, law: ArrivalLaw | None = None) -> Transforms:
    """``E[e^{-uV}; fate]`` of an arbitrary page (Re u >= 0), from the
    enumerated tagged chain and the walked arrival law."""
    if not (np.isfinite(u) and u >= 0):
        raise InvalidInput("u", "must be a finite real >= 0", value=u)
    chain = tagged_chain(model) if chain is None else chain
    law = arrival_law(model, levels, st, chain) if law is None else law
    A = u * np.eye(len(chain.states)) - chain.T
    x = np.linalg.solve(A, np.stack([chain.served, chain.obsolete], axis=1))
    return Transforms(float(u), float(law.alpha @ x[:, 0]), float(law.alpha @ x[:, 1]), law.lost)


def sojourn_moments(model: BmapModel, levels: Sequence[int], st: Stationary, order: int = 1,
                    chain: TaggedChain | None = None, law: ArrivalLaw | None = None) -> tuple[float, float]:
    """``(E[V^n; served], E[V^n; obsolete])`` for n = ``order``:
    ``n! alpha (-T)^{-(n+1)} a_m``."""
    chain = tagged_chain(model) if chain is None else chain
    law = arrival_law(model, levels, st, chain) if law is None else law
    x = np.stack([chain.served, chain.obsolete], axis=1)
    fact = 1.0
    for k in range(order + 1):
        x = np.linalg.solve(-chain.T, x)
        fact *= max(k, 1)
    return float(fact * law.alpha @ x[:, 0]), float(fact * law.alpha @ x[:, 1])


# --- simulation ----------------------------------------------------------------------


@dataclass(frozen=True)
class SojournSim:
    """Simulated estimates (ratio estimators over batches) and standard errors.
    ``lst[u] = (v, v1, v2)``: E[e^{-uV}] over all pages (lost ones count 1),
    over served pages, over obsolete pages."""

    lst: dict
    lst_se: dict
    p_star: float
    phi: tuple  # phi[n-1]: fraction of time with n robots active
    n_act: float
    means: tuple  # (V1, V2)
    se: dict  # standard errors of p_star, n_act, phi_n, V1, V2
    pages: int
    events: int
    seed: int


def simulate_sojourn(model: BmapModel, levels: Sequence[int], us: Sequence[float], events: int = 200_000,
                     seed: int = 0, batches: int = 20) -> SojournSim:
    """Simulate ``events`` transitions of the whole system under robots-per-level
    ``levels`` and record each page's fate and sojourn time."""
    if events < batches * 100:
        raise InvalidInput("events", f"must be >= {batches * 100}", value=events)
    from ._lst_kernels import sojourn_events  # numba: compiled on first use

    us = [float(u) for u in us]
    rng = np.random.default_rng(seed)
    K, W, N = model.K, model.W, model.N
    S, S0, beta = model.service.S, model.service.exit, model.service.beta
    G, G0, gam = model.obsolescence.S, model.obsolescence.exit, model.obsolescence.beta
    L = (model.kmax + 1) * W
    arate, acum = np.zeros((N + 1, W)), np.ones((N + 1, W, L))
    for r in set(levels):
        for nu in range(W):
            rates = np.array([model.D(r, k)[nu] for k in range(model.kmax + 1)])  # (k, nu')
            rates[0, nu] = 0.0
            arate[r, nu], acum[r, nu] = float(rates.sum()), np.cumsum(rates.ravel()) / rates.sum()
    jump_s = np.array([np.cumsum(np.append(np.where(np.arange(S.shape[0]) == m, 0.0, S[m]), S0[m])) / -S[m, m]
                       for m in range(S.shape[0])])
    jump_g = np.array([np.cumsum(np.append(np.where(np.arange(G.shape[0]) == r, 0.0, G[r]), G0[r])) / -G[r, r]
                       for r in range(G.shape[0])])
    # per batch: time, idle time, robot-time by n, pages arrived/lost, served: count, sum V, sum e^{-uV}; obsolete: same
    time_b = np.zeros(batches)
    idle_b = np.zeros(batches)
    robots_b = np.zeros((batches, N))
    lost_b = np.zeros(batches)
    done_b = np.zeros((batches, 2, 2 + len(us)))  # fate (served, obsolete) x (count, sum V, sum e^{-u V})
    per = events // batches
    sojourn_events(rng, np.asarray(levels, dtype=np.int64), arate, acum, W, K, np.ascontiguousarray(np.diag(S)),
                   np.ascontiguousarray(np.diag(G)), jump_s, jump_g, np.cumsum(beta), np.cumsum(gam),
                   np.array(us), batches, per, time_b, idle_b, robots_b, lost_b, done_b)
    return _summarise(us, time_b, idle_b, robots_b, lost_b, done_b, batches * per, seed)


def _summarise(us, time_b, idle_b, robots_b, lost_b, done_b, events, seed) -> SojournSim:
    batches = time_b.size
    se = lambda x: float(np.std(x, ddof=1) / np.sqrt(batches))  # noqa: E731
    ratio = lambda num, den: float(num.sum() / den.sum())  # noqa: E731
    pages_b = lost_b + done_b[:, :, 0].sum(axis=1)
    lst, lst_se = {}, {}
    for k, u in enumerate(us):
        tot = lost_b + done_b[:, 0, 2 + k] + done_b[:, 1, 2 + k]
        cols = [(tot, pages_b), (done_b[:, 0, 2 + k], done_b[:, 0, 0]), (done_b[:, 1, 2 + k], done_b[:, 1, 0])]
        lst[u] = tuple(ratio(a, c) for a, c in cols)
        lst_se[u] = tuple(se(a / c) for a, c in cols)
    robots = np.arange(1, robots_b.shape[1] + 1)
    n_act_b = robots_b @ robots / time_b
    phi_b = robots_b / time_b[:, None]
    out_se = {"p_star": se(idle_b / time_b), "n_act": se(n_act_b), "V1": se(done_b[:, 0, 1] / done_b[:, 0, 0]),
              "V2": se(done_b[:, 1, 1] / done_b[:, 1, 0])}
    out_se.update({f"phi_{n}": se(phi_b[:, n - 1]) for n in robots})
    return SojournSim(lst, lst_se, ratio(idle_b, time_b), tuple(float(x) for x in robots_b.sum(axis=0) / time_b.sum()),
                      float(robots_b.sum(axis=0) @ robots / time_b.sum()),
                      (ratio(done_b[:, 0, 1], done_b[:, 0, 0]), ratio(done_b[:, 1, 1], done_b[:, 1, 0])), out_se,
                      int(pages_b.sum()), events, seed)
