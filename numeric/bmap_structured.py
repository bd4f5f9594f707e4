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


def _contract(t: np.ndarray, v: np.ndarray, k: int) -> np.ndarray:
    """``sum_c v[c] t[.., c, ..]`` over axis k (strided views, no transposed copies)."""
    idx = [slice(None)] * t.ndim
    idx[k] = 0
    out = v[0] * t[tuple(idx)]
    for c in range(1, t.shape[k]):
        idx[k] = c
        out += v[c] * t[tuple(idx)]
    return out


class LevelOperators:
    """The blocks of Q as tensor operations on level vectors (row convention)."""

    def __init__(self, model: BmapModel, levels):
        self.model, self.levels = model, tuple(levels)
        K, W, M, R = model.K, model.W, model.M, model.R
        # one obsolescence phase (e.g. after lumping): the i - 1 identical 1x1
        # factors fold into S, so a level has two axes whatever K (numpy
        # allows at most 64 axes; one per page would break at K = 65)
        self.fold = R == 1
        self.dims = [(W,)] + [(W, M) + ((R,) * (i - 1) if not self.fold else ()) for i in range(1, K + 1)]
        self.beta = model.service.beta
        self.S, self.S0 = model.service.S, model.service.exit
        self.gam, self.G, self.G0 = model.obsolescence.beta, model.obsolescence.S, model.obsolescence.exit
        self.solvers = [KronSumSolver([f.T for f in self.diag_factors(i)]) for i in range(K + 1)]
        # batch sizes l that can move level i up (D_l, or the tail for l = K - i, non-zero)
        self.ups = [[l for l in range(1, K - i + 1) if self._D_up(i, l).any()] for i in range(K + 1)]

    def _D_up(self, i: int, l: int) -> np.ndarray:
        m, r = self.model, self.levels[i]
        return m.D(r, l) if i + l < m.K else m.D_tail(r, l)

    def diag_factors(self, i: int):
        """The Kronecker-sum factors of the diagonal block of level i: [D] at i = 0, else [D, S, Γ, ..., Γ] (i − 1 Γ's;
        one folded factor S + (i − 1)Γ I when R = 1), with D = D_0^(r) below K and D(1) at i = K.
        """
        m, r = self.model, self.levels[i]
        D = m.D(r, 0) if i < m.K else m._D[r - 1].sum(axis=0)
        if i == 0:
            return [D]
        if self.fold:
            return [D, self.S + (i - 1) * self.G[0, 0] * np.eye(self.S.shape[0])]
        return [D, self.S] + [self.G] * (i - 1)

    def diag_apply(self, i: int, x: np.ndarray) -> np.ndarray:
        """``x Q_{i,i}``."""
        t = x.reshape(self.dims[i])
        out = 0
        for k, F in enumerate(self.diag_factors(i)):
            out = out + mode_product(t, F.T, k)
        return out.reshape(-1)

    def up(self, i: int, l: int, x: np.ndarray) -> np.ndarray:
        """``x Q_{i,i+l}`` (a batch of size l accepted; l = K - i takes the tail)."""
        t = mode_product(x.reshape(self.dims[i]), self._D_up(i, l).T, 0)
        if i == 0:
            t = np.multiply.outer(t, self.beta)
            l -= 1
        if self.fold:
            return (t * self.gam[0] ** l).reshape(-1)
        for _ in range(l):
            t = np.multiply.outer(t, self.gam)
        return t.reshape(-1)

    def down(self, i: int, x: np.ndarray) -> np.ndarray:
        """``x Q_{i,i-1}``: service completion or one buffered page obsolete."""
        t = x.reshape(self.dims[i])
        if i == 1:
            return t @ self.S0
        if self.fold:  # service completion, or any of the i - 1 waiting pages obsolete
            return (np.multiply.outer(t @ self.S0, self.beta) + (i - 1) * self.G0[0] * t).reshape(-1)
        served = _contract(t, self.S0, 1).sum(axis=1)  # (nu, r_2..): the head of the buffer enters service
        out = np.multiply.outer(served, self.beta)
        out = np.moveaxis(out, -1, 1)
        for q in range(i - 1):
            out += _contract(t, self.G0, 2 + q)
        return out.reshape(-1)

    def apply(self, xs) -> list:
        """``x Q`` level by level."""
        K = self.model.K
        out = [self.diag_apply(i, xs[i]) for i in range(K + 1)]
        for i in range(K + 1):
            if i >= 1:
                out[i - 1] = out[i - 1] + self.down(i, xs[i])
            for l in self.ups[i]:
                out[i + l] = out[i + l] + self.up(i, l, xs[i])
        return out

    def gauss_seidel(self, rhs, xs) -> list:
        """One forward then one backward block Gauss–Seidel sweep for ``x Q = rhs``:
        level i solves ``x_i Q_ii = rhs_i - (flow in from other levels)``."""
        K = self.model.K
        xs = list(xs)
        inflow = [np.zeros_like(rhs[i]) for i in range(K + 1)]
        for i in range(K + 1):  # forward: batches from the levels below are already new
            b = rhs[i] - inflow[i] - (self.down(i + 1, xs[i + 1]) if i < K else 0)
            xs[i] = self.solvers[i].solve(b)
            for l in self.ups[i]:
                inflow[i + l] += self.up(i, l, xs[i])
        for i in range(K, -1, -1):  # backward: departures from the level above are new
            b = rhs[i] - inflow[i] - (self.down(i + 1, xs[i + 1]) if i < K else 0)
            xs[i] = self.solvers[i].solve(b)
        return xs


