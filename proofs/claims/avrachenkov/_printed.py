"""The formulas of Avrachenkov et al. transcribed *as printed*: Theorem 1, eqs. (5)-(7); Theorem 4, eqs. (16)-(21) with
the Lemma's blocks; Corollary 1's means, eqs. (22)-(25); and §6's single-arrival sums.  They are the objects under test
of :mod:`.theorems` and :mod:`.lemma_derived`, which compare them with routes that do not use them.
"""
from __future__ import annotations

import numpy as np

from ....numeric import bmap as bm


def printed_p_star(p) -> float:
    """Eq. (5): ``P_star = p_0 e_W̄``."""
    return float(np.sum(p[0]))


def printed_phi(p, j: tuple[int, ...], N: int) -> list[float]:
    """Eq. (7): ``phi_n = sum_{i = j_{N-n}+1}^{j_{N+1-n}} p_i e``, with
    ``j_0 = -1`` and ``j_N = K`` (§2); ``j`` = (j_0, ..., j_N)."""
    return [float(sum(np.sum(p[i]) for i in range(j[N - n] + 1, j[N + 1 - n] + 1))) for n in range(1, N + 1)]


def printed_n_act(phi) -> float:
    """Eq. (6): ``N_act = sum_n n phi_n``."""
    return float(sum(n * f for n, f in enumerate(phi, start=1)))


def _memo(m: bm.BmapModel, key: tuple, build):
    """``build()`` once per model and ``key``: the printed formulas below rebuild the same blocks (and inverses) for every
    level, catastrophe rate and route; the arrays are never modified in place, so sharing them changes no bit."""
    return m.memo(("printed",) + key, build)


def _A(m: bm.BmapModel, i: int, u=0.0) -> np.ndarray:
    """``u I - A_i`` with the Lemma's ``A_i = S ⊕ Γ^{⊕i}`` (cached per i and u)."""
    def build():
        A = bm.A_block(m, i).toarray()
        return u * np.eye(A.shape[0]) - A
    return _memo(m, ("uI - A", i, type(u), u), build)


def _A_inv(m: bm.BmapModel, i: int) -> np.ndarray:
    """``A_i^{-1}`` (cached)."""
    return _memo(m, ("A^-1", i), lambda: np.linalg.inv(-_A(m, i)))


def _B(m: bm.BmapModel, i: int) -> np.ndarray:
    """The Lemma's ``B_i = S_0 beta ⊗ e_R ⊗ I_{R^{i-1}} + I_M ⊗ Γ_0^{⊕i}`` (i >= 1; Γ_0^{⊕i} the sum over
    buffer positions, see avrachenkov.lemma.gamma0-sum)."""
    def build():
        S0b = np.outer(m.service.exit, m.service.beta)
        return (np.kron(np.kron(S0b, np.ones((m.R, 1))), np.eye(m.R ** (i - 1)))
                + np.kron(np.eye(m.M), bm.kron_sum_power(m.obsolescence.exit, i).toarray()))
    return _memo(m, ("B", i), build)


def _Bhat(m: bm.BmapModel, i: int) -> np.ndarray:
    """``B̂_i = B_i ⊗ I_R`` (i >= 1); ``B̂_0 = S_0 beta ⊗ e_R`` (printed undefined)."""
    if i == 0:
        return _memo(m, ("Bhat", 0), lambda: np.kron(np.outer(m.service.exit, m.service.beta), np.ones((m.R, 1))))
    return _memo(m, ("Bhat", i), lambda: np.kron(_B(m, i), np.eye(m.R)))


def _gamma_pow(m: bm.BmapModel, l: int) -> np.ndarray:
    out = np.ones((1, 1))
    for _ in range(l):
        out = np.kron(out, m.obsolescence.beta.reshape(1, -1))
    return out


def _a(i: int) -> int:
    return min(i, 1)


def _b(i: int) -> int:
    return max(i - 1, 0)


