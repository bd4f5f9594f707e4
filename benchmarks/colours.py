"""Benchmark of the BUbiNG colours solvers (Buijsrogge 2014).

Prints simulator steps per second (K = 1000, C = 10^5; the issue's target is
>= 10^7 on one core), steps and source draws per second of the offline-strategy
kernel (both run in chunks of ``CHUNK_STEPS`` steps so Ctrl-C works; the
figures calibrate ``PLAIN_STEPS_PER_S``/``STRATEGY_DRAWS_PER_S`` of the time
estimate), the cost of one replicate set of a Ch. 8 table cell, and the
largest exact chain (K = C, occupancy partitions) solved within 60 s by
sparse LU and by power iteration, next to the product-form value.

Run: python benchmarks/colours.py
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from crawlmath.numeric import colours as nc
from crawlmath.numeric.colours import simulate
from crawlmath.numeric.generated import buijsrogge as gen

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_output import run  # noqa: E402 - the sibling helper

BUDGET = 60.0


def simulator() -> None:
    p = nc.colour_distribution("uniform", 100_000)
    simulate(p, 1000, 10_000, seed=0)  # JIT compile (cached on disk afterwards)
    steps = 50_000_000
    t0 = time.perf_counter()
    r = simulate(p, 1000, steps, seed=1)
    dt = time.perf_counter() - t0
    print(f"simulator, no offline, K=1000, C=1e5: {steps / dt:,.0f} steps/s "
          f"(mean {r.mean:.3f} ± {r.stderr:.3f}, exact {gen.exact_colours_uniform(1000, 100_000):.3f})")
    q = nc.colour_distribution("powerlaw", 100_000, 1.1)
    for strategy, kw in (("neutral", {}), ("mice", {"beta": 10}), ("mice-delta", {"strict": True}),
                         ("recommended", {"strict": True}), ("randomized-b", {"r": 0.5}), ("greedy", {})):
        simulate(q, 1000, 1000, seed=0, strategy=strategy, **kw)
        t0 = time.perf_counter()
        r = simulate(q, 1000, 2_000_000, seed=1, strategy=strategy, **kw)
        dt = time.perf_counter() - t0
        print(f"strategy {strategy:12s} γ=1.1: {2_000_000 / dt:,.0f} steps/s, {r.source_draws / dt:,.0f} draws/s, "
              f"colours {r.mean:.1f}")


def table_cells() -> None:
    """One replicate set (8 seeded runs, T = 2e5) of a Table 8.1 cell, the cheapest and the dearest γ."""
    for gamma in (0.3, 1.7):
        q = nc.colour_distribution("powerlaw", 100_000, gamma)
        t0 = time.perf_counter()
        for k in range(8):
            simulate(q, 1000, 199_000, seed=k, strategy="mice-delta", delta=5, strict=True, every=50_000)
        print(f"Table 8.1 cell γ={gamma}, δ=5: 8 runs of T = 2e5 in {time.perf_counter() - t0:.1f} s")


def exact() -> None:
    for method in ("lu", "power"):
        best = None
        for K in range(10, 61, 5):
            n = nc.partition_count(K, K)
            if n > nc.EXACT_STATE_LIMIT:
                break
            t0 = time.perf_counter()
            r = nc.exact_uniform(K, K, method)
            dt = time.perf_counter() - t0
            print(f"exact chain {method:5s} K=C={K}: {r.states} states, {dt:.2f} s, E[S] {r.colours:.12f} "
                  f"(closed form {(K * K - 1) / (2 * K - 2):.12f})")
            if dt > BUDGET:
                break
            best = (K, dt)
            if dt > BUDGET / 5:  # the next size costs several times more
                break
        print(f"largest exact chain solved by {method} within {BUDGET:.0f} s: K = C = {best[0]} ({best[1]:.1f} s)")
    t0 = time.perf_counter()
    r = nc.exact_stationary(nc.colour_distribution("powerlaw", 100_000, 1.1), 1000)
    print(f"product form, power law γ=1.1, K=1000, C=1e5: E[S] = {r.colours:.10f} in {time.perf_counter() - t0:.2f} s")


def measure(args, page: None) -> None:
    simulator()
    table_cells()
    exact()


if __name__ == "__main__":
    sys.exit(run(__file__, __doc__, measure))
