"""Sphinx configuration of the crawlmath documentation.

Why Sphinx with MyST rather than MkDocs: the docstrings are NumPy-style reStructuredText with
``:func:`` / ``:mod:`` roles and doctests, which autodoc + napoleon render as they are; the CLI
reference comes from the argparse parser itself (``_ext/cli_reference.py``: what ``--help`` prints);
``-W`` turns every warning into an error; and it is what the libraries crawlmath builds on (NumPy, SciPy, SymPy, mpmath) use.
Pages are Markdown (MyST) so the README's prose moves here unchanged.  The tutorials' ``>>>``
blocks are executed by ``tests/test_docs.py`` (doctest), not by the build, so the build stays fast.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))  # recorded_verdicts, cli_reference: read from the code at build time

project = "crawlmath"
author = "the crawlmath authors"
copyright = "crawlmath authors"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "recorded_verdicts",
    "cli_reference",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
# performance/*.md other than index.md are sections written by the benchmark scripts and included there
exclude_patterns = ["_build", "_ext"] + [f"performance/{p.name}" for p in (ROOT / "docs" / "performance").glob("*.md")
                                         if p.name != "index.md"]
myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

# Public surface only: members listed explicitly in docs/reference/api.md, in source order.
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"undoc-members": False}
napoleon_numpy_docstring = True
napoleon_google_docstring = False

html_theme = "alabaster"
html_title = "crawlmath"
html_static_path: list[str] = []
