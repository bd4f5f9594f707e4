"""Threshold optimisation of the BMAP/PH/1/K model (Avrachenkov et al., §7 direct approach), issue 15:
``optimize_all`` over every mode set with the batched evaluator (`bm.batched_costs`: one generator and three cost
weight vectors per robot mode, every candidate's chain assembled from them and solved in one batched dense solve)
against the per-policy loop it replaces (`bm.evaluate_levels` for every distinct level vector: assemble, solve,
every measure), timed in the same process.

    nice python benchmarks/bmap_optimize.py              # the real-data model and the §7 example at K = 5, 20, 30
    nice python benchmarks/bmap_optimize.py --repeat 1 --cases example-5

Each timing starts from a freshly loaded model (no cached blocks, tables or costs), so it includes building them;
the median of ``--repeat`` runs is printed.  ``loop`` is ``optimize_all(..., solver=LOOP_SOLVER)``: SuperLU on the
assembled generator and `measures` per policy, what ``solver="auto"`` did before the batched route.  ``max rel diff``
is the largest relative difference between the two curves over every candidate of every mode set; the argmins must
agree.  Prints figures; asserts nothing about speed.
"""
from __future__ import annotations

import argparse
import statistics
import time

from crawlmath.numeric import bmap as bm
from crawlmath.numeric.bmap import load_model

CASES = {
    "real": ("avrachenkov-real.json", None),
    "example-5": ("avrachenkov-example.json", 5),
    "example-20": ("avrachenkov-example.json", 20),
    "example-30": ("avrachenkov-example.json", 30),
}
LOOP_SOLVER = "sparse"


def run(case: str, solver: str) -> tuple[float, dict]:
    """Seconds of ``optimize_all`` on a fresh model of ``case`` with ``solver``, and its result."""
    name, K = CASES[case]
    model = load_model(name) if K is None else load_model(name, K=K)
    t0 = time.perf_counter()
    res = bm.optimize_all(model, convention="paper", solver=solver)
    return time.perf_counter() - t0, res


def compare(new: dict, old: dict) -> float:
    """Largest relative difference of the curves; raises if an argmin differs."""
    worst = 0.0
    for modes, o in new.items():
        if o.thresholds != old[modes].thresholds:
            raise SystemExit(f"modes {modes}: argmin {o.thresholds} (batched) against {old[modes].thresholds} (loop)")
        for (th, a), (th2, b) in zip(o.curve, old[modes].curve):
            worst = max(worst, abs(a - b) / abs(b))
    return worst


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cases", default=",".join(CASES), help=f"comma-separated, from {', '.join(CASES)}")
    args = ap.parse_args()
    print(f"{'case':<12} {'states':>6} {'policies':>8} {'batched s':>10} {'loop s':>8} {'ratio':>7} {'max rel diff':>13}")
    for case in args.cases.split(","):
        new_t, old_t = [], []
        for _ in range(args.repeat):  # alternate, so that a change in the machine's load hits both routes alike
            t, new = run(case, "auto")
            new_t.append(t)
            t, old = run(case, LOOP_SOLVER)
            old_t.append(t)
        model = load_model(CASES[case][0]) if CASES[case][1] is None else load_model(CASES[case][0], K=CASES[case][1])
        policies = sum(o.evaluated for o in new.values())
        a, b = statistics.median(new_t), statistics.median(old_t)
        print(f"{case:<12} {model.states:>6} {policies:>8} {a:>10.3f} {b:>8.3f} {b / a:>6.1f}x {compare(new, old):>13.1e}")


if __name__ == "__main__":
    main()
