"""Input checks, one rule per function, each raising `InvalidInput`.

They return the validated value (converted) so callers can write
``K = require_int(K, "K", minimum=2)``.  Matrix checks name the offending
entry.  Tolerances come from :mod:`crawlmath.numeric.tolerance`.
"""
from __future__ import annotations

import math
from numbers import Real

import numpy as np

from .errors import InvalidInput
from .tolerance import STRUCTURE_ABS


def require_real(value, name: str) -> float:
    """A finite real number (bools and strings are refused)."""
    if isinstance(value, bool) or not isinstance(value, (Real, np.floating, np.integer)):
        try:
            import mpmath

            if isinstance(value, mpmath.mpf):
                return value
        except ImportError:  # pragma: no cover - mpmath is a dependency
            pass
        raise InvalidInput(name, "must be a real number", value=value)
    if not math.isfinite(float(value)):
        raise InvalidInput(name, "must be finite", value=value)
    return value


def require_positive(value, name: str):
    """A finite real number > 0."""
    value = require_real(value, name)
    if not value > 0:
        raise InvalidInput(name, "must be > 0", value=value)
    return value


def require_open_unit(value, name: str):
    """A real number in the open interval (0, 1)."""
    value = require_real(value, name)
    if not 0 < value < 1:
        raise InvalidInput(name, "must lie in the open interval (0, 1)", value=value)
    return value


def require_int(value, name: str, *, minimum: int | None = None, allow_inf: bool = False):
    """An integer (or ``math.inf`` when ``allow_inf``) not below ``minimum``."""
    if allow_inf and isinstance(value, float) and value == math.inf:
        return math.inf
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            rule = "must be an integer" + (" or inf" if allow_inf else "")
            raise InvalidInput(name, rule, value=value)
    value = int(value)
    if minimum is not None and value < minimum:
        raise InvalidInput(name, f"must be >= {minimum}", value=value)
    return value


def require_probability_vector(vec, name: str) -> np.ndarray:
    """Non-negative entries summing to 1 (within ``STRUCTURE_ABS``)."""
    v = np.asarray(vec, dtype=float)
    if v.ndim != 1 or v.size == 0:
        raise InvalidInput(name, "must be a non-empty vector", value=v.shape)
    for i, x in enumerate(v):
        if not math.isfinite(x) or x < 0:
            raise InvalidInput(name, "entries must be finite and >= 0", value=float(x), entry=i)
    total = float(v.sum())
    if abs(total - 1) > STRUCTURE_ABS:
        raise InvalidInput(name, f"entries must sum to 1 (tolerance {STRUCTURE_ABS:g})", value=total)
    return v


def require_square(mat, name: str) -> np.ndarray:
    m = np.asarray(mat, dtype=float)
    if m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape[0] == 0:
        raise InvalidInput(name, "must be a non-empty square matrix", value=m.shape)
    bad = np.argwhere(~np.isfinite(m))
    if bad.size:
        i, j = map(int, bad[0])
        raise InvalidInput(name, "entries must be finite", value=m[i, j], entry=(i, j))
    return m


def require_nonnegative_offdiagonal(mat: np.ndarray, name: str) -> None:
    off = mat - np.diag(np.diag(mat))
    bad = np.argwhere(off < 0)
    if bad.size:
        i, j = map(int, bad[0])
        raise InvalidInput(name, "off-diagonal entries must be >= 0", value=float(mat[i, j]), entry=(i, j))


def require_generator(mat, name: str) -> np.ndarray:
    """An infinitesimal generator: off-diagonal >= 0, rows sum to 0."""
    m = require_square(mat, name)
    require_nonnegative_offdiagonal(m, name)
    sums = m.sum(axis=1)
    for i, s in enumerate(sums):
        if abs(s) > STRUCTURE_ABS * max(1.0, float(np.abs(m[i]).max())):
            raise InvalidInput(name, f"row {i} must sum to 0 (tolerance {STRUCTURE_ABS:g})", value=float(s), entry=i)
    return m


def require_subgenerator(mat, name: str) -> np.ndarray:
    """A transient sub-generator: off-diagonal >= 0, rows sum to <= 0, and
    every eigenvalue has negative real part (so absorption is certain)."""
    m = require_square(mat, name)
    require_nonnegative_offdiagonal(m, name)
    sums = m.sum(axis=1)
    for i, s in enumerate(sums):
        if s > STRUCTURE_ABS * max(1.0, float(np.abs(m[i]).max())):
            raise InvalidInput(name, f"row {i} must sum to <= 0", value=float(s), entry=i)
    worst = float(np.max(np.linalg.eigvals(m).real))
    if not worst < 0:
        raise InvalidInput(name, "must be transient (all eigenvalues with negative real part)", value=worst)
    return m
