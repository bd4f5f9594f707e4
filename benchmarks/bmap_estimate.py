"""Estimate against measured time for the BMAP model (issue 33): the cost model that `crawlmath bmap`,
`crawlmath.load_bmap` and `crawlmath.solve_bmap` check before any work (`bmap_io.require_arrivals` for building the
arrivals, `bmap_model.estimate_cost` for evaluations), next to the wall time of the same work, over a range of sizes.

    nice python benchmarks/bmap_estimate.py            # about 1.5 min on the 2-core development machine
    nice python benchmarks/bmap_estimate.py --quick    # the small half

Each row is one fresh model (no cached blocks).  ``ratio`` = estimate / measured: the target is 1/3 <= ratio <= 3.
The structured solver's first call in a process includes compiling its numba kernels (the estimate always counts
it).  Prints figures; asserts nothing.
"""
from __future__ import annotations

import argparse
import copy
import time

from crawlmath.numeric.bmap import _io as bmap_io
from crawlmath.numeric import bmap as bm

EVALUATIONS = [  # (model, K, reduce, solver, policy)
    ("avrachenkov-example.json", 20, True, "auto", ((3, 1), (3,))),
    ("avrachenkov-example.json", 100, True, "auto", ((3, 1), (3,))),
    ("avrachenkov-example.json", 200, True, "auto", ((3, 1), (3,))),
    ("avrachenkov-example.json", 300, True, "auto", ((3, 1), (3,))),
    ("avrachenkov-example.json", 8, False, "auto", ((3, 1), (3,))),
    ("avrachenkov-example.json", 50, True, "structured", ((3, 1), (3,))),
    ("avrachenkov-example.json", 100, True, "structured", ((3, 1), (3,))),
    ("avrachenkov-example.json", 150, True, "structured", ((3, 1), (3,))),
    ("avrachenkov-example.json", 11, False, "auto", ((3, 1), (3,))),
]
QUICK = {20, 100, 8, 50}
OPTIMIZE = [  # (model, K, modes or None for every mode set): `optimize` over the paper's threshold ranges, as --optimize
    ("avrachenkov-example.json", 5, None),
    ("avrachenkov-real.json", None, None),
    ("avrachenkov-example.json", 30, (3, 1)),
    ("avrachenkov-example.json", 100, (3, 1)),
]
ROBOTS = [100, 400, 1600]  # the real-data model's arrivals.robots ('scaled')
INDEPENDENT = [4, 6]  # robots of the 'independent' interpretation, each the §7 example's D^(1) (W = 2^N phases)


def evaluation_rows(quick: bool):
    for name, K, reduce, solver, (modes, th) in EVALUATIONS:
        if quick and K not in QUICK:
            continue
        t0 = time.perf_counter()
        m = bmap_io.load_model(name, K=K, reduce=reduce)
        est, _ = bm.estimate_cost(m, 1, solver)
        bm.evaluate(m, bm.Policy(modes, th), solver)
        yield f"{name.split('.')[0]} K={K}{'' if reduce else ' unlumped'} {solver} ({bm.approx_states(m):.0f} states)", \
            est, time.perf_counter() - t0


def optimize_rows(quick: bool):
    import argparse as _argparse

    from crawlmath.commands.bmap import evaluations

    for name, K, modes in OPTIMIZE[:2] if quick else OPTIMIZE:
        t0 = time.perf_counter()
        m = bmap_io.load_model(name) if K is None else bmap_io.load_model(name, K=K)
        n = evaluations(m, modes, _argparse.Namespace(optimize=True, convention="paper"))
        est, _ = bm.estimate_cost(m, n)
        cache: dict = {}
        for s in bm.all_mode_sets(m.N) if modes is None else [modes]:
            bm.optimize(m, s, "paper", "auto", cache)
        yield f"optimize {name.split('.')[0]} K={m.K} {'all mode sets' if modes is None else modes} ({n:.0f} policies)", \
            est, time.perf_counter() - t0


def arrival_rows(quick: bool):
    real = bmap_io.read_spec("avrachenkov-real.json")
    example = bmap_io.read_spec("avrachenkov-example.json")
    specs = []
    for N in ROBOTS[:2] if quick else ROBOTS:
        s = copy.deepcopy(real)
        s["arrivals"]["robots"] = N
        specs.append((f"real, robots = {N}", s))
    for N in INDEPENDENT[:1] if quick else INDEPENDENT:
        s = copy.deepcopy(example)
        s["arrivals"] = {"interpretation": "independent", "robots": [example["arrivals"]["D"][0]] * N}
        specs.append((f"independent, {N} robots", s))
    for label, s in specs:
        bmaps, entries = bmap_io.arrival_size(s)
        est = bmap_io.SECONDS_PER_BMAP * bmaps + bmap_io.SECONDS_PER_ENTRY * entries
        t0 = time.perf_counter()
        bmap_io.model_from_spec(s, K=2)
        yield f"load {label}", est, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="the small half of the sizes")
    args = ap.parse_args()
    print(f"{'case':<58} {'estimate s':>10} {'measured s':>10} {'ratio':>7}")
    worst = 1.0
    for label, est, got in [*arrival_rows(args.quick), *optimize_rows(args.quick), *evaluation_rows(args.quick)]:
        ratio = est / got
        worst = max(worst, ratio, 1 / ratio)
        print(f"{label:<58} {est:10.3g} {got:10.3g} {ratio:7.2f}", flush=True)
    print(f"worst ratio (either way): {worst:.2f} (target <= 3)")


if __name__ == "__main__":
    main()
