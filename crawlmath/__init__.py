"""crawlmath: rederive, generate code for, and check at high precision the
mathematics of web-crawler optimisation.

Subpackages (the folder tree is the architecture; data flows one way):

- :mod:`crawlmath.derive`  (folder ``derive/``)  SymPy derivations, one module per model;
- :mod:`crawlmath.numeric` (folder ``numeric/``) float64 / mpmath solvers, SymPy-free;
  :mod:`crawlmath.numeric.generated` is emitted from ``derive`` by ``crawlmath codegen``;
- :mod:`crawlmath.proofs`  (folder ``proofs/``)  the claim registry, errata, paper tables;
- :mod:`crawlmath.commands` the ``crawlmath`` subcommands.
"""
from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("crawlmath")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0+unknown"
