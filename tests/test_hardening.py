"""Issue 12: exit codes, cost caps before allocation, result gates, model-file
schema and the safety of ``report --out``."""
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from crawlmath.cli import EXIT_BAD_INPUT, EXIT_BUG, EXIT_SOLVER, EXIT_TOO_LARGE, main
from crawlmath.commands._common import print_json
from crawlmath.numeric import scheduling as sched
from crawlmath.numeric import static as static_mm1k
from crawlmath.numeric.scheduling import parse_access
from crawlmath.numeric.bmap import MODELS_DIR, load_model, read_spec
from crawlmath.numeric.errors import InvalidInput, SolverError, TooLarge
from crawlmath.numeric.validate import MEMORY_ENV, max_memory, parse_size, require_memory
from crawlmath.report import build as build_mod

STATIC = ["static", "--lam", "0.01", "--mu", "1", "--gamma", "0.5"]


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if not line.startswith("crawlmath: warning:")]
    assert "Traceback" not in err and len(lines) <= 1, err
    return code, out, err


# --- exit codes -------------------------------------------------------------------


@pytest.mark.parametrize("argv, code, words", [
    (STATIC + ["--K", "1"], EXIT_BAD_INPUT, "--K: must be >= 2"),
    (STATIC + ["--K", "1000000000000"], EXIT_TOO_LARGE, "TiB"),
    (STATIC + ["--K", "100000", "--digits", "30"], EXIT_TOO_LARGE, "--max-seconds"),
    (STATIC + ["--K", "10", "--digits", "100000"], EXIT_TOO_LARGE, "--digits"),
    (["static", "--lam", "0.01", "--mu", "1e-320", "--gamma", "0.5", "--K", "10"], EXIT_BAD_INPUT, "--mu"),
    (["static", "--lam", "0.01", "--mu", "1", "--gamma", "1e300", "--K", "400"], EXIT_SOLVER, "--digits"),
    (["mdp", "--lam", "0.1", "--K", "1000000000", "--N", "2", "--gamma", "1"], EXIT_TOO_LARGE, "--K"),
    (["mdp", "--lam", "0.1", "--K", "5", "--N", "1000000000", "--gamma", "1"], EXIT_TOO_LARGE, "--N"),
    (["mdp", "--lam", "0.1", "--K", "5", "--N", "16", "--gamma", "1", "--method", "rvi", "--tau", "1e-320"],
     EXIT_BAD_INPUT, "--tau"),
    (["schedule", "--rates", "1,1e-10", "--weights", "1,1e10", "--access", "exp:1"], EXIT_SOLVER, "outside"),
    (["schedule", "--rates", "0.5,1", "--access", "exp:1e-320"], EXIT_BAD_INPUT, "--access"),
    (["schedule", "--rates", "1e-300,1", "--access", "exp:1"], EXIT_BAD_INPUT, "--rates[0]"),
    (["colours", "--K", "10", "--C", "1000000000000"], EXIT_TOO_LARGE, "--C"),
    (["colours", "--K", "1000000000", "--C", "10", "--exact", "product"], EXIT_TOO_LARGE, "K: "),
    (["colours", "--K", "1000000000", "--C", "10", "--exact", "chain"], EXIT_TOO_LARGE, "K: "),
    (["bmap", "avrachenkov-example.json", "--K", "1000000000"], EXIT_TOO_LARGE, "states after lumping"),
    (STATIC + ["--K", "10", "--bogus"], EXIT_BAD_INPUT, "unrecognized"),
    (["bmap", "avrachenkov-example.json", "--modes", ""], EXIT_BAD_INPUT, "--modes: must list at least one"),
    (["bmap", "avrachenkov-example.json", "--modes", "3,,1"], EXIT_BAD_INPUT, "an entry is empty"),
])
def test_anticipated_failures_are_one_line_with_their_code(argv, code, words, capsys):
    got, out, err = run(argv, capsys)
    assert got == code and words in err and out == ""


def test_degenerate_schedule_delivers_the_vertex(capsys):
    """h_i = 4.4e-35 (an access almost surely finds the page obsolete): (1.27) is linear in x, so the optimum puts all
    accesses on the heavier page, C* = c_1 + c_2 (1 - 1/(E[X] mu_2)); the old solver refused this input (exit 3)."""
    got, out, err = run(["schedule", "--rates", "2,2", "--access", "gamma:36,0.25", "--weights", "1,2", "--json"], capsys)
    d = json.loads(out)
    assert got == 0 and d["frequencies"] == [0.0, 1.0]
    assert abs(d["lower_bound"] - (1 + 2 * (1 - 1 / 288))) < 1e-12


