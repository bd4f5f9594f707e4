"""Threshold control with obsolescence: the BMAP/PH/1/K model of Avrachenkov et al.: phase-type inputs, model
files, the generator, stationary solvers, measures, certified costs, sojourn-time transforms, simulation.

The modules are private (``_``-prefixed); the names below are the public surface.
"""
from ._io import (MODELS_DIR, model_path, read_spec, MAX_FILE_BYTES, SECONDS_PER_BYTE, ARRIVALS_SCHEMAS, MODEL_SCHEMA, MAX_LISTED,
    SECONDS_PER_ITEM, validate_spec, arrivals_from_spec, arrival_size, require_arrivals, model_from_spec,
    load_model)
from ._lst import (TAGGED_LIMIT, TaggedChain, tagged_chain, ArrivalLaw, arrival_law, Transforms, sojourn_transforms, sojourn_moments,
    SojournSim, simulate_sojourn)
from ._model import (Costs, Policy, BmapModel, kron_dense, kron_sum_power, A_block, A_dense, kronecker_blocks, block_columns,
    SMALL_BLOCK, recipe_block, recipe_block_sparse, assemble, generator_kronecker, state_list,
    enumerate_transitions, generator_enumerated, Stationary, DIRECT_LIMIT, split_levels, LARGE_DIRECT,
    solve_sparse_direct, generator_dense, solve_dense, closed_class, solve_block_recursion, solve_qbd, Measures,
    measures, HP_STATE_LIMIT, exact_ball, exact_fmpq, RATIONAL_STATE_LIMIT, rational_stationary, exact_cost,
    solve_mp, ball_cost, CertifiedValue, certified_cost, certify, ARGMIN_GAP, CertifiedArgmin, certify_argmin,
    certified_optimum, evaluate_mp, BATCH_STATE_LIMIT, BATCH_CHUNK_BYTES, level_weights, cost_weights, ModeTables,
    mode_tables, batched_costs, BATCH_LAPACK_STATES, SOLVERS, evaluate, evaluate_levels, SECONDS_PER_TERM,
    SECONDS_PER_BLOCK, SECONDS_PER_BLOCK_ENTRY, SECONDS_STRUCTURED_K2, SECONDS_STRUCTURED_START, SECONDS_PER_STATE,
    BYTES_PER_STATE, SECONDS_PER_EVALUATION, approx_states, auto_solver, estimate_cost, require_cost, CONVENTIONS,
    threshold_candidates, candidate_levels, Optimum, optimize, optimize_all, all_mode_sets, example_model,
    random_model)
from ._phase_type import (DecimalText, exact, exact_array, to_float, PhaseType, Lumping, coarsest_lumpable_partition, BMAP, stationary,
    kron_sum, independent_robots, thinned, bmmap, random_phase_type, random_lumpable_phase_type, random_bmap)
from ._sim import (SimResult, simulate)

__all__ = ['MODELS_DIR', 'model_path', 'read_spec', 'MAX_FILE_BYTES', 'SECONDS_PER_BYTE', 'ARRIVALS_SCHEMAS',
           'MODEL_SCHEMA', 'MAX_LISTED', 'SECONDS_PER_ITEM', 'validate_spec', 'arrivals_from_spec', 'arrival_size',
           'require_arrivals', 'model_from_spec', 'load_model', 'TAGGED_LIMIT', 'TaggedChain', 'tagged_chain',
           'ArrivalLaw', 'arrival_law', 'Transforms', 'sojourn_transforms', 'sojourn_moments', 'SojournSim',
           'simulate_sojourn', 'Costs', 'Policy', 'BmapModel', 'kron_dense', 'kron_sum_power', 'A_block', 'A_dense',
           'kronecker_blocks', 'block_columns', 'SMALL_BLOCK', 'recipe_block', 'recipe_block_sparse', 'assemble',
           'generator_kronecker', 'state_list', 'enumerate_transitions', 'generator_enumerated', 'Stationary',
           'DIRECT_LIMIT', 'split_levels', 'LARGE_DIRECT', 'solve_sparse_direct', 'generator_dense', 'solve_dense',
           'closed_class', 'solve_block_recursion', 'solve_qbd', 'Measures', 'measures', 'HP_STATE_LIMIT',
           'exact_ball', 'exact_fmpq', 'RATIONAL_STATE_LIMIT', 'rational_stationary', 'exact_cost', 'solve_mp',
           'ball_cost', 'CertifiedValue', 'certified_cost', 'certify', 'ARGMIN_GAP', 'CertifiedArgmin',
           'certify_argmin', 'certified_optimum', 'evaluate_mp', 'BATCH_STATE_LIMIT', 'BATCH_CHUNK_BYTES',
           'level_weights', 'cost_weights', 'ModeTables', 'mode_tables', 'batched_costs', 'BATCH_LAPACK_STATES',
           'SOLVERS', 'evaluate', 'evaluate_levels', 'SECONDS_PER_TERM', 'SECONDS_PER_BLOCK',
           'SECONDS_PER_BLOCK_ENTRY', 'SECONDS_STRUCTURED_K2', 'SECONDS_STRUCTURED_START', 'SECONDS_PER_STATE',
           'BYTES_PER_STATE', 'SECONDS_PER_EVALUATION', 'approx_states', 'auto_solver', 'estimate_cost',
           'require_cost', 'CONVENTIONS', 'threshold_candidates', 'candidate_levels', 'Optimum', 'optimize',
           'optimize_all', 'all_mode_sets', 'example_model', 'random_model', 'DecimalText', 'exact', 'exact_array',
           'to_float', 'PhaseType', 'Lumping', 'coarsest_lumpable_partition', 'BMAP', 'stationary', 'kron_sum',
           'independent_robots', 'thinned', 'bmmap', 'random_phase_type', 'random_lumpable_phase_type',
           'random_bmap', 'SimResult', 'simulate']
