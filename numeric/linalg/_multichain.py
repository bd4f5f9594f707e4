"""The one multichain policy evaluator: closed classes, gains and a bias of a pure stationary policy.

For the matrix P of a policy and its one-step costs c (Puterman 1994, §9.1), :class:`PolicySystem` factorises

    g(s) = Σ_j P(s, j) g(j),   g(s) + h(s) = c(s) + Σ_j P(s, j) h(j),   h = 0 at the first state of each closed class

once: per closed class C the bordered system of :func:`bordered_lu` (g constant on C, h on C), then the transient
states T, (I − P_TT) g_T = P_TR g_R and (I − P_TT) h_T = c_T − g_T + P_TR h_R.  Both policy iterations use it: the
crawler MDP's (:func:`crawlmath.numeric.mdp.evaluate_multichain`, thousands of small policies: systems of at most
``dense_max`` states go to compiled dense LU and the transient states to back substitution over their strongly
connected components) and your own MDP's (:func:`crawlmath.numeric.markov.average_cost_mdp`, ``dense_max=0``: SuperLU
throughout, then iterative refinement on :meth:`PolicySystem.solve`).

>>> P = sps.csr_matrix(np.array([[0.9, 0.1, 0.0], [0.8, 0.2, 0.0], [0.5, 0.0, 0.5]]))
>>> g, h = PolicySystem(P).solve(np.zeros(3), np.array([0.0, 1.0, 2.0]))
>>> [round(float(x), 12) for x in g], [round(float(x), 12) for x in h]  # π = (8/9, 1/9) on {0, 1}; state 2 transient
([0.111111111111, 0.111111111111, 0.111111111111], [0.0, 1.111111111111, 3.777777777778])
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import scipy.sparse as sps
import scipy.sparse.csgraph as csgraph
import scipy.sparse.linalg as spla

from ..errors import SolverError
from ..tolerance import STRUCTURE_ABS

# Policy iteration evaluates thousands of policies whose classes have a few dozen states: below this size a class
# (or a strongly connected piece of the transient states) is solved dense (compiled LU), where SuperLU's set-up
# would cost more than the factorisation.
DENSE_MAX = 200


def closed_classes(P: sps.csr_matrix) -> list[np.ndarray]:
    """The closed communicating (recurrent) classes of a stochastic matrix (or of a 0/1 pattern), each sorted.

    >>> [C.tolist() for C in closed_classes(sps.csr_matrix(np.array([[0.5, 0.5, 0], [0, 1.0, 0], [0, 0, 1.0]])))]
    [[1], [2]]
    """
    P = sps.csr_matrix(P)  # no copy for CSR input; the edges are read off indptr/indices without a COO copy
    ncomp, lab = csgraph.connected_components(P, directed=True, connection="strong")
    row = np.repeat(np.arange(P.shape[0]), np.diff(P.indptr))
    leaving = np.zeros(ncomp, dtype=bool)
    m = (lab[row] != lab[P.indices]) & (P.data > 0)
    leaving[lab[row[m]]] = True
    # only the closed components are listed: transient states are often many singleton components
    return [np.flatnonzero(lab == k) for k in np.flatnonzero(~leaving)]


def bordered_lu(sub: sps.spmatrix, ref: int):
    """LU of I − P_C with column ``ref`` replaced by ones: the system
    g + h = c + P_C h with h(ref) = 0, whose unknown in position ``ref`` is g
    (Puterman 1994, §8.2).  SolverError when it is singular.

    >>> round(float(bordered_lu(sps.csr_matrix(np.array([[0.9, 0.1], [0.8, 0.2]])), 0).solve(np.array([0.0, 1.0]))[0]), 12)
    0.111111111111
    """
    n = sub.shape[0]
    A = (sps.identity(n, format="csr") - sps.csr_matrix(sub)).tocoo()
    keep = A.col != ref
    M = sps.csc_matrix((np.concatenate([A.data[keep], np.ones(n)]),
                        (np.concatenate([A.row[keep], np.arange(n)]),
                         np.concatenate([A.col[keep], np.full(n, ref)]))), shape=(n, n))
    try:
        return spla.splu(M)
    except RuntimeError as exc:
        raise SolverError(f"policy evaluation system is singular: {exc}") from None


class PolicySystem:
    """The evaluation equations of the policy matrix ``P`` (module docstring), factorised once.

    ``classes``: the closed classes, each sorted, listed by their first state; ``T``, ``R``: the transient and
    the recurrent states.  Systems of at most ``dense_max`` states (default :data:`DENSE_MAX`) are solved dense.  The strongly connected components of P (Tarjan, :func:`_block_solve_kernels`) give both
    the classes (the components no edge leaves; P keeps only positive entries, so each entry is an edge) and the
    order of the transient solve."""

    def __init__(self, P: sps.csr_matrix, dense_max: int | None = None):
        self.P, self.n = P, P.shape[0]
        dense_max = DENSE_MAX if dense_max is None else dense_max  # read at call time
        order_of, _ = _block_solve_kernels()
        order, start, comp = order_of(P.indptr, P.indices)
        row = np.repeat(np.arange(self.n), np.diff(P.indptr))
        closed = np.ones(start.size - 1, dtype=bool)
        closed[comp[row][comp[row] != comp[P.indices]]] = False
        self.classes = sorted((np.sort(order[start[c]:start[c + 1]]) for c in np.flatnonzero(closed)),
                              key=lambda C: int(C[0]))
        self._class_solves = [(C, _class_solver(P, C, dense_max)) for C in self.classes]
        rec = np.zeros(self.n, dtype=bool)
        for C in self.classes:
            rec[C] = True
        self.T, self.R = np.flatnonzero(~rec), np.flatnonzero(rec)
        self._sccs = order, start, comp, closed
        self._lu_T = None
        if self.T.size and int(np.diff(start)[~closed].max()) > dense_max:
            self._lu_T = _transient_lu(P, self.T)

    def solve(self, r1: np.ndarray, r2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(g, h) with g − P g = r1 on the transient states (g constant on each
        closed class) and g + h − P h = r2, h = 0 at each class's first state."""
        g, h = np.zeros(self.n), np.zeros(self.n)
        for C, solve in self._class_solves:
            z = solve(r2[C])
            g[C], h[C] = z[0], np.concatenate([[0.0], z[1:]])
        if self.T.size:
            self._transient_solve(r1, r2, g, h)
        if not (np.all(np.isfinite(g)) and np.all(np.isfinite(h))):
            raise SolverError("policy evaluation gave a non-finite value")
        return g, h

    def _transient_solve(self, r1: np.ndarray, r2: np.ndarray, g: np.ndarray, h: np.ndarray) -> None:
        """g and h on the transient states T, in place, given them on the closed classes:
        (I − P_TT) g_T = r1_T + P_TR g_R and (I − P_TT) h_T = r2_T − g_T + P_TR h_R.

        P_TT is block triangular in the order of its strongly connected components (a chain leaves a
        component only for components it never comes back from, and Tarjan's order lists every component
        after those it reaches), so both systems are solved by back substitution over the components, exits
        first: a component {s} gives x(s) = (b(s) + Σ_{t ≠ s} p_st x(t))/(1 − p_ss), a larger one C a dense
        LU of I − P_CC with right-hand side b_C + P_{C,X∖C} x, the closed classes already known.  Most
        transient states of the crawler's policies are components of one state or a few, so this replaces a
        sparse LU of all of T; a component of more than ``dense_max`` states sends T to SuperLU."""
        P, T = self.P, self.T
        if self._lu_T is None:
            _, solve = _block_solve_kernels()
            order, start, comp, closed = self._sccs
            b = np.zeros(self.n)
            b[T] = r1[T]
            ok = solve(P.indptr, P.indices, P.data, order, start, comp, closed, b, g)
            b[T] = r2[T] - g[T]
            if not (ok and solve(P.indptr, P.indices, P.data, order, start, comp, closed, b, h)):
                raise SolverError("policy evaluation system is singular (zero pivot in a transient block)")
            return
        # g and h vanish on T here, so (P g)[T] = P_TR g_R and (P h)[T] = P_TR h_R, summed in the same order
        g[T] = self._lu_T.solve(r1[T] + (P @ g)[T])
        h[T] = self._lu_T.solve(r2[T] - g[T] + (P @ h)[T])


