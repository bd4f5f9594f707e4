"""The ``recorded-verdicts`` directive: a paper's verdict counts and its non-PASS claim ids, read
from the committed record ``proofs/verdicts.json`` at build time, so the docs never carry typed
counts that drift from ``crawlmath verify``.

```{recorded-verdicts} liu-nain
```
(no argument: every paper).
"""
from __future__ import annotations

from collections import Counter

from docutils import nodes
from docutils.parsers.rst import Directive

STATUSES = ("PASS", "ERRATUM", "FAIL")


def _claims(paper: str | None) -> dict[str, str]:
    from crawlmath.proofs import record

    claims = record.load().claims
    return {cid: status for cid, status in claims.items() if paper is None or cid.split(".", 1)[0] == paper}


class RecordedVerdicts(Directive):
    optional_arguments = 1

    def run(self):
        paper = self.arguments[0] if self.arguments else None
        claims = _claims(paper)
        if not claims:
            raise self.error(f"no recorded claim for paper {paper!r}")
        counts = Counter(claims.values())
        summary = ", ".join(f"{counts[s]} {s}" for s in STATUSES)
        text = f"Recorded verdicts (proofs/verdicts.json): {len(claims)} claims, {summary}."
        out = [nodes.paragraph(text=text)]
        if paper is not None:
            for status in STATUSES[1:]:  # the claims not PASS, one compact paragraph per status
                ids = sorted(c for c, s in claims.items() if s == status)
                if not ids:
                    continue
                para = nodes.paragraph()
                para += nodes.strong(text=f"{status} ({len(ids)}): ")
                for k, cid in enumerate(ids):
                    para += nodes.literal(text=cid)
                    para += nodes.Text(", " if k < len(ids) - 1 else ".")
                out.append(para)
            hint = nodes.paragraph()
            hint += nodes.Text("Evidence of any of them: ")
            hint += nodes.literal(text="crawlmath verify --only ID --failures")
            hint += nodes.Text(".")
            out.append(hint)
        return out


def setup(app):
    app.add_directive("recorded-verdicts", RecordedVerdicts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
