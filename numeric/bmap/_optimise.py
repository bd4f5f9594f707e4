"""Evaluation and threshold optimisation for the model of Avrachenkov et al. (seed 000, §7): `evaluate` a
policy with a chosen solver, enumerate the threshold candidates of a convention, and `optimize` (§7's direct
approach: every candidate at once by `batched_costs`, a level's rows of Q and its weights in every measure
depend only on the robots active at that level); the paper's example model.

>>> m = example_model()                    # §7 example, corrected D-matrices
>>> r = evaluate(m, Policy((3,), ()))
>>> round(r.cost, 3)
89.405
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Callable, Sequence

import numpy as np

from ..errors import InvalidInput, SolverError
from ..tolerance import BMAP_ARGMIN_TIE_ABS
from ._phase_type import random_bmap, random_phase_type
from ._core import BmapModel, Costs, Policy
from ._io import load_model
from ._stationary import solve_block_recursion, solve_dense, solve_qbd, solve_sparse_direct
from ._measures import Measures, measures
from ._batched import BATCH_STATE_LIMIT, batched_costs
from ._estimate import auto_solver


SOLVERS = {
    "dense": solve_dense,
    "sparse": solve_sparse_direct,
    "block": solve_block_recursion,
    "qbd": solve_qbd,
}


def evaluate(model: BmapModel, policy: Policy, solver: str = "auto") -> Measures:
    """Solve the chain under ``policy`` and return every measure."""
    levels = model.check_policy(policy)
    return evaluate_levels(model, levels, solver)


def evaluate_levels(model: BmapModel, levels: Sequence[int], solver: str = "auto") -> Measures:
    """Solve the chain for the levels (chi(0), ..., chi(K)) with ``solver`` ('auto': dense <= 600 states,
    sparse <= 1500, structured above) and return every measure, timed.
    """
    t0 = time.perf_counter()
    if solver == "auto":
        solver = auto_solver(model.states)
    if solver == "structured":
        from ._structured import evaluate_structured  # lazy: it loads numba and its compiled kernels (seconds)

        return evaluate_structured(model, levels)
    if solver not in SOLVERS:
        raise InvalidInput("solver", f"must be one of {sorted(SOLVERS) + ['auto', 'structured']}", value=solver)
    st = SOLVERS[solver](model, levels)
    m = measures(model, levels, st)
    return _with_seconds(m, time.perf_counter() - t0)


def _with_seconds(m: Measures, s: float) -> Measures:
    return replace(m, seconds=s)


CONVENTIONS = ("strict", "nonstrict", "paper")


def threshold_candidates(n_modes: int, K: int, convention: str = "paper") -> list[tuple[int, ...]]:
    """Threshold vectors ``j_1, ..., j_{n-1}`` searched by `optimize`.

    - ``strict``: ``-1 < j_1 < ... < j_{n-1} < K`` (§2: every mode used);
    - ``nonstrict``: ``-1 <= j_1 <= ... <= j_{n-1} <= K`` (§2, "virtual robots");
    - ``paper``: ``0 <= j_1 <= ... <= j_{n-1} <= K``: the first mode always
      serves the empty system, later ranges may be empty.  This is the one
      that reproduces Tables 1 and 5 (see the claims module).
    """
    if convention not in CONVENTIONS:
        raise InvalidInput("convention", f"must be one of {CONVENTIONS}", value=convention)
    if n_modes == 1:
        return [()]
    if convention == "strict":
        return list(itertools.combinations(range(0, K), n_modes - 1))
    low = -1 if convention == "nonstrict" else 0
    return list(itertools.combinations_with_replacement(range(low, K + 1), n_modes - 1))


def candidate_levels(modes: Sequence[int], candidates: Sequence[tuple], K: int) -> list[tuple[int, ...]]:
    """``(chi(0), ..., chi(K))`` of ``Policy(modes, th)`` for every threshold vector th in ``candidates`` (as
    `Policy.levels`: level i uses ``modes[r]`` with r the number of thresholds below i), computed for all at once."""
    if len(modes) == 1 or not candidates:
        return [(modes[0],) * (K + 1)] * len(candidates)
    th = np.asarray(candidates)
    below = (th[:, None, :] < np.arange(K + 1)[None, :, None]).sum(axis=2)
    return [tuple(row) for row in np.asarray(modes)[below].tolist()]


@dataclass(frozen=True)
class Optimum:
    """Cheapest threshold policy for a set of modes (§7, direct approach): modes, thresholds, cost J (eq. 2),
    its measures, the count of policies evaluated and the cost curve over all candidates.  ``cost`` is the curve's
    value at the argmin; ``measures`` comes from `evaluate_levels` (under `batched_costs` its J may differ from
    ``cost`` in the last bits: both are float64 routes to the same number), solved on first use (``evaluate``):
    most callers read only the curve, and the table claims optimise hundreds of mode sets.
    """
    modes: tuple[int, ...]
    thresholds: tuple[int, ...]
    cost: float
    evaluated: int  # policies evaluated
    curve: tuple = field(default=(), repr=False)  # ((thresholds, cost), ...) over all candidates
    evaluate: Callable[[], Measures] | None = field(default=None, repr=False, compare=False)  # the argmin's measures

    @cached_property
    def measures(self) -> Measures:
        """Every measure of the argmin policy (`evaluate_levels`, computed once)."""
        if self.evaluate is None:
            raise SolverError("this Optimum was built without a way to evaluate its measures")
        return self.evaluate()


def optimize(model: BmapModel, modes: Sequence[int], convention: str = "paper", solver: str = "auto", cache: dict | None = None) -> Optimum:
    """Direct approach of §7: enumerate every threshold vector for the given
    modes (used in decreasing order of robots) and keep the cheapest.

    With ``solver="auto"`` on a chain of at most ``BATCH_STATE_LIMIT`` states
    the curve comes from `batched_costs` (all candidates at once, cached on
    the model) and only the argmin is solved again by `evaluate_levels` for
    its `Measures` (when they are first read); otherwise every distinct level vector is evaluated with
    ``solver``.  ``cache`` (levels -> Measures) may be shared between calls."""
    modes = tuple(sorted(set(modes), reverse=True))
    cache = {} if cache is None else cache
    cands = threshold_candidates(len(modes), model.K, convention)
    if not cands:
        raise InvalidInput("modes", f"the {convention} convention uses all {len(modes)} modes, impossible with K = {model.K}",
                           value=modes)
    model.check_policy(Policy(modes, cands[0]))  # the modes; the candidates are valid thresholds by construction
    levels = candidate_levels(modes, cands, model.K)
    if solver == "auto" and model.states <= BATCH_STATE_LIMIT:
        costs = [float(c) for c in batched_costs(model, levels)]
    else:
        for lv in levels:
            if lv not in cache:
                cache[lv] = evaluate_levels(model, lv, solver)
        costs = [cache[lv].cost for lv in levels]
    best = 0
    for k, c in enumerate(costs):
        if c < costs[best] - BMAP_ARGMIN_TIE_ABS:
            best = k

    def evaluate() -> Measures:
        if levels[best] not in cache:
            cache[levels[best]] = evaluate_levels(model, levels[best], solver)
        return cache[levels[best]]

    return Optimum(modes, cands[best], costs[best], len(cands), tuple(zip(cands, costs)), evaluate)


def optimize_all(model: BmapModel, mode_sets: Sequence[Sequence[int]] | None = None, convention: str = "paper", solver: str = "auto") -> dict:
    """`optimize` for every mode set (all non-empty subsets by default),
    sharing solves between sets; ``{modes: Optimum}``."""
    cache: dict = {}
    sets = all_mode_sets(model.N) if mode_sets is None else [tuple(sorted(set(m), reverse=True)) for m in mode_sets]
    return {m: optimize(model, m, convention, solver, cache) for m in sets}


def all_mode_sets(N: int) -> list[tuple[int, ...]]:
    """Every non-empty subset of 1..N, robots in decreasing order."""
    return [tuple(sorted(c, reverse=True)) for n in range(1, N + 1) for c in itertools.combinations(range(1, N + 1), n)]


# --- the paper's examples -----------------------------------------------------


def example_model(K: int = 5, printed: bool = False) -> BmapModel:
    """The §7 example (Model 4, N = 4).  ``printed=True`` loads the matrices
    exactly as printed (rejected by validation); the default loads the
    corrected file.  See ``proofs/models/avrachenkov-example*.json``."""
    name = "avrachenkov-example-printed.json" if printed else "avrachenkov-example.json"
    return load_model(name, K=K)


def random_model(seed: int, W: int = 2, M: int = 2, R: int = 2, K: int = 3, kmax: int = 2, N: int = 2) -> "BmapModel":
    """A random valid model with N robot modes (for structural checks and
    property tests; costs fixed at (1, 2, 1, 1, 3))."""
    rng = np.random.default_rng(seed)
    return BmapModel([random_bmap(rng, W, kmax) for _ in range(N)], random_phase_type(rng, M),
                     random_phase_type(rng, R), K, Costs(1, 2, 1, 1, 3))
