"""What a report shows, independent of how it is written: claim results grouped
by paper and section, printed tables rebuilt from ``Claim.cell``, errata,
failures, figure results, and the number formats the HTML and Markdown pages
share.  `crawlmath.report.build` fills a `ReportData`; `crawlmath.report.html`
and `crawlmath.report.markdown` render it (neither imports the builder, so the
three form no import cycle).
"""
from __future__ import annotations

import collections
import dataclasses
import datetime
import math
import re
from dataclasses import dataclass, field

from ..proofs.certification import summary as certification_summary
from ..proofs.registry import PAPERS, Result, Status
from . import figures as figs

# Each paper's page in the built docs site (Sphinx renders docs/papers/NAME.md there); the report links to it
# relative to its own folder, and by default sits in the site as <site>/report/ (the docs link back to it).
DOCS_PAGE = "papers/{paper}.html"


def slug(text: str) -> str:
    """``text`` reduced to an HTML id / Markdown anchor (ASCII letters, digits, ``_`` and ``-``)."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text)


def anchor(claim_id: str) -> str:
    """The HTML/Markdown anchor of a claim's row.

    >>> anchor("liu-nain.static.table-1.1.g0.5.K10")
    'claim-liu-nain-static-table-1-1-g0-5-K10'
    """
    return "claim-" + slug(claim_id)


def parse_number(text: str | None) -> float | None:
    """A float from a printed or computed cell text, or None when it is not a number.

    >>> parse_number(" 0.175 "), parse_number("12%"), parse_number("n/a")
    (0.175, 12.0, None)
    """
    if text is None:
        return None
    t = text.strip().rstrip("%").replace("\u2212", "-").replace(" ", "")
    try:
        return float(t)
    except ValueError:
        return None


def _natural(text: str) -> list:
    """Sort key putting "Table 1.2" before "Table 1.10"."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text)]


@dataclass(frozen=True)
class PaperSummary:
    """Per-paper totals of the report's first screen: paper key, title, seed file, claim counts (total, PASS, FAIL, ERRATUM) and run time in s."""
    paper: str
    title: str
    seed: str
    total: int
    passed: int
    failed: int
    errata: int
    seconds: float


@dataclass(frozen=True)
class CellView:
    """One printed table cell as shown in the report: printed and computed text, computed − printed when both are numbers, verdict and claim id."""
    row: str
    column: str
    printed: str
    computed: str | None
    difference: float | None  # computed - printed, when both are numbers
    status: Status
    claim_id: str

    @property
    def anchor(self) -> str:
        """The HTML/Markdown anchor of this cell's claim row (see :func:`anchor`)."""
        return anchor(self.claim_id)


@dataclass(frozen=True)
class TableView:
    """One printed table rebuilt from its cells, in order of first appearance."""

    name: str
    paper: str
    rows: list[str]
    columns: list[str]
    cells: dict[tuple[str, str], CellView]

    def counts(self) -> collections.Counter:
        """How many of the table's cells have each status (keys ``Status.value``)."""
        return collections.Counter(c.status.value for c in self.cells.values())


@dataclass(frozen=True)
class Section:
    """The results of one section of one paper, in run order."""
    paper: str
    section: str
    results: list[Result]


