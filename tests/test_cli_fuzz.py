"""Fuzz of the console script (issue 12): generated bad inputs for every
computing subcommand and for model files, run in-process through
``crawlmath.cli.main``.  Whatever the input: no traceback, no exit 1 (reserved
for FAILed claims) or 70 (a bug), no hang, and an exit-0 output holds no nan/inf.

Bounded: small limits (``CRAWLMATH_MAX_SECONDS``/``_MAX_MEMORY``) so large
requests are refused up front, a SIGALRM guard per example, few examples."""
import copy
import json
import math
import os
import re
import signal

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from crawlmath.cli import main
from crawlmath.commands._common import non_finite
from crawlmath.numeric.bmap import read_spec
from crawlmath.numeric.validate import MEMORY_ENV, SECONDS_ENV

GUARD_SECONDS = 30  # a run longer than this is a hang: the caps must refuse it first
BAD = ["0", "-1", "nan", "inf", "-inf", "1e-320", "1e-300", "1e300", "1e400", "abc", "", "1e12", "1000000000",
       "18446744073709551616", "0.5", "2.7", "1,2", "-0", "0x10", "1_0", "∞", "2", "3"]
VALUES = st.sampled_from(BAD)
SETTINGS = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

BASE = {
    "static": ["--lam", "0.01", "--mu", "1", "--gamma", "0.5", "--K", "10"],
    "mdp": ["--lam", "0.1", "--mu", "1", "--K", "3", "--N", "4", "--gamma", "1"],
    "schedule": ["--rates", "0.5,1,2", "--access", "exp:1"],
    "colours": ["--K", "5", "--C", "8"],
    "bmap": ["avrachenkov-example.json", "--K", "2", "--modes", "3,1", "--thresholds", "1"],
}
EXTRA = {  # options whose values are fuzzed besides the base ones
    "static": {"--digits": VALUES},
    "mdp": {"--method": st.sampled_from(["exact", "rvi", "bogus"]), "--tau": VALUES, "--digits": VALUES},
    "schedule": {"--weights": st.sampled_from(BAD + ["1e308,1,1", "1,2,3", "1,1e-10,1e10"]),
                 "--access": st.sampled_from(["exp:1e-320", "det:1e300", "gamma:36,0.25", "uniform:2,1", "hyperexp:2,1,-1,1",
                                              "exp", "det:", "gamma:1", "bogus:1", "exp:nan"]),
                 "--policy": st.sampled_from(["optimal", "randomized", "golden", "x"]), "--k": VALUES},
    "colours": {"--dist": st.sampled_from(["uniform", "geometric:1e-320", "normal:0,0", "poisson:1e300", "powerlaw:nan",
                                           "powerlaw:1e308", "bogus", "geometric:"]),
                "--exact": st.sampled_from(["chain", "product", "x"]), "--simulate": VALUES, "--seed": VALUES,
                "--strategy": st.sampled_from(["none", "mice", "mice:nan", "randomized:2", "recommended:-1", "greedy:1", "x"])},
    "bmap": {"--optimize": st.just(None), "--convention": st.sampled_from(["paper", "strict", "nonstrict", "x"]),
             "--solver": st.sampled_from(["auto", "sparse", "block", "qbd", "structured", "x"])},
}


class Hang(BaseException):
    """Raised by the alarm; a BaseException so no handler in crawlmath swallows it."""


@pytest.fixture(scope="module", autouse=True)
def small_limits():
    saved = {k: os.environ.get(k) for k in (MEMORY_ENV, SECONDS_ENV)}
    os.environ.update({MEMORY_ENV: "1G", SECONDS_ENV: "20"})
    yield
    for k, v in saved.items():
        os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)


def _alarm(signum, frame):
    raise Hang


def run_guarded(argv, capsys):
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(GUARD_SECONDS)
    try:
        code = main(argv)
    except Hang:
        pytest.fail(f"hang (> {GUARD_SECONDS} s): crawlmath {' '.join(argv)}")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    out, err = capsys.readouterr()
    return code, out, err


