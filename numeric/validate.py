"""Input checks, one rule per function, each raising `InvalidInput`.

They return the validated value (converted) so callers can write
``K = require_int(K, "K", minimum=2)``.  Matrix checks name the offending
entry.  Tolerances come from :mod:`crawlmath.numeric.tolerance`.

NumPy is imported only by the checks of arrays: the scalar checks and the
resource limits are used on every command's start-up path.
"""
from __future__ import annotations

import contextlib
import math
import os
import stat
import sys
from fractions import Fraction
from numbers import Real

from .errors import InvalidInput, TooLarge
from .tolerance import STRUCTURE_ABS


def _is_numpy_integer(value) -> bool:
    """True for a NumPy integer scalar; without numpy loaded there can be none."""
    np = sys.modules.get("numpy")
    return np is not None and isinstance(value, np.integer)


def require_real(value, name: str) -> float:
    """A finite real number (bools and strings are refused).  NumPy's
    floating and integer scalars count: NumPy registers them as `numbers.Real`."""
    if isinstance(value, bool) or not isinstance(value, Real):
        try:
            import mpmath

            if isinstance(value, mpmath.mpf):
                return value
        except ImportError:  # pragma: no cover - mpmath is a dependency
            pass
        raise InvalidInput(name, "must be a real number", value=value)
    try:
        finite = math.isfinite(float(value))
    except OverflowError:  # an int or Fraction beyond the float64 range
        raise InvalidInput(name, "must lie within the float64 range (|x| <= 1.8e308)", value=str(value)) from None
    if not finite:
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
    if isinstance(value, bool) or not (isinstance(value, int) or _is_numpy_integer(value)):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            rule = "must be an integer" + (" or inf" if allow_inf else "")
            raise InvalidInput(name, rule, value=value)
    value = int(value)
    if minimum is not None and value < minimum:
        raise InvalidInput(name, f"must be >= {minimum}", value=value)
    return value


FLOAT_SAFE_MIN, FLOAT_SAFE_MAX = 1e-300, 1e300  # exact numbers the float64 solves (LU steps) can carry
# The same bounds as Fractions: comparing a Fraction with a float converts the float each time.
_SAFE_BOUNDS_Q = (Fraction(FLOAT_SAFE_MIN), Fraction(FLOAT_SAFE_MAX))


def require_float_magnitude(value, where: str, text: str | None = None):
    """An exact number that float64 represents without overflow or underflow:
    0 or 1e-300 <= |value| <= 1e300 (the exact routes still solve in float64
    for their corrections).

    >>> from fractions import Fraction
    >>> require_float_magnitude(Fraction(1, 10), "m.tra:2")
    Fraction(1, 10)
    >>> require_float_magnitude(Fraction(10) ** 400, "m.tra:2", "1e400")
    Traceback (most recent call last):
    ...
    crawlmath.numeric.errors.InvalidInput: m.tra:2: magnitude must be 0 or within [1e-300, 1e+300] (got '1e400')
    """
    low, high = _SAFE_BOUNDS_Q if isinstance(value, Fraction) else (FLOAT_SAFE_MIN, FLOAT_SAFE_MAX)
    if value != 0 and not low <= abs(value) <= high:
        raise InvalidInput(where, f"magnitude must be 0 or within [{FLOAT_SAFE_MIN:g}, {FLOAT_SAFE_MAX:g}]",
                           value=text if text is not None else str(value))
    return value


MAX_DIGITS = 1000  # the digits= routes are O(digits^1.6) per operation; beyond this nobody is served


def require_digits(value, name: str = "digits", *, minimum: int = 1) -> int:
    """A number of significant digits: an integer from ``minimum`` to ``MAX_DIGITS``.

    >>> require_digits(10**8)
    Traceback (most recent call last):
    ...
    crawlmath.numeric.errors.InvalidInput: digits: must be an integer from 1 to 1000 (got 100000000)
    """
    if isinstance(value, bool) or not (isinstance(value, int) or _is_numpy_integer(value)) \
            or not minimum <= value <= MAX_DIGITS:
        raise InvalidInput(name, f"must be an integer from {minimum} to {MAX_DIGITS}", value=value)
    return int(value)


