"""Discrete-event simulation of the BMAP/PH/1/K obsolescence queue, page by
page (an independent route to the measures: no generator, no recursion).

Each page in the buffer carries its own obsolescence phase and its arrival
time; the server carries the service phase; the arrival process its phase.
Events are drawn from the competing exponential clocks (Gillespie).  The
estimates come with batch-means standard errors.

>>> from crawlmath.numeric.bmap._io import load_model
>>> r = simulate(load_model("avrachenkov-example.json", K=2), (3, 3, 1), events=20_000, seed=1)
>>> 0 < r.p_loss < 1 and r.events == 20_000
True
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._core import BmapModel
from ..errors import InvalidInput


@dataclass(frozen=True)
class SimResult:
    """Simulated estimates of P_loss, P_obs, P_success, V1 and P_star, with batch-means standard errors (``se``),
    the number of events simulated and the seed.
    """
    p_loss: float
    p_obs: float
    p_success: float
    v1: float
    p_star: float
    se: dict  # standard error of each estimate (batch means)
    events: int
    seed: int


def simulate(model: BmapModel, levels, events: int = 200_000, seed: int = 0, batches: int = 20) -> SimResult:
    """Simulate ``events`` transitions under robots-per-level ``levels``."""
    if events < batches * 100:
        raise InvalidInput("events", f"must be >= {batches * 100}", value=events)
    rng = np.random.default_rng(seed)
    K, W = model.K, model.W
    ph, ob = model.service, model.obsolescence
    S, S0, beta = ph.S, ph.exit, ph.beta
    G, G0, gam = ob.S, ob.exit, ob.beta

    def draw(cdf: np.ndarray) -> int:
        # what ``rng.choice(p.size, p=p)`` does (one uniform, searched in the normalised cumulative law), without its
        # per-call validation of p: the laws are checked once, below, and the random stream is the same draw for draw
        return int(cdf.searchsorted(rng.random(), side="right"))

    D = {r: model._D[r - 1] for r in set(levels)}
    # per arrival phase and robots: total rate and the (k, nu') jump law
    arr = {}
    for r, Dr in D.items():
        for nu in range(W):
            rates = Dr[:, nu, :].copy()  # (k, nu')
            rates[0, nu] = 0.0
            arr[(r, nu)] = (rates.sum(), _cumulative(rates.ravel() / rates.sum()))
    beta_law, gam_law = _cumulative(beta), _cumulative(gam)
    s_out = [_jump_law(S, S0, m) for m in range(S.shape[0])]  # service phase m: next phase, or completion (last)
    g_out = [_jump_law(G, G0, p) for p in range(G.shape[0])]  # obsolescence phase p: next phase, or obsolete (last)
    g_diag = [-G[p, p] for p in range(G.shape[0])]
    nu = 0
    m = -1  # service phase, -1 when idle
    buf: list[list] = []  # [phase, arrival time]
    serving_since = 0.0
    t = 0.0
    per_batch = events // batches
    stats = [[0.0] * 6 for _ in range(batches)]  # arrived, lost, obsolete, served, sum sojourn of served, idle time
    for n in range(batches * per_batch):
        st = stats[n // per_batch]
        i = len(buf) + (m >= 0)
        r = levels[i]
        a_rate, a_law = arr[(r, nu)]
        s_rate = -S[m, m] if m >= 0 else 0.0
        g_rates = np.array([g_diag[p] for p, _ in buf]) if buf else np.zeros(0)
        total = a_rate + s_rate + g_rates.sum()
        dt = rng.exponential(1 / total)
        if i == 0:
            st[5] += dt
        t += dt
        u = rng.uniform(0, total)
        if u < a_rate:
            k, nu2 = divmod(draw(a_law), W)
            nu = nu2
            if k:
                st[0] += k
                accepted = min(k, K - i)
                st[1] += k - accepted
                for _ in range(accepted):
                    if m < 0:
                        m = draw(beta_law)
                        serving_since = t
                    else:
                        buf.append([draw(gam_law), t])
            continue
        u -= a_rate
        if u < s_rate:
            j = draw(s_out[m])
            if j < S.shape[0]:
                m = j
                continue
            st[3] += 1
            st[4] += t - serving_since
            if buf:
                _, since = buf.pop(0)
                m = draw(beta_law)
                serving_since = since  # sojourn of the next page counts from its arrival
            else:
                m = -1
            continue
        u -= s_rate
        q = int(np.searchsorted(np.cumsum(g_rates), u, side="right"))
        q = min(q, len(buf) - 1)
        p = buf[q][0]
        j = draw(g_out[p])
        if j < G.shape[0]:
            buf[q][0] = j
        else:
            buf.pop(q)
            st[2] += 1
    stats = np.array(stats)
    tot = stats.sum(axis=0)
    by_batch = {
        "p_loss": stats[:, 1] / stats[:, 0],
        "p_obs": stats[:, 2] / stats[:, 0],
        "p_success": stats[:, 3] / stats[:, 0],
        "v1": stats[:, 4] / stats[:, 3],
    }
    se = {k: float(v.std(ddof=1) / np.sqrt(batches)) for k, v in by_batch.items()}
    return SimResult(tot[1] / tot[0], tot[2] / tot[0], tot[3] / tot[0], tot[4] / tot[3], float(tot[5] / t), se, batches * per_batch, seed)


def _cumulative(p: np.ndarray) -> np.ndarray:
    """The cumulative law ``rng.choice(p.size, p=p)`` samples from: ``cumsum(p)`` divided by its last entry; `InvalidInput`
    unless p is a probability vector (the check ``rng.choice`` would make at every draw)."""
    if not (np.all(p >= 0) and abs(float(p.sum()) - 1) <= np.sqrt(np.finfo(float).eps)):
        raise InvalidInput("p", "a jump law must be a probability vector", value=p.tolist())
    cdf = p.cumsum()
    cdf /= cdf[-1]
    return cdf


def _jump_law(T: np.ndarray, exit_rates: np.ndarray, x: int) -> np.ndarray:
    """Cumulative law of the jump out of phase x of the PH generator T: to phase y != x (rate T[x, y]) or absorption (the
    last outcome, rate exit_rates[x])."""
    row = T[x].copy()
    row[x] = 0.0
    out = np.append(row, exit_rates[x])
    return _cumulative(out / out.sum())
