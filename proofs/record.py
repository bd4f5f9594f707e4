"""The verdict record: the committed status of every claim.

A verdict is a claim about someone's published work, so it must not change by
accident.  ``proofs/verdicts.json`` records the status (PASS / FAIL / ERRATUM)
of every registered claim; ``crawlmath verify`` compares each verdict it
computes against it and lists every difference, and CI fails on a difference.
Changing a verdict is a deliberate act: ``crawlmath verify --update-record
--reason "..."`` rewrites the record and appends the reason and the changes to
its history, and the commit that carries the new record says why.

>>> r = Record(claims={"a.b.c": "PASS", "a.b.d": "FAIL"}, history=[])
>>> [str(c) for c in r.diff({"a.b.c": "FAIL", "a.b.e": "PASS"}, complete=True)]
['a.b.c: PASS -> FAIL', 'a.b.d: FAIL -> (no such claim)', 'a.b.e: (not recorded) -> PASS']
>>> [str(c) for c in r.diff({"a.b.c": "PASS"}, complete=False)]
[]
"""
from __future__ import annotations

import datetime
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

PATH = Path(__file__).with_name("verdicts.json")
MISSING = "(not recorded)"
GONE = "(no such claim)"


@dataclass(frozen=True)
class Change:
    """One verdict that differs from the record: the id, the recorded status and the status now."""
    id: str
    recorded: str
    now: str

    def __str__(self) -> str:
        return f"{self.id}: {self.recorded} -> {self.now}"


@dataclass
class Record:
    """The recorded status of every claim, and the history of deliberate changes (date, reason, changes)."""
    claims: dict[str, str]
    history: list[dict] = field(default_factory=list)

    def diff(self, statuses: dict[str, str], complete: bool) -> list[Change]:
        """Differences between ``statuses`` (id -> status of the claims run)
        and the record.  ``complete``: the run covered every registered claim,
        so recorded ids that were not run no longer exist."""
        out = [Change(i, self.claims.get(i, MISSING), s) for i, s in statuses.items() if self.claims.get(i) != s]
        if complete:
            out += [Change(i, s, GONE) for i, s in self.claims.items() if i not in statuses]
        return sorted(out, key=lambda c: c.id)

    def updated(self, statuses: dict[str, str], complete: bool, reason: str, registered: set[str]) -> "Record":
        """A new record with ``statuses`` applied and the change logged.
        Ids no longer registered are dropped (always: they cannot be run)."""
        changes = self.diff(statuses, complete)
        claims = {i: s for i, s in self.claims.items() if i in registered}
        claims.update(statuses)
        entry = {
            "date": datetime.date.today().isoformat(),
            "reason": reason,
            "changes": [str(c) for c in changes],
        }
        return Record(dict(sorted(claims.items())), self.history + [entry] if changes else list(self.history))

    def as_json(self) -> dict:
        """The file format of proofs/verdicts.json."""
        return {
            "about": "Committed verdict of every claim; see crawlmath/proofs/record.py. "
                     "Update only with `crawlmath verify --update-record --reason TEXT`.",
            "claims": self.claims,
            "history": self.history,
        }


def load(path: Path | None = None) -> Record:
    """The committed record (an empty one when the file does not exist)."""
    path = PATH if path is None else path
    if not path.exists():
        return Record({}, [])
    data = json.loads(path.read_text(encoding="utf-8"))
    return Record(dict(data["claims"]), list(data.get("history", [])))


def save(record: Record, path: Path | None = None) -> None:
    """Write atomically (a temporary file in the same folder, fsync, rename)."""
    path = PATH if path is None else path
    text = json.dumps(record.as_json(), indent=1, ensure_ascii=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=".verdicts-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
