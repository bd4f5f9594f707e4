"""How strongly each verdict is established, summarised per paper.

Every claim names the strongest route its check used (`Method`): a symbolic
proof, interval (ball) arithmetic, two agreeing high-precision routes, float64,
or simulation.  A table cell is *certain* when its computed value carries an
error bound smaller than its distance to the nearest boundary at which the
printed digits would change (`Outcome.certain`, set by the cell engine).

A cell decided by simulation (`Method.SIMULATION`, e.g. Buijsrogge's
single-run tables) is certain in a *statistical* sense only: the probability
that its verdict is wrong is below ``SINGLE_RUN_FLIP`` (bounded with order
statistics or under a normal model), never zero.  Such cells are counted in
``cells certain`` and, separately, in ``cells certain (statistical)``, so a
statistical confidence is never silently mixed with a numerical proof.

>>> from crawlmath.proofs.registry import Claim, Method, Outcome, Result, Source
>>> c = Claim("coffman.x", Source("coffman", "§3", "Lemma 3.1"), "s", Method.SYMBOLIC, lambda: None)
>>> summary([Result(c, Outcome.passed("ok"), 0.0)])["coffman"]["symbolic"]
1
>>> from crawlmath.proofs.registry import TableCell
>>> sim = Claim("coffman.y", c.source, "s", Method.SIMULATION, lambda: None, TableCell("T", "r", "c", "1"))
>>> row = summary([Result(sim, Outcome.passed("ok", certain=True), 0.0)])["coffman"]
>>> row["cells certain"], row["cells certain (statistical)"]
(1, 1)
"""
from __future__ import annotations

import collections

LEVELS = (("symbolic", "proof (symbolic)"), ("interval", "interval-certified"),
          ("numeric-hp", "high precision, two routes"), ("float", "float only"), ("simulation", "simulation"))


NOTES: dict[str, list[str]] = {}


def note(paper: str, text: str) -> None:
    """Attach to ``paper``'s certification summary a caveat on how its counts read (e.g. how many independent
    runs its single-run cells rest on); shown by ``crawlmath verify`` and the report under the paper's counts.

    >>> note("example-paper", "12 cells read from 3 runs")
    >>> NOTES["example-paper"]
    ['12 cells read from 3 runs']
    """
    if text not in NOTES.setdefault(paper, []):
        NOTES[paper].append(text)


def summary(results) -> dict[str, dict[str, int]]:
    """Per paper: how many verdicts rest on each kind of check (keys of
    `LEVELS`), and ``cells`` / ``cells certain`` for table cells, with
    ``cells certain (statistical)`` the part of ``cells certain`` whose
    certainty is statistical (simulation claims)."""
    out: dict[str, collections.Counter] = {}
    for r in results:
        row = out.setdefault(r.claim.paper, collections.Counter())
        row[r.claim.method.value] += 1
        if r.claim.cell is not None:
            row["cells"] += 1
            row["cells certain"] += bool(r.outcome.certain)
            row["cells certain (statistical)"] += bool(r.outcome.certain) and r.claim.method.value == "simulation"
    return {p: dict(c) for p, c in out.items()}
