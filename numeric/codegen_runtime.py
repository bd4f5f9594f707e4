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


def require(name: str, value, holds, rule: str) -> None:
    """Refuse an argument outside the model's domain (a ``Formula.requires``
    relation): nothing when ``holds`` is true everywhere, else
    ``InvalidInput(name, rule)`` with the first offending value.  ``holds``
    is a bool (an mpmath twin's comparison) or a NumPy boolean array (a
    vectorised function's, whose condition may broadcast ``value`` against
    other arguments: the value shown is the one at the first failing place).

    >>> require("rho", 0.5, 0.5 >= 0, "must be >= 0")
    >>> import numpy
    >>> h, m = numpy.float64(0.5), numpy.array([1.0, 0.25])
    >>> require("h", h, h < m, "must be < m")
    Traceback (most recent call last):
    ...
    crawlmath.numeric.errors.InvalidInput: h: must be < m (got 0.5)
    """
    if holds is True:
        return
    if holds is False:
        raise InvalidInput(name, rule, value=value)
    numpy = numpy_module()
    bad = ~numpy.asarray(holds, dtype=bool)
    if numpy.any(bad):
        raise InvalidInput(name, rule, value=numpy.broadcast_to(value, bad.shape)[bad].flat[0].item())


def settle(form, given: tuple, converters: tuple):
    r"""``form`` at the caller's precision :math:`p` (``mpmath.mp.prec``),
    delivered through cancellation: the arguments as the caller gave them
    (``given``; a decimal string keeps all its digits) are converted again
    (``converters``, one per argument) at :math:`q = p + e` bits for
    :math:`e = 16, 32, 64, \dots`, the form evaluated there, until two
    successive values :math:`v_{e/2}, v_e` satisfy
    :math:`|v_e - v_{e/2}| \le 2^{-(p+2)} |v_e|`; :math:`v_e` rounded to
    :math:`p` bits is returned.  A value that is exactly 0 at two successive
    precisions with :math:`e \ge 4p` is 0.  Beyond :math:`e = 64p` it
    raises ``SolverError`` instead of returning digits it could not confirm.

    Why: a closed form that subtracts nearly equal terms (a double root at
    rho = 1, :math:`1 - h^d` near the edge :math:`h = e^{-\mu m}`) loses as
    many bits as the terms cancel, so a value computed at :math:`p` bits can
    have none correct.  What it guarantees: with :math:`\epsilon_e` the
    error of :math:`v_e`, if :math:`|\epsilon_e| \le |\epsilon_{e/2}|/2`
    (rounding errors scale like :math:`2^{-q}` and each step adds at least
    16 bits) then :math:`|\epsilon_e| \le |v_e - v_{e/2}| \le
    2^{-(p+2)}|v_e|`, so the returned value is within a relative
    :math:`2^{-(p+2)}` plus its final rounding (:math:`2^{-p}`).  It is
    evidence, not a certificate: an error that does not shrink with the
    precision (a term below :math:`2^{-q}` of its neighbour at every
    :math:`q` tried, so every evaluation drops it identically) agrees with
    itself.  Rigorous enclosures are the ``_arb`` twins'.

    :math:`e^{-30} = \sum_k (-30)^k/k!` cancels terms of size
    :math:`e^{30} \approx 2^{43}` down to :math:`2^{-43}`: at 69 bits (the
    first try) not one digit is right; settled, all 15 are.

    >>> import mpmath
    >>> series = lambda x: sum((-x) ** k / mpmath.factorial(k) for k in range(200))
    >>> with mpmath.workdps(15):
    ...     first = mpmath.workprec(mpmath.mp.prec + 16)(series)(mpmath.mpf(30))
    ...     settled = settle(series, (30,), (mpmath.mpmathify,))
    ...     print(mpmath.nstr(first / mpmath.exp(-30) - 1, 3), settled == mpmath.exp(-30))
    -2.2e+4 True
    """
    mpmath = mpmath_module()
    target = mpmath.mp.prec
    previous, extra = None, 16
    while extra <= 64 * target:
        with mpmath.workprec(target + extra):
            value = +form(*(convert(a) for convert, a in zip(converters, given)))
        if previous is not None and (abs(value - previous) <= abs(value) * mpmath.mpf(2) ** (-target - 2) if value
                                     else previous == 0 and extra >= 4 * target):
            return +value
        previous, extra = value, 2 * extra
    raise SolverError(f"no two precisions up to {target + extra // 2} bits agree to {target} bits")


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
