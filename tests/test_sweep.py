"""``crawlmath sweep`` and the Dask engine (issue 16): spec rules, the
resumable output file, records equal to single runs, a real loopback cluster
that loses a worker, and claims run in parallel."""
from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from crawlmath import sweep as S
from crawlmath.cli import main
from crawlmath.numeric.errors import InvalidInput, SolverError

distributed = pytest.importorskip("distributed")

STATIC = {"command": "static", "fixed": {"mu": 1, "K": 10},
          "grid": {"lam": [0.01, 0.05], "gamma": [0.5, 2.4], "digits": [20, 40]}}
BOOKKEEPING = set(S.RESERVED)


_SINGLE_RUNS = """
import contextlib, io, json, sys
from crawlmath.cli import main
rows = []
for argv in json.load(sys.stdin):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(argv)
    rows.append([code, json.loads(out.getvalue()) if code == 0 else None])
json.dump(rows, sys.stdout)
"""


def single_runs(command: str, points: list[dict]) -> list[tuple[int, dict | None]]:
    """The single runs of ``points`` in a fresh process with the environment a
    Dask worker gets (one BLAS thread): OpenBLAS sums in another order with
    more threads, which moves e.g. the mdp's n_mean by one ulp."""
    import dask

    env = {**os.environ, **{k: str(v) for k, v in dask.config.get("distributed.nanny.pre-spawn-environ").items()}}
    argvs = [S.point_argv(command, p) for p in points]
    done = subprocess.run([sys.executable, "-c", _SINGLE_RUNS], input=json.dumps(argvs), capture_output=True,
                          text=True, env=env, timeout=120, check=True)
    return [tuple(row) for row in json.loads(done.stdout)]


def records(path: Path) -> list[dict]:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["_sweep"] == S.FORMAT
    return [json.loads(line) for line in lines[1:]]


def check_against_single_runs(spec: S.Spec, recs: list[dict]) -> None:
    """Every point exactly once; each ok record is, bit for bit, the single
    run's JSON with the inputs merged in; each error record carries the single
    run's exit code."""
    keys = [S.canonical(r["_point"]) for r in recs]
    assert sorted(keys) == sorted(S.canonical(p) for p in spec.points())
    for r, (code, single) in zip(recs, single_runs(spec.command, [r["_point"] for r in recs])):
        assert r["_exit"] == code
        if code == 0:
            assert {k: v for k, v in r.items() if k not in BOOKKEEPING} == {**r["_point"], **single}


# --- the spec ---------------------------------------------------------------------------------


@pytest.mark.parametrize("change, argument", [
    ({"command": "verify"}, "command"),
    ({"grid": {}}, "grid"),
    ({"grid": {"lam": []}}, "grid.lam"),
    ({"grid": {"lam": [0.1, 0.1]}}, "grid.lam"),
    ({"grid": {"lambda": [0.1]}}, "grid.lambda"),
    ({"grid": {"json": [True]}}, "grid.json"),
    ({"fixed": {"mu": 1, "K": 10, "lam": 0.1}, "grid": {"lam": [0.2], "gamma": [1]}}, "fixed"),
    ({"fixed": {"mu": 1}, "grid": {"lam": [0.1], "gamma": [1]}}, "SPEC"),
    ({"fixed": {"mu": True, "K": 10}}, "fixed.mu"),
    ({"fixed": {"mu": float("inf"), "K": 10}}, "fixed.mu"),
    ({"extra": 1}, "SPEC"),
])
def test_spec_rules_name_the_offending_key(change, argument):
    with pytest.raises(InvalidInput) as exc:
        S.parse_spec({**STATIC, **change})
    assert exc.value.argument == argument


def test_spec_identity_ignores_grid_order_only():
    a = S.parse_spec(STATIC)
    b = S.parse_spec({**STATIC, "grid": {"digits": [40, 20], "gamma": [2.4, 0.5], "lam": [0.05, 0.01]}})
    c = S.parse_spec({**STATIC, "fixed": {"mu": 2, "K": 10}})
    assert a.size == 8 and a.sha256 == b.sha256 != c.sha256


def test_point_argv_is_unambiguous():
    assert S.point_argv("schedule", {"rates": [0.5, 1, 2], "access": "det:1", "k": 12}) == \
        ["schedule", "--rates=0.5,1,2", "--access=det:1", "--k=12", "--json"]
    assert S.point_argv("static", {"lam": -0.1, "mu": 1e-20, "gamma": 1, "K": "inf"})[1:3] == ["--lam=-0.1", "--mu=1e-20"]
    assert S.point_argv("bmap", {"model": "-m.json", "optimize": True, "solver": "sparse"}) == \
        ["bmap", "--optimize", "--solver=sparse", "--json", "--", "-m.json"]
    assert S.point_argv("colours", {"K": 3, "C": 4, "exact": False}) == ["colours", "--K=3", "--C=4", "--json"]


