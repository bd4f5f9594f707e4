"""Parameter sweeps and parallel claim checks on Dask distributed (issue 16).

A *sweep spec* names a subcommand (``static``, ``mdp``, ``bmap``,
``schedule`` or ``colours``), a table ``fixed`` of its arguments and a table
``grid`` of lists; every point of the cartesian product of the grid lists is
evaluated exactly as ``crawlmath COMMAND ... --json`` would evaluate it (the
console script's :func:`crawlmath.cli.main`, in the worker's process, with
its stdout captured):

>>> spec = parse_spec({"command": "static", "fixed": {"mu": 1, "K": 10},
...                    "grid": {"lam": [0.01, 0.05], "gamma": [0.5, 1.2]}})
>>> spec.size
4
>>> next(spec.points())
{'mu': 1, 'K': 10, 'lam': 0.01, 'gamma': 0.5}
>>> point_argv(spec.command, next(spec.points()))
['static', '--mu=1', '--K=10', '--lam=0.01', '--gamma=0.5', '--json']

The output is a JSON Lines file: a header line (format, spec, its SHA-256),
then one *record* per point, written by the client alone, whole, as points
finish.  A record is the subcommand's JSON object with the point's inputs
merged in where the subcommand does not echo them, and four bookkeeping keys:
``_point`` (the inputs as given: the resume key), ``_status`` (``ok`` or
``error``), ``_exit`` (the exit code the single run would return: 0, or 2 bad
input, 3 solver could not deliver, 4 too large) and, on error, ``_message``
(its one-line message).  A point that fails in any other way (a crawlmath bug,
exit 70, or a task lost by Dask) is *not* recorded: it is reported and the
next run with the same spec and file retries it.

Resume: the key of a point is the canonical JSON of its inputs; a rerun skips
the points already in the file, drops a last line left unterminated by a kill
mid-write, and refuses a file that is not a sweep file of the same spec.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import fcntl
import functools
import hashlib
import io
import itertools
import json
import logging
import math
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

from .commands._common import signals_held
from .numeric.errors import CrawlmathError, InvalidInput, SolverError
from .numeric.validate import (MAX_INPUT_BYTES, format_bytes, parse_document, read_input_file, require_memory,
                               require_regular_file, require_seconds)

COMMANDS = ("static", "mdp", "bmap", "schedule", "colours")
FORMAT = "crawlmath-sweep/1"
RESERVED = ("_point", "_status", "_exit", "_message")
RECORDED_EXITS = {0: "ok", 2: "bad input", 3: "solver could not deliver", 4: "too large"}
_FORBIDDEN_KEYS = ("json", "help", "h")  # the sweep adds --json itself; --help would exit
_SYNC_SECONDS = 1.0  # fsync the output at most this often (and at the end)
_INDEX_BYTES_PER_POINT = 120  # resume index: a str and a set slot per point, beyond the key's text
# Lines of an existing --out are read bounded: a foreign file without newlines is refused
# after this many bytes, not read whole.  The header holds the spec (<= MAX_INPUT_BYTES).
MAX_HEADER_BYTES = 2 * MAX_INPUT_BYTES + 2**16
MAX_RECORD_BYTES = 256 * 2**20  # one point's JSON output (a golden cycle of F_30 prints 6 MB)
_CONNECT_TIMEOUT = "20s"
# The embedded cluster: the scheduler's start, then per worker process its RSS and
# start-up CPU (Python, Dask and crawlmath imported afresh), shared by the cores;
# benchmarks/estimates.py measured 6.7 s to a first point with 1 worker, 9.7 s with 2.
SCHEDULER_SECONDS = 3.0
WORKER_BYTES = 160 * 2**20
WORKER_SECONDS = 3.0
_POLL_SECONDS = 0.1  # how often a client waiting for results checks that it still has a scheduler


class PointError(CrawlmathError, RuntimeError):
    """A point whose evaluation produced no record: a crawlmath bug (exit 70)
    or a run that printed no JSON object.  Not recorded; retried on resume."""


# --- the spec -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Spec:
    """A validated sweep: ``command``, ``fixed`` arguments, ``grid`` lists."""

    command: str
    fixed: dict
    grid: dict[str, list]

    @property
    def size(self) -> int:
        """Number of points: the product of the grid list lengths."""
        return math.prod(len(v) for v in self.grid.values())

    def points(self) -> Iterator[dict]:
        """The inputs of every point, ``fixed`` first, in grid order (lazily)."""
        names = list(self.grid)
        for values in itertools.product(*(self.grid[n] for n in names)):
            yield {**self.fixed, **dict(zip(names, values))}

    @functools.cached_property
    def sha256(self) -> str:
        """Identity of the spec: the same command, fixed values and *set* of
        values per grid axis give the same hash (list order does not matter)."""
        grid = {k: sorted(v, key=canonical) for k, v in self.grid.items()}
        text = canonical({"command": self.command, "fixed": self.fixed, "grid": grid})
        return hashlib.sha256(text.encode()).hexdigest()

    def contains(self, inputs) -> bool:
        """Whether ``inputs`` is one of this spec's points."""
        if not isinstance(inputs, dict) or set(inputs) != set(self.fixed) | set(self.grid):
            return False
        fixed_ok = all(canonical(inputs[k]) == canonical(v) for k, v in self.fixed.items())
        return fixed_ok and all(canonical(inputs[k]) in keys for k, keys in self._axis_keys.items())

    @functools.cached_property
    def _axis_keys(self) -> dict[str, set[str]]:
        return {k: {canonical(v) for v in vs} for k, vs in self.grid.items()}

    def header(self) -> dict:
        """The sweep file's first line: format tag, spec hash, command, fixed inputs, grid, number of points and crawlmath version."""
        from . import __version__

        return {"_sweep": FORMAT, "spec_sha256": self.sha256, "command": self.command, "fixed": self.fixed,
                "grid": self.grid, "points": self.size, "crawlmath": __version__}


