"""Crawler scheduling: Coffman–Liu–Weber (1997) and Liu–Nain (2005, §1.3): access times, optimal
frequencies, the golden-ratio policy.

The modules are private (``_``-prefixed): ``_access_time`` (the access-time laws), ``_frequencies`` (the
optimal frequencies, the cyclic, randomized and golden schedules), ``_golden`` (the golden policy's H and its
certificates), ``_kernels`` (numba, general weights).  The names below are the public surface.
"""
from ._access_time import (AccessTime, Deterministic, Exponential, Gamma, HyperExponential, LaplaceAccess,
                           PhaseTypeAccess, Uniform, parse_access)
from ._frequencies import (MAX_K, PHI, CostResult, FrequencyResult, GoldenSchedule, Problem, SimulationResult, apportion,
                           cyclic_cost, default_k, fibonacci, golden_bracket, golden_estimate, golden_limit_cost,
                           golden_schedule, golden_sequence, interaccess_distances, lower_bound_objective, make_problem,
                           optimal_frequencies, randomized_cost, randomized_objective, randomized_optimal,
                           require_golden_budget, simulate)
from ._golden import (TWO_PHI2_OVER_5, WORST_PROFILE, Certificate, H, H_curve, ProfileCertificate,
                      adversarial_ratio_curve, certify_H_decreasing, certify_profile_bound, profile, profile_max)

__all__ = ['AccessTime', 'Deterministic', 'Gamma', 'Exponential', 'Uniform', 'HyperExponential', 'PhaseTypeAccess',
           'LaplaceAccess', 'parse_access',
           'PHI', 'MAX_K', 'Problem', 'make_problem', 'FrequencyResult', 'lower_bound_objective', 'optimal_frequencies',
           'CostResult', 'interaccess_distances', 'cyclic_cost', 'randomized_cost', 'randomized_objective',
           'randomized_optimal', 'fibonacci', 'apportion', 'golden_sequence', 'GoldenSchedule', 'golden_schedule',
           'golden_estimate', 'require_golden_budget', 'default_k', 'golden_bracket', 'golden_limit_cost',
           'SimulationResult', 'simulate',
           'TWO_PHI2_OVER_5', 'WORST_PROFILE', 'H', 'H_curve', 'profile', 'profile_max', 'ProfileCertificate',
           'certify_profile_bound', 'Certificate', 'certify_H_decreasing', 'adversarial_ratio_curve']
