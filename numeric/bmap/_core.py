"""The BMAP/PH/1/K model with PH obsolescence and threshold control of the number of active robots
(Avrachenkov, Dudin, Klimenok, Nain, Semenova; seed 000, §2): `BmapModel`, its threshold `Policy` and the
cost coefficients `Costs` of eq. (2).

Notation (§2–§4 of the paper):

- ``K``: at most K pages in the system (buffer K-1, one in service);
- ``arrivals[r-1]``: the BMAP ``(D_0^(r), D_1^(r), ...)`` when r robots are
  active (interpretation 4 of §2; the other three build such a list, see
  :mod:`crawlmath.numeric.bmap._phase_type`);
- ``service = (beta, S)`` of order ``M``; ``obsolescence = (gamma, Gamma)`` of
  order ``R``: each page *waiting in the buffer* carries its own obsolescence
  phase and leaves, lost, when it is absorbed;
- ``chi(i)``: robots active when i pages are in the system (the policy).

>>> Policy((3, 1), (2,)).levels(4)        # mode 3 up to 2 pages, mode 1 above
(3, 3, 3, 1, 1)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ..errors import InvalidInput
from ._lumping import Lumping
from ._phase_type import BMAP, PhaseType
from ..validate import require_int, require_real


@dataclass(frozen=True)
class Costs:
    """Cost coefficients of eq. (2), all >= 0."""

    c_loss: float = 0.0
    c_obs: float = 0.0
    a: float = 0.0
    c_rob: float = 0.0
    c_star: float = 0.0

    def __post_init__(self):
        for name in ("c_loss", "c_obs", "a", "c_rob", "c_star"):
            v = require_real(getattr(self, name), name)
            if v < 0:
                raise InvalidInput(name, "cost coefficients must be >= 0", value=v)


@dataclass(frozen=True)
class Policy:
    """A threshold policy: ``modes`` are robot counts in the order in which
    they are used as the queue grows (normally decreasing), ``thresholds`` the
    ``j_1 <= ... <= j_{n-1}``: mode ``modes[r]`` is used for
    ``j_r + 1 <= i <= j_{r+1}`` pages in the system (``j_0 = -1``, ``j_n = K``).
    Equal thresholds (non-strict, §2) leave a mode unused."""

    modes: tuple[int, ...]
    thresholds: tuple[int, ...] = ()

    def __post_init__(self):
        if not self.modes:
            raise InvalidInput("modes", "must name at least one mode", value=self.modes)
        if len(self.thresholds) != len(self.modes) - 1:
            raise InvalidInput("thresholds", f"need {len(self.modes) - 1} thresholds for {len(self.modes)} modes", value=self.thresholds)
        for k, j in enumerate(self.thresholds):
            require_int(j, "thresholds", minimum=-1)
            if k and j < self.thresholds[k - 1]:
                raise InvalidInput("thresholds", "must be non-decreasing", value=self.thresholds, entry=k)

    @property
    def strict(self) -> bool:
        """True when every mode is used for at least one level."""
        t = (-1, *self.thresholds)
        return all(b > a for a, b in zip(t, t[1:]))

    def levels(self, K: int) -> tuple[int, ...]:
        """``(chi(0), ..., chi(K))``."""
        if self.thresholds and self.thresholds[-1] > K:
            raise InvalidInput("thresholds", f"must be <= K = {K}", value=self.thresholds)
        bounds = (*self.thresholds, K)
        return tuple(self.modes[next(r for r, j in enumerate(bounds) if i <= j)] for i in range(K + 1))


class BmapModel:
    """The model of §2: ``arrivals[r-1]`` is the BMAP with r robots active.

    With ``reduce=True`` (the default) the chain is built on the exactly
    lumped representations of service and obsolescence (`Lumping`): same
    measures, fewer phases.  ``service`` and ``obsolescence`` are then the
    reduced representations; ``given_service`` / ``given_obsolescence`` keep
    what was passed, ``lumpings`` how they were reduced (None when
    ``reduce=False``).  The §7 example's obsolescence ``(γ, Γ)`` has equal
    exit rates 0.2, so it is exponential and R drops from 2 to 1: the chain
    has ``W̄ (1 + M K)`` states instead of ``W̄ (1 + M (2^K - 1))``.
    """

    def __init__(self, arrivals: Sequence[BMAP], service: PhaseType, obsolescence: PhaseType, K: int, costs: Costs = Costs(),
                 reduce: bool = True):
        if not arrivals:
            raise InvalidInput("arrivals", "needs at least one BMAP", value=0)
        W = arrivals[0].order
        for r, b in enumerate(arrivals, start=1):
            if not isinstance(b, BMAP):
                raise InvalidInput("arrivals", "must be BMAP objects", value=type(b).__name__, entry=r - 1)
            if b.order != W:
                raise InvalidInput(f"D^({r})", f"must have order {W} like D^(1)", value=b.order)
        self.arrivals = tuple(arrivals)
        self.given_service, self.given_obsolescence = service, obsolescence
        self.reduce = bool(reduce)
        self.lumpings = (Lumping(service), Lumping(obsolescence)) if self.reduce else None
        self.service = self.lumpings[0].reduced if self.reduce else service
        self.obsolescence = self.lumpings[1].reduced if self.reduce else obsolescence
        self.K = require_int(K, "K", minimum=1)
        self.costs = costs
        self.kmax = max(b.kmax for b in arrivals)
        self._D = [b.batch_rates(self.kmax) for b in arrivals]
        self._D_exact = [b.batch_rates_exact(self.kmax) for b in arrivals]
        self._memo: dict = {}  # policy-independent blocks and tagged-page vectors

    def memo(self, key, build: Callable):
        """``build()`` computed once per ``key`` and cached on the model (policy-independent blocks, tagged-page vectors)."""
        if key not in self._memo:
            self._memo[key] = build()
        return self._memo[key]

    @property
    def N(self) -> int:
        """The number of robot modes, i.e. of BMAPs given (r = 1..N)."""
        return len(self.arrivals)

    @property
    def W(self) -> int:
        """W̄, the order of the arrival BMAPs (the same for every r)."""
        return self.arrivals[0].order

    @property
    def M(self) -> int:
        """M, the order of the service PH (after lumping when ``reduce``)."""
        return self.service.order

    @property
    def R(self) -> int:
        """R, the order of the obsolescence PH (after lumping when ``reduce``)."""
        return self.obsolescence.order

    def level_size(self, i: int) -> int:
        """Size of level i of the chain: W̄ for i = 0, W̄ M R^(i-1) for i >= 1."""
        return self.W if i == 0 else self.W * self.M * self.R ** (i - 1)

    @property
    def states(self) -> int:
        """``W̄ (1 + M (R^K - 1)/(R - 1))`` (``W̄ (1 + M K)`` when R = 1)."""
        return sum(self.level_size(i) for i in range(self.K + 1))

    def D(self, r: int, k: int) -> np.ndarray:
        """``D_k^(r)`` (zero beyond the largest batch)."""
        return self._D[r - 1][k] if k <= self.kmax else np.zeros((self.W, self.W))

    def D_exact(self, r: int, k: int) -> np.ndarray:
        """``D_k^(r)`` as the exact (Fraction) array the model was given (zero beyond the largest batch)."""
        return self._D_exact[r - 1][k] if k <= self.kmax else np.full((self.W, self.W), 0, dtype=object)

    def D_tail(self, r: int, k: int) -> np.ndarray:
        """``sum_{k' >= k} D_{k'}^(r)`` for k >= 1 (= ``D(1) - sum_{k'<k} D_k'``)."""
        return self._D[r - 1][k:].sum(axis=0)

    @property
    def full_states(self) -> int:
        """States of the chain on the representations as given (before
        lumping), an exact integer: ``W̄ (1 + M (R^K - 1)/(R - 1))``."""
        W, M, R = self.W, self.given_service.order, self.given_obsolescence.order
        return W * (1 + M * (self.K if R == 1 else (R**self.K - 1) // (R - 1)))

    def reduction(self) -> str:
        """One line: phases and states before and after lumping."""
        if not self.reduce:
            return f"not reduced (--no-reduce): M = {self.M}, R = {self.R}, {self.states} states"
        (ls, lo) = self.lumpings
        return (f"service M = {ls.order_before} -> {ls.order_after}, obsolescence R = {lo.order_before} -> {lo.order_after}; "
                f"states {self.full_states} -> {self.states}")

    def with_K(self, K: int) -> "BmapModel":
        """A copy of the model with buffer bound ``K``."""
        return self.with_(K=K)

    def with_(self, **kw) -> "BmapModel":
        """A new model with the given constructor arguments replaced (from the representations as given, not lumped)."""
        args = dict(arrivals=self.arrivals, service=self.given_service, obsolescence=self.given_obsolescence, K=self.K,
                    costs=self.costs, reduce=self.reduce)
        args.update(kw)
        return BmapModel(**args)

    def check_policy(self, policy: Policy) -> tuple[int, ...]:
        """Validate the policy's modes (robot counts in 1..N) and return its levels (chi(0), ..., chi(K))."""
        for k, r in enumerate(policy.modes):
            if isinstance(r, bool) or not isinstance(r, (int, np.integer)) or not 1 <= r <= self.N:
                raise InvalidInput("modes", f"robot counts must lie in 1..{self.N}", value=r, entry=k)
        return policy.levels(self.K)
