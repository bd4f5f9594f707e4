"""Right-preconditioned restarted GMRES with delayed reorthogonalisation (`gmres_right`) for large sparse or
matrix-free systems, and the anonymous-mapped work vectors it and the solvers it serves use (`work_array`).
Used by the matrix-free BMAP solver (`crawlmath.numeric.bmap._structured`).

>>> import numpy as np
>>> A = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]])
>>> b = np.array([1.0, 2.0, 3.0])
>>> x, its, rnorm = gmres_right(lambda v: A @ v, lambda v: v.copy(), b, np.zeros(3), 1e-14, 5, 10)
>>> bool(np.allclose(A @ x, b, rtol=0, atol=1e-13)), bool(rnorm <= 1e-14 * np.linalg.norm(b))
(True, True)
"""
from __future__ import annotations

import mmap

import numpy as np
from numba import njit

from ..errors import SolverError


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
