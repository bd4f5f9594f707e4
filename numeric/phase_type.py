"""Phase-type distributions and batch Markovian arrival processes (BMAPs).

Notation of Avrachenkov et al. (seed 000, §2):

- a PH distribution ``(beta, S)``: ``beta`` the initial probability row vector
  of the transient phases, ``S`` the sub-generator, ``S0 = -S e`` the exit
  rates.  Mean ``b1 = beta (-S)^{-1} e``; k-th moment ``k! beta (-S)^{-k} e``.
- a BMAP ``(D_0, D_1, ..., D_k)``: ``D_0`` the phase changes without arrival,
  ``D_k`` those with a batch of k arrivals; ``D(1) = sum_k D_k`` a generator
  with stationary vector ``theta``.  Fundamental rate
  ``lambda = theta sum_k k D_k e``, batch rate ``lambda_g = theta (-D_0) e``,
  variance of inter-batch times ``v = 2 lambda_g^{-1} theta (-D_0)^{-1} e -
  lambda_g^{-2}`` and lag-1 correlation ``c_cor`` (§2, after eq. (1)).

Both validate themselves on construction and raise `InvalidInput` naming the
matrix, the entry and the rule broken.

>>> ph = PhaseType([0.4, 0.6], [[-3, 1], [2, -3]])
>>> round(ph.mean, 3)
0.657
>>> exp = PhaseType([1.0], [[-2.0]])
>>> exp.mean, exp.scv, exp.laplace(2.0)
(0.5, 1.0, 0.5)
>>> BMAP([[[-1.0]], [[1.0]]]).lam
1.0
"""
from __future__ import annotations

import math
from functools import cached_property
from typing import Sequence

import numpy as np

from .errors import InvalidInput
from .tolerance import STRUCTURE_ABS
from .validate import require_generator, require_probability_vector, require_square, require_subgenerator


class PhaseType:
    """A PH distribution ``(beta, S)`` of order ``M``; the absorption time of a
    CTMC started in ``beta`` with transient generator ``S``.

    ``beta`` must be a probability vector (no mass at the absorbing state) and
    ``S`` a transient sub-generator of matching size.
    """

    def __init__(self, beta, S, *, names: tuple[str, str] = ("beta", "S")):
        self.beta = require_probability_vector(beta, names[0])
        self.S = require_subgenerator(S, names[1])
        if self.S.shape[0] != self.beta.size:
            raise InvalidInput(names[1], f"must be {self.beta.size}x{self.beta.size} to match {names[0]}", value=self.S.shape)
        self.S.setflags(write=False)
        self.beta.setflags(write=False)

    @property
    def order(self) -> int:
        """The number of transient phases, len(beta)."""
        return self.beta.size

    @cached_property
    def exit(self) -> np.ndarray:
        """Exit-rate column ``S0 = -S e``."""
        return -self.S.sum(axis=1)

    @cached_property
    def _neg_inv(self) -> np.ndarray:
        return np.linalg.inv(-self.S)

    def moment(self, k: int) -> float:
        """``E[X^k] = k! beta (-S)^{-k} e``."""
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
            raise InvalidInput("k", "must be an integer >= 0", value=k)
        v = np.ones(self.order)
        for _ in range(k):
            v = self._neg_inv @ v
        return float(math.factorial(k) * self.beta @ v)

    @property
    def mean(self) -> float:
        """E[X] = beta (-S)^{-1} e."""
        return self.moment(1)

    @property
    def variance(self) -> float:
        """Var X = E[X^2] - E[X]^2, with E[X^2] = 2 beta (-S)^{-2} e."""
        return self.moment(2) - self.mean**2

    @property
    def scv(self) -> float:
        """Squared coefficient of variation ``Var X / (E X)^2``."""
        return self.variance / self.mean**2

    def laplace(self, s) -> float:
        """Laplace–Stieltjes transform ``E[e^{-sX}] = beta (sI - S)^{-1} S0`` (Re s >= 0)."""
        value = self.beta @ np.linalg.solve(s * np.eye(self.order) - self.S, self.exit)
        return float(value.real) if np.isrealobj(s) else complex(value)

    def cdf(self, x: float) -> float:
        """``P(X <= x) = 1 - beta exp(S x) e``."""
        from scipy.linalg import expm

        return float(1 - self.beta @ expm(self.S * x) @ np.ones(self.order))

    def scaled(self, s: float) -> "PhaseType":
        """The PH with sub-generator ``s S`` (time divided by ``s``)."""
        return PhaseType(self.beta, self.S * s)

    def __repr__(self) -> str:
        return f"PhaseType(beta={self.beta.tolist()}, S={self.S.tolist()})"


