"""``crawlmath ctmc`` and ``crawlmath avg-cost``: output, --json and exit codes."""
from __future__ import annotations

import json
import os
from fractions import Fraction
from pathlib import Path

from crawlmath.cli import main

DATA = Path(__file__).parent / "data"


def run(capsys, argv):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_ctmc_digits_json(capsys):
    code, out, err = run(capsys, ["ctmc", str(DATA / "storm_mm1k3.drn"), "--digits", "30", "--json"])
    assert code == 0 and err == ""
    d = json.loads(out)
    rho = Fraction(3, 10)
    busy = 1 - 1 / sum(rho ** k for k in range(4))
    assert abs(Fraction(d["averages"]["busy"]["value"]) - busy) <= Fraction(1, 10 ** 30)
    assert d["pi_certified"] and abs(Fraction(d["pi"][3]) - rho ** 3 * (1 - busy)) <= Fraction(1, 10 ** 31)
    assert d["inputs"]["digits"] == 30 and d["kind"] == "ctmc"


def test_avg_cost_prism_files(capsys):
    code, out, _ = run(capsys, ["avg-cost", str(DATA / "admission.tra"), "--srew", str(DATA / "admission.srew"),
                                "--trew", str(DATA / "admission.trew"), "--digits", "25", "--json"])
    d = json.loads(out)
    assert code == 0 and d["gain"] == "0.6666666666666666666666667" and d["policy"] == ["acc", "acc", "rej"]
    lo, hi = (Fraction(b) for b in d["gain_bounds"])
    assert lo <= Fraction(2, 3) <= hi


def test_exit_codes(capsys, tmp_path):
    bad = tmp_path / "bad.drn"
    bad.write_text((DATA / "storm_mm1k3.drn").read_text().replace("1 : 3/10", "1 : x"))
    code, out, err = run(capsys, ["ctmc", str(bad)])
    assert code == 2 and out == "" and err.count("\n") == 1 and "bad.drn:" in err and "'x'" in err
    assert run(capsys, ["avg-cost", str(DATA / "storm_mm1k3.drn")])[0] == 2  # a CTMC is not an MDP
    fifo = tmp_path / "f.drn"
    os.mkfifo(fifo)
    assert run(capsys, ["ctmc", str(fifo)])[0] == 2
    code, _, err = run(capsys, ["--max-memory", "1K", "ctmc", str(DATA / "storm_mm1k3.drn")])
    assert code == 4 and "limit" in err


BAD_TOKENS = ["-1", "x", "1/0", "nan", "inf", "1e400", "99", "", "0", "1/3", "@model", "state", "[", "]", "!", ":"]


def test_corrupted_files_exit_cleanly(capsys, tmp_path):
    """Every single-token corruption of the fixtures gives exit 0, 2, 3 or 4 with one line on stderr, never a
    traceback (exit 70)."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    files = [("ctmc", "storm_mm1k3.drn"), ("avg-cost", "storm_admission.drn"), ("ctmc", "mm1k3.tra"),
             ("avg-cost", "admission.tra"), ("ctmc", "mm1k3.json")]

    @settings(max_examples=80, deadline=None, database=None)
    @given(st.sampled_from(files), st.integers(0, 10 ** 6), st.sampled_from(BAD_TOKENS), st.booleans())
    def inner(target, where, token, digits):
        command, name = target
        text = (DATA / name).read_text()
        tokens = text.replace("\n", " \n ").split(" ")
        i = where % len(tokens)
        tokens[i] = token
        path = tmp_path / name
        path.write_text(" ".join(tokens).replace(" \n ", "\n"))
        code = main([command, str(path)] + (["--digits", "20"] if digits else []))
        err = capsys.readouterr().err
        assert code in (0, 2, 3, 4), err
        assert code == 0 or (err.count("\n") == 1 and "Traceback" not in err), err

    inner()


def test_pi_beyond_the_exact_check_is_certified_by_the_enclosure(capsys, monkeypatch):
    import crawlmath.commands.ctmc as C

    monkeypatch.setattr(C, "PI_EXACT_MAX", 2)
    code, out, _ = run(capsys, ["ctmc", str(DATA / "mm1k3.json"), "--digits", "25", "--json"])
    d = json.loads(out)
    assert code == 0 and d["pi_certified"] and "enclosure" in d["pi_method"]
