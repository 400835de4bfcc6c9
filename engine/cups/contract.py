"""Local stand-ins for the shared game contract's value types (``engine/game.py``).

The shared contract is being written at the same time as this family; until it lands, Cups
defines these with exactly the contract's fields so that they can be replaced by the shared
ones with an import change at merge time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class IllegalMove(ValueError):
    """A move the rules do not allow here; the message names the rule."""


@dataclass(frozen=True)
class Outcome:
    """How a game ended: the winner (None for a draw) and why, in words."""

    winner: int | None
    reason: str

    @property
    def result(self) -> str:
        """The result as written in records: ``1-0``, ``0-1`` or ``1/2-1/2``."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner == 0 else "0-1"


@dataclass(frozen=True)
class Alternative:
    """A ranked move: its text, its value in words and its score (None when exact)."""

    move: Any
    text: str
    value: str
    score: int | None = None


@dataclass(frozen=True)
class Hint:
    """A suggested move with its value, a reason in words and the ranked alternatives."""

    move: Any
    text: str  # move text
    value: str  # "wins by 6 with perfect play", "level with perfect play", "+3 (depth 9)"
    reason: str  # why, in words a player understands
    alternatives: tuple[Alternative, ...]  # ranked, the suggested move first
    level: str
    exact: bool  # True when the value is proved
    score: int | None = None  # search score, None for exact values
    depth: int = 0
    nodes: int = 0
    seconds: float = 0.0
