"""Exact numbers from whatever the user passed, and the float convention.

Every entry point that can deliver digits (``ctmc_stationary``,
``average_cost_mdp``, ``static_optimum``, ``solve_mdp``) reads its numeric
input through :func:`exact`, so that "certified to D digits" is a statement
about a model the user can name:

- ``int`` (and NumPy integers), ``fractions.Fraction``, SymPy ``Rational`` /
  ``Integer`` (read through their ``.p`` / ``.q``; SymPy is never imported),
  ``decimal.Decimal``, decimal or fraction strings (``"0.7"``, ``"-1e-3"``,
  ``"7/10"``) and mpmath ``mpf`` (its exact binary value) are taken exactly;
- a binary float (Python ``float``, NumPy ``floating``) stands for its
  shortest decimal -- the digits ``repr`` prints -- so ``0.7`` means 7/10.
  This is the convention ``FLOATS``, the same in every entry point: it makes a
  model typed as ``0.7`` mean what its author wrote, and it is never further
  than half an ulp from the float.  ``floats="binary"`` takes a float at its
  exact binary value instead (0.7 → 3152519739159347/2**52).

A result records which model its digits are for: ``inputs`` is ``"exact"``
when no binary float was given (:func:`input_kind`), else the convention used.

Matrices come as nested lists, NumPy arrays (object arrays included), scipy
sparse matrices or `Triplets`; :func:`dense` and :func:`sparse` turn any of
them into Fractions (naming a bad entry), :func:`float_matrix` /
:func:`float_array` into float64 for the float routes.  :func:`exact_or_inf`
keeps +inf (an unavailable action); :func:`to_mpf` / :func:`to_arb` /
:func:`to_float` convert a Fraction for the mpmath, ball and float routes.

>>> exact(0.7, argument="p"), exact("1e-3", argument="p"), exact("7/10", argument="p")
(Fraction(7, 10), Fraction(1, 1000), Fraction(7, 10))
>>> exact(0.7, argument="p", floats="binary")
Fraction(3152519739159347, 4503599627370496)
>>> input_kind([[Fraction(1, 3), "0.7"], [1, 2]]), input_kind([[1, 0.5]])
('exact', 'shortest-decimal')
>>> exact(float("nan"), argument="Q", entry=(0, 1))
Traceback (most recent call last):
...
crawlmath.numeric.errors.InvalidInput: Q[0, 1]: must be a finite real number (got nan)
"""
from __future__ import annotations

import math
import numbers
import operator
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from .errors import InvalidInput

FLOATS = "shortest-decimal"
BINARY = "binary"
EXACT = "exact"
_FLOAT_READINGS = (FLOATS, BINARY)


@dataclass(frozen=True)
class Triplets:
    """A sparse matrix of exact numbers in coordinate form, like scipy's COO:
    entry ``(rows[k], cols[k])`` is ``values[k]``; duplicates are summed and
    absent entries are 0.  ``values`` may hold anything :func:`exact` reads.

    >>> T = Triplets((2, 2), [0, 0, 1, 1], [0, 1, 0, 1], ["-0.7", "0.7", 1, -1])
    >>> dense(T, argument="Q")[0]
    [Fraction(-7, 10), Fraction(7, 10)]
    """

    shape: tuple[int, int]
    rows: Sequence[int]
    cols: Sequence[int]
    values: Sequence


def _is_float(value) -> bool:
    np = sys.modules.get("numpy")
    return isinstance(value, float) or (np is not None and isinstance(value, np.floating))


def _is_bool(value) -> bool:
    np = sys.modules.get("numpy")
    return isinstance(value, bool) or (np is not None and isinstance(value, np.bool_))


def _is_complex(value) -> bool:
    if isinstance(value, complex) or hasattr(value, "_mpc_"):
        return True
    np = sys.modules.get("numpy")
    return np is not None and isinstance(value, np.complexfloating)


def _finite_fraction(make, value, argument, entry) -> Fraction:
    """``make(value)`` as a Fraction; nan, inf and unparsable text are refused."""
    try:
        return Fraction(make(value))
    except (ValueError, OverflowError, ZeroDivisionError, TypeError, ArithmeticError):
        raise InvalidInput(argument, "must be a finite real number", value=value, entry=entry) from None


def _mpf_fraction(value) -> Fraction:
    """The exact binary value of an mpmath ``mpf`` (or anything with ``_mpf_``, e.g. a SymPy Float)."""
    import mpmath

    x = mpmath.mpf(value)
    if not mpmath.isfinite(x):
        raise ValueError(x)
    man, exp = x.man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def _require_reading(floats: str) -> None:
    if floats not in _FLOAT_READINGS:
        raise InvalidInput("floats", f"must be one of {', '.join(map(repr, _FLOAT_READINGS))}", value=floats)


