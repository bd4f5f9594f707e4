"""``crawlmath sweep``: evaluate a subcommand over a parameter grid on Dask (issue 16)."""
from __future__ import annotations

import sys

from ._common import inputs, integer, print_json

NAME = "sweep"
HELP = "Run static/mdp/bmap/schedule/colours over a parameter grid on Dask; JSON Lines out, resumable."
EXAMPLE = """
crawlmath sweep grid.toml --out grid.jsonl                   # embedded local cluster, one worker per core
crawlmath sweep grid.toml --out grid.jsonl                   # again: resumes, skips points already present
crawlmath sweep grid.toml --out grid.jsonl --scheduler tcp://10.0.0.5:8786 --json
# grid.toml:  command = "mdp"
#             [fixed]  mu = 1    N = "auto"
#             [grid]   lam = [0.05, 0.1]   K = [5, 10, 15]   gamma = [0.4, 1.2, 2.4]
"""


def add_arguments(p):
    """Register the options of ``crawlmath sweep`` on the argparse parser ``p``."""
    p.add_argument("spec", metavar="SPEC", help="sweep spec (TOML if named *.toml, else JSON): command, [fixed], [grid]")
    p.add_argument("--out", required=True, metavar="FILE",
                   help="JSON Lines output; an existing sweep file of the same spec is resumed, any other file refused")
    engine = p.add_mutually_exclusive_group()
    engine.add_argument("--workers", type=integer("--workers"), metavar="N",
                        help="size of the embedded local cluster (processes of one thread; default: the usable cores)")
    engine.add_argument("--scheduler", metavar="ADDRESS",
                        help="use an existing Dask cluster, e.g. tcp://HOST:8786 (started with `dask scheduler`)")
    p.add_argument("--progress", action="store_true",
                   help="show progress with an ETA on stderr even under --json or when stderr is not a terminal")
    p.add_argument("--json", action="store_true", help="print a JSON summary of the run")


def run(args) -> int:
    """``crawlmath sweep``: run a spec's parameter grid into a resumable JSON Lines file; returns 0 when every point
    is recorded, 3 when some were not delivered, 130 when interrupted.
    """
    from .. import sweep as S

    if args.workers is not None:
        S.require_workers(args.workers)  # before reading anything: the cluster's cost is known from N alone
    spec = S.load_spec(args.spec)
    show = args.progress or (not args.json and sys.stderr.isatty())
    progress = S.EtaProgress() if show else None
    try:
        summary = S.run_sweep(spec, args.out, workers=args.workers, scheduler=args.scheduler, progress=progress)
    except KeyboardInterrupt:
        print(f"crawlmath: interrupted; {args.out} holds whole records only: rerun the same command to resume",
              file=sys.stderr)
        return 130
    if progress:
        progress(summary, final=True)
    if args.json:
        print_json({**summary.as_json(), "inputs": inputs(args)})
    else:
        _print(summary)
    if summary.complete:
        return 0
    print(f"crawlmath: {len(summary.undelivered)} points were not delivered (not recorded): rerun to retry them",
          file=sys.stderr)
    return 3


def _print(s) -> None:
    from ..sweep import RECORDED_EXITS

    errors = ", ".join(f"{n} exit {code} ({RECORDED_EXITS[code]})" for code, n in sorted(s.errors.items())) or "none"
    print(f"sweep {s.command}: {s.points} points in {s.out} ({s.engine}, {s.seconds:.1f} s)")
    print(f"  present before  {s.present}")
    print(f"  written now     {s.written}  (ok {s.ok}; error records: {errors})")
    if s.undelivered:
        print(f"  NOT delivered   {len(s.undelivered)}  (not recorded; rerun to retry)")
        for u in s.undelivered[:10]:
            print(f"    {u['point']}: {u['error']}")
    print("  complete" if s.complete else "  INCOMPLETE")
