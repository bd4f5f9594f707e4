"""Fast numbers: solvers (numpy/scipy) and high precision (mpmath).

Nothing in this package imports SymPy; the closed forms it evaluates are
emitted from :mod:`crawlmath.derive` into :mod:`crawlmath.numeric.generated`
by ``crawlmath codegen``.
"""
