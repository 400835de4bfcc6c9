"""Gobblet moves as players say them aloud, for a page that reads the game out: ``Ann, large
to c3, gobbles Ben's small``; ``Ben, medium from b1 to b2, uncovers Ann's small``.

Pieces are named by size in words (small, medium, large ... as the variant has sizes), the
players by their names (the colours by default).  Pure: the board is read, never changed.
"""

from __future__ import annotations

from collections.abc import Sequence

from .board import Board
from .values import Move

# the words for the sizes of a variant with 3, 4 or 5 sizes, smallest first
SIZE_WORDS: dict[int, tuple[str, ...]] = {
    3: ("small", "medium", "large"),
    4: ("tiny", "small", "medium", "large"),
    5: ("tiny", "small", "medium", "large", "huge"),
}


def size_word(board: Board, size: int) -> str:
    """The word for a piece of ``size`` in ``board``'s variant (``large``); the number for a
    size the words do not cover."""
    words = SIZE_WORDS.get(board.rules.sizes, ())
    return words[size - 1] if 1 <= size <= len(words) else f"size {size}"


def spoken_move(board: Board, move: Move, names: Sequence[str] | None = None) -> str:
    """``move`` (legal in ``board``'s position, about to be played) as said aloud: the mover,
    the piece and where it goes, what it gobbles and what lifting it uncovers."""
    who = [board.player_name(0), board.player_name(1)]
    for i, name in enumerate(names or ()):
        if i < 2 and isinstance(name, str) and name.strip():
            who[i] = name.strip()
    me = board.turn
    squares = board.geo.names
    piece = size_word(board, move.size)
    if move.frm is None:
        words = [f"{who[me]}, {piece} to {squares[move.to]}"]
    else:
        words = [f"{who[me]}, {piece} from {squares[move.frm]} to {squares[move.to]}"]
    covered = board.top(move.to)
    if covered is not None:
        owner = "own" if covered[0] == me else f"{who[covered[0]]}'s"
        words.append(f"gobbles {owner} {size_word(board, covered[1])}")
    if move.frm is not None and len(board.stacks[move.frm]) >= 2:
        below = board.stacks[move.frm][-2]
        owner = "own" if below & 1 == me else f"{who[below & 1]}'s"
        words.append(f"uncovers {owner} {size_word(board, below >> 1)}")
    return ", ".join(words)
