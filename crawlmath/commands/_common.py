"""Helpers shared by subcommands: argument types that raise one-line errors,
JSON output, and a progress line for long runs."""
from __future__ import annotations

import argparse
import json
import math
import sys
import time

from ..numeric.errors import InvalidInput


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


def _default(o):
    if hasattr(o, "tolist"):
        return o.tolist()
    if isinstance(o, float) and not math.isfinite(o):
        return str(o)
    return str(o)


def print_json(obj) -> None:
    json.dump(obj, sys.stdout, indent=2, default=_default, allow_nan=False)
    sys.stdout.write("\n")


def json_safe(x):
    """Floats that JSON can carry: inf/nan become strings."""
    if isinstance(x, float) and not math.isfinite(x):
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
