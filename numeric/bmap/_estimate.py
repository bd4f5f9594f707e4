"""The cost model of the BMAP solvers (issue 33): seconds and bytes estimated before any work
(`estimate_cost`), and the refusal (`require_cost`, `TooLarge`) when they exceed ``CRAWLMATH_MAX_SECONDS`` /
``CRAWLMATH_MAX_MEMORY``.

>>> from ._optimise import example_model
>>> m = example_model(K=3)
>>> approx_states(m) == m.states, auto_solver(approx_states(m))
(True, 'dense')
"""
from __future__ import annotations

import math
import sys

from ..validate import require_memory, require_seconds
from ._core import BmapModel
from ._batched import BATCH_CHUNK_BYTES, BATCH_STATE_LIMIT


# One estimate for every entry point (CLI, `crawlmath.api`, benchmarks/bmap_estimate.py prints it against measured runs).
# A float evaluation costs (a) building the level blocks and the tagged-page vectors: K (kmax + 1) blocks, two per level
# with O(i) recipe terms (counted in ~K^2 steps, `_term_counts`); (b) the solve: GTH on the dense generator (n^3) up to
# `DENSE_STATES`, SuperLU up to `SPARSE_STATES`, then the matrix-free structured solver, whose level operators cost
# ~K^2 (the Kronecker sums of Γ built per level) plus a per-state matvec cost.  Constants measured on the 2-core
# development machine under load (benchmarks/bmap_estimate.py; docs/performance) and rounded up.

DENSE_STATES, SPARSE_STATES = 600, 1500  # the 'auto' solver's choice (`evaluate_levels`)
SECONDS_PER_TERM = 2e-5  # counting the recipe terms, per K^2
SECONDS_PER_BLOCK = 1.2e-3  # building one level block (scipy per-block overhead), per K (kmax + 1)
SECONDS_PER_BLOCK_ENTRY = 1.5e-6  # dense Kronecker products of the level blocks, per K L^2 (L the largest level, R > 1)
SECONDS_STRUCTURED_K2 = 4e-4  # the structured solver's per-level operators, per K^2
SECONDS_STRUCTURED_START = 4.0  # first structured solve in a process: importing numba and loading its compiled kernels
SECONDS_PER_STATE = {"dense": 2e-9, "sparse": 2e-5, "structured": 7e-5}  # dense: per state^3
BYTES_PER_STATE = {"dense": 24.0, "sparse": 2000.0, "structured": 1000.0}  # dense: per state^2
SECONDS_PER_EVALUATION = 0.1
SECONDS_PER_CANDIDATE, SECONDS_PER_CANDIDATE_STATE3 = 5e-4, 4e-10  # --optimize's batched dense solves (`batched_costs`)


def approx_states(model: BmapModel) -> float:
    """``W̄ (1 + M (R^K - 1)/(R - 1))`` (``W̄ (1 + M K)`` for R = 1) as a float
    (inf when it overflows), without forming R^K or summing K levels."""
    W, M, R, K = model.W, model.M, model.R, model.K
    if R == 1:
        return float(W) * (1.0 + M * float(K))
    log = math.log(W * M) + K * math.log(R) - math.log(R - 1)
    return math.exp(log) if log < 700 else math.inf


def auto_solver(states: float) -> str:
    """The solver family 'auto' uses for a chain of ``states`` states."""
    return "dense" if states <= DENSE_STATES else "sparse" if states <= SPARSE_STATES else "structured"


def estimate_cost(model: BmapModel, evaluations: float = 1.0, solver: str = "auto") -> tuple[float, float]:
    """(seconds, bytes) estimated for ``evaluations`` float evaluations of
    policies of ``model`` with ``solver`` (see the constants above)."""
    n = approx_states(model)
    family = auto_solver(n) if solver == "auto" else ("structured" if solver == "structured" else "sparse")
    K2 = float(model.K) ** 2
    setup = SECONDS_PER_TERM * K2 + SECONDS_PER_BLOCK * model.K * (model.kmax + 1)
    if family != "structured":  # the blocks are built as Kronecker products: ~K of them on the largest level's size
        top = math.log(model.W * model.M) + (model.K - 1) * math.log(model.R)
        setup += SECONDS_PER_BLOCK_ENTRY * model.K * math.exp(min(2 * top, 700.0))
    if n <= BATCH_STATE_LIMIT and evaluations > 1 and solver == "auto":  # `optimize`: every candidate in batched solves
        return (setup + SECONDS_PER_EVALUATION + evaluations * (SECONDS_PER_CANDIDATE + SECONDS_PER_CANDIDATE_STATE3 * n**3),
                BYTES_PER_STATE["dense"] * n**2 + BATCH_CHUNK_BYTES)
    if family == "dense":
        per, mem = SECONDS_PER_STATE["dense"] * n**3, BYTES_PER_STATE["dense"] * n**2
    elif family == "sparse":
        per, mem = SECONDS_PER_STATE["sparse"] * n, BYTES_PER_STATE["sparse"] * n
    else:
        setup += 0.0 if "crawlmath.numeric.bmap._structured" in sys.modules else SECONDS_STRUCTURED_START
        per, mem = SECONDS_STRUCTURED_K2 * K2 + SECONDS_PER_STATE["structured"] * n, BYTES_PER_STATE["structured"] * n
    return setup + evaluations * (SECONDS_PER_EVALUATION + per), mem


def require_cost(model: BmapModel, evaluations: float = 1.0, solver: str = "auto", *, argument: str = "K", value=None) -> None:
    """Refuse (`TooLarge`, naming ``argument``) before any work when `estimate_cost` exceeds the limits
    (``CRAWLMATH_MAX_SECONDS`` / ``CRAWLMATH_MAX_MEMORY``)."""
    seconds, nbytes = estimate_cost(model, evaluations, solver)
    what = f"{evaluations:.3g} evaluation(s) of K = {model.K} ({approx_states(model):.3g} states after lumping)"
    require_memory(nbytes, argument, what, value=model.K if value is None else value)
    require_seconds(seconds, argument, what, value=model.K if value is None else value)
