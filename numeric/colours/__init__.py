"""Colours in the BUbiNG workbench (Buijsrogge 2014): exact chains, the mean field, seeded simulation.

The modules are private (``_``-prefixed); the names below are the public surface.
"""
from ._sim import (STRATEGIES, STRATEGY_NAMES, ALGORITHM, FILL_RULES, READINGS, NB, MIN_STEPS, MAX_SEED, BYTES_PER_COLOUR,
    PLAIN_STEPS_PER_S, STRATEGY_DRAWS_PER_S, CHUNK_STEPS, CHUNK_DRAWS, SimResult, simulation_cost, require_seed,
    simulate, absent_mass, TEMPLATE_BYTES, alias_table, packed_table, trajectories, EXACT_LAW_STRATEGIES, step_law)
from ._workbench import (DISTRIBUTIONS, EXACT_STATE_LIMIT, colour_distribution, initial_expected, MeanField, mean_field, ExactResult,
    partition_count, require_chain_states, uniform_transitions, exact_uniform, CERTIFIED_PARTITIONS,
    certified_uniform, exact_general, agree, ProductForm, ARB_OP_SECONDS, ARB_BYTES, EXACT_BYTES, product_form_cost,
    require_product_form_budget, ColourLaw, colour_law, float_law, WEIGHTS, PARAM_NAMES, colour_law_of,
    power_sums_arb, newton_h, exact_stationary, exact_stationary_series, exact_stationary_rational,
    exact_nu_uniform)

__all__ = ['STRATEGIES', 'STRATEGY_NAMES', 'ALGORITHM', 'FILL_RULES', 'READINGS', 'NB', 'MIN_STEPS', 'MAX_SEED',
           'BYTES_PER_COLOUR', 'PLAIN_STEPS_PER_S', 'STRATEGY_DRAWS_PER_S', 'CHUNK_STEPS', 'CHUNK_DRAWS',
           'SimResult', 'simulation_cost', 'require_seed', 'simulate', 'absent_mass', 'TEMPLATE_BYTES',
           'alias_table', 'packed_table', 'trajectories', 'EXACT_LAW_STRATEGIES', 'step_law', 'DISTRIBUTIONS',
           'EXACT_STATE_LIMIT', 'colour_distribution', 'initial_expected', 'MeanField', 'mean_field', 'ExactResult',
           'partition_count', 'require_chain_states', 'uniform_transitions', 'exact_uniform',
           'CERTIFIED_PARTITIONS', 'certified_uniform', 'exact_general', 'agree', 'ProductForm', 'ARB_OP_SECONDS',
           'ARB_BYTES', 'EXACT_BYTES', 'product_form_cost', 'require_product_form_budget', 'ColourLaw',
           'colour_law', 'float_law', 'WEIGHTS', 'PARAM_NAMES', 'colour_law_of', 'power_sums_arb', 'newton_h',
           'exact_stationary', 'exact_stationary_series', 'exact_stationary_rational', 'exact_nu_uniform']
