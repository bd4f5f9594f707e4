"""Dynamic crawler activation: the average-cost MDP of Liu–Nain (2005, §1.2.2–1.2.3).

The modules are private (``_``-prefixed); the names below are the public surface: the model (``_model``), relative
value iteration (``_rvi``), policy iteration (``_policy_iteration``; its evaluator is
:mod:`crawlmath.numeric.linalg`'s), certified gains (``_certified``) and what §1.2.3 reads off the optimum
(``_analysis``).  How the paper *prints* the law (1.14)-(1.16) is in :mod:`crawlmath.proofs.readings.liu_nain`.
"""
from ._model import (MAX_STATES, require_uniformisable, CrawlerMDP, SwitchingCurves, switching_curves, static_cost,
    static_count)
from ._rvi import RVI_STOP, RVI_REFERENCE, RVI_H0, RVIResult, relative_value_iteration, rvi_stop_counts
from ._policy_iteration import (MDPSolution, Evaluation, evaluate_policy, MultichainEvaluation, evaluate_multichain,
    policy_iteration, solve)
from ._certified import (HPGain, gain_hp, gain_exact, TARGET_REL_WIDTH, BiasBounds, refine_bias, CertifiedGain,
    certified_gain)
from ._analysis import (Communication, communication, InstanceReport, auto_N, analyse, optimal_for_curves,
    ConjectureResult, check_switching_curve_conjecture)

__all__ = ['MAX_STATES', 'require_uniformisable', 'CrawlerMDP', 'SwitchingCurves', 'switching_curves', 'static_cost',
           'static_count', 'RVI_STOP', 'RVI_REFERENCE', 'RVI_H0', 'RVIResult', 'relative_value_iteration',
           'rvi_stop_counts', 'MDPSolution', 'Evaluation', 'evaluate_policy', 'MultichainEvaluation',
           'evaluate_multichain', 'policy_iteration', 'solve', 'HPGain', 'gain_hp', 'gain_exact', 'TARGET_REL_WIDTH',
           'BiasBounds', 'refine_bias', 'CertifiedGain', 'certified_gain', 'Communication', 'communication',
           'InstanceReport', 'auto_N', 'analyse', 'optimal_for_curves', 'ConjectureResult',
           'check_switching_curve_conjecture']
