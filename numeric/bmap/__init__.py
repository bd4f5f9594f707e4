"""Threshold control with obsolescence: the BMAP/PH/1/K model of Avrachenkov et al. (seed 000).

The modules are private (``_``-prefixed), one idea each; the names below are the public surface.

- ``_phase_type``: phase-type laws, BMAPs (§2);
- ``_lumping``: exact reduction of a PH law by ordinary lumpability;
- ``_core``: `BmapModel`, `Policy`, `Costs` (§2, eq. 2); ``_io``: model files (JSON/TOML, schema-checked);
- ``_generator``: the generator from the Lemma of §3 and by enumeration; ``_stationary``: dense GTH, sparse LU,
  block recursion, QBD; ``_structured``: the matrix-free solver for large K (numba; loaded on first use);
- ``_measures``: Theorems 1–3, Corollary 1 and the cost J; ``_certified``: arb enclosures, exact rationals;
- ``_batched``: every threshold candidate in one solve; ``_optimise``: evaluation, threshold optimisation (§7);
  ``_estimate``: the cost model refusing work too large before it starts;
- ``_lst``: sojourn-time transforms (Theorem 3); ``_sim``: simulation; ``_figures``: §7's Figures 1–4 data.

>>> from crawlmath.numeric.bmap import Policy, evaluate, example_model
>>> round(evaluate(example_model(), Policy((3,), ())).cost, 3)
89.405
"""
from ._batched import batched_costs
from ._certified import (CertifiedArgmin, CertifiedValue, ball_cost, certified_cost, certified_optimum, certify,
                         certify_argmin, evaluate_mp, exact_cost, rational_stationary, solve_mp)
from ._core import BmapModel, Costs, Policy
from ._estimate import approx_states, estimate_cost, require_cost
from ._figures import figure1, hyperexponential
from ._generator import (A_block, A_dense, assemble, enumerate_transitions, generator_enumerated, generator_kronecker,
                         kron_sum_power, kronecker_blocks, state_list)
from ._io import MODELS_DIR, load_model, model_from_spec, model_path, read_spec, validate_spec
from ._lst import (ArrivalLaw, SojournSim, TaggedChain, Transforms, arrival_law, simulate_sojourn, sojourn_moments,
                   sojourn_transforms, tagged_chain)
from ._measures import Measures, measures
from ._optimise import (CONVENTIONS, Optimum, all_mode_sets, candidate_levels, evaluate, evaluate_levels, example_model,
                        optimize, optimize_all, random_model, threshold_candidates)
from ._lumping import Lumping, coarsest_lumpable_partition
from ._phase_type import (BMAP, PhaseType, bmmap, independent_robots, kron_sum, random_bmap, random_lumpable_phase_type,
                          random_phase_type, thinned)
from ._sim import SimResult, simulate
from ._stationary import (Stationary, generator_dense, solve_block_recursion, solve_dense, solve_qbd, solve_sparse_direct,
                          split_levels)

__all__ = [
    # the model, its files
    "BmapModel", "Policy", "Costs", "MODELS_DIR", "model_path", "read_spec", "validate_spec", "model_from_spec",
    "load_model", "example_model", "random_model",
    # phase-type inputs
    "PhaseType", "BMAP", "Lumping", "coarsest_lumpable_partition", "kron_sum", "independent_robots", "thinned", "bmmap",
    "random_phase_type", "random_lumpable_phase_type", "random_bmap",
    # the generator, two ways
    "kron_sum_power", "A_block", "A_dense", "kronecker_blocks", "assemble", "generator_kronecker", "state_list",
    "enumerate_transitions", "generator_enumerated",
    # stationary solvers and measures
    "Stationary", "split_levels", "solve_sparse_direct", "generator_dense", "solve_dense", "solve_block_recursion",
    "solve_qbd", "Measures", "measures",
    # evaluation, optimisation, the cost model
    "evaluate", "evaluate_levels", "CONVENTIONS", "threshold_candidates", "candidate_levels", "batched_costs", "Optimum",
    "optimize", "optimize_all", "all_mode_sets", "approx_states", "estimate_cost", "require_cost",
    # certified and exact values
    "CertifiedValue", "certified_cost", "certify", "ball_cost", "CertifiedArgmin", "certify_argmin", "certified_optimum",
    "exact_cost", "rational_stationary", "solve_mp", "evaluate_mp",
    # sojourn times, simulation, figure data
    "TaggedChain", "tagged_chain", "ArrivalLaw", "arrival_law", "Transforms", "sojourn_transforms", "sojourn_moments",
    "SojournSim", "simulate_sojourn", "SimResult", "simulate", "figure1", "hyperexponential",
]