def canonical(obj) -> str:
    """The canonical JSON text of ``obj`` (sorted keys, no spaces): the key of a point."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def load_spec(path: str | Path) -> Spec:
    """Read and validate a spec file (``.toml``, else JSON): a regular file of
    at most `MAX_INPUT_BYTES`, nested at most `MAX_INPUT_DEPTH` deep."""
    p = Path(path)
    kind = "TOML" if p.suffix.lower() == ".toml" else "JSON"
    text = read_input_file(p, "SPEC")
    try:
        data = parse_document(text, "SPEC", kind, where=str(p))
    except InvalidInput as exc:
        if kind == "JSON" and exc.rule.startswith("is not valid"):
            exc = InvalidInput("SPEC", exc.rule + " (use a .toml name for TOML)", value=str(p))
        raise exc from None
    return parse_spec(data)


def parse_spec(data) -> Spec:
    """Validate a spec given as a dict; every rule broken names its key."""
    if not isinstance(data, dict):
        raise InvalidInput("SPEC", "must be a table with keys command, fixed, grid")
    unknown = set(data) - {"command", "fixed", "grid"}
    if unknown:
        raise InvalidInput("SPEC", "unknown top-level keys (expected command, fixed, grid)", value=sorted(unknown))
    command = data.get("command")
    if command not in COMMANDS:
        raise InvalidInput("command", f"must be one of {', '.join(COMMANDS)}", value=command)
    fixed, grid = data.get("fixed", {}), data.get("grid", {})
    for name, table in (("fixed", fixed), ("grid", grid)):
        if not isinstance(table, dict):
            raise InvalidInput(name, "must be a table of argument names", value=table)
    if not grid:
        raise InvalidInput("grid", "must give at least one argument with a list of values")
    both = set(fixed) & set(grid)
    if both:
        raise InvalidInput("fixed", "and grid must not share arguments", value=sorted(both))
    actions = command_actions(command)
    for k, v in fixed.items():
        _check_value(actions, k, v, f"fixed.{k}")
    for k, values in grid.items():
        _check_axis(actions, k, values)
    _check_required(actions, set(fixed) | set(grid), command)
    return Spec(command, dict(fixed), {k: list(v) for k, v in grid.items()})


def _check_axis(actions: dict, name: str, values) -> None:
    where = f"grid.{name}"
    if not isinstance(values, list) or not values:
        raise InvalidInput(where, "must be a non-empty list of values", value=values)
    seen = set()
    for i, v in enumerate(values):
        _check_value(actions, name, v, where, entry=i)
        key = canonical(v)
        if key in seen:
            raise InvalidInput(where, "repeats a value (the point would be evaluated twice)", value=v, entry=i)
        seen.add(key)


def _check_value(actions: dict, name: str, value, where: str, entry=None) -> None:
    if name in _FORBIDDEN_KEYS or name not in actions:
        known = sorted({_spec_name(a) for a in actions.values()} - set(_FORBIDDEN_KEYS))
        raise InvalidInput(where, f"is not an argument of this command (known: {', '.join(known)})", value=name)
    nargs = actions[name].nargs
    if nargs == 0 and not isinstance(value, bool):
        raise InvalidInput(where, "is a flag: give true or false", value=value, entry=entry)
    if nargs not in (0, "?") and isinstance(value, bool):
        raise InvalidInput(where, "takes a value, not true/false", value=value, entry=entry)
    items = value if isinstance(value, list) else [value]
    if isinstance(value, list) and not value:
        raise InvalidInput(where, "an empty list is not a value", value=value, entry=entry)
    for v in items:
        if isinstance(v, float) and not math.isfinite(v):
            raise InvalidInput(where, "must be finite (write the string \"inf\" where the command accepts it)",
                               value=v, entry=entry)
        if not isinstance(v, (str, int, float)) or (isinstance(v, bool) and isinstance(value, list)):
            raise InvalidInput(where, "must be a string, a number, a flag's true/false, or a list of numbers/strings",
                               value=v, entry=entry)


def _check_required(actions: dict, given: set, command: str) -> None:
    dests = [actions[k].dest for k in given]
    twice = sorted(k for k in given if dests.count(actions[k].dest) > 1)
    if twice:
        raise InvalidInput("SPEC", "names one argument twice", value=twice)
    missing = sorted(_spec_name(a) for a in actions.values() if a.required and a.dest not in dests)
    if missing:
        raise InvalidInput("SPEC", f"'{command}' requires these arguments in fixed or grid", value=missing)


def _spec_name(a: argparse.Action) -> str:
    """The name a spec gives an argument: its long option without dashes, or a positional's dest."""
    return a.option_strings[-1].lstrip("-") if a.option_strings else a.dest


