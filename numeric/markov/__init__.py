"""Your own finite Markov chains and MDPs: reading explicit model files, CTMC stationary vectors, average-cost
MDPs, and long-run averages to D digits (exact from the input) for large sparse models.

The modules are private (``_``-prefixed); the names below are the public surface.
"""
from ._average_cost import (AverageCostSolution, average_cost_mdp, validate_mdp, optimal_policy, REFINE_STEPS,
    optimality_check)
from ._ctmc import (DENSE_MAX, Stationary, ctmc_stationary, float_up, gth_levels, gth_back_substitute, gth_eliminate_levels,
    fixed_point, integer_ratio, RefinedStationary, refine_stationary, refine_balance)
from ._explicit_io import (MAX_FILE_BYTES, MAX_NUMBER_CHARS, BYTES_PER_FILE_BYTE, SCHEMA_PATH, KINDS, DRN_EXAMPLE, ExplicitModel, read_text,
    read_model, parse_drn, parse_prism, parse_json)
from ._sparse_refine import (SECONDS_PER_TRANSITION_STEP, BYTES_PER_TRANSITION, MAX_DENOMINATOR_BITS, IntegerChain, Average, common_scale,
    integer_chain, check_cost, Bias, bias_lu, scaled_values, refine_bias, refined_stationary, GTH_LEVELS_MAX_WORK,
    GTH_LEVELS_SLOW_WORK, float_start, refine_scaled, ENCLOSURE_MAX_WORK, ENCLOSURE_BYTES_PER_BALL,
    stationary_enclosure, agrees_with_enclosure, decimal_text, outward_text, average, chain_averages, averages_of,
    chain_average, OptimalAverage, float_mdp, float_policy, policy_choices, optimal_average)

__all__ = ['AverageCostSolution', 'average_cost_mdp', 'validate_mdp', 'optimal_policy',
           'REFINE_STEPS', 'optimality_check', 'DENSE_MAX', 'Stationary', 'ctmc_stationary',
           'float_up', 'gth_levels', 'gth_back_substitute', 'gth_eliminate_levels', 'fixed_point', 'integer_ratio',
           'RefinedStationary', 'refine_stationary', 'refine_balance', 'MAX_FILE_BYTES', 'MAX_NUMBER_CHARS',
           'BYTES_PER_FILE_BYTE', 'SCHEMA_PATH', 'KINDS', 'DRN_EXAMPLE', 'ExplicitModel', 'read_text', 'read_model',
           'parse_drn', 'parse_prism', 'parse_json', 'SECONDS_PER_TRANSITION_STEP', 'BYTES_PER_TRANSITION',
           'MAX_DENOMINATOR_BITS', 'IntegerChain', 'Average', 'common_scale', 'integer_chain', 'check_cost', 'Bias',
           'bias_lu', 'scaled_values', 'refine_bias', 'refined_stationary', 'GTH_LEVELS_MAX_WORK',
           'GTH_LEVELS_SLOW_WORK', 'float_start', 'refine_scaled', 'ENCLOSURE_MAX_WORK', 'ENCLOSURE_BYTES_PER_BALL',
           'stationary_enclosure', 'agrees_with_enclosure', 'decimal_text', 'outward_text', 'average',
           'chain_averages', 'averages_of', 'chain_average', 'OptimalAverage', 'float_mdp', 'float_policy',
           'policy_choices', 'optimal_average']
