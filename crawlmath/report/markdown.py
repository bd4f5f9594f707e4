"""Render a `ReportData` as Markdown (GitHub flavour: pipe tables, explicit
``<a id>`` anchors so mismatching cells link to their rows)."""
from __future__ import annotations

from ..proofs.registry import PAPERS, Result
from .data import ReportData, TableView, anchor, format_difference, format_digits


def _cell(text: str) -> str:
    """Text safe inside a pipe-table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ").strip()


def _summary(data: ReportData) -> list[str]:
    c = data.counts
    out = [
        "## Summary",
        "",
        f"{len(data.results)} claims checked ({data.selection}): **{c['PASS']} PASS**, **{c['FAIL']} FAIL**, "
        f"**{c['ERRATUM']} ERRATUM** in {data.seconds:.1f} s of checks.",
        "",
        "| paper | seed file | claims | PASS | FAIL | ERRATUM | seconds |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for s in data.summaries():
        out.append(f"| {_cell(s.title)} | `{s.seed}` | {s.total} | {s.passed} | {s.failed} | {s.errata} | {s.seconds:.1f} |")
    if data.failures():
        out += ["", "Failed claims: " + ", ".join(f"[{r.claim.id}](#{anchor(r.claim.id)})" for r in data.failures())]
    return out + [""]


def _errata(data: ReportData) -> list[str]:
    out = ["## Errata", ""]
    if not data.errata():
        return out + ["No erratum among the checked claims.", ""]
    for r in data.errata():
        e = r.outcome.erratum
        out += [
            f"- **[{r.claim.id}](#{anchor(r.claim.id)})** ({r.claim.source}): {r.claim.statement}",
            f"  - printed: {e.printed}",
            f"  - corrected: {e.corrected}",
            f"  - evidence: {e.evidence}",
        ]
    return out + [""]


def _table(t: TableView) -> list[str]:
    c = t.counts()
    out = [
        f"### {t.name}",
        "",
        f"{len(t.cells)} cells: {c['PASS']} match, {c['FAIL']} FAIL, {c['ERRATUM']} ERRATUM. "
        "Each cell: printed / computed / difference (computed − printed); a mismatch links to its row.",
        "",
        "| | " + " | ".join(_cell(col) for col in t.columns) + " |",
        "| --- |" + " ---: |" * len(t.columns),
    ]
    for row in t.rows:
        cells = []
        for col in t.columns:
            v = t.cells.get((row, col))
            if v is None:
                cells.append("")
                continue
            text = f"{_cell(v.printed)} / {_cell(v.computed or '—')} / {format_difference(v.difference) or '—'}"
            cells.append(text if v.status.value == "PASS" else f"**{text} [{v.status.value}](#{v.anchor})**")
        out.append(f"| **{_cell(row)}** | " + " | ".join(cells) + " |")
    return out + [""]


def _figures(data: ReportData) -> list[str]:
    out = ["## Figures", ""]
    if not data.figures_enabled:
        return out + ["*not generated: figures were switched off (--no-figures).*", ""]
    if not data.figures:
        return out + ["*not generated: no figure is defined for the selected papers.*", ""]
    for p in data.papers():
        fs = [f for f in data.figures if f.spec.paper == p]
        if fs:
            out += [f"### {PAPERS[p][1]}", ""]
        for f in fs:
            head = f"**{f.spec.title}** (original: {f.spec.source})"
            if f.file:
                out += [f"![{f.spec.title}]({f.file})", "", f"{head}. {f.caption}", ""]
            else:
                out += [f"{head}: *{f.status}: {f.reason}*", ""]
    return out


def _row(r: Result) -> str:
    c, o = r.claim, r.outcome
    detail = _cell(o.detail)
    if c.cell:
        detail += f" ({_cell(c.cell.table)} [{_cell(c.cell.row)}, {_cell(c.cell.column)}]: printed {_cell(c.cell.printed)}, computed {_cell(o.computed or '—')})"
    if o.erratum:
        detail += f"; printed: {_cell(o.erratum.printed)}; corrected: {_cell(o.erratum.corrected)}"
    status = o.status.value if o.status.value == "PASS" else f"**{o.status.value}**"
    return f"| <a id=\"{anchor(c.id)}\"></a>{status} | `{c.id}` | {_cell(c.source.ref)} | {_cell(c.statement)} | {c.method.value} | {format_digits(o.digits)} | {detail} |"


def _claims(data: ReportData) -> list[str]:
    out = ["## All claims", ""]
    paper = None
    for sec in data.sections():
        if sec.paper != paper:
            paper = sec.paper
            out += [f"### {PAPERS[paper][1]} (`{PAPERS[paper][0]}`)", "",
                    f"What is checked and why: [docs page]({data.docs_page(paper)}).", ""]
        out += [f"#### {sec.section}", "", "| status | id | source | statement | method | digits | detail |", "| --- | --- | --- | --- | --- | ---: | --- |"]
        out += [_row(r) for r in sec.results] + [""]
    return out


def render(data: ReportData) -> str:
    """The whole report as one Markdown document: summary, errata, reproduced tables, figures, all claims."""
    tables = data.tables()
    lines = [
        "# crawlmath verification report",
        "",
        f"Generated {data.created} by `crawlmath report`. Printed values are reference data compared against "
        "computed values; they never enter a computation.",
        "",
        *_summary(data),
        *_errata(data),
        "## Reproduced tables",
        "",
        *([line for t in tables for line in _table(t)] or ["No table cell among the checked claims.", ""]),
        *_figures(data),
        *_claims(data),
    ]
    return "\n".join(lines)
