"""``crawlmath report``: run the registry and write the verification report
(index.html + report.md + results.json + PNG figures) atomically."""
from __future__ import annotations

from pathlib import Path

from ._common import Progress, add_progress_option, inputs, print_json, progress_wanted

NAME = "report"
HELP = "Write the verification report (index.html, report.md, PNG figures) into --out DIR; exit 1 if a claim FAILs."
EXAMPLE = """
crawlmath report --out report                       # every claim and every figure
crawlmath report --out /tmp/r --only liu-nain.static --quick --no-figures
crawlmath report --out report --json                # summary as JSON (figures, counts, folder)
crawlmath report --out docs/_build/html/report      # into the built docs site: paper pages and report link both ways
crawlmath report --out report --docs docs/_build/html   # elsewhere: where the docs site is
"""


def add_arguments(p):
    """Register the options of ``crawlmath report`` on the argparse parser ``p``."""
    p.add_argument("--out", metavar="DIR", required=True, help="report folder (replaced atomically; a failed run leaves the old one)")
    p.add_argument("--only", metavar="PREFIX", action="append", default=[], help="claims whose id starts with PREFIX (repeatable)")
    p.add_argument("--quick", action="store_true", help="skip claims marked slow")
    p.add_argument("--figures", dest="figures", action="store_true", default=True, help="draw the papers' figures (default)")
    p.add_argument("--no-figures", dest="figures", action="store_false", help="skip the figures (listed as not generated)")
    add_progress_option(p)
    p.add_argument("--docs", metavar="DIR",
                   help="the built docs site each paper links to (relative links; default: the folder holding --out, "
                        "i.e. a report written into the site as report/)")
    p.add_argument("--force", action="store_true",
                   help="overwrite files in --out that no previous report wrote (never through a symbolic link)")
    p.add_argument("--json", action="store_true", help="print a JSON summary instead of text (the inputs echoed under \"inputs\")")


def run(args) -> int:
    """``crawlmath report``: run the claims, draw the figures and write index.html and report.md into ``--out``;
    returns 1 if a claim FAILs, else 0.
    """
    from ..numeric.errors import InvalidInput
    from ..proofs.registry import select
    from ..report.catalogue import all_figures
    from ..report.build import build, check_destination

    check_destination(Path(args.out).absolute())  # before importing and running the claims (3 s and more)
    claims = select(args.only, quick=args.quick)
    if not claims:
        raise InvalidInput("--only", "matches no claim id", value=",".join(args.only))
    selection = ("claims " + ", ".join(f"{p}*" for p in args.only) if args.only else "all claims") + (" (quick: slow claims skipped)" if args.quick else "")
    show = progress_wanted(args)
    # every paper's figures for a full report; with --only, those of the papers named
    papers = {p.split(".", 1)[0] for p in args.only} or None
    specs = all_figures(papers) if args.figures else None
    data = build(
        Path(args.out), claims, figures=args.figures, figure_specs=specs, selection=selection,
        progress=Progress("report: claims", enabled=show, unit="claim", total=len(claims)),
        figure_progress=Progress("report: figures", enabled=show, unit="figure"), force=args.force,
        docs=None if args.docs is None else Path(args.docs),
    )
    out = Path(args.out)
    counts = data.counts
    missing = [f for f in data.figures if f.file is None]
    skipped = [f for f in missing if f.skipped]
    if args.json:
        print_json({
            "out": str(out), "index": str(out / "index.html"), "markdown": str(out / "report.md"),
            "counts": {k: counts[k] for k in ("PASS", "FAIL", "ERRATUM")},
            "figures": [f.as_json() for f in data.figures], "figures_enabled": data.figures_enabled,
            "inputs": inputs(args),
        })
    else:
        print(f"{len(data.results)} claims: {counts['PASS']} PASS, {counts['ERRATUM']} ERRATUM, {counts['FAIL']} FAIL")
        if data.figures_enabled:
            print(f"{len(data.figures) - len(missing)} figures drawn, {len(skipped)} skipped, "
                  f"{len(missing) - len(skipped)} not generated")
            for f in missing:
                print(f"  {f.status}: {f.spec.id}: {f.reason}")
        print(f"wrote {out / 'index.html'} and {out / 'report.md'}")
    return 1 if counts["FAIL"] else 0
