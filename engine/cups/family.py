"""Cups as the registry sees it: ``FAMILY``, the registry's entry, and the few functions it
needs besides what the game (``game.CupsGame``) and the hints (``hints.hint``) offer: the
options of a new game and the preparation of the exact table."""

from __future__ import annotations

from typing import Any

from ..game import AGREEMENT, RESIGNATION, TIME_FORFEIT, Family
from . import hints as cups_hints
from .analysis import judge
from . import solve as cups_solve
from .spoken import spoken_move
from .game import SCORE, parse_position
from .rules import MAX_BEANS, MAX_CUPS, MIN_CUPS, CupsRules, CupsRulesError, variant

REASONS = (SCORE, RESIGNATION, AGREEMENT, TIME_FORFEIT)


def prepare(rules: CupsRules) -> str:
    """Prove the start of ``rules`` and save the table hints load (``hints.prepare``); returns
    a line with the start's value, the table's size and where it went.  ValueError when the
    positions of ``rules`` do not fit the exact solver."""
    if cups_solve.key_width(rules) is None:
        raise ValueError(f"{rules.token}: positions do not fit the exact solver; hints search instead")
    solver = cups_hints.prepare(rules)
    value = solver.value(rules.new_game())
    return (f"{rules.token}: start value {value:+d} beans with perfect play; {solver.entries:,d} entries, "
            f"{solver.nbytes / 2**20:.0f} MiB -> {cups_hints.table_path(rules)}")


# the largest games whose start ``prepare`` proves in seconds (3 cups, 30 beans each: about
# 10 s and 192 MiB here); the standard 4-cup game's start is beyond the exact solver's reach
QUICK_TABLE_CUPS, QUICK_TABLE_BEANS = 3, 30


def wants_table(rules: CupsRules) -> bool:
    """Whether a server should prepare the table of ``rules`` in the background: it is
    missing, and the game is small enough for its start to be proved in seconds."""
    return (rules.cups <= QUICK_TABLE_CUPS and rules.beans <= QUICK_TABLE_BEANS
            and cups_solve.key_width(rules) is not None and not cups_hints.table_path(rules).exists())


def token_for(options: dict) -> str:
    """The variant token of a new game's options (``cups``, ``beans``, ``count_left``);
    raises ``ValueError`` naming a bad option."""
    values: dict[str, Any] = {}
    for name in ("cups", "beans"):
        value = options.get(name)
        if value in (None, ""):
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            raise CupsRulesError(f"{name} must be a whole number, not {value!r}")
        values[name] = value
    if options.get("count_left"):
        values["count_left"] = True
    return CupsRules(**values).token


FAMILY = Family(
    name="cups",
    presets=("cups",),
    variant=variant,
    parse_position=parse_position,
    hint=cups_hints.hint,
    reasons=REASONS,
    move_shape=r"(?:d[1-9][0-9]?x?|s[1-9][0-9]?|pass)",
    camera_referee=True,
    options=(
        {"name": "cups", "label": "Cups per player", "kind": "int", "min": MIN_CUPS, "max": MAX_CUPS, "default": 4},
        {"name": "beans", "label": "Beans each (empty: 10 per cup)", "kind": "int", "min": 1, "max": MAX_BEANS,
         "default": None},
        {"name": "count_left", "label": "Beans left in cups count at the end", "kind": "bool", "default": False},
    ),
    token_for=token_for,
    prepare=prepare,
    wants_table=wants_table,
    perft=cups_solve.perft,
    judge=judge,
    spoken_move=spoken_move,
)
