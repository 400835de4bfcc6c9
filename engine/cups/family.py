"""Cups as the registry and the companion see it: the glue between the Cups package and the
shared contract (``engine.game``).

The Cups game (``game.CupsGame``) plays the rules; this module adds what every family offers
the companion and the records besides: the shared ``Outcome`` with a reason word for records
(``score`` when the bowls decide, ``resignation``, ``agreement``), the endings a player can
choose (resign, agree a draw; ``pop`` takes them back), a sentence for the end, the shared
``Hint`` values, what tapping a part of the drawing offers (``tap_choices``) and the options of
a new game.  ``FAMILY`` is the registry's entry.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from ..game import AGREEMENT, RESIGNATION, Alternative, Family, GameOver, Hint, IllegalMove, Outcome, TapChoice
from . import game as cups_game
from . import hints as cups_hints
from . import solve as cups_solve
from .game import CupsGame, Drop, Pass
from .rules import MAX_BEANS, MAX_CUPS, MIN_CUPS, CupsRules, CupsRulesError

SCORE = "score"  # the game ended because neither player can move: the bowls decide
REASONS = (SCORE, RESIGNATION, AGREEMENT)


class CupsPlayRules(CupsRules):
    """``CupsRules`` whose games are ``CupsPlay`` (the contract's endings included)."""

    def new_game(self) -> "CupsPlay":
        """A new game at the start position under these rules."""
        return CupsPlay(self)


def _play_rules(rules: CupsRules) -> CupsPlayRules:
    if isinstance(rules, CupsPlayRules):
        return rules
    return CupsPlayRules(**{f.name: getattr(rules, f.name) for f in fields(CupsRules)})


class CupsPlay(CupsGame):
    """A game of Cups with the shared endings: ``resign``, ``agree_draw``, ``outcome`` as the
    shared ``Outcome`` (reason ``score``, ``resignation`` or ``agreement``)."""

    def __init__(self, rules: CupsRules | None = None) -> None:
        super().__init__(_play_rules(rules if rules is not None else CupsRules()))
        self.ending: Outcome | None = None

    @classmethod
    def adopt(cls, game: CupsGame) -> "CupsPlay":
        """The same position and history as ``game``, as a ``CupsPlay``."""
        new = cls(game.rules)
        copied = CupsGame.copy(game)  # the rules' own copy: the position and its history
        for name in ("cups", "bowls", "stocks", "turn", "ply", "_history"):
            setattr(new, name, getattr(copied, name))
        new.ending = getattr(game, "ending", None)
        return new

    def copy(self) -> "CupsPlay":
        """An independent copy of the position, its history and its ending."""
        return CupsPlay.adopt(self)

    # -- endings ---------------------------------------------------------------------------
    def outcome(self) -> Outcome | None:
        """How the game ended (a chosen ending first), else None while it goes on."""
        if self.ending is not None:
            return self.ending
        played = super().outcome()
        if played is None:
            return None
        return Outcome(played.winner, SCORE)

    def outcome_text(self, outcome: Outcome) -> str:
        """A sentence saying how the game ended, with the score."""
        south, north = self.scores()
        score = f"{south}-{north}"
        if outcome.reason == RESIGNATION and outcome.winner is not None:
            return f"{self.player_name(outcome.winner)} wins: {self.player_name(1 - outcome.winner)} resigned ({score})"
        if outcome.reason == AGREEMENT:
            return f"Draw by agreement ({score})"
        what = "bowls and cups" if self.rules.count_left else "bowls"
        if outcome.winner is None:
            return f"Draw: equal {what}, {score}"
        return f"{self.player_name(outcome.winner)} wins {score} on {what}"

    def _end(self, outcome: Outcome) -> Outcome:
        if self.outcome() is not None:
            raise GameOver("the game is over")
        self.ending = outcome
        return outcome

    def resign(self, player: int | None = None) -> Outcome:
        """``player`` (default: the player to move) resigns; the other wins."""
        loser = self.turn if player is None else player
        return self._end(Outcome(1 - loser, RESIGNATION))

    def agree_draw(self) -> Outcome:
        """Both players agree to a draw."""
        return self._end(Outcome(None, AGREEMENT))

    @property
    def can_pop(self) -> bool:
        """Whether there is a move or a chosen ending to take back."""
        return self.ending is not None or super().can_pop

    def pop(self):
        """Take back a chosen ending (returns None) or else the last move."""
        if self.ending is not None:
            self.ending = None
            return None
        return super().pop()

    def legal_moves(self) -> list:
        """The legal moves (none once a player resigned or a draw was agreed)."""
        return [] if self.ending is not None else super().legal_moves()

    def illegal_reason(self, move: object) -> str | None:
        """None when ``move`` is legal here, else the rule it breaks in words."""
        if self.ending is not None:
            return "the game is over"
        return super().illegal_reason(move)

    def parse_move(self, text: str):
        """The move ``text`` names (``d3``, ``d3x``, ``s2``, ``pass``): ``MoveTextError`` when it
        cannot be read, ``IllegalMove`` with the rule in words when it is not legal here."""
        move = cups_game.parse_move_text(text)
        reason = self.illegal_reason(move)
        if reason is not None:
            raise IllegalMove(reason)
        return super().parse_move(text)  # the capture mark checked

    def __str__(self) -> str:
        """The position drawn as text, seen from South: North's row (its bowl on the left) above
        South's, each cup's beans under or over its label, the stocks, and who is to move."""
        x = self.rules.cups
        north = [self.cups[1][n - 1] for n in range(x, 0, -1)]
        south = self.cups[0]
        cell = lambda v: f"{v:>4}"  # noqa: E731
        lines = [
            "      " + "".join(cell(f"N{n}") for n in range(x, 0, -1)),
            f"({self.bowls[1]:>3})" + " " + "".join(cell(v) for v in north) + f"        North's stock {self.stocks[1]}",
            "      " + "".join(cell(v) for v in south) + f"  ({self.bowls[0]:>3})  South's stock {self.stocks[0]}",
            "      " + "".join(cell(f"S{n}") for n in range(1, x + 1)),
        ]
        outcome = self.outcome()
        lines.append(self.outcome_text(outcome) if outcome else f"{self.player_name(self.turn)} to move")
        return "\n".join(lines)

    # -- the page --------------------------------------------------------------------------
    def tap_choices(self) -> list[TapChoice]:
        """What tapping the drawing offers the player to move: their stock offers every drop
        (1 to X beans; a drop the stock cannot pay is answered with its rule), each of their
        cups its sow (refused with the rule unless it holds exactly its distance to the bowl);
        a forced pass is offered beside the drawing."""
        if self.outcome() is not None:
            return []
        x = self.rules.cups
        me = self.player_name(self.turn).lower()
        legal = self.legal_moves()
        if legal == [Pass()]:
            note = f"{self.player_name(self.turn)} has no move and must pass"
            return [TapChoice(None, (("pass", "Pass (no move)"),), note)]
        out = []
        drops = tuple((self.move_text(Drop(k)), f"drop {k}") for k in range(1, x + 1))  # d3x: it captures
        out.append(TapChoice(f'[data-stock="{me}"]', drops, f"drop beans from {me}'s stock"))
        for n in range(1, x + 1):
            offer = ((f"s{n}", f"sow cup {n}"),)
            out.append(TapChoice(f'.cup[data-player="{me}"][data-cup="{n}"]', offer))
        return out


def parse_position(text: str) -> CupsPlay:
    """The game a Cups position text describes (see ``engine.cups.game``)."""
    return CupsPlay.adopt(cups_game.parse_position(text))


def variant(token: str) -> CupsPlayRules:
    """The rules a Cups token names (``cups``, ``cups[cups=3]``, ...)."""
    return _play_rules(CupsRules.parse(token))


def hint(game: CupsGame, strength: str | int = "full", seconds: float = 1.0, **options: Any) -> Hint:
    """The Cups hint for the player to move, as the shared ``Hint``."""
    if game.outcome() is not None:
        raise ValueError("the game is over")
    plain = CupsGame.copy(game)  # the search plays on the rules alone
    found = cups_hints.hint(plain, strength, seconds, **options)
    # plain Python numbers: the search hands back numpy's, which JSON cannot write
    alternatives = tuple(Alternative(a.move, a.text, a.value, _int(a.score)) for a in found.alternatives)
    return Hint(found.move, found.text, found.value, found.reason, alternatives, found.level, bool(found.exact),
                _int(found.score), int(found.depth), int(found.nodes), float(found.seconds))


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


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
    hint=hint,
    reasons=REASONS,
    move_shape=r"(?:d[1-9][0-9]?x?|s[1-9][0-9]?|pass)",
    camera_referee=False,
    options=(
        {"name": "cups", "label": "Cups per player", "kind": "int", "min": MIN_CUPS, "max": MAX_CUPS, "default": 4},
        {"name": "beans", "label": "Beans each (empty: 10 per cup)", "kind": "int", "min": 1, "max": MAX_BEANS,
         "default": None},
        {"name": "count_left", "label": "Beans left in cups count at the end", "kind": "bool", "default": False},
    ),
    token_for=token_for,
    prepare=prepare,
    perft=lambda game, depth: cups_solve.perft(CupsGame.copy(game), depth),
)
