"""Matrix-free stationary solver for the BMAP/PH/1/K obsolescence model at
large K (state space ``W̄ M R^K``-ish), exploiting the Lemma's structure:

- every diagonal block ``Q_{i,i} = D_0^(chi(i)) ⊕ S ⊕ Γ ⊕ ... ⊕ Γ`` (level
  K: ``D^(chi(K))(1) ⊕ ...``) is a Kronecker *sum* of small matrices, so
  ``y Q_{i,i} = b`` is solved in ``O(n_i (W̄ + M + (i-1) R))`` operations by
  diagonalising each factor once (`KronSumSolver`);
- the off-diagonal blocks are applied as tensor contractions on the level
  vector viewed as a tensor with axes ``(nu, m, r_1, ..., r_{i-1})``: down
  one level (service completion, obsolescence of the q-th buffered page) and
  up by a batch (``D_l ⊗ I ⊗ γ^{⊗l}``);
- one application of Q (`LevelOperators.apply_flat`) forms each output level once.  At
  R = 2 every level of 32 columns or more is formed in one compiled call
  (`apply_pull`): each run of 32 outputs is summed in 8-lane vector registers
  (`simd`) from everything it depends on (the diagonal block, the exits from the
  level above, the batches from the levels below) and stored once; the few levels
  below those are one small sparse matrix (`LevelOperators._plain_corner`).
  Otherwise level by level: `level_apply` (diagonal block, diagonal hoisted, axis
  by axis in cache-sized blocks), `down_add` (all axes in one sweep), `up_add`
  (each batch size).  `LevelOperators.matvec_flops` counts their floating-point
  operations;
- the stationary equations are solved by GMRES on ``x (Q + e c) = c`` (a rank-one
  change that fixes ``x e = 1``; `gmres_right`, its basis orthogonalised by classical
  Gram–Schmidt with delayed reorthogonalisation, two compiled passes over the basis
  per step, `_dots2` and `_update2`), preconditioned by one symmetric block
  Gauss–Seidel sweep over the levels (`LevelOperators.precondition`), whose
  level solves are at most three compiled passes each (`level_solve`: the
  in-block axes three per pass at R = 2, the outer axes on gathered segments
  with the class solve, the in-block axes again), in place in the output, and
  whose down couplings at R = 2 are `down_add_pull`;
  `LevelOperators.precondition_flops` counts its floating-point operations.

Nothing here forms a matrix larger than ``max(W̄, M, R)`` squared.  A factor
that is not diagonalisable to a safe condition number raises `SolverError`
(no silent fallback); use the sparse direct solver then.
"""
from __future__ import annotations

import mmap
import time
import numpy as np
import scipy.sparse as sps
import scipy.sparse.linalg as spla
from numba import njit, types
from numba.extending import overload

from ._core import BmapModel
from ._measures import Measures, measures
from ._stationary import Stationary
from ..errors import SolverError
from ..linalg._simd import add8, fma8, load8, mul8, pick8, splat8, store8, swap8
from ..validate import require_memory

COND_LIMIT = 1e8  # largest condition number of a factor's eigenvector matrix we accept


