"""Cups (Amberstone, in Sackson's *A Gamut of Games*): rules, game, texts, drawing, exact
values and hints.  See ``docs/cups.md``."""

from .contract import Alternative, Hint, IllegalMove, Outcome
from .game import CupsGame, Drop, MoveTextError, Pass, PositionError, Sow, parse_move_text, parse_position
from .rules import NORTH, SOUTH, CupsRules, CupsRulesError, variant

__all__ = [
    "Alternative", "CupsGame", "CupsRules", "CupsRulesError", "Drop", "Hint", "IllegalMove",
    "MoveTextError", "NORTH", "Outcome", "Pass", "PositionError", "SOUTH", "Sow",
    "parse_move_text", "parse_position", "variant",
]
