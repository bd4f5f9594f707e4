"""The cell engine's table-level rules of issue 32: the last-digit rule (printed = trunc(v (1 + e)), 0 <= e <= bound)
and row readings (a derived column computed from its row's printed cells)."""
from fractions import Fraction

import pytest

from crawlmath.proofs import cells
from crawlmath.proofs.cells import Printing


@pytest.fixture
def table():
    name = "test last-digit table"
    cells.convention(name, Printing.TRUNCATE, "test")
    cells.last_digit_rule(name, 5e-5, "test")
    yield name
    cells.LAST_DIGIT.pop(name, None)
    cells.CONVENTIONS.pop(name, None)


def test_upward_deviation_is_the_exact_relative_gap():
    # 74.47 / 74.4677 - 1, by hand: 0.0023 / 74.4677
    assert cells.upward_deviation(74.4677, "74.47") == pytest.approx(0.0023 / 74.4677, rel=1e-9)
    assert cells.upward_deviation(74.4712, "74.46") is None  # above the printed interval: no upward move lowers the digits
    assert cells.upward_deviation(74.4601, "74.46") == 0.0  # plain truncation
    assert cells.upward_deviation(Fraction(7447, 100), "74.47") == 0.0
    assert cells.upward_deviation(-1.0, "-1.0") is None


def test_rule_passes_a_cell_one_unit_high_within_its_bound(table):
    o = cells.judge_cell(table, "86.13", 86.12633)  # needs e = 4.26e-5
    assert o.status.value == "PASS" and "last-digit rule" in o.detail and "e = 4.3e-05" in o.detail


def test_rule_never_absorbs_a_cell_off_by_more_or_printed_low(table):
    assert cells.judge_cell(table, "230.45", 230.42598).status.value == "FAIL"  # needs e = 1.04e-4 > 5e-5
    assert cells.judge_cell(table, "86.11", 86.12633).status.value == "FAIL"  # one unit low
    assert cells.judge_cell(table, "138.5", 139.7132).status.value == "FAIL"


def test_rule_certainty_is_the_distance_to_the_rules_lower_end(table):
    v = 74.4677
    edge = 74.47 / (1 + 5e-5)
    assert cells.last_digit_margin(table, v, "74.47") == pytest.approx(v - edge)
    assert cells.judge_cell(table, "74.47", v, error_bound=1e-10).certain is True
    assert cells.judge_cell(table, "74.47", edge + 1e-12, error_bound=1e-9).certain is False


def test_rule_only_refines_a_truncating_table():
    cells.convention("test rounded table", Printing.ROUND, "test")
    try:
        with pytest.raises(ValueError, match="refines truncation"):
            cells.last_digit_rule("test rounded table", 5e-5, "test")
    finally:
        cells.CONVENTIONS.pop("test rounded table")


def test_a_table_without_the_rule_keeps_plain_truncation():
    cells.convention("test plain table", Printing.TRUNCATE, "test")
    try:
        assert cells.judge_cell("test plain table", "74.47", 74.4677).status.value == "FAIL"
    finally:
        cells.CONVENTIONS.pop("test plain table")


def test_row_reading_is_recorded_once_per_table():
    cells.row_reading("test R", "R from the row's printed costs", "counts")
    try:
        assert cells.row_reading_of("test R").reading == "R from the row's printed costs"
        assert cells.row_reading_of("no such table") is None
    finally:
        cells.ROW_READINGS.pop("test R")
