"""Run the docstring examples of every crawlmath module (imported under its
installed name, so claim modules register once)."""
import doctest
import importlib
import pkgutil

import pytest

import crawlmath

PACKAGES = ["crawlmath", "crawlmath.commands", "crawlmath.derive", "crawlmath.numeric", "crawlmath.numeric.generated",
            "crawlmath.proofs", "crawlmath.proofs.claims", "crawlmath.proofs.claims.avrachenkov",
            "crawlmath.proofs.claims.buijsrogge", "crawlmath.proofs.tables", "crawlmath.report"]


def _modules():
    for pkg_name in PACKAGES:
        pkg = importlib.import_module(pkg_name)
        yield pkg_name
        for info in pkgutil.iter_modules(pkg.__path__):
            if not info.ispkg:
                yield f"{pkg_name}.{info.name}"


@pytest.mark.parametrize("name", sorted(set(_modules())))
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
