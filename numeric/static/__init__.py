"""The static crawler count: the M/M/1/K model of Liu–Nain (2005, §1.2.1).

The module ``_mm1k`` is private; the names below are the public surface (its cost-model constants and
internals stay there).
"""
from ._mm1k import (Enclosure, StaticOptimum, brute_force_N, optimal_rho, optimal_rho_by_derivative_mp, optimal_rho_mp,
                    rho_enclosure, static_optimum)

__all__ = ['optimal_rho', 'optimal_rho_mp', 'optimal_rho_by_derivative_mp', 'Enclosure', 'rho_enclosure',
           'StaticOptimum', 'static_optimum', 'brute_force_N']
