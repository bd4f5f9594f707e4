"""Run the docstring examples of every crawlmath module (imported under its
installed name, so claim modules register once)."""
import doctest
import importlib
import pkgutil

import pytest

import crawlmath

ROOTS = ["crawlmath", "crawlmath.derive", "crawlmath.numeric", "crawlmath.proofs"]


def _modules():
    """Every module and package of crawlmath, subpackages included (numeric/<model>/, proofs/claims/<paper>/)."""
    for root in ROOTS:  # derive/, numeric/, proofs/ sit outside crawlmath/'s folder: walked from their own paths
        pkg = importlib.import_module(root)
        yield root
        for info in pkgutil.walk_packages(pkg.__path__, prefix=f"{root}."):
            yield info.name


def test_every_subpackage_is_walked():
    """The walk reaches the subpackages' private modules (a flat listing once missed them after a move)."""
    names = set(_modules())
    assert {"crawlmath.numeric.bmap", "crawlmath.proofs.claims.liu_nain._dynamic", "crawlmath.numeric.static._mm1k",
            "crawlmath.numeric.generated.static_mm1k", "crawlmath.report.build"} <= names


@pytest.mark.parametrize("name", sorted(set(_modules())))
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
