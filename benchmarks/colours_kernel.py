"""Cost per step of the δ-rule kernels (Buijsrogge 2014, Alg. 11 with §8.1's
rule, and Alg. 12) against the kernel as first written.

The reference below is a verbatim copy of the first strategy kernel: one
array per per-colour quantity (counts online and offline, positions,
elephant flags, alias words, p), the scalar state read and written through
the ``iv``/``fv`` slot arrays, the FIFO push an out-of-line call returning
the buffer, three integer divisions per step in the accounting.  The package
kernel (:mod:`crawlmath.numeric.colours._kernels`) keeps all of a colour in
one cache line, holds the scalar state in locals, counts down to the next
record instead of dividing, prefetches the record of the colour a later
generator output would draw, and is compiled once per strategy.  Both consume the same random stream, so the
benchmark first checks that they give the same records and source draws, then
prints CPU ns/step (median of ``--repeat`` runs, interleaved) of the kernel calls
alone, for K = 1000, C = 10^5, 200 000 steps: the sizes of the Ch. 8 tables,
at γ = 0.9 (about one source draw a step) and at γ = 1.3, 1.7 (tens of draws
a step: there the prefetch distance ``AHEAD`` matters).

Run: python benchmarks/colours_kernel.py [--steps 200000] [--repeat 5] [--docs docs/performance]
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

from crawlmath.numeric import colours as nc
from crawlmath.numeric.colours import _kernels as kern
from crawlmath.numeric.colours import _sim as cs
from crawlmath.numeric.colours._kernels import (BATCH, BCOUNT, CAP, DRAWS, ELMASS, HEAD, LASTQ, M32, MASS,
                                               MAX_DRAWS_PER_STEP, MOVES, NAVAIL, NB, NELEPH, OFFMASS, REC, SIZE,
                                               STOPPED, S, T)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_output import Page, run  # noqa: E402 - the sibling helper

# The reference kernels below are compiled per run (no `cache=True`): numba's on-disk cache records the module
# that compiled a kernel, and tests load this script under another module name than `__main__`, so a cache written
# by the tests made `python benchmarks/colours_kernel.py` fail to import it.  Compile time is outside the timings.
K, C, TOTAL, EVERY, REPEATS = 1000, 100_000, 200_000, 10_000, 5
CASES = (("mice-delta", 2, 0.9), ("mice-delta", 5, 0.9), ("recommended", 5, 0.9), ("recommended", 9, 0.9),
         ("recommended", 2, 1.3), ("mice-delta", 2, 1.7))


@njit(inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(inline="always")
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


@njit(inline="always")
def _uniform(st):
    """A double in [0, 1) from the top 53 bits."""
    return np.float64(_next(st) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(inline="always")
def _below(x, n):
    """An index in [0, n) from the low 32 bits of ``x`` (n < 2^32)."""
    return np.int64(((x & M32) * np.uint64(n)) >> np.uint64(32))


@njit(inline="always")
def _colour(st, table, C):
    x = _next(st)
    k = np.int64(((x >> np.uint64(32)) * np.uint64(C)) >> np.uint64(32))
    e = table[k]
    if (x & M32) < (e & np.uint64(0x1FFFFFFFF)):
        return k
    return np.int64(e >> np.uint64(33))



@njit
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


@njit(inline="always")
def _pop(fifo, iv):
    c = fifo[iv[HEAD]]
    iv[HEAD] = (iv[HEAD] + 1) % iv[CAP]
    iv[SIZE] -= 1
    return c


@njit(inline="always")
def _offline_in(c, p, off, fv):
    if off[c] == 0:
        fv[OFFMASS] += p[c]
    off[c] += 1


@njit(inline="always")
def _offline_out(c, p, off, fv):
    off[c] -= 1
    if off[c] == 0:
        fv[OFFMASS] -= p[c]


@njit(inline="always")
def _mark_available(c, avail, apos, iv):
    if apos[c] < 0:
        avail[iv[NAVAIL]] = c
        apos[c] = iv[NAVAIL]
        iv[NAVAIL] += 1


@njit(inline="always")
def _unmark_available(c, avail, apos, iv):
    k = apos[c]
    if k >= 0:
        iv[NAVAIL] -= 1
        last = avail[iv[NAVAIL]]
        avail[k] = last
        apos[last] = k
        apos[c] = -1


@njit
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


@njit(inline="always")
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


@njit
def reference_advance(p, table, K, total, code, fill_rule, eleph, delta, t_star, r, stop_at, every, t_end, draw_budget,
            st, iv, fv, cnt, off, present, pos, avail, apos, fifo, rec, batches):
    """The kernel as first written (verbatim): advance the game with an offline strategy from ``iv[T]`` to ``t_end``
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


