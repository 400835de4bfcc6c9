"""cupboard's game library: rules, positions, moves, notation, records and drawings of
Gobblet-family games.  Pure Python: no camera, no OpenCV, no web server."""

from .board import (
    Board,
    GameOver,
    IllegalMove,
    Move,
    Outcome,
    PositionError,
    Touch,
    perft,
    replay,
)
from .rules import (
    BLACK,
    GOBBLET,
    GOBBLET_JR,
    GOBLET_5,
    STORER,
    VARIANTS,
    WHITE,
    Rules,
    RulesError,
    variant,
)

__all__ = [
    "BLACK", "GOBBLET", "GOBBLET_JR", "GOBLET_5", "STORER", "VARIANTS", "WHITE",
    "Board", "GameOver", "IllegalMove", "Move", "Outcome", "PositionError", "Rules",
    "RulesError", "Touch", "perft", "replay", "variant",
]