def check(argv, capsys):
    code, out, err = run_guarded(argv, capsys)
    shown = "crawlmath " + " ".join(map(repr, argv))
    assert "Traceback" not in err, f"{shown}\n{err}"
    assert code in (0, 2, 3, 4), f"{shown}: exit {code}\n{err}"
    errors = [line for line in err.splitlines() if not line.startswith("crawlmath: warning:")]
    assert code == 0 or len(errors) == 1, f"{shown}: {err!r}"
    if code == 0 and "--json" in argv:
        data = json.loads(out, parse_constant=lambda c: pytest.fail(f"{shown}: JSON holds {c}"))
        assert non_finite(data) is None, shown
    elif code == 0:
        legit = re.sub(r"K ?= ?inf\b", "", out)  # the static model's K = inf is an input, not a result
        assert not re.search(r"\b(nan|-?inf)\b", legit), f"{shown}\n{out}"


def argv_for(command):
    base = BASE[command]
    options = [base[i] for i in range(len(base)) if base[i].startswith("--")]
    fuzzable = options + list(EXTRA[command])

    @st.composite
    def build(draw):
        chosen = draw(st.lists(st.sampled_from(fuzzable), min_size=1, max_size=3, unique=True))
        argv = list(base)
        for opt in chosen:
            value = draw(EXTRA[command].get(opt, VALUES))
            if opt in argv:
                i = argv.index(opt)
                if value is None or draw(st.booleans()) and draw(st.booleans()):
                    del argv[i:i + 2]  # sometimes drop a required option altogether
                else:
                    argv[i + 1] = value
            else:
                argv += [opt] if value is None else [opt, value]
        if draw(st.booleans()):
            argv.append("--json")
        return [command] + argv

    return build()


@pytest.mark.parametrize("command", sorted(BASE))
def test_fuzz_subcommand(command, capsys):
    @SETTINGS
    @given(argv_for(command))
    def inner(argv):
        check(argv, capsys)

    inner()


# --- model files --------------------------------------------------------------------

BAD_NODES = [None, 5, -1, 2.7, "abc", [], {}, [[1, 2], [3]], 1e-320, 10**9, True, {"c_bogus": 1}, [[[-1]]]]


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list) and len(obj) < 6:
        for i, v in enumerate(obj):
            yield from _paths(v, prefix + (i,))


def _set(obj, path, value):
    if not path:
        return value
    target = obj
    for p in path[:-1]:
        target = target[p]
    target[path[-1]] = value
    return obj


@pytest.mark.parametrize("name", ["avrachenkov-example.json", "avrachenkov-real.json"])
def test_fuzz_model_files(name, tmp_path_factory, capsys):
    paths = list(_paths(read_spec(name)))
    folder = tmp_path_factory.mktemp("models")

    @SETTINGS
    @given(st.lists(st.tuples(st.sampled_from(paths), st.sampled_from(BAD_NODES + ["rename"])), min_size=1, max_size=3))
    def inner(edits):
        spec = read_spec(name)
        for path, value in edits:
            try:
                if value == "rename" and path and isinstance(path[-1], str):
                    parent = spec
                    for p in path[:-1]:
                        parent = parent[p]
                    parent[path[-1].capitalize() + "x"] = parent.pop(path[-1])
                else:
                    spec = _set(spec, path, copy.deepcopy(value))  # BAD_NODES are shared between examples
            except (KeyError, IndexError, TypeError):
                continue  # an earlier edit removed this path
        f = folder / "m.json"
        f.write_text(json.dumps(spec))
        check(["bmap", str(f), "--K", "2", "--json"], capsys)

    inner()


def test_json_gate_refuses_non_finite():
    assert non_finite({"x": [1.0, math.inf]}) == ("x[1]", math.inf)


# --- issue 33: every subcommand from its own parser, hostile files, the output confined ----------------

HEAVY = {"verify", "report", "codegen", "sweep"}  # whole-repository work: hostile cases of their own below
HOSTILE = BAD + ["9" * 400, "-", "--", "1e308", "1e-308", "4e-324", "0.001", "1K", "8G", "nan,1", "1,,2", " 1", "λ",
                 "\x00", "x" * 2000, "1" * 25]
LIMIT_VALUES = ["0", "-1", "nan", "inf", "1e400", "0.001", "1K", "abc", ""]
PEAK_BYTES = 64 * 2**20  # a refusal (exit 4) is decided from an estimate: it never allocates this much


