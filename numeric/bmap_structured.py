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
- the stationary equations are solved by GMRES on ``x (Q + e c) = c`` (a rank-one
  change that fixes ``x e = 1``), preconditioned by one symmetric block
  Gauss–Seidel sweep over the levels.

Nothing here forms a matrix larger than ``max(W̄, M, R)`` squared.  A factor
that is not diagonalisable to a safe condition number raises `SolverError`
(no silent fallback); use the sparse direct solver then.
"""
from __future__ import annotations

import time
import numpy as np
import scipy.sparse.linalg as spla
from numba import njit

from .bmap_model import BmapModel, Measures, Stationary, measures
from .errors import SolverError
from .validate import require_memory

COND_LIMIT = 1e8  # largest condition number of a factor's eigenvector matrix we accept


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
# Every operation on the obsolescence axes is done axis by axis inside one
# compiled call (no Python loop over axes, no temporaries); axes whose groups
# fit in BLOCK entries are all treated while that block is in cache, so only
# the few outer axes cost a pass over memory each.  Inner loops run over
# contiguous slices (views): those vectorise, loops with computed indices do not.

BLOCK = 4096  # entries (32 KiB of float64) handled in cache for the middle axes
INNER = 16  # the innermost axes (up to INNER entries, e.g. four for R = 2) are one dense R^c x R^c matrix product (BLAS)


@njit(cache=True)
def _inner_span(N, R, block):
    """Largest power of R that divides into N and is <= block: the block of the cache-resident axes."""
    span = 1
    while span * R <= min(N, block):
        span *= R
    return span


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
def kron_power_right(x, P, N, R, A, buf, s0):
    """In place ``x <- x (I_P ⊗ A^{⊗n})`` on the axes of stride >= ``s0`` of ``x`` flat P x R^n (N = R^n)
    (the inner axes, stride < s0, are done by one small dense product: `LevelBlock`)."""
    span = max(_inner_span(N, R, BLOCK), s0)
    for p in range(P):
        row = p * N
        for b in range(row, row + N, span):
            s = s0
            while s * R <= span:
                _axis_right(x, b, b + span, s, R, A, buf)
                s *= R
        s = span
        while s < N:
            _axis_right(x, row, row + N, s, R, A, buf)
            s *= R


@njit(cache=True)
def _axis_sum_add(x, y, lo, hi, s, R, G):
    """``y[lo:hi] += x[lo:hi] (I ⊗ G ⊗ I_s)`` on one axis of stride ``s``."""
    step = R * s
    for g in range(lo, hi, step):
        for a in range(R):
            out = y[g + a * s : g + a * s + s]
            for c in range(R):
                f = G[c, a]
                src = x[g + c * s : g + c * s + s]
                for j in range(s):
                    out[j] += src[j] * f


@njit(cache=True)
def kron_sum_power_add(x, y, P, N, R, G, s0):
    """``y += x (I_P ⊗ G^{⊕n})`` restricted to the axes of stride >= ``s0`` (flat P x R^n vectors): the waiting
    pages' phase changes, diagonal included (the inner axes: one small dense product, `LevelBlock`)."""
    span = max(_inner_span(N, R, BLOCK), s0)
    for p in range(P):
        row = p * N
        for b in range(row, row + N, span):
            s = s0
            while s * R <= span:
                _axis_sum_add(x, y, b, b + span, s, R, G)
                s *= R
        s = span
        while s < N:
            _axis_sum_add(x, y, row, row + N, s, R, G)
            s *= R


@njit(cache=True)
def rows_mix_add(x, y, P, N, C):
    """``y += x (C ⊗ I_N)`` for flat P x N vectors (the arrival and service phases' moves), in cache-sized chunks."""
    for r0 in range(0, N, 1024):
        rl = min(1024, N - r0)
        for a in range(P):
            src = x[a * N + r0 : a * N + r0 + rl]
            for b in range(P):
                f = C[a, b]
                if f != 0.0:
                    dst = y[b * N + r0 : b * N + r0 + rl]
                    for j in range(rl):
                        dst[j] += src[j] * f


