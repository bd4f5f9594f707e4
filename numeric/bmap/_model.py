"""Transitional (issue 34): the claims modules import ``crawlmath.numeric.bmap._model as bm`` (its name before the
split into ``_core``, ``_generator``, ``_stationary``, ``_measures``, ``_certified``, ``_batched``, ``_optimise``,
``_estimate``).  Every name they use is public; this module re-exports the public surface until they import
``crawlmath.numeric.bmap`` itself, then it goes.  Nothing in ``numeric/`` imports it.

>>> from crawlmath.numeric.bmap import _model as bm
>>> bm.BmapModel is __import__("crawlmath.numeric.bmap", fromlist=["BmapModel"]).BmapModel
True
"""
from . import *  # noqa: F401,F403  (the public surface, see the docstring)
from . import __all__  # noqa: F401