def solve_structured(model: BmapModel, levels, tol: float = 1e-14, maxiter: int = 500, restart: int = 40) -> Stationary:
    """Stationary vector by preconditioned GMRES on the matrix-free operator."""
    t0 = time.perf_counter()
    # GMRES keeps restart + 1 Krylov vectors; the preconditioner and the
    # operator a few more level-sized tensors
    require_memory(8.0 * model.states * (restart + 12), "K", f"the matrix-free solve of {model.states} states", value=model.K)
    ops = LevelOperators(model, levels)
    sizes = [int(np.prod(d)) for d in ops.dims]
    n = sum(sizes)
    cuts = np.cumsum([0] + sizes)
    split = lambda v: [v[cuts[i] : cuts[i + 1]] for i in range(len(sizes))]  # noqa: E731
    # x (Q + e c) = c with c the indicator of level 0 scaled to the rates
    scale = float(np.abs(model.D(levels[0], 0)).max())
    c = np.zeros(n)
    c[: sizes[0]] = scale

    def matvec(v):  # rows -> we work with x^T: (Q + e c)^T x = c^T
        out = np.concatenate(ops.apply(split(v)))
        return out + c * v.sum()

    zero = [np.zeros(s) for s in sizes]

    def precond(v):
        return np.concatenate(ops.gauss_seidel(split(v), zero))

    A = spla.LinearOperator((n, n), matvec=matvec, dtype=float)
    P = spla.LinearOperator((n, n), matvec=precond, dtype=float)
    count = [0]

    def cb(_):
        count[0] += 1

    x0 = np.full(n, 1.0 / n)
    x, info = spla.gmres(A, c, x0=x0, M=P, rtol=tol, atol=0, restart=restart, maxiter=maxiter, callback=cb, callback_type="pr_norm")
    if info != 0:
        raise SolverError(f"GMRES did not converge (info={info}) after {count[0]} iterations")
    x = x / x.sum()
    res = float(np.abs(np.concatenate(ops.apply(split(x)))).max())
    return Stationary(tuple(split(x)), "structured GMRES + block Gauss–Seidel (matrix-free)", res, count[0], time.perf_counter() - t0)


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