# --- exact reduction by ordinary lumpability ---------------------------------


class Lumping:
    """The coarsest partition of the transient phases of a PH distribution
    ``(beta, S)`` under which the phase process, absorbing state included, is
    *ordinarily lumpable*, and the reduced representation it gives.

    A partition ``{B_1, ..., B_n}`` is ordinarily lumpable when every phase
    ``i`` of a block ``B`` has the same total rate into each block ``C`` and
    the same exit rate: ``sum_{j in C} S[i, j] = Ŝ[B, C]`` and ``S0[i] =
    Ŝ0[B]`` for all ``i in B`` (Kemeny–Snell, *Finite Markov Chains*, Thm
    6.3.2).  The block process is then Markov with sub-generator ``Ŝ`` and
    starts in ``β̂[C] = sum_{i in C} beta[i]``, so ``(β̂, Ŝ)`` has the same
    absorption-time law (and the same law of the block path) as ``(beta, S)``.

    In the BMAP/PH/1/K chain each phase enters only through its block: the
    service phase through ``S`` and ``S0`` (the next service starts in
    ``beta``), each waiting page's obsolescence phase through ``Γ``, ``Γ_0``
    and ``γ``; the lumped chain is therefore an exact reduction of the full
    one (Avrachenkov et al. §2–§3), checked in the claims by agreement of
    every measure to 1e-12.

    The partition is found by partition refinement from the classes of equal
    exit rate: a block is split while two of its phases differ in their rate
    into some block.  Equal means equal within ``STRUCTURE_ABS`` times the
    largest rate (the inputs are decimal numbers stored in binary).

    >>> lp = Lumping(PhaseType([0.3, 0.7], [[-0.6, 0.4], [0.1, -0.3]]))
    >>> lp.blocks, lp.reduced.S.round(12).tolist(), lp.reduced.beta.tolist()
    (((0, 1),), [[-0.2]], [1.0])
    >>> Lumping(PhaseType([0.4, 0.6], [[-3, 1], [2, -3]])).order_after
    2
    """

    def __init__(self, ph: "PhaseType"):
        self.original = ph
        self.blocks = coarsest_lumpable_partition(ph.S, ph.exit)
        self.reduced = self._reduce(ph)

    @property
    def order_before(self) -> int:
        """Order of the representation as given."""
        return self.original.order

    @property
    def order_after(self) -> int:
        """Order of the lumped representation (number of blocks of the coarsest lumpable partition)."""
        return len(self.blocks)

    @property
    def trivial(self) -> bool:
        """True when no two phases are merged."""
        return self.order_after == self.order_before

    def _reduce(self, ph: "PhaseType") -> "PhaseType":
        if len(self.blocks) == ph.order:
            return ph
        n = len(self.blocks)
        beta = np.array([ph.beta[list(B)].sum() for B in self.blocks])
        S = np.empty((n, n))
        for a, B in enumerate(self.blocks):
            for c, C in enumerate(self.blocks):
                S[a, c] = ph.S[np.ix_(B, C)].sum(axis=1).mean()
        return PhaseType(beta, S)

    def __repr__(self) -> str:
        return f"Lumping({self.order_before} -> {self.order_after} phases, blocks={self.blocks})"


