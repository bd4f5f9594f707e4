r"""The expected colours at t = K and the mean field of the BUbiNG workbench (Buijsrogge 2014, Chapters 3–4).

The game and its notation (``K`` balls, ``C`` colours, ``S`` colours online,
``N(i)``, ``P_new``) are those of :mod:`crawlmath.numeric.colours._chains`.

- :func:`initial_expected` is Lemma 3.2.1, eq. (3.1), the expected colours at t = K;
- :func:`mean_field` is Theorem 4.2.1 / Corollary 4.2.1 (uniform colours), in exact integers.

>>> from ._laws import colour_distribution
>>> round(initial_expected(colour_distribution("uniform", 1000), 100), 4)
95.2079
>>> round(mean_field(100, 1000).colours, 10)
90.991810737
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..errors import TooLarge
from ..generated import buijsrogge as gen
from ..validate import require_int, require_memory, require_probability_vector

def initial_expected(p, K: int) -> float:
    r"""Lemma 3.2.1, eq. (3.1): :math:`C - \sum_i (1-p_i)^K`, summed as
    :math:`\sum_i 1-(1-p_i)^K` with the generated stable form (``expm1/log1p``,
    no cancellation)."""
    p = require_probability_vector(p, "p")
    K = require_int(K, "K", minimum=1)
    return math.fsum(gen.colour_drawn_probability(p, K))


@dataclass(frozen=True)
class MeanField:
    """Theorem 4.2.1 and Corollary 4.2.1 for uniform colours: the exact Fractions of the closed forms, their floats,
    and ν(i), i = 0..K, formed on demand (``nu``: K + 1 floats, refused with `TooLarge` beyond the memory limit).
    """

    K: int
    C: int
    colours_exact: Fraction  # KC/(K+C-1)
    p_new_exact: Fraction  # (C-1)/(K+C-1)
    method: str = "closed form (Thm 4.2.1, Cor 4.2.1)"

    @property
    def colours(self) -> float:
        """KC/(K+C−1) as a float (correctly rounded from the Fraction)."""
        return _float_of(self.colours_exact, "K" if self.K >= self.C else "C", self.K if self.K >= self.C else self.C)

    @property
    def p_new(self) -> float:
        """(C−1)/(K+C−1) as a float (in [0, 1], always representable)."""
        return float(self.p_new_exact)

    @property
    def nu(self) -> np.ndarray:
        """ν(i), i = 0..K (Cor 4.2.1), ν(0) = C − KC/(K+C−1); K + 1 float64 values."""
        nbytes = 16.0 * (self.K + 1) if self.K < 10**300 else math.inf  # a float beyond 1e308 would overflow
        require_memory(nbytes, "K", f"the mean-field nu(i), i = 0..K, at K = {self.K}", value=self.K)
        K, C = self.K, self.C
        if K == 1:
            # The float form exp((i-1) log(K-1) - ...) is 0 * -inf at K = 1; the
            # mpmath twin evaluates the derived power form, 0**0 = 1.
            nu_K = np.array([float(gen.mean_field_nu_mp(1, 1, C))])
        else:
            nu_K = gen.mean_field_nu(np.arange(1, K + 1, dtype=float), float(K), float(C))
        return np.concatenate([[float(C - self.colours_exact)], nu_K])


def _float_of(x: Fraction, argument: str, value) -> float:
    """``float(x)``, or `TooLarge` naming ``argument`` when x exceeds the float range."""
    try:
        return float(x)
    except OverflowError:
        raise TooLarge(argument, "the value exceeds the float64 range (1.8e308); use the exact Fraction "
                                 "(colours_exact)", value=value) from None


def mean_field(K: int, C: int) -> MeanField:
    """The mean-field values for uniform colours: E[S] ≈ KC/(K+C−1), P_new ≈ (C−1)/(K+C−1) and ν(i), i = 0..K
    (Buijsrogge, Thm 4.2.1, Cor 4.2.1), exact in integers for any K, C ≥ 1 (the closed form needs no memory).

    >>> mean_field(10**400, 10**400).colours_exact == Fraction(10**800, 2 * 10**400 - 1)
    True
    >>> mean_field(10**18, 10**18).colours
    5e+17
    """
    K = require_int(K, "K", minimum=1)
    C = require_int(C, "C", minimum=1)
    return MeanField(K, C, Fraction(K * C, K + C - 1), Fraction(C - 1, K + C - 1))
