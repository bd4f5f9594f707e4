"""The ``crawlmath-cli`` directive: the command-line reference generated from the argument parser
itself (``crawlmath.cli.build_parser``), one section per subcommand holding exactly what
``crawlmath COMMAND --help`` prints, so no option, default or example in the docs can drift from
the installed command.  Help texts are shown verbatim (a literal block), never parsed as markup.
"""
from __future__ import annotations

import argparse
import os

from docutils import nodes
from docutils.parsers.rst import Directive

WIDTH = "100"  # argparse wraps at $COLUMNS; fixed so the page does not depend on the build's terminal


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse keeps the subcommands only here
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _help(parser: argparse.ArgumentParser) -> str:
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        return parser.format_help()
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old


def _section(title: str, ident: str, text: str) -> nodes.section:
    section = nodes.section(ids=[ident], names=[ident])
    section += nodes.title(text=title)
    block = nodes.literal_block(text, text)
    block["language"] = "text"
    section += block
    return section


class CrawlmathCli(Directive):
    def run(self):
        from crawlmath.cli import build_parser

        parser = build_parser()
        out = [_section("crawlmath", "cli-crawlmath", _help(parser))]
        for name, sub in sorted(_subparsers(parser).items()):
            out.append(_section(f"crawlmath {name}", f"cli-{name}", _help(sub)))
        return out


def setup(app):
    app.add_directive("crawlmath-cli", CrawlmathCli)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
