"""Batched costs for the threshold search of Avrachenkov et al. (seed 000, §7's direct approach): every
candidate's J in one solve (`batched_costs`), from one generator and three weight vectors per robot mode.

>>> from ._optimise import example_model
>>> from ._core import Policy
>>> from ._optimise import evaluate
>>> m = example_model(K=3)
>>> J = batched_costs(m, [(3, 3, 1, 1)])
>>> bool(abs(J[0] - evaluate(m, Policy((3, 1), (1,))).cost) < 1e-9 * J[0])
True
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import scipy.sparse as sps
import scipy.sparse.linalg as spla

from ..errors import InvalidInput, SolverError, TooLarge
from ..tolerance import FLOAT_REL, STRUCTURE_ABS
from ..validate import require_memory
from ._core import BmapModel
from ._stationary import generator_dense
from ._measures import Arith, contracted_vectors


# The row block of level i of Q depends only on chi(i) (`recipe_block` takes the mode of its own level), and every measure of
# `measures` is a linear functional of p whose weights on level i depend only on chi(i), or on nothing.  So the chains of all
# candidates are assembled from N precomputed generators (one per mode) by picking, state by state, the row of the state's
# mode, and J follows from three weight vectors per mode.

BATCH_STATE_LIMIT = 600  # chains solved by the batched dense route ('auto' solves these densely too)
BATCH_CHUNK_BYTES = 48 * 2**20  # working memory of one chunk of the batched solve


def level_weights(model: BmapModel, i: int, r: int) -> dict:
    """Weight vectors over the states of level i, with r robots active there, of the rates behind every measure of
    `measures`: the measure's rate is ``sum_i p_i · w(i, chi(i))``.

    - ``p_star``: ``e`` on level 0 (``P_* = p_0 e``), 0 elsewhere;
    - ``n_act``: ``r e`` (``N_act = sum_i chi(i) p_i e``);
    - ``lam``: ``sum_k k D_k^(r) e ⊗ e`` (eq. 9);
    - ``loss``: ``sum_k max(k - (K - i), 0) D_k^(r) e ⊗ e`` (pages of a batch beyond the free places);
    - ``success``: ``e_W̄ ⊗ S_0 ⊗ e`` (i >= 1, service completions);
    - ``obs``: ``sum_{q=1}^{i-1} e ⊗ Γ_0 (at buffer position q) ⊗ e`` (eq. 14's rate);
    - ``h1, g1, h2, g2``: the tagged-page rates (Corollary 1): a batch of size >= l arriving to i < K pages places its l-th
      page t = i + l - 1 pages ahead, weight ``sum_l (sum_{k>=l} D_k^(r) e) ⊗ c_{i,l}`` with ``c_{i,l}`` from `contracted_vectors`.

    ``lam``, ``loss`` and the tagged-page rates depend on r through ``D^(r)``, ``n_act`` through r, the others not at all.
    Then ``lam P_loss = p·loss``, ``lam P_obs = p·obs``, ``lam P_success = p·success``, ``V1 = p·g1 / p·h1`` and
    ``V2 = p·g2 / p·h2``."""
    K, W = model.K, model.W
    n = model.level_size(i)
    rest = n // W

    def per_nu(v):  # a vector over nu, constant over the other coordinates of the level
        return np.repeat(v, rest)

    De = _batch_rates_e(model, r)
    w = {"p_star": np.full(n, float(i == 0)), "n_act": np.full(n, float(r)),
         "lam": per_nu(sum(k * De[k] for k in range(1, model.kmax + 1))),
         "loss": per_nu(sum((max(k - (K - i), 0) * De[k] for k in range(1, model.kmax + 1)), np.zeros(W)))}
    S0, M = model.service.exit, model.M
    w["success"] = np.zeros(n) if i == 0 else np.broadcast_to(S0.reshape(1, M, 1), (W, M, rest // M)).reshape(-1).copy()
    w["obs"] = model.memo(("obs weight", i), lambda: _obs_weight(model, i)).copy()
    tagged = np.zeros((n, 4))
    if i < K:
        contracted = model.memo("contracted", lambda: contracted_vectors(model, Arith(False), None))
        for l in range(1, min(K - i, model.kmax) + 1):
            u = _batches_at_least(model, r, l)
            c = contracted[(i, l)]
            tagged += (u.reshape(W, 1, 1) * (c.reshape(1, 1, 4) if i == 0 else c.reshape(1, rest, 4))).reshape(n, 4)
    w.update(zip(("h1", "g1", "h2", "g2"), tagged.T.copy()))
    return w


def _obs_weight(model: BmapModel, i: int) -> np.ndarray:
    """``sum_{q=1}^{i-1} e ⊗ Γ_0 (at buffer position q) ⊗ e`` over level i (the same for every mode: `level_weights`
    caches it, a level costs i numpy operations)."""
    W, M, R, n = model.W, model.M, model.R, model.level_size(i)
    G0 = model.obsolescence.exit
    out = np.zeros(n)
    for q in range(i - 1):  # the buffered page at position q + 1 becomes obsolete
        out += np.broadcast_to(G0.reshape(1, R, 1), (W * M * R**q, R, n // (W * M * R ** (q + 1)))).reshape(-1)
    return out


def _batch_rates_e(model: BmapModel, r: int) -> list:
    """``[D_k^(r) e for k = 0..kmax]`` (cached on the model: `level_weights` reads them at every level)."""
    return model.memo(("D e", r), lambda: [model.D(r, k).sum(axis=1) for k in range(model.kmax + 1)])


def _batches_at_least(model: BmapModel, r: int, l: int) -> np.ndarray:
    """``sum_{k >= l} D_k^(r) e``, the rate of batches of size >= l per arrival phase (cached on the model)."""
    De = _batch_rates_e(model, r)
    return model.memo(("D e >=", r, l), lambda: sum(De[k] for k in range(l, model.kmax + 1)))


def cost_weights(model: BmapModel, i: int, r: int) -> np.ndarray:
    """Columns ``(a_lin, g1, h1)`` over level i with r robots, such that eq. (2) reads
    ``J = p·a_lin + a (p·g1)/(p·h1)`` with ``a_lin = c_loss loss + c_obs obs + c_rob n_act + c_star p_star`` (`level_weights`;
    ``lam P_loss`` is the loss rate, ``lam P_obs`` the obsolescence rate and ``V1 = E[T; served]/E[1; served]``)."""
    w, c = level_weights(model, i, r), model.costs
    a_lin = c.c_loss * w["loss"] + c.c_obs * w["obs"] + c.c_rob * w["n_act"] + c.c_star * w["p_star"]
    return np.stack([a_lin, w["g1"], w["h1"]], axis=1)


@dataclass(frozen=True)
class ModeTables:
    """Per mode r = 1..N: ``Q[r-1]``, the generator with r robots at every level (its level-i rows are the rows of any
    policy with chi(i) = r), and ``weights[r-1]`` (n x 3), the `cost_weights` stacked over the levels; ``level`` the level
    of each state.  ``rows``, ``cols``, ``indptr``: the CSR pattern (row-major) of the union of the ``Q[r-1]`` and the
    last column, where any policy's Q, and Q with its last column replaced by e, have their non-zeros."""

    Q: np.ndarray
    weights: np.ndarray
    level: np.ndarray
    rows: np.ndarray
    cols: np.ndarray
    indptr: np.ndarray


def mode_tables(model: BmapModel) -> ModeTables:
    """The `ModeTables` of the model (built once, cached on it)."""
    def build():
        K, N = model.K, model.N
        Q = np.stack([generator_dense(model, (r,) * (K + 1)) for r in range(1, N + 1)])
        weights = np.stack([np.concatenate([cost_weights(model, i, r) for i in range(K + 1)]) for r in range(1, N + 1)])
        level = np.repeat(np.arange(K + 1), [model.level_size(i) for i in range(K + 1)])
        union = (Q != 0).any(axis=0)
        union[:, -1] = True
        rows, cols = np.nonzero(union)
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=len(union)))])
        return ModeTables(Q, weights, level, rows, cols, indptr)

    return model.memo("mode tables", build)