@functools.cache
def command_actions(command: str) -> dict[str, argparse.Action]:
    """The arguments of subcommand ``command``, by every name a spec may use
    (the option without its dashes, e.g. ``lam`` or ``max-memory``, or the dest)."""
    from .cli import build_parser

    parser = build_parser()
    # argparse offers no public look-up of a subparser or of a parser's arguments.
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    out = {}
    for a in sub.choices[command]._actions:
        for name in [o.lstrip("-") for o in a.option_strings] + [a.dest]:
            out.setdefault(name, a)
    return out


def point_argv(command: str, inputs: dict) -> list[str]:
    """The command line of one point: ``--name=value`` (so negative numbers
    are never read as options), flags alone, positionals after ``--``."""
    actions = command_actions(command)
    options, positionals = [], []
    for name, value in inputs.items():
        a = actions[name]
        if not a.option_strings:
            positionals.append(_text(value))
        elif isinstance(value, bool):  # a flag: true gives it, false leaves it out
            if value:
                options.append(a.option_strings[-1])
        else:
            options.append(f"{a.option_strings[-1]}={_text(value)}")
    return [command, *options, "--json", *(["--", *positionals] if positionals else [])]


def _text(value) -> str:
    """Argument text: floats by their shortest round-trip form, lists comma-joined."""
    if isinstance(value, list):
        return ",".join(_text(v) for v in value)
    return repr(value) if isinstance(value, float) else str(value)


