"""Dynamic crawler activation: the average-cost MDP of Liu–Nain (2005, §1.2.2–1.2.3).

The modules are private (``_``-prefixed); the names below are the public surface.
"""
from ._crawler import (MAX_STATES, RVI_STOP, require_uniformisable, CrawlerMDP, SwitchingCurves, MDPSolution, RVI_REFERENCE, RVI_H0,
    RVIResult, relative_value_iteration, rvi_stop_counts, Evaluation, evaluate_policy, stationary_distribution,
    MultichainEvaluation, DENSE_MAX, evaluate_multichain, policy_iteration, solve, switching_curves, HPGain,
    gain_hp, ctmc_of_policy, gain_exact, TARGET_REL_WIDTH, PolicyChain, policy_chain, BiasBounds, refine_bias,
    CertifiedGain, GTH_SLACK, certified_gain, static_cost, static_count, printed_rows, printed_row_sums,
    printed_successors_outside, Communication, communication, activation_max, InstanceReport, extend_policy, auto_N,
    analyse, optimal_for_curves, ConjectureResult, check_switching_curve_conjecture, policy_image)

__all__ = ['MAX_STATES', 'RVI_STOP', 'require_uniformisable', 'CrawlerMDP', 'SwitchingCurves', 'MDPSolution',
           'RVI_REFERENCE', 'RVI_H0', 'RVIResult', 'relative_value_iteration', 'rvi_stop_counts', 'Evaluation',
           'evaluate_policy', 'stationary_distribution', 'MultichainEvaluation', 'DENSE_MAX', 'evaluate_multichain',
           'policy_iteration', 'solve', 'switching_curves', 'HPGain', 'gain_hp', 'ctmc_of_policy', 'gain_exact',
           'TARGET_REL_WIDTH', 'PolicyChain', 'policy_chain', 'BiasBounds', 'refine_bias', 'CertifiedGain',
           'GTH_SLACK', 'certified_gain', 'static_cost', 'static_count', 'printed_rows', 'printed_row_sums',
           'printed_successors_outside', 'Communication', 'communication', 'activation_max', 'InstanceReport',
           'extend_policy', 'auto_N', 'analyse', 'optimal_for_curves', 'ConjectureResult',
           'check_switching_curve_conjecture', 'policy_image']
