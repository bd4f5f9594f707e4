"""Threshold optimisation of the BMAP/PH/1/K model (Avrachenkov et al., §7 direct approach), issue 15:
``optimize_all`` over every mode set with the batched evaluator (`bm.batched_costs`: one generator and three cost
weight vectors per robot mode, every candidate's chain assembled from them and solved in one batched dense solve)
against the per-policy loop it replaces (`bm.evaluate_levels` for every distinct level vector: assemble, solve,
every measure), timed in the same process.

    nice python benchmarks/bmap_optimize.py              # the real-data model and the §7 example at K = 5, 20, 30
    nice python benchmarks/bmap_optimize.py --repeat 1 --cases example-5
    nice python benchmarks/bmap_optimize.py --docs docs/performance   # also the docs' table and plot

Each timing starts from a freshly loaded model (no cached blocks, tables or costs), so it includes building them;
the median of ``--repeat`` runs is printed.  ``loop`` is ``optimize_all(..., solver=LOOP_SOLVER)``: SuperLU on the
assembled generator and `measures` per policy, what ``solver="auto"`` did before the batched route.  ``max rel diff``
is the largest relative difference between the two curves over every candidate of every mode set; the argmins must
agree.  Prints figures; asserts nothing about speed.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from crawlmath.numeric import bmap as bm
from crawlmath.numeric.bmap import load_model

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_output import Page, run  # noqa: E402 - the sibling helper

CASES = {
    "real": ("avrachenkov-real.json", None),
    "example-5": ("avrachenkov-example.json", 5),
    "example-20": ("avrachenkov-example.json", 20),
    "example-30": ("avrachenkov-example.json", 30),
}
LOOP_SOLVER = "sparse"


def timed(case: str, solver: str) -> tuple[float, dict]:
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


PAGE = dict(
    name="bmap_optimize", title="BMAP threshold optimisation, every mode set (Avrachenkov et al. §7)",
    what="`optimize_all` with the batched evaluator (one generator and three cost weight vectors per robot mode, "
         "every candidate's chain solved in one batched dense solve) against the per-policy loop it replaces "
         "(SuperLU on the assembled generator and every measure, per policy), each from a freshly loaded model, "
         "median of the repeats, alternated in one process. Ratio = batched / loop; the argmins must agree, and "
         "max rel diff is the largest relative difference of the two cost curves over every candidate.",
    columns=["case", "states", "policies", "batched (s)", "per-policy loop (s)", "ratio", "max rel diff"],
    x_label="policies evaluated", y_label="seconds")


def options(parser) -> None:
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cases", default=",".join(CASES), help=f"comma-separated, from {', '.join(CASES)}")


def measure(args, page: Page) -> None:
    print(f"{'case':<12} {'states':>6} {'policies':>8} {'batched s':>10} {'loop s':>8} {'ratio':>7} {'max rel diff':>13}")
    for case in args.cases.split(","):
        new_t, old_t = [], []
        for _ in range(args.repeat):  # alternate, so that a change in the machine's load hits both routes alike
            t, new = timed(case, "auto")
            new_t.append(t)
            t, old = timed(case, LOOP_SOLVER)
            old_t.append(t)
        model = load_model(CASES[case][0]) if CASES[case][1] is None else load_model(CASES[case][0], K=CASES[case][1])
        policies = sum(o.evaluated for o in new.values())
        a, b = statistics.median(new_t), statistics.median(old_t)
        diff = compare(new, old)
        print(f"{case:<12} {model.states:>6} {policies:>8} {a:>10.3f} {b:>8.3f} {b / a:>6.1f}x {diff:>13.1e}", flush=True)
        page.rows.append([case, str(model.states), str(policies), f"{a:.3f}", f"{b:.3f}", f"{a / b:.3f}", f"{diff:.1e}"])
        page.curve("crawlmath batched", line=False).points.append((policies, a))
        page.curve("per-policy loop", line=False).points.append((policies, b))


if __name__ == "__main__":
    sys.exit(run(__file__, __doc__, measure, PAGE, options))
