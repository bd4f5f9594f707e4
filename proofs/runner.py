"""Run the claim registry on local worker processes (``crawlmath verify``'s
default on a machine with more than one core).

Claims share work through their modules' caches (Table 5's optimisation is
computed once and read by 26 cells), so claims are not scattered one by one:
they travel in *groups* of claims that share an id prefix (``paper.part``,
e.g. ``avrachenkov.table-5``), or the finer group a claim names when its
prefix is too coarse (Buijsrogge's Tables 8.x share seeded runs per series,
not per table), and a group runs whole in one worker.  Groups
are handed out longest first, by the seconds the group took in the last run
on this machine (`CostLog`, a small JSON file in the user's cache directory;
without it, groups with slow claims go first), to worker processes forked
from the parent after every claim module is imported.  A worker reports each
finished claim at once, so progress and its ETA move claim by claim.

`plan` is the one place that decides the groups and their order: the local
pool here and the Dask path (:func:`crawlmath.sweep.run_claims_parallel`,
``crawlmath verify --scheduler``) both run its plan, one task per group, each
group through `run_group`.

The results are the same objects, in the same order, as
:func:`crawlmath.proofs.registry.run` returns; a group whose worker died
becomes FAILs naming why (as a check that raises does), never a hang.

>>> group_of("avrachenkov.table-5.m1.cost")
'avrachenkov.table-5'
>>> group_of("coffman.thm-5.1")
'coffman.thm-5'
"""
from __future__ import annotations

import collections
import json
import multiprocessing
import os
import signal
import tempfile
import threading
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Callable, Iterable

from .registry import Claim, Outcome, Result, lookup, run_claim

_PROGRESS: "multiprocessing.queues.SimpleQueue | None" = None  # set in each worker by `_init_worker`


def group_of(claim_id: str) -> str:
    """The work-sharing group of a claim: the group it names, else the first two parts of its id."""
    c = lookup(claim_id)
    if c is not None and c.group:
        return c.group
    return ".".join(claim_id.split(".")[:2])


def default_workers() -> int:
    """The cores this process may run on (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class CostLog:
    """Seconds per group from the last runs on this machine, used only to
    order the work (a missing or unreadable file orders by slow claims).
    Stored in ``$XDG_CACHE_HOME/crawlmath/verify-seconds.json`` (default
    ``~/.cache``), written atomically, never required."""

    def __init__(self, path: Path | None = None):
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        self.path = path or base / "crawlmath" / "verify-seconds.json"
        try:
            data = json.loads(self.path.read_text())
            self.seconds = {str(k): float(v) for k, v in data.items()} if isinstance(data, dict) else {}
        except (OSError, ValueError, TypeError):
            self.seconds = {}

    def estimate(self, group: str, claims: list[Claim]) -> float:
        """Expected seconds of ``group``: the logged value, else a guess from its slow claims."""
        if group in self.seconds:
            return self.seconds[group]
        return 5.0 * sum(c.slow for c in claims) + 0.05 * len(claims)

    def update(self, results: Iterable[Result]) -> None:
        """Record the seconds of every group that ran completely (all its
        registered claims); best effort (a read-only cache is fine)."""
        from .registry import all_claims

        spent: dict[str, float] = collections.defaultdict(float)
        ran: collections.Counter = collections.Counter()
        for r in results:
            spent[group_of(r.claim.id)] += r.seconds
            ran[group_of(r.claim.id)] += 1
        size = collections.Counter(group_of(c.id) for c in all_claims())
        self.seconds.update({g: s for g, s in spent.items() if ran[g] == size[g]})
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".verify-seconds.", dir=self.path.parent)
            with os.fdopen(fd, "w") as f:
                json.dump(dict(sorted(self.seconds.items())), f, indent=0)
            os.replace(tmp, self.path)
        except OSError:
            pass


def _init_worker(progress_queue) -> None:
    global _PROGRESS
    _PROGRESS = progress_queue
    # Ctrl-C reaches the whole process group: the parent stops the workers, they print nothing
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The parent stops them with terminate() (SIGTERM). The CLI's SIGTERM handler, inherited through fork, would
    # turn that into a KeyboardInterrupt that the pool's worker loop catches and sends back as a result: the worker
    # would live on, and the interpreter's exit would wait for it (issue seen on a loaded machine: exit after 60+ s).
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def plan(claims: Iterable[Claim], log: CostLog | None = None) -> list[tuple[str, list[Claim]]]:
    """The work-sharing groups of ``claims`` in the order to hand them out: ``[(group, its claims in the given
    order)]``, longest expected first (`CostLog`; ties keep the order of first appearance)."""
    log = log or CostLog()
    groups: dict[str, list[Claim]] = collections.defaultdict(list)
    for c in claims:
        groups[group_of(c.id)].append(c)
    return sorted(groups.items(), key=lambda item: -log.estimate(*item))


def run_group(ids: list[str]) -> list[tuple[str, Outcome, float]]:
    """Run the registered claims ``ids`` (one group of `plan`) in order, in this process; ``[(id, outcome, seconds)]``.
    In a worker of `run_parallel`, each finished claim is also reported to the parent's progress at once."""
    out = []
    for claim_id in ids:
        r = run_claim(lookup(claim_id))
        out.append((claim_id, r.outcome, r.seconds))
        if _PROGRESS is not None:
            _PROGRESS.put(claim_id)
    return out


def run_parallel(claims: Iterable[Claim], workers: int, progress: Callable | None = None,
                 log: CostLog | None = None) -> list[Result]:
    """Run ``claims`` on ``workers`` forked processes, one work-sharing group
    at a time per worker, longest group first; results in the given order.
    Every claim must be registered in this process (`lookup` finds it)."""
    claims = list(claims)
    if workers <= 1 or len(claims) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        from .registry import run

        return run(claims, progress)
    log = log or CostLog()
    groups = dict(plan(claims, log))
    order = list(groups)
    ctx = multiprocessing.get_context("fork")
    progress_queue = ctx.SimpleQueue()
    done: dict[str, Result] = {}
    by_id = {c.id: c for c in claims}
    finished = threading.Event()
    reported = [0]

    def follow() -> None:
        while True:
            if progress_queue.empty():
                if finished.is_set():
                    return
                finished.wait(0.05)
                continue
            try:
                claim_id = progress_queue.get()
            except (EOFError, OSError):
                return
            reported[0] += 1
            if progress:
                progress(reported[0], len(claims), by_id.get(claim_id))

    watcher = threading.Thread(target=follow, daemon=True)
    watcher.start()
    pool = ProcessPoolExecutor(max_workers=min(workers, len(order)), mp_context=ctx, initializer=_init_worker,
                               initargs=(progress_queue,))
    try:
        futures = {pool.submit(run_group, [c.id for c in groups[g]]): g for g in order}
        for fut in as_completed(futures):
            g = futures[fut]
            try:
                for claim_id, outcome, seconds in fut.result():
                    done[claim_id] = Result(by_id[claim_id], outcome, seconds)
            except BrokenProcessPool as exc:
                why = f"the worker process running group {g!r} died ({exc})"
                for c in groups[g]:
                    done.setdefault(c.id, Result(c, Outcome.failed(f"verify could not run the check: {why}"), 0.0))
    except BaseException:  # Ctrl-C or a bug: stop the workers before the error propagates
        workers_alive = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for p in workers_alive:
            p.terminate()
        raise
    else:
        pool.shutdown(wait=True)
    finally:
        finished.set()
        watcher.join(timeout=2)
    results = [done[c.id] for c in claims]
    log.update(results)
    if progress:
        progress(len(claims), len(claims), None)
    return results
