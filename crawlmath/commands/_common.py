"""Helpers shared by subcommands: argument types that raise one-line errors,
JSON output, and a progress line for long runs."""
from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys

from ..numeric.errors import InvalidInput, SolverError


def _bad(name: str, rule: str, text: str) -> argparse.ArgumentTypeError:
    # argparse shows an ArgumentTypeError's text as is ("argument --K: ...");
    # any other exception from a type function would become "invalid value".
    return argparse.ArgumentTypeError(f"{rule} (got {text!r})")


def number(name: str):
    """argparse type (or a plain parser): a finite float, error naming the option."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise InvalidInput(name, "must be a number", value=text) from None
        if not math.isfinite(value):
            raise InvalidInput(name, "must be finite", value=text)
        return value

    parse.__name__ = "finite number"  # argparse words a type error as "invalid finite number value: 'nan'"
    return parse


def integer(name: str, allow_inf: bool = False):
    """argparse type: an integer (or 'inf' when allowed)."""

    def parse(text: str):
        if allow_inf and text.strip().lower() in ("inf", "infinity", "∞"):
            return math.inf
        try:
            return int(text)
        except ValueError:
            raise _bad(name, "must be an integer" + (" or 'inf'" if allow_inf else ""), text) from None

    return parse


def _plain(o):
    """JSON's view of numpy scalars/arrays (anything else is refused by json)."""
    if hasattr(o, "tolist"):
        return o.tolist()
    raise TypeError(f"{type(o).__name__} is not JSON serialisable")


def non_finite(obj, path: str = "") -> tuple[str, float] | None:
    """The key path and value of the first nan/inf float inside ``obj``
    (dicts, lists, tuples, numpy arrays), or None.

    >>> non_finite({"a": [1.0, {"b": float("nan")}]})
    ('a[1].b', nan)
    """
    if hasattr(obj, "dtype") and getattr(obj, "ndim", 0) > 0:  # an array: checked whole, not element by element
        return _non_finite_array(obj, path)
    obj = _plain(obj) if hasattr(obj, "tolist") else obj
    if isinstance(obj, list) and all(type(v) is int for v in obj):  # noqa: E721 - a golden cycle: 10^7 ints
        return None
    if isinstance(obj, float):
        return None if math.isfinite(obj) else (path or "result", obj)
    if isinstance(obj, dict):
        items = ((f"{path}.{k}" if path else str(k), v) for k, v in obj.items())
    elif isinstance(obj, (list, tuple)):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(obj))
    else:
        return None
    for p, v in items:
        found = non_finite(v, p)
        if found:
            return found
    return None


def _non_finite_array(a, path: str) -> tuple[str, float] | None:
    import numpy as np

    if a.dtype.kind in "biu":
        return None
    if a.dtype.kind not in "fc":
        return non_finite(a.tolist(), path)
    bad = np.argwhere(~np.isfinite(a))
    if not bad.size:
        return None
    idx = tuple(int(i) for i in bad[0])
    return f"{path or 'result'}" + "".join(f"[{i}]" for i in idx), a[idx].item()


def require_finite_output(obj) -> None:
    """Gate on what a command prints: a nan or inf means the method did not
    deliver (`SolverError`), never a number shown with exit 0.  A value that
    is legitimately infinite is passed through `json_safe` (a string) first."""
    found = non_finite(obj)
    if found:
        raise SolverError(f"the result {found[0]} is {found[1]}; nothing printed")


def print_json(obj) -> None:
    """Print ``obj`` as JSON, all or nothing: the text is built and checked
    (finite numbers only) before a byte reaches stdout."""
    require_finite_output(obj)
    text = json.dumps(obj, indent=2, default=_plain, allow_nan=False)
    write_whole(text + "\n")


def write_whole(text: str) -> None:
    """Write ``text`` to stdout and flush it with SIGINT/SIGTERM held back, so
    an interrupt during a long write to a slow pipe never leaves a truncated
    document: it is delivered (exit 130) once the text is out."""
    import signal

    with signals_held(signal.SIGINT, signal.SIGTERM):
        sys.stdout.write(text)
        sys.stdout.flush()


