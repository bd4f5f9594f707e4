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
from fractions import Fraction
from functools import cached_property
from typing import Sequence

import numpy as np
from scipy.linalg import expm

from ..errors import InvalidInput
from ..exact import exact as _exact, to_float as _to_float
from ..tolerance import STRUCTURE_ABS
from ..validate import require_generator, require_probability_vector, require_square, require_subgenerator


# --- exact inputs ---------------------------------------------------------------
# The float convention of the project (`numeric.exact`): a float x stands for the decimal repr(x), so 0.2 means 1/5.
# Model files keep the decimals as typed (`DecimalText`).  Every PH and BMAP keeps its inputs as Fractions next to the
# float64 copies the fast solvers use; the certified routes read the Fractions.


class DecimalText(float):
    """A float parsed from a model file that remembers the decimal text it was
    parsed from (``json.loads(..., parse_float=DecimalText)``): arithmetic
    sees the nearest double, `exact` sees the decimal as typed.

    >>> x = DecimalText("0.10000000000000000001")
    >>> x == 0.1, exact(x, argument="x")
    (True, Fraction(10000000000000000001, 100000000000000000000))
    """

    text: str

    def __new__(cls, text: str):
        obj = super().__new__(cls, text)
        obj.text = text
        return obj


def exact(value, *, argument: str, entry=None) -> Fraction:
    """The exact rational an input stands for: `numeric.exact.exact` (int,
    Fraction, Decimal, decimal strings as written, a float as its shortest
    decimal: 0.2 -> 1/5), and a `DecimalText` as the text it was parsed from.
    Anything else: `InvalidInput` naming ``argument``.

    >>> from decimal import Decimal
    >>> exact(0.2, argument="x"), exact("6.58e-05", argument="x"), exact(Decimal("1.5"), argument="x")
    (Fraction(1, 5), Fraction(329, 5000000), Fraction(3, 2))
    """
    return _exact(value.text if isinstance(value, DecimalText) else value, argument=argument, entry=entry)


def exact_array(values, argument: str, ndim: int) -> np.ndarray:
    """``values`` (nested lists, an array) as an object array of `exact` Fractions with ``ndim`` dimensions."""
    if isinstance(values, np.ndarray) and values.dtype != object:
        arr = values
    else:
        try:
            arr = np.array(values, dtype=object)
        except ValueError:  # ragged
            raise InvalidInput(argument, f"must be a rectangular {ndim}-dimensional array") from None
    if arr.ndim != ndim or 0 in arr.shape:
        raise InvalidInput(argument, f"must be a non-empty {'vector' if ndim == 1 else 'matrix'}", value=arr.shape)
    if arr.dtype == object and all(type(x) is Fraction for x in arr.flat):  # already exact (scaled, lumped, Kronecker sums)
        return arr.copy()
    out = np.empty(arr.shape, dtype=object)
    for idx, x in np.ndenumerate(arr):
        out[idx] = exact(x.item() if isinstance(x, np.generic) else x, argument=argument, entry=idx if ndim > 1 else idx[0])
    return out


def to_float(a: np.ndarray, argument: str) -> np.ndarray:
    """The correctly rounded float64 array of an exact (Fraction) array (`InvalidInput` beyond the float range)."""
    try:
        return np.array([float(x) for x in a.flat], dtype=float).reshape(a.shape)
    except OverflowError:  # name the entry
        return np.array([_to_float(x, argument=argument, entry=i) for i, x in enumerate(a.flat)], dtype=float).reshape(a.shape)



