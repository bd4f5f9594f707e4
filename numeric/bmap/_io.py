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

Numbers keep the decimals as written: JSON and TOML floats are parsed as
`DecimalText` (a float that remembers its text), so the model built is the
model of the printed decimals, exactly (``0.2`` is 1/5, and the lumped
obsolescence rate of the §7 example is 1/5, not 0.19999999999999996); the
float64 solvers use the correctly rounded copies.
"""
from __future__ import annotations

import difflib
import json
import math
import sys
import tomllib
from pathlib import Path

import jsonschema
import numpy as np

from ._core import BmapModel, Costs
from ..errors import InvalidInput
from ..tolerance import STRUCTURE_ABS
from ..validate import read_input_file, require_memory, require_seconds
from ._phase_type import BMAP, DecimalText, PhaseType, bmmap, exact, exact_array, independent_robots, thinned

MODELS_DIR = Path(__file__).resolve().parents[2] / "proofs" / "models"


def model_path(name: str | Path) -> Path:
    """The path of model file ``name``: as given, else the shipped model of that name; InvalidInput (``MODEL``) if none exists
    or it is not a regular file.
    """
    p = Path(name)
    if not p.exists() and (MODELS_DIR / p.name).exists() and p.parent == Path("."):
        p = MODELS_DIR / p.name
    if not p.exists():
        raise InvalidInput("MODEL", "file not found (nor among the shipped models)", value=str(name))
    if not p.is_file():
        raise InvalidInput("MODEL", "is not a regular file", value=str(p))
    return p


def _decode(p: Path) -> dict:
    """The file's top-level table; every file-system and decoding failure
    becomes one `InvalidInput` line naming the file."""
    kind = "TOML" if p.suffix == ".toml" else "JSON"
    text = read_input_file(p, "MODEL", max_bytes=MAX_FILE_BYTES)  # stat and size checked before reading
    try:
        require_seconds(SECONDS_PER_BYTE * len(text), "MODEL", f"decoding a {len(text)}-character model file",
                        value=str(p))
        return tomllib.loads(text, parse_float=DecimalText) if kind == "TOML" else json.loads(text, parse_float=DecimalText)
    except RecursionError:
        raise InvalidInput("MODEL", f"is nested too deeply to be a model file ({kind})", value=str(p)) from None
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InvalidInput("MODEL", f"is not valid {kind}: {exc}", value=str(p)) from None


def read_spec(name: str | Path) -> dict:
    """The decoded model file, checked against `MODEL_SCHEMA` (every problem
    listed with its key path, e.g. ``MODEL: costs.c_bogus: unknown key``);
    the matrix rules are checked when a model is built (`model_from_spec`)."""
    spec = _decode(model_path(name))
    validate_spec(spec, matrices=False)  # the printed models must stay readable (claims inspect them)
    return spec


# --- the schema ------------------------------------------------------------------
# Structure and types in JSON Schema (draft 2020-12, checked with jsonschema);
# what a schema cannot say (square matrices of one order, rates >= 0, rows of a
# generator summing to 0) is checked by `_matrix_rules`, also naming key paths.

MAX_FILE_BYTES = 16 * 2**20
SECONDS_PER_BYTE = 3e-6  # decoding with every number kept as DecimalText (8.2 MB: 20 s under load; benchmarks/bmap_estimate.py)
_NUMBER = {"type": "number"}
_VECTOR = {"type": "array", "minItems": 1, "items": _NUMBER}
_MATRIX = {"type": "array", "minItems": 1, "items": _VECTOR}
_MATRICES = {"type": "array", "minItems": 2, "items": _MATRIX}  # [D_0, D_1, ...]
_NONNEG = {"type": "number", "minimum": 0}


def _object(properties: dict, required: list) -> dict:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


_COMMON = {**_object({"D": _MATRICES, "D0": _MATRIX, "A": _MATRIX, "d": {"type": "array", "minItems": 1, "items": _NONNEG}}, []),
           "anyOf": [{"required": ["D"]}, {"required": ["D0", "A", "d"]}]}
_KIND = {"enum": ["direct", "scaled", "thinned", "independent", "bmmap"]}
ARRIVALS_SCHEMAS = {
    "direct": _object({"interpretation": _KIND, "D": {"type": "array", "minItems": 1, "items": _MATRICES}},
                      ["interpretation", "D"]),
    "scaled": _object({"interpretation": _KIND, "common": _COMMON, "robots": {"type": "integer", "minimum": 1}},
                      ["interpretation", "common", "robots"]),
    "thinned": _object({"interpretation": _KIND, "common": _COMMON,
                        "q": {"type": "array", "minItems": 1, "items": {"type": "number", "exclusiveMinimum": 0, "maximum": 1}}},
                       ["interpretation", "common", "q"]),
    "independent": _object({"interpretation": _KIND, "robots": {"type": "array", "minItems": 1, "items": _MATRICES}},
                           ["interpretation", "robots"]),
    "bmmap": _object({"interpretation": _KIND, "D0": _MATRIX,
                      "D": {"type": "array", "minItems": 1, "items": {"type": "array", "minItems": 1, "items": _MATRIX}}},
                     ["interpretation", "D0", "D"]),
}
MODEL_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "BMAP/PH/1/K threshold model (Avrachenkov et al.)",
    **_object({
        "description": {"type": "string"},
        "source": {"type": "string"},
        "K": {"type": "integer", "minimum": 1},
        "arrivals": {"type": "object", "required": ["interpretation"], "properties": {"interpretation": _KIND}},
        "service": _object({"beta": _VECTOR, "S": _MATRIX}, ["beta", "S"]),
        "obsolescence": _object({"gamma": _VECTOR, "Gamma": _MATRIX}, ["gamma", "Gamma"]),
        "costs": _object({k: _NONNEG for k in ("c_loss", "c_obs", "a", "c_rob", "c_star")}, []),
        "modes": {"type": "array", "items": {"type": "integer", "minimum": 1}},
    }, ["K", "arrivals", "service", "obsolescence"]),
}
MAX_LISTED = 12


def _path(parts) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(top level)"


def _schema_messages(error, prefix=()) -> list[tuple[str, str]]:
    where = list(prefix) + list(error.absolute_path)
    inst = error.instance
    if error.validator == "additionalProperties":
        known = list(error.schema.get("properties", {}))
        out = []
        for key in sorted(set(inst) - set(known), key=str):
            near = difflib.get_close_matches(str(key), known, n=1, cutoff=0.6) or \
                [k for k in known if k.lower() == str(key).lower()]
            out.append((_path(where + [key]), "unknown key" + (f" (did you mean {near[0]!r}?)" if near else "")))
        return out
    if error.validator == "required":
        missing = [k for k in error.validator_value if k not in inst]
        return [(_path(where), f"missing key {k!r}") for k in missing]
    if error.validator == "anyOf" and set(inst) & {"D", "D0", "A", "d"} != set():
        return [(_path(where), "needs D = [D_0, D_1, ...] or all of D0, A, d")]
    if error.validator == "anyOf":
        return [(_path(where), "needs D = [D_0, D_1, ...] or D0, A, d")]
    if error.validator == "type":
        return [(_path(where), f"must be {'an' if error.validator_value == 'integer' else 'a'} "
                               f"{error.validator_value} (got {json.dumps(inst)[:40]})")]
    if error.validator == "enum":
        return [(_path(where), f"must be one of {', '.join(map(str, error.validator_value))} (got {inst!r})")]
    return [(_path(where), error.message[:200])]


def _number_problems(obj, where=()) -> list[tuple[str, str]]:
    """JSON's NaN/Infinity and TOML's nan/inf, and nonzero numbers below the
    smallest normal double (they underflow the float route: S = 1e-320 makes
    every rate 0 and the cost nan)."""
    if isinstance(obj, bool):
        return []
    if isinstance(obj, float):
        text = obj.text if isinstance(obj, DecimalText) else repr(obj)
        if not math.isfinite(obj):
            return [(_path(where), f"must be finite (got {text})")]
        if exact(obj, argument=_path(where)) != 0 and abs(obj) < sys.float_info.min:
            return [(_path(where), f"must be 0 or at least {sys.float_info.min:.3g} in magnitude (got {text})")]
        return []
    if isinstance(obj, int) and abs(obj) > 2**53:
        return [(_path(where), f"must be at most 2**53 in magnitude (got {obj})")]
    if isinstance(obj, dict):
        return [m for k, v in obj.items() for m in _number_problems(v, where + (k,))]
    if isinstance(obj, list):
        return [m for i, v in enumerate(obj) for m in _number_problems(v, where + (i,))]
    return []


def _raise_all(problems: list[tuple[str, str]]) -> None:
    if not problems:
        return
    problems = sorted(set(problems))
    shown = [f"{p}: {m}" for p, m in problems[:MAX_LISTED]]
    more = f"; and {len(problems) - MAX_LISTED} more" if len(problems) > MAX_LISTED else ""
    head = f"{len(problems)} problems: " if len(problems) > 1 else ""
    raise InvalidInput("MODEL", head + "; ".join(shown) + more)


SECONDS_PER_ITEM = 2e-4  # jsonschema's check of one number or list (measured 1.8e-4 s under load; benchmarks/bmap_estimate.py)


def _count_items(obj) -> int:
    """Numbers, strings, lists and tables in a decoded model (iteratively: no recursion limit)."""
    count, stack = 0, [obj]
    while stack:
        x = stack.pop()
        count += 1
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return count


def validate_spec(spec, matrices: bool = True) -> None:
    """Check a decoded model against `MODEL_SCHEMA`, the arrivals schema of its
    interpretation and (``matrices``) the matrix rules; raise one
    `InvalidInput` listing every problem (up to `MAX_LISTED`) with its key path.

    >>> validate_spec({"K": 2.7, "Costs": {}})
    Traceback (most recent call last):
    ...
    crawlmath.numeric.errors.InvalidInput: MODEL: 5 problems: ... Costs: unknown key (did you mean 'costs'?); K: must be an integer (got 2.7)
    """
    try:  # the arrivals' size first: a spec too large to build is refused before the (slower) schema check
        size_known = bool(arrival_size(spec))
    except (KeyError, TypeError, IndexError, ValueError, AttributeError):
        size_known = False  # malformed: the schema says why
    if size_known:
        require_arrivals(spec)
    items = _count_items(spec)
    require_seconds(SECONDS_PER_ITEM * items, "MODEL", f"checking a model of {items} numbers and lists against the schema",
                    value=items)
    validator = jsonschema.Draft202012Validator(MODEL_SCHEMA)
    problems = [m for e in validator.iter_errors(spec) for m in _schema_messages(e)]
    if not isinstance(spec, dict):
        _raise_all(problems)
    problems += _number_problems(spec)
    arrivals = spec.get("arrivals")
    kind = arrivals.get("interpretation") if isinstance(arrivals, dict) else None
    if isinstance(kind, str) and kind in ARRIVALS_SCHEMAS:
        sub = jsonschema.Draft202012Validator(ARRIVALS_SCHEMAS[arrivals["interpretation"]])
        problems += [m for e in sub.iter_errors(arrivals) for m in _schema_messages(e, ("arrivals",))]
    if not problems and matrices:
        problems = _matrix_rules(spec)
    _raise_all(problems)


def _shape(m) -> tuple[int, int] | None:
    """(rows, columns) of a rectangular list of lists, else None."""
    widths = {len(r) for r in m}
    return (len(m), widths.pop()) if len(widths) == 1 else None


def _square(m, where: str, problems: list, order: int | None = None) -> np.ndarray | None:
    shape = _shape(m)
    if shape is None:
        problems.append((where, "rows must all have the same length (ragged matrix)"))
        return None
    if shape[0] != shape[1]:
        problems.append((where, f"must be square (got {shape[0]}x{shape[1]})"))
        return None
    if order is not None and shape[0] != order:
        problems.append((where, f"must be {order}x{order} like the other matrices of its family (got {shape[0]}x{shape[1]})"))
        return None
    return np.asarray(m, dtype=float)


def _entries(a: np.ndarray, where: str, bad: np.ndarray, rule: str, problems: list, paper: str = "") -> None:
    for i, j in np.argwhere(bad):
        label = f"{where}[{i}][{j}]" + (f" ({paper}[{i}, {j}])" if paper else "")
        problems.append((label, f"{rule} (got {float(a[i, j])!r})"))


def _rates(mats: list, where: list[str], papers: list[str], problems: list, *, phase_first: bool = True) -> None:
    """A BMAP's matrices [D_0, D_1, ...]: D_0 off-diagonal >= 0, D_k >= 0 (k >= 1),
    rows of D(1) = sum_k D_k summing to 0 (`STRUCTURE_ABS`, scaled as in
    `require_generator`)."""
    arrays = [_square(m, w, problems, None) for m, w in zip(mats, where)]
    if any(a is None for a in arrays):
        return
    if len({a.shape for a in arrays}) != 1:
        problems.append((where[0].rsplit("[", 1)[0], "matrices of one BMAP must have the same order"))
        return
    for k, (a, w, p) in enumerate(zip(arrays, where, papers)):
        if k == 0 and phase_first:
            eye = np.eye(a.shape[0], dtype=bool)
            _entries(a, w, (a < 0) & ~eye, "off-diagonal entries must be >= 0", problems, p)
            _entries(a, w, (a > 0) & eye, "diagonal entries must be <= 0 (minus the total rate out)", problems, p)
        else:
            _entries(a, w, a < 0, "entries must be >= 0 (batch transitions are rates)", problems, p)
    total = sum(arrays)
    scale = np.maximum(1.0, np.abs(total).max(axis=1))
    for i, row in enumerate(total.sum(axis=1)):
        if abs(row) > STRUCTURE_ABS * scale[i]:
            problems.append((f"{where[0].rsplit('[', 1)[0]} row {i}",
                             f"D(1) = sum of the D_k must be a generator: row {i} must sum to 0 "
                             f"(tolerance {STRUCTURE_ABS:g}, got {row:.6g})"))


def _common_rules(c: dict, where: str, problems: list) -> None:
    if "D" in c:
        _rates(c["D"], [f"{where}.D[{k}]" for k in range(len(c["D"]))], [f"D_{k}" for k in range(len(c["D"]))], problems)
        return
    D0 = _square(c["D0"], f"{where}.D0", problems)
    A = _square(c["A"], f"{where}.A", problems, None if D0 is None else D0.shape[0])
    if D0 is None or A is None:
        return
    _entries(D0, f"{where}.D0", (D0 < 0) & ~np.eye(len(D0), dtype=bool), "off-diagonal entries must be >= 0", problems)
    _entries(A, f"{where}.A", A < 0, "entries must be >= 0", problems)
    total = D0 + math.fsum(c["d"]) * A
    for i, row in enumerate(total.sum(axis=1)):
        if abs(row) > STRUCTURE_ABS * max(1.0, float(np.abs(total[i]).max())):
            problems.append((f"{where}.D0 + sum(d) A, row {i}",
                             f"D(1) = D0 + (d_1 + ... ) A must be a generator: row {i} must sum to 0 "
                             f"(tolerance {STRUCTURE_ABS:g}, got {row:.6g})"))


def _phase_type_rules(vec: list, mat: list, where: str, names: tuple[str, str], problems: list) -> None:
    v = np.asarray(vec, dtype=float)
    if (v < 0).any() or abs(math.fsum(vec) - 1) > STRUCTURE_ABS:
        problems.append((f"{where}.{names[0]}", f"must be a probability vector (entries >= 0 summing to 1, got sum {math.fsum(vec)!r})"))
    S = _square(mat, f"{where}.{names[1]}", problems, v.size)
    if S is None:
        return
    _entries(S, f"{where}.{names[1]}", (S < 0) & ~np.eye(len(S), dtype=bool), "off-diagonal entries must be >= 0", problems, names[1])
    for i, row in enumerate(S.sum(axis=1)):
        if row > STRUCTURE_ABS * max(1.0, float(np.abs(S[i]).max())):
            problems.append((f"{where}.{names[1]} row {i}", f"row {i} must sum to <= 0 (got {row:.6g})"))


def _matrix_rules(spec: dict) -> list[tuple[str, str]]:
    """Shapes and signs the schema cannot express, all listed with key paths."""
    problems: list = []
    a = spec["arrivals"]
    kind = a["interpretation"]
    if kind == "direct":
        for r, mats in enumerate(a["D"]):
            _rates(mats, [f"arrivals.D[{r}][{k}]" for k in range(len(mats))], [f"D^({r + 1})_{k}" for k in range(len(mats))], problems)
    elif kind in ("scaled", "thinned"):
        _common_rules(a["common"], "arrivals.common", problems)
    elif kind == "independent":
        for m, mats in enumerate(a["robots"]):
            _rates(mats, [f"arrivals.robots[{m}][{k}]" for k in range(len(mats))], [f"D^[robot {m + 1}]_{k}" for k in range(len(mats))], problems)
    else:  # bmmap
        flat = [a["D0"]] + [d for per_robot in a["D"] for d in per_robot]
        where = ["arrivals.D0"] + [f"arrivals.D[{m}][{k}]" for m, per in enumerate(a["D"]) for k in range(len(per))]
        _rates(flat, where, [""] * len(flat), problems)
    _phase_type_rules(spec["service"]["beta"], spec["service"]["S"], "service", ("beta", "S"), problems)
    _phase_type_rules(spec["obsolescence"]["gamma"], spec["obsolescence"]["Gamma"], "obsolescence", ("gamma", "Gamma"), problems)
    return problems


def _get(spec: dict, key: str, where: str):
    if key not in spec:
        raise InvalidInput(where, f"missing key {key!r}")
    return spec[key]


def _common(c: dict) -> list:
    """The common BMAP's matrices [D_0, D_1, ...] as exact arrays (``D_k = d_k A`` computed exactly)."""
    if "D" in c:
        return [exact_array(m, f"arrivals.common.D[{k}]", 2) for k, m in enumerate(c["D"])]
    D0, A, d = _get(c, "D0", "arrivals.common"), _get(c, "A", "arrivals.common"), _get(c, "d", "arrivals.common")
    A = exact_array(A, "arrivals.common.A", 2)
    return [exact_array(D0, "arrivals.common.D0", 2)] + [exact(dk, argument="arrivals.common.d", entry=k) * A for k, dk in enumerate(d)]


