"""Speed of the static M/M/1/K solver (Liu–Nain §1.2.1).  Prints figures;
asserts nothing about speed.

1. Per call: ``static_optimum(lam, mu, gamma, K)`` (float64, rho to full
   accuracy) against a plain SciPy baseline on the same inputs in the same
   process: ``scipy.optimize.minimize_scalar`` (Brent, default tolerance) on
   the cost (1.4) written in Python floats, then N = floor or ceil of
   rho mu/lam by comparing costs.  The ratio is crawlmath / baseline
   (issue 15's target: <= 1).
2. Table 1.1 (50 cells, lambda = 0.01, mu = 1) in float64 and at 50 digits.
3. Start-up: the whole ``crawlmath static ... --json`` process against
   ``python -c "import numpy"`` and the 0.5 s target (see startup.py).

    python benchmarks/static.py [--calls 300] [--docs docs/performance]
"""
import math
import statistics
import sys
import time
from pathlib import Path

from crawlmath.numeric.static import static_optimum
from crawlmath.proofs.tables.liu_nain_static import TABLE_1_1, TABLE_1_1_K

sys.path.insert(0, str(Path(__file__).resolve().parent))
import startup  # noqa: E402 - the sibling benchmark script
from docs_output import Page, run  # noqa: E402

PER_CALL_INPUTS = [(0.05, 1.0, 2.4, 15), (0.01, 1.0, 0.5, 10), (0.1, 1.0, 1.2, 5), (0.01, 1.0, 3.0, 50),
                   (0.01, 1.0, 0.5, 100), (0.01, 1.0, 5.0, 200), (0.001, 2.0, 0.05, 3)]


def cost_1_4(rho, gamma, K, mu):
    """C(rho, gamma, K) of (1.4) in Python floats (its limit (gamma + mu)/(K + 1) at rho = 1): the baseline's objective."""
    if rho == 1:
        return (gamma + mu) / (K + 1)
    p = rho ** (K + 1)
    return (gamma + mu * p) * (rho - 1) / (p - 1)


def baseline(lam, mu, gamma, K):
    """N(gamma, K) the plain way: minimise (1.4) over rho with scipy, then the better of floor/ceil."""
    from scipy.optimize import minimize_scalar

    rho = minimize_scalar(cost_1_4, bracket=(0.5, 0.9), args=(gamma, K, mu)).x
    x = rho * mu / lam
    return min({max(1, math.floor(x)), max(1, math.ceil(x))}, key=lambda n: (cost_1_4(n * lam / mu, gamma, K, mu), n))


