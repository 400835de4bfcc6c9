"""The options of a game of Cups (Amberstone, in Sackson's *A Gamut of Games*).

A rule set is written as a short token for position texts and records, like Gobblet's: ``cups``
for the standard game, or with overrides in brackets, e.g. ``cups[cups=3]`` or
``cups[cups=5,beans=40,count-left,first=north]``.  Overrides name only what differs from the
standard game for that number of cups (the beans default to 10 per cup), so every rule set has
exactly one token.
"""

from __future__ import annotations

from dataclasses import dataclass

SOUTH, NORTH = 0, 1
PLAYER_NAMES = ("South", "North")
MIN_CUPS, MAX_CUPS = 3, 10
MAX_BEANS = 200


class CupsRulesError(ValueError):
    """A rule set or rule token that does not make a playable game of Cups."""


@dataclass(frozen=True)
class CupsRules:
    """The options of a game of Cups.

    ``cups`` is the number of cups in each player's row (X, 3-10); ``beans`` the beans each
    player starts with in stock (None: the standard 10 per cup); ``count_left``, whether beans
    left in a player's cups count for that player at the end; ``first``, who moves first
    (0 = South, 1 = North).  ``new_game()`` (the game contract) is attached by
    ``engine.cups.game``, which sits above this module.
    """

    cups: int = 4
    beans: int | None = None
    count_left: bool = False
    first: int = SOUTH

    def __post_init__(self) -> None:
        problems = []
        if not isinstance(self.cups, int) or not MIN_CUPS <= self.cups <= MAX_CUPS:
            problems.append(f"cups must be {MIN_CUPS} to {MAX_CUPS} per player, not {self.cups!r}")
        if self.beans is not None and (not isinstance(self.beans, int) or not 1 <= self.beans <= MAX_BEANS):
            problems.append(f"beans must be 1 to {MAX_BEANS} per player, not {self.beans!r}")
        if self.first not in (SOUTH, NORTH):
            problems.append(f"first must be South (0) or North (1), not {self.first!r}")
        if problems:
            raise CupsRulesError("; ".join(problems))
        if self.beans is None:
            object.__setattr__(self, "beans", 10 * self.cups)

    family = "cups"

    @property
    def token(self) -> str:
        """The rule set as written in position texts and records (round-trips through ``parse``)."""
        overrides = []
        if self.cups != 4:
            overrides.append(f"cups={self.cups}")
        if self.beans != 10 * self.cups:
            overrides.append(f"beans={self.beans}")
        if self.count_left:
            overrides.append("count-left")
        if self.first != SOUTH:
            overrides.append("first=north")
        return f"cups[{','.join(overrides)}]" if overrides else "cups"

    @property
    def name(self) -> str:
        """The rule set for people, e.g. ``Cups (3 cups, 30 beans each)``."""
        extras = [f"{self.cups} cups", f"{self.beans} beans each"]
        if self.count_left:
            extras.append("beans left in cups count")
        if self.first != SOUTH:
            extras.append("North starts")
        return f"Cups ({', '.join(extras)})"

    @classmethod
    def parse(cls, token: str) -> "CupsRules":
        """Read a rule token such as ``cups`` or ``cups[cups=5,beans=40,count-left,first=north]``."""
        if not isinstance(token, str):
            raise CupsRulesError(f"a Cups rule token must be text, not {type(token).__name__}")
        text = token.strip()
        name, bracket, rest = text.partition("[")
        if name.strip() != "cups":
            raise CupsRulesError(f"rule token {token!r}: a Cups token starts with 'cups'")
        if not bracket:
            if rest or name != "cups":
                raise CupsRulesError(f"rule token {token!r}: unexpected text after 'cups'")
            return cls()
        if not rest.endswith("]"):
            raise CupsRulesError(f"rule token {token!r}: overrides must end with ']'")
        values: dict[str, object] = {}
        for item in rest[:-1].split(","):
            item = item.strip()
            if not item:
                continue
            key, eq, value = (part.strip() for part in item.partition("="))
            field = _FIELDS.get(key)
            if field is None:
                raise CupsRulesError(
                    f"rule token {token!r}: unknown option {key!r}; options: cups=N, beans=N, "
                    "count-left, first=south|north"
                )
            if field in values:
                raise CupsRulesError(f"rule token {token!r}: {key} is given twice")
            values[field] = _value(field, key, value if eq else None, token)
        try:
            return cls(**values)  # type: ignore[arg-type]
        except CupsRulesError as exc:
            raise CupsRulesError(f"rule token {token!r}: {exc}") from None


_FIELDS = {"cups": "cups", "beans": "beans", "count-left": "count_left", "first": "first"}


def _value(field: str, key: str, text: str | None, token: str) -> object:
    if field == "count_left":
        if text is None or text in ("on", "yes", "true"):
            return True
        if text in ("off", "no", "false"):
            return False
        raise CupsRulesError(f"rule token {token!r}: count-left takes no value (or on/off), not {text!r}")
    if text is None or text == "":
        raise CupsRulesError(f"rule token {token!r}: {key} needs a value ({key}=...)")
    if field == "first":
        player = {"south": SOUTH, "s": SOUTH, "north": NORTH, "n": NORTH}.get(text.lower())
        if player is None:
            raise CupsRulesError(f"rule token {token!r}: first must be south or north, not {text!r}")
        return player
    if not text.isdigit():
        raise CupsRulesError(f"rule token {token!r}: {key} needs a whole number, not {text!r}")
    return int(text)


def variant(token: str) -> CupsRules:
    """The Cups rule set of a token (see ``CupsRules.parse``)."""
    return CupsRules.parse(token)