def arrivals_from_spec(a: dict) -> list[BMAP]:
    """The list of BMAPs (D_k^(r)), r = 1..N, from the spec's ``arrivals`` section under its interpretation
    (direct, scaled, thinned, independent, bmmap; §2 of Avrachenkov et al.).
    """
    kind = _get(a, "interpretation", "arrivals")
    if kind == "direct":
        return [BMAP(D, name=f"D^({r})") for r, D in enumerate(_get(a, "D", "arrivals"), start=1)]
    if kind == "scaled":
        base = _common(_get(a, "common", "arrivals"))
        N = int(_get(a, "robots", "arrivals"))
        return [BMAP([r * d for d in base], name=f"D^({r})") for r in range(1, N + 1)]
    if kind == "thinned":
        return thinned(BMAP(_common(_get(a, "common", "arrivals"))), _get(a, "q", "arrivals"))
    if kind == "independent":
        return independent_robots([BMAP(D, name=f"D^[robot {m}]") for m, D in enumerate(_get(a, "robots", "arrivals"), start=1)])
    if kind == "bmmap":
        return bmmap(_get(a, "D0", "arrivals"), _get(a, "D", "arrivals"))
    raise InvalidInput("arrivals.interpretation", "must be direct, scaled, thinned, independent or bmmap", value=kind)


