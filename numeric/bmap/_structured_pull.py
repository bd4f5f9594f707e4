"""The R = 2 matvec of the matrix-free BMAP solver (Avrachenkov et al., seed 000): "pull" kernels on 8-lane
vectors (`crawlmath.numeric.linalg._lanes`).  `apply_pull` forms every level of 32 columns or more in one call;
`down_add_pull` is the coupling down one level at R = 2.  `crawlmath.numeric.bmap._structured` decides which
levels they form (`LevelOperators`); tests/test_bmap_structured.py checks them against the plain kernels.

>>> y = np.ones(32)                       # level 6 (n = 5 waiting pages, W = M = 1), R = 2
>>> x = np.zeros(64)                      # level 7 at zero: nothing flows down
>>> down_add_pull(x, y, 1, 1, 6, np.ones(1), np.ones(1), np.array([0.5, 0.5]), 1.0)
>>> bool((y == 1.0).all())
True
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..linalg._lanes import CACHE, add8, fma8, load8, mul8, pick8, splat8, store8, swap8

# --- the matvec at R = 2: "pull" kernels on 8-lane vectors ----------------------
# A run of 32 consecutive outputs of a level row (four `simd` vectors) is summed in registers from every input
# it depends on (its own entries and partners for the diagonal block, the level above for the exits, the levels
# below for the batches) and stored once.  The helpers are inlined at the numba level ("always"; as calls the
# K = 16 matvec took 0.61 ms instead of 0.57).  Nothing in the loop creates an array view: a view is reference
# counted, and one per run (a batch's D_l^T, tried) made the kernel twice as slow.


@njit(cache=CACHE, inline="always")
def _diag_run(x, row, j0, p, P, N, n, C, rate, d_hi, s01, s10, c1, c2, c4, e0, e1, e2, e3, a0, a1, a2, a3):
    """``a += x[row-block] (C ⊕ G^{⊕n})`` on the run ``j0 .. j0 + 31`` of row p (``row`` its start in x):

    - the diagonal ``(C[p, p] + Σ_q G[r_q, r_q]) x``: ``d_hi[j0 >> 5]`` sums the digits above the run, ``e``
      (``d_lo``, 32 entries) those inside it;
    - the three axes inside a vector (strides 1, 2, 4): each lane's partner by a lane swap, times the lane's rate
      ``c1, c2, c4`` (``G[1, 0]`` where the lane's digit is 0, ``G[0, 1]`` where it is 1);
    - the two axes across the run's vectors (strides 8, 16): the partner vector, one rate per vector;
    - the off-diagonal arrival/service moves ``C[p', p] x[p', run]``;
    - each axis above the run (stride >= 32): the partner run, contiguous, its rate looked up by this run's
      digit (``rate``: a branch on the digit, taken in a pattern that changes with the axis, was mispredicted
      often enough to cost 40% of the kernel)."""
    i = row + j0
    x0, x1, x2, x3 = load8(x, i), load8(x, i + 8), load8(x, i + 16), load8(x, i + 24)
    c = splat8(C[p, p] + d_hi[j0 >> 5])
    a0 = fma8(c4, swap8(x0, 4), fma8(c2, swap8(x0, 2), fma8(c1, swap8(x0, 1), fma8(add8(c, e0), x0, a0))))
    a1 = fma8(c4, swap8(x1, 4), fma8(c2, swap8(x1, 2), fma8(c1, swap8(x1, 1), fma8(add8(c, e1), x1, a1))))
    a2 = fma8(c4, swap8(x2, 4), fma8(c2, swap8(x2, 2), fma8(c1, swap8(x2, 1), fma8(add8(c, e2), x2, a2))))
    a3 = fma8(c4, swap8(x3, 4), fma8(c2, swap8(x3, 2), fma8(c1, swap8(x3, 1), fma8(add8(c, e3), x3, a3))))
    # vector m = (digit on the stride-16 axis, digit on the stride-8 axis)
    a0 = fma8(s10, x2, fma8(s10, x1, a0))
    a1 = fma8(s10, x3, fma8(s01, x0, a1))
    a2 = fma8(s01, x0, fma8(s10, x3, a2))
    a3 = fma8(s01, x1, fma8(s01, x2, a3))
    base = row - p * N
    for p2 in range(P):
        f = C[p2, p]
        if p2 != p and f != 0.0:
            q = base + p2 * N + j0
            v = splat8(f)
            a0, a1 = fma8(v, load8(x, q), a0), fma8(v, load8(x, q + 8), a1)
            a2, a3 = fma8(v, load8(x, q + 16), a2), fma8(v, load8(x, q + 24), a3)
    for k in range(5, n):
        v = splat8(rate[(j0 >> k) & 1])
        q = row + (j0 ^ (1 << k))
        a0, a1 = fma8(v, load8(x, q), a0), fma8(v, load8(x, q + 8), a1)
        a2, a3 = fma8(v, load8(x, q + 16), a2), fma8(v, load8(x, q + 24), a3)
    return a0, a1, a2, a3


@njit(cache=CACHE, inline="always")
def _service_run(x, first, Nout, M, S0, o0):
    """``Σ_m S_0[m] (x[(ν, m), o] + x[(ν, m), Nout + o])`` for the run ``o0 .. o0 + 31`` (``first``: the start of
    row (ν, 0) of the level above in x): the head page leaves by service, in either obsolescence phase."""
    z = splat8(0.0)
    d0, d1, d2, d3 = z, z, z, z
    for m in range(M):
        u = first + 2 * m * Nout + o0
        f = splat8(S0[m])
        d0 = fma8(f, add8(load8(x, u), load8(x, u + Nout)), d0)
        d1 = fma8(f, add8(load8(x, u + 8), load8(x, u + Nout + 8)), d1)
        d2 = fma8(f, add8(load8(x, u + 16), load8(x, u + Nout + 16)), d2)
        d3 = fma8(f, add8(load8(x, u + 24), load8(x, u + Nout + 24)), d3)
    return d0, d1, d2, d3


@njit(cache=CACHE, inline="always")
def _lanes_down(u, v, t, h0, h1):
    """``t`` plus the three in-vector axes b = 2, 1, 0 of `_down_run`: output lane l of the 16 inputs ``u, v``
    takes ``Γ_0[c]`` times input lane ``ins(l, b, c)`` (digit c inserted at bit b of l)."""
    t = fma8(h1, pick8(u, v, (4, 5, 6, 7, 12, 13, 14, 15)), fma8(h0, pick8(u, v, (0, 1, 2, 3, 8, 9, 10, 11)), t))
    t = fma8(h1, pick8(u, v, (2, 3, 6, 7, 10, 11, 14, 15)), fma8(h0, pick8(u, v, (0, 1, 4, 5, 8, 9, 12, 13)), t))
    return fma8(h1, pick8(u, v, (1, 3, 5, 7, 9, 11, 13, 15)), fma8(h0, pick8(u, v, (0, 2, 4, 6, 8, 10, 12, 14)), t))


@njit(cache=CACHE, inline="always")
def _down_run(x, row, o0, n, G0, h0, h1, t0, t1, t2, t3):
    """``t`` plus the obsolescence exits into the run ``o0 .. o0 + 31`` from a row of the level above (n pages,
    ``row`` its start in x): output o receives, for each page (its digit at bit b of the input column, b = n − 1
    the head), ``Γ_0[c] x[ins(o, b, c)]`` for c = 0, 1, ``ins`` inserting the digit c at bit b:

    - b >= 5: partner runs, contiguous.  Inserting c at b or at b + 1 gives the same column when o's digit at b
      is c, so of the ``2 (n − 5)`` partners only ``n − 4`` are distinct: walking b down from the head, each step
      extends the pending partner of c = (o's digit at b) and emits the other one, with its multiplicity in
      the rate (one emission per step, chosen by arithmetic, not by a branch on the digit; see `_diag_run`);
    - b = 3, 4: whole vectors of the 64 inputs ``x[row + 2 o0 : row + 2 o0 + 64]`` under the run;
    - b = 0, 1, 2: lanes of the pair of input vectors under each output vector (`_lanes_down`)."""
    p0, p1, m0, m1 = n - 1, n - 1, 1, 1  # the pending partner of c = 0 and c = 1: its bit, its multiplicity
    for b in range(n - 2, 4, -1):
        d = (o0 >> b) & 1
        c = 1 - d  # emitted: the partner of c ends here
        pc, mc = p0 + c * (p1 - p0), m0 + c * (m1 - m0)
        q = row + ((o0 >> pc) << (pc + 1)) + (c << pc) + (o0 & ((1 << pc) - 1))
        f = splat8(mc * G0[c])
        t0, t1 = fma8(f, load8(x, q), t0), fma8(f, load8(x, q + 8), t1)
        t2, t3 = fma8(f, load8(x, q + 16), t2), fma8(f, load8(x, q + 24), t3)
        p0, m0 = d * b + c * p0, d + c * (m0 + 1)
        p1, m1 = c * b + d * p1, c + d * (m1 + 1)
    for c in range(2):
        pc, mc = (p0, m0) if c == 0 else (p1, m1)
        q = row + ((o0 >> pc) << (pc + 1)) + (c << pc) + (o0 & ((1 << pc) - 1))
        f = splat8(mc * G0[c])
        t0, t1 = fma8(f, load8(x, q), t0), fma8(f, load8(x, q + 8), t1)
        t2, t3 = fma8(f, load8(x, q + 16), t2), fma8(f, load8(x, q + 24), t3)
    i = row + 2 * o0
    X0, X1, X2, X3 = load8(x, i), load8(x, i + 8), load8(x, i + 16), load8(x, i + 24)
    X4, X5, X6, X7 = load8(x, i + 32), load8(x, i + 40), load8(x, i + 48), load8(x, i + 56)
    # b = 4: output vector 2h + g reads input vectors 4h + 2c + g
    t0 = fma8(h1, X2, fma8(h0, X0, t0))
    t1 = fma8(h1, X3, fma8(h0, X1, t1))
    t2 = fma8(h1, X6, fma8(h0, X4, t2))
    t3 = fma8(h1, X7, fma8(h0, X5, t3))
    # b = 3: output vector k reads input vectors 2k + c
    t0 = fma8(h1, X1, fma8(h0, X0, t0))
    t1 = fma8(h1, X3, fma8(h0, X2, t1))
    t2 = fma8(h1, X5, fma8(h0, X4, t2))
    t3 = fma8(h1, X7, fma8(h0, X6, t3))
    return (_lanes_down(X0, X1, t0, h0, h1), _lanes_down(X2, X3, t1, h0, h1),
            _lanes_down(X4, X5, t2, h0, h1), _lanes_down(X6, X7, t3, h0, h1))


@njit(cache=CACHE, inline="always")
def _batch_vector(x, src, rest, W, nu, Dt, s, t):
    """``Σ_ν' D_l[ν', ν] x[ν', t .. t + 7]`` of batch source s (``Dt[s] = D_l^T``, rows of ``rest`` entries)."""
    u = mul8(splat8(Dt[s, nu, 0]), load8(x, src + t))
    for nu2 in range(1, W):
        u = fma8(splat8(Dt[s, nu, nu2]), load8(x, src + nu2 * rest + t), u)
    return u


@njit(cache=CACHE, inline="always")
def _batch_scalar(x, src, rest, W, nu, Dt, s, t):
    """``Σ_ν' D_l[ν', ν] x[ν', t]`` of batch source s."""
    u = Dt[s, nu, 0] * x[src + t]
    for nu2 in range(1, W):
        u += Dt[s, nu, nu2] * x[src + nu2 * rest + t]
    return u


@njit(cache=CACHE, nogil=True)
def apply_pull(part, parts, x, y, W, M, G, d_lo, lanes, beta, S0, G0, levels, Cs, d_hi, ups, Dt, g):
    """``y_i = x_i Q_{i,i} + x_{i+1} Q_{i+1,i} + Σ_l x_{i-l} Q_{i-l,i}`` for every level i of ``levels`` (R = 2,
    N_i = 2^n >= 32 columns), each run of 32 outputs of a row (ν, m) summed in registers and stored once:
    the service completions and obsolescence exits from level i + 1 (`_service_run` times ``β[m]``, then
    `_down_run`), the diagonal block (`_diag_run`), then the batches into level i.

    A batch source s (``ups[s] = (start of level j in x, its row length, |g|, offset of g)``, ``Dt[s] = D_l^T``)
    adds ``u_t g[k]`` at column ``t |g| + k`` of the target row block ν, ``u_t = Σ_ν' D_l[ν', ν] x_j[ν', t]``:
    at |g| = 2 and 4 the run takes 16 or 8 consecutive u (two or one vectors) interleaved by lane picks; at
    |g| a multiple of 8, each output vector has one u and reads ``g`` contiguously.

    ``levels[r] = (start of level i in x, start of level i + 1 or −1 at K, n, offset into d_hi, first and
    past-last batch source)``; ``Cs[r]`` is level i's C; ``d_hi`` holds each level's digit sums above a run;
    ``d_lo``, ``lanes`` the in-run ones (`LevelOperators` builds them all).

    ``part`` of ``parts``: the runs of every level split into ``parts`` contiguous shares, this call forming
    share ``part`` (outputs are independent, so the shares may run at once: the kernel releases the GIL).
    The solver calls it whole (0 of 1); benchmarks/bmap.py times two shares on two threads."""
    P = W * M
    s01, s10 = splat8(G[0, 1]), splat8(G[1, 0])
    rate = np.array([G[1, 0], G[0, 1]])  # a partner's rate by this entry's digit on the axis
    c1, c2, c4 = load8(lanes, 0), load8(lanes, 8), load8(lanes, 16)
    e0, e1, e2, e3 = load8(d_lo, 0), load8(d_lo, 8), load8(d_lo, 16), load8(d_lo, 24)
    h0, h1 = splat8(G0[0]), splat8(G0[1])
    z = splat8(0.0)
    for r in range(levels.shape[0]):
        lo, above, n, dh, s0, s1 = levels[r, 0], levels[r, 1], levels[r, 2], levels[r, 3], levels[r, 4], levels[r, 5]
        N = 1 << n
        C = Cs[r]
        dhr = d_hi[dh : dh + (N >> 5)]
        runs = N >> 5
        first, past = (runs * part // parts) << 5, (runs * (part + 1) // parts) << 5
        for nu in range(W):
            for o0 in range(first, past, 32):
                d0, d1, d2, d3 = z, z, z, z
                if above >= 0:
                    d0, d1, d2, d3 = _service_run(x, above + 2 * nu * M * N, N, M, S0, o0)
                for m in range(M):
                    p = nu * M + m
                    a0, a1, a2, a3 = z, z, z, z
                    if above >= 0:
                        f = splat8(beta[m])
                        a0, a1, a2, a3 = _down_run(x, above + 2 * p * N, o0, n + 1, G0, h0, h1,
                                                   mul8(f, d0), mul8(f, d1), mul8(f, d2), mul8(f, d3))
                    a0, a1, a2, a3 = _diag_run(x, lo + p * N, o0, p, P, N, n, C, rate, dhr, s01, s10, c1, c2, c4,
                                               e0, e1, e2, e3, a0, a1, a2, a3)
                    col = m * N + o0  # this run's column in the target row block ν
                    for s in range(s0, s1):
                        src, rest, L, go = ups[s, 0], ups[s, 1], ups[s, 2], ups[s, 3]
                        if L == 2:
                            ua = _batch_vector(x, src, rest, W, nu, Dt, s, col // 2)
                            ub = _batch_vector(x, src, rest, W, nu, Dt, s, col // 2 + 8)
                            g0, g1 = splat8(g[go]), splat8(g[go + 1])
                            wa0, wa1, wb0, wb1 = mul8(ua, g0), mul8(ua, g1), mul8(ub, g0), mul8(ub, g1)
                            a0 = add8(a0, pick8(wa0, wa1, (0, 8, 1, 9, 2, 10, 3, 11)))
                            a1 = add8(a1, pick8(wa0, wa1, (4, 12, 5, 13, 6, 14, 7, 15)))
                            a2 = add8(a2, pick8(wb0, wb1, (0, 8, 1, 9, 2, 10, 3, 11)))
                            a3 = add8(a3, pick8(wb0, wb1, (4, 12, 5, 13, 6, 14, 7, 15)))
                        elif L == 4:
                            u = _batch_vector(x, src, rest, W, nu, Dt, s, col // 4)
                            w0, w1 = mul8(u, splat8(g[go])), mul8(u, splat8(g[go + 1]))
                            w2, w3 = mul8(u, splat8(g[go + 2])), mul8(u, splat8(g[go + 3]))
                            k01, k01h = pick8(w0, w1, (0, 8, 1, 9, 2, 10, 3, 11)), pick8(w0, w1, (4, 12, 5, 13, 6, 14, 7, 15))
                            k23, k23h = pick8(w2, w3, (0, 8, 1, 9, 2, 10, 3, 11)), pick8(w2, w3, (4, 12, 5, 13, 6, 14, 7, 15))
                            a0 = add8(a0, pick8(k01, k23, (0, 1, 8, 9, 2, 3, 10, 11)))
                            a1 = add8(a1, pick8(k01, k23, (4, 5, 12, 13, 6, 7, 14, 15)))
                            a2 = add8(a2, pick8(k01h, k23h, (0, 1, 8, 9, 2, 3, 10, 11)))
                            a3 = add8(a3, pick8(k01h, k23h, (4, 5, 12, 13, 6, 7, 14, 15)))
                        else:  # |g| a multiple of 8: one source column per output vector
                            a0 = fma8(splat8(_batch_scalar(x, src, rest, W, nu, Dt, s, col // L)), load8(g, go + col % L), a0)
                            a1 = fma8(splat8(_batch_scalar(x, src, rest, W, nu, Dt, s, (col + 8) // L)),
                                      load8(g, go + (col + 8) % L), a1)
                            a2 = fma8(splat8(_batch_scalar(x, src, rest, W, nu, Dt, s, (col + 16) // L)),
                                      load8(g, go + (col + 16) % L), a2)
                            a3 = fma8(splat8(_batch_scalar(x, src, rest, W, nu, Dt, s, (col + 24) // L)),
                                      load8(g, go + (col + 24) % L), a3)
                    j = lo + p * N + o0
                    store8(y, j, a0)
                    store8(y, j + 8, a1)
                    store8(y, j + 16, a2)
                    store8(y, j + 24, a3)


@njit(cache=CACHE)
def down_add_pull(x, y, W, M, n, beta, S0, G0, coef):
    """R = 2, n >= 6: `down_add` (``y += coef · x Q_{i,i-1}``, level i = n + 1) by runs of 32 outputs in registers
    (`_service_run`, `_down_run`), ``y = coef · (sum) + y``: one read and one write of y per output.  The
    preconditioner's backward sweep uses it; the matvec has it inside `apply_pull`."""
    Nout = 1 << (n - 1)
    h0, h1 = splat8(G0[0]), splat8(G0[1])
    cf = splat8(coef)
    for nu in range(W):
        for m in range(M):
            a = nu * M + m
            f = splat8(beta[m])
            for o0 in range(0, Nout, 32):
                d0, d1, d2, d3 = _service_run(x, 2 * nu * M * Nout, Nout, M, S0, o0)
                t0, t1, t2, t3 = _down_run(x, 2 * a * Nout, o0, n, G0, h0, h1, mul8(f, d0), mul8(f, d1), mul8(f, d2),
                                           mul8(f, d3))
                j = a * Nout + o0
                store8(y, j, fma8(cf, t0, load8(y, j)))
                store8(y, j + 8, fma8(cf, t1, load8(y, j + 8)))
                store8(y, j + 16, fma8(cf, t2, load8(y, j + 16)))
                store8(y, j + 24, fma8(cf, t3, load8(y, j + 24)))
