"""The registry of game families: which family a variant token or a position text belongs to.

``FAMILIES`` is the table; a new family is one more entry.  Everything else reaches a family's
variants, positions and hints through the functions here (``engine`` re-exports them)."""

from __future__ import annotations

from . import gobblet
from .cups import family as cups
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
