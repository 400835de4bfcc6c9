"""Rule options and the named variants built from them.

Every ruling that differs between the sources in ``shared/RULES.md`` is an option here, so a
variant is a preset of options (``VARIANTS``), never a fork of the move generator.  A rule set
is written as a short token for position texts and records: the preset's name, optionally
followed by overrides in brackets, e.g. ``gobblet`` or ``gobblet[board=5,line=4]``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from functools import cached_property

WHITE = 0
BLACK = 1
COLOUR_NAMES = ("White", "Black")

# How a piece from the reserve may enter the board (besides onto an empty square, always allowed).
ENTRY_EMPTY = "empty"  # only onto empty squares
ENTRY_DEFENSIVE = "defensive"  # Blue Orange: onto an opponent top in a line the opponent nearly owns
ENTRY_STORER = "storer"  # Storer: onto any smaller top on a line the opponent nearly owns
ENTRY_FREE = "free"  # Gobblet Jr.: onto any smaller top
ENTRY_RULES = (ENTRY_EMPTY, ENTRY_DEFENSIVE, ENTRY_STORER, ENTRY_FREE)

RESERVE_STACKS = "stacks"  # nested external stacks; only each stack's top may be played
RESERVE_FREE = "free"  # loose pieces, any may be played
RESERVE_KINDS = (RESERVE_STACKS, RESERVE_FREE)


class RulesError(ValueError):
    """A rule set or rule token that does not make a playable game."""


@dataclass(frozen=True)
class Rules:
    """The options that define a Gobblet-family game.

    ``per_size`` is the number of pieces of each size per player; with stacked reserves it is
    also the number of external stacks (each stack nests one piece of every size).
    ``line`` is the number of tops in a row that wins (at most the board size).
    """

    name: str = "gobblet"
    board: int = 4
    sizes: int = 4
    reserve: str = RESERVE_STACKS
    per_size: int = 3
    line: int = 4
    entry: str = ENTRY_DEFENSIVE
    first: int = WHITE
    touch_move: bool = True
    repetitions: int = 3

    def __post_init__(self) -> None:
        problems = []
        if self.name not in PRESET_NAMES:
            problems.append(f"name must be a variant ({', '.join(PRESET_NAMES)}), not {self.name!r}")
        if not 3 <= self.board <= 5:
            problems.append(f"board must be 3 to 5 squares a side, not {self.board}")
        if not 3 <= self.sizes <= 5:
            problems.append(f"sizes must be 3 to 5, not {self.sizes}")
        if self.reserve not in RESERVE_KINDS:
            problems.append(f"reserve must be one of {', '.join(RESERVE_KINDS)}, not {self.reserve!r}")
        if not 1 <= self.per_size <= 6:
            problems.append(f"per_size must be 1 to 6, not {self.per_size}")
        if not 3 <= self.line <= self.board:
            problems.append(f"line must be 3 to the board size ({self.board}), not {self.line}")
        if self.entry not in ENTRY_RULES:
            problems.append(f"entry must be one of {', '.join(ENTRY_RULES)}, not {self.entry!r}")
        if self.first not in (WHITE, BLACK):
            problems.append("first must be White (0) or Black (1)")
        if self.repetitions < 2:
            problems.append("repetitions must be at least 2")
        if problems:
            raise RulesError("; ".join(problems))

    @property
    def squares(self) -> int:
        """Number of squares on the board."""
        return self.board * self.board

    @property
    def pieces_per_player(self) -> int:
        """Number of pieces each player owns."""
        return self.sizes * self.per_size

    @cached_property
    def token(self) -> str:
        """The rule set as written in position texts and records (round-trips through ``parse``)."""
        base = VARIANTS.get(self.name)
        if base is None:
            base = CUSTOM_BASE
        overrides = []
        for f in fields(self):
            if f.name == "name":
                continue
            value = getattr(self, f.name)
            if value != getattr(base, f.name):
                overrides.append(f"{_KEY_OF_FIELD[f.name]}={_format_value(f.name, value)}")
        name = self.name if self.name in VARIANTS else "custom"
        return f"{name}[{','.join(overrides)}]" if overrides else name

    @classmethod
    def parse(cls, token: str) -> "Rules":
        """Read a rule token such as ``gobblet-jr`` or ``gobblet[board=5,line=4]``."""
        token = token.strip()
        name, bracket, rest = token.partition("[")
        if name == "custom":
            base = CUSTOM_BASE
        elif name in VARIANTS:
            base = VARIANTS[name]
        else:
            known = ", ".join([*VARIANTS, "custom"])
            raise RulesError(f"unknown variant {name!r}; known variants: {known}")
        if not bracket:
            return base
        if not rest.endswith("]"):
            raise RulesError(f"rule token {token!r}: overrides must end with ']'")
        changes: dict[str, object] = {}
        for item in filter(None, rest[:-1].split(",")):
            key, eq, value = item.partition("=")
            field_name = _FIELD_OF_KEY.get(key.strip())
            if field_name in changes:
                raise RulesError(f"rule token {token!r}: {key.strip()} is given twice")
            if not eq or field_name is None:
                raise RulesError(
                    f"rule token {token!r}: {item!r} is not key=value with a key among "
                    f"{', '.join(_FIELD_OF_KEY)}"
                )
            changes[field_name] = _parse_value(field_name, value.strip(), token)
        return replace(base, **changes)


# Keys as written in tokens (short, readable) and the dataclass fields they set.
_KEY_OF_FIELD = {
    "board": "board",
    "sizes": "sizes",
    "reserve": "reserve",
    "per_size": "per",
    "line": "line",
    "entry": "entry",
    "first": "first",
    "touch_move": "touch",
    "repetitions": "rep",
}
_FIELD_OF_KEY = {key: name for name, key in _KEY_OF_FIELD.items()}
PRESET_NAMES = ("gobblet", "gobblet-jr", "storer", "goblet-5", "custom")
_INT_FIELDS = {"board", "sizes", "per_size", "line", "repetitions"}


def _format_value(field_name: str, value: object) -> str:
    if field_name == "first":
        return "w" if value == WHITE else "b"
    if field_name == "touch_move":
        return "on" if value else "off"
    return str(value)


def _parse_value(field_name: str, text: str, token: str) -> object:
    if field_name in _INT_FIELDS:
        if not (text.isascii() and text.isdigit()):
            raise RulesError(f"rule token {token!r}: {field_name} needs a whole number, not {text!r}")
        return int(text)
    if field_name == "first":
        if text not in ("w", "b"):
            raise RulesError(f"rule token {token!r}: first must be w or b, not {text!r}")
        return WHITE if text == "w" else BLACK
    if field_name == "touch_move":
        if text not in ("on", "off"):
            raise RulesError(f"rule token {token!r}: touch must be on or off, not {text!r}")
        return text == "on"
    return text


GOBBLET = Rules()
GOBBLET_JR = Rules(
    name="gobblet-jr", board=3, sizes=3, reserve=RESERVE_FREE, per_size=2, line=3, entry=ENTRY_FREE
)
STORER = Rules(name="storer", entry=ENTRY_STORER)
GOBLET_5 = Rules(name="goblet-5", board=5, sizes=5, per_size=5, line=5)
CUSTOM_BASE = replace(GOBBLET, name="custom")

VARIANTS: dict[str, Rules] = {r.name: r for r in (GOBBLET, GOBBLET_JR, STORER, GOBLET_5)}


def variant(name: str) -> Rules:
    """The rule set of a named variant or rule token (see ``Rules.parse``)."""
    return Rules.parse(name)
