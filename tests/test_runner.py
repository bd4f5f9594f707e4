"""The local parallel claim runner (proofs/runner.py): same results as the
serial run, in order; a dead worker is a FAIL naming why, not a hang."""
from __future__ import annotations

import json
import os

import pytest

from crawlmath.proofs import registry as R
from crawlmath.proofs.runner import CostLog, group_of, plan, run_parallel


def _cheap_claims():
    """About 30 quick claims from three work-sharing groups."""
    return [c for p in ("buijsrogge.table-7", "avrachenkov.bmap", "liu-nain.static.table-1.1") for c in R.select([p], quick=True)[:10]]


def test_parallel_equals_serial(tmp_path):
    claims = _cheap_claims()
    assert len({group_of(c.id) for c in claims}) >= 2
    seen = []
    par = run_parallel(claims, 2, progress=lambda d, t, c: seen.append(d), log=CostLog(tmp_path / "s.json"))
    ser = R.run(claims)
    assert [r.claim.id for r in par] == [c.id for c in claims]
    assert [(r.outcome.status, r.outcome.detail) for r in par] == [(r.outcome.status, r.outcome.detail) for r in ser]
    assert seen[-1] == len(claims) and sorted(seen) == seen
    logged = json.loads((tmp_path / "s.json").read_text())
    assert set(logged) <= {group_of(c.id) for c in claims}


def _dies():
    os._exit(3)


def test_dead_worker_is_a_fail(tmp_path):
    c = R.Claim("coffman.test.worker-dies", R.Source("coffman", "§0", "none"), "a check that kills its process",
                R.Method.FLOAT, _dies)
    R.register(c)
    try:
        ok = _cheap_claims()[0]
        res = run_parallel([ok, c], 2, log=CostLog(tmp_path / "s.json"))
    finally:
        del R._REGISTRY[c.id]
    assert res[0].claim is ok and res[0].outcome.status is not R.Status.FAIL
    assert res[1].outcome.status is R.Status.FAIL and "died" in res[1].outcome.detail


def test_cost_log_tolerates_garbage(tmp_path):
    p = tmp_path / "s.json"
    p.write_text("not json")
    log = CostLog(p)
    assert log.seconds == {}
    claims = _cheap_claims()
    assert log.estimate(group_of(claims[0].id), claims) >= 0


def test_plan_groups_by_prefix_longest_first_claims_in_given_order(tmp_path):
    """The one plan both the local pool and the Dask path run: groups by `group_of`, the logged seconds
    ordering them (longest first, ties in order of first appearance), each group's claims in the given order."""
    def fake(claim_id, slow=False):  # not registered: group_of falls back to the id's first two parts
        return R.Claim(claim_id, R.Source("coffman", "§0", "none"), "s", R.Method.FLOAT, lambda: None, slow=slow)

    claims = [fake("coffman.a.1"), fake("coffman.b.1"), fake("coffman.a.2"), fake("coffman.c.1", slow=True),
              fake("coffman.b.2"), fake("coffman.d.1")]
    log_path = tmp_path / "s.json"
    log_path.write_text(json.dumps({"coffman.b": 9.0, "coffman.a": 2.0}))
    got = [(g, [c.id for c in members]) for g, members in plan(claims, CostLog(log_path))]
    assert got == [("coffman.b", ["coffman.b.1", "coffman.b.2"]),
                   ("coffman.c", ["coffman.c.1"]),  # no log entry: 5 s per slow claim + 0.05 s per claim
                   ("coffman.a", ["coffman.a.1", "coffman.a.2"]),
                   ("coffman.d", ["coffman.d.1"])]


@pytest.mark.parametrize("workers", [1, 2])
def test_single_claim_runs(workers, tmp_path):
    c = _cheap_claims()[:1]
    assert [r.claim.id for r in run_parallel(c, workers, log=CostLog(tmp_path / "s.json"))] == [c[0].id]


def test_ctrl_c_stops_the_workers_and_exits_130():
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) ends a parallel verify with exit 130,
    one line on stderr and no worker left behind."""
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen([sys.executable, "-m", "crawlmath", "verify", "--only", "buijsrogge.table-8", "--workers", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(8)  # imports, fork, first runs: the group takes about 100 s, so it is still running
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err
    time.sleep(0.5)
    left = subprocess.run(["pgrep", "-g", str(proc.pid)], capture_output=True, text=True).stdout.split()
    assert left == []


def test_named_group_overrides_the_prefix():
    c = R.Claim("coffman.test.grouped", R.Source("coffman", "§0", "none"), "a claim naming its group",
                R.Method.FLOAT, lambda: R.Outcome.judge(True, "ok"), group="coffman.test:shared")
    R.register(c)
    try:
        assert group_of(c.id) == "coffman.test:shared"
    finally:
        del R._REGISTRY[c.id]
    assert group_of(c.id) == "coffman.test"  # unregistered: the id's prefix


def test_table_8_cells_of_one_series_share_a_group():
    """Tables 8.1 and 8.4 read the same (queue per elephant, γ = 0.9, δ) runs: one group, so one worker runs them."""
    cells = [c for c in R.select(["buijsrogge.table-8.1.d5.g0.9", "buijsrogge.table-8.4.d5."])]
    assert len(cells) >= 2
    assert len({group_of(c.id) for c in cells}) == 1
    other = R.select(["buijsrogge.table-8.1.d6.g0.9"])
    assert group_of(other[0].id) != group_of(cells[0].id)
