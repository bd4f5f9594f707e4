"""Model files (JSON or TOML) for the BMAP/PH/1/K threshold model.

Keys::

    K                      capacity (pages in the system)
    arrivals.interpretation  "direct" | "scaled" | "thinned" | "independent" | "bmmap" (§2)
      direct:      D = [[D_0^(1), D_1^(1), ...], [D_0^(2), ...], ...]  (one list per robot count)
      scaled:      common = {D: [D_0, D_1, ...]} or {D0, A, d: [d_1, ...]} (D_k = d_k A), robots = N;
                   D_k^(r) = r D_k  (the real-data example of §7)
      thinned:     common = ..., q = [q_1, ..., q_N]
      independent: robots = [[D_0, D_1, ...], ...]  (one BMAP per robot)
      bmmap:       D0, D = [[D_1^(1), D_2^(1), ...], ...]
    service = {beta, S};  obsolescence = {gamma, Gamma}
    costs = {c_loss, c_obs, a, c_rob, c_star};  modes = [..] (optional default)

A bare file name is looked up in the shipped ``crawlmath/proofs/models``.
"""
from __future__ import annotations

import json
import tomllib
from pathlib import Path

import numpy as np

from .bmap_model import BmapModel, Costs
from .errors import InvalidInput
from .phase_type import BMAP, PhaseType, bmmap, independent_robots, thinned

MODELS_DIR = Path(__file__).resolve().parent.parent / "proofs" / "models"


def model_path(name: str | Path) -> Path:
    p = Path(name)
    if not p.exists() and (MODELS_DIR / p.name).exists() and p.parent == Path("."):
        p = MODELS_DIR / p.name
    if not p.exists():
        raise InvalidInput("MODEL", "file not found (nor among the shipped models)", value=str(name))
    return p


def read_spec(name: str | Path) -> dict:
    p = model_path(name)
    text = p.read_text(encoding="utf-8")
    try:
        return tomllib.loads(text) if p.suffix == ".toml" else json.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InvalidInput("MODEL", f"is not valid {p.suffix[1:].upper()}: {exc}", value=str(p)) from None


def _get(spec: dict, key: str, where: str):
    if key not in spec:
        raise InvalidInput(where, f"missing key {key!r}")
    return spec[key]


def _common(c: dict) -> list:
    if "D" in c:
        return c["D"]
    D0, A, d = _get(c, "D0", "arrivals.common"), np.asarray(_get(c, "A", "arrivals.common"), float), _get(c, "d", "arrivals.common")
    return [D0] + [dk * A for dk in d]


def arrivals_from_spec(a: dict) -> list[BMAP]:
    kind = _get(a, "interpretation", "arrivals")
    if kind == "direct":
        return [BMAP(D, name=f"D^({r})") for r, D in enumerate(_get(a, "D", "arrivals"), start=1)]
    if kind == "scaled":
        base = _common(_get(a, "common", "arrivals"))
        N = int(_get(a, "robots", "arrivals"))
        return [BMAP([r * np.asarray(d, float) for d in base], name=f"D^({r})") for r in range(1, N + 1)]
    if kind == "thinned":
        return thinned(BMAP(_common(_get(a, "common", "arrivals"))), _get(a, "q", "arrivals"))
    if kind == "independent":
        return independent_robots([BMAP(D, name=f"D^[robot {m}]") for m, D in enumerate(_get(a, "robots", "arrivals"), start=1)])
    if kind == "bmmap":
        return bmmap(_get(a, "D0", "arrivals"), _get(a, "D", "arrivals"))
    raise InvalidInput("arrivals.interpretation", "must be direct, scaled, thinned, independent or bmmap", value=kind)


def model_from_spec(spec: dict, K: int | None = None) -> BmapModel:
    arr = arrivals_from_spec(_get(spec, "arrivals", "MODEL"))
    sv = _get(spec, "service", "MODEL")
    ob = _get(spec, "obsolescence", "MODEL")
    service = PhaseType(_get(sv, "beta", "service"), _get(sv, "S", "service"))
    obs = PhaseType(_get(ob, "gamma", "obsolescence"), _get(ob, "Gamma", "obsolescence"), names=("gamma", "Gamma"))
    costs = Costs(**spec.get("costs", {}))
    return BmapModel(arr, service, obs, _get(spec, "K", "MODEL") if K is None else K, costs)


def load_model(name: str | Path, K: int | None = None) -> BmapModel:
    """Read and validate a model file; ``K`` overrides the file's capacity."""
    return model_from_spec(read_spec(name), K)