# --- one point (runs on a worker) -----------------------------------------------------------

_CAPTURE = threading.Lock()  # stdout/stderr/environ are process-wide: one point at a time per process


def evaluate_point(command: str, inputs: dict) -> dict:
    """Run ``crawlmath COMMAND ... --json`` for one point in this process and
    return its record (see the module docstring).  Exit codes 0, 2, 3, 4 give
    a record; anything else raises `PointError` (not recorded)."""
    from .cli import main

    argv = point_argv(command, inputs)
    out, err = io.StringIO(), io.StringIO()
    with _CAPTURE, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    message = _last_message(err.getvalue())
    if code not in RECORDED_EXITS:
        raise PointError(f"crawlmath {' '.join(argv)} exited {code}: {message or 'no message'}")
    if code != 0:
        return {**inputs, "_point": inputs, "_status": "error", "_exit": code, "_message": message}
    try:
        result = json.loads(out.getvalue())
    except json.JSONDecodeError:
        raise PointError(f"crawlmath {' '.join(argv)} printed no JSON object") from None
    if not isinstance(result, dict) or set(result) & set(RESERVED):
        raise PointError(f"crawlmath {' '.join(argv)} printed no JSON object free of the keys {RESERVED}")
    return {**inputs, **result, "_point": inputs, "_status": "ok", "_exit": 0}


def _last_message(stderr: str) -> str:
    """The one-line message of the console script (``crawlmath: ...``), prefix removed."""
    lines = [ln for ln in stderr.splitlines() if ln.startswith("crawlmath: ")]
    return lines[-1][len("crawlmath: "):] if lines else stderr.strip()


# --- the output file --------------------------------------------------------------------------