def _transient_lu(P: sps.csr_matrix, T: np.ndarray):
    """SuperLU of I − P_TT, assembled from triplets: the diagonal sums 1 + (−p_ii), bit for bit the 1 − p_ii of
    sparse algebra."""
    m = T.size
    i, j, p = _restrict(P, T, T)
    d = np.arange(m)
    try:
        return spla.splu(sps.csc_matrix((np.concatenate([np.ones(m), -p]), (np.concatenate([d, i]), np.concatenate([d, j]))),
                                        shape=(m, m)))
    except RuntimeError as exc:
        raise SolverError(f"policy evaluation: the transient system is singular: {exc}") from None


def _class_solver(P: sps.csr_matrix, C: np.ndarray, dense_max: int):
    """rhs -> z with z[0] = g, z[1:] = h on C[1:]: the bordered system of :func:`bordered_lu` on the closed class C
    (I − P_C with its first column replaced by ones), dense LU up to ``dense_max`` states."""
    m = C.size
    i, j, p = _restrict(P, C, C)
    if m > dense_max:
        return bordered_lu(sps.csr_matrix((p, (i, j)), shape=(m, m)), 0).solve
    A = np.eye(m)
    A[i, j] -= p  # (i, j) pairs are distinct: P has no duplicate entries
    A[:, 0] = 1.0
    return _dense_lu(A)


