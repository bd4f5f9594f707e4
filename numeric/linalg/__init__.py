"""Linear-algebra kernels shared by the model solvers: eight-lane SIMD values for numba kernels.

The modules are private (``_``-prefixed); the names below are the public surface.
"""

__all__ = []
