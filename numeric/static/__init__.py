"""The static crawler count: the M/M/1/K model of Liu–Nain (2005, §1.2.1).

The modules are private (``_``-prefixed); the names below are the public surface.
"""
from ._mm1k import (FLOAT_BYTES_PER_K, FLOAT_SECONDS_PER_K, MP_SECONDS_PER_K, SCALAR_MAX_K, Q1_ROUNDINGS, NEAR_EVALUATIONS,
    optimal_rho, optimal_rho_mp, optimal_rho_by_derivative_mp, Enclosure, rho_enclosure, StaticOptimum,
    static_optimum, brute_force_N)

__all__ = ['FLOAT_BYTES_PER_K', 'FLOAT_SECONDS_PER_K', 'MP_SECONDS_PER_K', 'SCALAR_MAX_K',
           'Q1_ROUNDINGS', 'NEAR_EVALUATIONS', 'optimal_rho', 'optimal_rho_mp', 'optimal_rho_by_derivative_mp',
           'Enclosure', 'rho_enclosure', 'StaticOptimum', 'static_optimum', 'brute_force_N']
