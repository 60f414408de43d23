"""The ``scrapy-declutter`` command line.

Each subcommand lives in its own module with ``register(subparsers)``, which
adds its parser and sets ``func``; ``COMMANDS`` lists those modules by dotted
path, in help order. Modules are imported only to build the parser, and heavy
imports stay inside the ``func`` bodies so ``--help`` is instant.

The runtime commands (``extract``, ``inspect``, ``train``, ``sites``) live
here; the development commands (evaluate, train models, fuzz, regress...) live
in ``scrapy_declutter.lab.commands``. They are named here by string and loaded
with ``import_module``, so the command line offers them while no runtime
module imports the lab (the architecture tests check that direction).
"""

from __future__ import annotations

import argparse
import logging
import sys
from importlib import import_module
from typing import Sequence

from ..errors import DeclutterError

_LAB = "scrapy_declutter.lab.commands"
#: The command modules, in help order; each module's ``register`` names its command.
COMMANDS = [
    f"{__name__}.extract",
    f"{_LAB}.evaluate",
    f"{__name__}.inspect",
    f"{__name__}.train",
    f"{__name__}.sites",
    f"{_LAB}.train_dragnet",
    f"{_LAB}.train_model",
    f"{_LAB}.train_confidence",
    f"{_LAB}.fuzz",
    f"{_LAB}.adversarial",
    f"{_LAB}.regress",
    f"{_LAB}.check_walk",
    f"{_LAB}.bench_crawl",
    f"{_LAB}.bench_extract",
    f"{_LAB}.bench_compiled",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scrapy-declutter",
        description="Remove boilerplate from web pages; evaluate and inspect extractors.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log at DEBUG level")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS:
        import_module(module).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        return int(args.func(args) or 0)
    except DeclutterError as exc:
        print(f"scrapy-declutter: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `scrapy-declutter extract ... | head`
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
