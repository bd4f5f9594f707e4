"""Issue 33: limits that hold everywhere -- cost models checked before work,
bounded input files, writes confined to our own files, signals from the
first instant, typed errors from the Python API."""
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from crawlmath.api import optimal_frequencies, verify
from crawlmath.commands import _common
from crawlmath.numeric.scheduling import _frequencies as s
from crawlmath.numeric.errors import InvalidInput, TooLarge
from crawlmath.numeric.validate import limits, max_memory, max_seconds, nesting_depth, parse_document, read_input_file
from crawlmath.safe_paths import Manifest, inside


# --- cost models -------------------------------------------------------------------


def test_golden_estimate_is_linear_in_the_cycle_and_refuses_before_allocating():
    b20, t20 = s.golden_estimate(20)
    b30, t30 = s.golden_estimate(30)
    assert b30 / b20 == pytest.approx(s.fibonacci(30) / s.fibonacci(20)) and t30 / t20 == pytest.approx(b30 / b20)
    with limits(memory="1G"), pytest.raises(TooLarge, match="F_38 = 39088169"):
        s.golden_schedule([0.5, 0.5], 38)  # 3 GiB estimated: refused, nothing built
    with limits(seconds=0.001), pytest.raises(TooLarge, match="over the limit"):
        s.golden_schedule([0.5, 0.5], 30)
    assert s.golden_schedule([0.5, 0.5], 10).F == 55  # small cycles are unaffected


def test_limits_block_is_restored():
    before = (max_memory(), max_seconds())
    with limits(memory="123M", seconds=7):
        assert (max_memory(), max_seconds()) == (123 * 2**20, 7.0)
    assert (max_memory(), max_seconds()) == before


def test_mdp_digits_cap_is_what_the_refinement_delivers():
    from crawlmath.commands import mdp

    assert mdp._refinement_steps(mdp.MAX_DIGITS) <= mdp.REFINE_MAX_STEPS


# --- the JSON gate -------------------------------------------------------------------


def test_non_finite_checks_arrays_whole():
    assert _common.non_finite({"a": np.array([[1.0, 2.0], [np.nan, 3.0]])}) == ("a[1][0]", pytest.approx(np.nan, nan_ok=True))
    assert _common.non_finite({"seq": np.arange(10)}) is None
    assert _common.non_finite({"seq": list(range(10)), "x": [1.0, float("inf")]}) == ("x[1]", float("inf"))


# --- input files ---------------------------------------------------------------------


def test_read_input_file_refuses_before_reading(tmp_path):
    os.mkfifo(tmp_path / "f")
    with open(tmp_path / "big", "wb") as fh:
        fh.truncate(2**20 + 1)
    (tmp_path / "ok.json").write_text('{"a": 1}')
    for path, words in [(tmp_path / "f", "FIFO"), ("/dev/zero", "character device"), (tmp_path, "folder"),
                        (tmp_path / "big", "more than an input file may hold"), (tmp_path / "none", "cannot be read")]:
        with pytest.raises(InvalidInput, match=words):
            read_input_file(path, "SPEC", max_bytes=2**20)
    assert read_input_file(tmp_path / "ok.json", "SPEC") == '{"a": 1}'


@pytest.mark.parametrize("text, kind, words", [
    ("[" * 200_000 + "]" * 200_000, "JSON", "nested too deeply"),
    ("[" * 70 + "]" * 70, "JSON", "nested 70 deep"),
    ("a = " + "[" * 70 + "]" * 70, "TOML", "nested 71 deep"),
    ("{", "JSON", "not valid JSON"),
    ("a = ", "TOML", "not valid TOML"),
])
def test_parse_document_bounds_nesting(text, kind, words):
    with pytest.raises(InvalidInput, match=words):
        parse_document(text, "SPEC", kind)


def test_nesting_depth_needs_no_recursion():
    deep = []
    for _ in range(100_000):
        deep = [deep]
    assert nesting_depth(deep) == 100_001 and nesting_depth({"a": [1, {"b": []}]}) == 4


# --- writes confined to our own files ------------------------------------------------