def printed_C(m: bm.BmapModel, i: int, l: int) -> np.ndarray:
    """``C_{i,l} = beta^{δ_{i,0}} ⊗ I_{M^{a_i} R^{b_i}} ⊗ gamma^{⊗(l - δ_{i,0})}`` (after (19))."""
    def build():
        d = int(i == 0)
        first = m.service.beta.reshape(1, -1) if d else np.ones((1, 1))
        return np.kron(np.kron(first, np.eye(m.M ** _a(i) * m.R ** _b(i))), _gamma_pow(m, l - d))
    return _memo(m, ("C", i, l), build)


def _own_exit(m: bm.BmapModel, n: int) -> np.ndarray:
    """``(I_M ⊗ I_{R^{n-1}} ⊗ Γ_0) e`` at a level with n waiting-page phases (the tagged page last)."""
    return _memo(m, ("own exit", n), lambda: np.kron(np.eye(m.M * m.R ** (n - 1)), m.obsolescence.exit.reshape(-1, 1))
                 @ np.ones(m.M * m.R ** (n - 1)))


def printed_v1(m: bm.BmapModel, u) -> list[np.ndarray]:
    """Eq. (20): ``v_0^(1) = (uI - S)^{-1} S_0``, ``v_i^(1) = (uI - A_i)^{-1} B̂_{i-1} v_{i-1}^(1)``."""
    v = [np.linalg.solve(_A(m, 0, u), m.service.exit.astype(complex if np.iscomplexobj(u) else float))]
    for i in range(1, m.K):
        v.append(np.linalg.solve(_A(m, i, u), _Bhat(m, i - 1) @ v[-1]))
    return v


def _down(m: bm.BmapModel, i: int, l: int, u, x: np.ndarray) -> np.ndarray:
    """``prod_{k=0}^{l-1} (uI - A_{i-k})^{-1} B̂_{i-k-1}`` applied to x (x at level i - l)."""
    for k in range(l - 1, -1, -1):
        x = np.linalg.solve(_A(m, i - k, u), _Bhat(m, i - k - 1) @ x)
    return x


def printed_v2(m: bm.BmapModel, u) -> list[np.ndarray]:
    """Eq. (21): ``v_0^(2) = 0``, ``v_i^(2) = sum_{l=0}^{i-1} prod_{k<l} (uI - A_{i-k})^{-1} B̂_{i-k-1}
    (uI - A_{i-l})^{-1} (I_M ⊗ I_{R^{i-l-1}} ⊗ Γ_0) e``."""
    v = [np.zeros(m.M)]
    for i in range(1, m.K):
        v.append(sum(_down(m, i, l, u, np.linalg.solve(_A(m, i - l, u), _own_exit(m, i - l))) for l in range(i)))
    return v


def printed_p_ik(m: bm.BmapModel, levels, p, lam: float, i: int, k: int) -> np.ndarray:
    """``p_{i,k} = (1/lambda) p_i k (D_k^(chi(i)) e_W̄ ⊗ I_{M^{a_i} R^{b_i}})``."""
    Dk_e = m.D(levels[i], k).sum(axis=1).reshape(-1, 1)
    return np.asarray(p[i], dtype=float) @ np.kron(Dk_e, np.eye(m.M ** _a(i) * m.R ** _b(i))) * k / lam


def printed_theorem4(m: bm.BmapModel, levels, p, lam: float, vecs: list[np.ndarray]):
    """Eqs. (17)/(18) and (19) with the vectors ``v_i^(m)`` (or ``w_i^(m)`` for (23)-(25)):
    ``sum_{i<K} sum_k p_{i,k} v_{i,k}``, ``v_{i,k} = sum_{l <= min(k, K-i)} C_{i,l} (1/k) v_{i+l-1}``
    (before dividing by P_success or P_obs)."""
    total = 0.0
    for i in range(m.K):
        for k in range(1, m.kmax + 1):
            vik = sum(printed_C(m, i, l) @ vecs[i + l - 1] / k for l in range(1, min(k, m.K - i) + 1))
            total = total + printed_p_ik(m, levels, p, lam, i, k) @ vik
    return complex(np.squeeze(total)) if np.iscomplexobj(total) else float(np.squeeze(total))


