"""The ``crawlmath`` console script.

Subcommands are the modules of :mod:`crawlmath.commands`; each defines
``NAME``, ``HELP`` (one line), ``EXAMPLE`` (shown in ``--help``),
``add_arguments(parser)`` and ``run(args) -> int``.

Exit codes (every failure is one line on stderr, never a traceback;
``CRAWLMATH_DEBUG=1`` adds the traceback):

====  ======================================================================
0     success
1     a checked claim FAILed (``verify``, ``report``; ``codegen --check``: stale code)
2     bad input: usage, an argument or model file breaking a rule, an unusable path
3     the solver could not deliver a trustworthy answer (`SolverError`: a
      residual above tolerance, a non-finite result, no convergence)
4     too large: the estimated memory or time exceeds the limit (`TooLarge`;
      raise with ``--max-memory``/``--max-seconds`` or ``CRAWLMATH_MAX_MEMORY``/
      ``CRAWLMATH_MAX_SECONDS``), or the machine ran out of memory
5     ``verify``: verdicts differ from the committed record
70    an unexpected internal error: a crawlmath bug (``EX_SOFTWARE``)
130   interrupted (Ctrl-C, or SIGTERM)
141   stdout closed early (``| head``): output stops quietly, as on SIGPIPE
====  ======================================================================

>>> main(["static", "--lam", "0.01", "--mu", "1", "--gamma", "-1", "--K", "10"])
2
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import pkgutil
import signal
import sys
import warnings

from . import commands as _commands_pkg
from .numeric.errors import InvalidInput, SolverError, TooLarge
from .numeric.validate import MEMORY_ENV, SECONDS_ENV, limits, parse_seconds, parse_size

EXIT_OK, EXIT_FAIL, EXIT_BAD_INPUT, EXIT_SOLVER, EXIT_TOO_LARGE, EXIT_RECORD = 0, 1, 2, 3, 4, 5
EXIT_BUG, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 70, 130, 141
DEBUG_ENV = "CRAWLMATH_DEBUG"

EPILOG = """\
Run 'crawlmath COMMAND --help' for a command's options and an example.

exit codes: 0 ok, 1 a checked claim FAILed, 2 bad input, 3 the solver could not
deliver, 4 too large for the limits (--max-memory/--max-seconds, or the env vars
CRAWLMATH_MAX_MEMORY/CRAWLMATH_MAX_SECONDS; defaults 8 GiB or 3/4 of RAM, 600 s),
5 verify: verdicts differ from the record, 70 internal error (a crawlmath bug),
130 interrupted, 141 stdout closed early. CRAWLMATH_DEBUG=1 shows tracebacks."""


class UsageError(Exception):
    """Bad command-line usage; reported as one line, exit 2."""


class _VersionAction(argparse.Action):
    """``--version``: print "crawlmath VERSION" on stdout and exit 0; the
    version is read from the package metadata only when asked for."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="show program's version number and exit"):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from . import __version__

        print(f"{parser.prog} {__version__}")
        parser.exit()


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse would print usage + exit 2 on two lines
        raise UsageError(f"{self.prog}: {message}")


