"""Run-time checks shared by every module of :mod:`crawlmath.numeric.generated`.

The generated float64 functions evaluate their closed forms vectorised with
NumPy (every ``Piecewise`` branch is computed, so floating-point warnings are
expected there); these checks make sure nothing non-finite goes in or comes
out unannounced.  NumPy, mpmath and python-flint are imported by the
accessors below on first use (each generated function calls the one it
needs), so importing a generated module, or calling only its ``_scalar``
functions, loads none of them.

>>> finite_result("f", 1.5)
1.5
>>> finite_arguments(x=float("nan"))
Traceback (most recent call last):
...
crawlmath.numeric.errors.InvalidInput: x: must be finite (got nan)
"""
from __future__ import annotations

from .errors import InvalidInput, SolverError


def numpy_module():
    """The ``numpy`` module, imported on first use."""
    import numpy

    return numpy


def mpmath_module():
    """The ``mpmath`` module, imported on first use."""
    import mpmath

    return mpmath


def flint_module():
    """The ``flint`` module (python-flint), imported on first use."""
    import flint

    return flint


def finite_arguments(**arguments) -> None:
    """Raise InvalidInput naming the first argument that holds a nan or inf."""
    numpy = numpy_module()
    for name, value in arguments.items():
        bad = ~numpy.isfinite(value)
        if numpy.any(bad):
            raise InvalidInput(name, "must be finite", value=numpy.asarray(value)[bad].flat[0].item())


def as_integers(name: str, value):
    """An integer argument as a float array (exact up to 2**53; larger
    powers overflow to inf and are refused), after checking it is integral."""
    numpy = numpy_module()
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
    numpy = numpy_module()
    if not numpy.all(numpy.isfinite(result)):
        raise SolverError(f"{function}: float64 evaluation gave a non-finite value; use {function}_mp")
    return result


def power_sum(x: float, lo: int, hi: int, coefficients: tuple) -> float:
    r"""The finite sum :math:`\sum_{i=lo}^{hi} x^i\,p(i)` with
    :math:`p(i) = \sum_k c_k i^k` (``coefficients`` = :math:`(c_0, c_1, \dots)`),
    in Python floats, by Horner's rule in ``x`` from ``i = hi`` down: one
    multiply-add per term instead of a power, then :math:`x^{lo}`.  The
    generated ``_scalar`` functions print a ``Sum(x**i * p(i), (i, lo, hi))``
    this way (their mpmath and ball twins keep the term-by-term sum).

    >>> power_sum(0.5, 0, 3, (1, 1)), 1 + 2 * 0.5 + 3 * 0.25 + 4 * 0.125
    (3.25, 3.25)
    >>> power_sum(2.0, 1, 0, (1,))
    0.0
    """
    acc = 0.0
    if len(coefficients) == 1:
        c0, = coefficients
        for _ in range(hi - lo + 1):
            acc = acc * x + c0
    elif len(coefficients) == 2:
        c0, c1 = coefficients
        for i in range(hi, lo - 1, -1):
            acc = acc * x + (c0 + c1 * i)
    else:
        for i in range(hi, lo - 1, -1):
            p = 0.0
            for c in reversed(coefficients):
                p = p * i + c
            acc = acc * x + p
    return acc * x**lo if lo else acc
