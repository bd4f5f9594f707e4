"""The exact stationary colour count at scale (issue 30): cost of the two ball routes, and a long seeded
simulation as the third, statistical route.

- ``exact_stationary`` (power sums formed as ball products, pruned below 2^-bits with a rigorous tail, then
  Newton's identities) against ``exact_stationary_series`` (blocks of ``arb_poly.from_roots``, a tree of truncated
  series products, series inversion with precision doubled until 30 digits): wall seconds of each, in this run,
  and their ratio, for power-law colours at K = 1000 (the sizes of Ch. 5 and 7);
- a seeded simulation without offline structure (γ = 1, C = 10^4, K = 1000, ``--steps`` steps): its second-half mean
  and batch-means standard error against the exact value (issue 30 quotes 10.621 ± 0.006 for 8·10^7 steps).

Run: python benchmarks/colours_exact.py [--cases 1.0:10000,1.1:100000] [--steps 4e7] [--docs docs/performance]
(about a minute)
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from crawlmath.numeric import colours as nc
from crawlmath.numeric.colours import simulate

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_output import Page, run  # noqa: E402 - the sibling helper

K, SEED = 1000, 2026
PAGE = dict(
    name="colours_exact", title="Exact stationary colour count, the two ball routes (K = 1000)",
    what="`exact_stationary` (power sums in arb with a rigorous tail, then Newton's identities) against the second "
         "route `exact_stationary_series` (series inversion of 1/∏(1 − p_i t)), wall seconds in the same run, power-law "
         "colours; the two balls must overlap.",
    columns=["γ", "C", "E[S] (32 digits)", "power sums (s)", "series (s)", "ratio", "balls overlap"],
    x_label="colours C", y_label="seconds")


def timed(f, *args):
    t = time.perf_counter()
    out = f(*args)
    return out, time.perf_counter() - t


def options(parser) -> None:
    parser.add_argument("--cases", default="1.0:10000,1.1:100000",
                        help="comma-separated γ:C, power-law colours timed on both ball routes")
    parser.add_argument("--steps", type=float, default=4e7, help="steps of the seeded simulation (0: none)")


def measure(args, page: Page) -> None:
    for gamma, C in ((float(g), int(c)) for g, c in (case.split(":") for case in args.cases.split(","))):
        p = nc.colour_distribution("powerlaw", C, gamma)
        a, ta = timed(nc.exact_stationary, p, K)
        b, tb = timed(nc.exact_stationary_series, p, K)
        agree = a.colours_ball.overlaps(b.colours_ball)
        print(f"powerlaw γ={gamma}, C={C}, K={K}: E[S] = {a.colours_ball.mid().str(32, radius=False)} "
              f"(Newton {a.digits} digits, {ta:.2f} s; series {b.digits} digits at {b.prec} bits, {tb:.2f} s; "
              f"ratio {ta / tb:.2f}; balls overlap: {agree})")
        page.rows.append([str(gamma), str(C), a.colours_ball.mid().str(32, radius=False), f"{ta:.2f}", f"{tb:.2f}",
                          f"{ta / tb:.2f}", str(agree)])
        page.curve("power sums + Newton").points.append((C, ta))
        page.curve("series inversion").points.append((C, tb))
    steps = int(args.steps)
    if not steps:
        return
    p = nc.colour_distribution("powerlaw", 10_000, 1.0)
    exact = nc.exact_stationary(p, K).colours
    s, ts = timed(simulate, p, K, steps, SEED)
    z = (s.mean - exact) / s.stderr
    print(f"simulation γ=1, C=1e4, K={K}, {steps:.0e} steps, seed {SEED}: {s.mean:.4f} ± {s.stderr:.4f} against "
          f"exact {exact:.6f} (z = {z:+.2f}), {ts:.1f} s")


if __name__ == "__main__":
    sys.exit(run(__file__, __doc__, measure, PAGE, options))