def require_real_vector(values, name: str, *, bytes_per_entry: int = 8) -> np.ndarray:
    """A non-empty 1-D float64 array of finite real numbers from a sequence or
    array; refuses strings, bools, complex and object entries by name, and
    refuses (`TooLarge`) before converting when ``bytes_per_entry`` times the
    length exceeds the memory limit.

    >>> require_real_vector([1, 2.5], "rates").tolist()
    [1.0, 2.5]
    >>> try:
    ...     require_real_vector([1, 2j], "rates")
    ... except InvalidInput as exc:
    ...     print(exc)
    rates: must be real numbers, not complex (got 'complex128')
    """
    import numpy as np

    if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__len__"):
        raise InvalidInput(name, "must be a sequence or array of numbers", value=type(values).__name__)
    require_memory(bytes_per_entry * float(len(values)), name, f"{len(values)} entries "
                                                               f"({bytes_per_entry} bytes each)", value=len(values))
    try:
        raw = np.asarray(values)
    except (ValueError, TypeError) as exc:
        raise InvalidInput(name, f"must be a vector of numbers ({exc})") from None
    if raw.dtype.kind == "c":
        raise InvalidInput(name, "must be real numbers, not complex", value=str(raw.dtype))
    if raw.dtype.kind not in "iuf":
        raise InvalidInput(name, "must be real numbers (not bool, text or objects)", value=str(raw.dtype))
    v = raw.astype(float, copy=False)
    if v.ndim != 1 or v.size == 0:
        raise InvalidInput(name, "must be a non-empty vector", value=v.shape)
    bad = np.flatnonzero(~np.isfinite(v))
    if bad.size:
        raise InvalidInput(name, "entries must be finite", value=float(v[bad[0]]), entry=int(bad[0]))
    return v


def require_probability_vector(vec, name: str) -> np.ndarray:
    """Non-negative entries summing to 1 (within ``STRUCTURE_ABS``)."""
    import numpy as np

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
    """``mat`` as a float array, checked to be a non-empty square matrix with finite entries; InvalidInput otherwise."""
    import numpy as np

    m = np.asarray(mat, dtype=float)
    if m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape[0] == 0:
        raise InvalidInput(name, "must be a non-empty square matrix", value=m.shape)
    bad = np.argwhere(~np.isfinite(m))
    if bad.size:
        i, j = map(int, bad[0])
        raise InvalidInput(name, "entries must be finite", value=m[i, j], entry=(i, j))
    return m


def require_nonnegative_offdiagonal(mat: np.ndarray, name: str) -> None:
    """Raise InvalidInput naming the first negative off-diagonal entry of ``mat``."""
    import numpy as np

    off = mat - np.diag(np.diag(mat))
    bad = np.argwhere(off < 0)
    if bad.size:
        i, j = map(int, bad[0])
        raise InvalidInput(name, "off-diagonal entries must be >= 0", value=float(mat[i, j]), entry=(i, j))


def require_generator(mat, name: str) -> np.ndarray:
    """An infinitesimal generator: off-diagonal >= 0, rows sum to 0."""
    import numpy as np

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
    import numpy as np

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


# --- Resource limits ------------------------------------------------------------
# One mechanism for every entry point: a request estimates its memory and time
# from its arguments *before* allocating and is refused with `TooLarge` above
# the limits.  The limits come from two environment variables (the console
# script's --max-memory / --max-seconds options set them for one run).

MEMORY_ENV, SECONDS_ENV = "CRAWLMATH_MAX_MEMORY", "CRAWLMATH_MAX_SECONDS"
DEFAULT_MAX_SECONDS = 600.0
_UNITS = {"": 1, "B": 1, "K": 2**10, "KB": 2**10, "KIB": 2**10, "M": 2**20, "MB": 2**20, "MIB": 2**20,
          "G": 2**30, "GB": 2**30, "GIB": 2**30, "T": 2**40, "TB": 2**40, "TIB": 2**40}


