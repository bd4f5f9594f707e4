"""The docs run as written: every ``>>>`` example of a docs/ page (the tutorials, the API page) is a
doctest, run in one namespace per page, top to bottom (the check tests/test_readme.py makes of the
README).  A Markdown fence line (```) ends the expected output above it."""
from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts and ">>> " in p.read_text(encoding="utf-8"))
FENCE = re.compile(r"^\s*(```|:::).*$", re.MULTILINE)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def examples(page: Path) -> doctest.DocTest:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return doctest.DocTestParser().get_doctest(text, {"__name__": page.stem}, page.name, str(page), 0)


def test_every_tutorial_has_examples():
    """A tutorial is an executable page (the placeholders of tutorials still being written excepted)."""
    tutorials = {p for p in (DOCS / "tutorials").glob("*.md") if p.stem != "index"}
    placeholders = {p for p in tutorials if "Placeholder" in p.read_text(encoding="utf-8")}
    assert len(tutorials - placeholders) >= 4 and tutorials - placeholders <= set(PAGES)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_examples_run(page):
    test = examples(page)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {page.name} failed (output above)"


def test_a_fence_ends_the_expected_output(tmp_path):
    """Without the fence rule a closing ``` would be read as expected output and every example before one fail."""
    page = tmp_path / "p.md"
    page.write_text("```pycon\n>>> 1 + 1\n2\n```\n", encoding="utf-8")
    (example,) = examples(page).examples
    assert example.want == "2\n"


def test_performance_page_includes_every_benchmark_section():
    """docs/performance/NAME.md and NAME.png are written by `benchmarks/*.py --docs docs/performance`; the page
    must include each section once (an excluded section would silently vanish from the built site) and each
    section must have its plot."""
    folder = Path(__file__).resolve().parents[1] / "docs" / "performance"
    sections = {p.name for p in folder.glob("*.md")} - {"index.md"}
    included = re.findall(r"^```\{include\} (\S+)$", (folder / "index.md").read_text(encoding="utf-8"), re.MULTILINE)
    assert sorted(included) == sorted(sections) and len(included) == len(set(included))
    for name in sections:
        text = (folder / name).read_text(encoding="utf-8")
        assert "python benchmarks/" in text and "--docs docs/performance" in text, name
        assert (folder / name.replace(".md", ".png")).is_file(), name
