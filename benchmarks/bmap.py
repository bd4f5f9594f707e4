"""Scale of the BMAP/PH/1/K obsolescence model (Avrachenkov et al.) on a model whose obsolescence does NOT lump:
the §7 example (W̄ = M = 2, modes (3, 1), threshold 3) with the obsolescence replaced by a 2-phase PH with
distinct exit rates (0.2 and 0.1), so R = 2 and the chain has ``W̄ (1 + M (2^K − 1))`` states.

    nice python benchmarks/bmap.py                     # K = 12 .. 20 (vs scipy GMRES up to K = 18): the docs' sizes
    nice python benchmarks/bmap.py --K 4 6 8 10        # K <= 10: every measure against the sparse direct solver
    nice python benchmarks/bmap.py --K 20 --no-baseline
    nice python benchmarks/bmap.py --K 16 --repeat 3   # the median of 3 runs of each solver
    nice python benchmarks/bmap.py --docs docs/performance   # also the docs' table and plot (several minutes)

Every run is a fresh subprocess (``OPENBLAS_NUM_THREADS=1`` unless set), so its peak RSS is its own.  All times
are CPU seconds of that process (``time.process_time``: user + system, page faults included); every kernel
runs on one thread, so on a quiet machine they equal wall time, and on a shared one they are not inflated by
waiting for a core.

- ``structured``: `solve_structured` (matrix-free GMRES + block Gauss–Seidel), then every measure.
- ``baseline`` (10 < K <= ``--baseline-max``, 18 by default: scipy's time and memory grow fastest): the plain
  route: the generator assembled as a scipy CSR matrix (``generator_kronecker``; its time is printed apart), then
  scipy's GMRES on the same system ``x (Q + e c) = c``, same tolerance (relative 1e-15, `solve_structured`'s
  default), restart and start, with the diagonal (Jacobi) preconditioner ``diag(Q)``.
- K <= 10: the sparse direct solver too, and the largest relative deviation of the nine measures.

The memory-bandwidth floor: the structured child measures the machine's bandwidth in the same run (the best
of a large numpy copy and a large add, median of 5 each) and counts the bytes one application of ``Q`` must move
at the least: read ``x`` and write ``x Q``, 16 bytes per state.  ``floor`` is that traffic over the bandwidth;
``mv/floor`` is the measured time of one application of Q (median of 7, on the solver's own work vectors,
`LevelOperators.vector`) over it, ``it/floor`` one whole GMRES
iteration (an application of Q, one of the preconditioner, the Gram–Schmidt passes) over it.

The compute floor and the roofline: ``fl/st`` is the floating-point operations of one application of Q per
state, counted from the structure as the kernels execute them (`LevelOperators.matvec_flops`: the diagonal,
the arrival/service moves, one multiply-add per obsolescence partner, the exits from the level above, the
batches, the small levels' sparse matrix).  ``GF/s`` is the best double-precision rate this core attains in
the same run: the largest of a numba ``y += f x`` loop on a cache-resident slice, a 1024^3 dgemm and a
(65536 x 16)(16 x 16) dgemm (numbers printed on the line below the row).  ``flop ms`` is the count over that
rate, ``roof ms = max(floor, flop ms)`` the roofline, ``mv/roof`` and ``it/roof`` the matvec and the
iteration over it.  Both floors are optimistic: no kernel moves only 16 bytes per state, and the dgemm rate
needs the register reuse of a matrix product, which a sum over partners (a load per multiply-add) lacks.

The pull pattern's own rate (fourth line of each row): the matvec kernels' inner loop and nothing else (runs of
32 outputs in four 8-lane registers, each plus 16 partner runs, one load per multiply-add) on page-aligned
inputs and outputs that stay in L1.  The matvec's flops at that rate is what it would take if every partner
were in L1; ``measured matvec / that`` is how much the memory hierarchy (partners from L2 and beyond) costs.
With the baseline, ``2 nnz(Q)/state`` (scipy's count of Q's non-zeros) shows that the flop count is one
multiply-add per non-zero, a few percent over it, not an inflated count.

The preconditioner (one symmetric block Gauss–Seidel sweep, `LevelOperators.precondition`; median of 3) has a
roofline of its own: its flops (`LevelOperators.precondition_flops`: ``V^{⊗n}`` and ``V^{-1⊗n}`` per level
solve, the class solves, the couplings of both sweeps) over the same rate, or its least traffic, 16 bytes (read
the right-hand side, write the solution) per state of every level solve (forward: all levels; backward: all
but K), over the bandwidth.  ``pc/roof`` is the measured time over the larger of the two.

The orthogonalisation (third line of each row): one step of `gmres_right`'s delayed-reorthogonalisation
Gram–Schmidt with j = 20 basis vectors (`_dots2` and `_update2`: two passes over the basis), against the classical
Gram–Schmidt done twice with BLAS matrix–vector products (four passes; the solver's scheme before), interleaved,
median of 3 each; its floor is the two passes' reads, ``2 (j + 2)`` vectors of 8 bytes per state, over the
memory's read bandwidth: a BLAS dot of two 256 MiB vectors on one thread (one core reads about 14–16 GB/s from
memory, where a copy moves about 27 GB/s counting both what it reads and what it writes).  It is a floor once the
basis outgrows the caches; below that it can be beaten.  Everything runs on one thread
(``OPENBLAS_NUM_THREADS=1``; the numba kernels are serial), except the last line's two-thread matvec.

Where one core's bytes come from (fifth line): its read rate over a working set in L2 (1.5 MiB), in L3 (16 MiB)
and in memory (256 MiB), a vectorised numba sum, median of 3; beside it the floor's bandwidth and the size of
x and y together (above 2 MiB they leave L2).  Both cores (sixth line): the levels `apply_pull` forms (all but
a few hundred states) split into two shares of runs, one per thread (`LevelOperators.pull_share`; the kernel
releases the GIL), against one thread forming them all, wall clock, median of 7; their floor is the same 16
bytes per state over what two threads move in a nogil numba add over 2 x 256 MiB (three arrays' bytes counted;
the same kernel on one thread printed beside it).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_output import Page, run  # noqa: E402 - the sibling helper

SETUP = r"""
import json, resource, sys, time
import numpy as np
from crawlmath.numeric import bmap as bm
from crawlmath.numeric.bmap import PhaseType, load_model
K = int(sys.argv[1])
OBSOLESCENCE = PhaseType(np.array([0.6, 0.4]), np.array([[-0.3, 0.1], [0.05, -0.15]]))  # exit rates 0.2, 0.1
m = load_model("avrachenkov-example.json", K=K).with_(obsolescence=OBSOLESCENCE)
if m.R != 2 or m.states != m.full_states:
    raise SystemExit(f"the benchmark model lumped: {m.reduction()}")