def exact(value, *, argument: str, entry=None, floats: str = FLOATS) -> Fraction:
    """``value`` as an exact `Fraction` (see the module docstring for the
    types read and the float convention ``floats``).

    Refused with `InvalidInput` naming ``argument`` and ``entry``: bools,
    complex numbers, nan, inf, text that is not a number, other types.

    >>> exact(Fraction(7, 10), argument="rate"), exact(3, argument="K")
    (Fraction(7, 10), Fraction(3, 1))
    >>> exact(1 + 2j, argument="Q", entry=(1, 0))
    Traceback (most recent call last):
    ...
    crawlmath.numeric.errors.InvalidInput: Q[1, 0]: must be real, not complex (got (1+2j))
    """
    _require_reading(floats)
    if _is_bool(value):
        raise InvalidInput(argument, "must be a number, not a bool", value=value, entry=entry)
    if _is_complex(value):
        raise InvalidInput(argument, "must be real, not complex", value=value, entry=entry)
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    if _is_float(value):
        # str() of a NumPy scalar is its own shortest round-trip decimal (repr adds "np.float64(...)").
        reading = str if floats == FLOATS else float
        return _finite_fraction(reading, value, argument, entry)
    if isinstance(value, (Decimal, str)):
        return _finite_fraction(lambda v: Fraction(v.strip()) if isinstance(v, str) else v, value, argument, entry)
    if hasattr(value, "_mpf_"):
        return _finite_fraction(_mpf_fraction, value, argument, entry)
    p, q = getattr(value, "p", None), getattr(value, "q", None)
    if p is not None and q is not None:  # SymPy Rational / Integer, python-flint fmpq
        try:
            return Fraction(operator.index(p), operator.index(q))
        except (TypeError, ZeroDivisionError):
            raise InvalidInput(argument, "must be a finite real number", value=value, entry=entry) from None
    if getattr(value, "ndim", 0):  # a NumPy array (its __index__ fails): a matrix where a number belongs
        raise InvalidInput(argument, "must be a number, not an array", value=f"array of shape {value.shape}",
                           entry=entry)
    if isinstance(value, numbers.Integral) or hasattr(value, "__index__"):  # NumPy integers, flint fmpz
        return Fraction(operator.index(value))
    raise InvalidInput(argument, "must be an int, Fraction, Rational, Decimal, decimal string or float",
                       value=value, entry=entry)


def exact_or_inf(value, *, argument: str, entry=None, floats: str = FLOATS):
    """Like :func:`exact`, but +inf (``float("inf")``, ``"inf"``, ``Decimal("inf")``,
    an mpmath ``inf``) is kept as ``math.inf``: it marks an action that is unavailable.

    >>> exact_or_inf("inf", argument="c"), exact_or_inf("0.5", argument="c")
    (inf, Fraction(1, 2))
    """
    if _is_plus_inf(value):
        return math.inf
    return exact(value, argument=argument, entry=entry, floats=floats)


def _is_plus_inf(value) -> bool:
    """+inf itself, not a finite number too large for a float (``Decimal("1e400")`` is finite)."""
    if isinstance(value, str):
        return value.strip().lower() in ("inf", "+inf", "infinity", "+infinity")
    if _is_float(value):
        return value == math.inf
    if isinstance(value, Decimal):
        return value.is_infinite() and value > 0
    if hasattr(value, "_mpf_") and not hasattr(value, "_mpc_"):
        import mpmath

        x = mpmath.mpf(value)
        return bool(mpmath.isinf(x) and x > 0)
    return False


def to_float(q, *, argument: str, entry=None) -> float:
    """The float nearest to the exact number ``q`` (inf passes through), for the float routes;
    a number beyond the float range is refused.

    >>> to_float(Fraction(7, 10), argument="x")
    0.7
    """
    try:
        return float(q)
    except OverflowError:
        raise InvalidInput(argument, "is beyond the float64 range the float route needs",
                           value=str(q), entry=entry) from None


def _scalars(values):
    """Every scalar of a scalar / nested sequence / NumPy array / scipy sparse / `Triplets`."""
    np = sys.modules.get("numpy")
    if isinstance(values, Triplets):
        yield from values.values
    elif hasattr(values, "tocoo"):  # scipy sparse
        yield from _scalars(values.tocoo().data)
    elif np is not None and isinstance(values, np.ndarray):
        finite = np.isfinite(values) if values.dtype.kind == "f" else None
        if finite is not None and finite.any():
            yield float(values.flat[int(np.argmax(finite))])
        elif values.dtype.kind == "O":
            yield from values.ravel().tolist()
    elif isinstance(values, (list, tuple)):
        for v in values:
            yield from _scalars(v)
    else:
        yield values


