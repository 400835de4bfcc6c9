"""Gobblet and its variants (Gobblet Jr., Storer's rules, Goblet 5 and custom rule tokens):
the board with full stacks (``board``), rules as option presets (``rules``), position and move
text (``notation``), drawings (``svg``), tactics and evaluation, hints (``hints``) from the
search (``search/``) or, for Gobblet Jr., the exact 3x3 table (``jr/``).

``FAMILY`` is what the registry (``engine.families``) knows of it."""

from ..game import Family, GameOver, IllegalMove, Outcome
from .board import Board, parse_position, perft, replay
from .analysis import judge
from .hints import engine_player, hint
from .spoken import spoken_move
from .tactics import play_safe_random
from .notation import NotationError
from .rules import (
    BLACK,
    GOBBLET,
    GOBBLET_JR,
    GOBLET_5,
    PRESET_NAMES,
    STORER,
    VARIANTS,
    WHITE,
    Rules,
    RulesError,
    variant,
)
from .values import REASONS, Move, PositionError, Touch

FAMILY = Family(
    name="gobblet",
    presets=PRESET_NAMES,
    variant=variant,
    parse_position=parse_position,
    hint=hint,
    reasons=REASONS,
    # size, from-square, capture mark, to-square, end marks; whether they exist is for replay
    move_shape=r"[1-9]?(?:[a-z][1-9])?[-x]?[a-z][1-9](?:#|\?#|=)?",
    camera_referee=True,
    offered=tuple(VARIANTS),  # ``custom`` is the base of rule tokens, not a game of its own
    perft=lambda board, depth: perft(board, depth),
    engine_player=engine_player,
    opening=play_safe_random,
    judge=judge,
    spoken_move=spoken_move,
)

__all__ = [
    "BLACK", "FAMILY", "GOBBLET", "GOBBLET_JR", "GOBLET_5", "STORER", "VARIANTS", "WHITE",
    "Board", "GameOver", "IllegalMove", "Move", "NotationError", "Outcome", "PositionError",
    "Rules", "RulesError", "Touch", "hint", "parse_position", "perft", "replay", "variant",
]