lv = m.check_policy(bm.Policy((3, 1), (min(3, K - 1),)))
peak = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
vec = lambda x: np.array([x.p_star, x.n_act, x.lam, x.p_loss, x.p_obs, x.p_success, x.v1, x.v2, x.cost])
"""

STRUCTURED = SETUP + r"""
from crawlmath.numeric.bmap import _structured as bs
from crawlmath.numeric.linalg import _gmres as gm
m8 = load_model("avrachenkov-example.json", K=8).with_(obsolescence=OBSOLESCENCE)  # K = 8 runs every kernel: compile
bs.solve_structured(m8, m8.check_policy(bm.Policy((3, 1), (3,))))
t0 = time.process_time()
st = bs.solve_structured(m, lv)
secs = time.process_time() - t0
t1 = time.process_time()
r = bm.measures(m, lv, st, A_solve=bs.tagged_solver(m))
measure_secs = time.process_time() - t1
dev = None
if K <= 10:
    d = vec(bm.evaluate_levels(m, lv, "sparse"))
    dev = float(np.max(np.abs(vec(r) - d) / np.abs(d)))
peak_solve = peak()

def median_seconds(f, reps, clock=time.process_time):
    ts = []
    for _ in range(reps):
        t = clock(); f(); ts.append(clock() - t)
    return float(np.median(ts))

