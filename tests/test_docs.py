"""The docs' tutorials run as written: every ``>>>`` example of docs/tutorials/*.md is a doctest,
run in one namespace per page, top to bottom (the check tests/test_readme.py makes of the README).
A Markdown fence line (```) ends the expected output above it."""
from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

TUTORIALS = sorted((Path(__file__).resolve().parents[1] / "docs" / "tutorials").glob("*.md"))
FENCE = re.compile(r"^\s*(```|:::).*$", re.MULTILINE)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def examples(page: Path) -> doctest.DocTest:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return doctest.DocTestParser().get_doctest(text, {"__name__": page.stem}, page.name, str(page), 0)


@pytest.mark.parametrize("page", TUTORIALS, ids=lambda p: p.stem)
def test_tutorial_examples_run(page):
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
