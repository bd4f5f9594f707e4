"""Crawler scheduling: Coffman–Liu–Weber (1997) and Liu–Nain (2005, §1.3): access times, optimal
frequencies, the golden-ratio policy.

The modules are private (``_``-prefixed); the names below are the public surface.
"""
from ._access_time import (AccessTime, Deterministic, Gamma, Exponential, Uniform, HyperExponential, PhaseTypeAccess, LaplaceAccess,
    parse_access)
from ._frequencies import (MAX_K, GOLDEN_BYTES_PER_ACCESS, MAX_FIBONACCI_K, SIMULATE_BYTES_PER_ACCESS, SIMULATE_SECONDS_PER_ACCESS,
    GOLDEN_SECONDS_PER_ACCESS, Problem, make_problem, FrequencyResult, lower_bound_objective, optimal_frequencies,
    CostResult, interaccess_distances, cyclic_cost, randomized_cost, randomized_objective, randomized_optimal,
    fibonacci, apportion, golden_sequence, GoldenSchedule, golden_schedule, golden_estimate, require_golden_budget,
    default_k, golden_bracket, golden_limit_cost, SimulationResult, simulate)
from ._golden import (TWO_PHI2_OVER_5, WORST_PROFILE, H, H_curve, profile, profile_max, ProfileCertificate, certify_profile_bound,
    Certificate, taylor_coefficients, certify_H_decreasing, adversarial_ratio_curve)

__all__ = ['AccessTime', 'Deterministic', 'Gamma', 'Exponential', 'Uniform', 'HyperExponential', 'PhaseTypeAccess',
           'LaplaceAccess', 'parse_access', 'MAX_K', 'GOLDEN_BYTES_PER_ACCESS', 'MAX_FIBONACCI_K',
           'SIMULATE_BYTES_PER_ACCESS', 'SIMULATE_SECONDS_PER_ACCESS', 'GOLDEN_SECONDS_PER_ACCESS', 'Problem',
           'make_problem', 'FrequencyResult', 'lower_bound_objective', 'optimal_frequencies', 'CostResult',
           'interaccess_distances', 'cyclic_cost', 'randomized_cost', 'randomized_objective', 'randomized_optimal',
           'fibonacci', 'apportion', 'golden_sequence', 'GoldenSchedule', 'golden_schedule', 'golden_estimate',
           'require_golden_budget', 'default_k', 'golden_bracket', 'golden_limit_cost', 'SimulationResult',
           'simulate', 'TWO_PHI2_OVER_5', 'WORST_PROFILE', 'H', 'H_curve', 'profile', 'profile_max',
           'ProfileCertificate', 'certify_profile_bound', 'Certificate', 'taylor_coefficients',
           'certify_H_decreasing', 'adversarial_ratio_curve']