class SweepFile:
    """The JSON Lines output of one spec, opened for appending by one client.

    Opening validates the header (refusing any other file), reads the keys of
    the points present, drops an unterminated last line, and takes an
    exclusive lock so that two sweeps never append to the same file."""

    def __init__(self, path: str | Path, spec: Spec):
        self.path, self.spec = Path(path), spec
        self.done: set[str] = set()
        self._last_sync = time.monotonic()
        if not os.path.lexists(self.path):
            if not self.path.absolute().parent.is_dir():
                raise InvalidInput("--out", f"cannot be created: its folder {self.path.absolute().parent} does not "
                                            "exist or is not a folder", value=str(self.path))
            self._create()
        require_regular_file(self.path, "--out")  # a FIFO or device would block or never end
        try:
            self.fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_NONBLOCK)
        except OSError as exc:
            raise InvalidInput("--out", f"cannot be opened: {exc.strerror or exc}", value=str(self.path)) from None
        try:
            require_regular_file(self.path, "--out", os.fstat(self.fd))  # swapped since the stat
            self._lock()
            self._read()
        except BaseException:
            os.close(self.fd)
            raise

    def _create(self) -> None:
        # Header written to a private file, then linked into place: the file
        # appears whole or not at all, and a file created meanwhile by someone
        # else is never overwritten (link fails; we then validate theirs).
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as f:  # private name: a leftover is a killed run's, ours
                f.write(canonical(self.spec.header()) + "\n")
                f.flush()
                os.fsync(f.fileno())
            with contextlib.suppress(FileExistsError):
                os.link(tmp, self.path)
        except OSError as exc:
            raise InvalidInput("--out", f"cannot be created: {exc.strerror or exc}", value=str(self.path)) from None
        finally:
            tmp.unlink(missing_ok=True)

    def _lock(self) -> None:
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise InvalidInput("--out", "is being written by another sweep", value=str(self.path)) from None

    def _read(self) -> None:
        with open(self.fd, "rb", closefd=False) as f:
            f.seek(0)
            head = f.readline(MAX_HEADER_BYTES + 1)
            if not head:  # an empty file holds nothing to lose: make it ours
                self._write_line(canonical(self.spec.header()))
                return
            self._check_header(head)
            offset, number = len(head), 1
            while raw := f.readline(MAX_RECORD_BYTES + 1):
                number += 1
                if len(raw) > MAX_RECORD_BYTES:
                    raise InvalidInput("--out", f"line {number} is longer than {MAX_RECORD_BYTES} bytes: not a record "
                                                "of a sweep; the file is damaged", value=str(self.path))
                if not raw.endswith(b"\n"):  # the last line, cut short by a kill mid-write
                    os.truncate(self.fd, offset)
                    return
                self._add(raw, number)
                offset += len(raw)

    def _check_header(self, raw: bytes) -> None:
        try:
            head = json.loads(raw) if raw.endswith(b"\n") else None
        except (json.JSONDecodeError, UnicodeDecodeError):
            head = None
        if not isinstance(head, dict) or head.get("_sweep") != FORMAT:
            raise InvalidInput("--out", "exists and is not a crawlmath sweep file; refusing to write to it "
                                        "(choose another file)", value=str(self.path))
        theirs = str(head.get("spec_sha256"))
        if theirs != self.spec.sha256:
            raise InvalidInput("--out", f"is a sweep of another spec (sha256 {theirs[:12]}..., this spec "
                                        f"{self.spec.sha256[:12]}...); "
                                        "choose another file", value=str(self.path))

    def _add(self, raw: bytes, number: int) -> None:
        try:
            point = json.loads(raw).get("_point")
        except (json.JSONDecodeError, UnicodeDecodeError, AttributeError):
            point = None
        if not self.spec.contains(point):
            raise InvalidInput("--out", f"line {number} is not a record of this spec; the file is damaged "
                                        "(refusing to guess: repair or remove it)", value=str(self.path))
        key = canonical(point)
        if key in self.done:
            raise InvalidInput("--out", f"line {number} repeats a point; the file is damaged", value=str(self.path))
        self.done.add(key)

    def append(self, record: dict) -> None:
        """Write one record as one whole line (SIGINT deferred while writing)."""
        self._write_line(json.dumps(record, ensure_ascii=False, allow_nan=False))
        self.done.add(canonical(record["_point"]))
        if time.monotonic() - self._last_sync > _SYNC_SECONDS:
            os.fsync(self.fd)
            self._last_sync = time.monotonic()

    def _write_line(self, text: str) -> None:
        data = (text + "\n").encode()
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            while data:
                data = data[os.write(self.fd, data):]
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)

    def close(self) -> None:
        """Flush the records to disk (fsync) and close the file."""
        os.fsync(self.fd)
        os.close(self.fd)


# --- the engine -----------------------------------------------------------------------------


@dataclass
class Summary:
    """What one run of a sweep did."""

    out: str
    command: str
    spec_sha256: str
    points: int
    present: int = 0  # records already in the file when the run started
    ok: int = 0
    errors: dict = field(default_factory=dict)  # exit code -> records written this run
    undelivered: list = field(default_factory=list)  # {"point", "error"}: not recorded, retried on resume
    seconds: float = 0.0
    engine: str = ""

    @property
    def written(self) -> int:
        """Records written in this run: successes plus records of every error exit code."""
        return self.ok + sum(self.errors.values())

    @property
    def complete(self) -> bool:
        """True when the file now holds a record for every point of the grid."""
        return self.present + self.written == self.points

    def as_json(self) -> dict:
        """The run summary as a JSON-ready dict (error counts keyed by exit code as text, seconds rounded to ms)."""
        return {"out": self.out, "command": self.command, "spec_sha256": self.spec_sha256, "points": self.points,
                "present": self.present, "written": self.written, "ok": self.ok,
                "errors": {str(k): v for k, v in sorted(self.errors.items())}, "undelivered": self.undelivered,
                "complete": self.complete, "seconds": round(self.seconds, 3),
                "engine": self.engine}