@contextlib.contextmanager
def signals_held(*signums):
    """Hold the signals ``signums`` back for the duration of the block, then
    deliver them as they would have been (the previous handler runs: Ctrl-C
    raises KeyboardInterrupt).  Blocked in this thread's mask -- inherited by
    the threads and processes started inside -- and recorded by a handler of
    our own, for a signal the kernel hands to another thread.  Outside the
    main thread (no handlers there) the block runs as is.

    >>> import signal, os
    >>> try:
    ...     with signals_held(signal.SIGINT):
    ...         os.kill(os.getpid(), signal.SIGINT)
    ...         print("the block ends first")
    ... except KeyboardInterrupt:
    ...     print("then the interrupt")
    the block ends first
    then the interrupt
    """
    import os
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = {n: signal.signal(n, lambda signum, frame: caught.append(signum)) for n in signums}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, set(signums))
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # a pending signal runs our recorder now
        for n, handler in previous.items():
            signal.signal(n, handler)
    for n in dict.fromkeys(caught):
        handler = previous[n]
        if callable(handler):
            handler(n, None)
        elif handler in (signal.SIG_DFL, None):
            os.kill(os.getpid(), n)  # the default action, now


def json_safe(x):
    """An infinite float that is a legitimate value (K = inf) as the string
    ``"inf"``; a nan is never legitimate and is left for the gate to refuse."""
    if isinstance(x, float) and math.isinf(x):
        return str(x)
    return x


# Arguments that steer the display or the program, not the computation: never echoed.
_NOT_INPUTS = ("json", "command", "_run")


def inputs(args, units: dict[str, str] | None = None) -> dict:
    """Every argument of a run as parsed, for ``"inputs"`` in ``--json``:
    option names without dashes (``max_memory``), tuples as lists, an infinite
    K as ``"inf"``; ``units`` (argument -> unit) is added under ``"units"``
    for the arguments where a unit means something.

    >>> import argparse
    >>> inputs(argparse.Namespace(lam=0.5, K=float("inf"), modes=(3, 1), json=True), {"lam": "1/time"})
    {'lam': 0.5, 'K': 'inf', 'modes': [3, 1], 'units': {'lam': '1/time'}}
    """
    out = {}
    for name, value in vars(args).items():
        if name in _NOT_INPUTS:
            continue
        out[name] = list(value) if isinstance(value, tuple) else json_safe(value)
    if units:
        out["units"] = {k: v for k, v in units.items() if k in out}
    return out


def add_progress_option(p: argparse.ArgumentParser) -> None:
    """``--progress``: show the progress bar even under --json or when stderr is not a terminal."""
    p.add_argument("--progress", action="store_true",
                   help="show progress with an ETA on stderr even under --json or when stderr is not a terminal")


def progress_wanted(args) -> bool:
    """Progress is shown on a terminal without --json, or when asked (--progress)."""
    return bool(getattr(args, "progress", False)) or (not getattr(args, "json", False) and sys.stderr.isatty())


class Progress:
    """A progress bar with an ETA on stderr (tqdm), called as
    ``progress(done, total, what=None)``; ``what`` (an object with ``id``,
    or text) is shown after the bar.  Silent when ``enabled`` is False; close
    it (or use it as a context manager) to finish the line.  A ``total`` known
    up front starts the clock (and the ETA's rate) at construction rather than
    at the first report."""

    def __init__(self, label: str, enabled: bool = True, unit: str = "it", total: int | None = None):
        self.label, self.enabled, self.unit = label, enabled, unit
        self._bar = None
        if enabled and total is not None:
            self._open(total)

    def _open(self, total: int) -> None:
        from tqdm import tqdm

        # a line every 5 s when stderr is a file or pipe (tqdm redraws with \r otherwise)
        self._bar = tqdm(total=total, desc=self.label, unit=self.unit, file=sys.stderr, dynamic_ncols=True,
                         mininterval=0.2 if sys.stderr.isatty() else 5.0, leave=True)

    def __call__(self, done: int, total: int, what=None) -> None:
        if not self.enabled:
            return
        if self._bar is None:
            self._open(total)
        bar = self._bar
        if bar.total != total:
            bar.total = total
        name = getattr(what, "id", what)
        if name:
            bar.set_postfix_str(str(name)[:60], refresh=False)
        bar.update(done - bar.n)
        if done >= total:
            self.close()

    def close(self) -> None:
        """Finish the bar's line (idempotent)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()