def physical_memory() -> int:
    """Bytes of RAM of this machine (8 GiB when the OS does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):
        return 8 * 2**30


def default_max_memory() -> int:
    """8 GiB, or 3/4 of the RAM on a smaller machine."""
    return min(8 * 2**30, physical_memory() * 3 // 4)


def parse_size(text: str, name: str) -> int:
    """Bytes from ``"512M"``, ``"8G"``, ``"1.5GiB"`` or a plain number.

    >>> parse_size("1.5G", "--max-memory")
    1610612736
    """
    s = str(text).strip().upper()
    number = s.rstrip("KMGTIB")
    unit = s[len(number):]
    try:
        value = float(number) * _UNITS[unit]
    except (KeyError, ValueError):
        raise InvalidInput(name, "must be a size such as 512M, 8G or 1.5GiB", value=text) from None
    if not (math.isfinite(value) and value >= 1):
        raise InvalidInput(name, "must be a finite size >= 1 byte", value=text)
    return int(value)


def parse_seconds(text: str, name: str) -> float:
    """Seconds from a plain number (> 0, finite)."""
    try:
        value = float(text)
    except ValueError:
        raise InvalidInput(name, "must be a number of seconds", value=text) from None
    if not (math.isfinite(value) and value > 0):
        raise InvalidInput(name, "must be a finite number of seconds > 0", value=text)
    return value


def max_memory() -> int:
    """The memory limit in bytes (``CRAWLMATH_MAX_MEMORY`` or the default)."""
    env = os.environ.get(MEMORY_ENV)
    return default_max_memory() if not env else parse_size(env, MEMORY_ENV)


def max_seconds() -> float:
    """The time limit in seconds (``CRAWLMATH_MAX_SECONDS`` or 600)."""
    env = os.environ.get(SECONDS_ENV)
    return DEFAULT_MAX_SECONDS if not env else parse_seconds(env, SECONDS_ENV)


def _as_float(x) -> float:
    try:
        return float(x)
    except OverflowError:
        return math.inf


def format_bytes(n: float) -> str:
    """``'7.0 TiB'``-style text for a byte count (any size: an estimate from huge inputs is an int beyond float)."""
    n = _as_float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.3g} {unit}" if unit != "B" else f"{n:.0f} B"
        n /= 1024
    return f"{n:.3g} PiB"  # pragma: no cover - the loop returns


def format_seconds(s: float) -> str:
    """``'13 min'``-style text for a duration."""
    s = _as_float(s)
    if s < 120:
        return f"{s:.3g} s"
    if s < 7200:
        return f"{s / 60:.3g} min"
    if s < 2 * 86400:
        return f"{s / 3600:.3g} h"
    return f"{s / 86400:.3g} days"


def require_memory(nbytes: float, argument: str, what: str, *, value=None) -> None:
    """Refuse (`TooLarge`) a request whose estimated memory exceeds the limit.

    ``what`` says what was estimated, e.g. ``"K = 10**12 (float route, 48 bytes per K)"``.
    """
    limit = max_memory()
    if not nbytes <= limit:
        raise TooLarge(argument, f"{what} needs an estimated {format_bytes(nbytes)}, over the limit "
                                 f"{format_bytes(limit)} (raise it with --max-memory, {MEMORY_ENV} or limits(memory=...))", value=value)


@contextlib.contextmanager
def limits(memory: str | int | None = None, seconds: float | None = None):
    """The memory and time limits for the calls inside the block (the Python
    API's way to lift or lower them; the console script's --max-memory and
    --max-seconds use it), restored afterwards.  ``memory`` is bytes or a
    size such as ``"64G"``.

    >>> with limits(memory="64G", seconds=3600):
    ...     format_bytes(max_memory()), max_seconds()
    ('64 GiB', 3600.0)
    """
    new = {}
    if memory is not None:
        new[MEMORY_ENV] = str(parse_size(memory, "memory"))
    if seconds is not None:
        new[SECONDS_ENV] = repr(parse_seconds(seconds, "seconds"))
    saved = {k: os.environ.get(k) for k in new}
    os.environ.update(new)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def require_seconds(seconds: float, argument: str, what: str, *, value=None) -> None:
    """Refuse (`TooLarge`) a request whose estimated run time exceeds the limit."""
    limit = max_seconds()
    if not seconds <= limit:
        raise TooLarge(argument, f"{what} needs an estimated {format_seconds(seconds)}, over the limit "
                                 f"{format_seconds(limit)} (raise it with --max-seconds, {SECONDS_ENV} or limits(seconds=...))", value=value)


# --- Input files ----------------------------------------------------------------
# Every file a command reads is bounded before a byte is read: stat first (a
# FIFO, a device or a folder is refused, so nothing blocks or reads forever),
# a size cap, then a parse whose nesting is bounded.

MAX_INPUT_BYTES = 16 * 2**20  # a model or spec file is a few KiB; 16 MiB leaves room for large matrices
MAX_INPUT_DEPTH = 64  # nesting of a decoded input (a spec is 3 deep, a model file 6)
_FILE_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
               (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words, from its ``st_mode``.

    >>> file_kind(stat.S_IFIFO)
    'a FIFO (named pipe)'
    """
    return next((name for test, name in _FILE_KINDS if test(mode)), "not a regular file")


