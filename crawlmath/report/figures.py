"""The papers' figures, regenerated from our numbers.

Each module ``crawlmath.report.figures_<paper>`` defines ``FIGURES``, a list
of `FigureSpec`.  A spec's ``draw(path)`` computes the curves with the
numeric models, writes a PNG at ``path`` and returns a caption saying what
was computed and how.  When the model API a figure needs does not exist (yet)
``draw`` raises `FigureUnavailable` (or the import fails); the report then
lists the figure as "not generated: <reason>" -- a figure is never silently
missing.

Figures are drawn with matplotlib's object API on the Agg canvas (no pyplot
global state, no display needed).
"""
from __future__ import annotations

import importlib
import pkgutil
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class FigureUnavailable(Exception):
    """A figure cannot be drawn: the model API it needs is missing."""


@dataclass(frozen=True)
class FigureSpec:
    """A figure of the report: file stem, paper key, title, where the original is printed, and ``draw(path)``, which writes the PNG and returns its caption."""
    id: str  # file stem, e.g. "liu-nain-fig-1.2"
    paper: str  # paper key of crawlmath.proofs.registry.PAPERS
    title: str
    source: str  # where the original figure is printed
    draw: Callable[[Path], str]  # writes the PNG, returns the caption


@dataclass(frozen=True)
class FigureResult:
    """The outcome of drawing one figure: its spec, the PNG path relative to the report folder (None if not drawn), caption, reason when not drawn, time in s."""
    spec: FigureSpec
    file: str | None  # path relative to the report folder, None when not generated
    caption: str
    reason: str | None  # why it was not generated
    seconds: float

    def as_json(self) -> dict:
        """The figure's spec and outcome as a JSON-ready dict (``not_generated`` holds the reason, if any)."""
        s = self.spec
        return {"id": s.id, "paper": s.paper, "title": s.title, "source": s.source, "file": self.file,
                "caption": self.caption, "not_generated": self.reason, "seconds": round(self.seconds, 3)}


def new_figure(width: float = 6.4, height: float = 4.2, ncols: int = 1):
    """A matplotlib Figure on the Agg canvas and its Axes (an array when ``ncols > 1``)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.subplots(1, ncols)


def save(fig, path: Path) -> None:
    """Write ``fig`` to ``path`` as a 110 dpi PNG."""
    fig.savefig(path, dpi=110, format="png")


def require(module: str, *names: str):
    """Import ``crawlmath.<module>`` and return the attributes ``names``;
    `FigureUnavailable` names what is missing."""
    try:
        mod = importlib.import_module(f"crawlmath.{module}")
    except ImportError as exc:
        raise FigureUnavailable(f"model module crawlmath.{module} is not available ({exc})") from None
    missing = [n for n in names if not hasattr(mod, n)]
    if missing:
        raise FigureUnavailable(f"crawlmath.{module} does not define {', '.join(missing)}")
    got = [getattr(mod, n) for n in names]
    return got[0] if len(got) == 1 else got


def all_figures(papers: set[str] | None = None) -> list[FigureSpec]:
    """Every `FigureSpec` of the ``figures_*`` modules (optionally only for ``papers``)."""
    from . import __path__ as pkg_path

    specs: list[FigureSpec] = []
    for info in sorted(pkgutil.iter_modules(pkg_path), key=lambda m: m.name):
        if info.name.startswith("figures_"):
            specs += importlib.import_module(f"{__package__}.{info.name}").FIGURES
    return [s for s in specs if papers is None or s.paper in papers]


def render(spec: FigureSpec, folder: Path) -> FigureResult:
    """Draw one figure into ``folder``; failures become a `FigureResult` with a reason."""
    path = Path(folder) / f"{spec.id}.png"
    t0 = time.perf_counter()
    try:
        caption = spec.draw(path)
        with open(path, "rb") as fh:
            if fh.read(8) != PNG_SIGNATURE:
                raise ValueError(f"{path.name} is not a PNG file")
        return FigureResult(spec, f"{Path(folder).name}/{path.name}", caption, None, time.perf_counter() - t0)
    except FigureUnavailable as exc:
        reason = str(exc)
    except Exception as exc:  # noqa: BLE001 - reported in the report, never swallowed
        tb = traceback.extract_tb(exc.__traceback__)[-1]
        reason = f"drawing raised {type(exc).__name__}: {exc} ({tb.filename.rsplit('/', 1)[-1]}:{tb.lineno})"
    if path.exists():
        path.unlink()
    return FigureResult(spec, None, "", reason, time.perf_counter() - t0)


def render_all(specs: list[FigureSpec], folder: Path, progress=None) -> list[FigureResult]:
    """Draw every spec into ``folder`` (created if needed), reporting ``progress(i, n, id)``; one `FigureResult` per spec."""
    Path(folder).mkdir(parents=True, exist_ok=True)
    out = []
    for i, s in enumerate(specs):
        if progress:
            progress(i, len(specs), s.id)
        out.append(render(s, folder))
    if progress:
        progress(len(specs), len(specs), None)
    return out