@dataclass
class ReportData:
    """Everything a report renders: claim results, figure results, whether figures were drawn, the selection text and creation time."""
    results: list[Result]
    figures: list[figs.FigureResult] = field(default_factory=list)
    figures_enabled: bool = True
    selection: str = "all claims"
    docs: str = ".."  # the docs site as a relative URL from the report's folder (never fetched: links only)
    created: str = field(default_factory=lambda: datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))

    @property
    def counts(self) -> collections.Counter:
        """How many results have each status (keys ``Status.value``)."""
        return collections.Counter(r.outcome.status.value for r in self.results)

    @property
    def seconds(self) -> float:
        """Total run time of the claims, in s."""
        return sum(r.seconds for r in self.results)

    def papers(self) -> list[str]:
        """Paper keys present, in the order of ``PAPERS``."""
        present = {r.claim.paper for r in self.results} | {f.spec.paper for f in self.figures}
        return [p for p in PAPERS if p in present]

    def summaries(self) -> list[PaperSummary]:
        """One :class:`PaperSummary` per paper present, in ``PAPERS`` order."""
        out = []
        for p in self.papers():
            rs = [r for r in self.results if r.claim.paper == p]
            c = collections.Counter(r.outcome.status for r in rs)
            out.append(PaperSummary(p, PAPERS[p][1], PAPERS[p][0], len(rs), c[Status.PASS], c[Status.FAIL], c[Status.ERRATUM], sum(r.seconds for r in rs)))
        return out

    def sections(self) -> list[Section]:
        """Rows grouped by paper (``PAPERS`` order) then section (first appearance)."""
        groups: dict[tuple[str, str], list[Result]] = {}
        for r in self.results:
            groups.setdefault((r.claim.paper, r.claim.source.section), []).append(r)
        order = {p: i for i, p in enumerate(PAPERS)}
        keys = sorted(groups, key=lambda k: order.get(k[0], len(order)))  # stable: sections keep first appearance
        return [Section(p, s, groups[(p, s)]) for p, s in keys]

    def tables(self) -> list[TableView]:
        """The printed tables rebuilt from the cell claims, ordered by paper then natural table name."""
        views: dict[str, TableView] = {}
        for r in self.results:
            cell = r.claim.cell
            if cell is None:
                continue
            v = views.setdefault(cell.table, TableView(cell.table, r.claim.paper, [], [], {}))
            if cell.row not in v.rows:
                v.rows.append(cell.row)
            if cell.column not in v.columns:
                v.columns.append(cell.column)
            printed, computed = parse_number(cell.printed), parse_number(r.outcome.computed)
            diff = computed - printed if printed is not None and computed is not None else None
            v.cells[(cell.row, cell.column)] = CellView(cell.row, cell.column, cell.printed, r.outcome.computed, diff, r.outcome.status, r.claim.id)
        order = {p: i for i, p in enumerate(PAPERS)}
        return sorted(views.values(), key=lambda v: (order.get(v.paper, len(order)), _natural(v.name)))

    def errata(self) -> list[Result]:
        """The results that carry an erratum."""
        return [r for r in self.results if r.outcome.erratum is not None]

    def failures(self) -> list[Result]:
        """The results whose verdict is FAIL."""
        return [r for r in self.results if r.outcome.status is Status.FAIL]

    def docs_page(self, paper: str) -> str:
        """The relative link from the report to ``paper``'s page of the docs site.

        >>> ReportData([], docs="../docs/_build/html").docs_page("liu-nain")
        '../docs/_build/html/papers/liu-nain.html'
        """
        return f"{self.docs}/{DOCS_PAGE.format(paper=paper)}"

    def as_json(self) -> dict:
        """The report as a JSON-ready dict: counts, paper summaries, figures, certification summary and every result."""
        return {
            "created": self.created,
            "selection": self.selection,
            "counts": {s.value: self.counts[s.value] for s in Status},
            "papers": [dataclasses.asdict(s) for s in self.summaries()],
            "figures": [f.as_json() for f in self.figures],
            "figures_enabled": self.figures_enabled,
            "certification": certification_summary(self.results),
            "results": [r.as_json() for r in self.results],
        }


def format_digits(d: float | None) -> str:
    """A result's correct digits as shown in a report row: "exact" for an exact route, one decimal otherwise.

    >>> format_digits(float("inf")), format_digits(31.04), format_digits(None)
    ('exact', '31.0', '')
    """
    if d is None:
        return ""
    return "exact" if math.isinf(d) else f"{d:.1f}"


def format_difference(d: float | None) -> str:
    """computed − printed of a table cell, signed, three significant digits ("" when either is not a number).

    >>> format_difference(-0.000123456), format_difference(None)
    ('-0.000123', '')
    """
    return "" if d is None else f"{d:+.3g}"