def test_unexpected_exception_is_one_line_exit_70(monkeypatch, capsys):
    from crawlmath.commands import static

    monkeypatch.setattr(static, "run", lambda args: {}["boom"])
    code, _, err = run(STATIC + ["--K", "10"], capsys)
    assert code == EXIT_BUG and "KeyError" in err and "crawlmath bug" in err


def test_json_is_all_or_nothing(capsys):
    with pytest.raises(SolverError, match=r"b\[1\] is nan"):
        print_json({"a": 1.0, "b": [0.0, math.nan]})
    assert capsys.readouterr().out == ""


def test_closed_pipe_ends_quietly():
    cmd = f"{sys.executable} -m crawlmath verify --help | head -c 10"
    proc = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=120)
    assert proc.stderr == ""


# --- limits -------------------------------------------------------------------------


def test_one_limit_mechanism(monkeypatch, capsys):
    assert parse_size("1.5G", "x") == 3 * 2**29
    monkeypatch.setenv(MEMORY_ENV, "1M")
    assert max_memory() == 2**20
    with pytest.raises(TooLarge, match=r"--max-memory, CRAWLMATH_MAX_MEMORY or limits\(memory=...\)"):
        require_memory(2**21, "--K", "a test")
    monkeypatch.delenv(MEMORY_ENV)
    # the option raises the limit for one run only
    assert main(["--max-memory", "1K"] + STATIC + ["--K", "1000"]) == EXIT_TOO_LARGE
    assert main(STATIC + ["--K", "1000", "--max-memory", "1G"]) == 0
    assert MEMORY_ENV not in os.environ
    assert main(STATIC + ["--K", "10", "--max-memory", "lots"]) == EXIT_BAD_INPUT


# --- result gates --------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.floats(1e-300, 1e300), st.floats(1e-300, 1e300), st.floats(1e-300, 1e300), st.integers(2, 300))
def test_static_float_route_is_finite_or_refused(lam, mu, gamma, K):
    try:
        opt = static_mm1k.static_optimum(lam, mu, gamma, K)
    except (InvalidInput, SolverError):
        return
    assert all(math.isfinite(v) for v in (opt.rho_opt, opt.cost_opt, opt.gamma_K)) and opt.N_opt >= 1


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(1e-12, 1e12), min_size=1, max_size=5), st.lists(st.floats(1e-12, 1e12), min_size=5, max_size=5),
       st.sampled_from(["exp:1", "det:2", "gamma:36,0.25", "uniform:0,3", "hyperexp:0.5,1,0.5,100"]))
def test_scheduling_results_are_delivered_or_refused(rates, weights, access):
    try:
        p = sched.make_problem(rates, parse_access(access), weights[:len(rates)])
        res = sched.optimal_frequencies(p)
    except (InvalidInput, SolverError):
        return
    assert np.all(np.isfinite(res.frequencies)) and res.residual <= 1e-9
    assert 0 <= res.lower_bound <= p.weights.sum() * (1 + 1e-10)


# --- model files -----------------------------------------------------------------------


def _example():
    return read_spec("avrachenkov-example.json")


def _mutated(change):
    spec = _example()
    change(spec)
    return spec


@pytest.mark.parametrize("spec, words", [
    (5, "(top level): must be a object"),
    (None, "(top level): must be a object"),
    (_mutated(lambda s: s["costs"].update(c_bogus=1)), "costs.c_bogus: unknown key"),
    (_mutated(lambda s: s.update(Costs=s.pop("costs"))), "Costs: unknown key (did you mean 'costs'?)"),
    (_mutated(lambda s: s.update(costs=[])), "costs: must be a object"),
    (_mutated(lambda s: s["arrivals"]["D"][0][0].append([1, 2, 3])), "ragged"),
    (_mutated(lambda s: s["service"].update(S=[[-1e-320, 0], [0, -3]])), "service.S[0][0]: must be 0 or at least"),
    (_mutated(lambda s: s.update(K=2.7)), "K: must be an integer"),
])
def test_schema_names_the_key_path(tmp_path, spec, words):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(spec))
    with pytest.raises(InvalidInput, match="MODEL: ") as exc:
        load_model(path)
    assert words in str(exc.value)


@pytest.mark.parametrize("robots, words", [("abc", "must be an integer"), (2.7, "must be an integer"), (0, "minimum")])
def test_robots_must_be_a_count(tmp_path, robots, words):
    spec = read_spec("avrachenkov-real.json")
    spec["arrivals"]["robots"] = robots
    (tmp_path / "m.json").write_text(json.dumps(spec))
    with pytest.raises(InvalidInput, match="arrivals.robots: ") as exc:
        load_model(tmp_path / "m.json")
    assert words in str(exc.value)


