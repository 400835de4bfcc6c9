"""Hints: the engine's suggestion for the player to move, with its value or reason and the
alternatives.  Each hint asked is journalled (so the limit per turn survives a restart and
the other player sees that a hint was asked)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify

from engine import Game, hints
from engine.files import StorageError
from engine.spoken import spoken_move

from ..services import companion
from .errors import ApiError
from .game_api import game_errors, json_body
from .hub import GameChanged, NoGame, colour_name, move_json, parse_colour
from .security import require_control

bp = Blueprint("hints_api", __name__, url_prefix="/api")

LEVELS = range(1, 6)
ATTEMPTS = 3  # thoughts for a position that changes meanwhile, before giving up


def _current(hub, game: str | None, attempt: int) -> tuple[Game, dict[str, Any], bool]:
    """The board and state of the current game, and whether it is the demo's.  The page's
    ``game`` must be current, except on a later attempt or in the demo (whose games follow
    each other by themselves)."""
    try:
        with hub.acting(game if attempt == 0 else None) as session:
            with session.lock:
                board = session.board.copy()
            demo = session.demo
            state = hub.snapshot().state
    except GameChanged as e:
        with hub.acting(None) as session:
            if not session.demo:
                raise game_errors(e) from None
        return _current(hub, None, attempt)
    except NoGame as e:
        raise game_errors(e) from None
    return board, state, demo


def describe_hint(board: Game, result: hints.Hint, names: tuple[str, str] | None = None) -> dict[str, Any]:
    """The engine's hint as JSON for the page: the move (with its words said aloud), its value
    in words and reason, the search's number behind the value (``detail``), whether the value
    is exact, and the ranked alternatives after the suggested move, each with its value."""
    best = move_json(board, result.move)
    alternatives = []
    for alt in result.alternatives:
        item = move_json(board, alt.move)
        if item != best:  # the engine ranks the suggested move first
            item["value"] = alt.value
            alternatives.append(item)
    best["spoken"] = spoken_move(board, result.move, names)
    return {"move": best, "value": result.value, "reason": result.reason, "exact": result.exact,
            "score": result.score, "detail": _detail(result), "alternatives": alternatives}


def _detail(result: hints.Hint) -> str:
    """The number behind a searched value, for players who want it: ``+16 after looking 5
    plies ahead``; empty for exact values (their words are the whole story)."""
    if result.exact or result.score is None:
        return ""
    plies = f" after looking {result.depth} pl{'y' if result.depth == 1 else 'ies'} ahead" if result.depth else ""
    return f"{result.score:+d}{plies}"


@bp.post("/hint")
@require_control
def ask_hint():
    """``{"colour": "white", "level": 1..5}``: a hint for that player, who must be to move.
    Refused (429) past the game's limit of hints per player per turn."""
    data = json_body()
    level = data.get("level", 3)
    if not isinstance(level, int) or isinstance(level, bool) or level not in LEVELS:
        raise ApiError(422, f"level must be {LEVELS.start} to {LEVELS.stop - 1}")
    services = companion()
    hub = services.hub
    asked = data.get("colour")
    game = data.get("game")
    # A position that changes while the hint is thought out (the camera saw a move, a new demo
    # game began) is answered for the new position rather than refused: the player asking
    # is still to move there, or it is the demo, which plays both sides.
    for attempt in range(ATTEMPTS):
        board, state, demo = _current(hub, game, attempt)
        try:
            colour = parse_colour(asked if asked is not None and not demo else colour_name(board.turn), board)
        except ValueError as e:
            raise ApiError(422, str(e)) from None
        if board.outcome() is not None:
            raise ApiError(409, "the game is over")
        if colour != board.turn:
            raise ApiError(409, f"it is {board.player_name(board.turn)}'s turn: hints are for the player to move")
        limit = state["hint_limit"]
        used = state["hints_used"].get(colour_name(colour), 0)
        if limit and used >= limit:
            raise ApiError(429, f"{board.player_name(colour)} has used the {limit} hint(s) allowed this turn")

        # in Gobblet Jr. say whether the exact table is there yet (switching to it once it is)
        table = services.jr_table.answer() if services.jr_table.covers(board) else {}
        names = (state["players"]["white"], state["players"]["black"])
        result = hints.hint(board.copy(), level, services.config.hint_seconds, names=names)
        answer = describe_hint(board, result, names)
        answer.update(table)
        try:
            with hub.acting(state["game"]) as session:
                if session.board.ply != board.ply or session.board.text() != board.text():
                    continue  # think again, for the position as it is now
                player = state["players"][colour_name(colour)]
                session.alert(
                    "hint",
                    f"{player} ({board.player_name(colour)}) asked for a hint",
                    {"colour": colour_name(colour), "level": level,
                     "move": answer["move"]["text"] if answer["move"] else None},
                )
        except GameChanged:
            game = None  # a new game began meanwhile: answer for it if it may be
            continue
        except (NoGame, StorageError) as e:
            raise game_errors(e) from None
        break
    else:
        raise ApiError(409, "the position keeps changing: ask again when the move is made")
    answer.update(game=state["game"], ply=board.ply)
    answer.update(colour=colour_name(colour), level=level, used=used + 1, limit=limit)
    return jsonify(answer)
