"""numba kernel of :func:`crawlmath.numeric.bmap._lst.simulate_sojourn` (compiled lazily, cached).

The event loop of the discrete-event simulation, with the same random stream
as NumPy: numba draws from the caller's ``numpy.random.Generator`` with
NumPy's own algorithms (``random``, ``exponential``), so a seed gives the same
path as the plain-Python loop this replaces.  The caller builds the tables:

- ``arate[r, nu]``, ``acum[r, nu, :]``: total arrival rate and cumulative
  jump weights (index ``k W + nu'``: batch k, next BMAP phase nu') in mode r;
- ``jump_s[m, :]``, ``jump_g[p, :]``: cumulative jump probabilities out of
  service phase m / obsolescence phase p, the last entry the exit;
- ``cb``, ``cg``: cumulative initial laws of service and obsolescence.

Waiting pages are a FIFO in two arrays (phase, arrival time); an obsolete page
leaves from the middle, the rest move up one place.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def _pick(rng, cum):
    """The first index whose cumulative weight exceeds ``U cum[-1]``, at most the last index (the Python loop's
    ``searchsorted(side="right")``)."""
    return min(np.searchsorted(cum, rng.random() * cum[-1], side="right"), cum.size - 1)


@njit(cache=True)
def _finish(done_b, b, fate, v, us):
    done_b[b, fate, 0] += 1
    done_b[b, fate, 1] += v
    for k in range(us.size):
        done_b[b, fate, 2 + k] += np.exp(-us[k] * v)


@njit(cache=True)
def sojourn_events(rng, levels, arate, acum, W, K, S_diag, G_diag, jump_s, jump_g, cb, cg, us, batches, per,
                   time_b, idle_b, robots_b, lost_b, done_b):
    """Run ``batches * per`` events, accumulating into the per-batch arrays."""
    nS = jump_s.shape[0]
    nG = jump_g.shape[0]
    bphase = np.zeros(K + 1, np.int64)
    btime = np.zeros(K + 1)
    g_rates = np.zeros(K + 1)
    nbuf = 0
    nu, m, t, since = 0, -1, 0.0, 0.0
    for n in range(batches * per):
        b = n // per
        i = nbuf + (1 if m >= 0 else 0)
        r = levels[i]
        a_rate = arate[r, nu]
        s_rate = -S_diag[m] if m >= 0 else 0.0
        sum_g = 0.0
        for q in range(nbuf):
            g_rates[q] = -G_diag[bphase[q]]
            sum_g += g_rates[q]
        total = a_rate + s_rate + sum_g
        dt = rng.exponential(1 / total)
        time_b[b] += dt
        robots_b[b, r - 1] += dt
        if i == 0:
            idle_b[b] += dt
        t += dt
        x = rng.random() * total
        if x < a_rate:
            j = _pick(rng, acum[r, nu])
            k = j // W
            nu = j % W
            if k:
                accepted = min(k, K - i)
                lost_b[b] += k - accepted
                for _ in range(accepted):
                    if m < 0:
                        m = _pick(rng, cb)
                        since = t
                    else:
                        bphase[nbuf] = _pick(rng, cg)
                        btime[nbuf] = t
                        nbuf += 1
            continue
        x -= a_rate
        if x < s_rate:
            j = _pick(rng, jump_s[m])
            if j < nS:
                m = j
                continue
            _finish(done_b, b, 0, t - since, us)
            if nbuf:
                since = btime[0]
                for q in range(1, nbuf):
                    bphase[q - 1] = bphase[q]
                    btime[q - 1] = btime[q]
                nbuf -= 1
                m = _pick(rng, cb)
            else:
                m = -1
            continue
        x -= s_rate
        if nbuf == 0:  # x rounded past a + s with nothing waiting (the Python loop raised IndexError here)
            continue
        # the page whose obsolescence phase jumps
        q = min(np.searchsorted(np.cumsum(g_rates[:nbuf]), x, side="right"), nbuf - 1)
        j = _pick(rng, jump_g[bphase[q]])
        if j < nG:
            bphase[q] = j
        else:
            _finish(done_b, b, 1, t - btime[q], us)
            for p in range(q + 1, nbuf):
                bphase[p - 1] = bphase[p]
                btime[p - 1] = btime[p]
            nbuf -= 1
