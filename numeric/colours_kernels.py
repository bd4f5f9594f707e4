"""numba kernels of :mod:`crawlmath.numeric.colours_sim` (compiled lazily, cached).

Both kernels are *resumable*: the whole simulation state lives in arrays that
the caller owns, and one call advances the game from time ``iv[T]`` to at most
``t_end`` (and, for the strategy kernel, at most ``draw_budget`` source draws),
then returns.  The caller loops over chunks, so Ctrl-C (which Python only sees
between calls) interrupts a long run within a fraction of a second, and a
chunk's cost is bounded whatever the strategy does.

Randomness: xoshiro256** seeded by splitmix64 from a 64-bit seed; colours are
drawn from Walker's alias table packed one word per colour
(``alias << 33 | round(prob * 2^32)``), one generator output per draw.

Strategy codes are ``colours_sim.STRATEGIES``' positions:
0 none, 1 neutral, 2 greedy (Alg. 5),
3 randomized-b (Alg. 9), 4 mice (Alg. 11, a queue per elephant colour),
5 recommended (Alg. 12, one queue), 6 greedy-neutral (Alg. 1),
7 greedy-neutral-offline (Alg. 2), 8 greedy-a (Alg. 6), 9 randomized (Alg. 7),
10 randomized-a (Alg. 8), 11 combined (Alg. 10), 12 greedy-greedy (Alg. 4).
"""
from __future__ import annotations

import numpy as np
from numba import njit

MAX_DRAWS_PER_STEP = 10_000_000  # a step needing more source draws stops the run (Prop. 7.2.3)

# Integer state slots (iv) and float slots (fv) shared with colours_sim.
T, S, HEAD, SIZE, NAVAIL, DRAWS, STOPPED, REC, NSUM, BATCH, BCOUNT, LASTQ, MOVES, NELEPH, CAP = range(15)
N_IV = 15
MASS, OFFMASS, ELMASS, SUMS, SUMP = range(5)
N_FV = 5
NB = 20  # batches of the batch-means standard error
M32 = np.uint64(0xFFFFFFFF)


@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True, inline="always")
def _next(st):
    """xoshiro256** (Blackman–Vigna), state in a uint64[4] array."""
    result = _rotl(st[1] * np.uint64(5), 7) * np.uint64(9)
    t = st[1] << np.uint64(17)
    st[2] ^= st[0]
    st[3] ^= st[1]
    st[1] ^= st[2]
    st[0] ^= st[3]
    st[2] ^= t
    st[3] = _rotl(st[3], 45)
    return result


@njit(cache=True)
def seed_state(seed):
    """splitmix64 expansion of a 64-bit seed into the xoshiro state."""
    st = np.zeros(4, np.uint64)
    z = np.uint64(seed) + np.uint64(0x9E3779B97F4A7C15)
    for k in range(4):
        z = z + np.uint64(0x9E3779B97F4A7C15)
        x = z
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        st[k] = x ^ (x >> np.uint64(31))
    return st


@njit(cache=True, inline="always")
def _uniform(st):
    """A double in [0, 1) from the top 53 bits."""
    return np.float64(_next(st) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, inline="always")
