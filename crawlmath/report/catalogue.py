"""Every figure of the report: the ``FIGURES`` of the four ``figures_<paper>`` modules, imported by name
(a module that moves or fails to import is an ImportError here, never a figure quietly missing).

>>> [s.id for s in all_figures({"coffman"})]
['coffman-H', 'coffman-golden-cost']
"""
from __future__ import annotations

from . import figures_avrachenkov, figures_buijsrogge, figures_coffman, figures_liu_nain
from .figures import FigureSpec

FIGURE_MODULES = (figures_avrachenkov, figures_buijsrogge, figures_coffman, figures_liu_nain)


def all_figures(papers: set[str] | None = None) -> list[FigureSpec]:
    """Every `FigureSpec` of `FIGURE_MODULES`, in their order (optionally only those of ``papers``)."""
    return [s for m in FIGURE_MODULES for s in m.FIGURES if papers is None or s.paper in papers]
