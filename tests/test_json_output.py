"""Every subcommand's ``--json`` output, the sweep file's lines, a report's
results.json and proofs/verdicts.json validate against the JSON Schemas in
crawlmath/schemas/ (issue 35 item 3; issue 14: ``inputs`` echoes every
argument as parsed).  The schemas are closed where the output is closed, so an
unknown, missing or mistyped key fails here; each run below is real.  The
progress bar is quiet under --json and leaves results unchanged."""
from __future__ import annotations

import argparse
import functools
import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from jsonschema import Draft202012Validator

from crawlmath.cli import build_parser, main

DATA = Path(__file__).resolve().parent / "data"
SCHEMAS = resources.files("crawlmath") / "schemas"
RECORD_SCHEMAS = {"sweep-record", "verdicts", "report-results"}  # files, not a subcommand's stdout


def schema(name: str) -> dict:
    return json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))


def validate(name: str, document) -> None:
    """Raise the most relevant ValidationError (with its JSON path) if ``document`` breaks schema ``name``."""
    error = jsonschema.exceptions.best_match(Draft202012Validator(schema(name)).iter_errors(document))
    if error is not None:
        raise error


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def run_json(capsys, argv: list[str], codes=(0,)) -> object:
    code = main(argv)
    captured = capsys.readouterr()
    assert code in codes, captured.err
    assert captured.err == "", "progress or messages on stderr under --json"
    return json.loads(captured.out)


def parsed(argv: list[str]) -> set[str]:
    """The arguments argparse gives the subcommand (what `inputs` must echo)."""
    ns = build_parser().parse_args(argv)
    return {k for k in vars(ns) if k not in ("json", "_run", "command")}


CASES = {  # every shape of every subcommand's output that a schema distinguishes
    "static": ["static", "--lam", "0.01", "--mu", "1", "--gamma", "0.5", "--K", "inf", "--json"],
    "static-digits": ["static", "--lam", "0.1", "--mu", "1", "--gamma", "0.5", "--K", "10", "--digits", "12", "--json"],
    "mdp-rvi-digits": ["mdp", "--lam", "0.1", "--K", "3", "--N", "4", "--gamma", "1.4", "--method", "rvi", "--digits", "12", "--json"],
    "mdp-exact": ["mdp", "--lam", "0.1", "--K", "3", "--N", "4", "--gamma", "1.4", "--json", "--max-seconds", "60"],
    "bmap": ["bmap", "avrachenkov-example.json", "--modes", "3,1", "--thresholds", "2", "--json"],
    "bmap-optimize": ["bmap", "avrachenkov-example.json", "--modes", "3,1", "--optimize", "--json"],
    "schedule-golden": ["schedule", "--rates", "0.5,1,2", "--access", "det:1", "--policy", "golden", "--k", "6", "--json"],
    "schedule-optimal": ["schedule", "--rates", "0.5,1,2", "--access", "exp:1", "--json"],
    "schedule-randomized": ["schedule", "--rates", "0.5,1,2", "--access", "gamma:2,2", "--policy", "randomized", "--json"],
    "colours-chain": ["colours", "--K", "5", "--C", "6", "--exact", "--json"],
    "colours-product": ["colours", "--K", "20", "--C", "40", "--dist", "powerlaw:1.1", "--exact", "product", "--json"],
    "colours-simulate": ["colours", "--K", "5", "--C", "6", "--simulate", "2000", "--seed", "1", "--json"],
    "ctmc": ["ctmc", str(DATA / "storm_mm1k3.drn"), "--json"],
    "ctmc-digits": ["ctmc", str(DATA / "mm1k3.json"), "--digits", "20", "--json"],
    "avg-cost": ["avg-cost", str(DATA / "storm_admission.drn"), "--json"],
    "avg-cost-digits": ["avg-cost", str(DATA / "storm_admission.drn"), "--digits", "20", "--json"],
}


@pytest.fixture(scope="module")
def outputs():
    """Each case's output, run once for the tests below."""
    return {}


def output_of(capsys, outputs, case: str) -> dict:
    if case not in outputs:
        outputs[case] = run_json(capsys, CASES[case])
    return outputs[case]


def test_every_schema_is_valid_draft_2020_12_and_names_itself():
    files = sorted(p.name for p in SCHEMAS.iterdir() if p.name.endswith(".schema.json"))
    assert files, "no schema files installed"
    for name in files:
        s = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
        Draft202012Validator.check_schema(s)
        assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert s["$id"].endswith("/" + name) and s["title"] and s["description"]
    assert {n.removesuffix(".schema.json") for n in files} == set(subcommands()) | RECORD_SCHEMAS


