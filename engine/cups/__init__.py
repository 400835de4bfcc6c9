"""Cups (Amberstone, in Sackson's *A Gamut of Games*): rules, game, texts, drawing, exact
values and hints.  See ``docs/cups.md``."""

from ..game import Alternative, GameOver, Hint, IllegalMove, Outcome
from .game import (CupsGame, IllegalMoveText, MoveTextError, PositionError, parse_move_text,
                   parse_position)
from .moves import CupsMove, Drop, Pass, Sow
from .rules import NORTH, SOUTH, CupsRules, CupsRulesError, variant

__all__ = [
    "Alternative", "CupsGame", "CupsMove", "CupsRules", "CupsRulesError", "Drop", "GameOver", "Hint",
    "IllegalMove", "IllegalMoveText", "MoveTextError", "NORTH", "Outcome", "Pass", "PositionError", "SOUTH",
    "Sow", "parse_move_text", "parse_position", "variant",
]