@njit(cache=True)
def class_solve(x, P, N, cls, Minv, v):
    """In place ``x[:, r] <- x[:, r] Minv[cls[r]]`` (row convention) for every column r of the flat P x N ``x``."""
    for r in range(N):
        k = cls[r]
        for a in range(P):
            v[a] = x[a * N + r]
        for b in range(P):
            acc = v[0] * Minv[k, 0, b]
            for a in range(1, P):
                acc += v[a] * Minv[k, a, b]
            x[b * N + r] = acc


@njit(cache=True)
def down_add(x, y, W, M, R, n, beta, S0, G0, coef):
    """``y += coef · x Q_{i,i-1}`` for level i = n + 1 >= 2 (x: W̄ x M x R^n, y: W̄ x M x R^(n-1)):
    service completion (the head r_1 enters service, its obsolescence phase
    forgotten, the new service phase drawn from beta) plus obsolescence of the
    buffered page q at rate ``Γ_0[r_q]`` (the axis q removed)."""
    Nout = R ** (n - 1)
    Nin = Nout * R
    done = np.empty(min(Nout, 1024))
    for nu in range(W):
        for r0 in range(0, Nout, 1024):
            rl = min(1024, Nout - r0)
            done[:rl] = 0.0
            for m in range(M):
                f = S0[m]
                for c in range(R):
                    start = (nu * M + m) * Nin + c * Nout + r0
                    src = x[start : start + rl]
                    for j in range(rl):
                        done[j] += src[j] * f
            for m in range(M):
                f = coef * beta[m]
                dst = y[(nu * M + m) * Nout + r0 : (nu * M + m) * Nout + r0 + rl]
                for j in range(rl):
                    dst[j] += done[j] * f
    for q in range(n):
        s = R ** (n - 1 - q)
        for a in range(W * M):
            for hi in range(Nout // s):
                out = y[a * Nout + hi * s : a * Nout + hi * s + s]
                for c in range(R):
                    f = coef * G0[c]
                    start = a * Nin + (hi * R + c) * s
                    src = x[start : start + s]
                    for j in range(s):
                        out[j] += src[j] * f


@njit(cache=True)
def outer_add(y, u, g, coef):
    """``y += coef · u ⊗ g`` (flat): a batch's fresh pages enter with phases distributed as ``g``."""
    L = g.shape[0]
    for p in range(u.shape[0]):
        f = coef * u[p]
        dst = y[p * L : p * L + L]
        for k in range(L):
            dst[k] += f * g[k]


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

    The c innermost obsolescence axes (``R^c <= INNER``) are merged into one factor: ``V^{⊗c}``, ``V^{-1⊗c}`` and
    ``Γ^{⊕c}`` are applied as one dense ``R^c x R^c`` product of the ``(P N / R^c) x R^c`` view; the other axes
    one by one in compiled loops (`kron_power_right`, `kron_sum_power_add`)."""

    def __init__(self, C: np.ndarray, G: np.ndarray, n: int):
        self.C, self.G, self.n = C, G, n
        self.P, self.R = C.shape[0], G.shape[0]
        self.N = self.R**n
        lam, V = _eig(G)
        self.dtype = np.result_type(lam, V, float)
        self.V = np.ascontiguousarray(V, dtype=self.dtype)
        self.Vinv = np.ascontiguousarray(np.linalg.inv(V), dtype=self.dtype)
        c = 0
        while c < n and self.R ** (c + 1) <= INNER:
            c += 1
        self.L = self.R**c  # the merged inner factor's size
        self.V_in = _kron_power(self.V, c)
        self.Vinv_in = _kron_power(self.Vinv, c)
        self.G_in = kron_sum_matrix(G, c)
        self.cls, counts = _classes(n, self.R)
        sigma = counts @ lam
        eye = np.eye(self.P)
        mats = np.array([C + s * eye for s in sigma], dtype=self.dtype)
        cond = np.linalg.cond(mats)
        if not np.all(np.isfinite(cond)) or cond.max() > 1 / (COND_LIMIT * np.finfo(float).eps):
            raise SolverError(f"diagonal block of a level with {n} waiting pages is (nearly) singular: "
                              f"condition {cond.max():.3g}")
        self.Minv = np.ascontiguousarray(np.linalg.inv(mats))
        self.C = np.ascontiguousarray(C, dtype=float)

    def _rows(self, v: np.ndarray) -> np.ndarray:
        return v.reshape(-1, self.L)

    def apply(self, x: np.ndarray, out: np.ndarray) -> None:
        """``out = x Q_{i,i}`` (flat vectors of length P N)."""
        np.matmul(self._rows(x), self.G_in, out=self._rows(out))
        rows_mix_add(x, out, self.P, self.N, self.C)
        if self.L < self.N:
            kron_sum_power_add(x, out, self.P, self.N, self.R, self.G, self.L)

    def solve(self, work: np.ndarray, tmp: np.ndarray, buf: np.ndarray, v: np.ndarray) -> None:
        """In place: ``work <- work Q_{i,i}^{-1}`` (``work``, ``tmp`` of this block's dtype and size; ``buf``, ``v``
        scratch)."""
        np.matmul(self._rows(work), self.V_in, out=self._rows(tmp))
        if self.L < self.N:
            kron_power_right(tmp, self.P, self.N, self.R, self.V, buf, self.L)
        class_solve(tmp, self.P, self.N, self.cls, self.Minv, v)
        if self.L < self.N:
            kron_power_right(tmp, self.P, self.N, self.R, self.Vinv, buf, self.L)
        np.matmul(self._rows(tmp), self.Vinv_in, out=self._rows(work))


def _kron_power(A: np.ndarray, c: int) -> np.ndarray:
    out = np.ones((1, 1), dtype=A.dtype)
    for _ in range(c):
        out = np.kron(out, A)
    return np.ascontiguousarray(out)


def kron_sum_matrix(G: np.ndarray, c: int) -> np.ndarray:
    """``G^{⊕c} = Σ_q I_{R^{q-1}} ⊗ G ⊗ I_{R^{c-q}}`` as a dense ``R^c x R^c`` array (``c = 0``: the 1 x 1 zero)."""
    R = G.shape[0]
    out = np.zeros((1, 1))
    for _ in range(c):
        out = np.kron(out, np.eye(R)) + np.kron(np.eye(out.shape[0]), G)
    return np.ascontiguousarray(out)


class LevelOperators:
    """The blocks of Q as tensor operations on the flat stationary vector (row convention): diagonal blocks
    (`LevelBlock`), down one level (`down_add`) and up by a batch (`outer_add`)."""

    def __init__(self, model: BmapModel, levels):
        self.model, self.levels = model, tuple(levels)
        K, W, M, R = model.K, model.W, model.M, model.R
        self.sizes = [model.level_size(i) for i in range(K + 1)]
        self.cuts = np.cumsum([0] + self.sizes)
        self.n = int(self.cuts[-1])
        self.beta = np.ascontiguousarray(model.service.beta, dtype=float)
        self.S0 = np.ascontiguousarray(model.service.exit, dtype=float)
        self.gam = np.ascontiguousarray(model.obsolescence.beta, dtype=float)
        self.G = np.ascontiguousarray(model.obsolescence.S, dtype=float)
        self.G0 = np.ascontiguousarray(model.obsolescence.exit, dtype=float)
        self.blocks = [LevelBlock(self.diag_C(i), self.G, max(i - 1, 0)) for i in range(K + 1)]
        # batch sizes l that can move level i up (D_l, or the tail for l = K - i), with the fresh-phase vector
        # (beta ⊗ gamma^{⊗(l-1)} from level 0, gamma^{⊗l} above)
        self.ups = [[(l, np.ascontiguousarray(self._D_up(i, l).T), self._fresh(i, l))
                     for l in range(1, K - i + 1) if self._D_up(i, l).any()] for i in range(K + 1)]
        self.dtype = np.result_type(*(b.dtype for b in self.blocks))
        big = max(self.sizes)
        self._u = np.empty(big)
        self._work = np.empty(big, dtype=self.dtype)
        self._tmp = np.empty(big, dtype=self.dtype)
        self._buf = np.empty((R, 256), dtype=self.dtype)
        self._v = np.empty(W * M, dtype=self.dtype)
        self._inflow = np.empty(self.n)

    def level(self, x: np.ndarray, i: int) -> np.ndarray:
        """The level-i piece of a flat vector (a view)."""
        return x[self.cuts[i] : self.cuts[i + 1]]

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
        else:
            down_add(x, y, m.W, m.M, m.R, i - 1, self.beta, self.S0, self.G0, coef)

    def _up(self, i: int, x: np.ndarray, out: np.ndarray, coef: float) -> None:
        """``out_{i+l} += coef · x Q_{i,i+l}`` for every batch size l that moves level i up (``out`` flat, all levels)."""
        W = self.model.W
        u = self._u[: self.sizes[i]]
        for l, Dt, g in self.ups[i]:
            np.matmul(Dt, x.reshape(W, -1), out=u.reshape(W, -1))
            outer_add(self.level(out, i + l), u, g, coef)

    def apply_flat(self, x: np.ndarray, out: np.ndarray) -> None:
        """``out = x Q`` (flat vectors over all states)."""
        for i, blk in enumerate(self.blocks):
            blk.apply(self.level(x, i), self.level(out, i))
        for i in range(len(self.blocks)):
            if i >= 1:
                self._down(i, self.level(x, i), self.level(out, i - 1), 1.0)
            self._up(i, self.level(x, i), out, 1.0)

    def apply(self, xs) -> list:
        """``x Q`` level by level (lists of level vectors)."""
        out = np.empty(self.n)
        self.apply_flat(np.concatenate(xs), out)
        return [self.level(out, i).copy() for i in range(len(self.blocks))]

    def _solve_level(self, i: int, b: np.ndarray, x: np.ndarray) -> None:
        work = self._work[: self.sizes[i]]
        work[:] = b
        self.blocks[i].solve(work, self._tmp[: self.sizes[i]], self._buf, self._v)
        x[:] = work.real if np.iscomplexobj(work) else work

    def precondition(self, rhs: np.ndarray, x: np.ndarray) -> None:
        """One symmetric block Gauss–Seidel sweep for ``x Q = rhs`` from ``x = 0`` (``x`` overwritten): forward,
        level i solves ``x_i Q_ii = rhs_i − (batches in from the levels below, already new)``; backward,
        ``x_i Q_ii = rhs_i − (batches in) − x_{i+1} Q_{i+1,i}``.  Level K's backward solve equals its forward one
        (nothing above it), so it is skipped."""
        K = len(self.blocks) - 1
        inflow = self._inflow
        inflow[:] = 0
        b = self._u  # the up-moves use _u only after a level's solve is finished
        for i in range(K + 1):
            bi = b[: self.sizes[i]]
            np.subtract(self.level(rhs, i), self.level(inflow, i), out=bi)
            self._solve_level(i, bi, self.level(x, i))
            self._up(i, self.level(x, i), inflow, 1.0)
        for i in range(K - 1, -1, -1):
            bi = b[: self.sizes[i]]
            np.subtract(self.level(rhs, i), self.level(inflow, i), out=bi)
            self._down(i + 1, self.level(x, i + 1), bi, -1.0)
            self._solve_level(i, bi, self.level(x, i))


def memory_estimate(model: BmapModel, restart: int) -> float:
    """Bytes `solve_structured` needs: the ``restart + 1`` Krylov vectors, 6 more vectors (iterate, residual,
    matvec and preconditioner outputs, inflow, right-hand side), the level scratch (3 top-level vectors, complex
    when Γ's eigenvalues are) and the eigenvalue-class index (4 bytes per obsolescence column)."""
    n = model.states
    top = model.level_size(model.K)
    columns = sum(model.R ** max(i - 1, 0) for i in range(model.K + 1))
    return 8.0 * n * (restart + 1 + 6) + 16.0 * 3 * top + 4.0 * columns


def gmres_right(matvec, precond, b: np.ndarray, x: np.ndarray, tol: float, restart: int, maxiter: int):
    """Right-preconditioned restarted GMRES for ``A x = b`` (``x`` the start, overwritten): Arnoldi on
    ``A M^{-1}`` with classical Gram–Schmidt done twice (CGS2: two passes of BLAS matrix–vector products over the
    basis instead of one pass per basis vector), Givens rotations for the least-squares problem.  Stops when the
    *true* residual ``||b − A x||_2 <= tol ||b||_2`` (checked at every restart and at the estimated convergence).
    Returns ``(x, iterations, residual norm)``; raises `SolverError` when ``maxiter`` iterations do not suffice
    or the Arnoldi process breaks down before convergence."""
    n = b.size
    V = np.empty((restart + 1, n))
    H = np.zeros((restart + 1, restart))
    target = tol * float(np.linalg.norm(b))
    its = 0
    r = b - matvec(x)
    rnorm = float(np.linalg.norm(r))
    while rnorm > target:
        if its >= maxiter:
            raise SolverError(f"GMRES did not reach the relative residual {tol:g} in {maxiter} iterations "
                              f"(residual {rnorm:.3g} vs target {target:.3g})")
        np.multiply(r, 1 / rnorm, out=V[0])
        g = np.zeros(restart + 1)
        g[0] = rnorm
        cs, sn = np.zeros(restart), np.zeros(restart)
        k = 0
        for k in range(restart):
            w = matvec(precond(V[k]))
            its += 1
            h = V[: k + 1] @ w
            w -= h @ V[: k + 1]
            h2 = V[: k + 1] @ w
            w -= h2 @ V[: k + 1]
            H[: k + 1, k] = h + h2
            H[k + 1, k] = hn = float(np.linalg.norm(w))
            if hn > 0:
                np.multiply(w, 1 / hn, out=V[k + 1])
            for j in range(k):  # earlier rotations on the new column
                a, c = H[j, k], H[j + 1, k]
                H[j, k], H[j + 1, k] = cs[j] * a + sn[j] * c, -sn[j] * a + cs[j] * c
            rho = np.hypot(H[k, k], H[k + 1, k])
            if rho == 0:
                raise SolverError(f"GMRES broke down (zero Hessenberg column) after {its} iterations")
            cs[k], sn[k] = H[k, k] / rho, H[k + 1, k] / rho
            H[k, k], H[k + 1, k] = rho, 0.0
            g[k + 1] = -sn[k] * g[k]
            g[k] *= cs[k]
            if abs(g[k + 1]) <= target or hn == 0 or its >= maxiter:
                break
        y = np.linalg.solve(np.triu(H[: k + 1, : k + 1]), g[: k + 1])
        x += precond(y @ V[: k + 1])
        r = b - matvec(x)
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
    c = np.zeros(n)
    c[: ops.sizes[0]] = scale
    out_mv, out_pc = np.empty(n), np.empty(n)

    def matvec(v):  # rows -> we work with x^T: (Q + e c)^T x = c^T
        ops.apply_flat(v, out_mv)
        out_mv[: ops.sizes[0]] += scale * v.sum()
        return out_mv

    def precond(v):
        ops.precondition(v, out_pc)
        return out_pc

    x, its, _ = gmres_right(matvec, precond, c, np.full(n, 1.0 / n), tol, restart, maxiter)
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