def test_inside_refuses_links_below_the_folder(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(tmp_path / "elsewhere", out / "figures")
    os.symlink(tmp_path / "elsewhere" / "x", out / "file.c")
    for rel in ("figures/a.png", "file.c", "../x", "/etc/passwd"):
        with pytest.raises(InvalidInput):
            inside(out, rel)
    assert inside(out, "index.html") == out / "index.html"
    linked = tmp_path / "named"  # the folder the user names may itself be a link
    os.symlink(out, linked)
    assert inside(linked, "index.html") == linked / "index.html"


def test_manifest_tells_ours_from_theirs_and_from_edits(tmp_path):
    m = Manifest(tmp_path, ".m.json", "crawlmath codegen")
    (tmp_path / "a.c").write_text("ours")
    (tmp_path / "b.c").write_text("theirs")
    (tmp_path / ".m.json").write_text(m.text({"a.c": "ours"}))
    m = Manifest(tmp_path, ".m.json", "crawlmath codegen")
    assert m.foreign(["a.c", "b.c", "c.c"]) == ["b.c"]
    (tmp_path / "a.c").write_text("ours, edited by the user")
    assert m.foreign(["a.c"]) == ["a.c"]
    assert Manifest(tmp_path, ".m.json", "another generator").foreign(["a.c"]) == ["a.c"]


def test_codegen_refuses_a_users_file_before_deriving(tmp_path, monkeypatch):
    from crawlmath.commands import codegen

    (tmp_path / "crawlmath_golden.c").write_text("my own code\n")
    monkeypatch.setattr("crawlmath.derive.codegen.formulas_of", lambda m: pytest.fail("derived before refusing"))
    args = type("A", (), {"lang": "c", "out": str(tmp_path), "check": False, "force": False, "json": False,
                          "stable_form": False, "model": None})()
    with pytest.raises(InvalidInput, match="crawlmath_golden.c exists and was not written by crawlmath codegen"):
        codegen.run(args)
    assert (tmp_path / "crawlmath_golden.c").read_text() == "my own code\n"


def test_report_refuses_a_linked_figures_folder(tmp_path):
    from crawlmath.report.build import MANIFEST, check_destination

    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "liu-nain-fig-1.3.png").write_text("the user's")
    rep = tmp_path / "rep"
    rep.mkdir()
    (rep / MANIFEST).write_text(json.dumps({"generator": "crawlmath report", "files": ["figures/liu-nain-fig-1.3.png"]}))
    os.symlink(theirs, rep / "figures")
    with pytest.raises(InvalidInput, match="figures is a symbolic link"):
        check_destination(rep)
    assert (theirs / "liu-nain-fig-1.3.png").read_text() == "the user's"


# --- signals --------------------------------------------------------------------------


def test_sigint_held_during_cluster_start_is_delivered_after():
    with pytest.raises(KeyboardInterrupt):
        with _common.signals_held(signal.SIGINT):
            os.kill(os.getpid(), signal.SIGINT)
            reached = True  # the signal waits: the block runs to its end
    assert reached


def test_json_write_holds_interrupts_until_the_document_is_out(capsys):
    with pytest.raises(KeyboardInterrupt):
        with _signal_during_write():
            _common.print_json({"a": list(range(1000))})
    assert json.loads(capsys.readouterr().out)["a"][-1] == 999


class _signal_during_write:
    """SIGINT raised from inside sys.stdout.write (as a slow pipe would see it)."""

    def __enter__(self):
        self.write = sys.stdout.write

        def write(text):
            os.kill(os.getpid(), signal.SIGINT)
            return self.write(text)

        sys.stdout.write = write

    def __exit__(self, *exc):
        sys.stdout.write = self.write


