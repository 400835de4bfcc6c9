"""The small values of Gobblet games: moves, touch-move verdicts, why a game ended, and the
error of an impossible set-up.  ``Outcome``, ``IllegalMove`` and ``GameOver`` are shared by
every family (``engine.game``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ..game import AGREEMENT, RESIGNATION, TIME_FORFEIT  # the endings every family shares

# Why a game ended.
LINE = "line"  # the mover shows a line
REVEAL = "reveal"  # the mover uncovered the opponent's line (the opponent wins)
REPETITION = "repetition"
NO_MOVES = "no-moves"  # the player to move has no legal move and loses
TOUCH_MOVE = "touch-move"  # lifted own piece that has no legal destination
REASONS = (LINE, REVEAL, REPETITION, NO_MOVES, RESIGNATION, AGREEMENT, TOUCH_MOVE, TIME_FORFEIT)


class Move(NamedTuple):
    """A move: a piece of ``size`` goes to square ``to``, from square ``frm`` or, when
    ``frm`` is None, from the mover's reserve.  Equal pieces are interchangeable, so this is all
    that identifies a move."""

    size: int
    to: int
    frm: int | None = None

    @property
    def is_entry(self) -> bool:
        """True when the piece comes from the reserve."""
        return self.frm is None


@dataclass(frozen=True)
class Touch:
    """The verdict on a player lifting the top piece of ``square`` (touch-move).

    ``violation`` explains why the lift itself breaks the rules (not the mover's piece, or
    nothing there); ``moves`` are the legal moves of the lifted piece; when it is the mover's
    own piece and ``moves`` is empty, ``loses`` is True: that player loses the game.
    """

    square: int
    moves: tuple[Move, ...]
    violation: str | None = None

    @property
    def loses(self) -> bool:
        """True when the mover lifted their own piece and it has nowhere to go."""
        return self.violation is None and not self.moves


class PositionError(ValueError):
    """A set-up position that cannot occur in the game (wrong counts, bad stacks, ...)."""
