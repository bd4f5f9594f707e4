"""The ``crawlmath`` console script.

Subcommands are the modules of :mod:`crawlmath.commands`; each defines
``NAME``, ``HELP`` (one line), ``EXAMPLE`` (shown in ``--help``),
``add_arguments(parser)`` and ``run(args) -> int``.

Exit codes: 0 success, 1 a checked claim FAILed, 2 bad input (one line on
stderr, never a traceback).
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from . import commands as _commands_pkg
from .numeric.errors import InvalidInput

EXIT_OK, EXIT_FAIL, EXIT_BAD_INPUT = 0, 1, 2


class UsageError(Exception):
    """Bad command-line usage; reported as one line, exit 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse would print usage + exit 2 on two lines
        raise UsageError(f"{self.prog}: {message}")


def _command_modules():
    for info in sorted(pkgutil.iter_modules(_commands_pkg.__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            yield importlib.import_module(f"{_commands_pkg.__name__}.{info.name}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="crawlmath",
        description="Rederive, generate code for, and check at high precision the mathematics of web-crawler optimisation.",
        epilog="Run 'crawlmath COMMAND --help' for a command's options and an example.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__import__('crawlmath').__version__}")
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
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "_run", None):
            parser.print_help()
            return EXIT_BAD_INPUT
        return int(args._run(args))
    except (UsageError, InvalidInput) as exc:
        print(f"crawlmath: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("crawlmath: interrupted", file=sys.stderr)
        return 130


def entry() -> None:
    sys.exit(main())