def batched_costs(model: BmapModel, level_vectors: Sequence[Sequence[int]]) -> np.ndarray:
    """J (eq. 2) of every policy in ``level_vectors`` (each ``(chi(0), ..., chi(K))``), float64, by one batched dense solve.

    Candidate b's generator ``Q_b`` takes the row of each state from ``Q[chi_b(level)]`` (`mode_tables`); ``p_b`` solves
    ``Q_b^T`` with its last equation replaced by ``p e = 1``, as in `solve_sparse_direct`, for a chunk of candidates at
    once (`_solve_batch`; chunks of ``BATCH_CHUNK_BYTES``).  Each p_b passes the gate of the direct
    solvers (finite, ``p >= -STRUCTURE_ABS``, ``p e = 1`` within ``STRUCTURE_ABS``, ``max|p Q_b| <= FLOAT_REL max(1,
    max|Q_b|)``), or `SolverError` names the candidate.  Then ``J_b = p_b·a_lin + a (p_b·g1)/(p_b·h1)`` (`cost_weights`).
    Values are cached on the model per level vector."""
    n = model.states
    if n > BATCH_STATE_LIMIT:
        raise TooLarge("K", f"the batched dense solve is limited to {BATCH_STATE_LIMIT} states (this chain has {n})", value=model.K)
    known = model.memo("batched J", dict)
    todo = list(dict.fromkeys(tuple(lv) for lv in level_vectors if tuple(lv) not in known))
    if todo:
        check_level_vectors(model, todo)
        tabs = mode_tables(model)
        # dense: Q_b, its transposed copy and |Q_b|; sparse: Q_b and its copy on the pattern; both: p_b and the weights
        per = (3 * 8 * n * n if n <= BATCH_LAPACK_STATES else 3 * 8 * tabs.rows.size) + 8 * 8 * n
        size = min(len(todo), max(1, BATCH_CHUNK_BYTES // per))
        require_memory(size * per, "K", f"the batched dense solve ({size} candidates of {n} states at once)", value=model.K)
        for s in range(0, len(todo), size):
            chunk = todo[s : s + size]
            known.update(zip(chunk, _chunk_costs(model, tabs, chunk)))
    return np.array([known[tuple(lv)] for lv in level_vectors])


def check_level_vectors(model: BmapModel, vectors: list) -> None:
    """Each level vector has K + 1 robot counts in 1..N (`InvalidInput` naming the first that does not)."""
    def fits(lv) -> bool:
        return len(lv) == model.K + 1 and all(isinstance(r, (int, np.integer)) and not isinstance(r, bool) and 1 <= r <= model.N
                                              for r in lv)

    if all(len(lv) == model.K + 1 for lv in vectors):
        arr = np.asarray(vectors)
        if arr.dtype.kind in "iu" and arr.min() >= 1 and arr.max() <= model.N:
            return
    k = next(k for k, lv in enumerate(vectors) if not fits(lv))
    raise InvalidInput("level_vectors", f"each must hold K + 1 = {model.K + 1} robot counts in 1..{model.N}", value=vectors[k], entry=k)


def _chunk_costs(model: BmapModel, tabs: ModeTables, chunk: list) -> np.ndarray:
    """J of the level vectors ``chunk`` (see `batched_costs`)."""
    modes = np.asarray(chunk, dtype=np.intp)[:, tabs.level] - 1  # (b, n): the mode of every state
    solve = _solve_batch_dense if model.states <= BATCH_LAPACK_STATES else _solve_batch_sparse
    p, residual, scale = solve(tabs, modes, chunk)
    ok = (np.isfinite(p).all(axis=1) & (p.min(axis=1) >= -STRUCTURE_ABS) & (np.abs(p.sum(axis=1) - 1) <= STRUCTURE_ABS)
          & (residual <= FLOAT_REL * scale))
    if not ok.all():
        b = int(np.flatnonzero(~ok)[0])
        raise SolverError(f"batched dense solve, levels {chunk[b]}: not a stationary vector (min p {p[b].min()!r}, "
                          f"sum {p[b].sum()!r}, residual max|pQ| = {residual[b]:.3g} against max|Q| = {scale[b]:.3g})")
    s = np.einsum("bs,bsk->bk", p, tabs.weights[modes, np.arange(model.states)])
    return s[:, 0] + model.costs.a * s[:, 1] / s[:, 2]


# OpenBLAS factors an n x n system on one thread while n^2 < 10000 (its getrf/gesv threshold); above, its threads slow the
# solve 10-100x when the cores are shared (measured: 0.2 ms -> 3-27 ms per 122-state system), so larger systems go to SuperLU
BATCH_LAPACK_STATES = 99


def _solve_batch_dense(tabs: ModeTables, modes: np.ndarray, chunk: list) -> tuple:
    """``(p, max|p Q_b|, max(1, max|Q_b|))`` per candidate: ``Q_b`` assembled densely (row s from ``Q[mode of s]``) and
    ``Q_b^T``, last equation replaced by ``p e = 1``, solved by one ``np.linalg.solve`` on the (b, n, n) array."""
    b, n = modes.shape
    Q = tabs.Q[modes, np.arange(n)]
    A = np.swapaxes(Q, 1, 2).copy()
    A[:, -1, :] = 1.0
    e = np.zeros((1, n, 1))
    e[0, -1] = 1.0
    try:
        p = np.linalg.solve(A, np.broadcast_to(e, (b, n, 1)))[..., 0]
    except np.linalg.LinAlgError:
        bad = next((chunk[k] for k in range(b) if np.linalg.matrix_rank(A[k]) < n), f"one of {chunk}")
        raise SolverError(f"batched dense solve: the generator of levels {bad} is singular (a reducible chain?)") from None
    return p, np.abs(np.einsum("bs,bst->bt", p, Q)).max(axis=1), np.maximum(1.0, np.abs(Q).max(axis=(1, 2)))


def _solve_batch_sparse(tabs: ModeTables, modes: np.ndarray, chunk: list) -> tuple:
    """As `_solve_batch_dense`, by SuperLU system by system (single-threaded) on the pattern of `ModeTables`: the CSR
    arrays of ``Q_b`` with its last column replaced by e are the CSC arrays of ``Q_b^T`` with its last row replaced."""
    b, n = modes.shape
    vals = tabs.Q[modes[:, tabs.rows], tabs.rows, tabs.cols]  # (b, nnz): Q_b on the pattern
    data = vals.copy()
    data[:, tabs.cols == n - 1] = 1.0
    e = np.zeros(n)
    e[-1] = 1.0
    p = np.empty((b, n))
    for k in range(b):
        try:
            p[k] = spla.splu(sps.csc_matrix((data[k], tabs.cols, tabs.indptr), shape=(n, n))).solve(e)
        except RuntimeError:
            raise SolverError(f"batched dense solve: the generator of levels {chunk[k]} is singular (a reducible chain?)") from None
    flow = sps.csr_matrix((np.ones(tabs.cols.size), (np.arange(tabs.cols.size), tabs.cols)), shape=(tabs.cols.size, n))
    residual = np.abs((p[:, tabs.rows] * vals) @ flow).max(axis=1)  # (p_b Q_b)_j = sum over the pattern of column j
    return p, residual, np.maximum(1.0, np.abs(vals).max(axis=1))
