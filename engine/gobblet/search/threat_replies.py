"""The quiescence step's move facts, bound once per rule set: where a threat can be stopped and
the replies that go there.

``ThreatReplies(rules)`` gives two functions with the rules' tables bound in:
``targets(board, colour)`` is ``tactics.threat_targets`` and ``replies(board, targets)`` yields
the moves of ``movegen.moves_to`` in the same order, one at a time (the quiescence step
usually stops after the first few, so the rest are never made).  Both read the board's
bitboards through the flat tables of ``engine.gobblet.bitboard_tables`` and test a winning board move
inline instead of calling ``tactics.move_result``; the tests compare them with the originals.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache

from ..bitboard_tables import (
    completing_table,
    first_line_table,
    hot_lines_table,
    square_table,
    threat_lines_table,
)
from ..board import Board
from ..geometry import geometry
from ..rules import ENTRY_DEFENSIVE, ENTRY_EMPTY, ENTRY_FREE, Rules


class ThreatReplies:
    """``targets`` and ``replies`` under one rule set (see the module's docstring)."""

    __slots__ = ("targets", "replies")

    def __init__(self, rules: Rules) -> None:
        self.targets: Callable[[Board, int], int] = _targets_function(rules)
        self.replies: Callable[[Board, int], Iterator[tuple]] = _replies_function(rules)


@cache
def threat_replies(rules: Rules) -> ThreatReplies:
    """The (shared) ``ThreatReplies`` of ``rules``."""
    return ThreatReplies(rules)


def _targets_function(rules: Rules) -> Callable[[Board, int], int]:
    geo = geometry(rules.board, rules.line)
    completing = completing_table(rules.board, rules.line)
    guarded_by = hot_lines_table(rules.board, rules.line)
    threat_lines = threat_lines_table(rules.board, rules.line)
    first_line = first_line_table(rules.board, rules.line)
    squares = square_table(rules.squares)
    lines_through = geo.lines_through
    sizes = rules.sizes
    entry = rules.entry
    free = entry == ENTRY_FREE
    empty_only = entry == ENTRY_EMPTY
    defensive = entry == ENTRY_DEFENSIVE

    def targets(board: Board, colour: int) -> int:
        """``tactics.threat_targets(board, colour)``."""
        tops = board.tops
        own = tops[colour]
        hot = completing[own]
        if not hot:
            return 0
        other = tops[1 - colour]
        stacks = board.stacks
        size_bb = board.size_bb
        counts = board.reserve[colour]
        wins = False
        sources = 0
        for to in squares[hot]:
            stack = stacks[to]
            top = stack[-1] >> 1 if stack else 0
            tbit = 1 << to
            if not wins:
                for s in range(sizes, top, -1):
                    if counts[s]:
                        # (a completing square holds the other side's top, if any)
                        if not top or free:
                            wins = True
                        elif not empty_only and guarded_by[other] & tbit:
                            wins = not defensive or other & tbit != 0
                        break  # whether an entry may go there does not depend on its size
            bigger = 0
            for s in range(top + 1, sizes + 1):
                bigger |= size_bb[s]
            for frm in squares[own & bigger & ~tbit & ~sources]:
                # ``move_result`` of the board move frm -> to, written out
                fbit = 1 << frm
                mine = (own | tbit) & ~fbit
                src = stacks[frm]
                if len(src) >= 2:
                    if src[-2] & 1 == colour:
                        mine |= fbit
                    else:
                        # lifting it uncovers a line of the other side's (which showed none
                        # before the move, so any line it shows now is new): it loses
                        if first_line[(other & ~tbit) | fbit]:
                            continue
                for line in lines_through[to]:
                    if mine & line == line:
                        sources |= fbit
                        break
        if not wins and not sources:
            return 0
        return threat_lines[own] | sources

    return targets


def _replies_function(rules: Rules) -> Callable[[Board, int], Iterator[tuple]]:
    squares = square_table(rules.squares)
    threat_lines = threat_lines_table(rules.board, rules.line)
    sizes = rules.sizes
    entry = rules.entry
    free = entry == ENTRY_FREE
    empty_only = entry == ENTRY_EMPTY
    defensive = entry == ENTRY_DEFENSIVE

    def replies(board: Board, targets: int) -> Iterator[tuple]:
        """The moves of ``movegen.moves_to(board, targets)``, in its order, made as asked."""
        if not targets:
            return
        c = board.turn
        stacks = board.stacks
        size_bb = board.size_bb
        mine = board.tops[c]
        theirs = board.tops[1 - c]
        counts = board.reserve[c]
        dests = [(to, stacks[to][-1] >> 1 if stacks[to] else 0) for to in squares[targets]]
        hot = threat_lines[theirs]
        for s in range(sizes, 0, -1):
            can_enter = counts[s]
            own = mine & size_bb[s]
            if not can_enter and not own:
                continue
            froms = squares[own]
            for to, top in dests:
                if top >= s:
                    continue
                if can_enter:
                    if not top or free:
                        yield (s, to, None)
                    elif not empty_only and hot >> to & 1 and (not defensive or theirs >> to & 1):
                        yield (s, to, None)
                for frm in froms:
                    if frm != to:
                        yield (s, to, frm)

    return replies