def stationary_distribution(P: sps.csr_matrix, recurrent: np.ndarray) -> np.ndarray:
    """π P = π, Σπ = 1 for a unichain P (zero on transient states); solved
    on the recurrent class by sparse LU.

    >>> stationary_distribution(sps.csr_matrix(np.array([[0.9, 0.1], [0.8, 0.2]])), np.array([0, 1])).round(12).tolist()
    [0.888888888889, 0.111111111111]
    """
    n = len(recurrent)
    i, j, p = _restrict(P, recurrent, recurrent)
    # (I − P_C)^T with its first equation replaced by Σπ = 1, in the entry order scipy's sparse algebra gives
    sub = sps.csr_matrix((p, (i, j)), shape=(n, n)).tocsc()
    A = (sps.identity(n, format="csc") - sub).T.tocoo()
    keep = A.row != 0
    A = sps.csc_matrix((np.concatenate([A.data[keep], np.ones(n)]),
                        (np.concatenate([A.row[keep], np.zeros(n, dtype=np.int64)]),
                         np.concatenate([A.col[keep], np.arange(n)]))), shape=(n, n))
    b = np.zeros(n)
    b[0] = 1.0
    x = spla.splu(A).solve(b)
    if x.min() < -STRUCTURE_ABS:
        raise SolverError(f"stationary distribution has a negative entry {x.min():.3g}")
    pi = np.zeros(P.shape[0])
    pi[recurrent] = np.clip(x, 0.0, None)
    return pi / pi.sum()


