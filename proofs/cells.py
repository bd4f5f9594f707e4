"""One cell engine for every printed table.

A printed table cell is decided by three things only: the printed text of
*that* cell, the value crawlmath computes for it, and the printing convention
of its table.  No other printed cell ever decides a verdict, except through
the table-level rules below, each stated once here and enabled per table.

The printing convention of a table (rounding to the printed digits, or
truncation) is established once, from evidence, with :func:`convention`, and
recorded here; a cell is never granted whichever reading happens to pass.

Two further table-level rules, each recorded once per table on evidence a
claim recounts, and each able to fail: the *last-digit rule*
(:func:`last_digit_rule`: a truncating table whose cells print as
trunc(v (1 + e)) for some 0 <= e <= a stated relative bound, never lower), and a
*row reading* (:func:`row_reading`: a derived column computed from its row's
printed cells, the one documented exception to "no other printed cell decides
a cell").  The *slip rules* (:data:`COPIED_CELL`, :data:`COPIED_INPUT`,
:data:`ROW_ARITHMETIC`, enabled per table with :func:`slip_rule`) are the only
way a certain FAIL becomes an ERRATUM from other cells: they name a neighbour's
*computed* value (or the row's printed inputs) that the printed text matches,
and never turn anything into a PASS.

A cell that does not match lists, in its detail, the other readings that were
tried (:class:`Hypothesis`) with their numbers, so a reader can see what was
searched before the printed value was called unreproduced.

Certainty (issue 17): when the caller gives ``error_bound`` (an absolute
bound on the computed value's error), the outcome records whether the verdict
could flip within it: ``certain`` is True when the distance from the value to
the nearest boundary at which the printed digits would change exceeds the bound
(`stable_within`).  A value given exactly (a ``Fraction`` with error bound 0)
is certain even on a boundary: no error can move it, the rule decides.

>>> convention("Example Table", Printing.ROUND, "all 12 cells round; none needs truncation")
>>> judge_cell("Example Table", "0.17541", 0.175414, error_bound=1e-12).status.value
'PASS'
>>> from fractions import Fraction
>>> judge_cell("Example Table", "0.13313", Fraction(213, 1600), error_bound=0).certain  # 0.133125: on the midpoint, exact
True
>>> o = judge_cell("Example Table", "0.17541", 0.17552,
...                hypotheses=[Hypothesis("gamma = 17/15", 0.175409, True)])
>>> o.status.value, o.certain
('FAIL', None)
>>> print(o.detail)
computed 0.17552 vs printed 0.17541 (rounding: round-half to 5 decimals); no match; other readings tried: gamma = 17/15 -> 0.175409 (matches)
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Iterable

from ..numeric.tolerance import matches_printed, matches_truncated, printed_tolerance
from .registry import Outcome


class Printing(str, enum.Enum):
    """How a table prints its numbers: rounded, truncated, or exact text (integers, lists, words)."""
    ROUND = "rounding"
    TRUNCATE = "truncation"
    EXACT = "exact"  # integers, mode lists, words: equality of the printed text


@dataclass(frozen=True)
class Convention:
    """A table's printing convention and the evidence (numbers) that established it."""
    printing: Printing
    evidence: str  # how the convention was established (numbers), shown in the report


CONVENTIONS: dict[str, Convention] = {}


def convention(table: str, printing: Printing, evidence: str) -> None:
    """Record how ``table`` prints its numbers, with the evidence for it.
    Recording a different convention for the same table is an error."""
    old = CONVENTIONS.get(table)
    if old is not None and old.printing is not printing:
        raise ValueError(f"{table}: convention already recorded as {old.printing.value}")
    CONVENTIONS[table] = Convention(printing, evidence)


def printing_of(table: str) -> Printing:
    """The recorded printing convention of ``table`` (KeyError when none was recorded)."""
    try:
        return CONVENTIONS[table].printing
    except KeyError:
        raise KeyError(f"no printing convention recorded for {table!r}; call cells.convention() first") from None


