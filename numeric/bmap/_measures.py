"""Measures of Avrachenkov et al. (seed 000; Theorems 1–3, Corollary 1) from a stationary distribution:
``P_star = p_0 e``, ``N_act``, ``lam`` (eq. 9), ``P_loss`` (the direct count of lost pages, and eq. 8),
``P_obs`` (eq. 14), ``P_success`` (eq. 15), the mean sojourn times ``V1`` (served pages), ``V2`` (obsolete
pages) and ``V = V1 P_success + V2 P_obs`` from a tagged-page absorbing chain, and the cost ``J`` of eq. (2):
``J = lam (c_loss P_loss + c_obs P_obs) + a V1 + c_rob N_act + c_star P_star``.  The same formulas run in
float64, mpmath, arb balls or exact rationals (`Arith`).

>>> from ._optimise import example_model
>>> from ._stationary import solve_sparse_direct
>>> m = example_model(K=3)
>>> r = measures(m, (3, 3, 1, 1), solve_sparse_direct(m, (3, 3, 1, 1)))
>>> abs(r.p_success + r.p_obs + r.p_loss - 1) < 1e-12
True
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ._phase_type import exact
from ._core import BmapModel
from ._generator import A_dense
from ._stationary import Stationary


def exact_ball(x) -> "flint.arb":
    """The arb ball enclosing the exact input ``x`` (a Fraction of the model,
    or any `exact` number: a float stands for its shortest decimal, so 0.2
    encloses 1/5, not the float nearest to it).

    >>> import flint
    >>> from fractions import Fraction
    >>> exact_ball(Fraction(1, 5)).contains(flint.fmpq(1, 5)), exact_ball(0.2).contains(flint.fmpq(1, 5))
    (True, True)
    """
    import flint  # lazy: only the high-precision routes need it

    q = exact(x, argument="input")
    return flint.arb(flint.fmpq(q.numerator, q.denominator))


def exact_fmpq(x) -> "flint.fmpq":
    """The exact input ``x`` (see `exact`) as a python-flint rational."""
    import flint  # lazy: only the high-precision routes need it

    q = exact(x, argument="input")
    return flint.fmpq(q.numerator, q.denominator)


@dataclass(frozen=True)
class Measures:
    """Performance measures and the cost of eq. (2) under one policy."""

    levels: tuple[int, ...]
    p_star: float
    phi: tuple  # phi[n-1]: probability that n robots are active
    n_act: float
    lam: float
    p_loss: float  # lost pages counted per batch (no cancellation: accurate when tiny)
    p_loss_eq8: float  # eq. (8), 1 - accepted/lambda (a cross-check; cancels to ~1e-16 absolute)
    p_obs: float
    p_success: float
    p_success_tagged: float  # from the tagged-page chain
    v1: float
    v2: float
    v: float
    mean_number: float  # L = sum_i i p_i e (Little: L = lam V)
    cost: float
    states: int
    method: str
    residual: float
    seconds: float = 0.0

    def as_json(self) -> dict:
        """The measures as a JSON-ready dict (field names as keys; ``p_loss_eq8``, ``p_success_tagged``, ``mean_number`` and ``seconds`` left out)."""
        return {
            "p_star": self.p_star,
            "n_act": self.n_act,
            "phi": list(self.phi),
            "lam": self.lam,
            "p_loss": self.p_loss,
            "p_obs": self.p_obs,
            "p_success": self.p_success,
            "v1": self.v1,
            "v2": self.v2,
            "v": self.v,
            "cost": self.cost,
            "states": self.states,
            "method": self.method,
            "residual": self.residual,
        }


class Arith:
    """float64, mpmath or arb-ball arithmetic for the measure formulas (same
    code).  ``ball`` is the converter of one exact input to an ``arb`` (see
    `exact_ball`); it selects ball arithmetic.  The mpmath and ball routes
    read the model's exact inputs (`input`), the float64 route its float
    copies."""

    def __init__(self, mp: bool, ball: Callable | None = None, rational: bool = False):
        self.mp = mp or ball is not None or rational
        self.ball = ball
        self.rational = rational
        if rational:
            self.conv = lambda a: np.vectorize(exact_fmpq, otypes=[object])(np.asarray(a, dtype=object)) if np.ndim(a) else exact_fmpq(a)
        elif ball is not None:
            self.conv = lambda a: np.vectorize(ball, otypes=[object])(np.asarray(a, dtype=object)) if np.ndim(a) else ball(a)
        elif mp:
            import mpmath  # lazy: only the high-precision routes need it

            self.mpmath = mpmath
            def one(x):  # the exact input at the working precision
                q = exact(x, argument="input")
                return mpmath.mpf(q.numerator) / q.denominator

            self.conv = lambda a: np.vectorize(one, otypes=[object])(np.asarray(a, dtype=object)) if np.ndim(a) else one(a)
        else:
            self.conv = lambda a: np.asarray(a, dtype=float) if np.ndim(a) else float(a)

    def input(self, floats: np.ndarray, exact_values: np.ndarray) -> np.ndarray:
        """A model input as this arithmetic uses it: the float64 copy, or the exact value converted."""
        return self.conv(exact_values) if self.mp else floats

    def is_zero(self, x) -> bool:
        """x == 0 exactly (an arb ball is truthy even when it is exactly 0)."""
        return bool(x.is_zero()) if self.ball is not None else not x

    def solve(self, A, b):
        """x with A x = b (A square, b vector)."""
        if not self.mp:
            return np.linalg.solve(A, b)
        if self.rational:
            import flint  # lazy: only the high-precision routes need it

            x = flint.fmpq_mat([list(row) for row in A]).solve(flint.fmpq_mat([[v] for v in b]))
            return np.array([x[k, 0] for k in range(len(b))], dtype=object)
        if self.ball is not None:
            import flint  # lazy: only the high-precision routes need it

            n = len(b)
            x = flint.arb_mat([[A[i, j] for j in range(n)] for i in range(n)]).solve(flint.arb_mat([[v] for v in b]))
            return np.array([x[k, 0] for k in range(n)], dtype=object)
        mm = self.mpmath
        x = mm.lu_solve(mm.matrix(A.tolist()), mm.matrix(list(b)))
        return np.array([x[k] for k in range(len(b))], dtype=object)


def _contract_last(x: np.ndarray, vec: np.ndarray, times: int) -> np.ndarray:
    """Contract the last ``times`` R-factors of a flattened tensor with ``vec``."""
    R = vec.shape[0]
    for _ in range(times):
        x = x.reshape(-1, R) @ vec
    return x


def _tagged_vectors(model: BmapModel, ar: Arith, A_solve: Callable | None = None):
    """For t pages ahead (t = 0: tagged in service), vectors over
    ``(m, r_1..r_{t-1}, r_tag)``: h1 = P(served), g1 = E[T; served],
    h2 = P(obsolete), g2 = E[T; obsolete].  Recursion of Corollary 1 with
    ``B̂_0 = S_0 β ⊗ e_R`` (undefined in the paper) and
    ``B̂_t = B_t ⊗ I_R`` otherwise."""
    ph, ob = model.service, model.obsolescence
    M, R = model.M, model.R
    S = ar.input(ph.S, ph.S_exact)
    S0 = -S.sum(axis=1)
    beta = ar.input(ph.beta, ph.beta_exact)
    Gamma = ar.input(ob.S, ob.S_exact)
    G0 = -Gamma.sum(axis=1)
    eM = ar.conv(np.ones(M))
    h1 = [eM]
    g1 = [ar.solve(-S, eM)]
    h2 = [ar.conv(np.zeros(M))]
    g2 = [ar.conv(np.zeros(M))]
    for t in range(1, model.K):
        n_ahead = t - 1  # buffered pages ahead of the tagged one

        def Bhat(v):  # B̂_t v, v over (m, r_1..r_{t-2}, r_tag') at level t-1
            v = v.reshape(M, -1)
            # service completion: the head of the buffer (r_1, or the tagged page when t = 1) starts service
            out = np.multiply.outer(S0, (beta @ v).reshape(-1))  # (M, R^{t-1}) over (r_2..r_tag)
            out = np.repeat(out.reshape(M, 1, -1), R, axis=1).reshape(-1)
            if R == 1 and n_ahead:  # one obsolescence phase: the n_ahead positions give the same term, formed once
                return out + n_ahead * _insert_axis(v, M, G0)
            for q in range(n_ahead):  # obsolescence of buffered page q ahead of the tagged one
                out = out + _insert_axis(v, M * R**q, G0)
            return out

        own = np.multiply.outer(ar.conv(np.ones(M * R**n_ahead)), G0).reshape(-1)
        if A_solve:
            solve = lambda rhs, t=t: A_solve(t, rhs)  # noqa: E731
        else:
            A = -(_kron_sum_obj([S] + [Gamma] * t) if ar.mp else A_dense(model, t))
            solve = lambda rhs, A=A: ar.solve(A, rhs)  # noqa: E731
        h1.append(solve(Bhat(h1[-1])))
        g1.append(solve(h1[-1] + Bhat(g1[-1])))
        h2.append(solve(Bhat(h2[-1]) + own))
        g2.append(solve(h2[-1] + Bhat(g2[-1])))
    return h1, g1, h2, g2


def _insert_axis(v: np.ndarray, before: int, G0: np.ndarray) -> np.ndarray:
    """``v`` over (m, r_1, .., r_tag) of the smaller level lifted to the
    larger one: a new phase axis after the first ``before`` entries (i.e. at
    buffer position q for ``before = M R^q``) weighted by ``Γ_0``.  Three axes
    whatever the level, so any K works (numpy allows at most 64 axes)."""
    R = G0.shape[0]
    return (v.reshape(before, 1, -1) * G0.reshape(1, R, 1)).reshape(-1)


def _kron_sum_obj(factors) -> np.ndarray:
    """``F_1 ⊕ ... ⊕ F_n`` in exact object arithmetic (mpmath entries)."""
    out = factors[0]
    for F in factors[1:]:
        out = np.kron(out, np.eye(F.shape[0], dtype=int).astype(object)) + np.kron(np.eye(out.shape[0], dtype=int).astype(object), F)
    return out


def contracted_vectors(model: BmapModel, ar: Arith, A_solve) -> dict:
    """For a page arriving as the l-th of a batch to i pages: the tagged-page
    vectors (h1, g1, h2, g2) at t = i + l - 1 pages ahead, with the fresh
    phases of the l - 1 batch-mates ahead and of the page itself averaged
    over gamma (and the server's over beta when i = 0).  Policy-independent."""
    h1, g1, h2, g2 = _tagged_vectors(model, ar, A_solve)
    beta = ar.input(model.service.beta, model.service.beta_exact)
    gam = ar.input(model.obsolescence.beta, model.obsolescence.beta_exact)
    M = model.M
    out = {}
    for i in range(model.K):
        for l in range(1, min(model.K - i, model.kmax) + 1):
            t = i + l - 1
            cols = [_contract_last(v[t], gam, l - (i == 0)) for v in (h1, g1, h2, g2)]
            mat = np.stack(cols, axis=1)
            out[(i, l)] = beta @ mat.reshape(M, 4) if i == 0 else mat
    return out


def measures(model: BmapModel, levels: Sequence[int], st: Stationary, *, mp: bool = False, A_solve: Callable | None = None,
             ball: Callable | None = None, rational: bool = False) -> Measures:
    """Theorems 1–3, Corollary 1 and eq. (2) from the stationary vector.
    ``mp``: mpmath numbers (p from `solve_mp`); ``ball``: arb balls, with the
    model's inputs converted by ``ball`` (p from `_arb_stationary` with the
    same converter), so every measure is an enclosure; ``rational``: exact
    rationals (``flint.fmpq``, p from `rational_stationary`)."""
    ar = Arith(mp, ball, rational)
    mp = ar.mp
    K, W, M, R = model.K, model.W, model.M, model.R
    p = [np.asarray(x, dtype=object) if mp else np.asarray(x, dtype=float) for x in st.p]
    marg_nu = [x.reshape(W, -1).sum(axis=1) for x in p]  # over nu
    # D_k^(r) e per mode and batch size, converted once: the loops below read them O(K kmax) times
    De = {(r, k): ar.input(model.D(r, k), model.D_exact(r, k)).sum(axis=1) for r in set(levels) for k in range(model.kmax + 1)}
    tot = [x.sum() for x in p]
    p_star = tot[0]
    phi = [sum((tot[i] for i in range(K + 1) if levels[i] == n), ar.conv(0.0)) for n in range(1, model.N + 1)]
    n_act = sum(n * f for n, f in zip(range(1, model.N + 1), phi))
    lam = 0
    loss_rate = 0
    accepted8 = 0
    for i in range(K + 1):
        r = levels[i]
        for k in range(0, model.kmax + 1):
            rate = marg_nu[i] @ De[(r, k)]
            if k >= 1:
                lam = lam + k * rate
                loss_rate = loss_rate + max(k - (K - i), 0) * rate
            if k <= K - i:
                accepted8 = accepted8 + (k - K + i) * rate
    p_loss_eq8 = 1 - accepted8 / lam
    p_loss = loss_rate / lam
    S0 = -ar.input(model.service.S, model.service.S_exact).sum(axis=1)
    G0 = -ar.input(model.obsolescence.S, model.obsolescence.S_exact).sum(axis=1)
    succ_rate = sum((x.reshape(W, M, -1).sum(axis=(0, 2)) @ S0 for x in p[1:]), ar.conv(0.0))
    obs_rate = ar.conv(0.0)
    for i in range(2, K + 1):
        for q in range(i - 1):  # the buffered page at position q becomes obsolete
            if q == 0 or R > 1:  # with one obsolescence phase every position gives the same term: computed once
                term = p[i].reshape(W * M * R**q, R, -1).sum(axis=(0, 2)) @ G0
            obs_rate = obs_rate + term
    p_obs = obs_rate / lam
    p_success = succ_rate / lam
    if rational:
        contracted = model.memo("contracted rational", lambda: contracted_vectors(model, ar, None))
    elif ball is not None:  # policy-independent: one per input converter and working precision
        import flint  # lazy: only the high-precision routes need it

        contracted = model.memo(("contracted", ball, flint.ctx.prec), lambda: contracted_vectors(model, ar, None))
    elif A_solve:
        contracted = contracted_vectors(model, ar, A_solve)
    elif mp:  # policy-independent: one per working precision (the 50- and 70-digit routes stay apart)
        contracted = model.memo(("contracted mp", ar.mpmath.mp.prec), lambda: contracted_vectors(model, ar, None))
    else:
        contracted = model.memo("contracted", lambda: contracted_vectors(model, ar, None))
    E = 0  # (E[1; served], E[T; served], E[1; obsolete], E[T; obsolete]) per unit time
    at_least: dict = {}  # (r, l) -> rate of batches of size >= l, per nu
    for i in range(K):
        r = levels[i]
        for l in range(1, min(K - i, model.kmax) + 1):
            if (r, l) not in at_least:
                at_least[(r, l)] = sum(De[(r, k)] for k in range(l, model.kmax + 1))
            u = at_least[(r, l)]
            q = p[0] @ u if i == 0 else (p[i].reshape(W, -1) * u.reshape(W, 1)).sum(axis=0)
            E = E + q @ contracted[(i, l)] if i else E + q * contracted[(i, l)]
    E = {"h1": E[0], "g1": E[1], "h2": E[2], "g2": E[3]}
    v1 = E["g1"] / E["h1"]
    v2 = ar.conv(0.0) if ar.is_zero(E["h2"]) else E["g2"] / E["h2"]
    p_success_tagged = E["h1"] / lam
    v = v1 * p_success + v2 * p_obs
    mean_number = sum(i * tot[i] for i in range(K + 1))
    # the coefficients as given (exact for the mpmath and ball routes: a cost of 0.1 is 1/10)
    c_loss, c_obs, a, c_rob, c_star = (ar.conv(getattr(model.costs, n)) for n in ("c_loss", "c_obs", "a", "c_rob", "c_star"))
    cost = lam * (c_loss * p_loss + c_obs * p_obs) + a * v1 + c_rob * n_act + c_star * p_star
    f = (lambda x: x) if mp else float
    return Measures(
        tuple(levels), f(p_star), tuple(f(x) for x in phi), f(n_act), f(lam), f(p_loss), f(p_loss_eq8), f(p_obs), f(p_success),
        f(p_success_tagged), f(v1), f(v2), f(v), f(mean_number), f(cost), model.states, st.method, st.residual,
    )