ops = bs.LevelOperators(m, lv)
x, y = ops.vector(), ops.vector()  # the solver's own work vectors (every pulled level 64-byte aligned)
x[:] = st.flat
mv = median_seconds(lambda: ops.apply_flat(x, y), 7)
pc = median_seconds(lambda: ops.precondition(x, y), 3)
big = np.ones(2**25); out = np.empty_like(big)  # 256 MiB each, 512 MiB together: beyond the caches (L3 480 MiB here)
bw = max(2 * big.nbytes / median_seconds(lambda: np.copyto(out, big), 5),
         3 * big.nbytes / median_seconds(lambda: np.add(big, out, out=out), 5))
read_bw = 2 * big.nbytes / median_seconds(lambda: big @ out, 5)  # reading only (one BLAS thread: one core's)
del big, out

from numba import njit

@njit
def fma_stream(x, y, f, reps):  # the kernels' inner loop: y += f x over contiguous, cache-resident slices
    for _ in range(reps):
        for j in range(x.size):
            y[j] += x[j] * f

a, b = np.random.default_rng(0).random(2048), np.zeros(2048)  # 32 KiB: in L1/L2
fma_stream(a, b, 1e-9, 1)
fma_rate = 2 * a.size * 2000 / median_seconds(lambda: fma_stream(a, b, 1e-9, 2000), 5)

from crawlmath.numeric.linalg._simd import fma8, load8, splat8, store8

PULL_PARTNERS, PULL_STRIDE = 16, 64

@njit
def pull_l1(x, y, f, reps):  # the pull kernels' pattern, nothing else: each run of 32 outputs (four 8-lane
    v = splat8(f)             # registers) plus 16 partner runs, one load per multiply-add, all in L1
    for _ in range(reps):
        for o in range(0, y.size, 32):
            a0, a1, a2, a3 = load8(y, o), load8(y, o + 8), load8(y, o + 16), load8(y, o + 24)
            for k in range(1, PULL_PARTNERS + 1):
                q = o + k * PULL_STRIDE
                a0, a1 = fma8(v, load8(x, q), a0), fma8(v, load8(x, q + 8), a1)
                a2, a3 = fma8(v, load8(x, q + 16), a2), fma8(v, load8(x, q + 24), a3)
            store8(y, o, a0); store8(y, o + 8, a1); store8(y, o + 16, a2); store8(y, o + 24, a3)

# 16 KiB of outputs, 25 KiB of inputs: both in L1 (48 KiB), each on a page boundary (aligned as the solver's
# vectors are: loads that straddle two cache lines run at two thirds of the rate)
py = bs.work_array(2048)
px = bs.work_array(py.size + (PULL_PARTNERS + 1) * PULL_STRIDE)
px[:] = np.random.default_rng(6).random(px.size)
pull_l1(px, py, 1e-9, 1)
pull_rate = 2 * PULL_PARTNERS * py.size * 2000 / median_seconds(lambda: pull_l1(px, py, 1e-9, 2000), 5)
A, B = np.random.default_rng(1).random((1024, 1024)), np.random.default_rng(2).random((1024, 1024))
gemm_rate = 2 * 1024**3 / median_seconds(lambda: A @ B, 3)
X, F = np.random.default_rng(3).random((2**16, 16)), np.random.default_rng(4).random((16, 16))
skinny_rate = 2 * X.size * 16 / median_seconds(lambda: X @ F, 5)  # the shape of the old merged 16-axis GEMM
flops = ops.matvec_flops()
rate = max(fma_rate, gemm_rate, skinny_rate)
floor_bytes = 16 * m.states / bw
floor_flops = flops / rate
pc_flops = ops.precondition_flops()
below_top = m.states - ops.sizes[-1]  # the backward sweep solves every level but K
pc_roof = max(16 * (m.states + below_top) / bw, pc_flops / rate)

