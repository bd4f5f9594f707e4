"""``crawlmath verify``: run the claim registry, print one table, and compare
every verdict with the committed record (``proofs/verdicts.json``).

Exit status (so a script can tell a known finding from a regression):
  0  every claim run is PASS or ERRATUM, as recorded
  1  some claims FAIL -- known findings about the papers, all as recorded
  2  bad input (e.g. ``--only`` matches nothing)
  5  a verdict differs from the record (or a claim is new / gone): crawlmath
     changed; update the record deliberately with ``--update-record --reason``
"""
from __future__ import annotations

import collections
import sys
import time

from ._common import Progress, add_progress_option, integer, print_json, progress_wanted

NAME = "verify"
HELP = "Check every registered claim of the seed papers (PASS / FAIL / ERRATUM) against the verdict record."
EXAMPLE = """
crawlmath verify                      # everything; exit 0 all hold, 1 known FAILs, 5 a verdict changed
crawlmath verify --quick --failures   # skip slow claims, show only what is not PASS
crawlmath verify --only liu-nain.static --json > static.json
crawlmath verify --list               # ids, sources and statements without running
crawlmath verify --workers 1          # one process (default: one worker process per core)
crawlmath verify --scheduler tcp://HOST:8786   # claims on an existing Dask cluster
crawlmath verify --update-record --reason "Table 2 K=20 computed through the lumped chain"
"""
EXIT_VERDICT_CHANGED = 5


def add_arguments(p):
    """Register the options of ``crawlmath verify`` on the argparse parser ``p``."""
    p.add_argument("--only", metavar="PREFIX", action="append", default=[], help="run claims whose id starts with PREFIX (repeatable)")
    p.add_argument("--quick", action="store_true", help="skip claims marked slow")
    p.add_argument("--list", action="store_true", help="list the selected claims without running them")
    p.add_argument("--failures", action="store_true", help="print only rows that are not PASS")
    p.add_argument("--json", action="store_true",
                   help="print a JSON list of {id, source, statement, method, status, recorded, detail, ...}")
    p.add_argument("--ignore-record", action="store_true", help="do not compare with the verdict record (exit 0 or 1 only)")
    p.add_argument("--update-record", action="store_true",
                   help="write the verdicts of the claims run into the record (needs --reason); exit 0 or 1")
    p.add_argument("--reason", metavar="TEXT", help="why the verdicts change; kept in the record's history")
    p.add_argument("--workers", type=integer("--workers"), metavar="N",
                   help="worker processes on this machine (default: one per core; 1 runs in this process). Claims that share "
                        "work run in the same worker, the longest groups first")
    p.add_argument("--scheduler", metavar="ADDRESS", help="run the claims on an existing Dask cluster (tcp://HOST:PORT)")
    add_progress_option(p)


