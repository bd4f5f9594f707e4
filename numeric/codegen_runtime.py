"""Run-time checks shared by every module of :mod:`crawlmath.numeric.generated`.

The generated float64 functions evaluate their closed forms vectorised with
NumPy (every ``Piecewise`` branch is computed, so floating-point warnings are
expected there); these checks make sure nothing non-finite goes in or comes
out unannounced.

>>> finite_result("f", 1.5)
1.5
>>> finite_arguments(x=float("nan"))
Traceback (most recent call last):
...
crawlmath.numeric.errors.InvalidInput: x: must be finite (got nan)
"""
from __future__ import annotations

import numpy

from .errors import InvalidInput, SolverError


def finite_arguments(**arguments) -> None:
    """Raise InvalidInput naming the first argument that holds a nan or inf."""
    for name, value in arguments.items():
        bad = ~numpy.isfinite(value)
        if numpy.any(bad):
            raise InvalidInput(name, "must be finite", value=numpy.asarray(value)[bad].flat[0].item())


def as_integers(name: str, value):
    """An integer argument as a float array (exact up to 2**53; larger
    powers overflow to inf and are refused), after checking it is integral."""
    try:
        array = numpy.asarray(value, dtype=float)
    except (OverflowError, TypeError, ValueError):
        raise InvalidInput(name, "must be an integer representable in float64", value=value) from None
    bad = numpy.isfinite(array) & (array != numpy.round(array))
    if numpy.any(bad):
        raise InvalidInput(name, "must be an integer", value=array[bad].flat[0].item())
    return array


def finite_result(function: str, result):
    """The float64 result, or SolverError when it holds a nan or inf (the
    arguments being finite, the float route failed to deliver: overflow or
    an input outside the formula's domain; the _mp twin may still)."""
    if not numpy.all(numpy.isfinite(result)):
        raise SolverError(f"{function}: float64 evaluation gave a non-finite value; use {function}_mp")
    return result