def reference_kernel(p, table, strategy, delta, seed, total=TOTAL):
    """One call of the reference kernel over the whole run (fill by the
    strategy, as in §8.1); (records, source draws)."""
    n = p.size
    st = kern.seed_state(np.uint64(seed))
    iv = np.zeros(kern.N_IV, np.int64)
    iv[STOPPED], iv[LASTQ], iv[CAP] = -1, -1, 1024
    fv = np.zeros(kern.N_FV)
    rec = np.zeros((total // EVERY, 7))
    reference_advance(p, table, K, total, cs._CODES[strategy], cs.FILL_RULES["strategy"], np.zeros(n, np.bool_), delta,
                      0, 0.5, 2.0, EVERY, total, 1 << 62, st, iv, fv, np.zeros(n, np.int64), np.zeros(n, np.int64),
                      np.zeros(n, np.int64), np.full(n, -1, np.int64), np.zeros(n, np.int64), np.full(n, -1, np.int64),
                      np.zeros(1024, np.int64), rec, np.zeros((NB, 3)))
    return rec, int(iv[DRAWS])


def package_kernel(p, strategy, delta, seed, total=TOTAL):
    """One call of the package kernel over the whole run; (records, source draws)."""
    state = cs._State(cs._prepared(p), K, total, EVERY, seed, np.zeros(p.size, np.bool_))
    state.fifo = kern.advance(state.col, K, total, cs._CODES[strategy], cs.FILL_RULES["strategy"], delta, 0, 0.5, 2.0,
                              EVERY, total, 1 << 62, state.st, state.iv, state.fv, state.present, state.avail,
                              state.fifo, state.rec, state.batches)
    return state.rec, int(state.iv[kern.DRAWS])


def cpu_ns_per_step(run, total: int) -> float:
    t0 = time.process_time()
    run()
    return (time.process_time() - t0) / total * 1e9


PAGE = dict(
    name="colours_kernel", title="Colour game, δ-rule kernels (Buijsrogge Alg. 11/12), K = 1000, C = 10⁵",
    what="CPU ns per step of the package kernel against the kernel as first written (a verbatim copy in the "
         "benchmark), {steps} steps, median of {repeat} interleaved runs; both consume the same random stream and "
         "must give identical records. The cost grows with the source draws per step (γ of the power law).",
    columns=["strategy", "δ", "γ", "source draws / step", "first kernel (ns/step)", "package (ns/step)",
             "ratio package / first"],
    x_label="source draws per step", y_label="CPU ns per step")


def options(parser) -> None:
    parser.add_argument("--steps", type=int, default=TOTAL, help=f"steps per run (a multiple of {EVERY})")
    parser.add_argument("--repeat", type=int, default=REPEATS, help="timed runs of each kernel (median)")


def measure(args, page: Page) -> None:
    total, repeat = args.steps, args.repeat
    if total < EVERY or total % EVERY:
        raise SystemExit(f"--steps must be a multiple of {EVERY}, got {total}")
    page.what = page.what.format(steps=total, repeat=repeat)
    print(f"K = {K}, C = {C}, {total} steps; CPU ns/step of the kernel call, median of {repeat}")
    for strategy, delta, gamma in CASES:
        p = nc.colour_distribution("powerlaw", C, gamma)
        table = cs.packed_table(*cs.alias_table(p))
        ref = reference_kernel(p, table, strategy, delta, 7, total)
        new = package_kernel(p, strategy, delta, 7, total)
        if new[1] != ref[1] or not np.array_equal(new[0], ref[0]):
            raise RuntimeError(f"{strategy} delta={delta}: the package kernel and the reference differ")
        old_ns, new_ns = [], []
        for seed in range(100, 100 + repeat):
            old_ns.append(cpu_ns_per_step(lambda: reference_kernel(p, table, strategy, delta, seed, total), total))
            new_ns.append(cpu_ns_per_step(lambda: package_kernel(p, strategy, delta, seed, total), total))
        a, b = statistics.median(old_ns), statistics.median(new_ns)
        print(f"{strategy:12s} delta={delta} gamma={gamma}: reference {a:6.1f}  package {b:6.1f}  ({a / b:.2f}x, "
              f"{ref[1] / total:.2f} source draws/step)")
        draws = ref[1] / total
        page.rows.append([strategy, str(delta), str(gamma), f"{draws:.2f}", f"{a:.1f}", f"{b:.1f}", f"{b / a:.2f}"])
        page.curve("first kernel", line=False).points.append((draws, a))
        page.curve("package kernel", line=False).points.append((draws, b))


if __name__ == "__main__":
    sys.exit(run(__file__, __doc__, measure, PAGE, options))