@dataclass(frozen=True)
class Hypothesis:
    """Another reading of the paper tried for a cell, with the value it gives."""

    reading: str
    value: float | int | str
    matches: bool

    def __str__(self) -> str:
        v = f"{self.value:.6g}" if isinstance(self.value, float) else str(self.value)
        return f"{self.reading} -> {v} ({'matches' if self.matches else 'no match'})"


def matches(printing: Printing, value, printed: str) -> bool:
    """Does ``value`` print as ``printed`` under ``printing``?"""
    if printing is Printing.EXACT:
        return _exact_text(value) == printed.strip()
    if not isinstance(value, (int, float, Fraction)) or not math.isfinite(float(value)):
        return False
    if printing is Printing.ROUND:
        return matches_printed(float(value), printed)
    return matches_truncated(float(value), printed)


def margin(printing: Printing, value: float, printed: str) -> float:
    """Distance from ``value`` to the nearest boundary at which the printed
    digits would change (inside or outside the printed interval)."""
    p = float(printed.strip().rstrip("%"))
    half = printed_tolerance(printed) / (1 + 1e-9)
    if printing is Printing.ROUND:
        lo, hi = p - half, p + half
    else:
        unit = 2 * half
        lo, hi = (p, p + unit) if p >= 0 else (p - unit, p)
    return min(abs(value - lo), abs(value - hi))


def stable_within(printing: Printing, value: float, printed: str, bound: float) -> bool:
    """The verdict on ``value`` vs ``printed`` cannot flip within an absolute error ``bound``."""
    return margin(printing, float(value), printed) > bound


def judge_cell(table: str, printed: str, value, *, fmt: Callable[[object], str] | None = None,
               what: str = "", hypotheses: Iterable[Hypothesis] = (), error_bound: float | None = None,
               note: str = "") -> Outcome:
    """PASS when ``value`` prints as ``printed`` under ``table``'s convention,
    else FAIL listing ``hypotheses``.  ``error_bound`` (absolute) makes the
    verdict's certainty known; ``fmt`` formats the computed value for the
    report (default: as many decimals as printed)."""
    printing = printing_of(table)
    ok = matches(printing, value, printed)
    upward = None if ok else last_digit_match(table, value, printed)
    ok = ok or upward is not None
    shown = (fmt or _like(printed))(value)
    how = printing.value if printing is Printing.EXACT else f"{printing.value}: {_rule(printing, printed)}"
    if upward is not None:
        how += f"; {LAST_DIGIT_NAME}: printed = truncation of v (1 + e) with e = {upward:.2g} <= {LAST_DIGIT[table].bound:g}"
    detail = f"{what + ': ' if what else ''}computed {shown} vs printed {printed} ({how}); {'match' if ok else 'no match'}"
    tried = list(hypotheses)
    if tried:
        detail += "; other readings tried: " + "; ".join(map(str, tried))
    if note:
        detail += f"; {note}"
    certain = None
    if upward is not None and error_bound is not None:
        certain = last_digit_margin(table, value, printed) > error_bound
    elif error_bound is not None and printing is not Printing.EXACT and isinstance(value, (int, float, Fraction)):
        certain = (isinstance(value, Fraction) and error_bound == 0) or stable_within(printing, value, printed, error_bound)
    elif printing is Printing.EXACT and error_bound == 0:
        certain = True
    return Outcome.judge(ok, detail, computed=shown, error_bound=error_bound, certain=certain)


def _exact_text(value) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value))
    return str(value)


def decimals(printed: str) -> int:
    """The number of decimals of a printed number (a trailing % ignored): its last printed place is 10^-decimals.

    >>> decimals("63.54"), decimals("28.1%"), decimals("449")
    (2, 1, 0)
    """
    text = printed.strip().rstrip("%")
    return len(text.split(".", 1)[1]) if "." in text else 0


def _like(printed: str) -> Callable[[object], str]:
    d = decimals(printed)

    def fmt(v) -> str:
        """The computed value shown with as many decimals as printed."""
        if isinstance(v, (float, Fraction)):
            return f"{float(v):.{d}f}" + ("%" if printed.strip().endswith("%") else "")
        return _exact_text(v)

    return fmt


