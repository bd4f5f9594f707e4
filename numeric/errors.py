"""Typed exceptions shared by every solver.

`InvalidInput` is the one error a user can cause; the CLI turns it into a
single stderr line and exit status 2.  Its message always names the
argument, the offending entry (when there is one) and the rule broken, e.g.

>>> str(InvalidInput("gamma", "must be > 0", value=-1.0))
'gamma: must be > 0 (got -1.0)'
>>> str(InvalidInput("D0", "off-diagonal entries must be >= 0", value=-0.2, entry=(0, 1)))
'D0[0, 1]: off-diagonal entries must be >= 0 (got -0.2)'
"""
from __future__ import annotations

from typing import Any


class CrawlmathError(Exception):
    """Base class of every error raised on purpose by crawlmath."""


class InvalidInput(CrawlmathError, ValueError):
    """An argument breaks a documented rule.

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


class TooLarge(InvalidInput):
    """A request whose state space would not fit the machine; refused up front."""