def task_key(spec: Spec, key: str) -> str:
    """The Dask key of a point: the same point of the same spec has the same
    key, so the scheduler never holds two copies of it."""
    return f"crawlmath-sweep-{spec.sha256[:16]}-{hashlib.sha256(key.encode()).hexdigest()[:24]}"


def run_sweep(spec: Spec, out: str | Path, *, workers: int | None = None, scheduler: str | None = None,
              client=None, progress: Callable[[Summary], None] | None = None) -> Summary:
    """Evaluate every point of ``spec`` not yet in ``out`` on Dask and append
    a record per point as it completes.

    The engine is ``client`` if given, else `dask_client(workers, scheduler)`,
    started only when some point is missing (a bad ``out`` is refused first).
    At most a window of tasks is in flight (four per worker thread, at least
    16), so a grid far larger than the scheduler's memory streams through.
    A KeyboardInterrupt cancels the tasks in flight, leaves ``out`` whole and
    resumable, and propagates."""
    t0 = time.monotonic()
    key0 = canonical(next(spec.points()))
    require_memory(spec.size * (len(key0) + _INDEX_BYTES_PER_POINT), "SPEC",
                   f"the resume index of {spec.size} points")
    sink = SweepFile(out, spec)
    summary = Summary(str(out), spec.command, spec.sha256, spec.size, present=len(sink.done),
                      engine="not started (nothing to compute)")
    try:
        if summary.present < spec.size:
            with contextlib.nullcontext(client) if client is not None else dask_client(workers, scheduler) as c:
                summary.engine = _engine_name(c)
                _stream(spec, c, sink, summary, progress)
    finally:
        sink.close()
        summary.seconds = time.monotonic() - t0
    return summary


def _stream(spec: Spec, client, sink: SweepFile, summary: Summary, progress) -> None:
    """Submit the missing points through a window of futures; write each
    record from this (the client's) process as its future completes."""
    from dask.distributed import as_completed

    todo = (p for p in spec.points() if canonical(p) not in sink.done)
    window = max(16, 4 * sum(client.nthreads().values()))
    pending = {}

    def submit(inputs):
        require_scheduler(client)
        fut = client.submit(evaluate_point, spec.command, inputs, key=task_key(spec, canonical(inputs)))
        pending[fut.key] = (fut, inputs)
        return fut

    try:
        stream = as_completed([submit(p) for p in itertools.islice(todo, window)])
        for fut in completed(stream, client):
            _collect(fut, pending.pop(fut.key)[1], sink, summary)
            fut.release()
            nxt = next(todo, None)
            if nxt is not None:
                stream.add(submit(nxt))
            if progress:
                progress(summary)
    finally:
        if client.status == "running":
            client.cancel([fut for fut, _ in pending.values()])


def completed(stream, client) -> Iterator:
    """The futures of ``stream`` (a Dask ``as_completed``, which may grow
    meanwhile) as they finish.  Raises `SolverError` once the client has
    given up on a lost scheduler, where iterating ``as_completed`` itself
    would wait forever for futures that can no longer finish."""
    while not stream.is_empty():
        batch = stream.next_batch(block=False)
        if not batch:
            require_scheduler(client)
            time.sleep(_POLL_SECONDS)
        yield from batch


def require_scheduler(client) -> None:
    """Raise `SolverError` once ``client`` has given up reconnecting to its
    scheduler (Dask retries for ``distributed.comm.timeouts.connect``)."""
    if client.status in ("closing", "closed"):
        raise SolverError(f"lost the Dask scheduler (client {client.status}); "
                          "whatever was written is whole: rerun to resume")


def _collect(fut, inputs: dict, sink: SweepFile, summary: Summary) -> None:
    """Write a finished point's record; note a task Dask could not deliver."""
    record, why = delivered(fut)
    if record is None:
        summary.undelivered.append({"point": inputs, "error": why})
    else:
        sink.append(record)
        if record["_exit"] == 0:
            summary.ok += 1
        else:
            summary.errors[record["_exit"]] = summary.errors.get(record["_exit"], 0) + 1