def input_kind(values, *, floats: str = FLOATS) -> str:
    """``"exact"`` when ``values`` (a scalar, nested sequences, arrays, sparse
    matrices, `Triplets`, or a tuple of those) hold no binary float, else the
    float reading ``floats`` (``"shortest-decimal"`` by default).

    An infinity marks an unavailable action, not a value, and does not count.

    >>> import numpy as np
    >>> input_kind(np.array([[1, 2]])), input_kind(np.array([0.5])), input_kind([1, float("inf")])
    ('exact', 'shortest-decimal', 'exact')
    """
    _require_reading(floats)
    for v in _scalars(values):
        if _is_float(v) and not math.isinf(v):
            return floats
    return EXACT


def _index(k, argument: str) -> int:
    try:
        return operator.index(k)
    except TypeError:
        raise InvalidInput(argument, "row and column indices must be integers", value=k) from None


def _python_scalars(values) -> list:
    """``values.tolist()``, except that a float32 (or other non-float64) entry stays a NumPy
    scalar, so that its own shortest decimal is read, not that of the double it widens to."""
    return values.tolist() if values.dtype.kind != "f" or values.dtype.itemsize == 8 else list(values)


def _entries(M, argument: str):
    """``(shape, iterator of ((i, j), raw value)))`` of a 2-D matrix in any accepted form."""
    import numpy as np

    if isinstance(M, Triplets):
        if not (len(M.rows) == len(M.cols) == len(M.values)):
            raise InvalidInput(argument, "rows, cols and values must have the same length",
                               value=(len(M.rows), len(M.cols), len(M.values)))
        rows = [_index(i, argument) for i in M.rows]
        cols = [_index(j, argument) for j in M.cols]
        return tuple(M.shape), zip(zip(rows, cols), M.values)
    if hasattr(M, "tocoo"):
        C = M.tocoo()
        return tuple(C.shape), zip(zip(C.row.tolist(), C.col.tolist()), _python_scalars(C.data))
    try:
        A = M if isinstance(M, np.ndarray) else np.asarray(M, dtype=object)
    except ValueError:
        raise InvalidInput(argument, "must be a rectangular matrix (rows of equal length)") from None
    if A.ndim != 2:
        raise InvalidInput(argument, "must be a 2-D matrix (rows of equal length)", value=A.shape)
    rows = [_python_scalars(row) for row in A]
    return A.shape, (((i, j), x) for i, row in enumerate(rows) for j, x in enumerate(row))


def dense(M, *, argument: str, floats: str = FLOATS, allow_inf: bool = False) -> list[list]:
    """``M`` (nested lists, NumPy array, scipy sparse or `Triplets`) as rows of
    Fractions (``math.inf`` kept where ``allow_inf``); duplicates summed.

    >>> dense([[1, "0.25"], [0.1, Fraction(1, 3)]], argument="P")
    [[Fraction(1, 1), Fraction(1, 4)], [Fraction(1, 10), Fraction(1, 3)]]
    """
    shape, items = _entries(M, argument)
    n, m = (int(s) for s in shape)
    out = [[Fraction(0)] * m for _ in range(n)]
    read = exact_or_inf if allow_inf else exact
    for (i, j), x in items:
        if not (0 <= i < n and 0 <= j < m):
            raise InvalidInput(argument, f"index outside the shape {n}x{m}", value=(i, j))
        out[i][j] += read(x, argument=argument, entry=(i, j), floats=floats)
    return out


def _refuse_dtype(A, argument: str) -> None:
    """Refuse a complex or boolean NumPy array (``astype(float)`` would drop the imaginary part)."""
    import numpy as np

    if A.dtype.kind == "c":
        nonreal = np.argwhere(np.imag(A) != 0)
        where = tuple(int(i) for i in nonreal[0]) if nonreal.size else (0,) * A.ndim
        raise InvalidInput(argument, "must be real, not complex", value=A[where], entry=where)
    if A.dtype.kind == "b":
        raise InvalidInput(argument, "must hold numbers, not bools", value=str(A.dtype))