def _command_modules():
    for info in sorted(pkgutil.iter_modules(_commands_pkg.__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            yield importlib.import_module(f"{_commands_pkg.__name__}.{info.name}")


def _add_limit_options(p: argparse.ArgumentParser) -> None:
    # SUPPRESS: given before or after COMMAND, a missing option never overwrites a given one.
    p.add_argument("--max-memory", metavar="SIZE", default=argparse.SUPPRESS,
                   help=f"memory limit for this run, e.g. 16G (sets {MEMORY_ENV}; default 8 GiB or 3/4 of RAM)")
    p.add_argument("--max-seconds", metavar="S", default=argparse.SUPPRESS,
                   help=f"estimated-time limit for this run (sets {SECONDS_ENV}; default 600)")


def build_parser() -> argparse.ArgumentParser:
    """The ``crawlmath`` argument parser: global limit options (--max-memory, --max-seconds) and one subcommand per command module."""
    parser = _Parser(
        prog="crawlmath",
        description="Rederive, generate code for, and check at high precision the mathematics of web-crawler optimisation.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_VersionAction)
    _add_limit_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for mod in _command_modules():
        p = sub.add_parser(
            mod.NAME,
            help=mod.HELP,
            description=mod.HELP,
            epilog="example:\n  " + "\n  ".join(mod.EXAMPLE.strip().splitlines()),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        mod.add_arguments(p)
        _add_limit_options(p)
        p.set_defaults(_run=mod.run)
    return parser


def _limits(args):
    """`validate.limits` from --max-memory/--max-seconds for this run only
    (restored afterwards, so in-process callers are unaffected)."""
    memory = parse_size(args.max_memory, "--max-memory") if hasattr(args, "max_memory") else None
    seconds = parse_seconds(args.max_seconds, "--max-seconds") if hasattr(args, "max_seconds") else None
    return limits(memory, seconds)


def _one_line_warning(message, category, filename, lineno, file=None, line=None):
    """Warnings (numpy's floating-point ones) as one line, without the source line."""
    print(f"crawlmath: warning: {category.__name__}: {message} ({os.path.basename(filename)}:{lineno})",
          file=file or sys.stderr)


def _fail(message: str, code: int) -> int:
    if os.environ.get(DEBUG_ENV, "") not in ("", "0"):
        import traceback  # only here: it pulls in linecache and tokenize

        traceback.print_exc()
    print("crawlmath: " + " ".join(message.split()), file=sys.stderr)  # one line, whatever the message
    return code


def _silence_stdout() -> None:
    """After EPIPE: point stdout at /dev/null so the interpreter's final flush
    does not raise a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _os_error(exc: OSError) -> str:
    where = exc.filename if exc.filename is not None else ""
    return f"error: {where}{': ' if where else ''}{exc.strerror or exc}"


def main(argv: list[str] | None = None) -> int:
    """Run one command; return its exit code (see the module docstring)."""
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "_run", None):
            parser.print_help()
            return EXIT_BAD_INPUT
        # Warnings are held until the command returns: a refusal stays one line
        # (the overflow warnings of a rejected input are not printed before it).
        with _limits(args), warnings.catch_warnings(record=True) as caught:
            code = int(args._run(args))
        for w in caught:
            _one_line_warning(w.message, w.category, w.filename, w.lineno)
        sys.stdout.flush()
        return code
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    except (UsageError, InvalidInput) as exc:
        return _fail(f"error: {exc}", EXIT_BAD_INPUT)
    except TooLarge as exc:
        return _fail(f"too large: {exc}", EXIT_TOO_LARGE)
    except MemoryError:
        return _fail("too large: ran out of memory (lower the size, or set --max-memory below the free RAM "
                     "so the request is refused up front)", EXIT_TOO_LARGE)
    except SolverError as exc:
        return _fail(f"solver could not deliver: {exc}", EXIT_SOLVER)
    except KeyboardInterrupt:
        return _fail("interrupted", EXIT_INTERRUPTED)
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as exc:
        return _fail(_os_error(exc), EXIT_BAD_INPUT)
    except Exception as exc:  # noqa: BLE001 - the last line of defence: one line, never a traceback
        return _fail(f"internal error: {type(exc).__name__}: {exc} -- this is a crawlmath bug "
                     f"(set {DEBUG_ENV}=1 for the traceback)", EXIT_BUG)


def _terminated(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def install_signal_handlers() -> None:
    """SIGTERM handled as Ctrl-C is (KeyboardInterrupt: the command cleans up,
    exit 130) from the first instant of the process; a signal the parent set
    to be ignored (``nohup``, a background job) stays ignored."""
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _terminated)


def tolerate_output_encoding() -> None:
    """Characters the terminal's encoding cannot show (``PYTHONIOENCODING=ascii``
    and help texts with λ, μ, –) are written as ``\\u03bb`` escapes instead of
    raising UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")


def entry() -> None:
    """Console-script entry point: exit the process with the code :func:`main` returns."""
    install_signal_handlers()
    tolerate_output_encoding()
    sys.exit(main())
