"""Page-access time distributions X for the crawler-scheduling model.

Coffman–Liu–Weber (1997, §2) let X be the duration of one page access and
need only two numbers from it per page: the mean ``E[X]`` (``nu = 1/E[X]``)
and the Laplace transform at the page's change rate,

    h(mu) = E[exp(-mu X)]        (Coffman et al. 1997, §3, before Lemma 3.1).

Every distribution here is a frozen dataclass validated on construction,
exposing ``mean``, ``h(mu)`` (float64, vectorised), ``h_mp(mu)`` (mpmath, at
the caller's precision) and, where it makes sense, ``sample(rng, size)``.

>>> float(Exponential(2.0).h(2.0))
0.5
>>> Deterministic(1.0).mean
1.0
>>> float(parse_access("gamma:2,4").h(4.0))
0.25
>>> try:
...     parse_access("exp:0")
... except InvalidInput as exc:
...     print(exc)
--access: exp rate must be > 0 (got 0.0)
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import mpmath
import numpy as np

from ..errors import InvalidInput, SolverError
from ..validate import require_positive, require_probability_vector


def _check_h(value: float, mu, where: str) -> None:
    if not 0 < value < 1:
        raise InvalidInput(where, "Laplace transform h(mu) must lie in (0, 1) for mu > 0", value=float(value), entry=mu)


class AccessTime:
    """Base class: subclasses define ``mean``, ``h`` and ``h_mp``."""

    name = "X"

    @property
    def nu(self) -> float:
        """The access rate parameter nu = 1/E[X] (Coffman et al. 1997, Thm 3.4)."""
        return 1.0 / self.mean

    def h_checked(self, mu) -> np.ndarray:
        """``h(mu)`` for a vector of rates, each checked to lie in (0, 1)."""
        mu = np.atleast_1d(np.asarray(mu, dtype=float))
        out = np.asarray(self.h(mu), dtype=float)
        bad = np.flatnonzero(~((out > 0) & (out < 1)))  # nan fails too
        if bad.size:
            _check_h(out[bad[0]], int(bad[0]), f"h({self.name})")
        return out

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """Draw ``size`` i.i.d. copies of X; the base class knows no law, so it raises InvalidInput."""
        raise InvalidInput("access", f"{type(self).__name__} cannot be sampled (no distribution given)")


@dataclass(frozen=True)
class Deterministic(AccessTime):
    """X = T a.s.; h(mu) = exp(-mu T)."""

    T: float
    name = "det"

    def __post_init__(self):
        require_positive(self.T, "T")

    @property
    def mean(self) -> float:
        """E[X] = T."""
        return float(self.T)

    def h(self, mu):
        """h(mu) = exp(-mu T), float64, vectorised over mu."""
        return np.exp(-np.asarray(mu, dtype=float) * self.T)

    def h_mp(self, mu):
        """h(mu) = exp(-mu T) in mpmath at the caller's precision."""
        return mpmath.exp(-mpmath.mpf(mu) * mpmath.mpf(self.T))

    def sample(self, rng, size):
        """``size`` copies of T (X is deterministic; ``rng`` is unused)."""
        return np.full(size, float(self.T))


@dataclass(frozen=True)
class Gamma(AccessTime):
    """Gamma(shape, rate) (Erlang when ``shape`` is an integer); h = (rate/(rate+mu))^shape."""

    shape: float
    rate: float
    name = "gamma"

    def __post_init__(self):
        require_positive(self.shape, "shape")
        require_positive(self.rate, "rate")

    @property
    def mean(self) -> float:
        """E[X] = shape / rate."""
        return self.shape / self.rate

    def h(self, mu):
        """h(mu) = (rate / (rate + mu))^shape, float64, vectorised over mu."""
        return (self.rate / (self.rate + np.asarray(mu, dtype=float))) ** self.shape

    def h_mp(self, mu):
        """h(mu) = (rate / (rate + mu))^shape in mpmath at the caller's precision."""
        r = mpmath.mpf(self.rate)
        return (r / (r + mpmath.mpf(mu))) ** mpmath.mpf(self.shape)

    def sample(self, rng, size):
        """``size`` Gamma(shape, scale = 1/rate) draws from ``rng``."""
        return rng.gamma(self.shape, 1.0 / self.rate, size)