def per_call_seconds(fn, args, calls: int = 300, repeats: int = 3) -> float:
    """Median over ``repeats`` of the mean time of ``calls`` calls."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn(*args)
        times.append((time.perf_counter() - t0) / calls)
    return statistics.median(times)


def evaluations(args) -> str:
    """How many times one float call evaluates Q (2K + 1 terms) and (1.7) (4 terms): where its time goes.
    Counts by wrapping the generated functions for that one call; the generated module is restored after."""
    from crawlmath.numeric.generated import static_mm1k as gen

    counts = {"stationarity_deflated_scalar": 0, "stationarity_derived_scalar": 0}
    originals = {name: getattr(gen, name) for name in counts}

    def counting(name):
        def wrapped(*a):
            counts[name] += 1
            return originals[name](*a)
        return wrapped

    try:
        for name in counts:
            setattr(gen, name, counting(name))
        static_optimum(*args)
    finally:
        for name, f in originals.items():
            setattr(gen, name, f)
    return f"Q x{counts['stationarity_deflated_scalar']}, (1.7) x{counts['stationarity_derived_scalar']}"


def per_call(page: Page, calls: int) -> None:
    """Section 1: per-call time, crawlmath float vs the scipy baseline (rows and curves also go to ``page``)."""
    print(f"per call, float64 (median of 3 x {calls} calls), crawlmath static_optimum vs scipy minimize_scalar on (1.4):")
    for args in PER_CALL_INPUTS:
        ours, theirs = static_optimum(*args).N_opt, baseline(*args)
        t_ours = per_call_seconds(static_optimum, args, calls)
        t_base = per_call_seconds(baseline, args, calls)
        print(f"  lam={args[0]:<5} mu={args[1]} gamma={args[2]:<4} K={args[3]:<3}  crawlmath {t_ours * 1e6:7.1f} us"
              f"  scipy {t_base * 1e6:7.1f} us  ratio {t_ours / t_base:5.2f}  (N {ours} vs {theirs}; {evaluations(args)})")
        page.rows.append([f"{args[0]}, {args[1]}, {args[2]}, {args[3]}", f"{t_ours * 1e6:.1f}", f"{t_base * 1e6:.1f}",
                          f"{t_ours / t_base:.2f}", f"{ours} / {theirs}"])
        if args[1] == 1.0 and args[0] == 0.01:  # one family (lam = 0.01, mu = 1) for the plot against K
            page.curve("crawlmath static_optimum").points.append((args[3], t_ours * 1e6))
            page.curve("scipy minimize_scalar on (1.4)").points.append((args[3], t_base * 1e6))


def reproduce(digits=None):
    """Table 1.1's cells, N(gamma, K) (N_approx for K = inf)."""
    cells = {}
    for g in TABLE_1_1:
        for k in TABLE_1_1_K:
            K = math.inf if k == "∞" else int(k)
            o = static_optimum("0.01", "1", g, K, digits=digits) if digits else static_optimum(0.01, 1.0, float(g), K)
            cells[g, k] = o.N_approx if k == "∞" else o.N_opt
    return cells


def table(repeats=3):
    """Section 2: Table 1.1 in float64 and at 50 digits."""
    for label, digits in (("float64", None), ("50 digits", 50)):
        best = math.inf
        for _ in range(repeats):
            t0 = time.perf_counter()
            cells = reproduce(digits)
            best = min(best, time.perf_counter() - t0)
        matched = sum(str(cells[g, k]) == TABLE_1_1[g][i] for g in TABLE_1_1 for i, k in enumerate(TABLE_1_1_K))
        print(f"Table 1.1 {label:>9}: {best * 1e3:8.1f} ms for {len(cells)} cells ({matched} match the printed table)")


def start_up(repeats=startup.REPEATS):
    """Section 3: the whole `crawlmath static ... --json` process."""
    numpy_only = startup.median_time([sys.executable, "-c", "import numpy"], repeats)
    t = startup.median_time(startup.crawlmath_command() + startup.STATIC, repeats)
    print(f"start-up, median of {repeats} processes: crawlmath {' '.join(startup.STATIC)}: {t:.3f} s; "
          f"python -c \"import numpy\": {numpy_only:.3f} s (ratio {t / numpy_only:.2f}); "
          f"target <= {startup.TARGET_SECONDS} s: {'met' if t <= startup.TARGET_SECONDS else 'NOT met'}")


PAGE = dict(
    name="static", title="Static optimum, float64, per call (Liu–Nain §1.2.1)",
    what="Median of 3 × {calls} calls of `static_optimum(lam, mu, gamma, K)` against a plain SciPy route in the same "
         "process: `scipy.optimize.minimize_scalar` (Brent) on the cost (1.4), then the better of floor/ceil. "
         "Ratio = crawlmath / SciPy; both must give the same N. The plot is the family λ = 0.01, μ = 1.",
    columns=["λ, μ, γ, K", "crawlmath (µs)", "SciPy (µs)", "ratio", "N crawlmath / SciPy"],
    x_label="K (buffer capacity)", y_label="µs per call", log=(True, False))


def options(parser) -> None:
    parser.add_argument("--calls", type=int, default=300, help="calls per timing (median of 3 timings)")
    parser.add_argument("--repeat", type=int, default=startup.REPEATS, help="processes per start-up timing")


def measure(args, page: Page) -> None:
    page.what = page.what.format(calls=args.calls)
    per_call(page, args.calls)
    table()
    start_up(args.repeat)


if __name__ == "__main__":
    sys.exit(run(__file__, __doc__, measure, PAGE, options))
