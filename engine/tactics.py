"""Fast tactical facts about a board, computed from its bitboards without playing moves:
what a move would end in, which squares complete a line, which moves win at once.

The search and the hints use these on every node, so they read the board's internals
(``tops``, ``size_bb``, ``stacks``, ``reserve``) directly; they never change the board.
"""

from __future__ import annotations

from .board import Board, Move
from .geometry import squares_of
from .rules import ENTRY_EMPTY, ENTRY_FREE

ONGOING = 0
WINS = 1  # the move shows the mover's line and not the opponent's
LOSES = 2  # after the move the opponent shows a line (the move uncovered it)


def move_result(board: Board, move: Move, colour: int | None = None) -> int:
    """What ``move`` by ``colour`` (default: the side to move) would end in: ONGOING, WINS or
    LOSES, judged after the whole move as the rules say.  The board must not be over."""
    c = board.turn if colour is None else colour
    size, to, frm = move
    tops = board.tops
    tbit = 1 << to
    mine = tops[c] | tbit
    theirs = tops[1 - c] & ~tbit
    geo = board.geo
    if frm is not None:
        fbit = 1 << frm
        mine &= ~fbit
        stack = board.stacks[frm]
        if len(stack) >= 2:
            if stack[-2] & 1 == c:
                mine |= fbit
            else:
                theirs |= fbit
                for line in geo.lines_through[frm]:
                    if theirs & line == line:
                        return LOSES
    for line in geo.lines_through[to]:
        if mine & line == line:
            return WINS
    return ONGOING


def completing_squares(board: Board, colour: int) -> int:
    """Squares that would complete a line of ``colour``: the one square missing from each line
    in which ``colour`` shows all tops but one."""
    bb = board.tops[colour]
    need = board.rules.line - 1
    if bb.bit_count() < need:
        return 0
    out = 0
    for line in board.geo.lines:
        if (bb & line).bit_count() == need:
            out |= line & ~bb
    return out


def threat_lines(board: Board, colour: int) -> list[int]:
    """Lines in which ``colour`` shows all tops but one."""
    bb = board.tops[colour]
    need = board.rules.line - 1
    if bb.bit_count() < need:
        return []
    return [line for line in board.geo.lines if (bb & line).bit_count() == need]


def candidate_moves_to(board: Board, colour: int, targets: int) -> list[Move]:
    """Legal-as-if-to-move moves of ``colour`` whose destination is in ``targets`` (a bitboard).

    For the side to move these are exactly its legal moves to those squares; for the other side
    they are the moves it could make there on its next turn if the position stayed as it is."""
    out: list[Move] = []
    if not targets:
        return out
    stacks = board.stacks
    size_bb = board.size_bb
    sizes = board.rules.sizes
    entry = board.rules.entry
    own = board.tops[colour]
    counts = board.reserve[colour]
    below = None
    for to in squares_of(targets):
        stack = stacks[to]
        top = stack[-1] >> 1 if stack else 0
        for s in range(sizes, top, -1):
            if not counts[s]:
                continue
            if top and entry != ENTRY_FREE:
                if entry == ENTRY_EMPTY:
                    continue
                if below is None:
                    below = board._below()
                if not board._entry_targets(s, below, colour) >> to & 1:
                    continue
            out.append(Move(s, to, None))
        bigger = 0
        for s in range(top + 1, sizes + 1):
            bigger |= size_bb[s]
        for frm in squares_of(own & bigger & ~(1 << to)):
            out.append(Move(stacks[frm][-1] >> 1, to, frm))
    return out


def winning_moves(board: Board, colour: int | None = None) -> list[Move]:
    """The moves with which ``colour`` (default: the side to move) would win at once."""
    c = board.turn if colour is None else colour
    hot = completing_squares(board, c)
    if not hot:
        return []
    return [m for m in candidate_moves_to(board, c, hot) if move_result(board, m, c) == WINS]


def game_result(board: Board):
    """The outcome of the last move (line, reveal or repetition) without counting moves; None
    while the game goes on.  (``Board.outcome`` also counts legal moves, which the search
    cannot afford on every node; a position without moves is handled by the search itself.)"""
    return board._result
