"""psi_2(x) = (e^(-x) - 1 + x)/x^2, the function in which the limit C* of (17)
and the golden-ratio cost ratio of §5 are free of cancellation
(Coffman–Liu–Weber 1997, §3 (17) and §5, proof of Corollary 5.1), and its
floating-point form.  Shared by :mod:`crawlmath.derive.scheduling` (C* of
(17)) and :mod:`crawlmath.derive.golden` (H and G, which needs (17) from
scheduling): a module of its own, so scheduling does not import golden back.

>>> psi2(sp.Rational(1, 2)).equals(4 * (sp.exp(-sp.Rational(1, 2)) - sp.Rational(1, 2)))
True
>>> psi2_series_terms()
15
"""
from __future__ import annotations

import functools

import sympy as sp
from sympy.codegen.cfunctions import expm1


def psi2(arg) -> sp.Expr:
    """psi_2(x) = (e^(-x) - 1 + x)/x^2 = int_0^1 (1 - t) e^(-x t) dt: positive,
    decreasing, psi_2(0+) = 1/2."""
    return (sp.exp(-arg) - 1 + arg) / arg**2


@functools.cache
def psi2_series_terms(x0=sp.Rational(1, 2), rel=sp.Rational(1, 2**60)) -> int:
    """Terms n of psi_2(x) = sum_n (-x)^n/(n+2)! kept below x0: the series
    alternates with decreasing terms for x < 3, so the error after n terms is at
    most x0^n/(n+2)!, and we take the first n with that below rel psi_2(x0)."""
    floor = psi2(x0)
    n = 1
    while not x0**n / sp.factorial(n + 2) <= rel * floor:
        n += 1
    return n


def psi2_stable(arg, x0=sp.Rational(1, 2)) -> sp.Expr:
    """psi_2 for floating point: its Taylor polynomial below x0 (error bound of
    :func:`psi2_series_terms`), (expm1(-x) + x)/x^2 above (relative error
    amplification at most 2/x0)."""
    n = psi2_series_terms(x0)
    series = sum((-arg) ** j / sp.factorial(j + 2) for j in range(n))
    region = arg < x0
    if len(arg.free_symbols) == 1:  # arg = c v: state the region as v < x0/c
        v = next(iter(arg.free_symbols))
        if (arg / v).is_number:
            region = v < sp.radsimp(x0 / (arg / v))
    return sp.Piecewise((series, region), ((expm1(-arg) + arg) / arg**2, True))
