"""crawlmath: rederive, generate code for, and check at high precision the
mathematics of web-crawler optimisation.

Subpackages (the folder tree is the architecture; data flows one way):

- :mod:`crawlmath.derive`  (folder ``derive/``)  SymPy derivations, one module per model;
- :mod:`crawlmath.numeric` (folder ``numeric/``) float64 / mpmath solvers, SymPy-free;
  :mod:`crawlmath.numeric.generated` is emitted from ``derive`` by ``crawlmath codegen``;
- :mod:`crawlmath.proofs`  (folder ``proofs/``)  the claim registry, errata, paper tables;
- :mod:`crawlmath.commands` the ``crawlmath`` subcommands.

The public functions (:mod:`crawlmath.api`) are available at the top level and
load their solvers only when first used:

>>> import crawlmath
>>> crawlmath.static_optimum(0.01, 1, 0.5, 10).N_opt
89
"""
__all__ = ["__version__", "static_optimum", "solve_mdp", "load_bmap", "solve_bmap", "optimal_frequencies",
           "mean_field_colours", "average_cost_mdp", "ctmc_stationary", "verify"]


def _installed_version() -> str:
    """The version from the package metadata ("0+unknown" in a source tree that is not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("crawlmath")
    except PackageNotFoundError:
        return "0+unknown"


def __getattr__(name: str):
    # PEP 562: `import crawlmath` stays light; the API module loads on first
    # use, and importlib.metadata (~30 ms of imports) only when the version is asked for.
    if name == "__version__":
        globals()["__version__"] = value = _installed_version()
        return value
    if name in __all__:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'crawlmath' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
