"""The registry of game families: which family a variant token or a position text belongs to.

``FAMILIES`` is the table; a new family is one more entry.  Everything else reaches a family's
variants, positions and hints through the functions here (``engine`` re-exports them)."""

from __future__ import annotations

from . import gobblet
from .cups import family as cups
import random
from collections.abc import Callable
from typing import Any

from .game import Family, Game, GameRules

FAMILIES: dict[str, Family] = {
    family.name: family
    for family in (
        gobblet.FAMILY,
        cups.FAMILY,
    )
}


class UnknownVariant(ValueError):
    """A variant token or position text that no family knows."""


def family_of(text: str) -> Family:
    """The family whose variant ``text`` (a variant token, or a position text starting with
    one) names; raises ``UnknownVariant`` listing the known presets."""
    for family in FAMILIES.values():
        if family.owns(text):
            return family
    head = text.strip().split(None, 1)[0] if isinstance(text, str) and text.strip() else ""
    known = ", ".join(name for family in FAMILIES.values() for name in family.presets)
    raise UnknownVariant(f"unknown variant {head.partition('[')[0]!r}; known variants: {known}")


def family(name: str) -> Family:
    """The family called ``name`` (``Game.family``)."""
    try:
        return FAMILIES[name]
    except KeyError:
        raise UnknownVariant(f"unknown game family {name!r}: use one of {', '.join(FAMILIES)}") from None


def variant(token: str) -> GameRules:
    """The rules a variant token names (``gobblet``, ``gobblet-jr``, ``gobblet[board=5]``, ...),
    read by its family; ``rules.new_game()`` gives the start position."""
    return family_of(token).variant(token)


def parse_position(text: str) -> Game:
    """The game a position text describes, read by the family its first word (the variant
    token) names; raises a ``ValueError`` subclass naming the problem."""
    if not isinstance(text, str):
        raise UnknownVariant("a position text must be a string")
    return family_of(text).parse_position(text)


def perft(game: Game, depth: int) -> int:
    """The number of move sequences of ``depth`` moves from ``game`` (the family's fast count
    when it has one, else one through the contract)."""
    fam = family(game.family)
    if fam.perft is not None:
        return fam.perft(game, depth)
    if depth == 0:
        return 1
    total = 0
    for move in game.legal_moves():
        game.push(move)
        total += perft(game, depth - 1)
        game.pop()
    return total


def engine_player(game: Game, strength: str) -> Callable[[Game, float, random.Random], Any]:
    """A player for self-play at ``strength``: called with (game, seconds, rng), it returns
    its move.  The family's own when it has one (reusing its search between moves)."""
    fam = family(game.family)
    if fam.engine_player is not None:
        return fam.engine_player(strength)

    def move(position: Game, seconds: float, rng: random.Random) -> Any:
        return fam.hint(position, strength, seconds, rng=rng).move

    return move


def play_opening(game: Game, rng: random.Random, plies: int) -> None:
    """Play ``plies`` varied opening moves on ``game`` (the family's quiet openings when it has
    them, else random legal moves while the game goes on)."""
    fam = family(game.family)
    if fam.opening is not None:
        fam.opening(game, rng, plies)
        return
    for _ in range(plies):
        moves = game.legal_moves()
        if not moves or game.outcome() is not None:
            return
        game.push(rng.choice(moves))
