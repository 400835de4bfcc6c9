"""cupboard's game library: one package per game family (``engine.gobblet``) behind one small
contract (``engine.game``), with what the families share: the registry (``engine.families``),
game records (``engine.record``), hints (``engine.hints``) and safe file writing.  Pure Python:
no camera, no OpenCV, no web server."""

from .families import (
    FAMILIES,
    UnknownVariant,
    engine_player,
    family,
    family_of,
    parse_position,
    perft,
    play_opening,
    variant,
)
from .game import (
    LEVELS,
    Alternative,
    Family,
    Game,
    GameOver,
    GameRules,
    Hint,
    IllegalMove,
    Level,
    Outcome,
    level,
)
from .hints import hint

__all__ = [
    "FAMILIES", "LEVELS", "Alternative", "Family", "Game", "GameOver", "GameRules", "Hint",
    "IllegalMove", "Level", "Outcome", "UnknownVariant", "engine_player", "family", "family_of", "hint",
    "level", "parse_position", "perft", "play_opening", "variant",
]
