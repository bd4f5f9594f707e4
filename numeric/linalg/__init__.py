"""Linear-algebra kernels shared by the model solvers: the one multichain policy evaluator (``_multichain``, used
by :mod:`crawlmath.numeric.mdp` and :mod:`crawlmath.numeric.markov`), GMRES with delayed reorthogonalisation
(``_gmres``, used by the matrix-free BMAP solver) and eight-lane values for numba kernels (``_lanes``: the LLVM
vectors of ``_simd``, or plain numba code when the environment sets ``CRAWLMATH_SIMD=0``).

The modules are private (``_``-prefixed); the names below are the public surface.
"""
from ._multichain import PolicySystem, bordered_lu, closed_classes, stationary_distribution

__all__ = ['PolicySystem', 'bordered_lu', 'closed_classes', 'stationary_distribution']
