"""Your own finite Markov chains and MDPs: reading explicit model files (``_explicit_io``: Storm DRN, PRISM
explicit, JSON triplets, exactly), CTMC stationary vectors (``_ctmc``), average-cost MDPs (``_average_cost``), and
long-run averages to D digits, exact from the input, for large sparse models (``_sparse_refine``, with π's second
route, a ball enclosure, in ``_enclosure``).

The modules are private (``_``-prefixed); the names below are the public surface.
"""
from ._average_cost import AverageCostSolution, average_cost_mdp, optimal_policy, optimality_check
from ._ctmc import (Stationary, ctmc_stationary, RefinedStationary, refine_stationary, gth_levels, fixed_point,
    integer_ratio)
from ._enclosure import agrees_with_enclosure, stationary_enclosure
from ._explicit_io import ExplicitModel, read_model, parse_drn, parse_prism, parse_json
from ._sparse_refine import (IntegerChain, integer_chain, check_cost, Average, average, chain_averages, averages_of,
    chain_average, refined_stationary, decimal_text, outward_text,
    OptimalAverage, optimal_average, float_mdp, policy_choices)

__all__ = ['AverageCostSolution', 'average_cost_mdp', 'optimal_policy', 'optimality_check', 'Stationary',
           'ctmc_stationary', 'RefinedStationary', 'refine_stationary', 'gth_levels', 'fixed_point', 'integer_ratio',
           'ExplicitModel', 'read_model', 'parse_drn', 'parse_prism', 'parse_json', 'IntegerChain', 'integer_chain',
           'check_cost', 'Average', 'average', 'chain_averages', 'averages_of', 'chain_average', 'refined_stationary',
           'stationary_enclosure', 'agrees_with_enclosure', 'decimal_text', 'outward_text', 'OptimalAverage',
           'optimal_average', 'float_mdp', 'policy_choices']