def run(args) -> int:
    """``crawlmath verify``: check the registered claims and compare the verdicts with the committed record;
    returns 1 if a claim FAILs, 5 (``EXIT_VERDICT_CHANGED``) if verdicts differ from the record, else 0.
    """
    from ..proofs import record as rec
    from ..proofs.registry import Status, all_claims, select
    from ..numeric.errors import InvalidInput

    started = time.perf_counter()  # the elapsed time printed includes importing the claim modules
    if args.update_record and not (args.reason and args.reason.strip()):
        raise InvalidInput("--reason", "is required with --update-record (say why the verdicts change)")
    if args.workers is not None and args.workers < 1:  # before importing every claim module (3 s)
        raise InvalidInput("--workers", "must be >= 1", value=args.workers)
    claims = select(args.only, quick=args.quick)
    if not claims:
        raise InvalidInput("--only", "matches no claim id", value=",".join(args.only))
    if args.list:
        if args.json:
            print_json([{"id": c.id, "source": str(c.source), "statement": c.statement, "method": c.method.value} for c in claims])
        else:
            for c in claims:
                print(f"{c.id}\t{c.method.value}\t{c.source}\t{c.statement}")
        return 0
    with Progress("verify", enabled=progress_wanted(args), unit="claim", total=len(claims)) as progress:
        if args.scheduler:
            from ..sweep import run_claims_parallel

            results = run_claims_parallel(claims, workers=args.workers, scheduler=args.scheduler, progress=progress)
        else:
            from ..proofs.runner import default_workers, run_parallel

            results = run_parallel(claims, args.workers or default_workers(), progress)
    statuses = {r.claim.id: r.outcome.status.value for r in results}
    complete = not args.only and not args.quick
    record = rec.load()
    changes = [] if args.ignore_record else record.diff(statuses, complete)
    if args.json:
        rows = []
        for r in results:
            row = r.as_json()
            row["recorded"] = record.claims.get(r.claim.id)
            rows.append(row)
        print_json(rows)
    else:
        _print_table(results, args.failures, time.perf_counter() - started)
    failed = any(r.outcome.status is Status.FAIL for r in results)
    if args.update_record:
        registered = {c.id for c in all_claims()}
        rec.save(record.updated(statuses, complete, args.reason.strip(), registered))
        print(f"verify: record updated ({len(changes)} verdict(s) changed): {rec.PATH}", file=sys.stderr)
        return 1 if failed else 0
    if changes:
        _print_changes(changes)
        return EXIT_VERDICT_CHANGED
    return 1 if failed else 0


def _print_changes(changes) -> None:
    print(f"\nverify: {len(changes)} verdict(s) differ from the record (proofs/verdicts.json):", file=sys.stderr)
    for c in changes:
        print(f"  {c}", file=sys.stderr)
    print("verify: if the change is intended, run `crawlmath verify --update-record --reason TEXT` and say why in the commit",
          file=sys.stderr)


def _print_table(results, failures_only: bool, wall: float) -> None:
    rows = [r for r in results if not failures_only or r.outcome.status.value != "PASS"]
    wid = max([len(r.claim.id) for r in rows] + [5])
    print(f"{'status':8} {'id':{wid}} {'method':10} detail")
    for r in rows:
        detail = r.outcome.detail.replace("\n", " ")
        print(f"{r.outcome.status.value:8} {r.claim.id:{wid}} {r.claim.method.value:10} {detail}")
        if r.outcome.erratum:
            e = r.outcome.erratum
            print(f"{'':8} {'':{wid}} {'':10}   printed:   {e.printed}")
            print(f"{'':8} {'':{wid}} {'':10}   corrected: {e.corrected}")
    _print_certification(results)
    counts = collections.Counter(r.outcome.status.value for r in results)
    secs = sum(r.seconds for r in results)
    print(f"\n{len(results)} claims: {counts['PASS']} PASS, {counts['ERRATUM']} ERRATUM, {counts['FAIL']} FAIL  "
          f"({secs:.1f} s of checks, {wall:.1f} s elapsed with the registry's import)")


def _print_certification(results) -> None:
    from ..numeric.tolerance import SINGLE_RUN_FLIP
    from ..proofs.certification import LEVELS, NOTES, summary

    table = summary(results)
    print("\ncertification by paper: " + ", ".join(label for _, label in LEVELS) + "; table cells certain/total "
          f"(of which statistically: simulation cells whose verdict is wrong with probability < {SINGLE_RUN_FLIP:g})")
    for paper, c in sorted(table.items()):
        levels = " / ".join(str(c.get(key, 0)) for key, _ in LEVELS)
        stat = c.get("cells certain (statistical)", 0)
        print(f"  {paper:12} {levels}; cells {c.get('cells certain', 0)}/{c.get('cells', 0)}" + (f" ({stat} statistically)" if stat else ""))
        for text in NOTES.get(paper, ()):
            print(f"  {'':12} note: {text}")
    cells = sum(c.get("cells", 0) for c in table.values())
    if cells:
        certain = sum(c.get("cells certain", 0) for c in table.values())
        print(f"  {'all':12} cells {certain}/{cells} certain ({100 * certain / cells:.1f}%)")
