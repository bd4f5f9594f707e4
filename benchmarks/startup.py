"""Start-up time of cheap ``crawlmath`` subcommands, each a whole process
(issue 15, "Start-up").  Prints figures; asserts nothing about speed (the
import rules are checked by tests/test_startup.py).

For each command: the median wall time of ``REPEATS`` runs, the same against
``python -c "import numpy"`` and ``python -c "pass"`` timed in the same
process, and which heavy modules the command imported (from a separate
``-X importtime`` run).  The console script beside ``sys.executable`` is run
when it exists (the pyenv shim on PATH would add its own ~0.3 s), else
``python -m crawlmath``.

    python benchmarks/startup.py [--repeat 5] [--docs docs/performance]
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_output import Page, run  # noqa: E402 - the sibling helper

REPEATS = 5
TARGET_SECONDS = 0.5  # issue 15: the whole `crawlmath static ... --json` process
STATIC = ["static", "--lam", "0.05", "--mu", "1", "--gamma", "2.4", "--K", "15", "--json"]
COMMANDS = {
    "static": STATIC,
    "help": ["--help"],
    "schedule": ["schedule", "--rates", "0.5,1,2", "--access", "exp:1", "--json"],
    "mdp": ["mdp", "--lam", "0.1", "--mu", "1", "--K", "5", "--N", "16", "--gamma", "1", "--json"],
    "codegen": ["codegen", "--check"],
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


PAGE = dict(
    name="startup", title="Start-up: cheap crawlmath commands, each a whole process",
    what="Median wall time of `--repeat` whole processes (after one warm-up run) of each command against "
         "`python -c \"import numpy\"` timed in the same run (the floor of any numerical Python tool), and the "
         "heavy modules each command imported (`python -X importtime`). Ratio = crawlmath / import numpy; issue 15's "
         f"target for `static --json` is {TARGET_SECONDS} s. (`codegen --check` re-derives every generated module "
         "with SymPy: it is listed for its imports, not as a cheap command.)",
    columns=["command", "crawlmath (s)", "python -c \"import numpy\" (s)", "ratio", "heavy modules imported"],
    x_label="command", y_label="wall seconds per process", log=(False, True))


def options(parser) -> None:
    parser.add_argument("--repeat", type=int, default=REPEATS, help="processes per timing (median)")
    parser.add_argument("--commands", default=",".join(COMMANDS), help=f"comma-separated, from {', '.join(COMMANDS)}")


def measure(args, page: Page) -> None:
    """Print the start-up table (and fill ``page``)."""
    repeats = args.repeat
    base = crawlmath_command()
    bare = median_time([sys.executable, "-c", "pass"], repeats)
    numpy_only = median_time([sys.executable, "-c", "import numpy"], repeats)
    print(f"start-up, median of {repeats} whole processes ({' '.join(base)})")
    print(f"  {'python -c pass':34s} {bare:6.3f} s")
    print(f"  {'python -c ' + chr(34) + 'import numpy' + chr(34):34s} {numpy_only:6.3f} s")
    page.x_ticks = []
    for name in args.commands.split(","):
        argv = COMMANDS[name]
        t = median_time(base + argv, repeats)
        target = f"  target <= {TARGET_SECONDS} s: {'met' if t <= TARGET_SECONDS else 'NOT met'}" if argv is STATIC else ""
        heavy = ", ".join(heavy_imports(argv)) or "none of " + "/".join(HEAVY)
        print(f"  {'crawlmath ' + name:34s} {t:6.3f} s  = {t / numpy_only:4.2f} x import numpy{target}")
        print(f"  {'':34s} imports: {heavy}")
        page.rows.append([f"`crawlmath {' '.join(argv)}`", f"{t:.3f}", f"{numpy_only:.3f}", f"{t / numpy_only:.2f}",
                          heavy])
        page.curve("crawlmath", line=False).points.append((len(page.x_ticks), t))
        page.curve('python -c "import numpy"').points.append((len(page.x_ticks), numpy_only))
        page.x_ticks.append(name)


if __name__ == "__main__":
    sys.exit(run(__file__, __doc__, measure, PAGE, options))
