"""The ``cupboard`` command line.

Each group of subcommands lives in a module of ``companion.commands`` that offers
``register(subparsers)``; a subcommand sets ``func`` to a function taking the parsed arguments
and returning an exit code.  Errors a user can cause are reported as one line, never as a
traceback.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from collections.abc import Sequence

from .commands import COMMAND_MODULES, UserError

__all__ = ["UserError", "build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="cupboard",
        description="Referee, hints and records for Gobblet-style cup-stacking games.",
        epilog=equipment_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(subparsers)
    return parser


def equipment_epilog() -> str:
    """The variants, piece sets and boards a user can name (sets and boards: shipped and their
    own), for ``--help``."""
    from engine import FAMILIES
    from hardware.pieces import board_names, piece_set_names

    variants = []
    for fam in FAMILIES.values():
        variants.extend(fam.offered or fam.presets)

    def listing(names: dict[str, str]) -> str:
        return ", ".join(f"{n} (yours)" if where == "user" else n for n, where in names.items())

    return (f"variants (--variant): {', '.join(variants)} (options in brackets, e.g. cups[cups=3])\n"
            f"piece sets (--set): {listing(piece_set_names())}\n"
            f"boards (--board): {listing(board_names())}\n"
            "your own: cupboard set new (see docs/measuring.md)")


def describe_os_error(e: OSError) -> str:
    """An OSError as one line a user can act on (no ``[Errno 2]``)."""
    reason = (e.strerror or str(e)).rstrip(".")
    if e.errno == errno.ENOENT:
        reason = "no such file or folder"
    elif e.errno == errno.EACCES:
        reason = "permission denied"
    return f"{e.filename}: {reason}" if e.filename else reason


def _quiet_broken_pipe() -> int:
    """The reader of our output (``| head``) has gone: stop without a traceback or a second
    error when Python flushes stdout at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except OSError as e:
        print(f"cupboard {args.command}: {describe_os_error(e)}", file=sys.stderr)
        return 1
    except (UserError, ValueError) as e:
        print(f"cupboard {args.command}: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
