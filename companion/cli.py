"""The ``cupboard`` command line.

Each group of subcommands lives in a module of ``companion.commands`` that offers
``register(subparsers)``; a subcommand sets ``func`` to a function taking the parsed arguments
and returning an exit code.  Errors a user can cause are reported as one line, never as a
traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .commands import COMMAND_MODULES


class UserError(Exception):
    """A problem the user can fix (bad input, missing file); printed without a traceback."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="cupboard",
        description="Referee, hints and records for Gobblet-style cup-stacking games.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except (UserError, ValueError, OSError) as e:
        print(f"cupboard {args.command}: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
