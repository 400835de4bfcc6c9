"""Subcommands over the search: ``hint`` (a move suggestion), ``selfplay`` (engine matches) and
``prepare`` (build the exact Gobblet Jr. table that full-strength Jr. hints use)."""

from __future__ import annotations

import argparse
import random
import sys
import time

from engine import LEVELS, engine_player, family_of, hint, level, play_opening, variant

from ..jr_prepare import is_jr_game

MAX_PLIES = 200  # a self-play game this long is scored a draw


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the search subcommands to the ``cupboard`` parser."""
    p = subparsers.add_parser("hint", help="suggest a move for the side to move")
    p.add_argument("--position", help="a position text (default: the variant's start)")
    p.add_argument("--variant", default="gobblet", help="variant for the start position")
    p.add_argument("--time", type=float, default=1.0, help="seconds to think (default 1)")
    p.add_argument("--level", default="full", help=f"strength: {', '.join(LEVELS)} or 1-5 (default full)")
    p.set_defaults(func=cmd_hint)

    p = subparsers.add_parser("prepare", help="build the exact Gobblet Jr. table for hints (a few minutes), "
                                               "or another variant's (--variant 'cups[cups=3]')")
    p.add_argument("--force", action="store_true", help="build it again even if it is there")
    p.add_argument("--variant", help="prepare this variant's table instead (e.g. 'cups[cups=3]')")
    p.set_defaults(func=cmd_prepare)

    p = subparsers.add_parser("selfplay", help="play engine levels against each other")
    p.add_argument("--white", default="full", help="level of the first player")
    p.add_argument("--black", default="casual", help="level of the second player")
    p.add_argument("--games", type=int, default=10, help="number of games (colours alternate)")
    p.add_argument("--variant", default="gobblet")
    p.add_argument("--time", type=float, default=0.2, help="seconds a move for time-bound levels")
    p.add_argument("--seed", type=int, default=1, help="seed of the varied openings")
    p.add_argument("--opening-plies", type=int, default=2, help="random opening plies per game")
    p.set_defaults(func=cmd_selfplay)


def cmd_hint(args: argparse.Namespace) -> int:
    """Print the suggested move, its value, the reason and the alternatives."""
    from .engine_cmds import board_from

    board = board_from(args.position, args.variant)
    if args.time <= 0:
        raise ValueError("--time must be positive")
    if is_jr_game(board) and level(args.level).depth is None:
        _load_jr_table()
    h = hint(board, args.level, args.time)
    # the number behind a value said in words only ("clearly better"; Cups' values are in beans)
    number = f", {h.score:+d}" if h.score is not None and not _has_digit(h.value) else ""
    print(f"{h.text}  ({h.value}{number})")
    print(f"why: {h.reason}")
    kind = "exact" if h.exact else f"search depth {h.depth}"
    print(f"level {h.level}, {kind}, {h.nodes} nodes in {h.seconds:.2f} s")
    print("alternatives:")
    for alt in h.alternatives[:8]:
        number = f" ({alt.score:+d})" if alt.score is not None and not _has_digit(alt.value) else ""
        print(f"  {alt.text:10} {alt.value}{number}")
    return 0


def _has_digit(text: str) -> bool:
    return any(ch.isdigit() for ch in text)


def cmd_prepare(args: argparse.Namespace) -> int:
    """Build the Gobblet Jr. table into the cache (``$CUPBOARD_CACHE`` or ~/.cache/cupboard)
    unless it is there; ``cupboard serve`` does the same in the background."""
    from engine.gobblet.jr import table as jr_table

    if args.variant is not None:
        rules = variant(args.variant)
        if not is_jr_game(rules.new_game()):
            fam = family_of(rules.token)
            if fam.prepare is None:
                raise ValueError(f"{rules.name}: there is no table to prepare; hints search")
            print(f"preparing the table of {rules.token} ...", flush=True)
            start = time.perf_counter()
            print(f"{fam.prepare(rules)} ({time.perf_counter() - start:.1f} s)")
            return 0
    path = jr_table.default_path()
    if path.exists() and not args.force:
        print("the exact Gobblet Jr. table is ready:", flush=True)
        return jr_table.main(["info", "--file", str(path)])
    print(f"building the exact Gobblet Jr. table into {path} (a few minutes)...", flush=True)
    return jr_table.main(["build", "--out", str(path)])


def _load_jr_table() -> None:
    """Answer Gobblet Jr. exactly: load the cached table, building it first when missing."""
    from engine.gobblet.hints import use_jr_table
    from engine.gobblet.jr import table as jr_table

    if not jr_table.default_path().exists():
        print(f"building the exact Gobblet Jr. table into {jr_table.default_path()} (once, about a minute)...",
              file=sys.stderr, flush=True)
    use_jr_table(jr_table.get_table(build_if_missing=True))


def play_game(white: str, black: str, rules, seconds: float, rng: random.Random, opening_plies: int) -> str:
    """One game between two levels after ``opening_plies`` random safe plies; returns the
    result ``1-0``, ``0-1`` or ``1/2-1/2``."""
    board = rules.new_game()
    play_opening(board, rng, opening_plies)
    players = (engine_player(board, level(white).name), engine_player(board, level(black).name))
    while board.outcome() is None and board.ply < MAX_PLIES:
        board.push(players[board.turn](board, seconds, rng))
    outcome = board.outcome()
    return outcome.result if outcome else "1/2-1/2"


def cmd_selfplay(args: argparse.Namespace) -> int:
    """Play ``--games`` games, alternating colours, and print the results table."""
    rules = variant(args.variant)
    level(args.white), level(args.black)
    if args.games < 1:
        raise ValueError("--games must be at least 1")
    rng = random.Random(args.seed)
    names = (args.white, args.black)
    start_game = rules.new_game()
    names0, names1 = start_game.player_name(0), start_game.player_name(1)
    wins = [0, 0]
    draws = 0
    start = time.perf_counter()
    for g in range(args.games):
        first = g % 2  # player A is White in even games
        order = (names[first], names[1 - first])
        result = play_game(*order, rules, args.time, random.Random(rng.getrandbits(32)), args.opening_plies)
        if result == "1-0":
            wins[first] += 1
        elif result == "0-1":
            wins[1 - first] += 1
        else:
            draws += 1
        print(f"game {g + 1}: {order[0]} ({names0}) vs {order[1]} ({names1}): {result}", flush=True)
    n = args.games
    print(f"\n{'player':16} {'wins':>5} {'draws':>6} {'losses':>7} {'score':>7}")
    for i, tag in enumerate("AB"):
        label = f"{tag} {names[i]}"
        score = 100 * (wins[i] + draws / 2) / n
        print(f"{label:16} {wins[i]:5} {draws:6} {wins[1 - i]:7} {score:6.1f}%")
    print(f"{n} games of {rules.token} in {time.perf_counter() - start:.0f} s (A is {names0} in odd-numbered games)")
    return 0