def test_load_spec_toml_and_json(tmp_path):
    (tmp_path / "s.toml").write_text('command = "static"\n[fixed]\nmu = 1\nK = 10\n[grid]\nlam = [0.01]\ngamma = [0.5]\n')
    (tmp_path / "s.json").write_text(json.dumps({"command": "static", "fixed": {"mu": 1, "K": 10},
                                                  "grid": {"gamma": [0.5], "lam": [0.01]}}))
    assert S.load_spec(tmp_path / "s.toml").sha256 == S.load_spec(tmp_path / "s.json").sha256
    (tmp_path / "bad.toml").write_text("command = \n")
    with pytest.raises(InvalidInput, match="not valid TOML"):
        S.load_spec(tmp_path / "bad.toml")


# --- one point --------------------------------------------------------------------------------


def test_point_records_follow_the_exit_codes(monkeypatch):
    ok = S.evaluate_point("static", {"lam": 0.01, "mu": 1, "gamma": 0.5, "K": 10})
    assert ok["_status"] == "ok" and ok["N_opt"] == 89 and ok["lam"] == 0.01  # Liu–Nain Table 1.1
    bad = S.evaluate_point("static", {"lam": 0.01, "mu": 1, "gamma": 0.5, "K": 1})
    assert (bad["_status"], bad["_exit"], bad["K"]) == ("error", 2, 1) and "--K" in bad["_message"]
    big = S.evaluate_point("mdp", {"lam": 0.1, "K": 40, "N": "auto", "gamma": 1.2, "max-memory": "1K"})
    assert big["_exit"] == 4 and "too large" in big["_message"]

    from crawlmath.commands import static

    def no_convergence(args):
        raise SolverError("no convergence after 7 iterations")

    monkeypatch.setattr(static, "run", no_convergence)
    failed = S.evaluate_point("static", {"lam": 0.01, "mu": 1, "gamma": 0.5, "K": 10})
    assert failed["_exit"] == 3 and "no convergence after 7 iterations" in failed["_message"]

    def bug(args):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(static, "run", bug)
    with pytest.raises(S.PointError, match="exited 70"):
        S.evaluate_point("static", {"lam": 0.01, "mu": 1, "gamma": 0.5, "K": 10})


# --- the output file --------------------------------------------------------------------------


def test_foreign_files_are_refused_and_left_alone(tmp_path):
    spec = S.parse_spec(STATIC)
    foreign = tmp_path / "notes.jsonl"
    foreign.write_text('{"mine": true}\n')
    with pytest.raises(InvalidInput, match="not a crawlmath sweep file"):
        S.SweepFile(foreign, spec)
    assert foreign.read_text() == '{"mine": true}\n'
    other = tmp_path / "other.jsonl"
    S.SweepFile(other, S.parse_spec({**STATIC, "fixed": {"mu": 2, "K": 10}})).close()
    before = other.read_bytes()
    with pytest.raises(InvalidInput, match="another spec"):
        S.SweepFile(other, spec)
    assert other.read_bytes() == before


def test_file_keeps_whole_records_and_refuses_damage(tmp_path):
    spec = S.parse_spec(STATIC)
    points = list(spec.points())
    path = tmp_path / "out.jsonl"
    f = S.SweepFile(path, spec)
    with pytest.raises(InvalidInput, match="another sweep"):
        S.SweepFile(path, spec)  # locked while a sweep writes it
    for p in points[:3]:
        f.append({**p, "_point": p, "_status": "ok", "_exit": 0})
    f.close()
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"lam": 0.0')  # killed mid-write
    g = S.SweepFile(path, spec)
    assert g.done == {S.canonical(p) for p in points[:3]}
    g.close()
    assert path.read_bytes() == whole
    lines = whole.splitlines(keepends=True)
    for damaged, why in ((lines + [lines[1]], "repeats a point"), (lines[:2] + [b"{}\n"] + lines[2:], "line 3")):
        path.write_bytes(b"".join(damaged))
        with pytest.raises(InvalidInput, match=why):
            S.SweepFile(path, spec)
    empty = tmp_path / "empty.jsonl"
    empty.touch()
    S.SweepFile(empty, spec).close()
    assert records(empty) == []


def test_a_grid_too_large_to_index_is_refused_up_front(tmp_path):
    from crawlmath.numeric.errors import TooLarge

    axis = [round(0.001 * i, 3) for i in range(1, 1001)]
    spec = S.parse_spec({"command": "static", "fixed": {"K": 10},
                         "grid": {"lam": axis, "mu": axis, "gamma": axis, "digits": list(range(5, 1005))}})
    with pytest.raises(TooLarge, match="resume index of 1000000000000 points"):
        S.run_sweep(spec, tmp_path / "huge.jsonl")
    assert not (tmp_path / "huge.jsonl").exists()