def Exponential(rate: float) -> Gamma:
    """Exp(rate) as Gamma(1, rate); h = rate/(rate+mu)."""
    return Gamma(1.0, rate)


@dataclass(frozen=True)
class Uniform(AccessTime):
    """Uniform on [a, b], 0 <= a < b; h = (e^{-mu a} - e^{-mu b}) / (mu (b - a))."""

    a: float
    b: float
    name = "uniform"

    def __post_init__(self):
        if not (isinstance(self.a, (int, float)) and math.isfinite(self.a) and self.a >= 0):
            raise InvalidInput("a", "must be a finite number >= 0", value=self.a)
        require_positive(self.b, "b")
        if not self.b > self.a:
            raise InvalidInput("b", "must be > a", value=self.b)

    @property
    def mean(self) -> float:
        """E[X] = (a + b) / 2."""
        return 0.5 * (self.a + self.b)

    def h(self, mu):
        """h(mu) = e^{-mu a} (1 - e^{-mu (b-a)}) / (mu (b-a)) for mu > 0, float64, vectorised."""
        mu = np.asarray(mu, dtype=float)
        w = self.b - self.a
        # -expm1 keeps digits when mu*w is small (the two exponentials nearly cancel).
        return np.exp(-mu * self.a) * (-np.expm1(-mu * w)) / (mu * w)

    def h_mp(self, mu):
        """h(mu) = e^{-mu a} (1 - e^{-mu (b-a)}) / (mu (b-a)) in mpmath at the caller's precision."""
        mu, a, b = (mpmath.mpf(v) for v in (mu, self.a, self.b))
        return mpmath.exp(-mu * a) * (-mpmath.expm1(-mu * (b - a))) / (mu * (b - a))

    def sample(self, rng, size):
        """``size`` Uniform[a, b] draws from ``rng``."""
        return rng.uniform(self.a, self.b, size)


@dataclass(frozen=True)
class HyperExponential(AccessTime):
    """Mixture of exponentials: with probability p_k, Exp(r_k); h = sum p_k r_k/(r_k+mu)."""

    probs: tuple
    rates: tuple
    name = "hyperexp"

    def __post_init__(self):
        p = require_probability_vector(self.probs, "probs")
        if len(self.rates) != p.size:
            raise InvalidInput("rates", f"must have as many entries as probs ({p.size})", value=len(self.rates))
        for i, r in enumerate(self.rates):
            if not (math.isfinite(r) and r > 0):
                raise InvalidInput("rates", "must be > 0", value=r, entry=i)
        object.__setattr__(self, "probs", tuple(float(v) for v in p))
        object.__setattr__(self, "rates", tuple(float(v) for v in self.rates))

    @property
    def mean(self) -> float:
        """E[X] = sum_k p_k / r_k."""
        return sum(p / r for p, r in zip(self.probs, self.rates))

    def h(self, mu):
        """h(mu) = sum_k p_k r_k / (r_k + mu), float64, vectorised over mu."""
        mu = np.asarray(mu, dtype=float)
        return sum(p * r / (r + mu) for p, r in zip(self.probs, self.rates))

    def h_mp(self, mu):
        """h(mu) = sum_k p_k r_k / (r_k + mu) in mpmath (fsum) at the caller's precision."""
        mu = mpmath.mpf(mu)
        return mpmath.fsum(mpmath.mpf(p) * mpmath.mpf(r) / (mpmath.mpf(r) + mu) for p, r in zip(self.probs, self.rates))

    def sample(self, rng, size):
        """``size`` draws: branch k with probability p_k, then an Exp(r_k) time."""
        k = rng.choice(len(self.probs), size=size, p=np.asarray(self.probs))
        return rng.exponential(1.0, size) / np.asarray(self.rates)[k]