# Building the arrivals (exact Fractions, then each BMAP validated in float64): ~4 ms per BMAP of order 2 and ~20 us and
# ~240 bytes per exact matrix entry (Fraction objects, float copies), measured by benchmarks/bmap_estimate.py and rounded up.
SECONDS_PER_BMAP, SECONDS_PER_ENTRY, BYTES_PER_ENTRY = 4e-3, 2e-5, 240.0


def arrival_size(spec: dict) -> tuple[float, float]:
    """(BMAPs, matrix entries) a validated spec builds: N modes of (kmax + 1)
    W x W matrices, W the phase count (the product of the robots' orders for
    'independent', whose kmax is the sum of theirs)."""
    a = spec["arrivals"]
    kind = a["interpretation"]
    if kind == "direct":
        N, kmax, W = len(a["D"]), max(len(m) for m in a["D"]) - 1, len(a["D"][0][0])
    elif kind in ("scaled", "thinned"):
        c = a["common"]
        kmax, W = (len(c["D"]) - 1, len(c["D"][0])) if "D" in c else (len(c["d"]), len(c["D0"]))
        N = a["robots"] if kind == "scaled" else len(a["q"])
    elif kind == "independent":
        N, kmax = len(a["robots"]), sum(len(m) - 1 for m in a["robots"])
        W = math.prod(float(len(m[0])) for m in a["robots"])
    else:
        N, kmax, W = len(a["D"]), max(len(x) for x in a["D"]), len(a["D0"])
    return float(N), float(N) * (kmax + 1) * float(W) ** 2


