"""SymPy derivations, one module per model.

Every function returns SymPy objects and cites the paper equation it
derives.  A module that has closed forms for numeric use defines
``formulas() -> list[Formula]``; ``crawlmath codegen`` turns those into
:mod:`crawlmath.numeric.generated` (see :mod:`.codegen`).
"""