def printed_w1(m: bm.BmapModel) -> list[np.ndarray]:
    """Corollary 1: ``w_0^(1) = -S^{-1} e_M``, ``w_i^(1) = -A_i^{-1} [v_i^(1)(0) + B̂_{i-1} w_{i-1}^(1)]`` with
    ``v_0^(1)(0) = e_M``, ``v_i^(1)(0) = -A_i^{-1} B̂_{i-1} v_{i-1}^(1)(0)``."""
    Ainv = lambda i: _A_inv(m, i)  # noqa: E731 - A_i^{-1} (note _A(m, i, 0) = -A_i)
    v0 = [np.ones(m.M)]
    w = [-np.linalg.inv(m.service.S) @ np.ones(m.M)]
    for i in range(1, m.K):
        v0.append(-Ainv(i) @ _Bhat(m, i - 1) @ v0[-1])
        w.append(-Ainv(i) @ (v0[i] + _Bhat(m, i - 1) @ w[-1]))
    return w


def printed_w2(m: bm.BmapModel, sign: int = -1) -> list[np.ndarray]:
    """Corollary 1 as printed (``sign = -1``, the leading minus):
    ``w_i^(2) = - sum_{l<i} (-1)^l [ sum_{m<l} prod_{k<m} A_{i-k}^{-1} B̂_{i-k-1} A_{i-m}^{-2} B̂_{i-m-1}
    prod_{m<k<l} A_{i-k}^{-1} B̂_{i-k-1} + prod_{k<l} A_{i-k}^{-1} B̂_{i-k-1} A_{i-l}^{-1} ]
    A_{i-l}^{-1} (I_{M R^{i-l-1}} ⊗ Γ_0) e``; ``sign = +1`` drops the leading minus."""
    Ainv = lambda j: _A_inv(m, j)  # noqa: E731 - A_j^{-1}
    step = lambda k, i: Ainv(i - k) @ _Bhat(m, i - k - 1)  # noqa: E731 - A_{i-k}^{-1} B̂_{i-k-1}
    w = [np.zeros(m.M)]
    for i in range(1, m.K):
        total = np.zeros(m.M * m.R**i)
        for l in range(i):
            tail = Ainv(i - l) @ _own_exit(m, i - l)
            bracket = np.eye(m.M * m.R**i)
            inner = np.zeros((m.M * m.R**i, m.M * m.R ** (i - l)))
            for mm in range(l):
                left = bracket.copy()
                for k in range(mm):
                    left = left @ step(k, i)
                mid = Ainv(i - mm) @ Ainv(i - mm) @ _Bhat(m, i - mm - 1)
                right = np.eye(mid.shape[1])
                for k in range(mm + 1, l):
                    right = right @ step(k, i)
                inner = inner + left @ mid @ right
            last = np.eye(m.M * m.R**i)
            for k in range(l):
                last = last @ step(k, i)
            inner = inner + last @ Ainv(i - l)
            total = total + (-1) ** l * inner @ tail
        w.append(sign * total)
    return w


def printed_qbd(m: bm.BmapModel, levels, p, lam: float, norm: float, vecs) -> float:
    """§6: ``(1/(lambda P)) sum_{i<K} p_i (D_1^(chi(i)) e_W̄ ⊗ I_{M^{a_i} R^{b_i}}) C_{i,1} x_i`` with
    ``x_i = v_i^(m)(u)`` (transforms) or ``w_i^(m)`` (means), ``P = P_success`` or ``P_obs``."""
    total = 0.0
    for i in range(m.K):
        D1e = m.D(levels[i], 1).sum(axis=1).reshape(-1, 1)
        total = total + np.asarray(p[i], dtype=float) @ np.kron(D1e, np.eye(m.M ** _a(i) * m.R ** _b(i))) @ printed_C(m, i, 1) @ vecs[i]
    return float(np.squeeze(total)) / (lam * norm)