def delivered(fut) -> tuple:
    """``(result, None)`` for a task that finished and came back, else
    ``(None, why)``: the task raised (`PointError`), its workers kept dying
    (``KilledWorker``), it was cancelled, or its result was lost in transfer."""
    try:
        return fut.result(), None
    except (Exception, asyncio.CancelledError) as exc:  # noqa: BLE001 - reported with the point, never hidden
        return None, f"{type(exc).__name__}: {exc}"


def _engine_name(client) -> str:
    workers = client.nthreads()
    return f"Dask scheduler {client.scheduler.address}, {len(workers)} workers, {sum(workers.values())} threads"


@contextlib.contextmanager
def dask_client(workers: int | None = None, scheduler: str | None = None):
    """A Dask client: on an existing scheduler (``tcp://HOST:PORT``), or on an
    embedded LocalCluster of ``workers`` processes (default: the usable
    cores), one thread each (points hold the GIL; processes give parallelism)."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise SolverError("the Dask engine needs dask[distributed]: pip install 'dask[distributed]'") from None
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout=_CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ValueError) as exc:
            raise SolverError(f"no Dask scheduler reachable at {scheduler} within {_CONNECT_TIMEOUT}: {exc}") from None
        with client:
            yield client
        return
    n = workers if workers is not None else len(os.sched_getaffinity(0))
    require_workers(n)
    with contextlib.ExitStack() as stack:
        # SIGINT held back (not ignored) while the cluster starts: the worker
        # processes inherit the mask, so a Ctrl-C on the terminal (sent to the
        # whole process group) reaches only this client; one arriving meanwhile
        # is delivered when the block ends, inside the stack, which closes the
        # cluster on its way out (it used to be lost under SIG_IGN).
        with signals_held(signal.SIGINT):
            cluster = stack.enter_context(LocalCluster(
                n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                worker_dashboard_address=None, silence_logs=logging.ERROR,
                # the scheduler's HTTP routes start even without a dashboard, on 8787 by
                # default (a three-line warning when it is taken): any free local port
                scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"}))
            client = stack.enter_context(Client(cluster))
        yield client


def require_workers(n: int) -> None:
    """Refuse (`InvalidInput` below 1, `TooLarge` above the limits) an
    embedded cluster of ``n`` worker processes before starting it: each costs
    `WORKER_BYTES` of memory and `WORKER_SECONDS` of CPU to start (Python,
    Dask and crawlmath imported afresh), shared by the usable cores, after
    `SCHEDULER_SECONDS` for the scheduler."""
    if n < 1:
        raise InvalidInput("--workers", "must be >= 1", value=n)
    cores = len(os.sched_getaffinity(0))
    what = f"a local cluster of {n} worker processes"
    require_memory(n * WORKER_BYTES, "--workers", f"{what} ({format_bytes(WORKER_BYTES)} each)", value=n)
    require_seconds(SCHEDULER_SECONDS + n * WORKER_SECONDS / min(n, cores), "--workers",
                    f"starting {what} on {cores} cores", value=n)


class EtaProgress:
    """``sweep 37/54 points (3 present), 2 errors, 0 undelivered, 12.3 s, ETA 6.2 s``
    on stderr, redrawn at most twice a second on a terminal (a line every 10 s
    otherwise).  The rate behind the ETA is measured from the first point
    finished on, so cluster start-up and worker imports do not inflate it."""

    def __init__(self, stream=None):
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.t0 = time.monotonic()
        self._first: tuple[float, int] | None = None
        self._last = -math.inf

    def __call__(self, s: Summary, final: bool = False) -> None:
        now = time.monotonic()
        computed = s.written + len(s.undelivered)
        if self._first is None:
            self._first = (now, computed)
        if not final and now - self._last < (0.5 if self.tty else 10):
            return
        self._last = now
        left = s.points - s.present - computed
        rate = (computed - self._first[1]) / (now - self._first[0]) if now > self._first[0] else 0.0
        eta = f"ETA {left / rate:.1f} s" if rate > 0 else ("done" if not left else "ETA ?")
        line = (f"sweep {s.present + computed}/{s.points} points ({s.present} present), {sum(s.errors.values())} "
                f"errors, {len(s.undelivered)} undelivered, {now - self.t0:.1f} s, {eta}")
        self.stream.write(("\r\x1b[2K" + line + ("\n" if final else "")) if self.tty else line + "\n")
        self.stream.flush()


# --- claims in parallel (crawlmath verify --workers / --scheduler) -----------------------------


def claim_module(c) -> str:
    """The module that defines ``c``'s check (through functools.partial): the
    one a worker imports to register the claim without importing them all."""
    fn = c.check
    while isinstance(fn, functools.partial):
        fn = fn.func
    return getattr(fn, "__module__", "")


def run_group_by_ids(ids: list[str], modules: list[str]) -> list:
    """Worker side: register the claims ``ids`` (one work-sharing group) by importing their ``modules`` (all
    claim modules if that does not register them), run them in order in this process, sharing their module
    caches as a worker of the local pool does; ``[(id, Outcome, seconds)]`` (:func:`crawlmath.proofs.runner.run_group`)."""
    from .proofs import registry
    from .proofs.runner import run_group

    for module in dict.fromkeys(m for m in modules if m):
        registry.load_claim_module(module)
    if any(registry.lookup(i) is None for i in ids):
        # The registry has no look-up by id that avoids importing every claim module (30 s); a worker
        # needs only its claims' own modules, unless a check was defined in another one.
        registry.all_claims()
    missing = [i for i in ids if registry.lookup(i) is None]
    if missing:
        raise KeyError(f"claim {missing[0]!r} is not registered on this worker (another crawlmath version?)")
    return run_group(ids)


def run_claims_parallel(claims: Iterable, *, workers: int | None = None, scheduler: str | None = None,
                        progress: Callable | None = None, client=None) -> list:
    """Run ``claims`` (Claim objects) on Dask and return `Result` objects in
    the given order, as :func:`crawlmath.proofs.registry.run` would.

    The work is :func:`crawlmath.proofs.runner.plan`'s, as on the local pool:
    one task per work-sharing group (a group's claims share their module
    caches, e.g. Table 5's optimisation read by 26 cells, computed once per
    group), longest group first.  Claims travel by id (and the modules that
    register them).  A group that Dask cannot deliver (its worker died three
    times, or the result could not be sent back) becomes a FAIL for each of
    its claims naming why, as a check that raises does in
    ``registry.run_claim``; progress moves group by group."""
    from .proofs.registry import Outcome, Result
    from .proofs.runner import plan

    claims = list(claims)
    by_id = {cl.id: cl for cl in claims}
    groups = plan(claims)
    context = contextlib.nullcontext(client) if client is not None else dask_client(workers, scheduler)
    results: dict[str, Result] = {}
    with context as c:
        from dask.distributed import as_completed

        futures = {c.submit(run_group_by_ids, [cl.id for cl in members], [claim_module(cl) for cl in members],
                            key=f"crawlmath-claims-{group}", priority=len(groups) - rank): members
                   for rank, (group, members) in enumerate(groups)}
        try:
            for fut in completed(as_completed(futures), c):
                members = futures[fut]
                ran, why = delivered(fut)
                if ran is None:
                    failed = Outcome.failed(f"the Dask engine could not run the check: {why}")
                    ran = [(cl.id, failed, 0.0) for cl in members]
                for claim_id, outcome, seconds in ran:
                    results[claim_id] = Result(by_id[claim_id], outcome, seconds)
                if progress:
                    progress(len(results), len(claims), members[-1])
        finally:
            if c.status == "running":
                c.cancel(list(futures))
    return [results[cl.id] for cl in claims]
