"""The slip rules of the cell engine (proofs/cells.py, issue 32 item 10): each turns only a certain FAIL into an
ERRATUM, only from a certain neighbour or the row's own printed inputs, only where enabled, and each can fail."""
import pytest

from crawlmath.proofs import cells
from crawlmath.proofs.cells import COPIED_CELL, COPIED_INPUT, ROW_ARITHMETIC, Neighbour, Printing

T = "test_cells_slips table"
cells.convention(T, Printing.ROUND, "test")
for _rule in (COPIED_CELL, COPIED_INPUT, ROW_ARITHMETIC):
    cells.slip_rule(T, _rule, "the rows above", "test")


def _own(printed, value, bound=1e-12):
    return cells.judge_cell(T, printed, value, error_bound=bound)


def test_copied_cell_names_the_neighbour_and_keeps_the_computed_value():
    out = cells.copied_cell(T, _own("0.12020", 0.0815620), "0.12020", [Neighbour("the computed C_d of row 2", 0.1201955, True)])
    assert out.status.value == "ERRATUM" and out.certain
    assert out.erratum.printed == "0.12020" and out.erratum.corrected == "0.08156"
    assert "row 2" in out.detail and COPIED_CELL.sentence in out.erratum.evidence


@pytest.mark.parametrize("own, neighbours", [
    (_own("0.12020", 0.0815620), [Neighbour("row 2", 0.1203, True)]),      # no neighbour prints as the cell
    (_own("0.12020", 0.0815620), [Neighbour("row 2", 0.1201955, False)]),  # the neighbour's print could flip
    (_own("0.12020", 0.0815620, bound=None), [Neighbour("row 2", 0.1201955, True)]),  # own FAIL not certain
    (_own("0.12020", 0.1202, ), [Neighbour("row 2", 0.1201955, True)]),    # a PASS stays a PASS
])
def test_copied_cell_can_fail(own, neighbours):
    assert cells.copied_cell(T, own, "0.12020", neighbours) is own


def test_copied_input():
    own = _own("66%", 145.21)
    hit = cells.copied_input(T, own, "66%", [Neighbour("with the C_d of row 3", 66.39, True)])
    assert hit.status.value == "ERRATUM" and COPIED_INPUT.name in hit.detail
    assert cells.copied_input(T, own, "66%", [Neighbour("with the C_d of row 3", 67.6, True)]) is own


def test_row_arithmetic():
    own = _own("27%", 25.648)
    assert cells.row_arithmetic(T, own, "27%", 25.64, "C_s, C_d").status.value == "ERRATUM"
    assert cells.row_arithmetic(T, own, "27%", 26.9, "C_s, C_d") is own   # the printed inputs give the print
    assert cells.row_arithmetic(T, own, "27%", 24.2, "C_s, C_d") is own   # ... or neither value


def test_rules_act_only_where_enabled():
    other = "test_cells_slips table without rules"
    cells.convention(other, Printing.ROUND, "test")
    own = cells.judge_cell(other, "0.12020", 0.0815620, error_bound=1e-12)
    with pytest.raises(KeyError, match="not enabled"):
        cells.copied_cell(other, own, "0.12020", [Neighbour("row 2", 0.1201955, True)])


def _row(lam, K, gamma):
    from crawlmath.proofs.tables.liu_nain_dynamic import TABLE_1_3, parse

    return next(r for r in parse(TABLE_1_3) if (r["lam"], r["K"], r["gamma"]) == (lam, K, gamma))


def test_liu_nain_table_1_3_slips_go_through_the_rules():
    """The two copied C_d of Table 1.3 (λ = 0.05, K = 10) and their percentages are ERRATA by the named rules, with
    the neighbour named; the row-arithmetic 27% too; a neighbouring row that matches stays a PASS."""
    from crawlmath.proofs.claims.liu_nain import _dynamic_cells as D

    g12, g24 = _row("0.05", "10", "1.2"), _row("0.05", "10", "2.4")
    cd12, cd24 = D.cd_cell("1.3", g12), D.cd_cell("1.3", g24)
    assert cd12.status.value == cd24.status.value == "ERRATUM"
    assert "copied cell" in cd12.detail and "Table 1.3 row lam=0.05 K=10 gamma=2.4" in cd12.erratum.evidence
    assert "Table 1.2 row lam=0.05 K=10 gamma=2.4" in cd24.erratum.evidence
    assert "copied input" in D.rel_impr_cell("1.3", g12).detail
    assert D.cd_cell("1.3", _row("0.05", "10", "0.4")).status.value == "PASS"


def test_gamma_reading_is_applied_by_row_key():
    """γ(15) = 17/15 for the rows the reading names, whatever their cells print; no other row is moved."""
    from crawlmath.proofs.claims.liu_nain import _dynamic as D

    assert D.dynamic_gamma({"K": "15", "gamma": "1.13", "C_d": "0.99999"}) == 17 / 15
    assert D.dynamic_gamma({"K": "10", "gamma": "1.13"}) == 1.13
    assert D.dynamic_gamma({"K": "15", "gamma": "1.133"}) == 1.133