def _subparsers():
    from crawlmath.cli import build_parser

    parser = build_parser()
    action = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return action.choices


@pytest.fixture(scope="module")
def hostile_folder(tmp_path_factory):
    """A working folder with every hostile file kind, a folder of the user's
    (``outside``) that nothing may touch, and links into it from places we write."""
    root = tmp_path_factory.mktemp("hostile")
    outside = root / "outside"
    outside.mkdir()
    for name in ("crawlmath_golden.c", "liu-nain-fig-1.3.png", "index.html", "x.jsonl"):
        (outside / name).write_text("the user's own file\n")
    os.mkfifo(root / "fifo.json")
    (root / "deep.json").write_text("[" * 200_000 + "]" * 200_000)
    with open(root / "huge.json", "wb") as fh:
        fh.truncate(3 * 2**30)  # sparse: 3 GiB by its size, nothing on disk
    (root / "bad.json").write_bytes(b"\xff\xfe{")
    (root / "folder.json").mkdir()
    os.symlink("/dev/zero", root / "zero.json")
    rep = root / "rep"  # a previous report whose figures folder is now a link to the user's folder
    rep.mkdir()
    (rep / ".crawlmath-report.json").write_text(json.dumps(
        {"generator": "crawlmath report", "files": ["index.html", "figures/liu-nain-fig-1.3.png"]}))
    os.symlink(outside, rep / "figures")
    code = root / "code"  # a user's folder holding a file of codegen's name, and a link to theirs
    code.mkdir()
    (code / "crawlmath_golden.c").write_text("my own code\n")
    os.symlink(outside / "crawlmath_golden.c", code / "crawlmath_golden.h")
    (root / "afile").write_text("a file, not a folder\n")
    return root


FILES = ["fifo.json", "deep.json", "huge.json", "bad.json", "folder.json", "zero.json", "/dev/zero", "/dev/null",
         "missing.json", "afile/x.json", "outside"]


def snapshot(folder):
    """Names, sizes, mtimes and contents of every file under ``folder`` (links not followed)."""
    out = {}
    for p in sorted(folder.rglob("*")):
        st = p.lstat()
        out[str(p.relative_to(folder))] = (st.st_size, st.st_mtime_ns, p.read_bytes() if p.is_file() else None)
    return out


def check_confined(argv, capsys, root, codes=(0, 2, 3, 4)):
    """``check`` plus: the user's folder is untouched, and an exit 4 was decided before allocating."""
    import tracemalloc

    before = snapshot(root / "outside")
    tracemalloc.start()
    try:
        code, out, err = run_guarded(argv, capsys)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    shown = "crawlmath " + " ".join(map(repr, argv))
    assert "Traceback" not in err, f"{shown}\n{err}"
    assert code in codes, f"{shown}: exit {code}\n{err}"
    errors = [line for line in err.splitlines() if not line.startswith("crawlmath: warning:")]
    assert code == 0 or len(errors) == 1, f"{shown}: {err!r}"
    assert snapshot(root / "outside") == before, f"{shown} touched the user's folder"
    if code == 4:
        assert peak < PEAK_BYTES, f"{shown}: refused as too large after allocating {peak} bytes"
    return code, out, err


def argv_from_parser(name, parser):
    """A hostile argv for subcommand ``name`` drawn from its own options: the
    documented base when there is one, then 1-3 options set to hostile values."""
    actions = [a for a in parser._actions if a.dest != "help"]

    @st.composite
    def build(draw):
        argv = list(BASE.get(name, []))
        for a in actions:  # positionals first: a hostile file where a file is expected
            if not a.option_strings and not argv:
                argv.append(draw(st.sampled_from(FILES)))
        for a in draw(st.lists(st.sampled_from([a for a in actions if a.option_strings]), max_size=3, unique=True)):
            opt = a.option_strings[-1]
            if a.nargs == 0:
                argv.append(opt)
                continue
            pool = LIMIT_VALUES if opt in ("--max-memory", "--max-seconds") else HOSTILE + FILES
            if a.choices:
                pool = [*map(str, a.choices), "bogus"]
            argv += [opt, draw(st.sampled_from(pool))]
        return [name] + argv

    return build()


