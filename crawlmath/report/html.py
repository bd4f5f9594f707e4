"""Render a `ReportData` as one self-contained HTML page (inline CSS, no
scripts, no network; figures are PNG files next to it)."""
from __future__ import annotations

from html import escape

import re

from ..proofs import findings as _findings
from ..proofs.certification import LEVELS, NOTES, summary as _certification
from ..proofs.registry import PAPERS, Claim, Result, Status
from .data import ReportData, TableView, anchor, format_difference, format_digits, slug

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
.cards { display: flex; flex-wrap: wrap; gap: 1em; }
.card { flex: 1 1 520px; border: 1px solid #ccc; border-radius: 6px; padding: .6em 1em; }
.card h3 { margin: .2em 0; font-size: 1.05em; } .card .authors { color: #555; font-size: 12px; }
.counts span { margin-right: 1em; font-weight: bold; }
.findings li { margin: .25em 0; } .findings .ev { font-size: 11px; color: #555; }
.erratum { border: 1px solid #e0c96b; background: #fffbea; border-radius: 6px; padding: .5em 1em; margin: .8em 0; }
.erratum .forms { display: grid; grid-template-columns: 7em 1fr; gap: .2em .8em; }
.erratum .evidence { font-size: 12px; margin-top: .4em; word-break: break-word; }
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


FAIL_KINDS = ("theorem, lemma or corollary", "equation or formula", "printed table cell", "iteration count or run detail",
              "statement in the text")


def fail_kind(claim: Claim) -> str:
    """What kind of printed result a claim checks, so that an unreproduced
    iteration count does not weigh like a false theorem.

    >>> from crawlmath.proofs.registry import Claim, Method, Source
    >>> fail_kind(Claim("coffman.x", Source("coffman", "§5", "Theorem 5.1, (18)"), "s", Method.FLOAT, lambda: None))
    'theorem, lemma or corollary'
    """
    ref = f"{claim.source.ref} {claim.cell.column if claim.cell else ''} {claim.id.rsplit('.', 1)[-1]}"
    if re.search(r"iter", ref, re.I):
        return FAIL_KINDS[3]
    if claim.cell is not None:
        return FAIL_KINDS[2]
    if re.search(r"Theorem|Lemma|Corollary|Proposition|Prop\.|Thm", claim.source.ref):
        return FAIL_KINDS[0]
    if re.search(r"\(\d+(\.\d+)*\)|eq\.|formula", claim.source.ref):
        return FAIL_KINDS[1]
    return FAIL_KINDS[4]


def _paper_card(data: ReportData, s) -> list[str]:
    paper = PAPERS[s.paper]
    status = {r.claim.id: r.outcome.status for r in data.results}
    out = [f"<div class='card' id='card-{s.paper}'><h3><a href='#paper-{s.paper}'>{escape(paper.title)}</a></h3>",
           f"<div class='authors'>{escape(paper.authors)} &middot; {escape(paper.reference.rsplit('(', 1)[-1].rstrip(')'))}"
           f" &middot; <a class='docs' href='{escape(data.docs_page(s.paper))}'>docs page</a></div>",
           f"<p class='counts'><span class='PASS'>{s.passed} PASS</span><span class='ERRATUM'>{s.errata} ERRATUM</span>"
           f"<span class='FAIL'>{s.failed} FAIL</span> of {s.total} claims</p>"]
    items = []
    for f in _findings.of(s.paper):
        ev = [c for c in f.claims if c in status]
        if not ev:
            continue
        links = ", ".join(f"<a href='#{anchor(c)}'>{escape(status[c].value)}</a>" for c in ev)
        items.append(f"<li>{escape(f.sentence)} <span class='ev'>(evidence: {links})</span></li>")
    if items:
        out.append("<ul class='findings'>" + "".join(items) + "</ul>")
    fails = [r for r in data.failures() if r.claim.paper == s.paper]
    if fails:
        by_kind: dict[str, list[Result]] = {}
        for r in fails:
            by_kind.setdefault(fail_kind(r.claim), []).append(r)
        parts = []
        for kind in FAIL_KINDS:
            rs = by_kind.get(kind, [])
            if rs:
                links = ", ".join(f"<a href='#{anchor(r.claim.id)}'>{escape(r.claim.id.split('.', 1)[1])}</a>" for r in rs[:12])
                more = f" and {len(rs) - 12} more" if len(rs) > 12 else ""
                parts.append(f"<li><b>{len(rs)} {escape(kind)}</b>: {links}{more}</li>")
        out.append("<p>Not reproduced (FAIL), by kind:</p><ul>" + "".join(parts) + "</ul>")
    out.append("</div>")
    return out


def _glance(data: ReportData) -> list[str]:
    """One line per paper with its counts, so the first screen shows what holds for every paper
    however long the cards below grow; each links to its card, its claims and its docs page."""
    out = ["<table class='glance'><tr><th>paper</th><th>claims</th><th>PASS</th><th>ERRATUM</th><th>FAIL</th><th></th></tr>"]
    for s in data.summaries():
        if not s.total:
            continue
        out.append(f"<tr id='glance-{s.paper}'><td><a href='#card-{s.paper}'>{escape(PAPERS[s.paper].citation)}</a></td>"
                   f"<td class='num'>{s.total}</td><td class='num PASS'>{s.passed}</td>"
                   f"<td class='num{' ERRATUM' if s.errata else ''}'>{s.errata}</td><td class='num{' FAIL' if s.failed else ''}'>{s.failed}</td>"
                   f"<td><a href='#paper-{s.paper}'>every claim</a> &middot; "
                   f"<a class='docs' href='{escape(data.docs_page(s.paper))}'>docs page</a></td></tr>")
    return out + ["</table>"]


def _summary(data: ReportData) -> list[str]:
    c = data.counts
    out = [
        "<h2 id='summary'>What holds, paper by paper</h2>",
        f"<p>{len(data.results)} claims checked ({escape(data.selection)}): "
        f"<b>{c['PASS']} PASS</b>, <b>{c['ERRATUM']} ERRATUM</b> (printed form wrong, corrected form shown to hold), "
        f"<b>{c['FAIL']} FAIL</b> (printed value not reproduced after the readings listed in its detail), "
        f"in {data.seconds:.1f} s of checks.</p>",
        *_glance(data),
        "<div class='cards'>",
    ]
    for s in data.summaries():
        if s.total:
            out += _paper_card(data, s)
    out.append("</div>")
    return out


def _certification_table(data: ReportData) -> list[str]:
    table = _certification(data.results)
    out = ["<h3 id='certification'>How each verdict is established</h3>",
           "<p>Claims by the strongest route their check used; a table cell is <i>certain</i> when its computed "
           "value's error bound is smaller than its distance to the nearest boundary at which the printed digits "
           "would change. A simulation cell (single-run tables) is certain in a statistical sense: the probability "
           "that its verdict is wrong is below 10<sup>-4</sup> (order statistics or a normal model); those are counted "
           "separately.</p><table><tr><th>paper</th>" + "".join(f"<th>{escape(label)}</th>" for _, label in LEVELS)
           + "<th>table cells certain</th></tr>"]
    for paper in data.papers():
        c = table.get(paper)
        if not c:
            continue
        cells = c.get("cells", 0)
        share = f" ({100 * c.get('cells certain', 0) / cells:.0f}%)" if cells else ""
        stat = c.get("cells certain (statistical)", 0)
        share += f", {stat} statistically" if stat else ""
        out.append(f"<tr><td>{escape(PAPERS[paper].citation)}</td>"
                   + "".join(f"<td class='num'>{c.get(key, 0)}</td>" for key, _ in LEVELS)
                   + f"<td class='num'>{c.get('cells certain', 0)} / {cells}{share}</td></tr>")
    notes = [f"<li>{escape(PAPERS[p].citation)}: {escape(t)}</li>" for p in data.papers() if p in table
             for t in NOTES.get(p, ())]
    return out + ["</table>"] + (["<ul class='notes'>"] + notes + ["</ul>"] if notes else [])


def _errata(data: ReportData) -> list[str]:
    out = ["<h2 id='errata'>Errata</h2>"]
    errata = data.errata()
    if not errata:
        return out + ["<p>No erratum among the checked claims.</p>"]
    out.append(f"<p>{len(errata)} printed results shown wrong, each with the corrected form that holds and the evidence.</p>")
    for r in errata:
        e = r.outcome.erratum
        out.append(
            f"<div class='erratum'><b><a href='#{anchor(r.claim.id)}'>{escape(str(r.claim.source))}</a></b> &mdash; "
            f"{escape(r.claim.statement)}<div class='forms'><span>printed</span><span>{escape(e.printed)}</span>"
            f"<span>corrected</span><span>{escape(e.corrected)}</span></div>"
            f"<div class='evidence'>{escape(e.evidence)}</div></div>"
        )
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
                f"{escape(v.printed)}<br>{escape(v.computed or '—')}<br><small>{format_difference(v.difference)}</small>"
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
                out.append(f"<p id='fig-{escape(f.spec.id)}'>{head}: <span class='missing'>{f.status}: {escape(f.reason or '')}</span></p>")
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
        f"<td class='num'>{format_digits(o.digits)}</td><td class='detail'>{detail}</td><td class='num'>{r.seconds:.2f}{slow}</td></tr>"
    )


def _claims(data: ReportData) -> list[str]:
    out = ["<h2 id='claims'>All claims</h2>"]
    paper = None
    for sec in data.sections():
        if sec.paper != paper:
            paper = sec.paper
            out.append(f"<h3 id='paper-{paper}'>{escape(PAPERS[paper][1])} <small>(checked against the text "
                       f"<code>{escape(PAPERS[paper][0])}</code>; what is checked and why: "
                       f"<a class='docs' href='{escape(data.docs_page(paper))}'>docs page</a>)</small></h3>")
        out.append(f"<h4>{escape(sec.section)}</h4>")
        out.append("<table><tr><th>status</th><th>id</th><th>source</th><th>statement</th><th>method</th><th>digits</th><th>detail</th><th>s</th></tr>")
        out += [_row(r) for r in sec.results]
        out.append("</table>")
    return out


def render(data: ReportData) -> str:
    """The whole report as one self-contained HTML page (summary, certification, errata, tables, figures, all claims)."""
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
        *_certification_table(data),
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