def _below(x, n):
    """An index in [0, n) from the low 32 bits of ``x`` (n < 2^32)."""
    return np.int64(((x & M32) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, inline="always")
def _colour(st, table, C):
    x = _next(st)
    k = np.int64(((x >> np.uint64(32)) * np.uint64(C)) >> np.uint64(32))
    e = table[k]
    if (x & M32) < (e & np.uint64(0x1FFFFFFFF)):
        return k
    return np.int64(e >> np.uint64(33))



@njit(cache=True)
def _push(fifo, iv, c):
    """Append colour c to the FIFO ring buffer (doubled when full); returns the buffer."""
    cap, head, size = iv[CAP], iv[HEAD], iv[SIZE]
    if size == cap:
        grown = np.zeros(2 * cap, np.int64)
        for k in range(size):
            grown[k] = fifo[(head + k) % cap]
        fifo = grown
        head = 0
        cap *= 2
        iv[HEAD] = 0
        iv[CAP] = cap
    fifo[(head + size) % cap] = c
    iv[SIZE] = size + 1
    return fifo


@njit(cache=True, inline="always")
def _pop(fifo, iv):
    c = fifo[iv[HEAD]]
    iv[HEAD] = (iv[HEAD] + 1) % iv[CAP]
    iv[SIZE] -= 1
    return c


@njit(cache=True, inline="always")
def _offline_in(c, p, off, fv):
    if off[c] == 0:
        fv[OFFMASS] += p[c]
    off[c] += 1


@njit(cache=True, inline="always")
def _offline_out(c, p, off, fv):
    off[c] -= 1
    if off[c] == 0:
        fv[OFFMASS] -= p[c]


@njit(cache=True, inline="always")
def _mark_available(c, avail, apos, iv):
    if apos[c] < 0:
        avail[iv[NAVAIL]] = c
        apos[c] = iv[NAVAIL]
        iv[NAVAIL] += 1


@njit(cache=True, inline="always")
def _unmark_available(c, avail, apos, iv):
    k = apos[c]
    if k >= 0:
        iv[NAVAIL] -= 1
        last = avail[iv[NAVAIL]]
        avail[k] = last
        apos[last] = k
        apos[c] = -1


@njit(cache=True)
def _resum(p, present, off, iv, fv):
    """Recompute the running masses from scratch (bounds float drift)."""
    m = 0.0
    for k in range(iv[S]):
        m += p[present[k]]
    fv[MASS] = m
    o = 0.0
    for c in range(p.size):
        if off[c] > 0:
            o += p[c]
    fv[OFFMASS] = o


@njit(cache=True, inline="always")
def _account(t, K, total, every, iv, fv, rec, batches):
    """Batch sums over the second half and the trajectory record after step t."""
    half = max(total // 2, K)
    pn = 1.0 - fv[MASS]
    if t >= half:
        blen = max(1, (total - half) // NB)
        b = iv[BATCH]
        batches[b, 0] += iv[S]
        batches[b, 1] += pn
        batches[b, 2] += 1
        iv[BCOUNT] += 1
        if iv[BCOUNT] == blen and b < NB - 1:
            iv[BATCH] = b + 1
            iv[BCOUNT] = 0
    done = t + 1
    if done % every == 0 and iv[REC] < rec.shape[0]:
        k = iv[REC]
        rec[k, 0] = done
        rec[k, 1] = iv[S]
        rec[k, 2] = pn
        rec[k, 3] = fv[OFFMASS]
        rec[k, 4] = iv[NELEPH]
        rec[k, 5] = fv[ELMASS]
        rec[k, 6] = iv[MOVES]
        iv[REC] = k + 1


@njit(cache=True)
def advance(p, table, K, total, code, fill_rule, eleph, delta, t_star, r, stop_at, every, t_end, draw_budget,
            st, iv, fv, cnt, off, present, pos, avail, apos, fifo, rec, batches):
    """Advance the game with an offline strategy from ``iv[T]`` to ``t_end``
    (or until ``draw_budget`` source draws); returns the FIFO buffer (it may
    have grown).  ``fill_rule`` for t < K: 0 plain draws, 1 the strategy,
    2 Fig 7.9 (an elephant ball enters only when its colour is absent online).
    ``delta`` > 0: a colour becomes an elephant when it has ``delta`` balls
    online, while t < ``t_star`` (always when ``t_star`` is 0)."""
    C = p.size
    draws0 = iv[DRAWS]
    while iv[T] < t_end and iv[DRAWS] - draws0 < draw_budget:
        t = iv[T]
        if (t & 1048575) == 0:
            _resum(p, present, off, iv, fv)
        if t >= K:  # rule 1: a uniformly chosen colour online loses its first ball
            c = present[_below(_next(st), iv[S])]
            cnt[c] -= 1
            if cnt[c] == 0:
                iv[S] -= 1
                last = present[iv[S]]
                k = pos[c]
                present[k] = last
                pos[last] = k
                pos[c] = -1
                fv[MASS] -= p[c]
                if code == 4 and off[c] > 0:
                    _mark_available(c, avail, apos, iv)
        # rule 2: the ball c that enters the online structure
        c = -1
        took = False
        search = False
        fill = t < K
        if code == 1 or (fill and fill_rule == 0):
            c = _colour(st, table, C)
            iv[DRAWS] += 1
        elif fill and fill_rule == 2:
            while True:
                c = _colour(st, table, C)
                iv[DRAWS] += 1
                if not eleph[c] or cnt[c] == 0:
                    break
                _offline_in(c, p, off, fv)
        elif code == 6:  # Alg. 1
            c = _colour(st, table, C)
            iv[DRAWS] += 1
            if cnt[c] > 0 or off[c] > 0:
                fifo = _push(fifo, iv, c)
                _offline_in(c, p, off, fv)
                took = True
        elif code == 9:  # Alg. 7
            if _uniform(st) >= r and iv[SIZE] > 0:
                took = True
            else:
                c = _colour(st, table, C)
                iv[DRAWS] += 1
        elif code == 10:  # Alg. 8
            while True:
                c = _colour(st, table, C)
                iv[DRAWS] += 1
                if fv[OFFMASS] > 0.99:
                    fifo = _push(fifo, iv, c)
                    _offline_in(c, p, off, fv)
                    took = True
                    break
                if _uniform(st) < r:
                    if off[c] == 0:
                        break
                    fifo = _push(fifo, iv, c)
                    _offline_in(c, p, off, fv)
                else:
                    fifo = _push(fifo, iv, c)
                    _offline_in(c, p, off, fv)
                    took = True
                    break
        elif code == 4:  # Alg. 11
            if iv[NAVAIL] > 0:
                c = avail[0]
                _offline_out(c, p, off, fv)
                if c != iv[LASTQ]:  # reading from another queue moves the head too (§8.2)
                    iv[MOVES] += 1
                    iv[LASTQ] = c
            else:
                search = True
        elif code == 3:  # Alg. 9
            if _uniform(st) < r:
                if fv[OFFMASS] > 0.99 and iv[SIZE] > 0:
                    took = True
                else:
                    search = True
            elif iv[SIZE] > 0:
                took = True
            else:
                c = _colour(st, table, C)
                iv[DRAWS] += 1
        elif code == 7:  # Alg. 2
            if iv[SIZE] > 0:
                took = True
            else:
                search = True
        elif code == 11:  # Alg. 10
            if fv[OFFMASS] > 0.99:
                c = _colour(st, table, C)
                iv[DRAWS] += 1
                if cnt[c] > 0 and not (_uniform(st) < r and off[c] == 0):
                    fifo = _push(fifo, iv, c)
                    _offline_in(c, p, off, fv)
                    took = True
            else:
                search = True
        else:  # 2 (Alg. 5), 5 (Alg. 12), 8 (Alg. 6), 12 (Alg. 4): look at the head of the FIFO first
            if iv[SIZE] > 0 and cnt[fifo[iv[HEAD]]] == 0:
                took = True
            elif code == 8 and iv[SIZE] > 1 and cnt[fifo[(iv[HEAD] + 1) % iv[CAP]]] == 0:
                took = True
            elif (code == 2 or code == 8 or code == 12) and fv[OFFMASS] > stop_at:
                iv[STOPPED] = t
                return fifo
            else:
                search = True
        if search:  # Alg. 3, or the mice loop of Alg. 11/12
            n = 0
            while True:
                if code == 2 and fv[OFFMASS] > 0.99 and iv[SIZE] > 0:  # Alg. 5 line 5
                    took = True
                    break
                if n >= MAX_DRAWS_PER_STEP:
                    iv[STOPPED] = t
                    return fifo
                c = _colour(st, table, C)
                iv[DRAWS] += 1
                n += 1
                if code == 4 or code == 5:
                    if not eleph[c]:
                        break
                elif cnt[c] == 0 and off[c] == 0:
                    break
                _offline_in(c, p, off, fv)
                if code == 4:
                    if c != iv[LASTQ]:  # the disk head moves to another queue (§8.2)
                        iv[MOVES] += 1
                        iv[LASTQ] = c
                    if cnt[c] == 0:
                        _mark_available(c, avail, apos, iv)
                else:
                    fifo = _push(fifo, iv, c)
        if took:
            c = _pop(fifo, iv)
            _offline_out(c, p, off, fv)
        # the ball enters the online structure
        if cnt[c] == 0:
            present[iv[S]] = c
            pos[c] = iv[S]
            iv[S] += 1
            fv[MASS] += p[c]
            if code == 4:
                _unmark_available(c, avail, apos, iv)
        cnt[c] += 1
        if delta > 0 and cnt[c] >= delta and not eleph[c] and (t_star == 0 or t < t_star):
            eleph[c] = True
            iv[NELEPH] += 1
            fv[ELMASS] += p[c]
        _account(t, K, total, every, iv, fv, rec, batches)
        iv[T] = t + 1
    return fifo


@njit(cache=True)
def advance_plain(p, table, K, total, every, t_end, st, iv, fv, cnt, present, pos, rec, batches):
    """The game without offline structure (strategy ``none``) from ``iv[T]``
    to ``t_end``: a tight loop, one generator output per removal and per draw."""
    C = p.size
    uC = np.uint64(C)
    s32 = np.uint64(32)
    while iv[T] < t_end:
        t = iv[T]
        if (t & 1048575) == 0:
            m = 0.0
            for j in range(iv[S]):
                m += p[present[j]]
            fv[MASS] = m
        x = _next(st)
        if t >= K:
            c = present[np.int64(((x & M32) * np.uint64(iv[S])) >> s32)]
            cnt[c] -= 1
            if cnt[c] == 0:
                iv[S] -= 1
                last = present[iv[S]]
                k = pos[c]
                present[k] = last
                pos[last] = k
                fv[MASS] -= p[c]
            x = _next(st)
        k = np.int64(((x >> s32) * uC) >> s32)
        e = table[k]
        c = k if (x & M32) < (e & np.uint64(0x1FFFFFFFF)) else np.int64(e >> np.uint64(33))
        if cnt[c] == 0:
            present[iv[S]] = c
            pos[c] = iv[S]
            iv[S] += 1
            fv[MASS] += p[c]
        cnt[c] += 1
        iv[DRAWS] += 1
        _account(t, K, total, every, iv, fv, rec, batches)
        iv[T] = t + 1


@njit(cache=True)
def absent_mass_bins(p, cnt, off):
    """Exact sums, per binary exponent, of ``p[c]`` over the colours absent
    both online and offline (``p >= 0`` finite): ``p[c] = m 2^(k - 1074)``
    with the integer significand ``m < 2^53`` split as ``m = hi 2^26 + lo``,
    so ``sum hi[k]`` and ``sum lo[k]`` stay below 2^63 for any C < 2^36.
    The caller adds the bins as Python integers (no rounding anywhere)."""
    hi = np.zeros(2047, np.int64)
    lo = np.zeros(2047, np.int64)
    bits = p.view(np.uint64)
    for c in range(p.size):
        if cnt[c] == 0 and off[c] == 0:
            b = bits[c]
            ef = np.int64((b >> np.uint64(52)) & np.uint64(0x7FF))
            m = np.int64(b & np.uint64(0xFFFFFFFFFFFFF))
            k = 0
            if ef > 0:
                m += np.int64(1) << 52
                k = ef - 1
            hi[k] += m >> 26
            lo[k] += m & 0x3FFFFFF
    return hi, lo
