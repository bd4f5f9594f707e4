"""The README is short and true: its Python quick start runs as written (doctest), every
``crawlmath`` command in it parses with the installed CLI, every relative link resolves, the test
command CI runs is the one it shows, and it stays a front page (the manual lives in docs/)."""
from __future__ import annotations

import doctest
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
TEST_COMMAND = 'pip install -e ".[test]" && python -m pytest'


def _text() -> str:
    return README.read_text(encoding="utf-8")


def _shell_lines() -> list[str]:
    """Commands of the ```bash blocks and of the `crawlmath ...` cells of the command table, comments dropped."""
    text = _text()
    lines = [line.split("  #")[0].strip() for block in re.findall(r"```bash\n(.*?)```", text, re.S)
             for line in block.splitlines() if line.strip()]
    return lines + re.findall(r"`(crawlmath [^`]+)`", text)


def test_readme_python_examples():
    result = doctest.testfile(str(README), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 5
    assert result.failed == 0


def test_readme_crawlmath_commands_parse():
    """Every `crawlmath ...` in the README is accepted by the CLI's parser (not run: some take minutes)."""
    from crawlmath.cli import UsageError, build_parser

    commands = [c for line in _shell_lines() for c in line.split("&&") if c.strip().startswith("crawlmath ")]
    assert len(commands) >= 10
    for command in commands:
        argv = shlex.split(command)[1:]
        if argv == ["--version"]:
            continue
        try:
            build_parser().parse_args(argv)
        except (SystemExit, UsageError) as exc:
            pytest.fail(f"README command does not parse: {command!r} ({exc})")


QUICK = {"static", "mdp", "schedule", "bmap", "colours", "ctmc", "avg-cost"}  # seconds each; verify, report,
# sweep and codegen take minutes or write files: their commands are parsed above, and run by their own tests


def test_readme_model_commands_run(monkeypatch, capsys):
    """The README's model commands run from the repository root, as a reader of a fresh clone would, and exit 0."""
    from crawlmath.cli import main

    monkeypatch.chdir(ROOT)
    commands = [shlex.split(c.strip())[1:] for line in _shell_lines() for c in line.split("&&")
                if c.strip().startswith("crawlmath ") and shlex.split(c.strip())[1:2] and shlex.split(c.strip())[1] in QUICK]
    assert {argv[0] for argv in commands} == QUICK
    for argv in commands:
        code = main(argv)
        assert code == 0, f"crawlmath {' '.join(argv)} exited {code}: {capsys.readouterr().err.strip()}"


def test_readme_relative_links_resolve():
    links = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", _text())
    assert links
    missing = [link for link in links if not (ROOT / link).exists()]
    assert not missing


def test_readme_test_command_is_what_ci_runs():
    """CI (.ci/run) installs the test extra and runs `python -m pytest`: the README shows that command."""
    assert TEST_COMMAND in _text()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'pip install --quiet -e ".[test]"' in ci and re.search(r"^python -m pytest\s*$", ci, re.M)


def test_readme_is_a_front_page():
    """Issue 35: about 150 lines, no performance or kernel history (that lives in docs/performance and docs/design)."""
    text = _text()
    assert len(text.splitlines()) <= 160
    for word in ("GB/s", "matvec", "roofline", "## Performance", "## JSON output"):
        assert word not in text, word
