"""Start-up time of cheap ``crawlmath`` subcommands, each a whole process
(issue 15, "Start-up").  Prints figures; asserts nothing about speed (the
import rules are checked by tests/test_startup.py).

For each command: the median wall time of ``REPEATS`` runs, the same against
``python -c "import numpy"`` and ``python -c "pass"`` timed in the same
process, and which heavy modules the command imported (from a separate
``-X importtime`` run).  The console script beside ``sys.executable`` is run
when it exists (the pyenv shim on PATH would add its own ~0.3 s), else
``python -m crawlmath``.

    python benchmarks/startup.py
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

REPEATS = 5
TARGET_SECONDS = 0.5  # issue 15: the whole `crawlmath static ... --json` process
STATIC = ["static", "--lam", "0.05", "--mu", "1", "--gamma", "2.4", "--K", "15", "--json"]
COMMANDS = {
    "static --json": STATIC,
    "--help": ["--help"],
    "schedule --json": ["schedule", "--rates", "0.5,1,2", "--access", "exp:1", "--json"],
    "mdp (K=5, N=16) --json": ["mdp", "--lam", "0.1", "--mu", "1", "--K", "5", "--N", "16", "--gamma", "1", "--json"],
    "codegen --check": ["codegen", "--check"],
}
HEAVY = ("sympy", "numba", "matplotlib", "scipy.sparse.linalg", "scipy.optimize", "scipy", "numpy", "mpmath", "flint")


def crawlmath_command() -> list[str]:
    """The console script installed beside this interpreter, else ``python -m crawlmath``."""
    script = Path(sys.executable).with_name("crawlmath")
    return [str(script)] if script.exists() else [sys.executable, "-m", "crawlmath"]


def wall_time(argv: list[str]) -> float:
    """Seconds for one whole process (output discarded; a non-zero exit is an error)."""
    t0 = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def median_time(argv: list[str], repeats: int = REPEATS) -> float:
    """Median of ``repeats`` runs of :func:`wall_time`, after one warm-up run (file cache)."""
    wall_time(argv)
    return statistics.median(wall_time(argv) for _ in range(repeats))


def heavy_imports(args: list[str]) -> list[str]:
    """The modules of ``HEAVY`` that ``crawlmath ARGS`` imports (``python -X importtime`` lists every import)."""
    cmd = [sys.executable, "-X", "importtime", "-m", "crawlmath", *args]
    err = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True).stderr
    loaded = {line.rsplit("|", 1)[-1].strip() for line in err.splitlines() if line.startswith("import time:")}
    return [m for m in HEAVY if m in loaded]


def main(repeats: int = REPEATS) -> None:
    """Print the start-up table."""
    base = crawlmath_command()
    bare = median_time([sys.executable, "-c", "pass"], repeats)
    numpy_only = median_time([sys.executable, "-c", "import numpy"], repeats)
    print(f"start-up, median of {repeats} whole processes ({' '.join(base)})")
    print(f"  {'python -c pass':34s} {bare:6.3f} s")
    print(f"  {'python -c ' + chr(34) + 'import numpy' + chr(34):34s} {numpy_only:6.3f} s")
    for label, args in COMMANDS.items():
        t = median_time(base + args, repeats)
        target = f"  target <= {TARGET_SECONDS} s: {'met' if t <= TARGET_SECONDS else 'NOT met'}" if args is STATIC else ""
        print(f"  {'crawlmath ' + label:34s} {t:6.3f} s  = {t / numpy_only:4.2f} x import numpy{target}")
        print(f"  {'':34s} imports: {', '.join(heavy_imports(args)) or 'none of ' + '/'.join(HEAVY)}")


if __name__ == "__main__":
    main()