def require_regular_file(path, argument: str, st: os.stat_result | None = None) -> os.stat_result:
    """``os.stat(path)`` of a regular file (symlinks followed); `InvalidInput`
    naming ``argument`` when it is missing, unreadable or anything else."""
    try:
        st = st or os.stat(path)
    except OSError as exc:
        raise InvalidInput(argument, f"cannot be read: {exc.strerror or exc}", value=str(path)) from None
    if not stat.S_ISREG(st.st_mode):
        raise InvalidInput(argument, f"must be a regular file, not {file_kind(st.st_mode)}", value=str(path))
    return st


def read_input_file(path, argument: str, *, max_bytes: int = MAX_INPUT_BYTES) -> str:
    """The UTF-8 text of the regular file ``path``, read only after checking
    its kind and size (at most ``max_bytes``); opened non-blocking and
    checked again through the open descriptor, so a file swapped for a FIFO
    or grown meanwhile is refused too.  Every failure is an `InvalidInput`.

    >>> try:
    ...     read_input_file("/dev/zero", "SPEC")
    ... except InvalidInput as exc:
    ...     print(exc)
    SPEC: must be a regular file, not a character device (got '/dev/zero')
    """
    size = require_regular_file(path, argument).st_size
    if size > max_bytes:
        raise InvalidInput(argument, f"is {format_bytes(size)}, more than an input file may hold "
                                     f"({format_bytes(max_bytes)})", value=str(path))
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
        with os.fdopen(fd, "rb") as fh:
            require_regular_file(path, argument, os.fstat(fh.fileno()))
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise InvalidInput(argument, f"cannot be read: {exc.strerror or exc}", value=str(path)) from None
    if len(data) > max_bytes:
        raise InvalidInput(argument, f"grew beyond {format_bytes(max_bytes)} while read", value=str(path))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(argument, f"is not UTF-8 text (byte {exc.start}: {exc.reason})", value=str(path)) from None


def nesting_depth(obj) -> int:
    """Depth of nested lists/dicts in ``obj`` (a scalar is 0), without recursion.

    >>> nesting_depth({"grid": {"K": [1, 2]}}), nesting_depth(3)
    (3, 0)
    """
    deepest, stack = 0, [(obj, 1)]
    while stack:
        node, depth = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth)
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return deepest


def parse_document(text: str, argument: str, kind: str, *, where=None, max_depth: int = MAX_INPUT_DEPTH):
    """``text`` decoded as ``kind`` ("JSON" or "TOML"), nested at most
    ``max_depth`` deep; a syntax error or deeper nesting is an `InvalidInput`
    (the decoders recurse per level: a RecursionError is caught as such).

    >>> try:
    ...     parse_document("[" * 100 + "]" * 100, "SPEC", "JSON")
    ... except InvalidInput as exc:
    ...     print(exc)
    SPEC: is nested 100 deep, more than 64
    """
    import json
    import tomllib

    try:
        data = tomllib.loads(text) if kind == "TOML" else json.loads(text)
    except RecursionError:
        raise InvalidInput(argument, f"is nested too deeply to decode as {kind}", value=where) from None
    except (ValueError, tomllib.TOMLDecodeError) as exc:  # JSONDecodeError is a ValueError
        raise InvalidInput(argument, f"is not valid {kind}: {exc}", value=where) from None
    depth = nesting_depth(data)
    if depth > max_depth:
        raise InvalidInput(argument, f"is nested {depth} deep, more than {max_depth}", value=where)
    return data