def _rule(printing: Printing, printed: str) -> str:
    d = decimals(printed)
    return ("round-half" if printing is Printing.ROUND else "truncate") + f" to {d} decimal{'s' if d != 1 else ''}"


# ----------------------------------------------------------- slip rules (issue 32, item 10)
#
# A printed cell that FAILs with certainty may be a printing slip.  The rules
# below are the only way a FAIL becomes an ERRATUM from other cells: each is
# stated once here, enabled per table with :func:`slip_rule` (its scope, the
# neighbours it may name, and the evidence that established it, like a
# printing convention), and applied by the same function to every table of
# every paper.  They read *computed* values of named neighbour cells and, for
# ``ROW_ARITHMETIC`` only, the printed inputs of the cell's own row.  A rule
# never turns anything into a PASS and never acts on a PASS.


@dataclass(frozen=True)
class SlipRule:
    """A named rule that turns a certain FAIL into an ERRATUM, stated in one sentence."""

    name: str
    sentence: str


COPIED_CELL = SlipRule(
    "copied cell",
    "a cell whose computed value fails its print with certainty, while its printed text is, under the table's "
    "convention, the certain computed value of a neighbour cell of the same column, prints the neighbour's value")
COPIED_INPUT = SlipRule(
    "copied input",
    "a derived cell (a formula of cells of its row) that fails its print with certainty, while its printed text is "
    "the formula's certain value with one input replaced by the computed value of that input's neighbour, follows "
    "a copied input")
ROW_ARITHMETIC = SlipRule(
    "row arithmetic",
    "a derived cell that fails its print with certainty, while its formula applied to its own row's printed inputs "
    "gives the computed value to the printed digits and not the printed text, is an arithmetic slip of that row")


@dataclass(frozen=True)
class SlipScope:
    """Where a rule applies in one table: the neighbours it may name (text) and the evidence for enabling it."""

    neighbours: str
    evidence: str


SLIP_RULES: dict[str, dict[str, SlipScope]] = {}


def slip_rule(table: str, rule: SlipRule, neighbours: str, evidence: str) -> None:
    """Enable ``rule`` for ``table``: ``neighbours`` says which cells it may name (e.g. "the next row of the same
    column": a column slip), ``evidence`` where the counts that establish it are computed."""
    SLIP_RULES.setdefault(table, {})[rule.name] = SlipScope(neighbours, evidence)


def _scope(table: str, rule: SlipRule) -> SlipScope:
    try:
        return SLIP_RULES[table][rule.name]
    except KeyError:
        raise KeyError(f"slip rule {rule.name!r} is not enabled for {table!r}; call cells.slip_rule() first") from None


@dataclass(frozen=True)
class Neighbour:
    """A computed value a slip rule may name: another cell's value (``COPIED_CELL``), or this cell's formula with one
    input taken from another cell (``COPIED_INPUT``); ``label`` says which ("the computed C_d of row ..."),
    ``certain`` when its error cannot change how it prints."""

    label: str
    value: float
    certain: bool


def _certain_fail(outcome: Outcome) -> bool:
    return outcome.status.value == "FAIL" and outcome.certain is not None and bool(outcome.certain)  # numpy bools too


def _slip(rule: SlipRule, scope: SlipScope, outcome: Outcome, printed: str, corrected: str, because: str) -> Outcome:
    return Outcome.erratum_(
        f"{outcome.detail}; slip rule '{rule.name}': {because}", printed=printed, corrected=corrected,
        evidence=f"{because}; rule '{rule.name}': {rule.sentence} (neighbours: {scope.neighbours}; {scope.evidence})",
        computed=outcome.computed, error_bound=outcome.error_bound, certain=True)


def _named(rule: SlipRule, table: str, outcome: Outcome, printed: str, neighbours) -> Outcome:
    scope = _scope(table, rule)
    if not _certain_fail(outcome):
        return outcome
    printing = printing_of(table)
    hit = next((n for n in neighbours if n.certain and matches(printing, n.value, printed)), None)
    if hit is None:
        return outcome
    shown = f"{float(hit.value):.{decimals(printed) + 2}f}" + ("%" if printed.strip().endswith("%") else "")
    return _slip(rule, scope, outcome, printed, outcome.computed or "", f"the printed {printed} is {hit.label} ({shown})")


