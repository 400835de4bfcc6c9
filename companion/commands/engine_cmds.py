"""Subcommands over the game engine alone: perft, moves, show, record validate."""

from __future__ import annotations

import argparse
import time

from engine import Game, parse_position, perft, variant

from ..session import outcome_text


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the engine subcommands to the ``cupboard`` parser."""
    p = subparsers.add_parser("perft", help="count legal move sequences (checks the move generator)")
    p.add_argument("variant", help="gobblet, gobblet-jr, storer, goblet-5, cups or a rule token "
                                   "(e.g. 'cups[cups=3]')")
    p.add_argument("depth", type=int, help="plies to look ahead")
    p.add_argument("--position", help="start from this position text instead of the start")
    p.add_argument("--divide", action="store_true", help="print the count below each first move")
    p.set_defaults(func=cmd_perft)

    p = subparsers.add_parser("moves", help="list the legal moves of a position")
    _position_args(p)
    p.set_defaults(func=cmd_moves)

    p = subparsers.add_parser("show", help="draw a position as text")
    _position_args(p)
    p.add_argument("--svg", metavar="FILE", help="also write an SVG drawing to FILE")
    p.add_argument("--hidden", action="store_true", help="in the SVG, show what each stack hides (Gobblet)")
    p.set_defaults(func=cmd_show)

    p = subparsers.add_parser("record", help="work with game record files")
    sub = p.add_subparsers(dest="record_command", metavar="ACTION", required=True)
    v = sub.add_parser("validate", help="replay every game of a record file and report")
    v.add_argument("file", help="the record file")
    v.set_defaults(func=cmd_record_validate)


def _position_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--position", help="a position text (default: the variant's start)")
    p.add_argument("--variant", default="gobblet", help="variant for the start position (gobblet, cups, "
                                                        "'cups[cups=3]', ...)")


def board_from(position: str | None, variant_name: str) -> Game:
    """The board of ``--position`` when given, else the start of ``variant_name``.  An empty
    ``--position`` is refused rather than read as the start (a shell variable left empty)."""
    if position is None:
        return variant(variant_name).new_game()
    if not position.strip():
        raise ValueError("--position is empty: give a position text, or leave --position out "
                         "for the start position")
    return parse_position(position)


def _board(args: argparse.Namespace) -> Game:
    return board_from(args.position, args.variant)


def cmd_perft(args: argparse.Namespace) -> int:
    """Print the perft count (and the time it took)."""
    board = board_from(args.position, args.variant)
    if args.depth < 0:
        raise ValueError("depth must be 0 or more")
    start = time.perf_counter()
    if args.divide and args.depth >= 1:
        total = 0
        for move in board.legal_moves():
            text = board.move_text(move)
            board.push(move)
            n = perft(board, args.depth - 1)
            board.pop()
            total += n
            print(f"{text}: {n}")
    else:
        total = perft(board, args.depth)
    seconds = time.perf_counter() - start
    print(total)
    print(f"({seconds:.2f} s)", flush=True)
    return 0


def cmd_moves(args: argparse.Namespace) -> int:
    """Print the position and its legal moves in move text."""
    board = _board(args)
    print(str(board))
    moves = [board.move_text(m) for m in board.legal_moves()]
    print(f"{len(moves)} legal moves:")
    print(" ".join(moves) if moves else "(none)")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    """Print the position as text (and write its SVG drawing when asked)."""
    board = _board(args)
    print(board.text())
    print(str(board))
    if args.svg:
        try:
            drawing = board.svg(hidden=True) if args.hidden else board.svg()
        except TypeError:  # the game's drawing takes no such option
            raise ValueError(f"--hidden: {board.rules.name} has no hidden pieces to show") from None
        with open(args.svg, "w", encoding="utf-8") as f:
            f.write(drawing)
        print(f"wrote {args.svg}")
    return 0


def cmd_record_validate(args: argparse.Namespace) -> int:
    """Replay each game of a record file; name the first illegal move of each broken game."""
    from engine.record import RecordError, load_records

    records = load_records(args.file)
    bad = 0
    for i, record in enumerate(records, 1):
        label = f"game {i} ({record.tags.get('White', '?')} - {record.tags.get('Black', '?')})"
        try:
            board = record.replay()
        except RecordError as e:
            bad += 1
            print(f"{args.file}: {label}: {e}")
            continue
        outcome = board.outcome()
        ending = outcome_text(board, outcome) if outcome else "unfinished"
        print(f"{args.file}: {label}: valid, {len(record.moves)} moves, {ending}")
    print(f"{len(records) - bad} of {len(records)} games valid")
    return 1 if bad else 0
