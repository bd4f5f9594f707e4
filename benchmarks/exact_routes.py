"""Where the exact rational route of ``ctmc_stationary(Q, digits=D)`` stops
(``EXACT_MAX`` in numeric/markov/_ctmc.py).  Prints figures; asserts nothing about speed.

The first route of the digits= solve is either the exact solve over the
rationals (python-flint ``fmpq_mat``) or the ball solve (``arb_mat``, balls
from the exact rates, at the precision for D digits); the second route (mpmath
GTH) is common to both and not timed.  For three kinds of generator --
birth-death at rate 7/10, four random rates p/q (p, q < 100) per row, and
dense random rates p/q -- the two are timed in the same process and the ratio
exact / ball is printed.  Exact pays for the growth of the denominators, so
the ratio grows with n and with the size of the rates' denominators.

    python benchmarks/exact_routes.py [--sizes 50,100,200,300] [--docs docs/performance]
"""
import random
import sys
import time
from fractions import Fraction
from pathlib import Path

from crawlmath.numeric.markov import _ctmc as ctmc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_output import Page, run  # noqa: E402 - the sibling helper

DIGITS = 30


def birth_death(n: int) -> list[list[Fraction]]:
    return [[Fraction(7, 10) if j == i + 1 else Fraction(1) if j == i - 1 else Fraction(0) for j in range(n)]
            for i in range(n)]


def sparse_random(n: int, rng: random.Random) -> list[list[Fraction]]:
    R = [[Fraction(0)] * n for _ in range(n)]
    for i in range(n):
        for j in rng.sample(range(n), min(n, 4)):
            if j != i:
                R[i][j] = Fraction(rng.randint(1, 99), rng.randint(1, 99))
        R[i][(i + 1) % n] += Fraction(1, 3)  # a cycle: irreducible
    return R


def dense_random(n: int, rng: random.Random) -> list[list[Fraction]]:
    return [[Fraction(rng.randint(1, 99), rng.randint(1, 99)) if j != i else Fraction(0) for j in range(n)]
            for i in range(n)]


def seconds(f) -> float:
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def check(rates) -> None:
    """The two first routes agree: the exact π lies in every ball (the benchmark's own correctness check)."""
    import mpmath

    pi = ctmc._fmpq_solve(rates)
    with mpmath.workdps(DIGITS + 15):
        mids, radius = ctmc._arb_solve(rates, DIGITS)
        for p, m in zip(pi, mids):
            man, exp = m.man_exp
            if not abs(Fraction(int(man)) * Fraction(2) ** int(exp) - p) <= Fraction(radius):
                raise SystemExit(f"ball misses the exact value {p}")


PAGE = dict(
    name="exact_routes", title="ctmc_stationary(digits=30): exact rational vs ball route",
    what="The first route of the digits= solve, timed in the same process for three kinds of generator: the exact "
         "solve over the rationals (python-flint `fmpq_mat`) against the ball solve (`arb_mat`, balls from the exact "
         "rates). Ratio = exact / ball; where it stays small the exact route is used (`EXACT_MAX` in numeric/markov/_ctmc.py).",
    columns=["generator", "states n", "exact (s)", "ball (s)", "exact / ball"],
    x_label="states n", y_label="seconds")


def options(parser) -> None:
    parser.add_argument("--sizes", default="50,100,200,300", help="comma-separated state counts")


def measure(args, page: Page) -> None:
    sizes = tuple(int(v) for v in args.sizes.split(","))
    rng = random.Random(1)
    print(f"{'generator':>14} {'n':>4} {'exact s':>8} {'ball s':>8} {'exact/ball':>10}")
    for kind, make in (("birth-death", lambda n: birth_death(n)), ("4 random/row", lambda n: sparse_random(n, rng)),
                       ("dense random", lambda n: dense_random(n, rng))):
        for n in sizes:
            rates = make(n)
            if n == sizes[0]:
                check(rates)
            t_exact = seconds(lambda: ctmc._fmpq_solve(rates))
            t_ball = seconds(lambda: ctmc._arb_solve(rates, DIGITS))
            print(f"{kind:>14} {n:>4} {t_exact:8.3f} {t_ball:8.3f} {t_exact / t_ball:10.2f}", flush=True)
            page.rows.append([kind, str(n), f"{t_exact:.3f}", f"{t_ball:.3f}", f"{t_exact / t_ball:.2f}"])
            page.curve(f"exact, {kind}").points.append((n, t_exact))
            page.curve(f"ball, {kind}").points.append((n, t_ball))


if __name__ == "__main__":
    sys.exit(run(__file__, __doc__, measure, PAGE, options))
