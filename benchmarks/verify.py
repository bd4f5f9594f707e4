"""Wall time of ``crawlmath verify``: the claims of each paper checked on one worker against ``--workers N``
(one per core by default), each a whole process, run one after the other.

For each ``--only`` prefix (by default the four papers): the claims run, the seconds of checks (the sum of every
claim's own ``seconds`` in the one-worker run's ``--json``), the wall time of the one-worker process and of the
N-worker process, and their ratio (N / 1; 1/N is the best a perfect split could do).  The two runs must give the
same verdicts, claim by claim (the benchmark stops otherwise).  The slowest claims of the one-worker runs are
printed (where the time goes).  ``--ignore-record``: this times checks, it does not judge them.

    python benchmarks/verify.py                                  # every claim, twice (about 8 minutes on 2 cores)
    python benchmarks/verify.py --only coffman --docs docs/performance
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

PAPERS = ("liu-nain", "coffman", "avrachenkov", "buijsrogge")
SLOWEST = 5


def crawlmath_command() -> list[str]:
    """The console script installed beside this interpreter, else ``python -m crawlmath``."""
    script = Path(sys.executable).with_name("crawlmath")
    return [str(script)] if script.exists() else [sys.executable, "-m", "crawlmath"]


def verify(prefix: str, workers: int) -> tuple[list[dict], float]:
    """(the claims' JSON records, wall seconds) of ``crawlmath verify --only PREFIX --workers N``."""
    argv = [*crawlmath_command(), "verify", "--only", prefix, "--workers", str(workers), "--ignore-record", "--json"]
    t0 = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if out.returncode not in (0, 1):  # 1: a claim FAILs, which is a verdict, not a failed run
        raise SystemExit(f"{' '.join(argv[1:])}: exit {out.returncode}: {out.stderr.strip()[-500:]}")
    return json.loads(out.stdout), wall


PAGE = dict(
    name="verify", title="crawlmath verify: one worker against one per core",
    what="Each paper's claims checked by `crawlmath verify --only PAPER --ignore-record --json`, a whole process "
         "with one worker and then with `--workers N`, on the same machine in the same run; checks is the sum of "
         "the claims' own seconds in the one-worker run. Ratio = N workers / 1 worker (1/N at best); both runs "
         "must give the same verdicts. The slowest claims are listed under the table.",
    columns=["claims", "count", "checks (s)", "wall, 1 worker (s)", "wall, N workers (s)", "N", "ratio"],
    x_label="claims", y_label="wall seconds")


def options(parser) -> None:
    parser.add_argument("--only", action="append", help="claim-id prefix (repeatable; default: each paper)")
    parser.add_argument("--workers", type=int, default=os.cpu_count(), help="the parallel run's workers")


def measure(args, page: Page) -> None:
    slow = []
    print(f"{'claims':<14} {'count':>5} {'checks s':>9} {'1 worker s':>10} {args.workers:>3} workers s {'ratio':>6}")
    for prefix in args.only or PAPERS:
        one, wall_one = verify(prefix, 1)
        many, wall_many = verify(prefix, args.workers)
        first, second = ({c["id"]: c["status"] for c in run_} for run_ in (one, many))
        if first != second:
            differ = sorted(cid for cid in first.keys() | second.keys() if first.get(cid) != second.get(cid))
            raise SystemExit(f"{prefix}: the 1- and {args.workers}-worker runs disagree on {', '.join(differ)}")
        checks = sum(c["seconds"] or 0.0 for c in one)
        print(f"{prefix:<14} {len(one):>5} {checks:>9.1f} {wall_one:>10.1f} {wall_many:>13.1f} "
              f"{wall_many / wall_one:>6.2f}", flush=True)
        page.rows.append([f"`{prefix}`", str(len(one)), f"{checks:.1f}", f"{wall_one:.1f}", f"{wall_many:.1f}",
                          str(args.workers), f"{wall_many / wall_one:.2f}"])
        page.curve("1 worker", line=False).points.append((len(one), wall_one))
        page.curve(f"{args.workers} workers", line=False).points.append((len(one), wall_many))
        slow += [(c["seconds"] or 0.0, c["id"]) for c in one]
    slowest = ", ".join(f"`{cid}` {s:.1f} s" for s, cid in sorted(slow, reverse=True)[:SLOWEST])
    print(f"slowest claims (one worker): {slowest}")
    page.note = f"Slowest claims (one worker): {slowest}."


if __name__ == "__main__":
    sys.exit(run(__file__, __doc__, measure, PAGE, options))
