"""A game of Cups: the position, its moves, play and undo, the position and move texts.

Cups are numbered as their owner reads them: cup 1 is the player's leftmost cup, the farthest
from their bowl, and cup X the one next to the bowl, so cup n lies at distance X + 1 - n from
its owner's bowl.  The rows face each other, so my cup n is opposite the opponent's cup
X + 1 - n.  Internally ``cups[player][n - 1]`` holds the beans of that player's cup n.

Moves (frozen dataclasses): ``Drop(k)`` puts one bean from the stock into each of the first k
cups; ``Sow(cup)`` empties a cup holding exactly its distance to the bowl, one bean per cup
towards the bowl (the last lands in the bowl); ``Pass()`` is the forced pass of a player
without a move.  The game ends when neither player has a move (the two passes in a row the rules
end the game with are then forced, so they are not played out).

Position text (``text``/``parse_position``), read aloud row by row, each row in its owner's
order, cup 1 first::

    cups S 0 1 0 0 | 3 | 36 / N 0 2 0 0 | 0 | 38 ; S to move

i.e. the variant token, South's cups, bowl and stock, North's cups, bowl and stock, and the side
to move (``game over`` after the end).  Move text: ``d3`` drops 3, ``d3x`` a drop that captures
beans, ``s2`` sows cup 2, ``pass``.
"""

from __future__ import annotations

import re

from ..game import AGREEMENT, RESIGNATION, TIME_FORFEIT, GameOver, IllegalMove, Outcome, TapChoice
from .moves import CupsMove, Drop, Pass, Sow
from .rules import NORTH, PLAYER_NAMES, SOUTH, CupsRules, CupsRulesError

__all__ = ["CupsGame", "CupsMove", "Drop", "IllegalMoveText", "MoveTextError", "Pass", "PositionError", "SCORE",
           "Sow", "parse_move_text", "parse_position"]

SCORE = "score"  # the reason word of an ending the bowls decide: neither player can move


class PositionError(ValueError):
    """A position text that does not describe a possible Cups position."""


class MoveTextError(ValueError):
    """A move text that cannot be read, or names a move that is not legal here."""


class IllegalMoveText(MoveTextError, IllegalMove):
    """A move text that reads as a move the rules do not allow here: both a ``MoveTextError``
    and the shared ``IllegalMove``, so callers can tell it from text that cannot be read."""


_LETTER = {SOUTH: "S", NORTH: "N"}


