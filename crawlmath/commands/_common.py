"""Helpers shared by subcommands: argument types that raise one-line errors,
JSON output, and a progress line for long runs."""
from __future__ import annotations

import argparse
import json
import math
import sys
import time

from ..numeric.errors import InvalidInput, SolverError


def _bad(name: str, rule: str, text: str) -> argparse.ArgumentTypeError:
    # argparse shows an ArgumentTypeError's text as is ("argument --K: ...");
    # any other exception from a type function would become "invalid value".
    return argparse.ArgumentTypeError(f"{rule} (got {text!r})")


def number(name: str):
    """argparse type (or a plain parser): a finite float, error naming the option."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise InvalidInput(name, "must be a number", value=text) from None
        if not math.isfinite(value):
            raise InvalidInput(name, "must be finite", value=text)
        return value

    parse.__name__ = "finite number"  # argparse words a type error as "invalid finite number value: 'nan'"
    return parse


def integer(name: str, allow_inf: bool = False):
    """argparse type: an integer (or 'inf' when allowed)."""

    def parse(text: str):
        if allow_inf and text.strip().lower() in ("inf", "infinity", "∞"):
            return math.inf
        try:
            return int(text)
        except ValueError:
            raise _bad(name, "must be an integer" + (" or 'inf'" if allow_inf else ""), text) from None

    return parse


def _plain(o):
    """JSON's view of numpy scalars/arrays (anything else is refused by json)."""
    if hasattr(o, "tolist"):
        return o.tolist()
    raise TypeError(f"{type(o).__name__} is not JSON serialisable")


def non_finite(obj, path: str = "") -> tuple[str, float] | None:
    """The key path and value of the first nan/inf float inside ``obj``
    (dicts, lists, tuples, numpy arrays), or None.

    >>> non_finite({"a": [1.0, {"b": float("nan")}]})
    ('a[1].b', nan)
    """
    obj = _plain(obj) if hasattr(obj, "tolist") else obj
    if isinstance(obj, float):
        return None if math.isfinite(obj) else (path or "result", obj)
    if isinstance(obj, dict):
        items = ((f"{path}.{k}" if path else str(k), v) for k, v in obj.items())
    elif isinstance(obj, (list, tuple)):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(obj))
    else:
        return None
    for p, v in items:
        found = non_finite(v, p)
        if found:
            return found
    return None


def require_finite_output(obj) -> None:
    """Gate on what a command prints: a nan or inf means the method did not
    deliver (`SolverError`), never a number shown with exit 0.  A value that
    is legitimately infinite is passed through `json_safe` (a string) first."""
    found = non_finite(obj)
    if found:
        raise SolverError(f"the result {found[0]} is {found[1]}; nothing printed")


def print_json(obj) -> None:
    """Print ``obj`` as JSON, all or nothing: the text is built and checked
    (finite numbers only) before a byte reaches stdout."""
    require_finite_output(obj)
    text = json.dumps(obj, indent=2, default=_plain, allow_nan=False)
    sys.stdout.write(text + "\n")


def json_safe(x):
    """An infinite float that is a legitimate value (K = inf) as the string
    ``"inf"``; a nan is never legitimate and is left for the gate to refuse."""
    if isinstance(x, float) and math.isinf(x):
        return str(x)
    return x


class Progress:
    """A one-line progress display on stderr (redrawn on a terminal, a line
    every few seconds otherwise); silent when ``enabled`` is False."""

    def __init__(self, label: str, enabled: bool = True):
        self.label, self.enabled = label, enabled
        self.tty = sys.stderr.isatty()
        self.t0 = self._last = time.monotonic()

    def __call__(self, done: int, total: int, what=None) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        name = getattr(what, "id", what) or ""
        line = f"{self.label} {done}/{total} {now - self.t0:6.1f}s {name}"
        if self.tty:
            sys.stderr.write("\r\x1b[2K" + line[:150])
            if done == total:
                sys.stderr.write("\n")
        elif done == total or now - self._last > 5:
            sys.stderr.write(line + "\n")
            self._last = now
        sys.stderr.flush()