# one orthogonalisation step at j = ORTH_J basis vectors: the two passes of `gmres_right` (`_dots2`, `_update2`)
# against CGS2 with BLAS gemv (four passes, the solver's previous scheme), interleaved, on a random basis
ORTH_J = 20
V = np.random.default_rng(5).random((ORTH_J + 2, m.states))
V /= np.linalg.norm(V, axis=1)[:, None]
z0, dots = V[ORTH_J + 1].copy(), np.empty((ORTH_J + 1, 2))

def dcgs2_step():
    z = z0.copy()
    gm._dots2(V, ORTH_J, V[ORTH_J], z, dots)
    gm._update2(V, ORTH_J, dots[:ORTH_J, 0], dots[:ORTH_J, 1], V[ORTH_J], z, 1.0, 0.0, V[ORTH_J + 1])

def cgs2_step():
    w = z0.copy()
    Q = V[: ORTH_J + 1]
    h = Q @ w
    w -= h @ Q
    h2 = Q @ w
    w -= h2 @ Q

dcgs2_step()
orth_new, orth_old = [], []
for _ in range(3):
    orth_new.append(median_seconds(dcgs2_step, 1))
    orth_old.append(median_seconds(cgs2_step, 1))
orth_new, orth_old = float(np.median(orth_new)), float(np.median(orth_old))
orth_floor = 2 * (ORTH_J + 2) * 8 * m.states / read_bw  # two passes, each reading the j basis rows, u and z
del V

# where one core's bytes come from: its read rate over a working set in L2 (1.5 MiB), in L3 (16 MiB) and in
# memory (256 MiB), a numba sum that vectorises (fastmath), each array read 1 GiB over in all
@njit(fastmath=True)
def read_sum(a, reps):
    s = 0.0
    for _ in range(reps):
        for j in range(a.size):
            s += a[j]
    return s