def copied_cell(table: str, outcome: Outcome, printed: str, neighbours: Iterable[Neighbour]) -> Outcome:
    """:data:`COPIED_CELL` applied to the judged ``outcome`` of a cell printed ``printed``: an ERRATUM naming the
    first certain neighbour whose value prints as ``printed``, else ``outcome`` unchanged.

    >>> convention("Slip Table", Printing.ROUND, "example")
    >>> slip_rule("Slip Table", COPIED_CELL, "the next row of the column", "example")
    >>> own = judge_cell("Slip Table", "0.120", 0.0816, error_bound=1e-9)
    >>> copied_cell("Slip Table", own, "0.120", [Neighbour("the computed value of row 2", 0.1202, True)]).status.value
    'ERRATUM'
    >>> copied_cell("Slip Table", own, "0.120", [Neighbour("the computed value of row 2", 0.1302, True)]).status.value
    'FAIL'
    """
    return _named(COPIED_CELL, table, outcome, printed, neighbours)


def copied_input(table: str, outcome: Outcome, printed: str, substituted: Iterable[Neighbour]) -> Outcome:
    """:data:`COPIED_INPUT` applied to a derived cell: ``substituted`` are the cell's formula evaluated with one input
    replaced by a neighbour's computed value (``label`` names it); an ERRATUM for the first certain one that prints as
    ``printed``, else ``outcome`` unchanged."""
    return _named(COPIED_INPUT, table, outcome, printed, substituted)


def row_arithmetic(table: str, outcome: Outcome, printed: str, from_printed_inputs: float, inputs: str) -> Outcome:
    """:data:`ROW_ARITHMETIC`: ``from_printed_inputs`` is the cell's formula on its own row's printed ``inputs``
    (text); an ERRATUM when it prints as the computed value (``outcome.computed``) and not as ``printed``.

    >>> convention("Slip Table", Printing.ROUND, "example")
    >>> slip_rule("Slip Table", ROW_ARITHMETIC, "the row's own printed inputs", "example")
    >>> own = judge_cell("Slip Table", "27%", 25.648, error_bound=1e-9)
    >>> row_arithmetic("Slip Table", own, "27%", 25.64, "C_s = 0.10207, C_d = 0.08124").status.value
    'ERRATUM'
    >>> row_arithmetic("Slip Table", own, "27%", 26.6, "C_s = 0.1021, C_d = 0.0806").status.value
    'FAIL'
    """
    scope = _scope(table, ROW_ARITHMETIC)
    printing = printing_of(table)
    if not _certain_fail(outcome) or outcome.computed is None:
        return outcome
    if not matches(printing, from_printed_inputs, outcome.computed) or matches(printing, from_printed_inputs, printed):
        return outcome
    shown = _like(printed)(from_printed_inputs)
    return _slip(ROW_ARITHMETIC, scope, outcome, printed, outcome.computed,
                 f"the row's printed {inputs} give {from_printed_inputs:.6g} -> {shown}, as computed, not {printed}")


# --- The last-digit rule (issue 32): a table printed by truncation after a small upward deviation -------------------
#
# Some tables print the truncation of a value that was nudged upward first: the printed digits are those of
# trunc(v (1 + e)) for a per-cell 0 <= e <= bound (relative).  Such a table prints some cells one unit above the
# truncation of the exact value, and only cells just below a truncation boundary, never one unit below.  The rule is
# recorded once per table with `last_digit_rule`, on evidence a claim recounts (both directions counted); it only
# widens a truncating table's interval downward, by at most ``bound`` relative, so a cell off by more still fails.

LAST_DIGIT_NAME = "last-digit rule"


@dataclass(frozen=True)
class LastDigitRule:
    """printed = trunc(v (1 + e)) for some 0 <= e <= ``bound`` (relative), and the claim that recounts its evidence."""
    bound: float
    evidence: str


