"""The papers' figures, regenerated from our numbers: the machinery.

Each module ``crawlmath.report.figures_<paper>`` defines ``FIGURES``, a list
of `FigureSpec`; :mod:`crawlmath.report.catalogue` lists those modules.  A
spec's ``draw(path, **sizes)`` computes the curves with the numeric models,
writes a PNG at ``path`` and returns a caption saying what was computed and
how; ``spec.small`` holds the keyword arguments of a small run (the same code
at small sizes, for the tests).

A figure that needs an optional package which is not installed (matplotlib:
`OPTIONAL_PACKAGES`) is *skipped*, by name, and the report lists it as
"skipped: ...".  A figure whose drawing raises is listed as "not generated:
<the error>".  An import error of crawlmath's own code (a moved or renamed
module) is a bug: `render` lets it propagate (``crawlmath report`` exits 70),
it never becomes a quiet "not generated".

Figures are drawn with matplotlib's object API on the Agg canvas (no pyplot
global state, no display needed).
"""
from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Packages a figure may need that crawlmath can run without: a figure needing one that is missing is skipped.
OPTIONAL_PACKAGES = ("matplotlib",)


class FigureSkipped(Exception):
    """A figure cannot be drawn here: an optional package it needs (`OPTIONAL_PACKAGES`) is not installed."""


@dataclass(frozen=True)
class FigureSpec:
    """A figure of the report: file stem, paper key, title, where the original is printed, ``draw(path, **sizes)``,
    which writes the PNG and returns its caption, and ``small``: the keyword arguments of a small, fast run."""
    id: str  # file stem, e.g. "liu-nain-fig-1.2"
    paper: str  # paper key of crawlmath.proofs.registry.PAPERS
    title: str
    source: str  # where the original figure is printed
    draw: Callable[..., str]  # draw(path, **sizes): writes the PNG, returns the caption
    small: Mapping[str, Any] = field(default_factory=dict)  # sizes of a small run (tests), never of the report


@dataclass(frozen=True)
class FigureResult:
    """The outcome of drawing one figure: its spec, the PNG path relative to the report folder (None if not drawn),
    caption, reason when not drawn, whether it was skipped (an optional package is missing), time in s."""
    spec: FigureSpec
    file: str | None  # path relative to the report folder, None when not generated
    caption: str
    reason: str | None  # why it was not generated
    seconds: float
    skipped: bool = False  # not drawn because an optional package is missing (reason names it)

    @property
    def status(self) -> str:
        """"drawn", "skipped" (an optional package is missing) or "not generated" (the drawing raised)."""
        return "drawn" if self.file is not None else "skipped" if self.skipped else "not generated"

    def as_json(self) -> dict:
        """The figure's spec and outcome as a JSON-ready dict (``not_generated`` holds the reason, if any;
        ``skipped``: the reason is a missing optional package)."""
        s = self.spec
        return {"id": s.id, "paper": s.paper, "title": s.title, "source": s.source, "file": self.file,
                "caption": self.caption, "not_generated": self.reason, "skipped": self.skipped,
                "seconds": round(self.seconds, 3)}


def new_figure(width: float = 6.4, height: float = 4.2, ncols: int = 1):
    """A matplotlib Figure on the Agg canvas and its Axes (an array when ``ncols > 1``); `FigureSkipped` without matplotlib."""
    try:  # here, not at module level: the report runs its claims, and lists figures, without matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ModuleNotFoundError as exc:
        raise _skipped(exc) from None

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.subplots(1, ncols)


def _skipped(exc: ModuleNotFoundError) -> Exception:
    """`FigureSkipped` naming the package when ``exc`` is a missing optional package; else ``exc`` itself (a bug)."""
    top = (exc.name or "").split(".")[0]
    return FigureSkipped(f"optional package {top} is not installed") if top in OPTIONAL_PACKAGES else exc


def save(fig, path: Path) -> None:
    """Write ``fig`` to ``path`` as a 110 dpi PNG."""
    fig.savefig(path, dpi=110, format="png")


def render(spec: FigureSpec, folder: Path, small: bool = False) -> FigureResult:
    """Draw one figure into ``folder`` (at the sizes ``spec.small`` when ``small``).  A missing optional package
    makes a skipped `FigureResult`, an error of the drawing one with the reason; an ImportError of anything
    else (crawlmath's own modules) propagates: it is a bug, never a figure quietly not generated."""
    path = Path(folder) / f"{spec.id}.png"
    t0 = time.perf_counter()
    skipped = False
    try:
        caption = spec.draw(path, **(spec.small if small else {}))
        with open(path, "rb") as fh:
            if fh.read(8) != PNG_SIGNATURE:
                raise ValueError(f"{path.name} is not a PNG file")
        return FigureResult(spec, f"{Path(folder).name}/{path.name}", caption, None, time.perf_counter() - t0)
    except FigureSkipped as exc:
        reason, skipped = str(exc), True
    except ModuleNotFoundError as exc:
        why = _skipped(exc)
        if not isinstance(why, FigureSkipped):
            raise
        reason, skipped = str(why), True
    except ImportError:  # crawlmath's own code: a bug (exit 70), not a figure the report can do without
        raise
    except Exception as exc:  # noqa: BLE001 - reported in the report, never swallowed
        tb = traceback.extract_tb(exc.__traceback__)[-1]
        reason = f"drawing raised {type(exc).__name__}: {exc} ({tb.filename.rsplit('/', 1)[-1]}:{tb.lineno})"
    if path.exists():
        path.unlink()
    return FigureResult(spec, None, "", reason, time.perf_counter() - t0, skipped)


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
