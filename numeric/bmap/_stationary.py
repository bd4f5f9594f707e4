"""Stationary distribution of the chain of Avrachenkov et al. (seed 000, §4): sparse LU, dense GTH, block
recursion over the levels, and the QBD route; each returns a `Stationary` with its residual.

>>> from ._optimise import example_model
>>> m = example_model(K=3)
>>> st = solve_sparse_direct(m, (3, 3, 1, 1))
>>> round(float(st.flat.sum()), 12), st.residual < 1e-12
(1.0, True)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import scipy.sparse as sps
import scipy.sparse.linalg as spla
from scipy.sparse import csgraph

from ..errors import InvalidInput, SolverError, TooLarge
from ..markov._ctmc import ctmc_stationary
from ..tolerance import FLOAT_REL, STRUCTURE_ABS
from ._core import BmapModel
from ._generator import block_columns, generator_kronecker, kronecker_blocks, recipe_block


@dataclass(frozen=True)
class Stationary:
    """Stationary vector split by level, and how it was obtained."""

    p: tuple  # p[i]: level-i probability vector
    method: str
    residual: float  # max |p Q| (computed by the caller's generator or matrix-free)
    iterations: int = 0
    seconds: float = 0.0

    @property
    def flat(self) -> np.ndarray:
        """The stationary vector p = (p_0, ..., p_K) as one array."""
        return np.concatenate(self.p)


DIRECT_LIMIT = 300_000


def _gated(st: Stationary, Q) -> Stationary:
    """Result gate of the direct solvers: p finite, p >= 0 and p e = 1 up to
    rounding (``STRUCTURE_ABS``), and max|pQ| within ``FLOAT_REL`` of the
    generator's largest rate (``not res <= tol``, so nan fails).  A singular
    or ill-conditioned system raises `SolverError` instead of a silent answer."""
    x = st.flat
    scale = max(1.0, float(abs(Q).max()))
    if not (np.all(np.isfinite(x)) and x.min() >= -STRUCTURE_ABS and abs(float(x.sum()) - 1) <= STRUCTURE_ABS):
        raise SolverError(f"{st.method}: the stationary vector is not a probability vector (min {x.min()!r}, sum {x.sum()!r})")
    if not st.residual <= FLOAT_REL * scale:
        raise SolverError(f"{st.method}: residual max|pQ| = {st.residual:.3g} above {FLOAT_REL:g} x max|Q| = {scale:.3g}")
    return st


def split_levels(model: BmapModel, x) -> tuple:
    """Split a flat vector over the chain's states into its K + 1 level pieces (p_0, ..., p_K)."""
    out, start = [], 0
    for i in range(model.K + 1):
        n = model.level_size(i)
        out.append(x[start : start + n])
        start += n
    return tuple(out)


LARGE_DIRECT = 2000  # states from which `solve_sparse_direct` orders by minimum degree on A^T + A


def solve_sparse_direct(model: BmapModel, levels: Sequence[int], Q=None) -> Stationary:
    """Sparse LU (SuperLU) of ``Q^T`` with the last equation replaced by ``p e = 1``."""
    if model.states > DIRECT_LIMIT:
        raise TooLarge("K", f"sparse direct solve limited to {DIRECT_LIMIT} states", value=model.K)
    Q = generator_kronecker(model, levels) if Q is None else Q
    n = Q.shape[0]
    A = sps.lil_matrix(Q.T)
    A[n - 1, :] = np.ones(n)
    b = np.zeros(n)
    b[-1] = 1
    # The row of ones is dense: on chains of thousands of states COLAMD (SuperLU's default) orders it into ~2.8x the time
    # of a minimum-degree ordering of A^T + A (K = 10, 4094 states: 4.8 s against 1.7 s, the same p to 4e-13 relative)
    spec = "MMD_AT_PLUS_A" if n >= LARGE_DIRECT else "COLAMD"
    x = spla.spsolve(sps.csc_matrix(A), b, permc_spec=spec)
    return _gated(Stationary(split_levels(model, x), "sparse-direct (SuperLU)", float(np.abs(Q.T @ x).max())), Q)


def generator_dense(model: BmapModel, levels: Sequence[int]) -> np.ndarray:
    """Q as a dense array from the Lemma's blocks built densely (`recipe_block`, cached); for small models."""
    sizes = [model.level_size(i) for i in range(model.K + 1)]
    off = np.concatenate([[0], np.cumsum(sizes)])
    Q = np.zeros((off[-1], off[-1]))
    for i in range(model.K + 1):
        for j in block_columns(model, i):
            blk = model.memo(("Q dense", levels[i], i, j), lambda i=i, j=j: recipe_block(model, levels[i], i, j, dense=True))
            Q[off[i] : off[i + 1], off[j] : off[j + 1]] = blk
    return Q


def solve_dense(model: BmapModel, levels: Sequence[int]) -> Stationary:
    """p by the GTH elimination (`crawlmath.numeric.markov._ctmc.ctmc_stationary`) of the dense-assembled generator restricted to
    its closed class (small models); p = 0 on the other states (phases that nothing enters, e.g. of a PH representation
    whose β and S never reach a phase).

    GTH subtracts nothing, so p >= 0 and every entry, however small, has full relative accuracy: the top levels of a
    long buffer (p ~ 1e-28 at K = 70 in the §7 example) and P_loss with them.  An LU solve leaves such entries at
    ±1e-17 absolute, and P_loss printed as -1.8e-17."""
    if model.states > 3000:
        raise TooLarge("K", "dense solve limited to 3000 states", value=model.K)
    Q = generator_dense(model, levels)
    keep = closed_class(Q)
    st = ctmc_stationary(Q[np.ix_(keep, keep)])
    x = np.zeros(Q.shape[0])
    x[keep] = st.pi
    method = f"ctmc_stationary ({st.method}) of the dense-assembled generator, {keep.size} recurrent states"
    return _gated(Stationary(split_levels(model, x), method, float(np.abs(x @ Q).max())), Q)


