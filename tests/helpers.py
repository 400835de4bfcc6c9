"""Small helpers shared by the rule tests: square names, moves by name, destination sets."""

import random
from collections.abc import Iterator

from engine.gobblet import Board, Move
from engine import variant


def sq(board: Board, name: str) -> int:
    """The index of square ``name`` (e.g. ``"c3"``) on ``board``."""
    return board.geo.square(name)


def entry(board: Board, size: int, to: str) -> Move:
    """The move that enters a piece of ``size`` from the reserve onto square ``to``."""
    return Move(size, sq(board, to))


def step(board: Board, frm: str, to: str) -> Move:
    """The board move of the top piece of ``frm`` to ``to`` (its size read off the board)."""
    top = board.top(sq(board, frm))
    assert top is not None, f"{frm} is empty"
    return Move(top[1], sq(board, to), sq(board, frm))


def entry_squares(board: Board, size: int) -> set[str]:
    """Names of the squares where the player to move may legally enter a piece of ``size``."""
    return {board.geo.names[m.to] for m in board.legal_moves() if m.frm is None and m.size == size}


def destinations(board: Board, frm: str) -> set[str]:
    """Names of the squares the top piece of ``frm`` may legally move to."""
    f = sq(board, frm)
    return {board.geo.names[m.to] for m in board.legal_moves() if m.frm == f}


def empty_squares(board: Board) -> set[str]:
    """Names of the empty squares."""
    return {name for i, name in enumerate(board.geo.names) if board.top(i) is None}


def play_all(board: Board, texts: str) -> None:
    """Play moves given as space-separated move texts (each checked by the engine)."""
    for text in texts.split():
        board.play(board.parse_move(text))


def random_positions(name: str, games: int, seed: int, plies: int) -> Iterator[Board]:
    """The positions of ``games`` seeded random games of variant ``name``, each up to a random
    number of plies (at most ``plies``) or its end; the same board object is yielded after
    each move, so copy it to keep it."""
    rules = variant(name)
    rng = random.Random(seed)
    for _ in range(games):
        board = Board(rules)
        for _ in range(rng.randint(0, plies)):
            if board.outcome() is not None:
                break
            yield board
            board.push(rng.choice(board.legal_moves()))