class CupsGame:
    """One game of Cups, mutable with ``push``/``pop`` (python-chess style), with the shared
    contract's endings: ``resign``, ``agree_draw`` and ``outcome`` as the shared ``Outcome``
    (reason ``score`` when the bowls decide, ``resignation`` or ``agreement``)."""

    family = "cups"

    def __init__(self, rules: CupsRules | None = None) -> None:
        self.rules = rules if rules is not None else CupsRules()
        x = self.rules.cups
        self.cups: list[list[int]] = [[0] * x, [0] * x]
        self.bowls = [0, 0]
        self.stocks = [self.rules.beans, self.rules.beans]
        self.turn = self.rules.first
        self.ply = 0
        # each entry: (move, beans captured by it) so that pop can put them back
        self._history: list[tuple[CupsMove, int]] = []
        self.ending: Outcome | None = None  # a chosen ending (resignation, agreed draw)

    # -- copying -------------------------------------------------------------------------

    def copy(self) -> "CupsGame":
        """An independent copy of the position, its history and its chosen ending."""
        new = CupsGame.__new__(CupsGame)
        new.rules = self.rules
        new.cups = [list(self.cups[0]), list(self.cups[1])]
        new.bowls = list(self.bowls)
        new.stocks = list(self.stocks)
        new.turn = self.turn
        new.ply = self.ply
        new._history = list(self._history)
        new.ending = self.ending
        return new

    @property
    def can_pop(self) -> bool:
        """Whether there is a move or a chosen ending to take back."""
        return self.ending is not None or bool(self._history)

    @property
    def moves(self) -> list[CupsMove]:
        """The moves pushed on this game, oldest first."""
        return [m for m, _ in self._history]

    def player_name(self, player: int) -> str:
        """``South`` for player 0, ``North`` for player 1."""
        return PLAYER_NAMES[player]

    # -- rules -----------------------------------------------------------------------------

    def _own_moves(self, player: int) -> list[CupsMove]:
        x = self.rules.cups
        row = self.cups[player]
        moves: list[CupsMove] = [Drop(k) for k in range(1, min(x, self.stocks[player]) + 1)]
        moves.extend(Sow(n) for n in range(1, x + 1) if row[n - 1] == x + 1 - n)
        return moves

    def has_move(self, player: int) -> bool:
        """Whether ``player`` has a drop or a sow in this position."""
        if self.stocks[player] > 0:
            return True
        x = self.rules.cups
        row = self.cups[player]
        return any(row[i] == x - i for i in range(x))

    def is_over(self) -> bool:
        """Whether the game has ended (neither player has a move)."""
        return not self.has_move(self.turn) and not self.has_move(1 - self.turn)

    def legal_moves(self) -> list[CupsMove]:
        """The legal moves: drops (fewest beans first), sows (cup 1 first), or the forced pass;
        none once the game is over (a player resigned or a draw was agreed included)."""
        if self.ending is not None:
            return []
        moves = self._own_moves(self.turn)
        if moves:
            return moves
        return [] if not self.has_move(1 - self.turn) else [Pass()]

    def illegal_reason(self, move: object) -> str | None:
        """None when ``move`` is legal here, else the rule it breaks in words."""
        x = self.rules.cups
        me = self.player_name(self.turn)
        if self.ending is not None:
            return "the game is over"
        if self.is_over():
            return "the game is over: neither player has a move"
        if isinstance(move, Drop):
            if not isinstance(move.k, int) or not 1 <= move.k <= x:
                return f"a drop puts 1 to {x} beans into the cups, not {move.k}"
            if move.k > self.stocks[self.turn]:
                left = self.stocks[self.turn]
                return f"{me} has only {left} bean{'s' if left != 1 else ''} in stock, not {move.k}"
            return None
        if isinstance(move, Sow):
            if not isinstance(move.cup, int) or not 1 <= move.cup <= x:
                return f"there is no cup {move.cup}: cups are numbered 1 to {x}"
            need = x + 1 - move.cup
            have = self.cups[self.turn][move.cup - 1]
            if have != need:
                return (f"cup {move.cup} can be sown only with exactly {need} bean{'s' if need != 1 else ''}"
                        f" (its distance to the bowl); it holds {have}")
            return None
        if isinstance(move, Pass):
            if self._own_moves(self.turn):
                return f"{me} has a move, and passing is allowed only without one"
            return None
        return f"{move!r} is not a Cups move"

    def captures(self, move: CupsMove) -> int:
        """How many beans ``move`` takes from the opposite cup (0 for sows, passes, no capture)."""
        if not isinstance(move, Drop):
            return 0
        x = self.rules.cups
        if self.cups[self.turn][move.k - 1] != 0:
            return 0
        return self.cups[1 - self.turn][x - move.k]

    def push(self, move: CupsMove) -> None:
        """Play ``move``; raises ``IllegalMove`` naming the rule if it is not legal."""
        reason = self.illegal_reason(move)
        if reason is not None:
            raise IllegalMove(reason)
        self._play(move)

    def _play(self, move: CupsMove) -> None:
        p = self.turn
        x = self.rules.cups
        row = self.cups[p]
        taken = 0
        if isinstance(move, Drop):
            k = move.k
            self.stocks[p] -= k
            last_was_empty = row[k - 1] == 0
            for i in range(k):
                row[i] += 1
            if last_was_empty:
                opposite = self.cups[1 - p]
                taken = opposite[x - k]
                opposite[x - k] = 0
                self.bowls[p] += taken
        elif isinstance(move, Sow):
            i = move.cup - 1
            row[i] = 0
            for j in range(i + 1, x):
                row[j] += 1
            self.bowls[p] += 1
        self._history.append((move, taken))
        self.turn = 1 - p
        self.ply += 1

    def pop(self) -> CupsMove | None:
        """Take back a chosen ending (returns None), else the last move and return it (None when
        there is none)."""
        if self.ending is not None:
            self.ending = None
            return None
        if not self._history:
            return None
        move, taken = self._history.pop()
        self.turn = p = 1 - self.turn
        self.ply -= 1
        x = self.rules.cups
        row = self.cups[p]
        if isinstance(move, Drop):
            k = move.k
            for i in range(k):
                row[i] -= 1
            self.stocks[p] += k
            self.cups[1 - p][x - k] += taken
            self.bowls[p] -= taken
        elif isinstance(move, Sow):
            i = move.cup - 1
            for j in range(i + 1, x):
                row[j] -= 1
            row[i] = x - i
            self.bowls[p] -= 1
        return move

    def scores(self) -> tuple[int, int]:
        """Each player's score now: the bowl, plus the cups' beans under ``count_left``."""
        if self.rules.count_left:
            return (self.bowls[0] + sum(self.cups[0]), self.bowls[1] + sum(self.cups[1]))
        return (self.bowls[0], self.bowls[1])

    def outcome(self) -> Outcome | None:
        """How the game ended, else None while it goes on: a chosen ending first, else once
        neither player can move the fuller bowl wins (reason ``score``)."""
        if self.ending is not None:
            return self.ending
        if not self.is_over():
            return None
        south, north = self.scores()
        if south == north:
            return Outcome(None, SCORE)
        return Outcome(SOUTH if south > north else NORTH, SCORE)

    def outcome_text(self, outcome: Outcome) -> str:
        """A sentence saying how the game ended, with the score."""
        south, north = self.scores()
        score = f"{south}-{north}"
        if outcome.reason == RESIGNATION and outcome.winner is not None:
            return f"{self.player_name(outcome.winner)} wins: {self.player_name(1 - outcome.winner)} resigned ({score})"
        if outcome.reason == AGREEMENT:
            return f"Draw by agreement ({score})"
        if outcome.reason == TIME_FORFEIT and outcome.winner is not None:
            return f"{self.player_name(outcome.winner)} wins on time: {self.player_name(1 - outcome.winner)}'s clock ran out ({score})"
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

    def lose_on_time(self, player: int) -> Outcome:
        """``player``'s clock ran out; the other wins."""
        return self._end(Outcome(1 - player, TIME_FORFEIT))

    # -- texts -----------------------------------------------------------------------------

    def move_text(self, move: CupsMove) -> str:
        """``d3`` (drop 3), ``d3x`` (a drop that captures here), ``s2`` (sow cup 2) or ``pass``."""
        if isinstance(move, Drop):
            return f"d{move.k}" + ("x" if self.captures(move) > 0 else "")
        if isinstance(move, Sow):
            return f"s{move.cup}"
        if isinstance(move, Pass):
            return "pass"
        raise MoveTextError(f"{move!r} is not a Cups move")

    def parse_move(self, text: str) -> CupsMove:
        """Read a move text (``d3``, ``d3x``, ``drop 3``, ``s2``, ``sow 2``, ``pass``) legal here:
        ``MoveTextError`` when it cannot be read or wrongly marks a capture, ``IllegalMoveText``
        (an ``IllegalMove``) with the rule in words when the move is not legal here."""
        move = parse_move_text(text)
        reason = self.illegal_reason(move)
        if reason is not None:
            raise IllegalMoveText(reason)
        marked = text.strip().lower().endswith("x")
        if marked and self.captures(move) == 0:
            raise MoveTextError(f"{text.strip()!r} is marked as a capture, but it takes nothing here")
        return move

    def text(self) -> str:
        """The position text (see the module docstring); round-trips through ``parse_position``."""
        rows = []
        for p in (SOUTH, NORTH):
            cups = " ".join(str(c) for c in self.cups[p])
            rows.append(f"{_LETTER[p]} {cups} | {self.bowls[p]} | {self.stocks[p]}")
        side = "game over" if self.is_over() else f"{_LETTER[self.turn]} to move"
        return f"{self.rules.token} {rows[0]} / {rows[1]} ; {side}"

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

    def __repr__(self) -> str:
        return f"<CupsGame {self.text()!r}>"

    def svg(self, **options) -> str:
        """A drawing of the position for the phone page (see ``engine.cups.svg.draw``)."""
        from .svg import draw

        return draw(self, **options)

    def tap_choices(self) -> list[TapChoice]:
        """What tapping the drawing offers the player to move: their stock offers every drop
        (1 to X beans; a drop the stock cannot pay is answered with its rule), each of their
        cups its sow (refused with the rule unless it holds exactly its distance to the bowl);
        a forced pass is offered beside the drawing."""
        if self.outcome() is not None:
            return []
        x = self.rules.cups
        me = self.player_name(self.turn).lower()
        if self.legal_moves() == [Pass()]:
            note = f"{self.player_name(self.turn)} has no move and must pass"
            return [TapChoice(None, (("pass", "Pass (no move)"),), note)]
        drops = tuple((self.move_text(Drop(k)), f"drop {k}") for k in range(1, x + 1))  # d3x: it captures
        out = [TapChoice(f'[data-stock="{me}"]', drops, f"drop beans from {me}'s stock")]
        for n in range(1, x + 1):
            offer = ((f"s{n}", f"sow cup {n}"),)
            out.append(TapChoice(f'.cup[data-player="{me}"][data-cup="{n}"]', offer))
        return out

    def key(self) -> tuple:
        """The position as a hashable value (rules, cups, bowls, stocks, side to move)."""
        return (self.rules, tuple(self.cups[0]), tuple(self.cups[1]), tuple(self.bowls),
                tuple(self.stocks), self.turn)


