"""Benchmark: build and exactly cost a golden-ratio schedule with F_k ~ 1e6
accesses over N = 1e4 pages (target: under 5 s), and the simulator's speed.

Run: python benchmarks/scheduling.py
"""
from __future__ import annotations

import time

import numpy as np

from crawlmath.numeric import scheduling as s
from crawlmath.numeric.access_time import Exponential


def main() -> None:
    rng = np.random.default_rng(0)
    N, k = 10_000, 30  # F_30 = 832 040
    mu = np.exp(rng.normal(0, 1, N)) * 1e-3
    t0 = time.perf_counter()
    p = s.make_problem(mu, Exponential(1.0))
    lb = s.optimal_frequencies(p)
    t1 = time.perf_counter()
    sched = s.golden_schedule(lb.frequencies, k)
    t2 = time.perf_counter()
    cost = s.cyclic_cost(sched.sequence, p)
    t3 = time.perf_counter()
    print(f"golden schedule: N = {N}, k = {k}, F_k = {sched.F} accesses")
    print(f"  problem + optimal frequencies  {t1 - t0:7.3f} s")
    print(f"  build gamma(k, N)              {t2 - t1:7.3f} s")
    print(f"  exact cost (3) + Lemma 3.1     {t3 - t2:7.3f} s")
    print(f"  total build + cost             {t3 - t1:7.3f} s   (target < 5 s)")
    print(f"  C = {cost.cost:.8g}, C* = {lb.lower_bound:.8g}, ratio {cost.cost / lb.lower_bound:.6f}")

    small = s.make_problem(mu[:200] * 100, Exponential(1.0))
    seq = s.golden_schedule(s.optimal_frequencies(small).frequencies, 20).sequence
    sim = s.simulate(seq, small, 50, seed=1)
    print(f"simulator: {sim.accesses} accesses in {sim.seconds:.3f} s = {sim.accesses / sim.seconds:,.0f} accesses/s "
          f"(cost {sim.cost:.6g} ± {sim.cost_stderr:.2g}, exact {s.cyclic_cost(seq, small).cost:.6g})")


if __name__ == "__main__":
    main()
