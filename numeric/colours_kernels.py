"""numba kernels of :mod:`crawlmath.numeric.colours_sim` (compiled lazily, cached).

Strategy codes follow ``colours_sim.STRATEGIES``:
0 none, 1 neutral, 2 greedy, 3 randomized, 4 mice, 5 recommended, 6 greedy-neutral.
"""
from __future__ import annotations

import numpy as np
from numba import njit

MAX_DRAWS_PER_STEP = 10_000_000  # a step needing more source draws stops the run (Prop. 7.2.3)


@njit(cache=True, inline="always")
def _draw(prob, alias, n):
    u = np.random.random() * n
    k = int(u)
    if k >= n:
        k = n - 1
    return k if (u - k) < prob[k] else alias[k]


@njit(cache=True)
def _push(fifo, head, size, cap, c):
    """Append colour c to the FIFO ring buffer, doubling it when full."""
    if size == cap:
        nf = np.zeros(2 * cap, np.int64)
        for k in range(size):
            nf[k] = fifo[(head + k) % cap]
        fifo = nf
        head = 0
        cap *= 2
    fifo[(head + size) % cap] = c
    return fifo, head, cap


@njit(cache=True)
def run(p, prob, alias, K, steps, seed, code, elephant, delta, r, t_star, prefill, stop_at, every):
    np.random.seed(seed)
    C = p.size
    total = K + steps
    cnt = np.zeros(C, np.int64)
    off = np.zeros(C, np.int64)
    present = np.zeros(C, np.int64)
    pos = np.full(C, -1, np.int64)
    avail = np.zeros(C, np.int64)  # mice: colours offline and not online
    apos = np.full(C, -1, np.int64)
    navail = 0
    S = 0
    mass = 0.0  # probability mass of colours online
    offmass = 0.0  # probability mass of colours in the offline structure
    cap = 1024
    fifo = np.zeros(cap, np.int64)
    head = 0
    size = 0
    eleph = elephant.copy()
    nrec = total // every + 1
    times = np.zeros(nrec, np.int64)
    recS = np.zeros(nrec)
    recP = np.zeros(nrec)
    recO = np.zeros(nrec)
    nb = 20
    half = max(total // 2, K)
    blen = max(1, (total - half) // nb)
    batches = np.zeros((nb, 3))
    sumS = 0.0
    sumP = 0.0
    nsum = 0
    draws = 0
    stopped = -1
    rec = 0
    # prefill: draw balls into the FIFO before the game (Prop. 7.2.2)
    for _ in range(prefill):
        c = _draw(prob, alias, C)
        draws += 1
        fifo, head, cap = _push(fifo, head, size, cap, c)
        size += 1
        if off[c] == 0:
            offmass += p[c]
        off[c] += 1
    for t in range(total):
        if t >= K:
            c = present[int(np.random.random() * S) if S > 0 else 0]
            cnt[c] -= 1
            if cnt[c] == 0:
                last = present[S - 1]
                present[pos[c]] = last
                pos[last] = pos[c]
                pos[c] = -1
                S -= 1
                mass -= p[c]
                if off[c] > 0 and apos[c] < 0:
                    avail[navail] = c
                    apos[c] = navail
                    navail += 1
        # choose the ball that enters the online structure
        fill = t < K
        if code == 0 or code == 1 or (fill and code != 5):
            c = _draw(prob, alias, C)
            draws += 1
        elif code == 6:  # Alg. 1 greedy-neutral-source
            c = _draw(prob, alias, C)
            draws += 1
            if cnt[c] > 0 or off[c] > 0:
                fifo, head, cap = _push(fifo, head, size, cap, c)
                size += 1
                if off[c] == 0:
                    offmass += p[c]
                off[c] += 1
                c = fifo[head]
                head = (head + 1) % cap
                size -= 1
                off[c] -= 1
                if off[c] == 0:
                    offmass -= p[c]
        elif code == 4:  # Alg. 11 mice and elephants, a queue per elephant colour
            if navail > 0:
                c = avail[0]
                off[c] -= 1
                if off[c] == 0:
                    offmass -= p[c]
            else:
                n = 0
                while True:
                    c = _draw(prob, alias, C)
                    draws += 1
                    n += 1
                    if not eleph[c] or n > MAX_DRAWS_PER_STEP:
                        break
                    if off[c] == 0:
                        offmass += p[c]
                    off[c] += 1
                    if cnt[c] == 0 and apos[c] < 0:
                        avail[navail] = c
                        apos[c] = navail
                        navail += 1
                if n > MAX_DRAWS_PER_STEP:
                    stopped = t
                    break
        else:  # FIFO strategies: 2 greedy (Alg. 5), 3 randomized (Alg. 9), 5 recommended (Alg. 12)
            took = False
            search = False
            if code == 3:
                if np.random.random() < r:
                    if offmass > 0.99 and size > 0:
                        took = True
                    else:
                        search = True
                elif size > 0:
                    took = True
                else:
                    c = _draw(prob, alias, C)
                    draws += 1
            elif size > 0 and cnt[fifo[head]] == 0:
                took = True
            else:
                if code == 2 and offmass > stop_at:
                    stopped = t
                    break
                search = True
            if search:
                n = 0
                while True:
                    if code == 2 and offmass > 0.99 and size > 0:
                        took = True
                        break
                    c = _draw(prob, alias, C)
                    draws += 1
                    n += 1
                    if n > MAX_DRAWS_PER_STEP:
                        break
                    if code == 5:
                        if not eleph[c]:
                            break
                    elif cnt[c] == 0 and off[c] == 0:
                        break
                    fifo, head, cap = _push(fifo, head, size, cap, c)
                    size += 1
                    if off[c] == 0:
                        offmass += p[c]
                    off[c] += 1
                if n > MAX_DRAWS_PER_STEP:
                    stopped = t
                    break
            if took:
                c = fifo[head]
                head = (head + 1) % cap
                size -= 1
                off[c] -= 1
                if off[c] == 0:
                    offmass -= p[c]
        # put ball c online
        if cnt[c] == 0:
            present[S] = c
            pos[c] = S
            S += 1
            mass += p[c]
            if apos[c] >= 0:
                k = apos[c]
                navail -= 1
                last = avail[navail]
                avail[k] = last
                apos[last] = k
                apos[c] = -1
        cnt[c] += 1
        if code == 5 and cnt[c] >= delta and (t_star == 0 or t < t_star):
            eleph[c] = True
        if (t & 1048575) == 0:
            mass = 0.0
            for k in range(S):
                mass += p[present[k]]
        pn = 1.0 - mass
        if t >= half:
            sumS += S
            sumP += pn
            nsum += 1
            b = min((t - half) // blen, nb - 1)
            batches[b, 0] += S
            batches[b, 1] += pn
            batches[b, 2] += 1
        if t % every == 0 and rec < nrec:
            times[rec] = t + 1
            recS[rec] = S
            recP[rec] = pn
            recO[rec] = offmass
            rec += 1
    avg_s = sumS / nsum if nsum > 0 else np.nan
    avg_p = sumP / nsum if nsum > 0 else np.nan
    return (times[:rec], recS[:rec], recP[:rec], recO[:rec], avg_s, avg_p, batches, draws, stopped, eleph)


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
def _seed_state(seed):
    """splitmix64 expansion of the seed into the xoshiro state."""
    st = np.zeros(4, np.uint64)
    z = np.uint64(seed) + np.uint64(0x9E3779B97F4A7C15)
    for k in range(4):
        z = z + np.uint64(0x9E3779B97F4A7C15)
        x = z
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        st[k] = x ^ (x >> np.uint64(31))
    return st


@njit(cache=True)
def run_plain(p, table, K, steps, seed, every):
    """The game without offline structure (strategy ``none``), tight loop.

    ``table[k] = alias[k] << 33 | threshold[k]`` packs Walker's alias table
    (threshold = prob * 2^32) into one word; randomness from xoshiro256**."""
    st = _seed_state(seed)
    C = p.size
    total = K + steps
    cnt = np.zeros(C, np.int32)
    present = np.zeros(C, np.int32)
    pos = np.zeros(C, np.int32)
    nrec = total // every + 1
    times = np.zeros(nrec, np.int64)
    recS = np.zeros(nrec)
    recP = np.zeros(nrec)
    nb = 20
    half = max(total // 2, K)
    blen = max(1, (total - half) // nb)
    batches = np.zeros((nb, 3))
    S = 0
    mass = 0.0
    rec = 0
    next_rec = 0
    b = 0
    next_b = half + blen
    bS = 0
    bP = 0.0
    bn = 0
    uC = np.uint64(C)
    m32 = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    for t in range(total):
        x = _next(st)
        if t >= K:
            c = present[np.int64(((x & m32) * np.uint64(S)) >> s32)]
            cnt[c] -= 1
            if cnt[c] == 0:
                S -= 1
                last = present[S]
                k = pos[c]
                present[k] = last
                pos[last] = k
                mass -= p[c]
            x = _next(st)
        k = np.int64(((x >> s32) * uC) >> s32)
        e = table[k]
        if (x & m32) < (e & np.uint64(0x1FFFFFFFF)):
            c = k
        else:
            c = np.int64(e >> np.uint64(33))
        if cnt[c] == 0:
            present[S] = c
            pos[c] = S
            S += 1
            mass += p[c]
        cnt[c] += 1
        if t >= half:
            if t == next_b and b < nb - 1:
                batches[b, 0] = bS
                batches[b, 1] = bP
                batches[b, 2] = bn
                b += 1
                next_b += blen
                bS = 0
                bP = 0.0
                bn = 0
            bS += S
            bP += 1.0 - mass
            bn += 1
        if t == next_rec:
            if (rec & 1023) == 0:
                mass = 0.0
                for j in range(S):
                    mass += p[present[j]]
            times[rec] = t + 1
            recS[rec] = S
            recP[rec] = 1.0 - mass
            rec += 1
            next_rec += every
    batches[b, 0] = bS
    batches[b, 1] = bP
    batches[b, 2] = bn
    n = batches[:, 2].sum()
    avg_s = batches[:, 0].sum() / n if n > 0 else np.nan
    avg_p = batches[:, 1].sum() / n if n > 0 else np.nan
    return (times[:rec], recS[:rec], recP[:rec], np.zeros(rec), avg_s, avg_p, batches, total, -1,
            np.zeros(C, np.bool_))
