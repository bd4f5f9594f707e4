"""``crawlmath codegen``: emit numeric/generated/ from the SymPy derivations."""
from __future__ import annotations

from ._common import print_json

NAME = "codegen"
HELP = "Emit numeric/generated/ from the SymPy derivations in derive/ (--check: fail if stale)."
EXAMPLE = """
crawlmath codegen            # rewrite stale generated modules (atomically)
crawlmath codegen --check    # exit 1 if the committed code differs from the derivations
"""


def add_arguments(p):
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 when a generated file is stale, missing or orphaned")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def run(args) -> int:
    from ..derive import codegen

    if args.check:
        st = codegen.check()
        report = {"clean": st.clean, "changed": [str(p) for p in st.changed], "missing": [str(p) for p in st.missing], "orphaned": [str(p) for p in st.orphaned]}
        if args.json:
            print_json(report)
        elif st.clean:
            print(f"generated code is up to date ({len(codegen.derivation_modules())} modules)")
        else:
            for kind in ("changed", "missing", "orphaned"):
                for p in report[kind]:
                    print(f"stale ({kind}): {p}")
            print("run 'crawlmath codegen' to regenerate")
        return 0 if st.clean else 1
    touched = codegen.generate()
    if args.json:
        print_json({"written": [str(p) for p in touched]})
    else:
        print("\n".join(f"wrote {p}" for p in touched) or "generated code is up to date")
    return 0
