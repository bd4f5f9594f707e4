"""The numba kernels of the matrix-free BMAP solver (`crawlmath.numeric.bmap._structured`, Avrachenkov et al.,
seed 000, the Lemma of §3): the level solve (`level_solve`: a diagonal block ``C ⊕ Γ^{⊕n}`` inverted through the
eigendecompositions of its factors, axis by axis in cache-sized blocks), the diagonal block's matvec
(`level_apply`), the couplings down one level (`down_add`) and up by a batch (`up_add`).  The R = 2 matvec's
"pull" kernels are in `crawlmath.numeric.bmap._structured_pull`.  Eight-lane values come from
`crawlmath.numeric.linalg._lanes` (SIMD or plain, ``CRAWLMATH_SIMD``); kernels pass its `CACHE` to numba.

>>> power_at_most(2, 100), power_at_most(3, 100), power_at_most(1, 100)
(64, 81, 1)
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from ..linalg._lanes import CACHE, fma8, load8, mul8, pick8, splat8, store8, swap8

# --- numba kernels ------------------------------------------------------------
# A level vector is stored flat, viewed as a P x N matrix: P = W̄ M rows (the
# arrival and service phases (nu, m)), N = R^n columns (the obsolescence
# phases r_1 .. r_n of the n = i - 1 buffered pages, r_1 most significant).
# Every operation on the obsolescence axes is done inside one compiled call (no
# Python loop over axes, no temporaries); axes whose groups fit in a block
# (BLOCK_SOLVE, BLOCK_APPLY entries) are all treated while that block is in
# cache, three per pass at R = 2.  The solve (`level_solve`) treats the outer
# axes in one more pass, on gathered segments; the matvec (`level_apply`,
# `down_add`) makes one sweep per level in which the outer axes only read the
# block's partner segments.  Inner loops run over contiguous slices (views):
# those vectorise, loops with computed indices do not.

BLOCK_SOLVE = 4096  # entries per row of the solve's column blocks (32 KiB; P of them, in L2, when a row is one block)
GATHER = 32768  # entries (256 KiB, in L2) of the solve's outer-axis gather: P x R^outer segments of w entries
BLOCK_APPLY = 16384  # entries per row of the column blocks of `level_apply` and `down_add` (P of them, 128 KiB each, in L2)
INNER_APPLY = 8  # `level_apply`'s merged inner axes (a dense product, zeros included)
CORNER_COLUMNS = 4096  # at most this many unit-vector applications build `LevelOperators._plain_corner`
PULL_RUN = 32  # outputs per step of the pull kernels (`apply_pull`: four 8-lane vectors, in registers)
INNER_DOWN = 8  # `down_add`'s merged inner axes (R^c inputs -> R^(c-1) outputs)


def power_at_most(R: int, limit: int) -> int:
    """The largest power of R that is <= limit (1 when R = 1: a single phase has no axis to block)."""
    p = 1
    while R > 1 and p * R <= limit:
        p *= R
    return p


@njit(cache=CACHE)
def _axis_right(x, lo, hi, s, R, A, buf):
    """In place ``x[lo:hi] <- x[lo:hi] (I ⊗ A ⊗ I_s)`` on one axis of stride ``s`` (``buf``: R x 256 scratch)."""
    step = R * s
    for g in range(lo, hi, step):
        for j0 in range(0, s, 256):
            jl = min(256, s - j0)
            for c in range(R):
                buf[c, :jl] = x[g + c * s + j0 : g + c * s + j0 + jl]
            for a in range(R):
                out = x[g + a * s + j0 : g + a * s + j0 + jl]
                f = A[0, a]
                b0 = buf[0]
                for j in range(jl):
                    out[j] = b0[j] * f
                for c in range(1, R):
                    f = A[c, a]
                    bc = buf[c]
                    for j in range(jl):
                        out[j] += bc[j] * f


@njit(cache=CACHE)
def _pairs3(v0, v1, v2, v3, v4, v5, v6, v7, a00, a01, a10, a11):
    """R = 2: ``(v0, .., v7) (A ⊗ A ⊗ A)`` (row convention; entry k has bits b2 b1 b0, b2 most significant) as
    three butterflies per entry pair, one per axis, all in registers: ``(u, w) <- (u a00 + w a10, u a01 + w a11)``."""
    v0, v4 = v0 * a00 + v4 * a10, v0 * a01 + v4 * a11
    v1, v5 = v1 * a00 + v5 * a10, v1 * a01 + v5 * a11
    v2, v6 = v2 * a00 + v6 * a10, v2 * a01 + v6 * a11
    v3, v7 = v3 * a00 + v7 * a10, v3 * a01 + v7 * a11
    v0, v2 = v0 * a00 + v2 * a10, v0 * a01 + v2 * a11
    v1, v3 = v1 * a00 + v3 * a10, v1 * a01 + v3 * a11
    v4, v6 = v4 * a00 + v6 * a10, v4 * a01 + v6 * a11
    v5, v7 = v5 * a00 + v7 * a10, v5 * a01 + v7 * a11
    v0, v1 = v0 * a00 + v1 * a10, v0 * a01 + v1 * a11
    v2, v3 = v2 * a00 + v3 * a10, v2 * a01 + v3 * a11
    v4, v5 = v4 * a00 + v5 * a10, v4 * a01 + v5 * a11
    v6, v7 = v6 * a00 + v7 * a10, v6 * a01 + v7 * a11
    return v0, v1, v2, v3, v4, v5, v6, v7


def _inner8_right(xb, span, A):
    """R = 2: ``xb <- xb (I ⊗ A^{⊗3})``, the three innermost axes, on each group of 8 contiguous entries
    (compiled only: `_inner8_right_real` for float64, `_inner8_right_any` for complex)."""
    raise NotImplementedError("compiled only")


def _inner8_right_any(xb, span, A):
    a00, a01, a10, a11 = A[0, 0], A[0, 1], A[1, 0], A[1, 1]
    for g in range(0, span, 8):
        (xb[g], xb[g + 1], xb[g + 2], xb[g + 3], xb[g + 4], xb[g + 5], xb[g + 6], xb[g + 7]) = _pairs3(
            xb[g], xb[g + 1], xb[g + 2], xb[g + 3], xb[g + 4], xb[g + 5], xb[g + 6], xb[g + 7], a00, a01, a10, a11)


def _inner8_right_real(xb, span, A):
    """Each group of 8 is one vector (`simd`); the butterfly on the axis of stride k (4, 2, 1, the order of
    `_pairs3`) is ``v <- own ⊙ v + partner ⊙ swap(v, k)``: a lane whose digit is 0 takes ``a00`` of itself and
    ``a10`` of its partner, a lane whose digit is 1 ``a11`` and ``a01``.  Scalar, the same loop is not
    vectorised (3.9 µs against 0.92 per 4096 entries)."""
    s00, s11, s01, s10 = splat8(A[0, 0]), splat8(A[1, 1]), splat8(A[0, 1]), splat8(A[1, 0])
    own4, par4 = pick8(s00, s11, (0, 1, 2, 3, 12, 13, 14, 15)), pick8(s10, s01, (0, 1, 2, 3, 12, 13, 14, 15))
    own2, par2 = pick8(s00, s11, (0, 1, 10, 11, 4, 5, 14, 15)), pick8(s10, s01, (0, 1, 10, 11, 4, 5, 14, 15))
    own1, par1 = pick8(s00, s11, (0, 9, 2, 11, 4, 13, 6, 15)), pick8(s10, s01, (0, 9, 2, 11, 4, 13, 6, 15))
    for g in range(0, span, 8):
        v = load8(xb, g)
        v = fma8(par4, swap8(v, 4), mul8(own4, v))
        v = fma8(par2, swap8(v, 2), mul8(own2, v))
        store8(xb, g, fma8(par1, swap8(v, 1), mul8(own1, v)))


@overload(_inner8_right, jit_options={"cache": CACHE})
def _inner8_right_typed(xb, span, A):
    if xb.dtype == types.float64 and A.dtype == types.float64:
        return _inner8_right_real
    return _inner8_right_any


def _oct_right(xb, span, s, A):
    """R = 2: ``xb <- xb (I ⊗ A^{⊗3} ⊗ I_s)``, the axes of strides 4s, 2s, s in one read and one write of each
    entry (compiled only: `_oct_right_real` for float64 with s a multiple of 8, else `_oct_right_any`)."""
    raise NotImplementedError("compiled only")


@njit(cache=CACHE, inline="always")
def _butterflies8(u0, w0, u1, w1, u2, w2, u3, w3, a00, a01, a10, a11):
    """``(u, w) <- (u a00 + w a10, u a01 + w a11)`` on four pairs of 8-lane vectors (one axis of `_pairs3`)."""
    return (fma8(w0, a10, mul8(u0, a00)), fma8(w0, a11, mul8(u0, a01)), fma8(w1, a10, mul8(u1, a00)),
            fma8(w1, a11, mul8(u1, a01)), fma8(w2, a10, mul8(u2, a00)), fma8(w2, a11, mul8(u2, a01)),
            fma8(w3, a10, mul8(u3, a00)), fma8(w3, a11, mul8(u3, a01)))


def _oct_right_real(xb, span, s, A):
    """The butterflies of `_pairs3` on 8-lane vectors of the eight slices (the loop vectoriser alone makes
    4-lane code without fused multiply-adds of `_oct_right_scalar`: nine axes of 4096 entries 4.2 µs, here
    1.8)."""
    if s % 8:
        _oct_right_scalar(xb, span, s, A)
        return
    a00, a01, a10, a11 = splat8(A[0, 0]), splat8(A[0, 1]), splat8(A[1, 0]), splat8(A[1, 1])
    for g in range(0, span, 8 * s):
        for j in range(g, g + s, 8):
            v0, v1, v2, v3 = load8(xb, j), load8(xb, j + s), load8(xb, j + 2 * s), load8(xb, j + 3 * s)
            v4, v5, v6, v7 = load8(xb, j + 4 * s), load8(xb, j + 5 * s), load8(xb, j + 6 * s), load8(xb, j + 7 * s)
            v0, v4, v1, v5, v2, v6, v3, v7 = _butterflies8(v0, v4, v1, v5, v2, v6, v3, v7, a00, a01, a10, a11)
            v0, v2, v1, v3, v4, v6, v5, v7 = _butterflies8(v0, v2, v1, v3, v4, v6, v5, v7, a00, a01, a10, a11)
            v0, v1, v2, v3, v4, v5, v6, v7 = _butterflies8(v0, v1, v2, v3, v4, v5, v6, v7, a00, a01, a10, a11)
            store8(xb, j, v0)
            store8(xb, j + s, v1)
            store8(xb, j + 2 * s, v2)
            store8(xb, j + 3 * s, v3)
            store8(xb, j + 4 * s, v4)
            store8(xb, j + 5 * s, v5)
            store8(xb, j + 6 * s, v6)
            store8(xb, j + 7 * s, v7)


@overload(_oct_right, jit_options={"cache": CACHE})
def _oct_right_typed(xb, span, s, A):
    if xb.dtype == types.float64 and A.dtype == types.float64:
        return _oct_right_real
    return _oct_right_any


def _oct_right_any(xb, span, s, A):
    _oct_right_scalar(xb, span, s, A)


@njit(cache=CACHE)
def _oct_right_scalar(xb, span, s, A):
    """`_pairs3` on slices of s contiguous entries, any dtype."""
    a00, a01, a10, a11 = A[0, 0], A[0, 1], A[1, 0], A[1, 1]
    for g in range(0, span, 8 * s):
        x0, x1, x2, x3 = xb[g : g + s], xb[g + s : g + 2 * s], xb[g + 2 * s : g + 3 * s], xb[g + 3 * s : g + 4 * s]
        x4, x5, x6, x7 = xb[g + 4 * s : g + 5 * s], xb[g + 5 * s : g + 6 * s], xb[g + 6 * s : g + 7 * s], xb[g + 7 * s : g + 8 * s]
        for j in range(s):
            x0[j], x1[j], x2[j], x3[j], x4[j], x5[j], x6[j], x7[j] = _pairs3(
                x0[j], x1[j], x2[j], x3[j], x4[j], x5[j], x6[j], x7[j], a00, a01, a10, a11)


@njit(cache=CACHE)
def _chunk_right(xb, span, s, R, A, buf):
    """In place ``xb <- xb (A^{⊗k} ⊗ I_s)`` on a cache-resident chunk of ``span = R^k s`` entries: every axis of
    stride s .. span / R, three per pass at R = 2 (`_inner8_right`, `_oct_right`), else one by one."""
    if R == 2:
        if s == 1 and span >= 8:
            _inner8_right(xb, span, A)
            s = 8
        while s * 8 <= span:
            _oct_right(xb, span, s, A)
            s *= 8
    while s < span:
        _axis_right(xb, 0, span, s, R, A, buf)
        s *= R


CLASS_CHUNK = 256  # columns per step of `_class_columns` (P x 256 outputs in L1)


@njit(cache=CACHE)
def _class_columns(x, stride, off, count, cls, col, P, Mt, ob):
    """In place ``x[:, j] <- x[:, j] (C + σ I)^{-1}`` for the ``count`` columns j = off .. of the P rows
    ``x[a stride : (a + 1) stride]``, with the inverse of column j's eigenvalue class ``k = cls[col + j − off]``
    (row convention; ``Mt[a, b, k] = (C + σ_k I)^{-1}[a, b]``).  Loops run over the columns, contiguous, with the
    coefficient looked up per column (the class changes from column to column), P^2 of them per chunk of
    `CLASS_CHUNK` columns; ``ob`` (P x CLASS_CHUNK scratch) holds the outputs until every input is read."""
    for c0 in range(off, off + count, CLASS_CHUNK):
        cnt = min(CLASS_CHUNK, off + count - c0)
        cl = cls[col + c0 - off : col + c0 - off + cnt]
        for b in range(P):
            o = ob[b * CLASS_CHUNK : b * CLASS_CHUNK + cnt]
            xa = x[c0 : c0 + cnt]
            mt = Mt[0, b]
            for j in range(cnt):
                o[j] = xa[j] * mt[cl[j]]
            for a in range(1, P):
                xa = x[a * stride + c0 : a * stride + c0 + cnt]
                mt = Mt[a, b]
                for j in range(cnt):
                    o[j] += xa[j] * mt[cl[j]]
        for b in range(P):
            x[b * stride + c0 : b * stride + c0 + cnt] = ob[b * CLASS_CHUNK : b * CLASS_CHUNK + cnt]


def _class_solve(x, stride, off, count, cls, col, P, Mt, ob, T):
    """The class solve of `level_solve` (compiled only): `_class_runs` on float64 levels that have the run
    table ``T`` (R = 2, `LevelBlock`) for whole runs of 32 columns, else `_class_columns`."""
    raise NotImplementedError("compiled only")


def _class_solve_real(x, stride, off, count, cls, col, P, Mt, ob, T):
    if T.shape[0] > 0 and col % 32 == 0 and count % 32 == 0:  # whole runs (small gathers, in tests, may not be)
        _class_runs(x, stride, off, count, cls, col, P, T, ob)
    else:
        _class_columns(x, stride, off, count, cls, col, P, Mt, ob)


def _class_solve_any(x, stride, off, count, cls, col, P, Mt, ob, T):
    _class_columns(x, stride, off, count, cls, col, P, Mt, ob)


@overload(_class_solve, jit_options={"cache": CACHE})
def _class_solve_typed(x, stride, off, count, cls, col, P, Mt, ob, T):
    return _class_solve_real if x.dtype == types.float64 else _class_solve_any


@njit(cache=CACHE)
def _class_runs(x, stride, off, count, cls, col, P, T, ob):
    """`_class_columns` at R = 2 by runs of 32 columns on 8-lane vectors: a column's class is its number of
    digits in eigen-phase 1, so over a run starting at column j0 (a multiple of 32) the classes are
    ``cls[j0] + popcount(l)``, l = 0 .. 31, and ``T`` (flat, indexed ``[k, a, b, l]``) holds the 32
    coefficients ``(C + σ I)^{-1}[a, b]`` of those classes contiguously (`LevelBlock`): no per-column lookup.
    The outputs of a run go to ``ob`` (P x 32) until every input is read."""
    for c0 in range(off, off + count, 32):
        k = cls[col + c0 - off]
        for b in range(P):
            t = (k * P * P + b) * 32  # T[k, a, b] at t + a P 32
            o0 = mul8(load8(T, t), load8(x, c0))
            o1 = mul8(load8(T, t + 8), load8(x, c0 + 8))
            o2 = mul8(load8(T, t + 16), load8(x, c0 + 16))
            o3 = mul8(load8(T, t + 24), load8(x, c0 + 24))
            for a in range(1, P):
                t += P * 32
                i = a * stride + c0
                o0 = fma8(load8(T, t), load8(x, i), o0)
                o1 = fma8(load8(T, t + 8), load8(x, i + 8), o1)
                o2 = fma8(load8(T, t + 16), load8(x, i + 16), o2)
                o3 = fma8(load8(T, t + 24), load8(x, i + 24), o3)
            store8(ob, 32 * b, o0)
            store8(ob, 32 * b + 8, o1)
            store8(ob, 32 * b + 16, o2)
            store8(ob, 32 * b + 24, o3)
        for b in range(P):
            i = b * stride + c0
            for q in range(0, 32, 8):
                store8(x, i + q, load8(ob, 32 * b + q))


@njit(cache=CACHE)
def level_solve(x, P, N, R, V, Vinv, cls, Mt, span, w, buf, gb, ob, T):
    """In place ``x <- x (I_P ⊗ V^{⊗n}) diag_r((C + σ_r I)^{-1}) (I_P ⊗ V^{-1⊗n})`` on the flat P x N ``x``
    (N = R^n; see `LevelBlock`), in at most three passes over memory:

    1. per column block of ``span`` entries and row: V on the in-block axes (`_chunk_right`); when the block is
       the whole row (``span = N``) the class solve and ``V^{-1}`` follow on the same blocks (one pass in all);
    2. otherwise, the outer axes (stride >= span, ``No = N / span`` segments per row): for each offset j0 the
       P No segments of w entries at j0 are gathered into ``gb`` (P x No w, in cache), V on the outer axes,
       the class solve, ``V^{-1}`` on the outer axes, scattered back;
    3. ``V^{-1}`` on the in-block axes."""
    No = N // span
    for b in range(0, N, span):
        for p in range(P):
            _chunk_right(x[p * N + b : p * N + b + span], span, 1, R, V, buf)
        if No == 1:
            _class_solve(x, N, 0, N, cls, 0, P, Mt, ob, T)
            for p in range(P):
                _chunk_right(x[p * N : p * N + N], N, 1, R, Vinv, buf)
    if No == 1:
        return
    Mg = No * w
    for j0 in range(0, span, w):
        for p in range(P):
            row = gb[p * Mg : p * Mg + Mg]
            for t in range(No):
                row[t * w : t * w + w] = x[p * N + t * span + j0 : p * N + t * span + j0 + w]
            _chunk_right(row, Mg, w, R, V, buf)
        for t in range(No):
            _class_solve(gb, Mg, t * w, w, cls, t * span + j0, P, Mt, ob, T)
        for p in range(P):
            row = gb[p * Mg : p * Mg + Mg]
            _chunk_right(row, Mg, w, R, Vinv, buf)
            for t in range(No):
                x[p * N + t * span + j0 : p * N + t * span + j0 + w] = row[t * w : t * w + w]
    for b in range(0, N, span):
        for p in range(P):
            _chunk_right(x[p * N + b : p * N + b + span], span, 1, R, Vinv, buf)


@njit(cache=CACHE)
def apply_span(N, R, L, block):
    """The column block of `level_apply`: the largest power of R that is >= L, divides N and is <= max(L, block)."""
    span = L
    while span < N and span * R <= block:
        span *= R
    return span


@njit(cache=CACHE)
def _inner8_down(xin, yo, B, D):
    """``yo[4 k : 4 k + 4] += xin[8 k : 8 k + 8] D`` for every k < B / 4 (D: 8 x 4, `down_inner_matrix` at R = 2,
    scaled), unrolled with D's 32 entries in registers (loops over a dense 8 x 4 factor re-read it after every
    store and run several times slower)."""
    d00, d01, d02, d03 = D[0, 0], D[0, 1], D[0, 2], D[0, 3]
    d10, d11, d12, d13 = D[1, 0], D[1, 1], D[1, 2], D[1, 3]
    d20, d21, d22, d23 = D[2, 0], D[2, 1], D[2, 2], D[2, 3]
    d30, d31, d32, d33 = D[3, 0], D[3, 1], D[3, 2], D[3, 3]
    d40, d41, d42, d43 = D[4, 0], D[4, 1], D[4, 2], D[4, 3]
    d50, d51, d52, d53 = D[5, 0], D[5, 1], D[5, 2], D[5, 3]
    d60, d61, d62, d63 = D[6, 0], D[6, 1], D[6, 2], D[6, 3]
    d70, d71, d72, d73 = D[7, 0], D[7, 1], D[7, 2], D[7, 3]
    for k in range(B // 4):
        i, o = 8 * k, 4 * k
        x0, x1, x2, x3 = xin[i], xin[i + 1], xin[i + 2], xin[i + 3]
        x4, x5, x6, x7 = xin[i + 4], xin[i + 5], xin[i + 6], xin[i + 7]
        yo[o] += x0 * d00 + x1 * d10 + x2 * d20 + x3 * d30 + x4 * d40 + x5 * d50 + x6 * d60 + x7 * d70
        yo[o + 1] += x0 * d01 + x1 * d11 + x2 * d21 + x3 * d31 + x4 * d41 + x5 * d51 + x6 * d61 + x7 * d71
        yo[o + 2] += x0 * d02 + x1 * d12 + x2 * d22 + x3 * d32 + x4 * d42 + x5 * d52 + x6 * d62 + x7 * d72
        yo[o + 3] += x0 * d03 + x1 * d13 + x2 * d23 + x3 * d33 + x4 * d43 + x5 * d53 + x6 * d63 + x7 * d73


@njit(cache=CACHE)
def level_apply(x, y, P, N, R, C, G, G_off, L, d_in, block):
    """``y = x (C ⊕ G^{⊕n})`` for flat P x R^n vectors (N = R^n) in one sweep over column blocks of ``span``
    entries (`apply_span`), the diagonal hoisted: per block and row p,

    - ``y[p, j] = (C[p, p] + Σ_q G[r_q, r_q]) x[p, j]`` initialises the block (no zeroing pass); the sum over
      the axes is a per-block constant (the outer digits, from ``b0``) plus ``d_in[j]`` (the in-block digits,
      precomputed: ``diag(G)^{⊕}`` over the block's axes);
    - the off-diagonal arrival/service moves ``C[p', p] x[p', block]``, p' != p;
    - per obsolescence axis only its off-diagonal entries ``G[c, a]``, c != a: the outer axes (stride >= span)
      read R − 1 contiguous partner segments, the middle axes (L <= stride < span) work in the cached block,
      and the c innermost axes (``L = R^c``) are one dense ``L x L`` product with ``G_off = G^{⊕c} − diag``
      on each group of L contiguous entries."""
    span = apply_span(N, R, L, block)
    for b0 in range(0, N, span):
        for p in range(P):
            row = p * N
            yb = y[row + b0 : row + b0 + span]
            xb = x[row + b0 : row + b0 + span]
            c0 = C[p, p]
            s = span
            while s < N:
                d = (b0 // s) % R
                c0 += G[d, d]
                s *= R
            for j in range(span):
                yb[j] = (c0 + d_in[j]) * xb[j]
            for p2 in range(P):
                f = C[p2, p]
                if p2 != p and f != 0.0:
                    src = x[p2 * N + b0 : p2 * N + b0 + span]
                    for j in range(span):
                        yb[j] += src[j] * f
            s = span
            while s < N:
                d = (b0 // s) % R  # this block's digit on the axis of stride s
                base = row + b0 - d * s
                for c in range(R):
                    f = G[c, d]
                    if c != d and f != 0.0:
                        src = x[base + c * s : base + c * s + span]
                        for j in range(span):
                            yb[j] += src[j] * f
                s *= R
            s = L
            while s < span:
                for g in range(0, span, R * s):
                    for a in range(R):
                        out = yb[g + a * s : g + a * s + s]
                        for c in range(R):
                            f = G[c, a]
                            if c != a and f != 0.0:
                                src = xb[g + c * s : g + c * s + s]
                                for j in range(s):
                                    out[j] += src[j] * f
                s *= R
            if L > 1:
                for g in range(0, span, L):
                    out = yb[g : g + L]
                    for c in range(L):
                        v = xb[g + c]
                        gr = G_off[c]
                        for a in range(L):
                            out[a] += v * gr[a]


@njit(cache=CACHE)
def down_add(x, y, W, M, R, n, beta, S0, G0, D_in, coef, block):
    """``y += coef · x Q_{i,i-1}`` for level i = n + 1 >= 2 (x: W̄ x M x R^n, y: W̄ x M x R^(n-1)):
    service completion (the head r_1 enters service, its obsolescence phase
    forgotten, the new service phase drawn from beta) plus obsolescence of the
    buffered page q at rate ``Γ_0[r_q]`` (the axis q removed).

    One sweep over output blocks of ``B = min(R^(n-1), block)`` entries.  The axis q of page q has stride
    ``s = R^(n-1-q)``: an axis with s >= B reads R contiguous input segments of B entries (the head's axis,
    ``s = R^(n-1)``, also feeds the service completions); the axes with s < B all read the one input block of
    R B entries that maps onto the output block, and the c innermost of them (``D_in``: ``R^c x R^(c-1)``, the
    sum of their contractions; 0 x 0 when none) are one dense product per group of ``R^c`` inputs."""
    Nout = R ** (n - 1)
    Nin = Nout * R
    B = 1
    while B < Nout and B * R <= block:
        B *= R
    Li, Lo = D_in.shape[0], D_in.shape[1]
    B = max(B, Li)  # the merged axes' groups must lie inside a block
    Dc = D_in * coef
    done = np.empty(B)
    for nu in range(W):
        for o in range(0, Nout, B):
            done[:] = 0.0
            for m in range(M):
                a = nu * M + m
                yo = y[a * Nout + o : a * Nout + o + B]
                fs = S0[m]
                s = Nout
                while s >= B:
                    hi = o // s
                    lo = o - hi * s
                    for c in range(R):
                        start = a * Nin + (hi * R + c) * s + lo
                        src = x[start : start + B]
                        f = coef * G0[c]
                        for j in range(B):
                            yo[j] += src[j] * f
                        if s == Nout:
                            for j in range(B):
                                done[j] += src[j] * fs
                    # one phase (R = 1): every axis has stride 1, so stop after the head's; D_in holds the other n - 1
                    s = s // R if R > 1 else 0
                xin = x[a * Nin + o * R : a * Nin + o * R + R * B]
                while s >= max(Li, 1):
                    for hi in range(B // s):
                        out = yo[hi * s : hi * s + s]
                        for c in range(R):
                            f = coef * G0[c]
                            src = xin[(hi * R + c) * s : (hi * R + c) * s + s]
                            for j in range(s):
                                out[j] += src[j] * f
                    s //= R
                if Li == 8 and Lo == 4:
                    _inner8_down(xin, yo, B, Dc)
                elif Li > 0:
                    for g in range(B // Lo):
                        out = yo[g * Lo : g * Lo + Lo]
                        for c in range(Li):
                            v = xin[g * Li + c]
                            dr = Dc[c]
                            for t in range(Lo):
                                out[t] += v * dr[t]
            for m in range(M):
                f = coef * beta[m]
                dst = y[(nu * M + m) * Nout + o : (nu * M + m) * Nout + o + B]
                for j in range(B):
                    dst[j] += done[j] * f


UP_CHUNK = 256  # `up_add`'s chunk of source columns (the combined arrival phases, in L1)


@njit(cache=CACHE)
def up_add(y, x, W, Dt, g, coef):
    """``y += coef · x (D_l ⊗ I ⊗ g)`` (flat; ``Dt = D_l^T``, W̄ x W̄): a batch moves the arrival phase by ``D_l``
    and its fresh pages enter with phases distributed as ``g``.  One pass, by chunks of `UP_CHUNK` columns t: the
    ``u_t = coef Σ_ν' D_l[ν', ν] x[ν', t]`` of a chunk are formed in L1 by contiguous (vectorised) sweeps, then
    spread over their ``|g|`` targets each (no temporary level vector); |g| = 2 and 4, the usual batch sizes at
    R = 2, are unrolled (the strided stores vectorise then)."""
    rest = x.shape[0] // W
    L = g.shape[0]
    u = np.empty(UP_CHUNK)
    for nu in range(W):
        for t0 in range(0, rest, UP_CHUNK):
            cnt = min(UP_CHUNK, rest - t0)
            ub = u[:cnt]
            src = x[t0 : t0 + cnt]
            f = coef * Dt[nu, 0]
            for t in range(cnt):
                ub[t] = f * src[t]
            for nu2 in range(1, W):
                src = x[nu2 * rest + t0 : nu2 * rest + t0 + cnt]
                f = coef * Dt[nu, nu2]
                for t in range(cnt):
                    ub[t] += f * src[t]
            dst = y[(nu * rest + t0) * L : (nu * rest + t0 + cnt) * L]
            if L == 2:
                g0, g1 = g[0], g[1]
                for t in range(cnt):
                    dst[2 * t] += ub[t] * g0
                    dst[2 * t + 1] += ub[t] * g1
            elif L == 4:
                g0, g1, g2, g3 = g[0], g[1], g[2], g[3]
                for t in range(cnt):
                    dst[4 * t] += ub[t] * g0
                    dst[4 * t + 1] += ub[t] * g1
                    dst[4 * t + 2] += ub[t] * g2
                    dst[4 * t + 3] += ub[t] * g3
            else:
                for k in range(L):
                    gk = g[k]
                    for t in range(cnt):
                        dst[t * L + k] += ub[t] * gk