def test_sigterm_is_an_interrupt_from_the_console_script():
    code = ("import os, signal, sys, time; from crawlmath.cli import install_signal_handlers\n"
            "install_signal_handlers()\n"
            "try:\n    os.kill(os.getpid(), signal.SIGTERM); time.sleep(5)\n"
            "except KeyboardInterrupt:\n    sys.exit(130)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 130, r.stderr  # an interrupt the command cleans up after, not a kill (-15)


def test_unencodable_output_is_escaped():
    r = subprocess.run([sys.executable, "-m", "crawlmath", "mdp", "--help"], capture_output=True, text=True,
                       env={**os.environ, "PYTHONIOENCODING": "ascii"}, timeout=60)
    assert r.returncode == 0 and "\\u03bb" in r.stdout


# --- the Python API: crawlmath's typed errors only ----------------------------------------


class _Huge:
    def __len__(self):
        return 10**9


@pytest.mark.parametrize("args, error, words", [
    (([1, 2], None), InvalidInput, "access: must be a text"),
    (([1, 2j], "det:1"), InvalidInput, "not complex"),
    (("12", "det:1"), InvalidInput, "sequence or array"),
    ((None, "det:1"), InvalidInput, "sequence or array"),
    (([True, False], "det:1"), InvalidInput, "not bool"),
    (([1, float("nan")], "det:1"), InvalidInput, r"rates\[1\]: entries must be finite"),
    (([1, float("inf")], "det:1"), InvalidInput, "finite"),
    (([], "det:1"), InvalidInput, "non-empty"),
    (([1, 2], "bogus:1"), InvalidInput, "^access: kind"),
    (([1, 2], "exp:1e-320"), InvalidInput, "E.X. = inf"),
    (([1e308, 1], "det:1"), InvalidInput, r"^rates\[0\]"),
    (([1, 2], "det:1", ["a", "b"]), InvalidInput, "^weights"),
    (([1, 2], "det:1", [1]), InvalidInput, "one entry per page"),
    ((_Huge(), "det:1"), TooLarge, "1000000000 entries"),
])
def test_optimal_frequencies_raises_typed_errors(args, error, words):
    with limits(memory="1G"), pytest.raises(error, match=words):
        optimal_frequencies(*args)


def test_verify_api_refuses_bad_prefixes():
    with pytest.raises(InvalidInput, match="prefixes"):
        verify(None)
    with pytest.raises(InvalidInput, match="match no claim"):
        verify("no-such-paper.")


def test_estimates_benchmark_uses_the_commands_own_models(tmp_path):
    """benchmarks/estimates.py compares the commands' own estimates (not copies) with measured runs."""
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "estimates.py"
    spec = importlib.util.spec_from_file_location("crawlmath_benchmark_estimates", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    argv, nbytes, seconds = bench.golden(30, json=True)
    F = s.fibonacci(30)
    from crawlmath.commands import schedule

    assert (nbytes, seconds) == (s.GOLDEN_BYTES_PER_ACCESS * F + schedule.JSON_BYTES_PER_ACCESS * F,
                                 s.GOLDEN_SECONDS_PER_ACCESS * F + schedule.JSON_SECONDS_PER_ACCESS * F)
    if Path(bench.TIME).exists():
        rss, wall = bench.measure(bench.static(10)[0], str(tmp_path))
        assert rss > 2**20 and wall > 0


@pytest.mark.parametrize("call, error, words", [
    (lambda g: g.H_curve(points=10**12), TooLarge, "points"),
    (lambda g: g.profile_max([1.0] * 1000, points=10**9), TooLarge, "1000 x 1000000000"),
    (lambda g: g.adversarial_ratio_curve(j=5000), TooLarge, "pages"),
    (lambda g: g.adversarial_ratio_curve(qs=[1.0] * 10**6), TooLarge, "golden cycles"),
    (lambda g: g.adversarial_ratio_curve(k=40), TooLarge, "must be <= 38"),
    (lambda g: g.H_curve(points="x"), InvalidInput, "integer"),
])
def test_golden_figures_are_bounded(call, error, words):
    from crawlmath.numeric.scheduling import _golden as golden

    with limits(memory="8G", seconds=600), pytest.raises(error, match=words):
        call(golden)


def test_scheduling_api_costs_simulations_and_fibonacci_up_front():
    from crawlmath.numeric.scheduling import parse_access

    p = s.make_problem([0.5, 1, 2], parse_access("exp:1"))
    seq = s.golden_schedule(s.optimal_frequencies(p).frequencies, 12).sequence
    with limits(memory="8G", seconds=600):
        with pytest.raises(TooLarge, match="cycles of"):
            s.simulate(seq, p, 10**9)
        with pytest.raises(TooLarge, match="digits"):
            s.fibonacci(10**12)  # would loop for hours
    assert s.fibonacci(40) == 102334155


def test_report_swap_never_overwrites_a_file_no_report_wrote(tmp_path):
    from crawlmath.report.build import MANIFEST, _swap

    out, tmp = tmp_path / "rep", tmp_path / "tmp"
    (out / "figures").mkdir(parents=True)
    (out / MANIFEST).write_text(json.dumps({"generator": "crawlmath report", "files": ["index.html"]}))
    (out / "index.html").write_text("old report")
    (out / "figures" / "a.png").write_text("the user's picture")
    (tmp / "figures").mkdir(parents=True)
    (tmp / "index.html").write_text("new report")
    (tmp / "figures" / "a.png").write_text("our figure")
    with pytest.raises(InvalidInput, match="figures/a.png exists but no previous report wrote it"):
        _swap(tmp, out)
    assert (out / "figures" / "a.png").read_text() == "the user's picture"
    assert (out / "index.html").read_text() == "old report"  # refused before anything moved
    _swap(tmp, out, force=True)
    assert (out / "figures" / "a.png").read_text() == "our figure"