def require_arrivals(spec: dict) -> None:
    """Refuse (`TooLarge`, naming ``MODEL``) a spec whose arrival matrices
    (every robot count: ``arrivals.robots`` is a size parameter) would exceed
    the memory or time limits, before building any."""
    bmaps, entries = arrival_size(spec)
    what = f"arrivals: the matrices of {bmaps:.3g} robot count(s) ({entries:.3g} exact entries)"
    robots = spec["arrivals"].get("robots")
    value = f"arrivals.robots = {robots}" if isinstance(robots, int) else f"{bmaps:.0f} robot counts"
    require_memory(BYTES_PER_ENTRY * entries, "MODEL", what, value=value)
    require_seconds(SECONDS_PER_BMAP * bmaps + SECONDS_PER_ENTRY * entries, "MODEL", what, value=value)


def model_from_spec(spec: dict, K: int | None = None, reduce: bool = True) -> BmapModel:
    """Validate a model spec (a dict) and build its :class:`BmapModel` (``K`` overrides the spec's; ``reduce`` lumps phases)."""
    validate_spec(spec)
    require_arrivals(spec)
    arr = arrivals_from_spec(_get(spec, "arrivals", "MODEL"))
    sv = _get(spec, "service", "MODEL")
    ob = _get(spec, "obsolescence", "MODEL")
    service = PhaseType(_get(sv, "beta", "service"), _get(sv, "S", "service"))
    obs = PhaseType(_get(ob, "gamma", "obsolescence"), _get(ob, "Gamma", "obsolescence"), names=("gamma", "Gamma"))
    costs = Costs(**spec.get("costs", {}))
    return BmapModel(arr, service, obs, _get(spec, "K", "MODEL") if K is None else K, costs, reduce=reduce)


def load_model(name: str | Path, K: int | None = None, reduce: bool = True) -> BmapModel:
    """Read and validate a model file; ``K`` overrides the file's capacity;
    ``reduce=False`` builds the chain on the PH representations as given
    (no exact lumping, see `BmapModel`)."""
    return model_from_spec(read_spec(name), K, reduce)
