"""Time each report figure and the C export (compile + evaluate).

    python benchmarks/report_figures.py            # every figure, then the C export
    python benchmarks/report_figures.py liu-nain   # figures of one paper only
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from crawlmath.derive import codegen, export
from crawlmath.report import catalogue, figures as figs

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_output import run  # noqa: E402 - the sibling helper


def time_figures(papers) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        total = 0.0
        for spec in catalogue.all_figures(papers):
            r = figs.render(spec, Path(tmp))
            total += r.seconds
            status = "ok" if r.file else f"not generated: {r.reason}"
            print(f"{spec.id:28} {r.seconds:7.2f} s  {status}")
        print(f"{'all figures':28} {total:7.2f} s")


def time_c_export() -> None:
    gcc = shutil.which("gcc")
    t0 = time.perf_counter()
    modules = {m: codegen.formulas_of(m) for m in codegen.derivation_modules()}
    t1 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        files = export.expected_files("c", Path(tmp), modules)
        export.write(files)
        t2 = time.perf_counter()
        n = sum(len(fs) for fs in modules.values())
        print(f"{'derive formulas()':28} {t1 - t0:7.2f} s  ({n} formulas in {len(modules)} modules)")
        print(f"{'print C':28} {t2 - t1:7.2f} s")
        if gcc is None:
            print("gcc not found: compile step skipped")
            return
        sources = [str(p) for p in files if p.suffix == ".c"]
        subprocess.run([gcc, "-std=c99", "-O2", *sources, "-lm", "-o", f"{tmp}/eval"], check=True)
        print(f"{'gcc -O2':28} {time.perf_counter() - t2:7.2f} s")


def options(parser) -> None:
    parser.add_argument("papers", nargs="*", help="figures of these papers only (default: every paper)")


def measure(args, page: None) -> None:
    time_figures(set(args.papers) or None)
    time_c_export()


if __name__ == "__main__":
    sys.exit(run(__file__, __doc__, measure, options=options))