LAST_DIGIT: dict[str, LastDigitRule] = {}


def last_digit_rule(table: str, bound: float, evidence: str) -> None:
    """Record the last-digit rule for ``table`` (which must print by truncation), with its relative ``bound``.

    >>> convention("Example costs", Printing.TRUNCATE, "all cells truncate")
    >>> last_digit_rule("Example costs", 5e-5, "claim example.last-digit recounts it")
    >>> o = judge_cell("Example costs", "74.47", 74.4677)   # needs e = 3.1e-5
    >>> o.status.value, "last-digit rule" in o.detail
    ('PASS', True)
    >>> judge_cell("Example costs", "230.45", 230.42598).status.value   # needs e = 1.0e-4: off by more
    'FAIL'
    >>> judge_cell("Example costs", "74.45", 74.4677).status.value   # one unit below: never absorbed
    'FAIL'
    """
    if printing_of(table) is not Printing.TRUNCATE:
        raise ValueError(f"{table}: the last-digit rule refines truncation; the table is recorded as {printing_of(table).value}")
    if not 0 < bound < 1e-3:
        raise ValueError(f"{table}: last-digit bound {bound!r} must be a small positive relative deviation (< 1e-3)")
    LAST_DIGIT[table] = LastDigitRule(bound, evidence)


def upward_deviation(value, printed: str) -> float | None:
    """The smallest relative e >= 0 with trunc(value (1 + e)) = printed: 0 when ``value`` truncates to ``printed``,
    (p - v)/v when ``value`` lies below the printed number p, None when it lies above p's truncation interval (no
    upward deviation lowers the digits) or is not a positive number.

    >>> upward_deviation(74.4677, "74.47") > 3e-5, upward_deviation(74.471, "74.47"), upward_deviation(74.49, "74.47")
    (True, 0.0, None)
    """
    if not isinstance(value, (int, float, Fraction)) or not math.isfinite(float(value)) or value <= 0:
        return None
    if matches(Printing.TRUNCATE, value, printed):
        return 0.0
    p = Fraction(printed.strip().rstrip("%"))
    v = Fraction(value)
    return float((p - v) / v) if v < p else None


def last_digit_match(table: str, value, printed: str) -> float | None:
    """The deviation e of `upward_deviation` when ``table`` has a last-digit rule and e is within its bound, else None."""
    rule = LAST_DIGIT.get(table)
    if rule is None:
        return None
    e = upward_deviation(value, printed)
    return e if e is not None and e <= rule.bound else None


def last_digit_margin(table: str, value, printed: str) -> float:
    """Distance from ``value`` to the lower end p / (1 + bound) of the interval the rule accepts (the only edge at which
    a cell passed by the rule would flip; its upper end, the printed p itself, only hands over to plain truncation)."""
    p = float(printed.strip().rstrip("%"))
    return float(value) - p / (1 + LAST_DIGIT[table].bound)


# --- Row readings (issue 32): a derived column computed from its row's printed cells -------------------------------
#
# The one documented exception to "no other printed cell decides a cell": a derived column (a relative profit
# R = 100 (1 - C*/min C_r)) that the authors evidently computed from the numbers *as printed* in its row.  Recorded once
# per table, like a printing convention, by a claim that counts the cells each reading reproduces (both counts shown).


@dataclass(frozen=True)
class RowReading:
    """How a derived column of a table is computed from its row's printed cells, and the evidence (counts) for it."""
    reading: str
    evidence: str


ROW_READINGS: dict[str, RowReading] = {}


def row_reading(table: str, reading: str, evidence: str) -> None:
    """Record that the cells of ``table`` (a derived column) are computed from their row's printed cells.

    >>> row_reading("Example R", "R from the row's printed costs", "recounted by claim example.R.convention")
    >>> row_reading_of("Example R").reading
    "R from the row's printed costs"
    """
    ROW_READINGS[table] = RowReading(reading, evidence)


def row_reading_of(table: str) -> RowReading | None:
    """The recorded row reading of ``table``, or None (its cells are then judged from computed values only)."""
    return ROW_READINGS.get(table)