def coarsest_lumpable_partition(S: np.ndarray, exit_rates: np.ndarray) -> tuple[tuple[int, ...], ...]:
    """Coarsest partition of ``range(n)`` that is ordinarily lumpable for the
    sub-generator ``S`` with exit rates ``exit_rates`` (see `Lumping`).
    Blocks are sorted tuples, ordered by their smallest phase.

    >>> coarsest_lumpable_partition(np.array([[-2.0, 1, 1], [0, -2, 1], [0, 1, -2]]), np.array([0.0, 1, 1]))
    ((0,), (1, 2))
    """
    n = S.shape[0]
    tol = STRUCTURE_ABS * max(1.0, float(np.abs(S).max()), float(np.abs(exit_rates).max()))
    label = _classes(exit_rates, tol)
    while True:
        blocks = _blocks_of(label)
        into = np.stack([S[:, list(B)].sum(axis=1) for B in blocks], axis=1)  # rate of phase i into block C
        new = np.zeros(n, dtype=int)
        for B in blocks:
            keys = [label[B[0]]] * len(B)
            for c in range(len(blocks)):
                part = _classes(into[list(B), c], tol)
                keys = [k * (len(B) + 1) + p for k, p in zip(keys, part)]
            for i, k in zip(B, keys):
                new[i] = k
        new = _canonical(new)
        if len(set(new)) == len(blocks):
            return blocks
        label = new


def _classes(values: np.ndarray, tol: float) -> list[int]:
    """Class labels of ``values`` that are equal within ``tol`` (chains of
    neighbours closer than ``tol`` after sorting)."""
    order = np.argsort(values, kind="stable")
    out = [0] * len(values)
    k = 0
    for a, b in zip(order, order[1:]):
        if values[b] - values[a] > tol:
            k += 1
        out[b] = k
    out[order[0]] = 0
    return out


def _canonical(labels) -> np.ndarray:
    first: dict = {}
    return np.array([first.setdefault(x, len(first)) for x in labels])


def _blocks_of(labels) -> tuple[tuple[int, ...], ...]:
    groups: dict = {}
    for i, x in enumerate(labels):
        groups.setdefault(x, []).append(i)
    return tuple(sorted(tuple(g) for g in groups.values()))


class BMAP:
    """A BMAP given by ``D = [D_0, D_1, ..., D_kmax]`` (square, same size).

    Rules: ``D_0`` off-diagonal >= 0; ``D_k`` (k >= 1) entrywise >= 0;
    ``D(1)`` rows sum to 0 within `STRUCTURE_ABS` (relative to the row's
    largest entry); ``D_0`` transient (nonsingular, all eigenvalues with
    negative real part) so that batches keep coming.
    """

    def __init__(self, D: Sequence, *, name: str = "D"):
        if len(D) < 2:
            raise InvalidInput(name, "needs D_0 and at least D_1", value=len(D))
        mats = [require_square(d, f"{name}_{k}") for k, d in enumerate(D)]
        n = mats[0].shape[0]
        for k, m in enumerate(mats):
            if m.shape != (n, n):
                raise InvalidInput(f"{name}_{k}", f"must be {n}x{n} like {name}_0", value=m.shape)
            if k >= 1:
                bad = np.argwhere(m < 0)
                if bad.size:
                    i, j = map(int, bad[0])
                    raise InvalidInput(f"{name}_{k}", "entries must be >= 0 (batch transitions are rates)", value=float(m[i, j]), entry=(i, j))
        require_subgenerator(mats[0], f"{name}_0")
        require_generator(sum(mats), f"{name}(1)")
        self._name = name
        while len(mats) > 2 and not mats[-1].any():
            mats.pop()
        self.D = tuple(mats)
        for m in self.D:
            m.setflags(write=False)
        self.theta  # noqa: B018 - validates irreducibility of D(1) now

    @property
    def order(self) -> int:
        """W̄, the order of the matrices D_k (number of phases of the directing chain)."""
        return self.D[0].shape[0]

    @property
    def kmax(self) -> int:
        """Largest batch size with a non-zero matrix."""
        return len(self.D) - 1

    @cached_property
    def D1(self) -> np.ndarray:
        """``D(1) = sum_k D_k``, the generator of the directing chain."""
        return sum(self.D)

    @cached_property
    def theta(self) -> np.ndarray:
        """Stationary vector of ``D(1)``."""
        return stationary(self.D1, f"{self._name}(1)")

    @cached_property
    def lam(self) -> float:
        """Fundamental rate ``theta D'(1) e`` (pages per unit time)."""
        return float(sum(k * self.theta @ d.sum(axis=1) for k, d in enumerate(self.D)))

    @cached_property
    def lam_g(self) -> float:
        """Batch rate ``theta (-D_0) e``."""
        return float(self.theta @ (-self.D[0]).sum(axis=1))

    @cached_property
    def _neg_D0_inv(self) -> np.ndarray:
        return np.linalg.inv(-self.D[0])

    @cached_property
    def variance(self) -> float:
        """Variance of inter-batch times, ``2 lambda_g^{-1} theta (-D_0)^{-1} e - lambda_g^{-2}``."""
        e = np.ones(self.order)
        return float(2 / self.lam_g * self.theta @ self._neg_D0_inv @ e - self.lam_g**-2)

    @cached_property
    def c_cor(self) -> float:
        """Lag-1 correlation of successive inter-batch times (§2)."""
        e = np.ones(self.order)
        inner = self.theta @ self._neg_D0_inv @ (self.D1 - self.D[0]) @ self._neg_D0_inv @ e
        return float((self.lam_g * inner - 1) / (self.variance * self.lam_g**2))

    @property
    def mean_batch(self) -> float:
        """Mean batch size lambda / lambda_g (fundamental rate over batch rate)."""
        return self.lam / self.lam_g

    def batch_rates(self, kmax: int | None = None) -> np.ndarray:
        """Array ``[D_0, ..., D_kmax]`` padded with zero matrices."""
        kmax = self.kmax if kmax is None else kmax
        out = np.zeros((kmax + 1, self.order, self.order))
        for k, d in enumerate(self.D[: kmax + 1]):
            out[k] = d
        return out

    def scaled(self, r: float) -> "BMAP":
        """The BMAP ``(r D_0, ..., r D_k)`` (time sped up by ``r``)."""
        return BMAP([d * r for d in self.D])

    def __repr__(self) -> str:
        return f"BMAP(order={self.order}, kmax={self.kmax}, lam={self.lam:.6g})"