def work_array(shape) -> np.ndarray:
    """A zero-filled float64 array for the solver's large work vectors and Krylov basis, mapped anonymously
    (``mmap``) rather than by numpy, which advises the kernel to back large arrays by transparent huge pages:
    where the first touch of a huge page is slow (a virtual machine here: ~90 ms per 32 MiB row written for the
    first time, against ~17 ms with 4 KiB pages; streaming over it afterwards is as fast) every fresh vector
    paid that, once per Krylov vector and per temporary.  Off Unix (no anonymous mappings) plain ``np.zeros``."""
    count = int(np.prod(shape))
    if count == 0 or not hasattr(mmap, "MAP_ANONYMOUS"):
        return np.zeros(shape)
    buf = mmap.mmap(-1, 8 * count, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    return np.frombuffer(buf, dtype=np.float64).reshape(shape)


class KronSumSolver:
    """Solve ``(F_1 ⊕ ... ⊕ F_n) y = b`` for ``b`` a tensor with axes of sizes
    ``F_k.shape[0]`` (column-vector convention; pass transposes for rows)."""

    def __init__(self, factors):
        self.dims = tuple(f.shape[0] for f in factors)
        self.V, self.Vinv = [], []
        denom = np.zeros(self.dims, dtype=complex)
        for k, F in enumerate(factors):
            w, V = _eig(F)
            self.V.append(V)
            self.Vinv.append(np.linalg.inv(V))
            shape = [1] * len(self.dims)
            shape[k] = self.dims[k]
            denom = denom + w.reshape(shape)
        if np.abs(denom).min() == 0:
            raise SolverError("Kronecker-sum block is singular")
        self.inv_denom = 1 / denom
        self.real = all(np.isrealobj(V) for V in self.V)

    def solve(self, b: np.ndarray) -> np.ndarray:
        """y = (F_1 ⊕ ... ⊕ F_n)^{-1} b by the eigendecompositions of the factors (b flattened, y returned flat)."""
        t = b.reshape(self.dims)
        for k, Vi in enumerate(self.Vinv):
            t = mode_product(t, Vi, k)
        t = t * self.inv_denom
        for k, V in enumerate(self.V):
            t = mode_product(t, V, k)
        return (t.real if np.iscomplexobj(t) else t).reshape(-1)


_EIG_CACHE: dict = {}


def _eig(F: np.ndarray):
    key = F.tobytes() + bytes(str(F.shape), "ascii")
    if key not in _EIG_CACHE:
        w, V = np.linalg.eig(F)
        if np.all(np.abs(w.imag) == 0):
            w, V = w.real, V.real
        c = np.linalg.cond(V)
        if not np.isfinite(c) or c > COND_LIMIT:
            raise SolverError(f"factor matrix {F.tolist()} is (nearly) defective: eigenvector condition {c:.3g} > {COND_LIMIT:g}")
        _EIG_CACHE[key] = (w, V)
    return _EIG_CACHE[key]


def mode_product(t: np.ndarray, A: np.ndarray, k: int) -> np.ndarray:
    """Apply ``A`` to axis ``k`` of tensor ``t``: ``out[.., a, ..] = sum_c A[a, c] t[.., c, ..]``."""
    pre = int(np.prod(t.shape[:k]))
    n = t.shape[k]
    post = int(np.prod(t.shape[k + 1 :]))
    t3 = t.reshape(pre, n, post)
    if post >= 256:  # einsum is fast on long inner strides, slow on short ones
        out = np.einsum("ac,pcq->paq", A, t3, optimize=False)
    else:
        out = np.empty((pre, A.shape[0], post), dtype=np.result_type(A, t))
        for a in range(A.shape[0]):
            np.multiply(t3[:, 0, :], A[a, 0], out=out[:, a, :])
            for c in range(1, n):
                out[:, a, :] += A[a, c] * t3[:, c, :]
    return out.reshape(t.shape[:k] + (A.shape[0],) + t.shape[k + 1 :])


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


def _power_at_most(R: int, limit: int) -> int:
    """The largest power of R that is <= limit (1 when R = 1: a single phase has no axis to block)."""
    p = 1
    while R > 1 and p * R <= limit:
        p *= R
    return p


@njit(cache=True)
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


@njit(cache=True)
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


@overload(_inner8_right, jit_options={"cache": True})
def _inner8_right_typed(xb, span, A):
    if xb.dtype == types.float64 and A.dtype == types.float64:
        return _inner8_right_real
    return _inner8_right_any


def _oct_right(xb, span, s, A):
    """R = 2: ``xb <- xb (I ⊗ A^{⊗3} ⊗ I_s)``, the axes of strides 4s, 2s, s in one read and one write of each
    entry (compiled only: `_oct_right_real` for float64 with s a multiple of 8, else `_oct_right_any`)."""
    raise NotImplementedError("compiled only")


@njit(cache=True, inline="always")
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


@overload(_oct_right, jit_options={"cache": True})
def _oct_right_typed(xb, span, s, A):
    if xb.dtype == types.float64 and A.dtype == types.float64:
        return _oct_right_real
    return _oct_right_any


def _oct_right_any(xb, span, s, A):
    _oct_right_scalar(xb, span, s, A)


@njit(cache=True)
def _oct_right_scalar(xb, span, s, A):
    """`_pairs3` on slices of s contiguous entries, any dtype."""
    a00, a01, a10, a11 = A[0, 0], A[0, 1], A[1, 0], A[1, 1]
    for g in range(0, span, 8 * s):
        x0, x1, x2, x3 = xb[g : g + s], xb[g + s : g + 2 * s], xb[g + 2 * s : g + 3 * s], xb[g + 3 * s : g + 4 * s]
        x4, x5, x6, x7 = xb[g + 4 * s : g + 5 * s], xb[g + 5 * s : g + 6 * s], xb[g + 6 * s : g + 7 * s], xb[g + 7 * s : g + 8 * s]
        for j in range(s):
            x0[j], x1[j], x2[j], x3[j], x4[j], x5[j], x6[j], x7[j] = _pairs3(
                x0[j], x1[j], x2[j], x3[j], x4[j], x5[j], x6[j], x7[j], a00, a01, a10, a11)


@njit(cache=True)
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


@njit(cache=True)
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


@overload(_class_solve, jit_options={"cache": True})
def _class_solve_typed(x, stride, off, count, cls, col, P, Mt, ob, T):
    return _class_solve_real if x.dtype == types.float64 else _class_solve_any


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def _span(N, R, L, block):
    """The column block of `level_apply`: the largest power of R that is >= L, divides N and is <= max(L, block)."""
    span = L
    while span < N and span * R <= block:
        span *= R
    return span


@njit(cache=True)
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


@njit(cache=True)
def level_apply(x, y, P, N, R, C, G, G_off, L, d_in, block):
    """``y = x (C ⊕ G^{⊕n})`` for flat P x R^n vectors (N = R^n) in one sweep over column blocks of ``span``
    entries (`_span`), the diagonal hoisted: per block and row p,

    - ``y[p, j] = (C[p, p] + Σ_q G[r_q, r_q]) x[p, j]`` initialises the block (no zeroing pass); the sum over
      the axes is a per-block constant (the outer digits, from ``b0``) plus ``d_in[j]`` (the in-block digits,
      precomputed: ``diag(G)^{⊕}`` over the block's axes);
    - the off-diagonal arrival/service moves ``C[p', p] x[p', block]``, p' != p;
    - per obsolescence axis only its off-diagonal entries ``G[c, a]``, c != a: the outer axes (stride >= span)
      read R − 1 contiguous partner segments, the middle axes (L <= stride < span) work in the cached block,
      and the c innermost axes (``L = R^c``) are one dense ``L x L`` product with ``G_off = G^{⊕c} − diag``
      on each group of L contiguous entries."""
    span = _span(N, R, L, block)
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


@njit(cache=True)
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


# --- the matvec at R = 2: "pull" kernels on 8-lane vectors ----------------------
# A run of 32 consecutive outputs of a level row (four `simd` vectors) is summed in registers from every input
# it depends on (its own entries and partners for the diagonal block, the level above for the exits, the levels
# below for the batches) and stored once.  The helpers are inlined at the numba level ("always"; as calls the
# K = 16 matvec took 0.61 ms instead of 0.57).  Nothing in the loop creates an array view: a view is reference
# counted, and one per run (a batch's D_l^T, tried) made the kernel twice as slow.


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
def _lanes_down(u, v, t, h0, h1):
    """``t`` plus the three in-vector axes b = 2, 1, 0 of `_down_run`: output lane l of the 16 inputs ``u, v``
    takes ``Γ_0[c]`` times input lane ``ins(l, b, c)`` (digit c inserted at bit b of l)."""
    t = fma8(h1, pick8(u, v, (4, 5, 6, 7, 12, 13, 14, 15)), fma8(h0, pick8(u, v, (0, 1, 2, 3, 8, 9, 10, 11)), t))
    t = fma8(h1, pick8(u, v, (2, 3, 6, 7, 10, 11, 14, 15)), fma8(h0, pick8(u, v, (0, 1, 4, 5, 8, 9, 12, 13)), t))
    return fma8(h1, pick8(u, v, (1, 3, 5, 7, 9, 11, 13, 15)), fma8(h0, pick8(u, v, (0, 2, 4, 6, 8, 10, 12, 14)), t))


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
def _batch_vector(x, src, rest, W, nu, Dt, s, t):
    """``Σ_ν' D_l[ν', ν] x[ν', t .. t + 7]`` of batch source s (``Dt[s] = D_l^T``, rows of ``rest`` entries)."""
    u = mul8(splat8(Dt[s, nu, 0]), load8(x, src + t))
    for nu2 in range(1, W):
        u = fma8(splat8(Dt[s, nu, nu2]), load8(x, src + nu2 * rest + t), u)
    return u


@njit(cache=True, inline="always")
def _batch_scalar(x, src, rest, W, nu, Dt, s, t):
    """``Σ_ν' D_l[ν', ν] x[ν', t]`` of batch source s."""
    u = Dt[s, nu, 0] * x[src + t]
    for nu2 in range(1, W):
        u += Dt[s, nu, nu2] * x[src + nu2 * rest + t]
    return u


@njit(cache=True, nogil=True)
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


@njit(cache=True)
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


UP_CHUNK = 256  # `up_add`'s chunk of source columns (the combined arrival phases, in L1)


@njit(cache=True)
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


# --- the level blocks -----------------------------------------------------------


def _classes(n: int, R: int):
    """For the R^n obsolescence columns of a level with n buffered pages: the index of each column's eigenvalue
    *multiset* (how many pages in each eigen-phase; ``Λ^{⊕n}`` only depends on it) and, per class, the counts."""
    weights = (n + 1) ** np.arange(R, dtype=np.int64)
    raw = np.zeros(1, dtype=np.int64)
    for _ in range(n):
        raw = (raw[:, None] + weights[None, :]).ravel()
    keys, cls = np.unique(raw, return_inverse=True)
    counts = (keys[:, None] // weights[None, :]) % (n + 1)
    return cls.astype(np.int32).ravel(), counts


class LevelBlock:
    """Level i as a ``P x N`` tensor (P = W̄ M rows, N = R^n columns, n = i − 1 pages waiting; level 0: P = W̄, N = 1)
    with its diagonal block ``Q_{i,i} = C ⊕ Γ^{⊕n}``, ``C = D ⊕ S`` (``D = D_0^{(χ(i))}``, or ``D^{(χ(K))}(1)`` at
    i = K; level 0: ``C = D_0``).

    ``solve`` gives ``x Q_{i,i} = b`` exactly: with ``Γ = V Λ V^{-1}``,
    ``Q_{i,i} = (I ⊗ V^{⊗n}) (C ⊕ Λ^{⊕n}) (I ⊗ V^{-1⊗n})``, so
    ``x = [b (I ⊗ V^{⊗n})] (C + σ_r I)^{-1} (I ⊗ V^{-1⊗n})`` column by column, with
    ``σ_r = Σ_q λ_{r_q}``; ``C + σ I`` is inverted once per eigenvalue multiset
    (n + 1 of them for R = 2).  V's condition number is checked (`_eig`).

    ``solve`` is `level_solve`: at most three passes over the level (the in-block axes, the outer axes with the
    class solve, the in-block axes again), its block sizes and scratch fixed here once.  `apply` is one sweep of
    its own (`level_apply`: the diagonal hoisted, ``R^c <= INNER_APPLY`` inner axes merged); the matvec at R = 2
    applies levels of 32 columns or more by `apply_pull` instead (`LevelOperators`)."""

    def __init__(self, C: np.ndarray, G: np.ndarray, n: int, block: int = BLOCK_APPLY):
        self.C, self.n = C, n
        self.G = np.ascontiguousarray(G, dtype=float)
        self.P, self.R = C.shape[0], G.shape[0]
        self.N = self.R**n
        lam, V = _eig(G)
        self.dtype = np.result_type(lam, V, float)
        self.V = np.ascontiguousarray(V, dtype=self.dtype)
        self.Vinv = np.ascontiguousarray(np.linalg.inv(V), dtype=self.dtype)
        self.span = _power_at_most(self.R, min(self.N, BLOCK_SOLVE))  # `level_solve`'s column block
        outer_segments = self.N // self.span
        self.w = _power_at_most(self.R, min(self.span, max(1, GATHER // (self.P * outer_segments))))
        self._buf = np.empty((self.R, 256), dtype=self.dtype)
        self._gather = np.empty(self.P * outer_segments * self.w if outer_segments > 1 else 0, dtype=self.dtype)
        self._ob = np.empty(self.P * CLASS_CHUNK, dtype=self.dtype)
        self.block = block
        c = 0
        while c < n and self.R ** (c + 1) <= INNER_APPLY:
            c += 1
        self.L_apply = self.R**c  # `level_apply`'s merged inner factor: small, it multiplies its zeros too
        G_sum = kron_sum_matrix(self.G, c)
        self.G_off = np.ascontiguousarray(G_sum - np.diag(np.diag(G_sum)))
        span = _span(self.N, self.R, self.L_apply, block)
        outer = 0
        while span * self.R**outer < self.N:
            outer += 1
        self.d_in = diag_sum_vector(np.diag(self.G), n - outer)  # the n - outer in-block axes (all of them if R = 1)
        self.cls, counts = _classes(n, self.R)
        sigma = counts @ lam
        eye = np.eye(self.P)
        mats = np.array([C + s * eye for s in sigma], dtype=self.dtype)
        cond = np.linalg.cond(mats)
        if not np.all(np.isfinite(cond)) or cond.max() > 1 / (COND_LIMIT * np.finfo(float).eps):
            raise SolverError(f"diagonal block of a level with {n} waiting pages is (nearly) singular: "
                              f"condition {cond.max():.3g}")
        self.Minv = np.linalg.inv(mats)
        self.Mt = np.ascontiguousarray(self.Minv.transpose(1, 2, 0))  # Mt[a, b, k]: `_class_columns` reads by class
        # `_class_runs`' table at R = 2 in real arithmetic: T[k, a, b, l] = Minv[k + popcount(l), a, b]
        self._runs = np.zeros(0)
        if self.R == 2 and self.dtype == float and self.N >= 32:
            ones = np.array([bin(l).count("1") for l in range(32)])
            table = self.Minv[np.arange(n - 4)[:, None] + ones[None, :]]  # [k, l, a, b]
            self._runs = np.ascontiguousarray(table.transpose(0, 2, 3, 1)).ravel()
        self.C = np.ascontiguousarray(C, dtype=float)

    def apply(self, x: np.ndarray, out: np.ndarray) -> None:
        """``out = x Q_{i,i}`` (flat vectors of length P N)."""
        level_apply(x, out, self.P, self.N, self.R, self.C, self.G, self.G_off, self.L_apply, self.d_in, self.block)

    def solve(self, work: np.ndarray) -> None:
        """In place: ``work <- work Q_{i,i}^{-1}`` (``work`` flat, of this block's dtype and size P N)."""
        level_solve(work, self.P, self.N, self.R, self.V, self.Vinv, self.cls, self.Mt, self.span, self.w,
                    self._buf, self._gather, self._ob, self._runs)

    def solve_flops(self) -> int:
        """Floating-point operations of one `solve` (a multiply-add counts 2, as `LevelOperators.matvec_flops`):
        per entry ``2 R`` for each of the n axes of ``V^{⊗n}`` and again of ``V^{-1⊗n}`` (dense R x R factors;
        the butterflies of `_pairs3` execute 2R − 1), ``2 P`` for the class solve.  At R = 1 (N = 1) the scalar
        factors ``V^n`` and ``V^{-n}`` cancel and are not applied."""
        axes = self.n if self.R > 1 else 0
        return self.P * self.N * (2 * 2 * self.R * axes + 2 * self.P)


def diag_sum_vector(d: np.ndarray, c: int) -> np.ndarray:
    """``Σ_q d[r_q]`` over the ``R^c`` index tuples ``(r_1, .., r_c)``, r_1 most significant: the diagonal of
    ``diag(d)^{⊕c}`` (``c = 0``: the one entry 0)."""
    out = np.zeros(1)
    for _ in range(c):
        out = (out[:, None] + d[None, :]).ravel()
    return np.ascontiguousarray(out, dtype=float)


def down_inner_matrix(g0: np.ndarray, n: int) -> np.ndarray:
    """`down_add`'s merged factor for a level with n waiting pages: ``Σ_q I_{R^q} ⊗ g0 ⊗ I_{R^(c-1-q)}``
    (``R^c x R^(c-1)``, g0 a column) over the c innermost axes, ``c <= n - 1`` (never the head's axis, which
    also feeds the service completions) and ``R^c <= INNER_DOWN``; 0 x 0 when c = 0."""
    R = g0.shape[0]
    c = 0
    while c < n - 1 and R ** (c + 1) <= INNER_DOWN:
        c += 1
    if c == 0:
        return np.zeros((0, 0))
    col = g0.reshape(R, 1)
    out = sum(np.kron(np.kron(np.eye(R**q), col), np.eye(R ** (c - 1 - q))) for q in range(c))
    return np.ascontiguousarray(out, dtype=float)


def kron_sum_matrix(G: np.ndarray, c: int) -> np.ndarray:
    """``G^{⊕c} = Σ_q I_{R^{q-1}} ⊗ G ⊗ I_{R^{c-q}}`` as a dense ``R^c x R^c`` array (``c = 0``: the 1 x 1 zero)."""
    R = G.shape[0]
    out = np.zeros((1, 1))
    for _ in range(c):
        out = np.kron(out, np.eye(R)) + np.kron(np.eye(out.shape[0]), G)
    return np.ascontiguousarray(out)


class LevelOperators:
    """The blocks of Q as tensor operations on the flat stationary vector (row convention): diagonal blocks
    (`LevelBlock`), down one level (`down_add`, `down_add_pull`) and up by a batch (`up_add`); at R = 2 the
    matvec forms the levels of 32 columns or more by `apply_pull` and those below as one CSR matrix."""

    def __init__(self, model: BmapModel, levels, block: int = BLOCK_APPLY):
        self.model, self.levels, self.block = model, tuple(levels), block
        K = model.K
        self.sizes = [model.level_size(i) for i in range(K + 1)]
        self.cuts = np.cumsum([0] + self.sizes)
        self.n = int(self.cuts[-1])
        self.beta = np.ascontiguousarray(model.service.beta, dtype=float)
        self.S0 = np.ascontiguousarray(model.service.exit, dtype=float)
        self.gam = np.ascontiguousarray(model.obsolescence.beta, dtype=float)
        self.G = np.ascontiguousarray(model.obsolescence.S, dtype=float)
        self.G0 = np.ascontiguousarray(model.obsolescence.exit, dtype=float)
        self.blocks = [LevelBlock(self.diag_C(i), self.G, max(i - 1, 0), block) for i in range(K + 1)]
        self.D_in = [down_inner_matrix(self.G0, i - 1) for i in range(K + 1)]
        # batch sizes l that can move level i up (D_l, or the tail for l = K - i), with the fresh-phase vector g
        # (beta ⊗ gamma^{⊗(l-1)} from level 0, gamma^{⊗l} above); every g once, in one array (`apply_pull` reads
        # them by offset, `up_add` by view)
        batches = [(i, l) for i in range(K + 1) for l in range(1, K - i + 1) if self._D_up(i, l).any()]
        lengths = [self.beta.size ** (i == 0) * self.gam.size ** (l - (i == 0)) for i, l in batches]
        offsets = np.cumsum([0] + lengths)
        self._fresh_all = np.empty(int(offsets[-1]))
        self.ups = [[] for _ in range(K + 1)]  # by source level i: (l, D_l^T, g)
        self.into = [[] for _ in range(K + 1)]  # by target level: (source level i, D_l^T, g, g's offset)
        for (i, l), a, b in zip(batches, offsets[:-1], offsets[1:]):
            g = self._fresh_all[a:b]
            g[:] = self._fresh(i, l)
            Dt = np.ascontiguousarray(self._D_up(i, l).T)
            self.ups[i].append((l, Dt, g))
            self.into[i + l].append((i, Dt, g, int(a)))
        self._pulled = pulled = [i for i in range(K + 1) if self._pulls(i)]  # formed by `apply_pull` ...
        self._pull = self._pull_arguments(pulled) if pulled else None  # ... with these arguments
        self._plain = [i for i in range(K + 1) if i not in pulled]  # the others, level by level ...
        # ... or, when they are exactly the levels below the pulled ones, as one CSR matrix
        self._corner = self._plain_corner(pulled[0]) if pulled and pulled[0] == len(self._plain) else None
        self.dtype = np.result_type(*(b.dtype for b in self.blocks))
        # complex level solves (Γ with complex eigenvalues) run in a complex copy; real ones in place
        self._work = np.empty(max(self.sizes) if self.dtype != float else 0, dtype=self.dtype)
        self._inflow = work_array(self.n)

    def vector(self) -> np.ndarray:
        """A zero work vector over all states (`work_array`) placed so that every level `apply_pull` forms
        starts on a 64-byte boundary (they all start at the same offset modulo 8 entries, ``W̄ − W̄ M``): the
        8-lane loads and stores then never straddle two cache lines.  The K = 16 matvec takes 0.52 ms on such
        vectors and 0.67 ms on numpy's."""
        buf = work_array(self.n + 8)
        first = int(self.cuts[self._pulled[0]]) if self._pulled else 0
        lead = (-(buf.ctypes.data // 8) - first) % 8
        return buf[lead : lead + self.n]

    def level(self, x: np.ndarray, i: int) -> np.ndarray:
        """The level-i piece of a flat vector (a view)."""
        return x[self.cuts[i] : self.cuts[i + 1]]

    def _pulls(self, i: int) -> bool:
        """Whether `apply_flat` forms level i by `apply_pull`: R = 2, at least 32 columns, and every batch into it
        has |g| = 2, 4 or a multiple of 8 (always so at R = 2: ``|g| = 2^l``, or ``M 2^(l-1)`` from level 0)."""
        return (self.model.R == 2 and i >= 1 and self.blocks[i].N >= PULL_RUN
                and all(g.size in (2, 4) or g.size % 8 == 0 for _, _, g, _ in self.into[i]))

    def _pull_arguments(self, pulled) -> tuple:
        """`apply_pull`'s arguments after ``x, y``: the shared factors, then per pulled level its row of
        ``levels``, its C, its digit sums above a run, and its batch sources (see `apply_pull`)."""
        W, M, K = self.model.W, self.model.M, self.model.K
        G = self.G
        diag = np.diag(G)
        rows, Cs, d_hi, ups, Dts = [], [], [], [], []
        d_off = 0
        for i in pulled:
            n = i - 1
            rows.append((int(self.cuts[i]), int(self.cuts[i + 1]) if i < K else -1, n, d_off, len(ups),
                         len(ups) + len(self.into[i])))
            Cs.append(self.blocks[i].C)
            d_hi.append(diag_sum_vector(diag, n - 5))
            d_off += d_hi[-1].size
            for j, Dt, g, at in self.into[i]:
                ups.append((int(self.cuts[j]), self.sizes[j] // W, g.size, at))
                Dts.append(Dt)
        lane = np.arange(8)
        lanes = np.concatenate([np.where(lane & k, G[0, 1], G[1, 0]) for k in (1, 2, 4)])
        return (G, diag_sum_vector(diag, 5), lanes, self.beta, self.S0, self.G0, np.array(rows, dtype=np.int64),
                np.ascontiguousarray(Cs, dtype=float), np.concatenate(d_hi), np.array(ups, dtype=np.int64).reshape(-1, 4),
                np.ascontiguousarray(np.array(Dts, dtype=float).reshape(-1, W, W)), self._fresh_all)

    def _plain_corner(self, first: int):
        """The levels below the first pulled one (at R = 2 levels 0 .. 5, a few hundred states) as one sparse
        matrix A (scipy CSR), ``x Q`` on them being ``A x[: c]`` (c: the states up to level ``first``): one
        product (4 µs at K = 16) instead of about four kernel calls per level.  A is assembled once, column by
        column, by applying the level-by-level kernels (`_apply_plain`) to unit vectors; None (level by level)
        when that would take more than `CORNER_COLUMNS` applications."""
        rows, cols = int(self.cuts[first]), int(self.cuts[first + 1])
        if cols > CORNER_COLUMNS:
            return None
        e, out = np.zeros(cols), np.empty(rows)
        entries = []
        for k in range(cols):
            e[k] = 1.0
            self._apply_plain(e, out)
            e[k] = 0.0
            nz = np.flatnonzero(out)
            entries.append((nz, np.full(nz.size, k), out[nz]))
        r, c, v = (np.concatenate(a) for a in zip(*entries))
        return sps.csr_matrix((v, (r, c)), shape=(rows, cols))

    def _D_up(self, i: int, l: int) -> np.ndarray:
        m, r = self.model, self.levels[i]
        return m.D(r, l) if i + l < m.K else m.D_tail(r, l)

    def _fresh(self, i: int, l: int) -> np.ndarray:
        g = self.beta if i == 0 else np.ones(1)
        for _ in range(l - (i == 0)):
            g = np.kron(g, self.gam)
        return np.ascontiguousarray(g)

    def diag_C(self, i: int) -> np.ndarray:
        """``C`` of level i: ``D`` at i = 0, else ``D ⊕ S`` with ``D = D_0^{(r)}`` below K and ``D^{(r)}(1)`` at K."""
        m, r = self.model, self.levels[i]
        D = m.D(r, 0) if i < m.K else m._D[r - 1].sum(axis=0)
        if i == 0:
            return np.array(D, dtype=float)
        return np.kron(D, np.eye(m.M)) + np.kron(np.eye(m.W), m.service.S)

    def _down(self, i: int, x: np.ndarray, y: np.ndarray, coef: float) -> None:
        """``y += coef · x Q_{i,i-1}`` (x: level i, y: level i − 1)."""
        m = self.model
        if i == 1:
            y += coef * (x.reshape(m.W, m.M) @ self.S0)
        elif self._pulls_down(i):
            down_add_pull(x, y, m.W, m.M, i - 1, self.beta, self.S0, self.G0, coef)
        else:
            down_add(x, y, m.W, m.M, m.R, i - 1, self.beta, self.S0, self.G0, self.D_in[i], coef, self.block)

    def _pulls_down(self, i: int) -> bool:
        """Whether ``Q_{i,i-1}`` is `down_add_pull` (R = 2, at least one run of 32 outputs), else `down_add`."""
        return self.model.R == 2 and i >= 2 and self.blocks[i - 1].N >= PULL_RUN

    def _up(self, i: int, x: np.ndarray, out: np.ndarray, coef: float) -> None:
        """``out_{i+l} += coef · x Q_{i,i+l}`` for every batch size l that moves level i up (``out`` flat, all levels)."""
        for l, Dt, g in self.ups[i]:
            up_add(self.level(out, i + l), x, self.model.W, Dt, g, coef)

    def apply_flat(self, x: np.ndarray, out: np.ndarray) -> None:
        """``out = x Q`` (flat contiguous vectors over all states), output level by output level: at R = 2 every
        level of 32 columns or more in one `apply_pull` call (each output summed in registers, written once);
        each other level i as ``x_i Q_{i,i}`` (`LevelBlock.apply`), plus ``x_{i+1} Q_{i+1,i}`` and the batches
        into it (`up_add`)."""
        self.pull_share(x, out, 0, 1)
        if self._corner is not None:
            rows, cols = self._corner.shape
            out[:rows] = self._corner @ x[:cols]
        else:
            self._apply_plain(x, out)

    def pull_share(self, x: np.ndarray, out: np.ndarray, part: int, parts: int) -> None:
        """Share ``part`` of ``parts`` of `apply_flat`'s `apply_pull` call: of every level it forms, the
        outputs of that contiguous share of its runs (nothing at all when R != 2).  The shares are independent
        and release the GIL, so they may run on threads at once (benchmarks/bmap.py, the two-thread line)."""
        if not (isinstance(part, int) and isinstance(parts, int) and 0 <= part < parts):
            raise ValueError(f"pull_share: part = {part!r} of parts = {parts!r}; need integers 0 <= part < parts")
        if self._pull is not None:
            apply_pull(part, parts, x, out, self.model.W, self.model.M, *self._pull)

    def _apply_plain(self, x: np.ndarray, out: np.ndarray) -> None:
        """The levels `apply_pull` does not form, level by level (x and out may stop after the last level read or
        written)."""
        for i in self._plain:
            yi = self.level(out, i)
            self.blocks[i].apply(self.level(x, i), yi)
            if i + 1 < len(self.blocks):
                self._down(i + 1, self.level(x, i + 1), yi, 1.0)
            for j, Dt, g, _ in self.into[i]:
                up_add(yi, self.level(x, j), self.model.W, Dt, g, 1.0)

    def matvec_flops(self) -> int:
        """Floating-point operations (a multiply-add counts 2) of one `apply_flat`, counted from the structure as
        the kernels execute them (scalar products of rates, such as a multiplicity times ``Γ_0[c]``, not
        counted), by output level i (n = i − 1 pages, P x N entries, N = R^n):

        - by `apply_pull`: the diagonal block, per entry ``2n + 3`` (the diagonal's add and multiply-add, one
          multiply-add per axis) plus ``2 nnz_off(C) N``; from level i + 1, per entry ``2(n − 3) + 21`` (one
          multiply-add per distinct outer partner, ``n + 1 − 4`` of them, ten for the five in-run bits, beta's
          multiply) plus ``3 M W̄ N`` for the service sums; per batch, ``2`` per entry (the product with g and its
          add) plus ``2W̄ − 1`` per source entry at |g| = 2, 4, per 8 entries at |g| a multiple of 8;
        - the levels below those, as one sparse matrix (`_plain_corner`): ``2 nnz``;
        - otherwise level by level: `level_apply`, the hoisted diagonal ``(c_0 + d_in) x`` 2 P N, the
          off-diagonal entries of C ``2 nnz_off(C) N``, an obsolescence axis done alone ``2 P N nnz_off(Γ) / R``,
          the dense merged factor of L entries ``2 L`` per entry; from level i + 1 `_down` (`_down_flops`); per
          batch (`up_add`) ``n_j (2 W̄ − 1 + 2 |g|)``, ``n_j`` the size of the source level."""
        W, M, R = self.model.W, self.model.M, self.model.R
        K = self.model.K
        nnz_off = lambda A: int(np.count_nonzero(A - np.diag(np.diag(A))))
        total = 2 * self._corner.nnz if self._corner is not None else 0
        for i, blk in enumerate(self.blocks):
            P, N = blk.P, blk.N
            if i not in self._plain:
                n = blk.n
                total += P * N * (2 * n + 3) + 2 * nnz_off(blk.C) * N
                if i < K:
                    total += P * N * (2 * (n - 3) + 21) + 3 * M * W * N
                for _, _, g, _ in self.into[i]:
                    total += 2 * P * N + (2 * W - 1) * P * N // (g.size if g.size < 8 else 8)
                continue
            if self._corner is not None:
                continue
            total += 2 * P * N + 2 * nnz_off(blk.C) * N
            L = blk.L_apply
            axis = 2 * P * N * nnz_off(blk.G) // R  # one obsolescence axis done alone
            span = int(_span(N, R, L, blk.block))
            s = span
            while s < N:  # the axes above the merged factor
                total += axis
                s *= R
            s = L
            while s < span:
                total += axis
                s *= R
            if L > 1:
                total += 2 * L * P * N
            if i < K:
                total += self._down_flops(i + 1)
            for j, _, g, _ in self.into[i]:
                total += self.sizes[j] * (2 * W - 1 + 2 * g.size)
        return total

    def _down_flops(self, i: int) -> int:
        """Floating-point operations of ``Q_{i,i-1}`` (`_down`), as the kernels execute them (see `matvec_flops`)."""
        W, M, R = self.model.W, self.model.M, self.model.R
        if i == 0:
            return 0
        if i == 1:
            return W * (2 * M + 1)
        P, N = self.blocks[i].P, self.blocks[i].N
        Nout = N // R
        n = self.blocks[i].n
        if self._pulls_down(i):  # per output: the service sum, beta's multiply, `_down_run` (see matvec_flops), coef's
            return P * Nout * (3 * M + 1 + 2 * (n - 4) + 20 + 2)
        Li, Lo = self.D_in[i].shape
        B = 1
        while B < Nout and B * R <= self.block:
            B *= R
        B = max(B, Li)
        per_out = 2 * Li  # the merged inner factor
        s = Nout
        while s >= B:
            per_out += 2 * R
            s = s // R if R > 1 else 0  # as in down_add
        while s >= max(Li, 1):
            per_out += 2 * R
            s //= R
        return per_out * P * Nout + 2 * R * W * M * Nout + 2 * W * M * Nout

    def apply(self, xs) -> list:
        """``x Q`` level by level (lists of level vectors)."""
        out = np.empty(self.n)
        self.apply_flat(np.concatenate(xs), out)
        return [self.level(out, i).copy() for i in range(len(self.blocks))]

    def _solve_level(self, i: int, x: np.ndarray) -> None:
        """In place ``x <- x Q_{i,i}^{-1}`` (x: level i of a flat real vector)."""
        if self.dtype == float:
            self.blocks[i].solve(x)
        else:
            work = self._work[: self.sizes[i]]
            work[:] = x
            self.blocks[i].solve(work)
            x[:] = work.real

    def precondition(self, rhs: np.ndarray, x: np.ndarray) -> None:
        """One symmetric block Gauss–Seidel sweep for ``x Q = rhs`` from ``x = 0`` (``x`` overwritten): forward,
        level i solves ``x_i Q_ii = rhs_i − (batches in from the levels below, already new)``; backward,
        ``x_i Q_ii = rhs_i − (batches in) − x_{i+1} Q_{i+1,i}``.  Level K's backward solve equals its forward one
        (nothing above it), so it is skipped.  Each right-hand side is formed in ``x_i`` itself and solved in
        place (the forward ``x_i`` is no longer needed once its batches are in ``inflow``)."""
        K = len(self.blocks) - 1
        inflow = self._inflow
        inflow[:] = 0
        for i in range(K + 1):
            xi = self.level(x, i)
            np.subtract(self.level(rhs, i), self.level(inflow, i), out=xi)
            self._solve_level(i, xi)
            self._up(i, xi, inflow, 1.0)
        for i in range(K - 1, -1, -1):
            xi = self.level(x, i)
            np.subtract(self.level(rhs, i), self.level(inflow, i), out=xi)
            self._down(i + 1, self.level(x, i + 1), xi, -1.0)
            self._solve_level(i, xi)

    def precondition_flops(self) -> int:
        """Floating-point operations of one `precondition` (counted as in `matvec_flops`): the level solves
        (`LevelBlock.solve_flops`), forward for every level and backward below K; one subtraction per entry
        of each solved level; the up couplings of the forward sweep (as in the matvec) and the down couplings
        of the backward sweep (the matvec's, except level 1 -> 0 counted the same)."""
        K = len(self.blocks) - 1
        total = sum(b.solve_flops() + b.P * b.N for b in self.blocks)
        total += sum(b.solve_flops() + b.P * b.N for b in self.blocks[:K])
        W = self.model.W
        for i in range(K + 1):
            for _, _, g in self.ups[i]:
                total += self.sizes[i] * (2 * W - 1 + 2 * g.size)
        return total + sum(self._down_flops(i) for i in range(1, K + 1))

def memory_estimate(model: BmapModel, restart: int) -> float:
    """Bytes `solve_structured` needs: the ``restart + 1`` Krylov vectors, 6 more vectors (iterate, residual,
    matvec and preconditioner outputs, inflow, right-hand side), the level scratch (3 top-level vectors, complex
    when Γ's eigenvalues are) and the eigenvalue-class index (4 bytes per obsolescence column)."""
    n = model.states
    top = model.level_size(model.K)
    columns = sum(model.R ** max(i - 1, 0) for i in range(model.K + 1))
    return 8.0 * n * (restart + 1 + 6) + 16.0 * 3 * top + 4.0 * columns


# --- GMRES with delayed reorthogonalisation ---------------------------------------------------------------
# The Krylov basis V is (restart + 1) x n, row-major.  Both kernels stream each basis row once per call, several
# rows at a time (the block of u and z, `ORTH_BLOCK` entries, stays in L2 across the rows).  Their sums are
# reassociated (fastmath "reassoc" only: no assumptions about NaN, infinities or signed zeros), which lets
# LLVM vectorise the dot products; only the order of the roundings differs from a sequential sum.

ORTH_BLOCK = 16384  # entries per row of the orthogonalisation kernels' column blocks (u and z: 128 KiB each)


@njit(cache=True, fastmath={"reassoc"})
def _dots2(V, m, u, z, out):
    """One pass over ``V[:m]``, u and z: ``out[i] = (V_i·u, V_i·z)`` for i < m, ``out[m] = (u·u, u·z)``."""
    n = u.shape[0]
    out[: m + 1] = 0.0
    for b in range(0, n, ORTH_BLOCK):
        e = min(n, b + ORTH_BLOCK)
        ub, zb = u[b:e], z[b:e]
        i = 0
        while i + 4 <= m:
            q0, q1, q2, q3 = V[i, b:e], V[i + 1, b:e], V[i + 2, b:e], V[i + 3, b:e]
            a0 = a1 = a2 = a3 = c0 = c1 = c2 = c3 = 0.0
            for k in range(e - b):
                uk, zk = ub[k], zb[k]
                a0 += q0[k] * uk
                a1 += q1[k] * uk
                a2 += q2[k] * uk
                a3 += q3[k] * uk
                c0 += q0[k] * zk
                c1 += q1[k] * zk
                c2 += q2[k] * zk
                c3 += q3[k] * zk
            out[i, 0] += a0
            out[i + 1, 0] += a1
            out[i + 2, 0] += a2
            out[i + 3, 0] += a3
            out[i, 1] += c0
            out[i + 1, 1] += c1
            out[i + 2, 1] += c2
            out[i + 3, 1] += c3
            i += 4
        while i <= m:  # the rows left over, then u itself
            q = V[i, b:e] if i < m else ub
            a0 = c0 = 0.0
            for k in range(e - b):
                a0 += q[k] * ub[k]
                c0 += q[k] * zb[k]
            out[i, 0] += a0
            out[i, 1] += c0
            i += 1


@njit(cache=True, fastmath={"reassoc"})
def _update2(V, m, s, t, u, z, a, d, out):
    """One pass over ``V[:m]``, u and z: ``u <- q = a (u − Σ_i s_i V_i)`` (in place), ``out <- a (z − Σ_i t_i V_i)
    − d q``; z is overwritten (scratch).  Returns ``||out||²``.  Eight basis rows per sweep of the block (then
    four, then one): the block of u and z is read and written once per sweep."""
    n = u.shape[0]
    norm2 = 0.0
    for b in range(0, n, ORTH_BLOCK):
        e = min(n, b + ORTH_BLOCK)
        ub, zb, ob = u[b:e], z[b:e], out[b:e]
        i = 0
        while i + 8 <= m:
            q0, q1, q2, q3 = V[i, b:e], V[i + 1, b:e], V[i + 2, b:e], V[i + 3, b:e]
            q4, q5, q6, q7 = V[i + 4, b:e], V[i + 5, b:e], V[i + 6, b:e], V[i + 7, b:e]
            s0, s1, s2, s3, s4, s5, s6, s7 = s[i], s[i + 1], s[i + 2], s[i + 3], s[i + 4], s[i + 5], s[i + 6], s[i + 7]
            t0, t1, t2, t3, t4, t5, t6, t7 = t[i], t[i + 1], t[i + 2], t[i + 3], t[i + 4], t[i + 5], t[i + 6], t[i + 7]
            for k in range(e - b):
                v0, v1, v2, v3, v4, v5, v6, v7 = q0[k], q1[k], q2[k], q3[k], q4[k], q5[k], q6[k], q7[k]
                ub[k] -= s0 * v0 + s1 * v1 + s2 * v2 + s3 * v3 + s4 * v4 + s5 * v5 + s6 * v6 + s7 * v7
                zb[k] -= t0 * v0 + t1 * v1 + t2 * v2 + t3 * v3 + t4 * v4 + t5 * v5 + t6 * v6 + t7 * v7
            i += 8
        while i + 4 <= m:
            q0, q1, q2, q3 = V[i, b:e], V[i + 1, b:e], V[i + 2, b:e], V[i + 3, b:e]
            s0, s1, s2, s3 = s[i], s[i + 1], s[i + 2], s[i + 3]
            t0, t1, t2, t3 = t[i], t[i + 1], t[i + 2], t[i + 3]
            for k in range(e - b):
                ub[k] -= s0 * q0[k] + s1 * q1[k] + s2 * q2[k] + s3 * q3[k]
                zb[k] -= t0 * q0[k] + t1 * q1[k] + t2 * q2[k] + t3 * q3[k]
            i += 4
        while i < m:
            q, si, ti = V[i, b:e], s[i], t[i]
            for k in range(e - b):
                ub[k] -= si * q[k]
                zb[k] -= ti * q[k]
            i += 1
        for k in range(e - b):
            qk = a * ub[k]
            ub[k] = qk
            wk = a * zb[k] - d * qk
            ob[k] = wk
            norm2 += wk * wk
    return norm2


def _rotated_tail(cs, sn, g, h, alpha, col: int) -> float:
    """The residual estimate ``|g[col + 1]|`` if column ``col`` of H were ``(h, alpha)`` (rotations 0 .. col − 1
    applied to a copy, then the one that annihilates ``alpha``)."""
    v = h.copy()
    for i in range(col):
        v[i], v[i + 1] = cs[i] * v[i] + sn[i] * v[i + 1], -sn[i] * v[i] + cs[i] * v[i + 1]
    rho = np.hypot(v[col], alpha)
    return abs(g[col]) * alpha / rho if rho > 0 else 0.0


def _second_norm(V, j: int, u: np.ndarray, alpha: float, s: np.ndarray, beta: float) -> float:
    """``ρ = ||u / α − Q_j s||`` by Pythagoras, ``sqrt(β − s^T s)``; when the second projection removes more than
    half of ``p`` (``u_j`` nearly in the span of the basis: the Krylov space is almost invariant) the difference
    cancels, so ρ is then formed explicitly."""
    rho2 = beta - float(s @ s)
    if rho2 >= 0.5:
        return float(np.sqrt(rho2))
    return float(np.linalg.norm(u / alpha - s @ V[:j]))


def _finish_column(H, Rg, cs, sn, g, h, alpha: float, s, rho: float, col: int, its: int) -> None:
    """Column ``col`` of H, ``(h + α s, α ρ)``, and its Givens rotation (applied to ``Rg`` and ``g``)."""
    H[: col + 1, col] = h + alpha * s
    H[col + 1, col] = alpha * rho
    Rg[: col + 2, col] = H[: col + 2, col]
    for i in range(col):
        a, c = Rg[i, col], Rg[i + 1, col]
        Rg[i, col], Rg[i + 1, col] = cs[i] * a + sn[i] * c, -sn[i] * a + cs[i] * c
    r = np.hypot(Rg[col, col], Rg[col + 1, col])
    if r == 0:
        raise SolverError(f"GMRES broke down (zero Hessenberg column) after {its} iterations")
    cs[col], sn[col] = Rg[col, col] / r, Rg[col + 1, col] / r
    Rg[col, col], Rg[col + 1, col] = r, 0.0
    g[col + 1] = -sn[col] * g[col]
    g[col] *= cs[col]


def gmres_right(matvec, precond, b: np.ndarray, x: np.ndarray, tol: float, restart: int, maxiter: int, record=None):
    """Right-preconditioned restarted GMRES for ``A x = b`` (``x`` the start, overwritten): Arnoldi on
    ``A M^{-1}`` with classical Gram–Schmidt and *delayed* reorthogonalisation, in the manner of DCGS2
    (Świrydowicz, Langou, Ananthan, Yang, Thomas, "Low synchronization Gram–Schmidt and GMRES algorithms", Numer.
    Linear Algebra Appl. 28 (2021) e2343; Bielich, Langou, Thomas, Świrydowicz, Yamazaki, Boman, "Low-synch
    Gram–Schmidt with delayed reorthogonalization for Krylov solvers", Parallel Comput. 2022; the recurrences
    below are derived here), Givens rotations for the least-squares problem.  Stops when the *true* residual
    ``||b − A x||_2 <= tol ||b||_2`` (checked at every restart and at the estimated convergence).  Returns ``(x,
    iterations, residual norm)``; raises `SolverError` when ``maxiter`` iterations do not suffice or the Arnoldi
    process breaks down before convergence.

    Step j holds the orthonormal ``Q_j = [q_0 .. q_{j-1}]`` and the candidate ``u_j`` (``w_{j-1} = A M^{-1}
    q_{j-1}`` after *one* projection, ``w_{j-1} = Q_j h_{j-1} + u_j``), of norm α.  With ``p = u_j / α`` and
    ``z = A M^{-1} p``, one pass (`_dots2`) gives ``s = Q_j^T p``, ``β = p^T p``, ``t = Q_j^T z``, ``τ = p^T z``; then

    - the second projection of ``u_j``, by Pythagoras: ``q_j = (p − Q_j s) / ρ``, ``ρ = sqrt(β − s^T s)``, so
      column j − 1 of H is ``(h_{j-1} + α s, α ρ)``;
    - the first projection of ``w_j = A M^{-1} q_j = (z − Q_{j+1} H_{:, :j} s) / ρ`` (``A M^{-1} Q_j = Q_{j+1}
      H_{:, :j}``) without forming it: ``h_j = ([t; c] − H_{:, :j} s) / ρ``, ``c = q_j^T z = (τ − s^T t) / ρ``,
      and ``u_{j+1} = (z − Q_j t − c q_j) / ρ``,

    the last two in one more pass (`_update2`): two passes over the basis per step where CGS2 makes four, the
    same O(ε) loss of orthogonality.  Column j − 1 is final one step late; convergence is estimated from the
    once-projected column ``(h_{j-1}, α)`` (its error is relative O(|s|), rounding-sized) and, when that says stop,
    one last pass reorthogonalises ``u_j`` (no matrix-vector product is spent on it); should the final column
    converge where the estimate did not, the cycle stops one product late.  ``record(Q, H)``, if given, receives
    the orthonormal basis and the (unrotated) Hessenberg matrix of every cycle, ``A M^{-1} Q_k = Q H`` (Q: k + 1
    rows, ``Q_k`` the first k).  ``matvec``'s result serves as scratch: it must not share memory with its input."""
    n = b.size
    V = work_array((restart + 1, n))
    r = work_array(n)  # the residual, and the correction's basis combination
    H = np.zeros((restart + 1, restart))  # the Arnoldi relation's Hessenberg matrix
    Rg = np.zeros((restart + 1, restart))  # H rotated: the triangular factor of the least-squares problem
    dots = np.empty((restart + 1, 2))
    target = tol * float(np.linalg.norm(b))
    its = 0
    np.subtract(b, matvec(x), out=r)
    rnorm = float(np.linalg.norm(r))
    while rnorm > target:
        if its >= maxiter:
            raise SolverError(f"GMRES did not reach the relative residual {tol:g} in {maxiter} iterations "
                              f"(residual {rnorm:.3g} vs target {target:.3g})")
        V[0] = r
        alpha = rnorm  # the norm of the candidate u_j in V[j]
        g = np.zeros(restart + 1)
        g[0] = rnorm
        cs, sn = np.zeros(restart), np.zeros(restart)
        h = np.zeros(0)  # column j - 1's coefficients after the first projection
        j = 0
        while True:
            u = V[j]
            if j > 0 and (alpha == 0 or j == restart or its >= maxiter
                          or _rotated_tail(cs, sn, g, h, alpha, j - 1) <= target):
                # last column of the cycle: reorthogonalise u_j without spending a matrix-vector product on it
                s, rho = np.zeros(j), 1.0
                if alpha > 0:
                    _dots2(V, j, u, u, dots)
                    s = dots[:j, 0] / alpha
                    rho = _second_norm(V, j, u, alpha, s, dots[j, 0] / alpha**2)
                _finish_column(H, Rg, cs, sn, g, h, alpha, s, rho, j - 1, its)
                break
            z = matvec(precond(u))
            its += 1
            _dots2(V, j, u, z, dots)
            s, t = dots[:j, 0] / alpha, dots[:j, 1] / alpha
            beta, tau = dots[j, 0] / alpha**2, dots[j, 1] / alpha**2
            rho = _second_norm(V, j, u, alpha, s, beta)
            if j > 0:
                _finish_column(H, Rg, cs, sn, g, h, alpha, s, rho, j - 1, its)
                if abs(g[j]) <= target:  # converged, although the once-projected estimate said not yet
                    break
            c = (tau - s @ t) / rho
            h = (np.append(t, c) - H[: j + 1, :j] @ s) / rho
            alpha = float(np.sqrt(_update2(V, j, dots[:j, 0], dots[:j, 1], u, z, 1 / (alpha * rho), c / rho, V[j + 1])))
            j += 1
        k = j - 1  # columns 0 .. k are final; u_j = V[j] was reorthogonalised (s, rho) but not stored
        if record is not None:
            q = (V[j] / alpha - s @ V[:j]) / rho if alpha * rho > 0 else np.zeros(n)
            record(np.vstack([V[:j], q]), H[: j + 1, :j].copy())
        y = np.linalg.solve(np.triu(Rg[: k + 1, : k + 1]), g[: k + 1])
        np.dot(y, V[: k + 1], out=r)
        x += precond(r)
        np.subtract(b, matvec(x), out=r)
        rnorm = float(np.linalg.norm(r))
    return x, its, rnorm


def solve_structured(model: BmapModel, levels, tol: float = 1e-15, maxiter: int = 500, restart: int = 40) -> Stationary:
    """Stationary vector by right-preconditioned GMRES (`gmres_right`) on the matrix-free operator: ``x (Q + e c)
    = c`` with ``c`` the level-0 indicator scaled to the largest rate of ``D_0`` (so ``x e = 1`` and ``x Q = 0``),
    preconditioned by one symmetric block Gauss–Seidel sweep (`LevelOperators.precondition`)."""
    t0 = time.perf_counter()
    require_memory(memory_estimate(model, restart), "K", f"the matrix-free solve of {model.states} states", value=model.K)
    ops = LevelOperators(model, levels)
    n = ops.n
    scale = float(np.abs(model.D(levels[0], 0)).max())
    c = work_array(n)
    c[: ops.sizes[0]] = scale
    out_mv, out_pc, x0 = ops.vector(), ops.vector(), ops.vector()  # the vectors the matvec reads and writes
    x0.fill(1.0 / n)

    def matvec(v):  # rows -> we work with x^T: (Q + e c)^T x = c^T
        ops.apply_flat(v, out_mv)
        out_mv[: ops.sizes[0]] += scale * v.sum()
        return out_mv

    def precond(v):
        ops.precondition(v, out_pc)
        return out_pc

    x, its, _ = gmres_right(matvec, precond, c, x0, tol, restart, maxiter)
    x /= x.sum()
    ops.apply_flat(x, out_mv)
    res = float(np.abs(out_mv).max())
    p = tuple(ops.level(x, i) for i in range(model.K + 1))
    return Stationary(p, "structured GMRES + block Gauss–Seidel (matrix-free)", res, its, time.perf_counter() - t0)


def tagged_solver(model: BmapModel):
    """``(t, rhs) -> (-A_t)^{-1} rhs`` with ``A_t = S ⊕ Γ^{⊕t}`` by Kronecker-sum solves."""
    cache: dict = {}

    def solve(t: int, rhs: np.ndarray) -> np.ndarray:
        if t not in cache:
            G = model.obsolescence.S
            fold = G.shape[0] == 1  # as in LevelOperators: no axis per page
            factors = [-model.service.S - t * G[0, 0] * np.eye(model.M)] if fold else [-model.service.S] + [-G] * t
            cache[t] = KronSumSolver(factors)
        return cache[t].solve(rhs)

    return solve


def evaluate_structured(model: BmapModel, levels) -> Measures:
    """Every measure (including V1) without forming Q."""
    from dataclasses import replace

    t0 = time.perf_counter()
    st = solve_structured(model, levels)
    m = measures(model, levels, st, A_solve=tagged_solver(model))
    return replace(m, seconds=time.perf_counter() - t0)
