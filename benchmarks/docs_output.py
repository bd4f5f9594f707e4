"""Benchmark results as documentation: each benchmark script given ``--docs DIR`` writes ``DIR/NAME.md`` (a
Markdown fragment: what was timed, the machine, the ratio table) and ``DIR/NAME.png`` (cost against size, crawlmath
and the alternative timed in the same run), so the performance page (docs/performance/) is produced, never typed.

    python benchmarks/static.py --docs docs/performance

Both files are written atomically (a temporary file in DIR, then a rename); nothing else in DIR is touched.
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform
import tempfile
from dataclasses import dataclass, field
from pathlib import Path


def add_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--docs", metavar="DIR", type=Path, default=None,
                        help="also write DIR/NAME.md (ratio table) and DIR/NAME.png (plot) for the docs' performance page")


def machine() -> str:
    """One line naming where and when the numbers were measured, with the load average at the end of the run
    (other work on the machine slows both routes; the ratios are what a reader should compare)."""
    cpu = platform.processor() or platform.machine()
    today = datetime.date.today().isoformat()
    load = os.getloadavg()[0]
    return (f"{today}, {os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, {platform.system()}, "
            f"load average {load:.1f} at the end of the run")


@dataclass
class Series:
    """One curve of the plot: ``label`` and its (x, y) points."""
    label: str
    points: list[tuple[float, float]] = field(default_factory=list)


@dataclass
class Page:
    """A benchmark's docs fragment. ``rows`` are already formatted cells under ``columns``; ``series`` are drawn
    against ``x_label`` / ``y_label`` (log scales when ``log``)."""
    name: str
    title: str
    what: str
    columns: list[str]
    rows: list[list[str]] = field(default_factory=list)
    x_label: str = "size"
    y_label: str = "seconds"
    series: list[Series] = field(default_factory=list)
    log: tuple[bool, bool] = (True, True)

    def curve(self, label: str) -> Series:
        for s in self.series:
            if s.label == label:
                return s
        self.series.append(Series(label))
        return self.series[-1]

    def markdown(self, script: str) -> str:
        head = "| " + " | ".join(self.columns) + " |\n|" + "---|" * len(self.columns) + "\n"
        body = "".join("| " + " | ".join(r) + " |\n" for r in self.rows)
        return (f"## {self.title}\n\n{self.what}\n\nMeasured {machine()} by `python benchmarks/{script} --docs "
                f"docs/performance`.\n\n{head}{body}\n![{self.title}]({self.name}.png)\n")

    def write(self, folder: Path, script: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        _atomic(folder / f"{self.name}.md", self.markdown(script).encode("utf-8"))
        _atomic(folder / f"{self.name}.png", self.png())
        print(f"wrote {folder / self.name}.md and .png")

    def png(self) -> bytes:
        import io

        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(5.5, 3.6), dpi=110)
        for s in self.series:
            xs, ys = zip(*s.points)
            ax.plot(xs, ys, marker="o", label=s.label)
        ax.set_xscale("log" if self.log[0] else "linear")
        ax.set_yscale("log" if self.log[1] else "linear")
        ax.set_xlabel(self.x_label)
        ax.set_ylabel(self.y_label)
        ax.set_title(self.title, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png", metadata={"Software": None})
        plt.close(fig)
        return buf.getvalue()


def _atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