def stationary(Q: np.ndarray, name: str = "Q") -> np.ndarray:
    """Stationary row vector of an irreducible generator ``Q`` (``x Q = 0, x e = 1``).
    A generator whose null space has dimension > 1 (several closed classes)
    is refused."""
    n = Q.shape[0]
    sv = np.linalg.svd(Q, compute_uv=False)
    if n > 1 and sv[-2] <= STRUCTURE_ABS * max(1.0, float(sv[0])):
        raise InvalidInput(name, "generator must be irreducible (no unique stationary vector)", value=float(sv[-2]))
    A = np.vstack([Q.T, np.ones((1, n))])
    b = np.zeros(n + 1)
    b[-1] = 1
    x, *_ = np.linalg.lstsq(A, b, rcond=None)
    return x


def kron_sum(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Kronecker sum ``A ⊕ B = A ⊗ I + I ⊗ B`` of square matrices."""
    return np.kron(A, np.eye(B.shape[0])) + np.kron(np.eye(A.shape[0]), B)


# --- the four arrival interpretations of §2 --------------------------------


def independent_robots(robots: Sequence[BMAP]) -> list[BMAP]:
    """Interpretation 1: robot l is an independent BMAP; with l robots active
    the first l deliver and the others' directing chains keep running.

    ``D_0^(l) = D_0^(1) ⊕ ... ⊕ D_0^(l) ⊕ D^(l+1)(1) ⊕ ... ⊕ D^(N)(1)`` and
    ``D_k^(l) = D_k^(1) ⊕ ... ⊕ D_k^(l) ⊕ 0 ⊕ ... ⊕ 0``.  (The printed formula
    has a Kronecker *product* before ``D^(l+1)(1)``; that is no generator.)
    A batch of size k comes from a single robot; simultaneous batches have
    probability zero.
    """
    N = len(robots)
    kmax = max(b.kmax for b in robots)
    out = []
    for l in range(1, N + 1):
        mats = []
        for k in range(kmax + 1):
            total = None
            for m, b in enumerate(robots, start=1):
                if k == 0:
                    factor = b.D[0] if m <= l else b.D1
                else:
                    factor = b.batch_rates(kmax)[k] if m <= l else np.zeros((b.order, b.order))
                total = factor if total is None else kron_sum(total, factor)
            mats.append(total)
        out.append(BMAP(mats, name=f"D^({l})"))
    return out


def thinned(common: BMAP, q: Sequence[float]) -> list[BMAP]:
    """Interpretation 2: with l robots active each batch of the common BMAP is
    kept with probability ``q_l``: ``D_0^(l) = q_l D_0 + (1 - q_l) D(1)``,
    ``D_k^(l) = q_l D_k``."""
    out = []
    for l, ql in enumerate(q, start=1):
        if not 0 < ql <= 1:
            raise InvalidInput("q", "thinning probabilities must lie in (0, 1]", value=ql, entry=l - 1)
        mats = [ql * common.D[0] + (1 - ql) * common.D1] + [ql * d for d in common.D[1:]]
        out.append(BMAP(mats, name=f"D^({l})"))
    return out


def bmmap(D0, Dk_by_robot: Sequence[Sequence]) -> list[BMAP]:
    """Interpretation 3 (BMMAP): ``Dk_by_robot[m-1][k-1]`` is ``D_k^(m)``.
    With l robots active, batches marked by robots ``m > l`` become phase
    changes: ``D_0^(l) = D_0 + sum_{k>=1} sum_{m>l} D_k^(m)``,
    ``D_k^(l) = sum_{m<=l} D_k^(m)``."""
    D0 = require_square(D0, "D_0")
    N = len(Dk_by_robot)
    kmax = max(len(x) for x in Dk_by_robot)
    full = np.zeros((N, kmax, *D0.shape))
    for m, mats in enumerate(Dk_by_robot):
        for k, d in enumerate(mats):
            full[m, k] = require_square(d, f"D_{k + 1}^({m + 1})")
    out = []
    for l in range(1, N + 1):
        mats = [D0 + full[l:].sum(axis=(0, 1))] + [full[:l, k].sum(axis=0) for k in range(kmax)]
        out.append(BMAP(mats, name=f"D^({l})"))
    return out


def random_phase_type(rng: np.random.Generator, n: int) -> PhaseType:
    """A random valid PH distribution of order n (for property tests and
    structural checks): S strictly diagonally dominant, so transient."""
    S = rng.uniform(0, 1, (n, n))
    S -= np.diag(np.diag(S))
    S -= np.diag(S.sum(1) + rng.uniform(0.2, 1.0, n))
    b = rng.uniform(0.1, 1, n)
    return PhaseType(b / b.sum(), S)


def random_lumpable_phase_type(rng: np.random.Generator, base: PhaseType, copies: int) -> PhaseType:
    """A random PH of order ``copies * base.order`` that lumps exactly onto
    ``base`` (phases ``a*copies .. a*copies + copies - 1`` form block a): each
    phase has ``base``'s exit rate and total rate into every other block, split
    at random among that block's phases; ``beta`` splits at random too."""
    n = base.order
    N = n * copies
    S = np.zeros((N, N))
    beta = np.zeros(N)
    for a in range(n):
        own = range(a * copies, (a + 1) * copies)
        w = rng.uniform(0.1, 1, copies)
        beta[list(own)] = base.beta[a] * w / w.sum()
        for i in own:
            for c in range(n):
                if c != a:
                    split = rng.uniform(0.1, 1, copies)
                    S[i, c * copies:(c + 1) * copies] = base.S[a, c] * split / split.sum()
            inner = rng.uniform(0, 1, copies)
            inner[i - a * copies] = 0
            S[i, list(own)] = inner
            S[i, i] = base.S[a, a] - inner.sum()
    return PhaseType(beta, S)


def random_bmap(rng: np.random.Generator, W: int, kmax: int) -> BMAP:
    """A random valid BMAP with W phases and batches up to kmax; a cyclic
    shift added to D_1 keeps D(1) irreducible."""
    Ds = [rng.uniform(0, 1, (W, W)) for _ in range(kmax + 1)]
    Ds[1] = Ds[1] + 0.1 * np.roll(np.eye(W), 1, axis=1)
    D0 = Ds[0] - np.diag(np.diag(Ds[0]))
    Ds[0] = D0 - np.diag(D0.sum(1) + sum(x.sum(1) for x in Ds[1:]))
    return BMAP(Ds)