@pytest.mark.parametrize("name", sorted(set(_subparsers()) - HEAVY))
def test_fuzz_every_subcommand_from_its_parser(name, hostile_folder, capsys, monkeypatch):
    """Every light subcommand, new ones included (drawn from the parser, not a list):
    documented codes, one line, nothing outside touched, exit 4 before allocating."""
    monkeypatch.chdir(hostile_folder)
    parser = _subparsers()[name]

    @settings(SETTINGS, max_examples=15)
    @given(argv_from_parser(name, parser))
    def inner(argv):
        check_confined(argv, capsys, hostile_folder)

    inner()


HOSTILE_CASES = [  # (argv, exit code): the heavy commands and the classes of issue 33, each refused up front
    (["sweep", "/dev/zero", "--out", "o.jsonl"], 2),
    (["sweep", "fifo.json", "--out", "o.jsonl"], 2),
    (["sweep", "deep.json", "--out", "o.jsonl"], 2),
    (["sweep", "huge.json", "--out", "o.jsonl"], 2),
    (["sweep", "zero.json", "--out", "o.jsonl"], 2),
    (["sweep", "bad.json", "--out", "o.jsonl"], 2),
    (["sweep", "spec.json", "--out", "/dev/null"], 2),
    (["sweep", "spec.json", "--out", "huge.json"], 2),
    (["sweep", "spec.json", "--out", "outside/x.jsonl"], 2),
    (["sweep", "spec.json", "--out", "afile/o.jsonl"], 2),
    (["sweep", "spec.json", "--out", "o.jsonl", "--workers", "100000"], 4),
    (["sweep", "spec.json", "--out", "o.jsonl", "--workers", "0"], 2),
    (["bmap", "huge.json", "--K", "2"], 2),
    (["bmap", "fifo.json", "--K", "2"], 2),
    (["bmap", "deep.json", "--K", "2"], 2),
    (["report", "--out", "rep", "--only", "liu-nain.static.fig-1.3", "--no-figures"], 2),
    (["report", "--out", "rep", "--only", "liu-nain.static.fig-1.3"], 2),
    (["report", "--out", "afile/x", "--only", "liu-nain.static.fig-1.3"], 2),
    (["report", "--out", "/dev/null", "--only", "liu-nain.static.fig-1.3"], 2),
    (["codegen", "--lang", "c", "--out", "code"], 2),
    (["codegen", "--lang", "c", "--out", "afile"], 2),
    (["codegen", "--lang", "c", "--out", "afile/x"], 2),
    (["verify", "--only", "liu-nain", "--workers", "0"], 2),
    (["verify", "--update-record"], 2),
    (["schedule", "--rates", "0.5,1,2", "--access", "det:1", "--policy", "golden", "--k", "38", "--json",
      "--max-memory", "1G", "--max-seconds", "5"], 4),
    (["schedule", "--rates", "0.5,1,2", "--access", "det:1", "--policy", "golden", "--k", "38",
      "--max-seconds", "0.001"], 4),
    (["schedule", "--rates", "0.5,1,2", "--access", "det:1", "--weights", "1e308,1e308,1e308"], 2),
    (["mdp", "--lam", "1e308", "--mu", "1", "--K", "5", "--N", "16", "--gamma", "1"], 2),
    (["mdp", "--lam", "0.1", "--mu", "1", "--K", "5", "--N", "16", "--gamma", "1", "--digits", "600"], 2),
]


@pytest.mark.parametrize("argv, code", HOSTILE_CASES, ids=[" ".join(a)[:60] for a, _ in HOSTILE_CASES])
def test_hostile_case(argv, code, hostile_folder, capsys, monkeypatch):
    monkeypatch.chdir(hostile_folder)
    (hostile_folder / "spec.json").write_text(json.dumps(
        {"command": "static", "fixed": {"mu": 1, "gamma": 0.5, "K": 10}, "grid": {"lam": [0.01, 0.02]}}))
    got, out, err = check_confined(argv, capsys, hostile_folder, codes=(code,))
    assert out == "" and err.startswith("crawlmath: ")
