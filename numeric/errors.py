"""Typed exceptions shared by every solver.

`InvalidInput` is the error a user causes with a bad argument; the CLI turns
it into a single stderr line and exit status 2.  `TooLarge` (exit 4) is a
valid request refused before any allocation because its estimated memory or
time exceeds the limits of :mod:`crawlmath.numeric.validate` (``budget``);
`SolverError` (exit 3) is a method that could not deliver.  The messages of
`InvalidInput` and `TooLarge` name the argument, the offending entry (when
there is one) and the rule broken, e.g.

>>> str(InvalidInput("gamma", "must be > 0", value=-1.0))
'gamma: must be > 0 (got -1.0)'
>>> str(InvalidInput("D0", "off-diagonal entries must be >= 0", value=-0.2, entry=(0, 1)))
'D0[0, 1]: off-diagonal entries must be >= 0 (got -0.2)'
"""
from __future__ import annotations

from typing import Any


class CrawlmathError(Exception):
    """Base class of every error raised on purpose by crawlmath."""


class _ArgumentError(CrawlmathError):
    """An error blamed on one argument.

    Attributes: ``argument`` (its name), ``rule`` (the rule, in words),
    ``value`` (what was given) and ``entry`` (index of the offending entry of a
    vector/matrix argument, or None).
    """

    def __init__(self, argument: str, rule: str, *, value: Any = None, entry: Any = None):
        self.argument = argument
        self.rule = rule
        self.value = value
        self.entry = entry
        super().__init__(self._message())

    def _message(self) -> str:
        where = self.argument
        if self.entry is not None:
            idx = ", ".join(map(str, self.entry)) if isinstance(self.entry, tuple) else str(self.entry)
            where += f"[{idx}]"
        got = "" if self.value is None else f" (got {self.value!r})"
        return f"{where}: {self.rule}{got}"


class SolverError(CrawlmathError, RuntimeError):
    """A numerical method could not deliver a trustworthy answer.

    Raised instead of silently falling back (no pseudo-inverse for a singular
    block, no "best effort" after hitting an iteration cap).
    """


class InvalidInput(_ArgumentError, ValueError):
    """An argument breaks a documented rule (see `_ArgumentError`)."""


class TooLarge(_ArgumentError):
    """A request whose estimated memory or time exceeds the limits; refused up
    front, before allocating.  Deliberately *not* an `InvalidInput`: the input
    is valid, the machine (or the configured limit) is too small, and an
    ``except InvalidInput`` meant for bad values must not swallow it.

    >>> isinstance(TooLarge("K", "too many states"), InvalidInput)
    False
    """
