"""Colours in the BUbiNG workbench (Buijsrogge 2014): the colour laws, the mean field, the exact chains, the exact
stationary values from the product form, and the seeded simulation of the game with offline structure.

The modules are private (``_``-prefixed): ``_laws`` (Chapter 5 laws, how ``p`` is read), ``_mean_field``
(eq. 3.1, Theorem 4.2.1), ``_chains`` (the exact chains on partitions and occupancy vectors), ``_product_form``
(any law, rigorous balls), ``_sim`` and ``_kernels`` (the simulation, numba).  The names below are the public surface.
"""
from ._chains import (CERTIFIED_PARTITIONS, EXACT_STATE_LIMIT, ExactResult, certified_uniform, exact_general,
                      exact_uniform, partition_count, require_chain_states, uniform_transitions)
from ._laws import DISTRIBUTIONS, ColourLaw, colour_distribution, colour_law, colour_law_of, float_law
from ._mean_field import MeanField, initial_expected, mean_field
from ._product_form import (ProductForm, exact_nu_uniform, exact_stationary, exact_stationary_rational,
                            exact_stationary_series, require_product_form_budget)
from ._sim import FILL_RULES, MAX_SEED, MIN_STEPS, READINGS, STRATEGY_NAMES, SimResult, simulate, step_law, trajectories

__all__ = ['DISTRIBUTIONS', 'ColourLaw', 'colour_distribution', 'colour_law', 'colour_law_of', 'float_law',
           'MeanField', 'initial_expected', 'mean_field',
           'EXACT_STATE_LIMIT', 'CERTIFIED_PARTITIONS', 'ExactResult', 'partition_count', 'require_chain_states',
           'uniform_transitions', 'exact_uniform', 'certified_uniform', 'exact_general',
           'ProductForm', 'require_product_form_budget', 'exact_stationary', 'exact_stationary_series',
           'exact_stationary_rational', 'exact_nu_uniform',
           'STRATEGY_NAMES', 'FILL_RULES', 'READINGS', 'MIN_STEPS', 'MAX_SEED', 'SimResult', 'simulate', 'step_law',
           'trajectories']
