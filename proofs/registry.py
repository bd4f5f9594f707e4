"""The claim registry.

A *claim* is one checkable statement of a paper: where it is printed
(`Source`), what it says (one line), how we check it (`Method`) and the check
itself, a function returning an `Outcome` with status PASS, FAIL or ERRATUM.

An ERRATUM outcome records both sides: the printed form, shown wrong by the
check, and the corrected form, shown to hold.  It is never a way to hide a
disagreement: the check must demonstrate both facts.

Claim modules live in :mod:`crawlmath.proofs.claims`; every module there is
imported by :func:`all_claims`, and registers its claims at import time with
the :func:`claim` decorator or :func:`register`.

>>> from crawlmath.proofs.registry import Outcome
>>> Outcome.passed("1 = 1").status.value
'PASS'
"""
from __future__ import annotations

import enum
import importlib
import pkgutil
import time
import traceback
from dataclasses import dataclass, field
from typing import Callable, Iterable, NamedTuple

class Paper(NamedTuple):
    """One seed paper: ``seed`` (the plain-text copy checked against; metadata),
    ``reference`` (full), ``citation`` (short, used in claim sources),
    ``authors`` and ``title``."""

    seed: str
    reference: str
    citation: str
    authors: str
    title: str


def _paper(seed: str, authors: str, title: str, venue: str, citation: str) -> Paper:
    return Paper(seed, f"{authors}, {title} ({venue})", citation, authors, title)


# Short paper keys: the id prefix of every claim.
PAPERS: dict[str, Paper] = {
    "liu-nain": _paper("003_dde4fe79a247e1b3.txt", "Z. Liu, P. Nain", "Optimization issues in web search engines",
                       "book chapter, 2005", "Liu–Nain 2005"),
    "coffman": _paper("002_4ad982fbd4856c9a.txt", "E. G. Coffman, Z. Liu, R. R. Weber",
                      "Optimal robot scheduling for Web search engines", "INRIA RR-3317, 1997", "Coffman–Liu–Weber 1997"),
    "avrachenkov": _paper("000_5df23f3f1376a820.txt", "K. Avrachenkov, A. Dudin, V. Klimenok, P. Nain, O. Semenova",
                          "Optimal threshold control by the robots of web search engines with obsolescence of documents",
                          "journal article", "Avrachenkov et al."),
    "buijsrogge": _paper("001_046e391deba72d92.txt", "A. Buijsrogge", "Optimization of the BUbiNG web crawler",
                         "MSc thesis, Univ. Twente, 2014", "Buijsrogge 2014"),
}


class Status(str, enum.Enum):
    """A verdict: PASS (reproduced), FAIL (not reproduced after the readings listed), ERRATUM (printed form wrong, corrected form shown to hold)."""
    PASS = "PASS"
    FAIL = "FAIL"
    ERRATUM = "ERRATUM"


class Method(str, enum.Enum):
    """The strongest route a check uses: symbolic proof, interval arithmetic, two high-precision routes, float64, or simulation."""
    SYMBOLIC = "symbolic"
    NUMERIC_HP = "numeric-hp"
    FLOAT = "float"
    SIMULATION = "simulation"
    INTERVAL = "interval"


@dataclass(frozen=True)
class Source:
    """Where a claim is printed: paper key, section, and equation/table/cell."""

    paper: str
    section: str
    ref: str

    def __post_init__(self):
        if self.paper not in PAPERS:
            raise ValueError(f"unknown paper key {self.paper!r}; known: {sorted(PAPERS)}")

    @property
    def seed(self) -> str:
        """The plain-text copy of the paper this claim was checked against (metadata)."""
        return PAPERS[self.paper].seed

    @property
    def citation(self) -> str:
        """Short citation of the paper (e.g. "Liu–Nain 2005")."""
        return PAPERS[self.paper].citation

    def __str__(self) -> str:
        return f"{self.citation}, {self.section}, {self.ref}"