_MOVE_RE = re.compile(r"^(?:(d|drop)\s*(\d{1,3})\s*(x?)|(s|sow)\s*(\d{1,3})|(pass))$")


def parse_move_text(text: str) -> CupsMove:
    """Read a move text without a position (``d3``, ``d3x``, ``s2``, ``pass``)."""
    if not isinstance(text, str):
        raise MoveTextError(f"a move text must be text, not {type(text).__name__}")
    m = _MOVE_RE.match(text.strip().lower())
    if not m:
        raise MoveTextError(f"{text.strip()!r} is not a Cups move: write d3 (drop 3), s2 (sow cup 2) or pass")
    if m.group(1):
        return Drop(int(m.group(2)))
    if m.group(4):
        return Sow(int(m.group(5)))
    return Pass()


_ROW_RE = re.compile(r"^([SN])\s+((?:\d+\s+)*\d+)\s*\|\s*(\d+)\s*\|\s*(\d+)$")


def parse_position(text: str) -> CupsGame:
    """Read a position text (see the module docstring); raises ``PositionError`` naming the problem."""
    if not isinstance(text, str):
        raise PositionError(f"a position text must be text, not {type(text).__name__}")
    body = text.strip()
    token, _, rest = body.partition(" ")
    try:
        rules = CupsRules.parse(token)
    except CupsRulesError as exc:
        raise PositionError(f"position text must start with a Cups rule token: {exc}") from None
    rows_text, semi, side = rest.partition(";")
    if not semi:
        raise PositionError("position text needs '; S to move', '; N to move' or '; game over' at the end")
    parts = rows_text.split("/")
    if len(parts) != 2:
        raise PositionError("position text needs two rows, South's then North's, separated by '/'")
    x = rules.cups
    game = CupsGame(rules)
    for p, part in zip((SOUTH, NORTH), parts):
        m = _ROW_RE.match(part.strip())
        if not m or m.group(1) != _LETTER[p]:
            raise PositionError(
                f"{PLAYER_NAMES[p]}'s row must read '{_LETTER[p]} c1 ... c{x} | bowl | stock', not {part.strip()!r}")
        cups = [int(c) for c in m.group(2).split()]
        if len(cups) != x:
            raise PositionError(f"{PLAYER_NAMES[p]}'s row has {len(cups)} cups; the rules ({rules.token}) have {x}")
        game.cups[p] = cups
        game.bowls[p] = int(m.group(3))
        game.stocks[p] = int(m.group(4))
    beans = rules.beans
    for p in (SOUTH, NORTH):
        own = sum(game.cups[p]) + game.stocks[p]
        if own > beans:
            raise PositionError(
                f"{PLAYER_NAMES[p]} has {own} beans in cups and stock, more than the {beans} each player starts with")
    total = sum(game.bowls) + sum(game.cups[0]) + sum(game.cups[1]) + sum(game.stocks)
    if total != 2 * beans:
        raise PositionError(f"the position holds {total} beans in all; the rules ({rules.token}) give {2 * beans}")
    side = side.strip().lower()
    if side in ("s to move", "n to move"):
        game.turn = SOUTH if side[0] == "s" else NORTH
        if game.is_over():
            raise PositionError("neither player has a move here, so the position text must say 'game over'")
    elif side == "game over":
        if not game.is_over():
            raise PositionError("the text says 'game over', but a player still has a move")
        game.turn = rules.first
    else:
        raise PositionError(f"the side to move must be 'S to move', 'N to move' or 'game over', not {side!r}")
    return game


def _new_game(rules: CupsRules) -> CupsGame:
    """A new game at the start position under ``rules``."""
    return CupsGame(rules)


# ``CupsRules.new_game`` (the game contract) makes a game: it is attached here because the rules
# module sits below the game and must not import it
CupsRules.new_game = _new_game  # type: ignore[attr-defined]
