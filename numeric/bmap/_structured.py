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
  (`apply_pull`, in ``_structured_pull``): each run of 32 outputs is summed in 8-lane vector registers
  (`crawlmath.numeric.linalg._lanes`: SIMD, or plain with ``CRAWLMATH_SIMD=0``) from everything it depends on (the diagonal block, the exits from the
  level above, the batches from the levels below) and stored once; the few levels
  below those are one small sparse matrix (`LevelOperators._plain_corner`).
  Otherwise level by level: `level_apply` (diagonal block, diagonal hoisted, axis
  by axis in cache-sized blocks), `down_add` (all axes in one sweep), `up_add`
  (each batch size).  `LevelOperators.matvec_flops` counts their floating-point
  operations;
- the stationary equations are solved by GMRES on ``x (Q + e c) = c`` (a rank-one
  change that fixes ``x e = 1``; `gmres_right` in `crawlmath.numeric.linalg._gmres`, its basis orthogonalised by classical
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

>>> F1, F2 = np.array([[-2.0, 1.0], [0.5, -1.5]]), np.array([[-1.0, 0.2], [0.3, -0.9]])
>>> b = np.arange(1.0, 5.0)
>>> y = KronSumSolver([F1, F2]).solve(b)  # (F1 ⊕ F2) y = b by the factors' eigendecompositions
>>> bool(np.allclose((np.kron(F1, np.eye(2)) + np.kron(np.eye(2), F2)) @ y, b, rtol=0, atol=1e-12))
True
"""
from __future__ import annotations

import time
from dataclasses import replace

import numpy as np
import scipy.sparse as sps

from ._core import BmapModel
from ._measures import Measures, measures
from ._stationary import Stationary
from ..errors import SolverError
from ..tolerance import BMAP_GMRES_REL
from ..linalg._gmres import gmres_right, work_array
from ._structured_kernels import (BLOCK_APPLY, BLOCK_SOLVE, CLASS_CHUNK, CORNER_COLUMNS, GATHER, INNER_APPLY, INNER_DOWN,
                                  PULL_RUN, power_at_most, apply_span, down_add, level_apply, level_solve, up_add)
from ._structured_pull import apply_pull, down_add_pull
from ..validate import require_memory

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
        self.span = power_at_most(self.R, min(self.N, BLOCK_SOLVE))  # `level_solve`'s column block
        outer_segments = self.N // self.span
        self.w = power_at_most(self.R, min(self.span, max(1, GATHER // (self.P * outer_segments))))
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
        span = apply_span(self.N, self.R, self.L_apply, block)
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
        W, K = self.model.W, self.model.K
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
            span = int(apply_span(N, R, L, blk.block))
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


def solve_structured(model: BmapModel, levels, tol: float = BMAP_GMRES_REL, maxiter: int = 500, restart: int = 40) -> Stationary:
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
    t0 = time.perf_counter()
    st = solve_structured(model, levels)
    m = measures(model, levels, st, A_solve=tagged_solver(model))
    return replace(m, seconds=time.perf_counter() - t0)
