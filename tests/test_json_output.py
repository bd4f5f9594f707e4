"""Issue 14: every subcommand's ``--json`` echoes its inputs under ``"inputs"``
and prints only keys that README's "JSON output" section documents; the
progress bar is quiet under --json and leaves results unchanged."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from crawlmath.cli import build_parser, main

README = Path(__file__).resolve().parents[1] / "README.md"
DATA = Path(__file__).resolve().parent / "data"


def documented_keys() -> dict[str, set[str]]:
    """Top-level keys per subcommand: the backticked names in the first column
    of each ``### `crawlmath NAME --json` `` table of README's JSON section."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## JSON output"):text.index("## Exit codes and limits")]
    out = {}
    for block in re.split(r"^### ", section, flags=re.M)[1:]:
        name = re.match(r"`crawlmath ([\w-]+) --json`", block).group(1)
        cells = [row.split("|")[1] for row in block.splitlines() if row.startswith("| `")]
        out[name] = {k for cell in cells for k in re.findall(r"`([A-Za-z_0-9]+)`", cell)}
    return out


DOCUMENTED = documented_keys()


def run_json(capsys, argv: list[str], codes=(0,)) -> object:
    code = main(argv)
    captured = capsys.readouterr()
    assert code in codes, captured.err
    assert captured.err == "", "progress or messages on stderr under --json"
    return json.loads(captured.out)


def parsed(argv: list[str]) -> dict:
    """The arguments argparse gives the subcommand (what `inputs` must echo)."""
    ns = build_parser().parse_args(argv)
    return {k for k in vars(ns) if k not in ("json", "_run", "command")}


CASES = {
    "static": ["static", "--lam", "0.01", "--mu", "1", "--gamma", "0.5", "--K", "inf", "--json"],
    "mdp": ["mdp", "--lam", "0.1", "--K", "3", "--N", "4", "--gamma", "1.4", "--method", "rvi", "--digits", "12", "--json"],
    "bmap": ["bmap", "avrachenkov-example.json", "--modes", "3,1", "--thresholds", "2", "--json"],
    "schedule": ["schedule", "--rates", "0.5,1,2", "--access", "det:1", "--policy", "golden", "--k", "6", "--json"],
    "colours": ["colours", "--K", "5", "--C", "6", "--exact", "--json"],
    "ctmc": ["ctmc", str(DATA / "storm_mm1k3.drn"), "--digits", "20", "--json"],
    "avg-cost": ["avg-cost", str(DATA / "storm_admission.drn"), "--json"],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_json_echoes_inputs_and_prints_documented_keys(capsys, name):
    argv = CASES[name]
    out = run_json(capsys, argv)
    assert set(out) <= DOCUMENTED[name], set(out) - DOCUMENTED[name]
    echo = dict(out["inputs"])
    units = echo.pop("units")
    assert set(echo) == parsed(argv)
    assert set(units) <= set(echo) and all(isinstance(u, str) and u for u in units.values())


def test_echoed_values_are_the_parsed_arguments(capsys):
    out = run_json(capsys, CASES["static"])["inputs"]
    assert (out["lam"], out["mu"], out["gamma"], out["K"]) == (0.01, 1.0, 0.5, "inf")
    hp = run_json(capsys, ["static", "--lam", "0.1", "--mu", "1", "--gamma", "0.5", "--K", "10", "--digits", "12", "--json"])
    assert hp["inputs"]["lam"] == "0.1" and isinstance(hp["rho_opt"], str)  # exact decimals in, strings out
    mdp = run_json(capsys, CASES["mdp"])
    assert mdp["inputs"]["tau"] == mdp["tau"] and mdp["inputs"]["reference"] is None
    assert isinstance(mdp["gain_hp"]["value"], str) and isinstance(mdp["gain"], float)
    sched = run_json(capsys, CASES["schedule"])["inputs"]
    assert sched["rates"] == [0.5, 1.0, 2.0] and sched["k"] == 6 and sched["weights"] is None
    bmap = run_json(capsys, CASES["bmap"])["inputs"]
    assert (bmap["modes"], bmap["thresholds"], bmap["K"]) == ([3, 1], [2], 5)


def test_bmap_optimize_json(capsys):
    out = run_json(capsys, ["bmap", "avrachenkov-example.json", "--modes", "3,1", "--optimize", "--json"])
    assert set(out) <= DOCUMENTED["bmap"] and set(out["optimum"]) <= DOCUMENTED["bmap"]
    assert out["inputs"]["optimize"] is True and out["inputs"]["modes"] == [3, 1]


def test_codegen_report_verify_json(capsys, tmp_path):
    out = run_json(capsys, ["codegen", "--check", "--json"], codes=(0, 1))  # 1: stale code is reported, not an error
    assert set(out) <= DOCUMENTED["codegen"] and out["inputs"] == {"lang": "python", "out": None, "check": True,
                                                                   "force": False, "stable_form": False, "model": None}
    claim = "liu-nain.static.eq-1.8"
    rep = run_json(capsys, ["report", "--out", str(tmp_path / "r"), "--only", claim, "--no-figures", "--json"], codes=(0, 1))
    assert set(rep) <= DOCUMENTED["report"]
    assert rep["inputs"]["only"] == [claim] and rep["inputs"]["figures"] is False
    rows = run_json(capsys, ["verify", "--only", claim, "--json"], codes=(0, 1))
    assert isinstance(rows, list) and rows and all(set(r) <= DOCUMENTED["verify"] for r in rows)


def test_sweep_summary_keys_are_documented():
    from crawlmath.sweep import Summary

    assert set(Summary("o.jsonl", "static", "0" * 64, 4).as_json()) | {"inputs"} <= DOCUMENTED["sweep"]


def test_progress_callback_leaves_the_simulation_unchanged():
    from crawlmath.numeric.colours import colour_distribution
    from crawlmath.numeric.colours_sim import simulate

    p = colour_distribution("uniform", 20)
    calls = []
    a = simulate(p, 10, 20_000, seed=3)
    b = simulate(p, 10, 20_000, seed=3, progress=lambda done, total: calls.append((done, total)))
    assert (a.mean, a.stderr, a.p_new_mean) == (b.mean, b.stderr, b.p_new_mean)
    assert calls and calls[-1] == (20_010, 20_010) and all(d1 <= d2 for (d1, _), (d2, _) in zip(calls, calls[1:]))


def test_progress_flag_shows_a_bar_with_an_eta(capsys):
    code = main(["bmap", "avrachenkov-example.json", "--modes", "3,1", "--optimize", "--json", "--progress"])
    err = capsys.readouterr().err
    assert code == 0 and "bmap: mode sets" in err and "1/1" in err
