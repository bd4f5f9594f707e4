"""What the Buijsrogge (2014) claims share: the source helper and the symbols of :mod:`crawlmath.derive.buijsrogge`.
"""
from __future__ import annotations

import sympy as sp

from ....derive import buijsrogge as d
from ...registry import Source


K_, C_, S_, i_ = d.K, d.C, d.S, d.i


def src(section: str, ref: str) -> Source:
    """A :class:`Source` in Buijsrogge (section, reference)."""
    return Source("buijsrogge", section, ref)


def is_zero(expr) -> bool:
    """Does SymPy simplify ``expr`` to 0 (an identity holds)?"""
    return sp.simplify(expr) == 0
