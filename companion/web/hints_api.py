"""Hints: the engine's suggestion for the player to move, with its value or reason and the
alternatives.  Each hint asked is journalled (so the limit per turn survives a restart and
the other player sees that a hint was asked)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify

from engine import Board, Move, jr
from engine.rules import COLOUR_NAMES

from ..app import companion
from .errors import ApiError
from .game_api import game_errors, json_body
from .hub import GameChanged, NoGame, colour_name, move_json, parse_colour
from .security import require_control

bp = Blueprint("hints_api", __name__, url_prefix="/api")

LEVELS = range(1, 6)


def _field(result: Any, *names: str, default: Any = None) -> Any:
    """A field of the engine's answer, whether it is an object or a mapping."""
    for name in names:
        if isinstance(result, dict) and name in result:
            return result[name]
        if hasattr(result, name):
            return getattr(result, name)
    return default


def _move_json(board: Board, move: Any) -> dict[str, Any] | None:
    if move is None:
        return None
    if isinstance(move, str):
        move = board.parse_move(move)
    if not isinstance(move, Move):
        move = _field(move, "move", default=move)
    return move_json(board, move)


def describe_hint(board: Board, result: Any) -> dict[str, Any]:
    """The engine's hint as JSON for the page."""
    best = _field(result, "move", "best", "best_move")
    alternatives = []
    best_json = _move_json(board, best)
    for alt in _field(result, "alternatives", default=()) or ():
        move = _field(alt, "move", default=alt)
        item = _move_json(board, move)
        if item is not None and item != best_json:  # the engine may rank the best move first
            value = _field(alt, "value", "score")
            reason = _field(alt, "reason", "explanation")
            item.update(value=None if value is None else str(value), reason=reason)
            alternatives.append(item)
    value = _field(result, "value", "score")
    return {
        "move": best_json,
        "value": None if value is None else str(value),
        "reason": _field(result, "reason", "explanation"),
        "exact": bool(_field(result, "exact", default=False)),
        "alternatives": alternatives,
    }


def _never_build_tables(hints: Any) -> None:
    """Let the exact Gobblet Jr. solver use its table if it is cached, but never build it
    inside a web request (that takes minutes); without it the solver thinks within the time
    given.  ``cupboard serve`` builds the table in the background (``companion.jr_prepare``)
    and ``cupboard prepare`` builds it beforehand."""
    solver = getattr(hints, "jr_solver", None)
    if solver is not None:
        solver(build_if_missing=False)


@bp.post("/hint")
@require_control
def ask_hint():
    """``{"colour": "white", "level": 1..5}``: a hint for that player, who must be to move.
    Refused (429) past the game's limit of hints per player per turn."""
    data = json_body()
    level = data.get("level", 3)
    if not isinstance(level, int) or isinstance(level, bool) or level not in LEVELS:
        raise ApiError(422, f"level must be {LEVELS.start} to {LEVELS.stop - 1}")
    try:
        from engine import hints
    except ImportError:
        raise ApiError(501, "hints are not available in this version") from None
    _never_build_tables(hints)
    services = companion()
    hub = services.hub
    try:
        with hub.acting(data.get("game")) as session:
            with session.lock:
                board = session.board.copy()
            state = hub.snapshot().state
    except (NoGame, GameChanged) as e:
        raise game_errors(e) from None
    try:
        colour = parse_colour(data.get("colour", colour_name(board.turn)))
    except ValueError as e:
        raise ApiError(422, str(e)) from None
    if board.outcome() is not None:
        raise ApiError(409, "the game is over")
    if colour != board.turn:
        raise ApiError(409, f"it is {COLOUR_NAMES[board.turn]}'s turn: hints are for the player to move")
    limit = state["hint_limit"]
    used = state["hints_used"].get(colour_name(colour), 0)
    if limit and used >= limit:
        raise ApiError(429, f"{COLOUR_NAMES[colour]} has used the {limit} hint(s) allowed this turn")

    # in Gobblet Jr. say whether the exact table is there yet (switching to it once it is)
    table = services.jr_table.answer() if jr.is_jr(board.rules) else {}
    result = hints.hint(board.copy(), level, services.config.hint_seconds)
    answer = describe_hint(board, result)
    answer.update(table)
    try:
        with hub.acting(state["game"]) as session:
            if session.board.ply != board.ply or session.board.hash != board.hash:
                raise ApiError(409, "the position changed while the hint was thought out: ask again")
            player = state["players"][colour_name(colour)]
            session.alert(
                "hint",
                f"{player} ({COLOUR_NAMES[colour]}) asked for a hint",
                {"colour": colour_name(colour), "level": level,
                 "move": answer["move"]["text"] if answer["move"] else None},
            )
    except (NoGame, GameChanged) as e:
        raise game_errors(e) from None
    answer.update(colour=colour_name(colour), level=level, used=used + 1, limit=limit)
    return jsonify(answer)