def test_file_system_and_decoding_errors_are_one_line(tmp_path, capsys):
    (tmp_path / "latin.json").write_bytes('{"description": "caf\xe9"}'.encode("latin-1"))
    (tmp_path / "deep.json").write_text("[" * 200_000 + "]" * 200_000)
    (tmp_path / "dir.json").mkdir()
    for name, words in (("latin.json", "not UTF-8"), ("deep.json", "nested too deeply"), ("dir.json", "not a regular file"),
                        ("missing.json", "not found")):
        code, _, err = run(["bmap", str(tmp_path / name)], capsys)
        assert code == EXIT_BAD_INPUT and words in err


def test_printed_models_list_every_offending_entry_by_file_key():
    with pytest.raises(InvalidInput) as exc:
        load_model("avrachenkov-example-printed.json")
    msg = str(exc.value)
    for where in ("arrivals.D[1][1][0][0] (D^(2)_1[0, 0])", "arrivals.D[1][2][0][0] (D^(2)_2[0, 0])",
                  "arrivals.D[2][0][1][1] (D^(3)_0[1, 1])"):
        assert where in msg
    with pytest.raises(InvalidInput, match=r"arrivals\.common\.D0 \+ sum\(d\) A, row 0"):
        load_model("avrachenkov-real-printed.json")


def test_huge_model_sizes_are_refused_before_allocation(tmp_path, capsys):
    spec = read_spec("avrachenkov-real.json")
    spec["arrivals"]["robots"] = 10**9
    (tmp_path / "robots.json").write_text(json.dumps(spec))
    spec = read_spec("avrachenkov-real.json")
    spec["K"] = 10**9
    (tmp_path / "K.json").write_text(json.dumps(spec))
    for name in ("robots.json", "K.json"):
        code, _, err = run(["bmap", str(tmp_path / name)], capsys)
        assert code == EXIT_TOO_LARGE and "MODEL" in err


def test_shipped_models_pass_the_schema():
    for p in MODELS_DIR.glob("*.json"):
        read_spec(p)


# --- report --out ------------------------------------------------------------------------


def _claims():
    from crawlmath.proofs.registry import select

    return select(["liu-nain.static.lemma"], quick=True)[:1]


def test_report_refuses_foreign_folder_and_keeps_user_files(tmp_path):
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "index.html").write_text("mine")
    (foreign / "notes.txt").write_text("precious")
    with pytest.raises(InvalidInput, match="holds no previous report"):
        build_mod.build(foreign, _claims(), figures=False)
    assert sorted(p.name for p in foreign.iterdir()) == ["index.html", "notes.txt"]

    out = tmp_path / "rep"
    build_mod.build(out, _claims(), figures=False)
    (out / "notes.txt").write_text("added by the user")
    (out / "figures").mkdir()
    (out / "figures" / "stale.png").write_text("ours")  # listed in the manifest below: ours to remove
    (out / build_mod.MANIFEST).write_text(json.dumps({"generator": "crawlmath report",
                                                      "files": build_mod.read_manifest(out) + ["figures/stale.png"]}))
    build_mod.build(out, _claims(), figures=False)
    assert (out / "notes.txt").read_text() == "added by the user"
    assert not (out / "figures").exists()
    for f in build_mod.read_manifest(out):
        assert (out / f).stat().st_mode & 0o777 == 0o644


def test_report_killed_mid_swap_leaves_a_complete_folder(tmp_path, monkeypatch):
    out = tmp_path / "rep"
    build_mod.build(out, _claims(), figures=False)
    real_replace, calls = os.replace, []

    def dying_replace(src, dst):
        calls.append(dst)
        if len(calls) == 3:
            raise KeyboardInterrupt
        real_replace(src, dst)

    monkeypatch.setattr(build_mod.os, "replace", dying_replace)
    with pytest.raises(KeyboardInterrupt):
        build_mod.build(out, _claims(), figures=False)
    monkeypatch.undo()
    assert {"index.html", "report.md", "results.json"} <= {p.name for p in out.iterdir()}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]
    # a temporary folder of a killed process (no such pid) is recognised and removed
    stale = tmp_path / f".rep.{build_mod.TMP_TAG}-999999999-abc"
    stale.mkdir()
    build_mod.build(out, _claims(), figures=False)
    assert not stale.exists()