def closed_class(Q: np.ndarray) -> np.ndarray:
    """The states of the only closed communicating class of the generator Q (sorted indices); `SolverError` when there
    are several (no unique stationary vector).  The other states are transient: p = 0 there."""
    rates = sps.csr_matrix((Q > 0) & ~np.eye(Q.shape[0], dtype=bool))
    count, label = csgraph.connected_components(rates, directed=True, connection="strong")
    if count == 1:
        return np.arange(Q.shape[0])
    rows, cols = rates.nonzero()
    leaving = np.unique(label[rows[label[rows] != label[cols]]])
    closed = np.setdiff1d(np.arange(count), leaving)
    if closed.size != 1:
        first = [int(np.flatnonzero(label == c)[0]) for c in closed]
        raise SolverError(f"the chain has {closed.size} closed classes (containing states {first}): its stationary vector is not unique")
    return np.flatnonzero(label == closed[0])


def solve_block_recursion(model: BmapModel, levels: Sequence[int]) -> Stationary:
    """The algorithm of §3 (from [9]): matrices G_i by backward recursion,
    censored blocks Q̄_{i,l}, F_l, then p_0 and p_i = p_0 F_i.  Dense blocks."""
    if model.states > 20_000:
        raise TooLarge("K", "dense block recursion limited to 20000 states", value=model.K)
    K = model.K
    Qb = {k: v.toarray() for k, v in kronecker_blocks(model, levels).items()}
    Z = lambda i, j: Qb.get((i, j), np.zeros((model.level_size(i), model.level_size(j))))  # noqa: E731
    G: dict[int, np.ndarray] = {}
    prod: dict[tuple[int, int], np.ndarray] = {}  # prod[(a, b)] = G_{a-1} ... G_b : level a -> level b

    def chain(top: int, bottom: int) -> np.ndarray:
        if (top, bottom) not in prod:
            prod[(top, bottom)] = G[top - 1] if top - 1 == bottom else G[top - 1] @ chain(top - 1, bottom)
        return prod[(top, bottom)]

    for i in range(K - 1, -1, -1):
        T = -Z(i + 1, i + 1)
        for l in range(1, K - i):
            T -= Z(i + 1, i + 1 + l) @ chain(i + 1 + l, i + 1)
        G[i] = np.linalg.solve(T, Z(i + 1, i))
    Qbar: dict[tuple[int, int], np.ndarray] = {}
    for l in range(K, -1, -1):
        for i in range(0, l + 1):
            Qbar[(i, l)] = Z(i, l) if l == K else Z(i, l) + Qbar[(i, l + 1)] @ G[l]
    F = [np.eye(model.W)]
    for l in range(1, K + 1):
        acc = sum(F[i] @ Qbar[(i, l)] for i in range(l))
        F.append(np.linalg.solve(-Qbar[(l, l)].T, acc.T).T)
    return _from_level_zero(model, levels, Qbar[(0, 0)], F, "block recursion (§3)")


def _from_level_zero(model: BmapModel, levels: Sequence[int], boundary: np.ndarray, F: list, method: str) -> Stationary:
    """Finish a level recursion p_l = p_0 F_l: p_0 solves p_0 boundary = 0
    with sum_l p_0 F_l e = 1 (the stacked system is consistent, so its
    least-squares solution is exact); the residual max|pQ| is reported."""
    A = np.vstack([boundary.T, sum(f.sum(axis=1) for f in F)])
    b = np.zeros(model.W + 1)
    b[-1] = 1
    p0, *_ = np.linalg.lstsq(A, b, rcond=None)
    if not float(np.abs(A @ p0 - b).max()) <= FLOAT_REL * max(1.0, float(np.abs(A).max())):
        raise SolverError(f"{method}: the level-0 system is inconsistent (least-squares residual "
                          f"{float(np.abs(A @ p0 - b).max()):.3g}); the recursion lost accuracy")
    p = tuple([p0] + [p0 @ f for f in F[1:]])
    Q = generator_kronecker(model, levels)
    return _gated(Stationary(p, method, float(np.abs(np.concatenate(p) @ Q).max())), Q)


def solve_qbd(model: BmapModel, levels: Sequence[int]) -> Stationary:
    """The QBD recursion of §6 (single arrivals only)."""
    if model.kmax > 1:
        raise InvalidInput("arrivals", "the QBD recursion of §6 needs D_k = 0 for k >= 2", value=model.kmax)
    K = model.K
    Qb = {k: v.toarray() for k, v in kronecker_blocks(model, levels).items()}
    G = {K - 1: np.linalg.solve(-Qb[(K, K)], Qb[(K, K - 1)])}
    for i in range(K - 2, -1, -1):
        G[i] = np.linalg.solve(-(Qb[(i + 1, i + 1)] + Qb[(i + 1, i + 2)] @ G[i + 1]), Qb[(i + 1, i)])
    F = [np.eye(model.W)]
    for i in range(1, K + 1):
        T = Qb[(i, i)] + (Qb[(i, i + 1)] @ G[i] if i < K else 0)
        F.append(np.linalg.solve(-T.T, (F[-1] @ Qb[(i - 1, i)]).T).T)
    return _from_level_zero(model, levels, Qb[(0, 0)] + Qb[(0, 1)] @ G[0], F, "QBD recursion (§6)")
