"""Scale of the BMAP/PH/1/K obsolescence model (Avrachenkov et al.): time,
peak memory and residual per K for W̄ = M = R = 2 (the §7 example, modes
(3, 1), threshold 3), stationary vector *and* every measure including V1.

    nice python benchmarks/bmap.py                 # K = 4, 6, 8, 10, 12, 14, 16
    nice python benchmarks/bmap.py 18 20           # chosen K (one process each: peak memory per K)

For K <= 10 the sparse direct solver runs too and the largest relative
deviation over the nine measures is printed.  Each K runs in a fresh
subprocess (with ``OPENBLAS_NUM_THREADS=1`` unless set) so that the reported
peak RSS belongs to that K alone.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

CHILD = r"""
import json, resource, sys, time
import numpy as np
from crawlmath.numeric import bmap_model as bm
from crawlmath.numeric.bmap_io import load_model
from crawlmath.numeric.bmap_structured import evaluate_structured
K = int(sys.argv[1])
m = load_model("avrachenkov-example.json", K=K)
lv = m.check_policy(bm.Policy((3, 1), (min(3, K - 1),)))
t0 = time.perf_counter()
r = evaluate_structured(m, lv)
secs = time.perf_counter() - t0
vec = lambda x: np.array([x.p_star, x.n_act, x.lam, x.p_loss, x.p_obs, x.p_success, x.v1, x.v2, x.cost])
dev = None
direct_secs = None
if K <= 10:
    t1 = time.perf_counter()
    d = bm.evaluate_levels(m, lv, "sparse")
    direct_secs = time.perf_counter() - t1
    dev = float(np.max(np.abs(vec(r) - vec(d)) / np.abs(vec(d))))
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
print(json.dumps({"K": K, "states": m.states, "seconds": secs, "peak_GiB": peak, "residual": r.residual,
                  "sum_check": r.p_loss + r.p_obs + r.p_success - 1, "little": r.lam * r.v - r.mean_number,
                  "J": r.cost, "V1": r.v1, "dev_vs_direct": dev, "direct_seconds": direct_secs}))
"""


def main(argv: list[str]) -> None:
    Ks = [int(a) for a in argv] or [4, 6, 8, 10, 12, 14, 16]
    print(f"{'K':>3} {'states':>10} {'seconds':>9} {'peak GiB':>9} {'residual':>9} {'1-sum P':>9} {'Little':>9} {'J':>14} {'V1':>10} {'vs direct':>10}")
    for K in Ks:
        t0 = time.perf_counter()
        # one BLAS thread: the level-1 BLAS inside GMRES gains nothing from threads on a shared 2-core machine and loses a lot
        env = dict(os.environ, OPENBLAS_NUM_THREADS=os.environ.get("OPENBLAS_NUM_THREADS", "1"))
        out = subprocess.run([sys.executable, "-c", CHILD, str(K)], capture_output=True, text=True, env=env)
        if out.returncode:
            print(f"{K:>3} failed after {time.perf_counter() - t0:.1f} s: {out.stderr.strip().splitlines()[-1]}")
            continue
        d = json.loads(out.stdout)
        dev = "-" if d["dev_vs_direct"] is None else f"{d['dev_vs_direct']:.1e}"
        print(f"{d['K']:>3} {d['states']:>10} {d['seconds']:>9.2f} {d['peak_GiB']:>9.3f} {d['residual']:>9.1e} {d['sum_check']:>9.1e} "
              f"{d['little']:>9.1e} {d['J']:>14.10f} {d['V1']:>10.6f} {dev:>10}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