@pytest.mark.parametrize("command", sorted(set(subcommands()) - {"verify"}))
def test_inputs_schema_lists_exactly_the_parsed_arguments(command):
    """The schema of ``inputs`` cannot go stale: its keys are the subcommand's
    argparse destinations (plus ``units``), and each option with choices
    lists the same values."""
    props = schema(command)["properties"]["inputs"]["properties"]
    actions = {a.dest: a for a in subcommands()[command]._actions if a.dest not in ("help", "json")}
    assert set(props) - {"units"} == set(actions)
    for dest, a in actions.items():
        if a.choices is not None:
            allowed = set(props[dest]["enum"]) - {None}
            assert allowed == set(a.choices), dest
        if isinstance(a, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
            assert props[dest]["type"] == "boolean", dest


@pytest.mark.parametrize("case", sorted(CASES))
def test_output_validates_and_echoes_every_argument(capsys, outputs, case):
    argv = CASES[case]
    out = output_of(capsys, outputs, case)
    validate(argv[0], out)
    echo = dict(out["inputs"])
    units = echo.pop("units")
    assert set(echo) == parsed(argv)
    assert set(units) <= set(echo) and all(isinstance(u, str) and u for u in units.values())


# one value per case of a type its schema forbids: a number where --digits demands decimal text, or the reverse
RETYPED = {"static-digits": ("rho_opt", 0.887), "mdp-rvi-digits": ("gain", "0.873"), "bmap": ("cost", "63.5"),
           "colours-chain": ("p_new", "0.46"), "ctmc-digits": ("pi", [0.7, 0.2, 0.07, 0.03]), "avg-cost-digits": ("gain", 0.667)}


@pytest.mark.parametrize("case", sorted(RETYPED))
def test_schemas_refuse_what_the_output_must_not_be(capsys, outputs, case):
    """A schema that accepts anything cannot catch a regression: an unknown key,
    a missing key, an unknown argument and a value of the wrong type must each be refused."""
    command, out = CASES[case][0], output_of(capsys, outputs, case)
    key, value = RETYPED[case]
    for broken in ({**out, "unknown_key": 1},
                   {k: v for k, v in out.items() if k != "inputs"},
                   {**out, "inputs": {**out["inputs"], "unknown_option": None}},
                   {**out, key: value}):
        with pytest.raises(jsonschema.ValidationError):
            validate(command, broken)


def test_echoed_values_are_the_parsed_arguments(capsys, outputs):
    out = output_of(capsys, outputs, "static")["inputs"]
    assert (out["lam"], out["mu"], out["gamma"], out["K"]) == (0.01, 1.0, 0.5, "inf")
    hp = output_of(capsys, outputs, "static-digits")
    assert hp["inputs"]["lam"] == "0.1" and isinstance(hp["rho_opt"], str)  # exact decimals in, strings out
    mdp = output_of(capsys, outputs, "mdp-rvi-digits")
    assert mdp["inputs"]["tau"] == mdp["tau"] and mdp["inputs"]["reference"] is None
    assert isinstance(mdp["gain_hp"]["value"], str) and isinstance(mdp["gain"], float)
    assert output_of(capsys, outputs, "mdp-exact")["inputs"]["max_seconds"] == "60"
    sched = output_of(capsys, outputs, "schedule-golden")["inputs"]
    assert sched["rates"] == [0.5, 1.0, 2.0] and sched["k"] == 6 and sched["weights"] is None
    bmap = output_of(capsys, outputs, "bmap")["inputs"]
    assert (bmap["modes"], bmap["thresholds"], bmap["K"]) == ([3, 1], [2], 5)
    opt = output_of(capsys, outputs, "bmap-optimize")
    assert opt["inputs"]["optimize"] is True and opt["inputs"]["modes"] == [3, 1]


def test_codegen_json_in_all_four_shapes(capsys, tmp_path, monkeypatch):
    from crawlmath.derive import codegen

    monkeypatch.setattr(codegen, "formulas_of", functools.cache(codegen.formulas_of))  # derive once for the four runs
    out = run_json(capsys, ["codegen", "--check", "--json"], codes=(0, 1))  # 1: stale code is reported, not an error
    validate("codegen", out)
    assert out["inputs"] == {"lang": "python", "model": None, "out": None, "check": True, "force": False,
                             "stable_form": False}
    c = tmp_path / "c"
    written = run_json(capsys, ["codegen", "--lang", "c", "--out", str(c), "--json"])
    validate("codegen", written)
    checked = run_json(capsys, ["codegen", "--lang", "c", "--out", str(c), "--check", "--json"])
    validate("codegen", checked)
    assert written["written"] and checked["clean"] is True and checked["stale"] == []
    with pytest.raises(jsonschema.ValidationError):  # a check's key in an export's output
        validate("codegen", {**written, "clean": True})
    # the python generator (no --check) would rewrite the committed modules: its writer is stubbed, its output real
    monkeypatch.setattr(codegen, "generate", lambda: [])
    validate("codegen", run_json(capsys, ["codegen", "--json"]))


def test_codegen_model_json_written_and_checked(capsys, tmp_path):
    """``codegen --model FILE``: a user's model (here M/M/1/K with the loss weighted twice), written then checked."""
    model = tmp_path / "doubled.json"
    model.write_text(json.dumps({"kind": "static-mm1k", "name": "doubled", "service": "mu", "capacity": "K",
                                 "weights": {"idle": "gamma", "loss": 2}}))
    written = run_json(capsys, ["codegen", "--model", str(model), "--lang", "latex", "--out", str(tmp_path / "tex"), "--json"])
    validate("codegen", written)
    checked = run_json(capsys, ["codegen", "--model", str(model), "--lang", "latex", "--out", str(tmp_path / "tex"),
                                "--check", "--json"])
    validate("codegen", checked)
    assert written["kind"] == "static-mm1k" and written["formulas"] and checked["clean"] is True
    with pytest.raises(jsonschema.ValidationError):  # a model run without the formulas it derived
        validate("codegen", {k: v for k, v in written.items() if k != "formulas"})


def test_report_json_and_its_results_file(capsys, tmp_path):
    claims = ["liu-nain.static.eq-1.8", "liu-nain.static.table-1.1.g0.5.K10"]
    argv = ["report", "--out", str(tmp_path / "r"), "--no-figures", "--json"] + [a for c in claims for a in ("--only", c)]
    rep = run_json(capsys, argv, codes=(0, 1))
    validate("report", rep)
    assert rep["inputs"]["only"] == claims and rep["inputs"]["figures"] is False
    results = json.loads((tmp_path / "r" / "results.json").read_text(encoding="utf-8"))
    validate("report-results", results)
    assert {r["id"] for r in results["results"]} == set(claims)


def test_verify_json_rows_and_list(capsys):
    ids = ["liu-nain.static.eq-1.8", "liu-nain.static.table-1.1.g0.5.K10"]  # an ERRATUM and a table cell
    rows = run_json(capsys, ["verify", "--workers", "1", "--json"] + [a for i in ids for a in ("--only", i)], codes=(0, 1))
    validate("verify", rows)
    assert {r["status"] for r in rows} == {"ERRATUM", "PASS"} and any("cell" in r for r in rows)
    with pytest.raises(jsonschema.ValidationError):  # an ERRATUM must carry its printed and corrected forms
        validate("verify", [{k: v for k, v in r.items() if k != "erratum"} for r in rows])
    listed = run_json(capsys, ["verify", "--only", "liu-nain.static.eq-1", "--list", "--json"])
    validate("verify", listed)
    assert all(set(r) == {"id", "source", "statement", "method"} for r in listed)


def test_verdict_record_validates():
    from crawlmath.proofs import record
    from crawlmath.proofs.registry import PAPERS

    document = json.loads(record.PATH.read_text(encoding="utf-8"))
    validate("verdicts", document)
    pattern = schema("verdicts")["properties"]["claims"]["propertyNames"]["pattern"]
    assert pattern.startswith("^(" + "|".join(PAPERS) + ")"), "claim ids start with a paper key of the registry"
    with pytest.raises(jsonschema.ValidationError):
        validate("verdicts", {**document, "claims": {**document["claims"], "liu-nain.static.eq-1.8": "OK"}})


def test_sweep_file_lines_and_summary(capsys, tmp_path):
    """A sweep with a good and a refused point: the header, both records, each
    ok record's command object (against the command's own schema) and the
    CLI summary of a resumed run (every point present: no engine starts)."""
    from dask.distributed import Client

    from crawlmath import sweep as S

    spec_file = tmp_path / "grid.json"
    spec_file.write_text(json.dumps({"command": "static", "fixed": {"mu": 1, "gamma": 0.5, "K": 10},
                                     "grid": {"lam": [0.01, -1]}}), encoding="utf-8")
    out = tmp_path / "grid.jsonl"
    with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
        S.run_sweep(S.load_spec(spec_file), out, client=client)
    header, *records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    for line in [header, *records]:
        validate("sweep-record", line)
    assert header["_sweep"] == S.FORMAT and sorted(r["_exit"] for r in records) == [0, 2]
    command_keys = set(schema("static")["properties"])
    for r in records:
        if r["_status"] == "ok":
            validate("static", {k: v for k, v in r.items() if k in command_keys})
    with pytest.raises(jsonschema.ValidationError):
        validate("sweep-record", {**records[0], "_private": 1})  # a key of ours that is not reserved
    summary = run_json(capsys, ["sweep", str(spec_file), "--out", str(out), "--json"])
    validate("sweep", summary)
    assert (summary["points"], summary["present"], summary["written"], summary["complete"]) == (2, 2, 0, True)


def test_rendered_reference_page_is_current():
    """docs/reference/json-output.md is rendered from the schemas, never typed: rerun
    ``python docs/reference/json_output.py`` after changing a schema."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "docs" / "reference" / "json_output.py"
    spec = importlib.util.spec_from_file_location("json_output_page", path)
    page = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(page)
    text = page.render()
    assert page.PAGE.read_text(encoding="utf-8") == text, "stale: run python docs/reference/json_output.py"
    for name in page.ORDER:  # every schema has its section, every top-level key its row
        assert f"`crawlmath/schemas/{name}.schema.json`" in text
        assert all(f"| `{key}` |" in text for key in schema(name).get("properties", {}))
    assert "| `gain_hp.bounds` | [decimal string, decimal string] | conditional |" in text


def test_progress_callback_leaves_the_simulation_unchanged():
    from crawlmath.numeric.colours import colour_distribution, simulate

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