class PhaseTypeAccess(AccessTime):
    """Phase-type PH(beta, S): h(mu) = beta (mu I - S)^{-1} S0 with S0 = -S 1,
    mean = beta (-S)^{-1} 1.  Validation (beta a probability vector, so no
    atom at 0 and h < 1; S a transient sub-generator of matching size) is
    that of :class:`crawlmath.numeric.bmap.PhaseType`.

    >>> round(float(PhaseTypeAccess([1.0], [[-2.0]]).h(2.0)), 12)
    0.5
    """

    name = "ph"

    def __init__(self, beta, S):
        # lazy: importing any module of numeric/bmap runs its package __init__ (the whole BMAP solver stack,
        # ~0.5 s); a schedule with phase-type access times is the only one that needs it
        from ..bmap import PhaseType

        self.ph = PhaseType(beta, S)

    def __repr__(self) -> str:
        return f"PhaseTypeAccess(order={self.ph.order}, mean={self.mean:.6g})"

    @property
    def mean(self) -> float:
        """E[X] = beta (-S)^{-1} 1 (``PhaseType.mean``)."""
        return self.ph.mean

    def h(self, mu):
        """h(mu) = beta (mu I - S)^{-1} S0: the solves of ``PhaseType.laplace``, batched over the entries of mu."""
        mu = np.asarray(mu, dtype=float)
        flat = mu.ravel()
        n = self.ph.order
        out = np.empty(flat.size)
        # Stacked (block, n, n) systems; blocks bound the temporary to about 64 MB whatever the order.
        block = max(1, (1 << 23) // (n * n))
        for start in range(0, flat.size, block):
            m = flat[start:start + block]
            A = m[:, None, None] * np.eye(n) - self.ph.S
            out[start:start + m.size] = np.linalg.solve(A, np.broadcast_to(self.ph.exit, (m.size, n))[..., None])[..., 0] @ self.ph.beta
        return out.reshape(mu.shape)

    def h_mp(self, mu):
        """h(mu) = beta (mu I - S)^{-1} S0 by an mpmath LU solve at the caller's precision."""
        n = self.ph.order
        A = mpmath.matrix(n, n)
        for i in range(n):
            for j in range(n):
                A[i, j] = (mpmath.mpf(mu) if i == j else 0) - mpmath.mpf(self.ph.S[i, j])
        sol = mpmath.lu_solve(A, mpmath.matrix([mpmath.mpf(v) for v in self.ph.exit]))
        return mpmath.fsum(mpmath.mpf(self.ph.beta[i]) * sol[i] for i in range(n))

    def sample(self, rng, size):
        """``size`` absorption times of the PH(beta, S) chain, simulated jump by jump."""
        # All ``size`` absorption times advance together, one jump per round.
        n = self.ph.order
        rates = -np.diag(self.ph.S)
        jump = np.zeros((n, n + 1))
        jump[:, :n] = self.ph.S / rates[:, None]
        np.fill_diagonal(jump[:, :n], 0.0)
        jump[:, n] = self.ph.exit / rates
        cum = np.cumsum(jump, axis=1)
        state = rng.choice(n, size=size, p=self.ph.beta)
        out = np.zeros(size)
        live = np.arange(size)
        while live.size:
            st = state[live]
            out[live] += rng.exponential(1.0, live.size) / rates[st]
            nxt = (rng.random(live.size)[:, None] > cum[st]).sum(axis=1)
            state[live] = nxt
            live = live[nxt < n]
        return out


@dataclass(frozen=True, eq=False)
class LaplaceAccess(AccessTime):
    """A user-supplied Laplace transform ``laplace(mu)`` with its mean.  Values
    are checked when used (``h_checked``): each must lie in (0, 1)."""

    laplace: Callable = field(repr=False)
    mean_: float = 1.0
    laplace_mp: Callable | None = field(default=None, repr=False)
    name = "laplace"

    def __post_init__(self):
        if not callable(self.laplace):
            raise InvalidInput("laplace", "must be callable", value=type(self.laplace).__name__)
        require_positive(self.mean_, "mean")

    @property
    def mean(self) -> float:
        """The user-given E[X] (``mean_``)."""
        return float(self.mean_)

    def h(self, mu):
        """The user's ``laplace(mu)`` applied entrywise in float64 (range checked only by ``h_checked``)."""
        mu = np.asarray(mu, dtype=float)
        return np.asarray([float(self.laplace(float(m))) for m in mu.ravel()]).reshape(mu.shape)

    def h_mp(self, mu):
        """``laplace_mp(mu)``; without it there is no high-precision value (the float ``laplace`` has
        16 digits, and an mpf of it would look like more), so `SolverError` (issue 30).

        >>> LaplaceAccess(lambda m: 1 / (1 + m)).h_mp(mpmath.mpf(1))
        Traceback (most recent call last):
        ...
        crawlmath.numeric.errors.SolverError: LaplaceAccess.h_mp needs laplace_mp: the float laplace(mu) has float64 accuracy only
        """
        if self.laplace_mp is None:
            raise SolverError("LaplaceAccess.h_mp needs laplace_mp: the float laplace(mu) has float64 accuracy only")
        return self.laplace_mp(mu)


def _numbers(text: str, count: int, kind: str) -> list[float]:
    parts = text.split(",") if text else []
    if len(parts) != count:
        raise InvalidInput("--access", f"{kind} takes {count} comma-separated number(s)", value=text)
    try:
        vals = [float(p) for p in parts]
    except ValueError:
        raise InvalidInput("--access", f"{kind} parameters must be numbers", value=text) from None
    for i, v in enumerate(vals):
        if not math.isfinite(v):
            raise InvalidInput("--access", f"{kind} parameters must be finite", value=v, entry=i)
    return vals


def parse_access(spec: str) -> AccessTime:
    """Parse ``det:T``, ``exp:RATE``, ``gamma:SHAPE,RATE``, ``uniform:A,B`` or
    ``hyperexp:p1,r1,p2,r2[,...]``; every error names ``--access``."""
    kind, _, rest = spec.partition(":")
    kind = kind.strip().lower()
    try:
        if kind == "det":
            (T,) = _numbers(rest, 1, kind)
            if not T > 0:
                raise InvalidInput("--access", "det time T must be > 0", value=T)
            return Deterministic(T)
        if kind == "exp":
            (r,) = _numbers(rest, 1, kind)
            if not r > 0:
                raise InvalidInput("--access", "exp rate must be > 0", value=r)
            return Exponential(r)
        if kind == "gamma":
            k, r = _numbers(rest, 2, kind)
            if not (k > 0 and r > 0):
                raise InvalidInput("--access", "gamma shape and rate must be > 0", value=rest)
            return Gamma(k, r)
        if kind == "uniform":
            a, b = _numbers(rest, 2, kind)
            if not (0 <= a < b):
                raise InvalidInput("--access", "uniform needs 0 <= A < B", value=rest)
            return Uniform(a, b)
        if kind == "hyperexp":
            n = len(rest.split(",")) if rest else 0
            if n < 2 or n % 2:
                raise InvalidInput("--access", "hyperexp takes pairs p1,r1,p2,r2,...", value=rest)
            vals = _numbers(rest, n, kind)
            return HyperExponential(tuple(vals[0::2]), tuple(vals[1::2]))
    except InvalidInput as exc:
        if exc.argument == "--access":
            raise
        raise InvalidInput("--access", f"{kind}: {exc.argument} {exc.rule}", value=exc.value, entry=exc.entry) from None
    raise InvalidInput("--access", "kind must be one of det, exp, gamma, uniform, hyperexp", value=spec)
