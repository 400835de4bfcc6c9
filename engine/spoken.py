"""Moves said aloud, for any game: ``spoken_move`` asks the game's family
(``Family.spoken_move``) and falls back on the mover's name and the move text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .families import family
from .game import Game


def spoken_move(game: Game, move: Any, names: Sequence[str] | None = None) -> str:
    """``move`` (legal in ``game``'s position, about to be played) in the words a player would
    say it aloud, naming the mover by ``names`` (the players' names; default: the game's names
    of its players)."""
    words = family(game.family).spoken_move
    if words is not None:
        return words(game, move, names)
    mover = game.player_name(game.turn)
    if names and len(names) > game.turn and names[game.turn]:
        mover = names[game.turn]
    return f"{mover}, {game.move_text(move)}"
