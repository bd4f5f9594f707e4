"""numba kernels of :mod:`crawlmath.numeric.colours._sim` (compiled lazily, cached).

Both kernels are *resumable*: the whole simulation state lives in arrays that
the caller owns, and one call advances the game from time ``iv[T]`` to at most
``t_end`` (and, for the strategy kernel, at most ``draw_budget`` source draws),
then returns.  The caller loops over chunks, so Ctrl-C (which Python only sees
between calls) interrupts a long run within a fraction of a second, and a
chunk's cost is bounded whatever the strategy does.

Randomness: xoshiro256** seeded by splitmix64 from a 64-bit seed; colours are
drawn from Walker's alias table packed one word per colour
(``alias << 33 | round(prob * 2^32)``), one generator output per draw.

Why a step is cheap (C = 10^5 colours, K = 1000): (1) inside a call the
scalar state (the ``iv``/``fv`` slots, the generator, the batch sums, the
next record time) lives in local variables, which LLVM keeps in registers
(it cannot when they sit in arrays that may alias the per-colour ones), and
is written back before every return; no integer division per step, and the
FIFO push is inline (its rare growth is not).  (2) Everything the game keeps
per colour -- the alias word of column c, p_c, the balls of c online and
offline, c's place in the list of present colours and in the list of
available queues, the elephant flag -- sits in one 64-byte record
(:data:`COLOUR`) aligned to a cache line (:func:`colour_records`), and each
generator output prefetches the record that the output AHEAD places later
would read if it drew a colour, so a draw rarely waits for memory.  (3) The
strategy kernel is compiled once per strategy (:func:`_strategy_kernel`), so
a step carries only its own strategy's branches.  The random stream and the
order of the floating-point operations on the masses are those of the
straightforward kernel, so runs are bit-identical to it.

Strategy codes are ``colours_sim.STRATEGIES``' positions:
0 none, 1 neutral, 2 greedy (Alg. 5),
3 randomized-b (Alg. 9), 4 mice (Alg. 11, a queue per elephant colour),
5 recommended (Alg. 12, one queue), 6 greedy-neutral (Alg. 1),
7 greedy-neutral-offline (Alg. 2), 8 greedy-a (Alg. 6), 9 randomized (Alg. 7),
10 randomized-a (Alg. 8), 11 combined (Alg. 10), 12 greedy-greedy (Alg. 4).
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

MAX_DRAWS_PER_STEP = 10_000_000  # a step needing more source draws stops the run (Prop. 7.2.3)

# Integer state slots (iv) and float slots (fv) shared with colours_sim.
T, S, HEAD, SIZE, NAVAIL, DRAWS, STOPPED, REC, NSUM, BATCH, BCOUNT, LASTQ, MOVES, NELEPH, CAP = range(15)
N_IV = 15
MASS, OFFMASS, ELMASS, SUMS, SUMP = range(5)
N_FV = 5
NB = 20  # batches of the batch-means standard error
M32 = np.uint64(0xFFFFFFFF)
LINE = 64  # bytes of a cache line
# Generator outputs between a prefetch and the draw that may read it: a step of a heavy-tailed p draws tens of
# times in a row (~10 ns a draw), so the lead must cover a miss to main memory; 8 was 1.5-1.9x slower at
# gamma >= 1.3 (benchmarks/colours_kernel.py) and 24-64 measure alike.
AHEAD = 32

# Per-colour record: alias word of column c, p_c, balls online (cnt) and offline (off), index in the list
# of present colours (pos, -1 when absent online) and of available queues (apos, -1 when not listed).
COLOUR = np.dtype({"names": ["table", "p", "cnt", "off", "pos", "apos", "eleph"],
                   "formats": [np.uint64, np.float64, np.int64, np.int64, np.int64, np.int64, np.bool_],
                   "offsets": [0, 8, 16, 24, 32, 40, 48], "itemsize": LINE})


def colour_records(p: np.ndarray, table: np.ndarray, eleph: np.ndarray) -> np.ndarray:
    """The per-colour records of a fresh game (nothing online or offline),
    starting on a cache-line boundary so that each record is one line."""
    C = p.size
    raw = np.zeros(C * LINE + LINE, np.uint8)
    start = -raw.ctypes.data % LINE
    col = raw[start:start + C * LINE].view(COLOUR)
    col["table"] = table
    col["p"] = p
    col["pos"] = -1
    col["apos"] = -1
    col["eleph"] = eleph
    return col


@njit(cache=True)
def alias_columns(p):
    """Walker's alias table of ``p``: (prob, alias), built with two stacks of
    columns (scaled mass below 1 / at least 1), each column filled from the
    top of the large stack; the leftovers get probability 1."""
    n = p.size
    prob = np.zeros(n)
    alias = np.zeros(n, np.int64)
    scaled = p * n
    small = np.empty(n, np.int64)
    large = np.empty(n, np.int64)
    ns = nl = 0
    for i in range(n):
        if scaled[i] < 1.0:
            small[ns] = i
            ns += 1
        else:
            large[nl] = i
            nl += 1
    while ns > 0 and nl > 0:
        ns -= 1
        nl -= 1
        s, g = small[ns], large[nl]
        prob[s], alias[s] = scaled[s], g
        scaled[g] = scaled[g] + scaled[s] - 1.0
        if scaled[g] < 1.0:
            small[ns] = g
            ns += 1
        else:
            large[nl] = g
            nl += 1
    for k in range(nl):
        prob[large[k]], alias[large[k]] = 1.0, large[k]
    for k in range(ns):
        prob[small[k]], alias[small[k]] = 1.0, small[k]
    return prob, alias


@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True, inline="always")
def _next(s):
    """xoshiro256** (Blackman–Vigna): (output, next state), the state a 4-tuple."""
    s0, s1, s2, s3 = s
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return result, (s0, s1, s2, s3)


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


@intrinsic
def _prefetch(typingctx, arr, idx):
    """Hint the CPU to bring ``arr[idx]``'s cache line in (LLVM's prefetch: read, keep in all levels)."""
    def codegen(context, builder, sig, args):
        aryty = sig.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
        i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        # declare_intrinsic mangles the pointer type as this llvmlite's LLVM expects (p0i8 or p0)
        fn = builder.module.declare_intrinsic("llvm.prefetch", [i8p], ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]))
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()
    return types.void(arr, idx), codegen


@njit(cache=True, inline="always")
def _column(x, uC):
    """The alias column of a draw: high 32 bits of ``x`` scaled to [0, C)."""
    return np.int64(((x >> np.uint64(32)) * uC) >> np.uint64(32))


@njit(cache=True, inline="always")
def _output(s, a, col, uC):
    """The next generator output (state ``s``), and the prefetch of the
    record that the output AHEAD places further (state ``a``) would read if
    it drew a colour: the stream itself is untouched, and a draw then rarely
    waits for memory.  Returns (x, s, a)."""
    x, s = _next(s)
    y, a = _next(a)
    _prefetch(col, _column(y, uC))
    return x, s, a


@njit(cache=True, inline="always")
def _lookahead(s, col, uC):
    """The state AHEAD outputs after ``s``, prefetching the records on the way."""
    a = s
    for _ in range(AHEAD):
        y, a = _next(a)
        _prefetch(col, _column(y, uC))
    return a


@njit(cache=True, inline="always")
def _uniform(s, a, col, uC):
    """A double in [0, 1) from the top 53 bits; (u, s, a)."""
    x, s, a = _output(s, a, col, uC)
    return np.float64(x >> np.uint64(11)) * (1.0 / 9007199254740992.0), s, a


@njit(cache=True, inline="always")
def _below(x, n):
    """An index in [0, n) from the low 32 bits of ``x`` (n < 2^32)."""
    return np.int64(((x & M32) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, inline="always")
def _colour(s, a, col, uC):
    """A colour drawn from p (alias column from the high 32 bits, coin from the low ones); (c, s, a)."""
    x, s, a = _output(s, a, col, uC)
    k = _column(x, uC)
    e = col[k].table
    if (x & M32) < (e & np.uint64(0x1FFFFFFFF)):
        return k, s, a
    return np.int64(e >> np.uint64(33)), s, a


@njit(cache=True)
def _grow(fifo, head, size):
    """The full FIFO ring buffer copied in order into one twice as large (head at 0)."""
    cap = fifo.size
    grown = np.zeros(2 * cap, np.int64)
    for k in range(size):
        j = head + k
        grown[k] = fifo[j - cap if j >= cap else j]
    return grown


@njit(cache=True, inline="always")
def _slot(head, k, cap):
    """Ring-buffer index of the k-th ball after the head (k <= cap)."""
    j = head + k
    return j - cap if j >= cap else j


@njit(cache=True, inline="always")
def _offline_in(c, col, offmass):
    if col[c].off == 0:
        offmass += col[c].p
    col[c].off += 1
    return offmass


@njit(cache=True, inline="always")
def _offline_out(c, col, offmass):
    col[c].off -= 1
    if col[c].off == 0:
        offmass -= col[c].p
    return offmass


@njit(cache=True, inline="always")
def _mark_available(c, col, avail, navail):
    if col[c].apos < 0:
        avail[navail] = c
        col[c].apos = navail
        navail += 1
    return navail


@njit(cache=True, inline="always")
def _unmark_available(c, col, avail, navail):
    k = col[c].apos
    if k >= 0:
        navail -= 1
        last = avail[navail]
        avail[k] = last
        col[last].apos = k
        col[c].apos = -1
    return navail


@njit(cache=True)
def _masses(col, present, S):
    """The running masses recomputed from scratch (bounds float drift): (online, offline)."""
    m = 0.0
    for k in range(S):
        m += col[present[k]].p
    o = 0.0
    for c in range(col.size):
        if col[c].off > 0:
            o += col[c].p
    return m, o


@njit(cache=True, inline="always")
def _next_record(t, every):
    """The first record time (a multiple of ``every``) after step t, i.e. >= t + 1."""
    return (t // every + 1) * every


@njit(cache=True, inline="always")
def _account(t, half, blen, n_on, mass, offmass, neleph, elmass, moves, b, bcount, bsum_s, bsum_p, bsum_n,
             rec_at, every, rec_k, nrec, rec, batches):
    """After step t: the batch sums over the second half (``NB`` batches of ``blen`` steps, the running batch
    kept in locals) and the trajectory record every ``every`` steps; returns the advanced locals
    (t + 1, batch, its count and sums, next record time, records written)."""
    pn = 1.0 - mass
    if t >= half:
        bsum_s += n_on
        bsum_p += pn
        bsum_n += 1
        bcount += 1
        if bcount == blen and b < NB - 1:
            batches[b, 0], batches[b, 1], batches[b, 2] = bsum_s, bsum_p, bsum_n
            b += 1
            bcount = 0
            bsum_s, bsum_p, bsum_n = batches[b, 0], batches[b, 1], batches[b, 2]
    t += 1
    if t == rec_at:
        rec_at += every
        if rec_k < nrec:
            rec[rec_k, 0] = t
            rec[rec_k, 1] = n_on
            rec[rec_k, 2] = pn
            rec[rec_k, 3] = offmass
            rec[rec_k, 4] = neleph
            rec[rec_k, 5] = elmass
            rec[rec_k, 6] = moves
            rec_k += 1
    return t, b, bcount, bsum_s, bsum_p, bsum_n, rec_at, rec_k


def advance(col, K, total, code, fill_rule, delta, t_star, r, stop_at, every, t_end, draw_budget,
            st, iv, fv, present, avail, fifo, rec, batches):
    """Advance the game with an offline strategy from ``iv[T]`` to ``t_end``
    (or until ``draw_budget`` source draws); returns the FIFO buffer (it may
    have grown).  Runs the kernel compiled for ``code`` (:func:`_strategy_kernel`)."""
    code = int(code)
    kernel = _KERNELS.get(code)
    if kernel is None:
        kernel = _KERNELS[code] = _strategy_kernel(code)
    return kernel(col, K, total, fill_rule, delta, t_star, r, stop_at, every, t_end, draw_budget, st, iv, fv, present,
                  avail, fifo, rec, batches)


_KERNELS: dict = {}


def _strategy_kernel(code: int):
    """The strategy kernel with ``code`` a compile-time constant: numba
    compiles (and caches) one kernel per strategy, LLVM folds every test of
    ``code``, and the step keeps only its strategy's branches (Alg. 11 15-30%
    faster, Alg. 12 up to 10%, than one kernel testing ``code`` at run time)."""

    @njit(cache=True)
    def advance_code(col, K, total, fill_rule, delta, t_star, r, stop_at, every, t_end, draw_budget,
                     st, iv, fv, present, avail, fifo, rec, batches):
        """Advance the game with the offline strategy ``code`` from ``iv[T]`` to ``t_end``
        (or until ``draw_budget`` source draws); returns the FIFO buffer (it may
        have grown).  ``fill_rule`` for t < K: 0 plain draws, 1 the strategy,
        2 Fig 7.9 (an elephant ball enters only when its colour is absent online).
        ``delta`` > 0: a colour becomes an elephant when it has ``delta`` balls
        online, while t < ``t_star`` (always when ``t_star`` is 0).

        Batch sums over the second half (t >= max(total // 2, K)), NB batches of
        max(1, (total - half) // NB) steps (the last takes the rest), and the
        record (t, S, P_new, P_offline, c, 1-q, m) every ``every`` steps."""
        uC = np.uint64(col.size)
        half = max(total // 2, K)
        blen = max(1, (total - half) // NB)
        nrec = rec.shape[0]
        t = iv[T]
        n_on, head, size, navail, draws = iv[S], iv[HEAD], iv[SIZE], iv[NAVAIL], iv[DRAWS]
        rec_k, b, bcount, lastq, moves, neleph, cap = iv[REC], iv[BATCH], iv[BCOUNT], iv[LASTQ], iv[MOVES], iv[NELEPH], iv[CAP]
        mass, offmass, elmass = fv[MASS], fv[OFFMASS], fv[ELMASS]
        bsum_s, bsum_p, bsum_n = batches[b, 0], batches[b, 1], batches[b, 2]
        s = (st[0], st[1], st[2], st[3])
        a = _lookahead(s, col, uC)
        draws_end = draws + draw_budget
        rec_at = _next_record(t, every)
        stopped = iv[STOPPED]
        while t < t_end and draws < draws_end:
            if (t & 1048575) == 0:
                mass, offmass = _masses(col, present, n_on)
            if t >= K:  # rule 1: a uniformly chosen colour online loses its first ball
                x, s, a = _output(s, a, col, uC)
                c = present[_below(x, n_on)]
                col[c].cnt -= 1
                if col[c].cnt == 0:
                    n_on -= 1
                    last = present[n_on]
                    k = col[c].pos
                    present[k] = last
                    col[last].pos = k
                    col[c].pos = -1
                    mass -= col[c].p
                    if code == 4 and col[c].off > 0:
                        navail = _mark_available(c, col, avail, navail)
            # rule 2: the ball c that enters the online structure
            c = -1
            took = False
            search = False
            fill = t < K
            if code == 1 or (fill and fill_rule == 0):
                c, s, a = _colour(s, a, col, uC)
                draws += 1
            elif fill and fill_rule == 2:
                while True:
                    c, s, a = _colour(s, a, col, uC)
                    draws += 1
                    if not col[c].eleph or col[c].cnt == 0:
                        break
                    offmass = _offline_in(c, col, offmass)
            elif code == 6:  # Alg. 1
                c, s, a = _colour(s, a, col, uC)
                draws += 1
                if col[c].cnt > 0 or col[c].off > 0:
                    fifo[_slot(head, size, cap)] = c
                    size += 1
                    if size == cap:
                        fifo = _grow(fifo, head, size)
                        head, cap = 0, fifo.size
                    offmass = _offline_in(c, col, offmass)
                    took = True
            elif code == 9:  # Alg. 7
                u, s, a = _uniform(s, a, col, uC)
                if u >= r and size > 0:
                    took = True
                else:
                    c, s, a = _colour(s, a, col, uC)
                    draws += 1
            elif code == 10:  # Alg. 8
                while True:
                    c, s, a = _colour(s, a, col, uC)
                    draws += 1
                    if offmass > 0.99:
                        took = True
                    else:
                        u, s, a = _uniform(s, a, col, uC)
                        if u < r:
                            if col[c].off == 0:
                                break
                        else:
                            took = True
                    fifo[_slot(head, size, cap)] = c
                    size += 1
                    if size == cap:
                        fifo = _grow(fifo, head, size)
                        head, cap = 0, fifo.size
                    offmass = _offline_in(c, col, offmass)
                    if took:
                        break
            elif code == 4:  # Alg. 11
                if navail > 0:
                    c = avail[0]
                    offmass = _offline_out(c, col, offmass)
                    if c != lastq:  # reading from another queue moves the head too (§8.2)
                        moves += 1
                        lastq = c
                else:
                    search = True
            elif code == 3:  # Alg. 9
                u, s, a = _uniform(s, a, col, uC)
                if u < r:
                    if offmass > 0.99 and size > 0:
                        took = True
                    else:
                        search = True
                elif size > 0:
                    took = True
                else:
                    c, s, a = _colour(s, a, col, uC)
                    draws += 1
            elif code == 7:  # Alg. 2
                if size > 0:
                    took = True
                else:
                    search = True
            elif code == 11:  # Alg. 10
                if offmass > 0.99:
                    c, s, a = _colour(s, a, col, uC)
                    draws += 1
                    if col[c].cnt > 0:
                        u, s, a = _uniform(s, a, col, uC)
                        if not (u < r and col[c].off == 0):
                            fifo[_slot(head, size, cap)] = c
                            size += 1
                            if size == cap:
                                fifo = _grow(fifo, head, size)
                                head, cap = 0, fifo.size
                            offmass = _offline_in(c, col, offmass)
                            took = True
                else:
                    search = True
            else:  # 2 (Alg. 5), 5 (Alg. 12), 8 (Alg. 6), 12 (Alg. 4): look at the head of the FIFO first
                if size > 0 and col[fifo[head]].cnt == 0:
                    took = True
                elif code == 8 and size > 1 and col[fifo[_slot(head, 1, cap)]].cnt == 0:
                    took = True
                elif (code == 2 or code == 8 or code == 12) and offmass > stop_at:
                    stopped = t
                    break
                else:
                    search = True
            if search:  # Alg. 3, or the mice loop of Alg. 11/12
                n = 0
                while True:
                    if code == 2 and offmass > 0.99 and size > 0:  # Alg. 5 line 5
                        took = True
                        break
                    if n >= MAX_DRAWS_PER_STEP:
                        stopped = t
                        break
                    c, s, a = _colour(s, a, col, uC)
                    draws += 1
                    n += 1
                    if code == 4 or code == 5:
                        if not col[c].eleph:
                            break
                    elif col[c].cnt == 0 and col[c].off == 0:
                        break
                    offmass = _offline_in(c, col, offmass)
                    if code == 4:
                        if c != lastq:  # the disk head moves to another queue (§8.2)
                            moves += 1
                            lastq = c
                        if col[c].cnt == 0:
                            navail = _mark_available(c, col, avail, navail)
                    else:
                        fifo[_slot(head, size, cap)] = c
                        size += 1
                        if size == cap:
                            fifo = _grow(fifo, head, size)
                            head, cap = 0, fifo.size
                if stopped >= 0:
                    break
            if took:
                c = fifo[head]
                head = _slot(head, 1, cap)
                size -= 1
                offmass = _offline_out(c, col, offmass)
            # the ball enters the online structure
            if col[c].cnt == 0:
                present[n_on] = c
                col[c].pos = n_on
                n_on += 1
                mass += col[c].p
                if code == 4:
                    navail = _unmark_available(c, col, avail, navail)
            col[c].cnt += 1
            if delta > 0 and col[c].cnt >= delta and not col[c].eleph and (t_star == 0 or t < t_star):
                col[c].eleph = True
                neleph += 1
                elmass += col[c].p
            # accounting after step t
            t, b, bcount, bsum_s, bsum_p, bsum_n, rec_at, rec_k = _account(
                t, half, blen, n_on, mass, offmass, neleph, elmass, moves, b, bcount, bsum_s, bsum_p, bsum_n,
                rec_at, every, rec_k, nrec, rec, batches)
        batches[b, 0], batches[b, 1], batches[b, 2] = bsum_s, bsum_p, bsum_n
        iv[T], iv[S], iv[HEAD], iv[SIZE], iv[NAVAIL], iv[DRAWS], iv[STOPPED] = t, n_on, head, size, navail, draws, stopped
        iv[REC], iv[BATCH], iv[BCOUNT], iv[LASTQ], iv[MOVES], iv[NELEPH], iv[CAP] = rec_k, b, bcount, lastq, moves, neleph, cap
        fv[MASS], fv[OFFMASS], fv[ELMASS] = mass, offmass, elmass
        st[0], st[1], st[2], st[3] = s
        return fifo

    return advance_code


@njit(cache=True)
def advance_plain(col, K, total, every, t_end, st, iv, fv, present, rec, batches):
    """The game without offline structure (strategy ``none``) from ``iv[T]``
    to ``t_end``: a tight loop, one generator output per removal and per draw
    (batches and records as in :func:`advance`).

    Rule 1 and the entry of a ball are written out here and in ``advance_code``
    on purpose: moving them into shared ``inline="always"`` helpers gave the
    same bits but made the strategy kernels 1.5-1.7x slower at gamma = 0.9
    (62-73 -> 105-114 ns/step, benchmarks/colours_kernel.py, 2026-11-27)."""
    uC = np.uint64(col.size)
    half = max(total // 2, K)
    blen = max(1, (total - half) // NB)
    nrec = rec.shape[0]
    t, n_on, draws, rec_k, b, bcount, neleph, moves = iv[T], iv[S], iv[DRAWS], iv[REC], iv[BATCH], iv[BCOUNT], iv[NELEPH], iv[MOVES]
    mass, offmass, elmass = fv[MASS], fv[OFFMASS], fv[ELMASS]
    bsum_s, bsum_p, bsum_n = batches[b, 0], batches[b, 1], batches[b, 2]
    s = (st[0], st[1], st[2], st[3])
    a = _lookahead(s, col, uC)
    rec_at = _next_record(t, every)
    while t < t_end:
        if (t & 1048575) == 0:
            mass = 0.0
            for j in range(n_on):
                mass += col[present[j]].p
        if t >= K:
            x, s, a = _output(s, a, col, uC)
            c = present[_below(x, n_on)]
            col[c].cnt -= 1
            if col[c].cnt == 0:
                n_on -= 1
                last = present[n_on]
                k = col[c].pos
                present[k] = last
                col[last].pos = k
                mass -= col[c].p
        c, s, a = _colour(s, a, col, uC)
        if col[c].cnt == 0:
            present[n_on] = c
            col[c].pos = n_on
            n_on += 1
            mass += col[c].p
        col[c].cnt += 1
        draws += 1
        t, b, bcount, bsum_s, bsum_p, bsum_n, rec_at, rec_k = _account(
            t, half, blen, n_on, mass, offmass, neleph, elmass, moves, b, bcount, bsum_s, bsum_p, bsum_n,
            rec_at, every, rec_k, nrec, rec, batches)
    batches[b, 0], batches[b, 1], batches[b, 2] = bsum_s, bsum_p, bsum_n
    iv[T], iv[S], iv[DRAWS], iv[REC], iv[BATCH], iv[BCOUNT] = t, n_on, draws, rec_k, b, bcount
    fv[MASS] = mass
    st[0], st[1], st[2], st[3] = s


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