class PhaseType:
    """A PH distribution ``(beta, S)`` of order ``M``; the absorption time of a
    CTMC started in ``beta`` with transient generator ``S``.

    ``beta`` must be a probability vector (no mass at the absorbing state) and
    ``S`` a transient sub-generator of matching size.  Entries may be any
    `exact` number; ``beta_exact``/``S_exact`` keep them as Fractions,
    ``beta``/``S`` are their correctly rounded float64 copies.
    """

    def __init__(self, beta, S, *, names: tuple[str, str] = ("beta", "S")):
        self.beta_exact = exact_array(beta, names[0], 1)
        self.S_exact = exact_array(S, names[1], 2)
        self.beta = require_probability_vector(to_float(self.beta_exact, names[0]), names[0])
        self.S = require_subgenerator(to_float(self.S_exact, names[1]), names[1])
        if self.S.shape[0] != self.beta.size:
            raise InvalidInput(names[1], f"must be {self.beta.size}x{self.beta.size} to match {names[0]}", value=self.S.shape)
        for a in (self.S, self.beta, self.S_exact, self.beta_exact):
            a.setflags(write=False)

    @property
    def order(self) -> int:
        """The number of transient phases, len(beta)."""
        return self.beta.size

    @cached_property
    def exit(self) -> np.ndarray:
        """Exit-rate column ``S0 = -S e``."""
        return -self.S.sum(axis=1)

    @cached_property
    def exit_exact(self) -> np.ndarray:
        """``S0 = -S e`` in exact arithmetic (Fractions)."""
        return -self.S_exact.sum(axis=1)

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
        return float(1 - self.beta @ expm(self.S * x) @ np.ones(self.order))

    def scaled(self, s) -> "PhaseType":
        """The PH with sub-generator ``s S`` (time divided by ``s``), in exact arithmetic."""
        return PhaseType(self.beta_exact, self.S_exact * exact(s, argument="s"))

    def __repr__(self) -> str:
        return f"PhaseType(beta={self.beta.tolist()}, S={self.S.tolist()})"


class BMAP:
    """A BMAP given by ``D = [D_0, D_1, ..., D_kmax]`` (square, same size).

    Rules: ``D_0`` off-diagonal >= 0; ``D_k`` (k >= 1) entrywise >= 0;
    ``D(1)`` rows sum to 0 within `STRUCTURE_ABS` (relative to the row's
    largest entry); ``D_0`` transient (nonsingular, all eigenvalues with
    negative real part) so that batches keep coming.  Entries may be any
    `exact` number: ``D_exact`` keeps them as Fractions, ``D`` holds their
    correctly rounded float64 copies.
    """

    def __init__(self, D: Sequence, *, name: str = "D"):
        if len(D) < 2:
            raise InvalidInput(name, "needs D_0 and at least D_1", value=len(D))
        exact_mats = [exact_array(d, f"{name}_{k}", 2) for k, d in enumerate(D)]
        mats = [require_square(to_float(d, f"{name}_{k}"), f"{name}_{k}") for k, d in enumerate(exact_mats)]
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
        while len(mats) > 2 and not any(exact_mats[-1].flat):
            mats.pop()
            exact_mats.pop()
        self.D, self.D_exact = tuple(mats), tuple(exact_mats)
        for m in (*self.D, *self.D_exact):
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

    def batch_rates_exact(self, kmax: int | None = None) -> list:
        """``[D_0, ..., D_kmax]`` as exact (Fraction) arrays, padded with zero matrices."""
        kmax = self.kmax if kmax is None else kmax
        zero = np.full((self.order, self.order), Fraction(0), dtype=object)
        return [self.D_exact[k] if k <= self.kmax else zero for k in range(kmax + 1)]

    @cached_property
    def D1_exact(self) -> np.ndarray:
        """``D(1) = sum_k D_k`` in exact arithmetic."""
        return sum(self.D_exact)

    def scaled(self, r) -> "BMAP":
        """The BMAP ``(r D_0, ..., r D_k)`` (time sped up by ``r``), in exact arithmetic."""
        r = exact(r, argument="r")
        return BMAP([d * r for d in self.D_exact])

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
    """Kronecker sum ``A ⊕ B = A ⊗ I + I ⊗ B`` of square matrices (exact for Fraction arrays)."""
    return np.kron(A, _eye_like(B.shape[0], A)) + np.kron(_eye_like(A.shape[0], B), B)


