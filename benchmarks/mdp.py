"""Timings of the dynamic crawler MDP solvers on the paper's 57 instances.

All 54 rows of Liu–Nain Tables 1.2 (N = N_s) and 1.3 (N chosen not to bind)
plus Figures 1.5–1.7 (N = 16), each solved

- exactly (policy iteration, sparse LU evaluation),
- by relative value iteration (Prop. 6, τ = 0.99999, stop at 1e-5),
- by pymdptoolbox's RelativeValueIteration when installed (not a dependency:
  ``pip install pymdptoolbox``), on the same sparse matrices with rewards −c
  (it maximises) and every action made available (a disallowed action gets
  the allowed action's row, which changes nothing).

Prints one line per instance and the totals.  Run: ``python benchmarks/mdp.py``
(``--no-toolbox`` to skip the comparison, ``--quick`` for the figures only).
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from crawlmath.numeric import mdp as M
from crawlmath.proofs.tables.liu_nain_dynamic import TABLE_1_2, TABLE_1_3, parse


def instances(quick: bool):
    for g in (1.0, 1.4, 2.0):
        yield "fig", 0.1, 5, g, 16
    if quick:
        return
    for table, text in (("1.2", TABLE_1_2), ("1.3", TABLE_1_3)):
        for row in parse(text):
            lam, K, g = float(row["lam"]), int(row["K"]), float(row["gamma"])
            yield table, lam, K, g, (M.static_count(lam, 1.0, K, g)[0] if table == "1.2" else "auto")


def toolbox_rvi(m: M.CrawlerMDP, epsilon: float):
    import mdptoolbox.mdp as tb

    P, R = [], np.empty((m.n, 2))
    for a in (0, 1):
        other = 1 - a
        ok = m.allowed[:, a]
        rows = np.where(ok[:, None], 1.0, 0.0)
        Pa = M.sps.diags(rows.ravel()) @ m.P[a] + M.sps.diags(1.0 - rows.ravel()) @ m.P[other]
        P.append(Pa.tocsr())
        R[:, a] = -m.cost
    solver = tb.RelativeValueIteration(P, R, epsilon=epsilon, max_iter=10**6)
    t = time.perf_counter()
    solver.run()
    return -solver.average_reward, solver.iter, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-toolbox", action="store_true")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--epsilon", type=float, default=1e-8, help="pymdptoolbox span stopping threshold")
    args = ap.parse_args()
    have_tb = not args.no_toolbox
    if have_tb:
        try:
            import mdptoolbox.mdp  # noqa: F401
        except ImportError:
            print("pymdptoolbox not installed: comparison skipped")
            have_tb = False
    tot = {"exact": 0.0, "rvi": 0.0, "tb": 0.0}
    worst_rvi, worst_tb, faster, count = 0.0, 0.0, 0, 0
    print(f"{'inst':5} {'lam':>5} {'K':>3} {'gamma':>5} {'N':>4} {'states':>6} {'gain':>12} {'exact s':>8} "
          f"{'rvi s':>7} {'rvi it':>6}" + (f" {'tb s':>7} {'tb it':>6} {'tb/ex':>6} {'|tb-ex|':>8}" if have_tb else ""))
    for tag, lam, K, g, N in instances(args.quick):
        t = time.perf_counter()
        if N == "auto":
            N, sol = M.auto_N(lam, 1.0, K, g)
        else:
            sol = M.policy_iteration(M.CrawlerMDP(lam, 1.0, K, N, g))
        te = time.perf_counter() - t
        m = sol.mdp
        t = time.perf_counter()
        r = M.relative_value_iteration(m, tau=0.99999)
        tr = time.perf_counter() - t
        tot["exact"] += te
        tot["rvi"] += tr
        worst_rvi = max(worst_rvi, abs(r.gain - sol.gain) / sol.gain)
        line = (f"{tag:5} {lam:5g} {K:3d} {g:5g} {N:4d} {m.n:6d} {sol.gain:12.9f} {te:8.3f} {tr:7.3f} {r.iterations:6d}")
        if have_tb:
            gtb, itb, ttb = toolbox_rvi(m, args.epsilon)
            tot["tb"] += ttb
            worst_tb = max(worst_tb, abs(gtb - sol.gain) / sol.gain)
            faster += te < ttb
            line += f" {ttb:7.3f} {itb:6d} {ttb / te:6.1f} {abs(gtb - sol.gain):8.1e}"
        count += 1
        print(line, flush=True)
    print(f"\n{count} instances: exact (policy iteration) {tot['exact']:.2f} s total, RVI (tau=0.99999) {tot['rvi']:.2f} s total; "
          f"max relative |RVI - exact| = {worst_rvi:.1e}")
    if have_tb:
        print(f"pymdptoolbox RelativeValueIteration (epsilon={args.epsilon:g}): {tot['tb']:.2f} s total, "
              f"speed ratio toolbox/exact {tot['tb'] / tot['exact']:.1f}x overall, exact faster on {faster}/{count} instances; "
              f"max relative |toolbox - exact| = {worst_tb:.1e}")


if __name__ == "__main__":
    main()