read_sum(np.ones(8), 1)
level_rates = {}
for name, mib in (("L2", 1.5), ("L3", 16), ("memory", 256)):
    arr = np.ones(int(mib * 2**17))
    reps = max(1, 2**30 // arr.nbytes)
    level_rates[name] = arr.nbytes * reps / median_seconds(lambda: read_sum(arr, reps), 3)
    del arr

# two threads: the pulled levels (all but a few hundred states) split into two shares of runs, one per thread
# (`LevelOperators.pull_share`; the kernel releases the GIL), against one thread doing the whole; wall clock
# (two busy threads double the process time).  Their floor is the two cores' bandwidth: a two-thread add over
# 2 x 256 MiB halves (3 arrays' bytes), the same kernel on one thread alongside.
from concurrent.futures import ThreadPoolExecutor

def wall_seconds(f, reps):
    return median_seconds(f, reps, time.perf_counter)

@njit(nogil=True)
def add_share(a, b, part, parts):
    for j in range(a.size * part // parts, a.size * (part + 1) // parts):
        b[j] += a[j]

pool = ThreadPoolExecutor(1)
def on_two(f):
    other = pool.submit(f, 1, 2); f(0, 2); other.result()

one_pull = wall_seconds(lambda: ops.pull_share(x, y, 0, 1), 7)
on_two(lambda part, parts: ops.pull_share(x, y, part, parts))
two_pull = wall_seconds(lambda: on_two(lambda part, parts: ops.pull_share(x, y, part, parts)), 7)
big = np.ones(2**25); out = np.zeros_like(big)
add_share(big, out, 0, 1)
bw_one_add = 3 * big.nbytes / wall_seconds(lambda: add_share(big, out, 0, 1), 5)
bw_two = 3 * big.nbytes / wall_seconds(lambda: on_two(lambda part, parts: add_share(big, out, part, parts)), 5)
del big, out
pulled_states = int(x.size - ops.cuts[ops._pulled[0]])
print(json.dumps({"K": K, "states": m.states, "seconds": secs, "measure_seconds": measure_secs, "peak_GiB": peak_solve,
                  "residual": st.residual, "iterations": st.iterations, "dev_vs_direct": dev, "matvec_seconds": mv,
                  "bandwidth": bw, "read_bandwidth": read_bw, "floor": floor_bytes, "flops": flops, "fma_rate": fma_rate,
                  "gemm_rate": gemm_rate, "skinny_gemm_rate": skinny_rate, "pull_rate": pull_rate, "floor_flops": floor_flops,
                  "roofline": max(floor_bytes, floor_flops),
                  "precond_seconds": pc, "precond_flops": pc_flops, "precond_roofline": pc_roof, "orth_j": ORTH_J,
                  "orth_seconds": orth_new, "orth_cgs2_seconds": orth_old, "orth_floor": orth_floor,
                  "read_rates": level_rates, "pull_one_thread": one_pull, "pull_two_threads": two_pull,
                  "pulled_states": pulled_states, "add_bandwidth_one": bw_one_add, "bandwidth_two": bw_two}))
"""

BASELINE = SETUP + r"""
import scipy.sparse.linalg as spla
t0 = time.process_time()
Q = bm.generator_kronecker(m, lv)
QT = Q.T.tocsr()
assemble = time.process_time() - t0
n = Q.shape[0]
scale = float(np.abs(m.D(lv[0], 0)).max())
c = np.zeros(n); c[: m.W] = scale
A = spla.LinearOperator((n, n), matvec=lambda v: QT @ v + c * v.sum(), dtype=float)
d = Q.diagonal()  # Jacobi of Q (all < 0: every state has an exit); Q_jj + c_j can vanish at level 0
P = spla.LinearOperator((n, n), matvec=lambda v: v / d, dtype=float)
count = [0]
def cb(_):
    count[0] += 1
t1 = time.process_time()
x, info = spla.gmres(A, c, x0=np.full(n, 1.0 / n), M=P, rtol=1e-15, atol=0, restart=40, maxiter=5000, callback=cb,
                     callback_type="pr_norm")
secs = time.process_time() - t1
x /= x.sum()
print(json.dumps({"K": K, "states": n, "nonzeros": int(Q.nnz), "seconds": secs, "assemble_seconds": assemble,
                  "peak_GiB": peak(), "info": int(info),
                  "residual": float(np.abs(QT @ x).max()), "iterations": count[0]}))
"""


def child(code: str, K: int) -> dict:
    """One child process; its JSON line, or ``{"error": ...}``."""
    # one BLAS thread: the level-1 BLAS inside GMRES gains nothing from threads on a shared 2-core machine
    env = dict(os.environ, OPENBLAS_NUM_THREADS=os.environ.get("OPENBLAS_NUM_THREADS", "1"))
    out = subprocess.run([sys.executable, "-c", code, str(K)], capture_output=True, text=True, env=env)
    if out.returncode:
        return {"error": (out.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(out.stdout)


def median_run(code: str, K: int, repeat: int) -> dict:
    """The run with the median solve time out of ``repeat``."""
    runs = [child(code, K) for _ in range(repeat)]
    ok = sorted((r for r in runs if "error" not in r), key=lambda r: r["seconds"])
    return ok[len(ok) // 2] if ok else runs[0]


PAGE = dict(
    name="bmap", title="BMAP chain that does not lump (Avrachenkov et al. model, R = 2)",
    what="`solve_structured` (matrix-free GMRES with block Gauss–Seidel) against scipy's GMRES on the assembled CSR "
         "generator with the Jacobi preconditioner, same system, tolerance (relative 1e-15), restart and start; each a "
         "fresh process, CPU seconds (assembly of the CSR matrix not counted); – where scipy was not run "
         "(`--baseline-max`). The matvec columns: one application of Q (median of 7), its floating-point operations "
         "per state, the memory bandwidth measured in the same run, and the matvec over the time to move 16 bytes "
         "per state at that bandwidth (see the design note on the BMAP matvec).",
    columns=["K", "states", "crawlmath (s)", "GiB", "scipy GMRES + Jacobi (s)", "GiB", "ratio", "matvec (ms)",
             "flop / state", "GB/s", "matvec / bytes floor"],
    x_label="states", y_label="CPU seconds")


def document(page: Page, s: dict, b: dict | None) -> None:
    """The row and the plot points of one K."""
    base_ok = b is not None and "error" not in b
    page.rows.append([str(s["K"]), str(s["states"]), f"{s['seconds']:.2f}", f"{s['peak_GiB']:.2f}",
                      f"{b['seconds']:.2f}" if base_ok else "–", f"{b['peak_GiB']:.2f}" if base_ok else "–",
                      f"{s['seconds'] / b['seconds']:.3f}" if base_ok else "–", f"{s['matvec_seconds'] * 1e3:.2f}",
                      f"{s['flops'] / s['states']:.1f}", f"{s['bandwidth'] / 1e9:.1f}",
                      f"{s['matvec_seconds'] / s['floor']:.1f}"])
    page.curve("crawlmath solve_structured").points.append((s["states"], s["seconds"]))
    if base_ok:
        page.curve("scipy GMRES + Jacobi").points.append((b["states"], b["seconds"]))


def options(parser) -> None:
    parser.add_argument("--K", type=int, nargs="+", default=[12, 14, 16, 18, 20])
    parser.add_argument("--baseline-max", type=int, default=18,
                        help="largest K at which scipy's GMRES runs (its time and memory grow fastest)")
    parser.add_argument("--no-baseline", action="store_true", help="skip scipy's GMRES")
    parser.add_argument("--repeat", type=int, default=1, help="runs per solver and K; the median is printed")


def measure(args, page: Page) -> None:
    print(f"{'K':>3} {'states':>9} | {'ours s':>7} {'GiB':>5} {'it':>3} {'residual':>8} {'meas s':>6} {'vs LU':>7} | "
          f"{'base s':>7} {'+asm s':>6} {'GiB':>5} {'it':>4} {'residual':>8} | {'ratio':>5} | {'GB/s':>5} {'floor ms':>8} "
          f"{'mv/floor':>8} {'it/floor':>8} | {'GF/s':>5} {'fl/st':>5} {'flop ms':>7} {'roof ms':>7} {'mv/roof':>7} "
          f"{'it/roof':>7} {'pc/roof':>7}")
    for K in args.K:
        s = median_run(STRUCTURED, K, args.repeat)
        if "error" in s:
            print(f"{K:>3} structured failed: {s['error']}", flush=True)
            page.note += f"K = {K}: the structured run failed ({s['error']}). "
            continue
        b = None if args.no_baseline or not 10 < K <= args.baseline_max else median_run(BASELINE, K, args.repeat)
        dev = "-" if s["dev_vs_direct"] is None else f"{s['dev_vs_direct']:.1e}"
        ours = (f"{K:>3} {s['states']:>9} | {s['seconds']:>7.2f} {s['peak_GiB']:>5.2f} {s['iterations']:>3} {s['residual']:>8.1e} "
                f"{s['measure_seconds']:>6.2f} {dev:>7} | ")
        if b is None or "error" in b:
            base = f"{'-' if b is None else 'failed':>7} {'':>6} {'':>5} {'':>4} {'':>8} | {'-':>5} | "
        else:
            conv = "" if b["info"] == 0 else "!"  # scipy did not reach the tolerance
            base = (f"{b['seconds']:>7.2f} {b['assemble_seconds']:>6.2f} {b['peak_GiB']:>5.2f} {b['iterations']:>4} "
                    f"{b['residual']:>7.1e}{conv or ' '} | {s['seconds'] / b['seconds']:>5.2f} | ")
        per_it = s["seconds"] / max(s["iterations"], 1)
        roof = s["roofline"]
        print(ours + base + f"{s['bandwidth'] / 1e9:>5.1f} {s['floor'] * 1e3:>8.2f} {s['matvec_seconds'] / s['floor']:>8.1f} "
              f"{per_it / s['floor']:>8.1f} | {max(s['fma_rate'], s['gemm_rate'], s['skinny_gemm_rate']) / 1e9:>5.1f} "
              f"{s['flops'] / s['states']:>5.1f} {s['floor_flops'] * 1e3:>7.2f} {roof * 1e3:>7.2f} "
              f"{s['matvec_seconds'] / roof:>7.1f} {per_it / roof:>7.1f} {s['precond_seconds'] / s['precond_roofline']:>7.1f}",
              flush=True)
        print(f"    matvec {s['matvec_seconds'] * 1e3:.2f} ms, preconditioner {s['precond_seconds'] * 1e3:.2f} ms "
              f"({s['precond_flops'] / s['states']:.1f} flop/state, roof {s['precond_roofline'] * 1e3:.2f} ms); "
              f"Gflop/s: numba y += f x {s['fma_rate'] / 1e9:.1f}, "
              f"dgemm 1024^3 {s['gemm_rate'] / 1e9:.1f}, dgemm (65536x16)(16x16) {s['skinny_gemm_rate'] / 1e9:.1f}",
              flush=True)
        print(f"    orthogonalisation at j = {s['orth_j']}: DCGS2 {s['orth_seconds'] * 1e3:.2f} ms "
              f"({s['orth_seconds'] / s['orth_floor']:.1f}x reading its bytes from memory, "
              f"{s['orth_floor'] * 1e3:.2f} ms at "
              f"{s['read_bandwidth'] / 1e9:.1f} GB/s; below 1 where the basis fits in cache), "
              f"CGS2 (BLAS gemv) {s['orth_cgs2_seconds'] * 1e3:.2f} ms: ratio {s['orth_seconds'] / s['orth_cgs2_seconds']:.2f}",
              flush=True)
        pull = s["flops"] / s["pull_rate"]
        nnz = "" if b is None or "error" in b else f" (2 nnz(Q)/state: {2 * b['nonzeros'] / b['states']:.1f})"
        print(f"    pull kernel pattern from L1 (one load per 8-lane multiply-add): {s['pull_rate'] / 1e9:.1f} Gflop/s; "
              f"the matvec's {s['flops'] / s['states']:.1f} flop/state{nnz} at that rate: {pull * 1e3:.2f} ms = "
              f"{pull / s['floor']:.1f}x the bytes floor; measured matvec / that: {s['matvec_seconds'] / pull:.1f}",
              flush=True)
        rr = s["read_rates"]
        print(f"    one core reads {rr['L2'] / 1e9:.0f} GB/s from L2 (1.5 MiB), {rr['L3'] / 1e9:.0f} from L3 (16 MiB), "
              f"{rr['memory'] / 1e9:.0f} from memory (256 MiB); the floor's bandwidth {s['bandwidth'] / 1e9:.1f} "
              f"(x and y: {16 * s['states'] / 2**20:.0f} MiB)", flush=True)
        floor_two = 16 * s["pulled_states"] / s["bandwidth_two"]
        print(f"    two threads (the pulled levels, {s['pulled_states']} states, in two shares; wall clock): "
              f"{s['pull_two_threads'] * 1e3:.2f} ms vs one thread {s['pull_one_thread'] * 1e3:.2f} ms "
              f"(x{s['pull_one_thread'] / s['pull_two_threads']:.2f}); two cores add at "
              f"{s['bandwidth_two'] / 1e9:.1f} GB/s (one {s['add_bandwidth_one'] / 1e9:.1f}): floor "
              f"{floor_two * 1e3:.2f} ms, two threads / floor {s['pull_two_threads'] / floor_two:.1f}", flush=True)
        if b is not None and "error" in b:
            print(f"    baseline failed: {b['error']}")
        document(page, s, b)


if __name__ == "__main__":
    sys.exit(run(__file__, __doc__, measure, PAGE, options))
