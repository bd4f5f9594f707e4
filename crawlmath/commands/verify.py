"""``crawlmath verify``: run the claim registry and print one table."""
from __future__ import annotations

import collections
import sys

from ._common import Progress, print_json

NAME = "verify"
HELP = "Check every registered claim of the seed papers (PASS / FAIL / ERRATUM); exit 1 on any FAIL."
EXAMPLE = """
crawlmath verify                      # everything
crawlmath verify --only liu-nain.static --json > static.json
crawlmath verify --list               # ids, sources and statements without running
"""


def add_arguments(p):
    p.add_argument("--only", metavar="PREFIX", action="append", default=[], help="run claims whose id starts with PREFIX (repeatable)")
    p.add_argument("--quick", action="store_true", help="skip claims marked slow")
    p.add_argument("--list", action="store_true", help="list the selected claims without running them")
    p.add_argument("--failures", action="store_true", help="print only rows that are not PASS")
    p.add_argument("--json", action="store_true", help="print a JSON list of {id, source, statement, method, status, detail}")


def run(args) -> int:
    from ..proofs.registry import Status, run as run_claims, select

    claims = select(args.only, quick=args.quick)
    if not claims:
        from ..numeric.errors import InvalidInput

        raise InvalidInput("--only", "matches no claim id", value=",".join(args.only))
    if args.list:
        if args.json:
            print_json([{"id": c.id, "source": str(c.source), "statement": c.statement, "method": c.method.value} for c in claims])
        else:
            for c in claims:
                print(f"{c.id}\t{c.method.value}\t{c.source}\t{c.statement}")
        return 0
    results = run_claims(claims, Progress("verify", enabled=not args.json or sys.stderr.isatty()))
    if args.json:
        print_json([r.as_json() for r in results])
    else:
        _print_table(results, args.failures)
    return 1 if any(r.outcome.status is Status.FAIL for r in results) else 0


def _print_table(results, failures_only: bool) -> None:
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
    counts = collections.Counter(r.outcome.status.value for r in results)
    secs = sum(r.seconds for r in results)
    print(f"\n{len(results)} claims: {counts['PASS']} PASS, {counts['ERRATUM']} ERRATUM, {counts['FAIL']} FAIL  ({secs:.1f} s)")