def _eye_like(n: int, a: np.ndarray) -> np.ndarray:
    """The n x n identity, of Python ints when ``a`` holds exact numbers (so products stay exact)."""
    return np.eye(n, dtype=int).astype(object) if a.dtype == object else np.eye(n)


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
                    factor = b.D_exact[0] if m <= l else b.D1_exact
                else:
                    factor = b.batch_rates_exact(kmax)[k] if m <= l else np.full((b.order, b.order), Fraction(0), dtype=object)
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
        ql = exact(ql, argument="q", entry=l - 1)
        if not 0 < ql <= 1:
            raise InvalidInput("q", "thinning probabilities must lie in (0, 1]", value=float(ql), entry=l - 1)
        mats = [ql * common.D_exact[0] + (1 - ql) * common.D1_exact] + [ql * d for d in common.D_exact[1:]]
        out.append(BMAP(mats, name=f"D^({l})"))
    return out


def bmmap(D0, Dk_by_robot: Sequence[Sequence]) -> list[BMAP]:
    """Interpretation 3 (BMMAP): ``Dk_by_robot[m-1][k-1]`` is ``D_k^(m)``.
    With l robots active, batches marked by robots ``m > l`` become phase
    changes: ``D_0^(l) = D_0 + sum_{k>=1} sum_{m>l} D_k^(m)``,
    ``D_k^(l) = sum_{m<=l} D_k^(m)``."""
    D0 = exact_array(D0, "D_0", 2)
    require_square(to_float(D0, "D_0"), "D_0")
    N = len(Dk_by_robot)
    kmax = max(len(x) for x in Dk_by_robot)
    full = np.full((N, kmax, *D0.shape), Fraction(0), dtype=object)
    for m, mats in enumerate(Dk_by_robot):
        for k, d in enumerate(mats):
            name = f"D_{k + 1}^({m + 1})"
            full[m, k] = exact_array(d, name, 2)
            require_square(to_float(full[m, k], name), name)
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
    at random among that block's phases; ``beta`` splits at random too.  The
    splits are random rationals, so the sums are exact and `Lumping` (exact
    comparison) recovers the planted blocks."""
    n = base.order
    N = n * copies
    S = np.full((N, N), Fraction(0), dtype=object)
    beta = np.full(N, Fraction(0), dtype=object)

    def split(total, size):  # ``total`` split into ``size`` random rational parts
        w = [Fraction(int(x)) for x in rng.integers(1, 10, size)]
        return [total * x / sum(w) for x in w]

    for a in range(n):
        own = list(range(a * copies, (a + 1) * copies))
        beta[own] = split(base.beta_exact[a], copies)
        for i in own:
            for c in range(n):
                if c != a:
                    S[i, c * copies:(c + 1) * copies] = split(base.S_exact[a, c], copies)
            inner = [Fraction(int(x), 10) for x in rng.integers(0, 10, copies)]
            inner[i - a * copies] = Fraction(0)
            S[i, own] = inner
            S[i, i] = base.S_exact[a, a] - sum(inner)
    return PhaseType(beta, S)


def random_bmap(rng: np.random.Generator, W: int, kmax: int) -> BMAP:
    """A random valid BMAP with W phases and batches up to kmax; a cyclic
    shift added to D_1 keeps D(1) irreducible."""
    Ds = [rng.uniform(0, 1, (W, W)) for _ in range(kmax + 1)]
    Ds[1] = Ds[1] + 0.1 * np.roll(np.eye(W), 1, axis=1)
    D0 = Ds[0] - np.diag(np.diag(Ds[0]))
    Ds[0] = D0 - np.diag(D0.sum(1) + sum(x.sum(1) for x in Ds[1:]))
    return BMAP(Ds)