def shape(M, *, argument: str) -> tuple[int, ...]:
    """The shape of a matrix in any accepted form, read without converting its entries."""
    import numpy as np

    if isinstance(M, Triplets):
        return tuple(int(s) for s in M.shape)
    if hasattr(M, "tocoo") or isinstance(M, np.ndarray):
        return tuple(int(s) for s in M.shape)
    try:
        A = np.asarray(M, dtype=object)
    except ValueError:
        A = None
    if A is None or (A.ndim == 1 and any(isinstance(x, (list, tuple)) for x in A)):
        raise InvalidInput(argument, "must be a 2-D matrix (rows of equal length)")
    return A.shape


def float_matrix(M, *, argument: str):
    """``M`` as a scipy CSR float64 matrix, for the float routes: numeric arrays
    and sparse matrices directly, every other form entry by entry through
    :func:`exact` (a float's shortest decimal rounds back to the float itself, so
    the float routes are the same under either reading).  Complex and boolean
    arrays are refused.

    >>> float_matrix([["-1/2", "1/2"], [1, -1]], argument="Q").toarray().tolist()
    [[-0.5, 0.5], [1.0, -1.0]]
    """
    import scipy.sparse as sps

    if isinstance(M, Triplets):
        T = sparse(M, argument=argument)
        values = [to_float(v, argument=argument, entry=(i, j)) for i, j, v in zip(T.rows, T.cols, T.values)]
        return sps.csr_matrix((values, (T.rows, T.cols)), shape=T.shape)
    if hasattr(M, "tocoo"):
        _refuse_dtype(M.tocoo().data, argument)
        return sps.csr_matrix(M, dtype=float, copy=True)  # a copy: callers prune it in place
    return sps.csr_matrix(float_array(M, argument=argument), dtype=float, copy=True)


def float_array(M, *, argument: str, allow_inf: bool = True):
    """``M`` (nested lists or a NumPy array) as a 2-D float64 array: numeric arrays and
    lists of plain ints and floats directly, other entries through :func:`exact`
    (inf kept where ``allow_inf``, for the callers' own finiteness rules); complex
    numbers and bools are refused.

    >>> float_array([[1, "0.5"]], argument="c").tolist()
    [[1.0, 0.5]]
    """
    import numpy as np

    if isinstance(M, np.ndarray):
        A = M
    else:
        try:
            A = np.asarray(M, dtype=object)
        except ValueError:
            raise InvalidInput(argument, "must be a rectangular matrix (rows of equal length)") from None
    _refuse_dtype(A, argument)
    if A.ndim != 2:
        raise InvalidInput(argument, "must be a 2-D matrix (rows of equal length)", value=A.shape)
    if A.dtype.kind in "fiu" or (A.dtype.kind == "O" and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in A.flat)):
        return A.astype(float, copy=False)
    rows = dense(A, argument=argument, allow_inf=allow_inf)
    return np.array([[to_float(x, argument=argument, entry=(i, j)) for j, x in enumerate(row)] for i, row in enumerate(rows)],
                    dtype=float).reshape(A.shape)


def sparse(M, *, argument: str, floats: str = FLOATS) -> Triplets:
    """``M`` in any accepted form as `Triplets` of nonzero Fractions, duplicates
    summed (an explicit zero is not an entry).

    >>> sparse(Triplets((1, 2), [0, 0, 0], [1, 1, 0], ["1/4", "1/4", 0]), argument="P").values
    [Fraction(1, 2)]
    """
    shape_, items = _entries(M, argument)
    n, m = (int(s) for s in shape_)
    acc: dict[tuple[int, int], Fraction] = {}
    for (i, j), x in items:
        if not (0 <= i < n and 0 <= j < m):
            raise InvalidInput(argument, f"index outside the shape {n}x{m}", value=(i, j))
        acc[i, j] = acc.get((i, j), Fraction(0)) + exact(x, argument=argument, entry=(i, j), floats=floats)
    keys = sorted(k for k, v in acc.items() if v != 0)
    return Triplets((n, m), [i for i, _ in keys], [j for _, j in keys], [acc[k] for k in keys])


def to_mpf(q: Fraction):
    """``q`` rounded once (to nearest) to the current mpmath precision.

    >>> import mpmath
    >>> with mpmath.workdps(20):
    ...     print(to_mpf(Fraction(7, 10)))
    0.7
    """
    import mpmath
    from mpmath.libmp import from_rational, round_nearest

    return mpmath.mpf(from_rational(q.numerator, q.denominator, mpmath.mp.prec, round_nearest))


def to_arb(q: Fraction):
    """``q`` as a python-flint ball at the current ``flint.ctx.prec`` (it contains ``q``)."""
    from flint import arb, fmpq

    return arb(fmpq(q.numerator, q.denominator))
