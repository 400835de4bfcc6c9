"""The contract every game family meets, and the values the families share.

The companion, the records, the hints and the referee talk to a game only through ``Game`` (one
position, played forward with ``push`` and back with ``pop``, python-chess style) and
``GameRules`` (a variant: its token and its start position).  A family (``engine.gobblet``, ...)
implements both and describes itself with a ``Family`` value, which the registry
(``engine.families``) lists.  This module imports nothing from the families.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable


# ------------------------------------------------------------------ outcome and errors
@dataclass(frozen=True)
class Outcome:
    """How a game ended: the winner (0 or 1, None for a draw), why (a family's reason word),
    and the squares that decided it (Gobblet's winning line; empty where a family has none)."""

    winner: int | None
    reason: str
    line: tuple[int, ...] = ()

    @property
    def result(self) -> str:
        """The result as written in records: ``1-0``, ``0-1`` or ``1/2-1/2``."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner == 0 else "0-1"


# Endings every family has besides its own: a player resigns, or both agree to a draw.  A game
# that offers them has ``resign(player=None) -> Outcome`` and ``agree_draw() -> Outcome``, and
# ``pop()`` takes such an ending back (returning None).
RESIGNATION = "resignation"
AGREEMENT = "agreement"
# A game played with clocks ends when a player's time runs out: a game that offers it has
# ``lose_on_time(player) -> Outcome`` (the other player wins), taken back by ``pop()`` likewise.
TIME_FORFEIT = "time"


class IllegalMove(ValueError):
    """A move that the rules do not allow in the current position (the message names the rule)."""


class GameOver(IllegalMove):
    """A move or action attempted after the game has ended."""


# ------------------------------------------------------------------ the contract
class GameRules(Protocol):
    """A variant of a family: its token (``gobblet-jr``, ``cups[cups=3]``) and a fresh game."""

    name: str

    @property
    def token(self) -> str: ...

    def new_game(self) -> Game: ...


@runtime_checkable
class Game(Protocol):
    """One position of one family, mutable with ``push``/``pop``; player 0 moves first."""

    family: str
    rules: Any  # the family's ``GameRules``

    @property
    def turn(self) -> int: ...

    @property
    def ply(self) -> int: ...

    @property
    def can_pop(self) -> bool: ...

    def legal_moves(self) -> list: ...

    def push(self, move: Any) -> None: ...

    def pop(self) -> Any: ...

    def outcome(self) -> Outcome | None: ...

    def text(self) -> str: ...

    def parse_move(self, text: str) -> Any: ...

    def move_text(self, move: Any) -> str: ...

    def illegal_reason(self, move: Any) -> str | None: ...

    def copy(self) -> Game: ...

    def svg(self, **options: Any) -> str: ...

    def player_name(self, player: int) -> str: ...


# Optional capabilities: a page or the referee asks a game for these with ``getattr`` and does
# without when a family lacks them (never by checking the family's name).
#   outcome_text(outcome) -> str    a sentence saying how the game ended (else ``Outcome.reason``)
#   resign(player) / agree_draw()    the shared endings (``RESIGNATION``, ``AGREEMENT``)
#   page_details() -> dict           JSON-ready facts a page draws a piece picker from (Gobblet:
#                                    board size, reserves, legal moves by square)
#   tap_choices() -> list[TapChoice] what tapping a part of ``svg()`` offers (Cups: a stock offers
#                                    drops, a cup its sow; a forced pass offered beside the board)
#   hidden_pieces() -> list[dict]    the pieces under each stack's top (Gobblet), for a page looking
#                                    back at a position
@dataclass(frozen=True)
class TapChoice:
    """A part of a game's drawing and the moves a tap on it offers, as (move text, label) pairs.
    ``selector`` is a CSS selector of the drawing's element; None offers the moves beside the
    drawing (a forced pass).  A move offered may be illegal: playing it is answered with its rule."""

    selector: str | None
    moves: tuple[tuple[str, str], ...]
    note: str = ""


# ------------------------------------------------------------------ hints
@dataclass(frozen=True)
class Level:
    """A playing strength: full-width ``depth`` (None: as deep as time allows), ``noise``, the
    evaluation margin within which a move is picked at random, and ``multipv``, how many of the
    best moves get exact scores (the others get bounds; each exact one costs search time)."""

    name: str
    depth: int | None
    noise: int = 0
    multipv: int = 3


LEVELS: dict[str, Level] = {
    "beginner": Level("beginner", 1, 40),
    "casual": Level("casual", 2),
    "club": Level("club", 3),
    "strong": Level("strong", 4),
    # the three best get exact scores after the deepening (``Searcher.search``'s ``rescore``):
    # scoring them at every iteration would cost about a ply at a fixed time
    "full": Level("full", None),
}
LEVEL_ALIASES = {"1": "beginner", "2": "casual", "3": "club", "4": "strong", "5": "full"}


def level_name(name: str | int) -> str:
    """The name of the level ``name`` stands for (a name of ``LEVELS`` or its number 1-5);
    every family's levels go by these names."""
    key = LEVEL_ALIASES.get(str(name), str(name))
    if key not in LEVELS:
        raise ValueError(f"unknown level {name!r}: use one of {', '.join(LEVELS)} (or 1-5)")
    return key


def level(name: str | int) -> Level:
    """The level called ``name`` (a name of ``LEVELS`` or its number 1-5)."""
    return LEVELS[level_name(name)]


@dataclass(frozen=True)
class Alternative:
    """A ranked move: its text, its value in words and its score (search units; None when the
    value is exact)."""

    move: Any
    text: str
    value: str
    score: int | None = None


@dataclass(frozen=True)
class Hint:
    """A suggestion for the side to move."""

    move: Any
    text: str  # move text
    value: str  # "wins in 5", "loses in 4", "draw", "+12"
    reason: str  # why, in words a player understands
    alternatives: tuple[Alternative, ...]  # ranked, the suggested move first
    level: str
    exact: bool  # True when the value is proved (exact tables, forced wins)
    score: int | None = None  # search score, None for exact values
    depth: int = 0
    nodes: int = 0
    seconds: float = 0.0


# ------------------------------------------------------------------ a family
@dataclass(frozen=True)
class Family:
    """What the registry needs of a game family: its name, the preset names its variant tokens
    start with, and how to read a token or a position text and to give a hint."""

    name: str
    presets: tuple[str, ...]
    variant: Callable[[str], GameRules]
    parse_position: Callable[[str], Game]
    hint: Callable[..., Hint]  # (game, strength, seconds, **options) -> Hint
    # the reason words an ``Outcome`` of this family may carry (records' Termination tag)
    reasons: tuple[str, ...] = (RESIGNATION, AGREEMENT)
    # the shape of one move text, for reading records before the moves are replayed
    move_shape: str = r"\S+"
    # whether the camera referee can follow this family's games on the table
    camera_referee: bool = False
    # the options a new game of this family takes, for the page: dicts with ``name``,
    # ``label``, ``kind`` ("int", "bool", "choice"), and ``min``/``max``/``default``/``choices``
    options: tuple[dict, ...] = ()
    # builds a variant token from such options (None: the family takes none)
    token_for: Callable[[dict], str] | None = None
    # the variants a new game offers by name (None: every preset)
    offered: tuple[str, ...] | None = None
    # (rules) -> a line saying what was built: prepares and saves what hints of those rules
    # load (an exact table), never inside a web request; None: nothing to prepare
    prepare: Callable[[Any], str] | None = None
    # (rules) -> whether a table ``prepare`` builds would serve these rules' games and is
    # missing, and builds in minutes: a server then prepares it in the background
    wants_table: Callable[[Any], bool] | None = None
    # (game, depth) -> the number of move sequences; None: the registry's plain count
    perft: Callable[[Game, int], int] | None = None
    # (strength) -> a player (game, seconds, rng) -> move, for self-play; None: from ``hint``
    engine_player: Callable[[str], Callable[..., Any]] | None = None
    # (game, rng, plies) -> None: varied opening moves for self-play; None: random legal moves
    opening: Callable[..., Any] | None = None
    # (game, move, **options) -> Judgement: the engine's verdict on ``move`` played in ``game``
    # (``engine.analysis``); raises ``AnalysisUnavailable``; None: the family has no analysis
    judge: Callable[..., Any] | None = None
    # (game, move, names) -> the move as said aloud ("Ann, large to c3, gobbles Ben's small"),
    # for a page that speaks the game; None: the mover's name and the move text
    spoken_move: Callable[..., str] | None = None

    def owns(self, token: str) -> bool:
        """True when ``token`` (a variant token or a position text's first word) is this family's."""
        head = token.strip().split(None, 1)[0] if token.strip() else ""
        return head.partition("[")[0] in self.presets


# ------------------------------------------------------------------ looking back
def moves_played(game: Game) -> tuple[Game, list]:
    """The position ``game`` started from and the moves played since, in order (an ending
    such as a resignation is not a move and is left out).  ``game`` is not changed."""
    start = game.copy()
    played = []
    while start.can_pop:
        played.append(start.pop())
    return start, [move for move in reversed(played) if move is not None]


def position_after(game: Game, ply: int) -> Game:
    """A copy of ``game`` as it stood after its ``ply``-th ply (``Game.ply`` numbering, so a
    game set up mid-way counts from its set-up ply).  The last ply gives the game as it is,
    its ending (a resignation, an agreed draw) included.  ValueError names the plies there are."""
    start, played = moves_played(game)
    first, last = start.ply, start.ply + len(played)
    if isinstance(ply, bool) or not isinstance(ply, int) or not first <= ply <= last:
        raise ValueError(f"there is no position after ply {ply!r}: the game has plies {first} to {last}")
    if ply == last:
        return game.copy()
    for move in played[: ply - first]:
        start.push(move)
    return start


# ------------------------------------------------------------------ judging a move
# Verdicts on a move, from the engine's value of the position before it (best play) and of
# the move played, for its player.
BEST = "best"  # keeps the value (one of the best moves)
FINE = "fine"  # a little worse, or the same result reached more slowly
MISTAKE = "mistake"  # clearly worse, the result unchanged
BLUNDER = "blunder"  # turns a win into a draw or loss, or a draw into a loss (or a very large drop)
VERDICTS = (BEST, FINE, MISTAKE, BLUNDER)


class AnalysisUnavailable(ValueError):
    """A move the family cannot judge (no exact solver for it, nor a search): the message says why."""


@dataclass(frozen=True)
class Judgement:
    """The engine's verdict on one move: its player's value before it (with the best move,
    ``best``) and after it (the move played), in words, and the ``verdict`` (``VERDICTS``).
    ``exact`` is True when both values are proved; ``drop`` is how much the value fell, in the
    family's units (``units``: "results" — win, draw, loss steps —, "beans", "points"), 0 for a
    best move and where a forced win or loss makes points meaningless; ``how`` says how the
    values were found."""

    best: Any
    best_text: str
    before: str
    after: str
    verdict: str
    exact: bool
    drop: float = 0.0
    units: str = ""
    how: str = ""