@dataclass(frozen=True)
class TableCell:
    """Marks a claim as one cell of a printed table (for side-by-side reports)."""

    table: str  # e.g. "Liu–Nain Table 1.1"
    row: str
    column: str
    printed: str  # the printed text of the cell, verbatim


@dataclass(frozen=True)
class Erratum:
    """The two sides of an erratum: the printed form, the corrected form, and what decides between them."""
    printed: str  # the form as printed in the paper
    corrected: str  # the form that holds
    evidence: str  # what decides between them


@dataclass(frozen=True)
class Outcome:
    """What a check returns: its status and detail (both compared values), and optionally the erratum, the computed cell text, digits agreed, an error bound and whether the verdict is certain."""
    status: Status
    detail: str
    erratum: Erratum | None = None
    computed: str | None = None  # the value we computed, for table cells
    digits: float | None = None  # significant digits on which two routes agree
    error_bound: float | None = None  # absolute bound on the error of `computed`, when known
    certain: bool | None = None  # the verdict cannot flip within error_bound (None: unknown)

    @classmethod
    def passed(cls, detail: str, **kw) -> "Outcome":
        """A PASS with ``detail``."""
        return cls(Status.PASS, detail, **kw)

    @classmethod
    def failed(cls, detail: str, **kw) -> "Outcome":
        """A FAIL with ``detail`` (which lists the readings tried)."""
        return cls(Status.FAIL, detail, **kw)

    @classmethod
    def erratum_(cls, detail: str, *, printed: str, corrected: str, evidence: str, **kw) -> "Outcome":
        """An ERRATUM: the check demonstrated ``printed`` failing and ``corrected`` holding."""
        return cls(Status.ERRATUM, detail, erratum=Erratum(printed, corrected, evidence), **kw)

    @classmethod
    def judge(cls, ok: bool, detail: str, **kw) -> "Outcome":
        """PASS when ``ok`` else FAIL, with the same detail (which should
        show both compared values)."""
        return cls(Status.PASS if ok else Status.FAIL, detail, **kw)


@dataclass(frozen=True)
class Claim:
    """One checkable statement of a paper: id, source, one-line statement, method and the zero-argument check."""
    id: str
    source: Source
    statement: str
    method: Method
    check: Callable[[], Outcome] = field(repr=False, compare=False)
    cell: TableCell | None = None
    slow: bool = False  # takes more than a few seconds; skipped by `verify --quick`
    group: str | None = None  # the work-sharing group when it is not the id's `paper.part` (see proofs/runner.py)

    @property
    def paper(self) -> str:
        """The paper key: the first component of the id."""
        return self.id.split(".", 1)[0]


@dataclass(frozen=True)
class Result:
    """A claim with the outcome of running its check and the time it took."""
    claim: Claim
    outcome: Outcome
    seconds: float

    def as_json(self) -> dict:
        """The row `crawlmath verify --json` prints for this result."""
        o, c = self.outcome, self.claim
        d = {
            "id": c.id,
            "source": str(c.source),
            "seed": c.source.seed,
            "statement": c.statement,
            "method": c.method.value,
            "status": o.status.value,
            "detail": o.detail,
            "seconds": round(self.seconds, 4),
        }
        if o.erratum:
            d["erratum"] = {"printed": o.erratum.printed, "corrected": o.erratum.corrected, "evidence": o.erratum.evidence}
        if c.cell:
            d["cell"] = {"table": c.cell.table, "row": c.cell.row, "column": c.cell.column, "printed": c.cell.printed, "computed": o.computed}
        if o.digits is not None:
            d["digits"] = o.digits
        d["error_bound"] = o.error_bound
        d["certain"] = o.certain
        return d


_REGISTRY: dict[str, Claim] = {}


def register(c: Claim) -> Claim:
    """Add a claim to the registry (ids are unique and start with their paper key)."""
    if c.id in _REGISTRY:
        raise ValueError(f"duplicate claim id {c.id!r}")
    if not c.id.startswith(c.source.paper + "."):
        raise ValueError(f"claim id {c.id!r} must start with its paper key {c.source.paper!r}")
    _REGISTRY[c.id] = c
    return c


