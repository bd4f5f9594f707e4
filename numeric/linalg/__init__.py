"""Linear-algebra kernels shared by the model solvers: the one multichain policy evaluator (``_multichain``, used
by :mod:`crawlmath.numeric.mdp` and :mod:`crawlmath.numeric.markov`) and eight-lane SIMD values for numba kernels
(``_simd``).

The modules are private (``_``-prefixed); the names below are the public surface.
"""
from ._multichain import PolicySystem, bordered_lu, closed_classes, stationary_distribution

__all__ = ['PolicySystem', 'bordered_lu', 'closed_classes', 'stationary_distribution']
