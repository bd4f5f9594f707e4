"""The verdict record is complete and `verify` compares against it."""
from __future__ import annotations

from crawlmath.cli import main
from crawlmath.proofs import record as rec
from crawlmath.proofs.registry import Outcome, all_claims


def test_every_registered_claim_is_recorded_and_nothing_else():
    registered = {c.id for c in all_claims()}
    recorded = set(rec.load().claims)
    assert sorted(registered - recorded) == [], "claims missing from proofs/verdicts.json: run verify --update-record"
    assert sorted(recorded - registered) == [], "the record names claims that no longer exist"


def test_recorded_statuses_are_statuses():
    assert set(rec.load().claims.values()) <= {"PASS", "FAIL", "ERRATUM"}


def test_a_changed_verdict_exits_5_and_names_the_claim(tmp_path, monkeypatch, capsys):
    claims = [c for c in all_claims() if c.id.startswith("coffman.sched.lemma")]
    assert claims
    target = claims[0]
    real = rec.load()
    flipped = "FAIL" if real.claims[target.id] != "FAIL" else "PASS"
    fake = tmp_path / "verdicts.json"
    rec.save(rec.Record({**real.claims, target.id: flipped}, []), fake)
    monkeypatch.setattr(rec, "PATH", fake)
    rc = main(["verify", "--only", target.id])
    err = capsys.readouterr().err
    assert rc == 5
    assert f"{target.id}: {flipped} -> {real.claims[target.id]}" in err


def test_update_record_needs_a_reason(capsys):
    assert main(["verify", "--only", "coffman.sched.lemma", "--update-record"]) == 2
    assert "--reason" in capsys.readouterr().err


def test_update_record_logs_the_change(tmp_path):
    r = rec.Record({"p.a": "PASS", "p.b": "FAIL"}, [])
    new = r.updated({"p.b": "PASS"}, complete=False, reason="fixed the reading", registered={"p.a", "p.b"})
    assert new.claims == {"p.a": "PASS", "p.b": "PASS"}
    assert new.history[-1]["reason"] == "fixed the reading"
    assert new.history[-1]["changes"] == ["p.b: FAIL -> PASS"]
    path = tmp_path / "v.json"
    rec.save(new, path)
    assert rec.load(path).claims == new.claims
    assert (path.stat().st_mode & 0o777) == 0o644


def test_every_finding_names_existing_claims():
    from crawlmath.proofs import findings

    registered = {c.id for c in all_claims()}
    for f in findings.FINDINGS:
        missing = [c for c in f.claims if c not in registered]
        assert not missing, f"finding {f.sentence[:40]!r} names unknown claims {missing}"
