"""Time to reproduce Liu–Nain Table 1.1 (50 cells: N(gamma, K), lambda = 0.01, mu = 1)
in float64 and at 50 digits.  Prints figures; asserts nothing about speed.

    python benchmarks/static.py
"""
import math
import time

from crawlmath.numeric.static_mm1k import static_optimum
from crawlmath.proofs.tables.liu_nain_static import TABLE_1_1, TABLE_1_1_K


def reproduce(digits=None):
    cells = {}
    for g in TABLE_1_1:
        for k in TABLE_1_1_K:
            K = math.inf if k == "∞" else int(k)
            o = static_optimum("0.01", "1", g, K, digits=digits) if digits else static_optimum(0.01, 1.0, float(g), K)
            cells[g, k] = o.N_approx if k == "∞" else o.N_opt
    return cells


def main(repeats=3):
    for label, digits in (("float64", None), ("50 digits", 50)):
        best = math.inf
        for _ in range(repeats):
            t0 = time.perf_counter()
            cells = reproduce(digits)
            best = min(best, time.perf_counter() - t0)
        matched = sum(str(cells[g, k]) == TABLE_1_1[g][i] for g in TABLE_1_1 for i, k in enumerate(TABLE_1_1_K))
        print(f"Table 1.1 {label:>9}: {best * 1e3:8.1f} ms for {len(cells)} cells ({matched} match the printed table)")


if __name__ == "__main__":
    main()