def _restrict(P: sps.csr_matrix, rows: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The entries of P[rows][:, cols] as triplets (i, j, p), i and j positions in ``rows`` and ``cols``,
    in CSR order: scipy's fancy indexing without its per-call overhead (the policy matrices have
    at most three entries per row, and this is called for every policy evaluation)."""
    counts = np.diff(P.indptr)[rows]
    ends = np.cumsum(counts)
    at = np.repeat(P.indptr[rows] - (ends - counts), counts) + np.arange(int(ends[-1]) if ends.size else 0)
    pos = np.full(P.shape[1], -1, dtype=np.int64)
    pos[cols] = np.arange(len(cols))
    j = pos[P.indices[at]]
    ok = j >= 0
    return np.repeat(np.arange(len(rows)), counts)[ok], j[ok], P.data[at][ok]


@lru_cache(maxsize=None)
def _block_solve_kernels():
    """(order_of, solve) of :class:`PolicySystem`, compiled on first use (numba is imported here, not at module level: it is only needed once a policy is evaluated).

    ``order_of(indptr, indices)``: Tarjan's strongly connected components of the CSR graph, iteratively;
    returns (order, start, comp): the states of component c are order[start[c]:start[c+1]], components
    numbered as Tarjan completes them, i.e. every component after all those it can reach.
    ``solve(indptr, indices, data, order, start, comp, skip, b, x)``: x = b + P x on the components c
    with skip[c] False, by back substitution in that order (x on the skipped components is given and
    kept), dense partial-pivoting LU on components of two or more states; False on a zero pivot."""
    from numba import njit  # lazy: compiled on first use; importing this module stays cheap

    @njit(cache=True)
    def order_of(indptr, indices):
        n = indptr.size - 1
        index = np.full(n, -1, dtype=np.int64)
        low = np.zeros(n, dtype=np.int64)
        on_stack = np.zeros(n, dtype=np.bool_)
        stack = np.empty(n, dtype=np.int64)
        call_v = np.empty(n, dtype=np.int64)
        call_p = np.empty(n, dtype=np.int64)
        order = np.empty(n, dtype=np.int64)
        start = np.empty(n + 1, dtype=np.int64)
        comp = np.empty(n, dtype=np.int64)
        sp = counter = ncomp = filled = 0
        for root in range(n):
            if index[root] >= 0:
                continue
            index[root] = low[root] = counter
            counter += 1
            stack[sp] = root
            sp += 1
            on_stack[root] = True
            call_v[0], call_p[0] = root, indptr[root]
            depth = 1
            while depth > 0:
                v, p = call_v[depth - 1], call_p[depth - 1]
                if p < indptr[v + 1]:
                    call_p[depth - 1] = p + 1
                    w = indices[p]
                    if index[w] < 0:
                        index[w] = low[w] = counter
                        counter += 1
                        stack[sp] = w
                        sp += 1
                        on_stack[w] = True
                        call_v[depth], call_p[depth] = w, indptr[w]
                        depth += 1
                    elif on_stack[w] and index[w] < low[v]:
                        low[v] = index[w]
                    continue
                depth -= 1
                if depth > 0 and low[v] < low[call_v[depth - 1]]:
                    low[call_v[depth - 1]] = low[v]
                if low[v] == index[v]:  # v roots a component: pop it
                    start[ncomp] = filled
                    while True:
                        sp -= 1
                        w = stack[sp]
                        on_stack[w] = False
                        comp[w] = ncomp
                        order[filled] = w
                        filled += 1
                        if w == v:
                            break
                    ncomp += 1
        start[ncomp] = filled
        return order, start[:ncomp + 1], comp

    @njit(cache=True)
    def solve(indptr, indices, data, order, start, comp, skip, b, x):
        pos = np.empty(b.size, dtype=np.int64)
        for c in range(start.size - 1):
            if skip[c]:
                continue
            lo, m = start[c], start[c + 1] - start[c]
            if m == 1:
                s = order[lo]
                rhs, diag = b[s], 1.0
                for p in range(indptr[s], indptr[s + 1]):
                    t = indices[p]
                    if t == s:
                        diag -= data[p]
                    else:
                        rhs += data[p] * x[t]
                if diag == 0.0:
                    return False
                x[s] = rhs / diag
                continue
            for k in range(m):
                pos[order[lo + k]] = k
            A = np.eye(m)
            y = np.empty(m)
            for k in range(m):
                s = order[lo + k]
                y[k] = b[s]
                for p in range(indptr[s], indptr[s + 1]):
                    t = indices[p]
                    if comp[t] == c:
                        A[k, pos[t]] -= data[p]
                    else:
                        y[k] += data[p] * x[t]
            for k in range(m):  # Gaussian elimination with partial pivoting, applied to y as it goes
                piv, big = k, abs(A[k, k])
                for r in range(k + 1, m):
                    if abs(A[r, k]) > big:
                        piv, big = r, abs(A[r, k])
                if big == 0.0:
                    return False
                if piv != k:
                    for col in range(m):
                        A[k, col], A[piv, col] = A[piv, col], A[k, col]
                    y[k], y[piv] = y[piv], y[k]
                for r in range(k + 1, m):
                    f = A[r, k] / A[k, k]
                    if f != 0.0:
                        for col in range(k + 1, m):
                            A[r, col] -= f * A[k, col]
                        y[r] -= f * y[k]
            for k in range(m - 1, -1, -1):
                for col in range(k + 1, m):
                    y[k] -= A[k, col] * y[col]
                y[k] /= A[k, k]
            for k in range(m):
                x[order[lo + k]] = y[k]
        return True

    return order_of, solve


def _dense_lu(A: np.ndarray):
    """b -> A^{-1} b by Gaussian elimination with partial pivoting (A is overwritten by its factors);
    SolverError when a pivot is exactly zero, as for SuperLU.  Compiled rather than LAPACK: on a shared
    machine a threaded BLAS spends far longer synchronising than these small systems take to factor."""
    factor, solve = _dense_lu_kernels()
    piv = np.empty(A.shape[0], dtype=np.int64)
    if not factor(A, piv):
        raise SolverError("policy evaluation system is singular (zero pivot in dense LU)")
    return lambda b: solve(A, piv, np.asarray(b, dtype=float))


@lru_cache(maxsize=None)
def _dense_lu_kernels():
    """(factor, solve) of :func:`_dense_lu`, compiled on first use."""
    from numba import njit  # lazy: compiled on first use; importing this module stays cheap

    @njit(cache=True)
    def factor(A, piv):
        n = A.shape[0]
        for k in range(n):
            p, big = k, abs(A[k, k])
            for i in range(k + 1, n):
                if abs(A[i, k]) > big:
                    p, big = i, abs(A[i, k])
            piv[k] = p
            if big == 0.0:
                return False
            if p != k:
                for j in range(n):
                    A[k, j], A[p, j] = A[p, j], A[k, j]
            for i in range(k + 1, n):
                f = A[i, k] / A[k, k]
                A[i, k] = f
                if f != 0.0:  # the systems are banded: most multipliers vanish
                    for j in range(k + 1, n):
                        A[i, j] -= f * A[k, j]
        return True

    @njit(cache=True)
    def solve(A, piv, b):
        n = A.shape[0]
        x = b.copy()
        for k in range(n):
            x[k], x[piv[k]] = x[piv[k]], x[k]
        for i in range(n):
            for j in range(i):
                x[i] -= A[i, j] * x[j]
        for i in range(n - 1, -1, -1):
            for j in range(i + 1, n):
                x[i] -= A[i, j] * x[j]
            x[i] /= A[i, i]
        return x

    return factor, solve