def test_command_refuses_bad_input_before_starting_an_engine(tmp_path):
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps(STATIC))
    foreign = tmp_path / "notes.txt"
    foreign.write_text("keep me\n")
    assert main(["sweep", str(spec), "--out", str(foreign)]) == 2
    assert main(["sweep", str(spec), "--out", str(tmp_path / "o.jsonl"), "--workers", "0"]) == 2
    assert main(["sweep", str(tmp_path / "missing.toml"), "--out", str(tmp_path / "o.jsonl")]) == 2
    assert foreign.read_text() == "keep me\n" and not (tmp_path / "o.jsonl").exists()


def test_undelivered_points_are_reported_and_retried_on_resume(tmp_path, monkeypatch):
    from dask.distributed import Client

    from crawlmath.commands import static

    real_run = static.run

    def bug_at_gamma_2_4(args):
        if args.gamma == "2.4":
            raise ZeroDivisionError("a bug")
        return real_run(args)

    spec = S.parse_spec(STATIC)
    out = tmp_path / "u.jsonl"
    # Threads in this process, so that the patched subcommand is the one the workers run.
    with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as local:
        monkeypatch.setattr(static, "run", bug_at_gamma_2_4)
        first = S.run_sweep(spec, out, client=local)
        assert (first.ok, len(first.undelivered), first.complete) == (4, 4, False)
        assert all("exited 70" in u["error"] and u["point"]["gamma"] == 2.4 for u in first.undelivered)
        assert {r["_point"]["gamma"] for r in records(out)} == {0.5}
        monkeypatch.setattr(static, "run", real_run)
        second = S.run_sweep(spec, out, client=local)
    assert (second.present, second.ok, second.complete) == (4, 4, True)


# --- on a LocalCluster with two workers ----------------------------------------------------------


@pytest.fixture(scope="module")
def client():
    with S.dask_client(workers=2) as c:  # the engine `crawlmath sweep --workers 2` starts
        yield c


def test_sweep_equals_single_runs_and_records_failures(client, tmp_path):
    spec = S.parse_spec({**STATIC, "fixed": {"mu": 1}, "grid": {**STATIC["grid"], "K": [10, 1]}})
    out = tmp_path / "static.jsonl"
    summary = S.run_sweep(spec, out, client=client)
    assert (summary.points, summary.ok, summary.errors, summary.complete) == (16, 8, {2: 8}, True)
    check_against_single_runs(spec, records(out))


def test_resume_computes_only_missing_points(client, tmp_path):
    spec = S.parse_spec(STATIC)
    out = tmp_path / "r.jsonl"
    S.run_sweep(spec, out, client=client)
    full = records(out)
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join(lines[:4]) + lines[4][:25])  # 3 records and a torn fourth
    summary = S.run_sweep(spec, out, client=client)
    assert (summary.present, summary.written, summary.complete) == (3, 5, True)
    resumed = records(out)
    assert len(resumed) == spec.size
    assert {S.canonical(r["_point"]): r for r in resumed} == {S.canonical(r["_point"]): r for r in full}
    again = S.run_sweep(spec, out)  # nothing missing: no engine is started
    assert (again.present, again.written, again.engine) == (8, 0, "not started (nothing to compute)")


class _Recording:
    """The Dask client, recording what is submitted to it (everything else passes through)."""

    def __init__(self, client):
        self._client, self.submitted = client, []

    def submit(self, fn, *args, **kwargs):
        self.submitted.append((fn.__name__, args, kwargs["key"]))
        return self._client.submit(fn, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._client, name)


def _coffman_claims():
    """Register Coffman's claims by loading their modules (a module or a package's sections; all claims take 30 s)."""
    from crawlmath.proofs import registry

    for m in registry.claim_modules():
        if m == "crawlmath.proofs.claims.coffman" or m.startswith("crawlmath.proofs.claims.coffman."):
            registry.load_claim_module(m)