def claim(id: str, *, source: Source, statement: str, method: Method | str, cell: TableCell | None = None, slow: bool = False,
          group: str | None = None):
    """Decorator: register the decorated zero-argument function as a claim's check.  ``group``: the claims
    that share a module cache with this one, when they are not those of its ``paper.part`` prefix."""

    def deco(fn: Callable[[], Outcome]) -> Callable[[], Outcome]:
        """Register ``fn`` as the check and return it unchanged."""
        register(Claim(id, source, statement, Method(method), fn, cell, slow, group))
        return fn

    return deco


def lookup(claim_id: str) -> Claim | None:
    """The registered claim with this id (None when its module is not imported or it does not exist)."""
    return _REGISTRY.get(claim_id)


def all_claims() -> list[Claim]:
    """Import every module of :mod:`crawlmath.proofs.claims` and return the
    registered claims in registration order."""
    for name in claim_modules():
        importlib.import_module(name)
    return list(_REGISTRY.values())


def load_claim_module(name: str) -> None:
    """Import one claim module, registering its claims (a Dask worker loads only the modules of the claims it
    runs); ``name`` must be one of :func:`claim_modules`, so a worker never imports a module it was merely told of."""
    if name not in claim_modules():
        raise KeyError(f"{name!r} is not a claim module of this crawlmath version")
    importlib.import_module(name)


def claim_modules() -> list[str]:
    """The claim modules in registration order: the entries of :mod:`crawlmath.proofs.claims` by name; a
    subpackage (one per paper) contributes its ``SECTIONS`` in the order it lists them (the paper's order), so
    splitting a module along its sections keeps every claim's place in ``crawlmath verify``'s output.
    A module of a paper package that its ``SECTIONS`` leaves out is an error, never silently skipped."""
    from . import claims as pkg

    names = []
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        full = f"{pkg.__name__}.{info.name}"
        if not info.ispkg:
            names.append(full)
            continue
        sub = importlib.import_module(full)
        sections = tuple(getattr(sub, "SECTIONS", ()))
        present = {m.name for m in pkgutil.iter_modules(sub.__path__) if not m.name.startswith("_")}
        if set(sections) != present:
            raise RuntimeError(f"{full}.SECTIONS lists {sorted(sections)} but the package holds {sorted(present)}")
        names += [f"{full}.{s}" for s in sections]
    return names


def select(prefixes: Iterable[str] = (), quick: bool = False) -> list[Claim]:
    """Claims whose id starts with any of ``prefixes`` (all when empty)."""
    prefixes = tuple(prefixes)
    chosen = [c for c in all_claims() if not prefixes or c.id.startswith(prefixes)]
    return [c for c in chosen if not (quick and c.slow)]


def run_claim(c: Claim) -> Result:
    """Run one check.  A check that raises is a FAIL whose detail names the
    exception; a check that returns something other than an Outcome too."""
    t0 = time.perf_counter()
    try:
        out = c.check()
        if not isinstance(out, Outcome):
            out = Outcome.failed(f"check returned {type(out).__name__}, not an Outcome")
    except Exception as exc:  # noqa: BLE001 - reported, never swallowed
        tb = traceback.extract_tb(exc.__traceback__)[-1]
        out = Outcome.failed(f"check raised {type(exc).__name__}: {exc} ({tb.filename.rsplit('/', 1)[-1]}:{tb.lineno})")
    return Result(c, out, time.perf_counter() - t0)


def run(claims: Iterable[Claim], progress: Callable[[int, int, Claim], None] | None = None) -> list[Result]:
    """Run ``claims`` in order (see `run_claim`), reporting progress as (done, total, claim)."""
    claims = list(claims)
    results = []
    for i, c in enumerate(claims):
        if progress:
            progress(i, len(claims), c)
        results.append(run_claim(c))
    if progress:
        progress(len(claims), len(claims), None)
    return results
