"""Hints for any game: ``hint`` asks the game's family (``Family.hint``).  The values a hint is
made of (``Hint``, ``Alternative``, ``Level``) are shared (``engine.game``)."""

from __future__ import annotations

from typing import Any

from .families import family
from .game import Game, Hint


def hint(game: Game, strength: str | int = "full", seconds: float = 1.0, **options: Any) -> Hint:
    """The suggested move for the player to move in ``game`` at ``strength`` (a level name or
    1-5), thinking for about ``seconds``; ``options`` are the family's (such as ``rng``,
    ``searcher`` or ``multipv`` for Gobblet).  Raises ``ValueError`` when the game is over."""
    return family(game.family).hint(game, strength, seconds, **options)