def test_claims_in_parallel_match_the_serial_run_one_task_per_group(client):
    """verify --scheduler runs runner.plan's groups: one Dask task per work-sharing group, in plan's order (here
    coffman.sched, four claims sharing their module's caches, and a group of one), with the serial outcomes."""
    from crawlmath.proofs.registry import Claim, Method, Source, Status, lookup, run_claim
    from crawlmath.proofs.runner import group_of, plan

    _coffman_claims()
    ids = ["coffman.sched.thm-3.1", "coffman.sched.thm-3.2", "coffman.sched.thm-3.3", "coffman.sched.thm-3.4.bound"]
    claims = [lookup(i) for i in ids]
    def check():
        raise AssertionError("never run: the workers cannot import this claim's module")

    check.__module__ = "crawlmath.proofs.claims.no_such_module"  # what a worker of another version would see
    stray = Claim("coffman.test.not-on-workers", Source("coffman", "§0", "none"), "a claim the workers lack",
                  Method.FLOAT, check)
    recording = _Recording(client)
    parallel = S.run_claims_parallel(claims + [stray], client=recording)
    assert {group_of(i) for i in ids} == {"coffman.sched"}
    expected = [(group, [c.id for c in members]) for group, members in plan(claims + [stray])]
    assert sorted(expected) == [("coffman.sched", ids), ("coffman.test", [stray.id])]
    assert [(fn, list(args[0]), key) for fn, args, key in recording.submitted] == [
        ("run_group_by_ids", members, f"crawlmath-claims-{group}") for group, members in expected]
    assert [r.claim.id for r in parallel] == ids + [stray.id]
    for r, c in zip(parallel, claims):
        serial = run_claim(c)
        assert (r.outcome.status, r.outcome.detail) == (serial.outcome.status, serial.outcome.detail)
    assert parallel[-1].outcome.status is Status.FAIL
    assert "Dask engine could not run the check" in parallel[-1].outcome.detail
    assert "is not a claim module" in parallel[-1].outcome.detail


# --- a real loopback cluster: `dask scheduler`, two `dask worker`, one killed ---------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(*argv: str) -> subprocess.Popen:
    # Own session: the whole `dask worker` (nanny and worker process) dies with one killpg.
    return subprocess.Popen([sys.executable, "-m", "dask", *argv], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def _wait_records(path: Path, n: int, proc: subprocess.Popen, deadline: float) -> None:
    while time.monotonic() < deadline and proc.poll() is None:
        if path.exists() and path.read_bytes().count(b"\n") >= n + 1:
            return
        time.sleep(0.05)
    raise AssertionError(f"{path.name}: fewer than {n} records before the deadline (sweep exit {proc.poll()})")


def _sweep(spec_path: Path, out: Path, address: str) -> subprocess.Popen:
    # A shell may start the tests with SIGINT ignored, which a child inherits;
    # handled here (not ignored) for the moment of the spawn, the child gets it
    # back at its default.  (No preexec_fn: it is unsafe with the Dask threads.)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen([sys.executable, "-m", "crawlmath", "sweep", str(spec_path), "--out", str(out),
                                 "--scheduler", address, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    finally:
        signal.signal(signal.SIGINT, previous)


def test_loopback_cluster_survives_ctrl_c_and_a_killed_worker(tmp_path):
    try:
        port = _free_port()
    except OSError as exc:
        pytest.skip(f"no loopback port can be bound: {exc}")
    address = f"tcp://127.0.0.1:{port}"
    spec = {"command": "mdp", "fixed": {"mu": 1, "N": "auto"},
            "grid": {"lam": [0.05, 0.1], "K": [15, 20, 25], "gamma": [0.4, 2.4]}}
    spec_path = tmp_path / "spec.json"
    spec_path.write_text(json.dumps(spec))
    out = tmp_path / "out.jsonl"
    procs = [_start("scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard")]
    deadline = time.monotonic() + 120
    try:
        for name in ("a", "b"):
            procs.append(_start("worker", address, "--host", "127.0.0.1", "--nthreads", "1", "--name", name,
                                "--no-dashboard", "--death-timeout", "60"))
        with distributed.Client(address, timeout="60s") as watcher:
            watcher.wait_for_workers(2, timeout=60)
            first = _sweep(spec_path, out, address)
            _wait_records(out, 2, first, deadline)
            first.send_signal(signal.SIGINT)  # Ctrl-C
            assert first.wait(timeout=60) == 130, first.stderr.read()
            kept = len(records(out))
            second = _sweep(spec_path, out, address)
            _wait_records(out, kept + 2, second, deadline)
            os.killpg(procs[1].pid, signal.SIGKILL)  # worker a dies with tasks in flight
            assert len(records(out)) < 12, "the sweep ended before the worker was killed"
            stdout, stderr = second.communicate(timeout=max(1.0, deadline - time.monotonic()))
            assert second.returncode == 0, stderr
            assert len(watcher.nthreads()) == 1  # the scheduler did lose worker a
        summary = json.loads(stdout)
        assert (summary["present"], summary["present"] + summary["written"], summary["complete"]) == (kept, 12, True)
        check_against_single_runs(S.parse_spec(spec), records(out))
    finally:
        for p in procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
            p.wait(timeout=30)
