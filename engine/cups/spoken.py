"""Cups moves as players say them aloud: ``Ann drops 3``, ``Ann drops 2 and takes 4 beans``,
``Ben sows cup 3``, ``Ben passes``.  Pure: the game is read, never changed."""

from __future__ import annotations

from collections.abc import Sequence

from .game import CupsGame
from .moves import CupsMove, Drop, Pass, Sow


def spoken_move(game: CupsGame, move: CupsMove, names: Sequence[str] | None = None) -> str:
    """``move`` (about to be played in ``game``) as said aloud, with the mover's name (the
    side's name, South or North, by default) and the beans a drop takes."""
    who = game.player_name(game.turn)
    if names and len(names) > game.turn and isinstance(names[game.turn], str) and names[game.turn].strip():
        who = names[game.turn].strip()
    if isinstance(move, Drop):
        taken = game.captures(move)
        takes = f" and takes {taken} bean{'' if taken == 1 else 's'}" if taken else ""
        return f"{who} drops {move.k}{takes}"
    if isinstance(move, Sow):
        return f"{who} sows cup {move.cup}"
    if isinstance(move, Pass):
        return f"{who} passes"
    return f"{who} plays {game.move_text(move)}"
