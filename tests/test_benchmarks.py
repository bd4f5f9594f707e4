"""The benchmarks' own correctness checks, run small so that a benchmark that no longer runs against the package
(it reaches into private pieces such as ``colours_sim._State``) fails here and not only when someone times it.
Nothing is timed."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"crawlmath_benchmark_{name}", BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    # registered before it runs: numba's on-disk cache records the module of each cached kernel and re-imports it
    # on the next run; a module missing from sys.modules is recorded as '<dynamic>', and a second run then failed
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("strategy, delta", [("mice-delta", 2), ("recommended", 5)])
def test_colour_kernel_equals_the_verbatim_first_kernel(strategy, delta):
    """benchmarks/colours_kernel.py: the package's strategy kernel and the kernel as first written consume the same
    random stream, so their records and source draws must be identical (Buijsrogge Alg. 11/12, gamma = 0.9)."""
    bench = _load("colours_kernel")
    from crawlmath.numeric import colours as nc
    from crawlmath.numeric.colours import _sim as cs

    p = nc.colour_distribution("powerlaw", bench.C, 0.9)
    table = cs.packed_table(*cs.alias_table(p))
    (ref_rec, ref_draws), (new_rec, new_draws) = (bench.reference_kernel(p, table, strategy, delta, 11),
                                                  bench.package_kernel(p, strategy, delta, 11))
    assert new_draws == ref_draws and np.array_equal(new_rec, ref_rec)
    assert ref_rec[-1, 0] > 0 and ref_draws >= bench.TOTAL - bench.K  # the run went the whole way
