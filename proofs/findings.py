"""The headline findings of each paper, each tied to the claims that are its evidence.

A finding is one sentence a reader should take away ("the golden-ratio bound
2φ²/5 is false"), with the ids of the claims that establish it.  The report
shows every finding on its first screen next to the *current* verdicts of its
claims, so a finding whose evidence stops holding is visibly unsupported
(and a test fails when a finding names a claim that does not exist).

>>> f = Finding("coffman", "example", ("coffman.sched.lemma-3.1",))
>>> f.paper, f.claims
('coffman', ('coffman.sched.lemma-3.1',))
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    paper: str
    sentence: str
    claims: tuple[str, ...]  # evidence: the finding holds while these keep their recorded verdicts


FINDINGS: list[Finding] = []


def finding(paper: str, sentence: str, *claims: str) -> Finding:
    f = Finding(paper, sentence, tuple(claims))
    FINDINGS.append(f)
    return f


def of(paper: str) -> list[Finding]:
    return [f for f in FINDINGS if f.paper == paper]
