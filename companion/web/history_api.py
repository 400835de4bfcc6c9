"""Looking back: the position after any ply of the live game or of a recorded game, drawn as
the live page draws its board (both ways up, hidden pieces included where the game has them),
with its status words and the pieces each stack hides.  Read-only: spectators may look too."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flask import Blueprint, jsonify, request

from engine import Game
from engine.game import moves_played, position_after

from ..services import companion
from ..session import status_text
from .errors import ApiError
from .game_api import game_errors
from .hub import GameChanged, NoGame, colour_name
from .records_api import replayed_game

bp = Blueprint("history_api", __name__, url_prefix="/api")


def position_json(game: Game, ply: int, names: Sequence[str] = ()) -> dict[str, Any]:
    """The position of ``game`` after ``ply`` as the pages draw it: the drawings (``svg``,
    ``svg_flipped`` where the game can turn round), the status words in the players' ``names``
    (by player index; the sides' names where none), whose turn, the move that led there, the
    pieces the stacks hide; ``first``/``last`` are the plies there are, ``total`` the moves.
    ValueError for a ply the game does not have."""
    start, played = moves_played(game)
    board = position_after(game, ply)
    outcome = board.outcome()
    details = getattr(board, "page_details", None)  # Gobblet: hidden pieces drawn, the last move shown
    drawn = details() if details is not None else {"svg": board.svg(size_px=360), "svg_flipped": None}
    hidden = getattr(board, "hidden_pieces", None)
    sides = drawn.get("sides", {})
    move = None
    if ply > start.ply:
        before = position_after(game, ply - 1)
        move = {"text": before.move_text(played[ply - 1 - start.ply]), "colour": colour_name(before.turn)}
    return {
        "ply": ply,
        "first": start.ply,
        "last": start.ply + len(played),
        "total": len(played),
        "move": move,
        "turn": colour_name(board.turn),
        "over": outcome is not None,
        "status": status_text(board, outcome, names, [sides.get("white", ""), sides.get("black", "")]),
        "position": board.text(),
        "svg": drawn["svg"],
        "svg_flipped": drawn.get("svg_flipped"),
        "hidden_pieces": bool(drawn.get("hidden_pieces")),
        "hidden": hidden() if hidden is not None else [],
    }


def _ply_arg() -> int:
    raw = request.args.get("ply", "")
    try:
        return int(raw)
    except ValueError:
        raise ApiError(400, f"ply must be a whole number (the moves played so far), not {raw!r}") from None


@bp.get("/game/position")
def game_position():
    """``?ply=N[&game=ID]``: the position of the live game after ply N (spectators too).
    409 when ``game`` is no longer the current game."""
    ply = _ply_arg()
    try:
        with companion().hub.acting(request.args.get("game") or None) as session:
            with session.lock:
                board = session.board.copy()
            snapshot = companion().hub.snapshot()
    except (NoGame, GameChanged) as e:
        raise game_errors(e) from None
    players = snapshot.state["players"]
    try:
        answer = position_json(board, ply, [players["white"], players["black"]])
    except ValueError as e:
        raise ApiError(404, str(e)) from None
    answer["game"] = snapshot.game
    return jsonify(answer)


@bp.get("/records/<name>/<int:index>/position/<int:ply>")
def record_position(name: str, index: int, ply: int):
    """The position after ply ``ply`` of game ``index`` of the record file ``name`` (the records
    page's replay, its picture, looking back): its last ply includes a recorded ending."""
    _, board, players = replayed_game(name, index)
    try:
        return jsonify(position_json(board, ply, [players["white"], players["black"]]))
    except ValueError as e:
        raise ApiError(404, str(e)) from None
