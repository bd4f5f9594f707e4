"""Collect registry results and figures, and write the report atomically.

`collect` runs the selected claims (and draws the figures) into a
`ReportData`; `write` renders it as ``index.html``, ``report.md``,
``results.json`` and ``figures/*.png`` in a temporary folder next to the
destination, then swaps it in with two renames, so a failed run leaves the
previous report intact.

Everything is generic over :mod:`crawlmath.proofs.registry`: summaries per
paper, rows grouped by paper and section, printed tables rebuilt from
``Claim.cell`` (rows x columns, printed vs computed vs difference vs
verdict), and the errata list from ``Outcome.erratum``.
"""
from __future__ import annotations

import collections
import dataclasses
import datetime
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..numeric.errors import InvalidInput
from ..proofs.registry import PAPERS, Claim, Result, Status, run as run_claims
from . import figures as figs

REPORT_FILES = ("index.html", "report.md", "results.json")
FIGURE_DIR = "figures"


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
    row: str
    column: str
    printed: str
    computed: str | None
    difference: float | None  # computed - printed, when both are numbers
    status: Status
    claim_id: str

    @property
    def anchor(self) -> str:
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
        return collections.Counter(c.status.value for c in self.cells.values())


@dataclass(frozen=True)
class Section:
    paper: str
    section: str
    results: list[Result]


@dataclass
class ReportData:
    results: list[Result]
    figures: list[figs.FigureResult] = field(default_factory=list)
    figures_enabled: bool = True
    selection: str = "all claims"
    created: str = field(default_factory=lambda: datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))

    @property
    def counts(self) -> collections.Counter:
        return collections.Counter(r.outcome.status.value for r in self.results)

    @property
    def seconds(self) -> float:
        return sum(r.seconds for r in self.results)

    def papers(self) -> list[str]:
        """Paper keys present, in the order of ``PAPERS``."""
        present = {r.claim.paper for r in self.results} | {f.spec.paper for f in self.figures}
        return [p for p in PAPERS if p in present]

    def summaries(self) -> list[PaperSummary]:
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
        return [r for r in self.results if r.outcome.erratum is not None]

    def failures(self) -> list[Result]:
        return [r for r in self.results if r.outcome.status is Status.FAIL]

    def as_json(self) -> dict:
        return {
            "created": self.created,
            "selection": self.selection,
            "counts": {s.value: self.counts[s.value] for s in Status},
            "papers": [dataclasses.asdict(s) for s in self.summaries()],
            "figures": [f.as_json() for f in self.figures],
            "figures_enabled": self.figures_enabled,
            "results": [r.as_json() for r in self.results],
        }


def collect(claims: list[Claim], *, figure_dir: Path | None = None, figure_specs: list[figs.FigureSpec] | None = None,
            selection: str = "all claims", progress=None, figure_progress=None) -> ReportData:
    """Run ``claims`` and, when ``figure_dir`` is given, draw into it the
    figures ``figure_specs`` (default: every figure of the papers concerned)."""
    results = run_claims(claims, progress)
    data = ReportData(results, selection=selection, figures_enabled=figure_dir is not None)
    if figure_dir is not None:
        specs = figs.all_figures({c.paper for c in claims}) if figure_specs is None else figure_specs
        data.figures = figs.render_all(specs, figure_dir, figure_progress)
    return data


def _check_destination(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise InvalidInput("--out", "must be a folder (it is an existing file)", value=str(out))
    if out.is_dir() and any(out.iterdir()) and not any((out / n).exists() for n in REPORT_FILES):
        raise InvalidInput("--out", "is a non-empty folder that holds no previous report; refusing to replace it", value=str(out))


def build(out: Path, claims: list[Claim], *, figures: bool = True, figure_specs: list[figs.FigureSpec] | None = None,
          selection: str = "all claims", progress=None, figure_progress=None) -> ReportData:
    """Run, render and atomically (re)place the report folder ``out``."""
    from . import html, markdown

    out = Path(out).resolve()
    _check_destination(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.tmp-"))
    try:
        data = collect(claims, figure_dir=tmp / FIGURE_DIR if figures else None, figure_specs=figure_specs,
                       selection=selection, progress=progress, figure_progress=figure_progress)
        (tmp / "index.html").write_text(html.render(data), encoding="utf-8")
        (tmp / "report.md").write_text(markdown.render(data), encoding="utf-8")
        (tmp / "results.json").write_text(json.dumps(data.as_json(), indent=1, default=str), encoding="utf-8")
        _swap(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return data


def _swap(tmp: Path, out: Path) -> None:
    """Replace ``out`` by ``tmp``: the old report stays in place until the new one is complete."""
    os.chmod(tmp, 0o755)
    if not out.exists():
        os.rename(tmp, out)
        return
    old = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.old-"))
    os.rmdir(old)
    os.rename(out, old)
    try:
        os.rename(tmp, out)
    except BaseException:
        os.rename(old, out)
        raise
    shutil.rmtree(old, ignore_errors=True)
