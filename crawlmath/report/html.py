"""Render a `ReportData` as one self-contained HTML page (inline CSS, no
scripts, no network; figures are PNG files next to it)."""
from __future__ import annotations

import math
from html import escape

from ..proofs.registry import PAPERS, Result, Status
from .build import ReportData, TableView, anchor, slug

CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1200px; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { border-bottom: 2px solid #ddd; margin-top: 2em; } h3 { margin-top: 1.5em; }
table { border-collapse: collapse; margin: .5em 0 1em; }
th, td { border: 1px solid #ccc; padding: 3px 6px; vertical-align: top; text-align: left; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.PASS { background: #e8f5e9; } .FAIL { background: #ffcdd2; } .ERRATUM { background: #fff3c4; }
.status { font-weight: bold; white-space: nowrap; }
.grid td { font-family: ui-monospace, monospace; font-size: 12px; white-space: nowrap; }
.grid td.FAIL, .grid td.ERRATUM { outline: 2px solid #c62828; }
.grid small { color: #555; }
.detail { font-size: 12px; max-width: 48em; word-break: break-word; }
.missing { color: #b71c1c; font-style: italic; }
figure { display: inline-block; margin: 1em; max-width: 720px; vertical-align: top; }
figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { font-size: 12px; }
code { font-size: 12px; }
nav a { margin-right: 1em; }
"""


def _status(s: Status | str) -> str:
    v = s.value if isinstance(s, Status) else s
    return f'<span class="status">{v}</span>'


def _digits(d: float | None) -> str:
    if d is None:
        return ""
    return "exact" if math.isinf(d) else f"{d:.1f}"


def _fmt_diff(d: float | None) -> str:
    return "" if d is None else f"{d:+.3g}"


def _summary(data: ReportData) -> list[str]:
    c = data.counts
    out = [
        "<h2 id='summary'>Summary</h2>",
        f"<p>{len(data.results)} claims checked ({escape(data.selection)}): "
        f"<b>{c['PASS']} PASS</b>, <b>{c['FAIL']} FAIL</b>, <b>{c['ERRATUM']} ERRATUM</b> "
        f"in {data.seconds:.1f} s of checks.</p>",
        "<table><tr><th>paper</th><th>seed file</th><th>claims</th><th>PASS</th><th>FAIL</th><th>ERRATUM</th><th>seconds</th></tr>",
    ]
    for s in data.summaries():
        out.append(
            f"<tr><td><a href='#paper-{s.paper}'>{escape(s.title)}</a></td><td><code>{escape(s.seed)}</code></td>"
            f"<td class='num'>{s.total}</td><td class='num'>{s.passed}</td>"
            f"<td class='num{' FAIL' if s.failed else ''}'>{s.failed}</td><td class='num{' ERRATUM' if s.errata else ''}'>{s.errata}</td>"
            f"<td class='num'>{s.seconds:.1f}</td></tr>"
        )
    out.append("</table>")
    if data.failures():
        out.append("<p>Failed claims: " + ", ".join(f"<a href='#{anchor(r.claim.id)}'>{escape(r.claim.id)}</a>" for r in data.failures()) + "</p>")
    return out


def _errata(data: ReportData) -> list[str]:
    out = ["<h2 id='errata'>Errata</h2>"]
    errata = data.errata()
    if not errata:
        return out + ["<p>No erratum among the checked claims.</p>"]
    out.append("<table><tr><th>claim</th><th>source</th><th>printed</th><th>corrected</th><th>evidence</th></tr>")
    for r in errata:
        e = r.outcome.erratum
        out.append(
            f"<tr class='ERRATUM'><td><a href='#{anchor(r.claim.id)}'>{escape(r.claim.id)}</a><br><small>{escape(r.claim.statement)}</small></td>"
            f"<td>{escape(str(r.claim.source))}</td><td>{escape(e.printed)}</td><td>{escape(e.corrected)}</td>"
            f"<td class='detail'>{escape(e.evidence)}</td></tr>"
        )
    out.append("</table>")
    return out


def _table_index(tables: list[TableView]) -> list[str]:
    if not tables:
        return ["<p>No table cell among the checked claims.</p>"]
    out = ["<table><tr><th>table</th><th>cells</th><th>match</th><th>FAIL</th><th>ERRATUM</th></tr>"]
    for t in tables:
        c = t.counts()
        out.append(
            f"<tr><td><a href='#table-{slug(t.name)}'>{escape(t.name)}</a></td><td class='num'>{len(t.cells)}</td>"
            f"<td class='num'>{c['PASS']}</td><td class='num{' FAIL' if c['FAIL'] else ''}'>{c['FAIL']}</td>"
            f"<td class='num{' ERRATUM' if c['ERRATUM'] else ''}'>{c['ERRATUM']}</td></tr>"
        )
    return out + ["</table>"]


def _table(t: TableView) -> list[str]:
    c = t.counts()
    out = [
        f"<h3 id='table-{slug(t.name)}'>{escape(t.name)}</h3>",
        f"<p>{len(t.cells)} cells: {c['PASS']} match, {c['FAIL']} FAIL, {c['ERRATUM']} ERRATUM. "
        "Each cell: printed / computed / difference (computed &minus; printed); mismatches are outlined and link to their row.</p>",
        "<table class='grid'><tr><th></th>" + "".join(f"<th>{escape(col)}</th>" for col in t.columns) + "</tr>",
    ]
    for row in t.rows:
        tds = []
        for col in t.columns:
            v = t.cells.get((row, col))
            if v is None:
                tds.append("<td></td>")
                continue
            body = (
                f"{escape(v.printed)}<br>{escape(v.computed or '—')}<br><small>{_fmt_diff(v.difference)}</small>"
                f"<br><a href='#{v.anchor}'>{v.status.value}</a>"
            )
            tds.append(f"<td class='{v.status.value}' title='{escape(v.claim_id)}'>{body}</td>")
        out.append(f"<tr><th>{escape(row)}</th>{''.join(tds)}</tr>")
    out.append("</table>")
    return out


def _figures(data: ReportData) -> list[str]:
    out = ["<h2 id='figures'>Figures</h2>"]
    if not data.figures_enabled:
        return out + ["<p class='missing'>not generated: figures were switched off (--no-figures).</p>"]
    if not data.figures:
        return out + ["<p class='missing'>not generated: no figure is defined for the selected papers.</p>"]
    for p in data.papers():
        fs = [f for f in data.figures if f.spec.paper == p]
        if not fs:
            continue
        out.append(f"<h3>{escape(PAPERS[p][1])}</h3>")
        for f in fs:
            head = f"<b>{escape(f.spec.title)}</b> (original: {escape(f.spec.source)})"
            if f.file:
                out.append(
                    f"<figure id='fig-{escape(f.spec.id)}'><img src='{escape(f.file)}' alt='{escape(f.spec.title)}'>"
                    f"<figcaption>{head}. {escape(f.caption)}</figcaption></figure>"
                )
            else:
                out.append(f"<p id='fig-{escape(f.spec.id)}'>{head}: <span class='missing'>not generated: {escape(f.reason or '')}</span></p>")
    return out


def _row(r: Result) -> str:
    c, o = r.claim, r.outcome
    detail = escape(o.detail)
    if c.cell:
        detail += f"<br><small>{escape(c.cell.table)} [{escape(c.cell.row)}, {escape(c.cell.column)}]: printed {escape(c.cell.printed)}, computed {escape(o.computed or '—')}</small>"
    if o.erratum:
        detail += f"<br><small>printed: {escape(o.erratum.printed)}<br>corrected: {escape(o.erratum.corrected)}</small>"
    slow = " (slow)" if c.slow else ""
    return (
        f"<tr id='{anchor(c.id)}' class='{o.status.value}'><td>{_status(o.status)}</td><td><code>{escape(c.id)}</code></td>"
        f"<td>{escape(c.source.ref)}</td><td>{escape(c.statement)}</td><td>{escape(c.method.value)}</td>"
        f"<td class='num'>{_digits(o.digits)}</td><td class='detail'>{detail}</td><td class='num'>{r.seconds:.2f}{slow}</td></tr>"
    )


def _claims(data: ReportData) -> list[str]:
    out = ["<h2 id='claims'>All claims</h2>"]
    paper = None
    for sec in data.sections():
        if sec.paper != paper:
            paper = sec.paper
            out.append(f"<h3 id='paper-{paper}'>{escape(PAPERS[paper][1])} <small><code>{escape(PAPERS[paper][0])}</code></small></h3>")
        out.append(f"<h4>{escape(sec.section)}</h4>")
        out.append("<table><tr><th>status</th><th>id</th><th>source</th><th>statement</th><th>method</th><th>digits</th><th>detail</th><th>s</th></tr>")
        out += [_row(r) for r in sec.results]
        out.append("</table>")
    return out


def render(data: ReportData) -> str:
    tables = data.tables()
    body = [
        "<!DOCTYPE html>",
        "<html lang='en'><head><meta charset='utf-8'><title>crawlmath verification report</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>crawlmath verification report</h1>",
        f"<p>Generated {escape(data.created)} by <code>crawlmath report</code>. Printed values are reference data compared "
        "against computed values; they never enter a computation.</p>",
        "<nav><a href='#summary'>Summary</a><a href='#errata'>Errata</a><a href='#tables'>Tables</a><a href='#figures'>Figures</a><a href='#claims'>All claims</a></nav>",
        *_summary(data),
        *_errata(data),
        "<h2 id='tables'>Reproduced tables</h2>",
        *_table_index(tables),
        *[line for t in tables for line in _table(t)],
        *_figures(data),
        *_claims(data),
        "</body></html>",
        "",
    ]
    return "\n".join(body)
