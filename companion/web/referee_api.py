"""A person settles what the camera could not: confirm one of the candidates of a pending
detection (a low-confidence move, an ambiguous board, a hidden piece that is not what memory
says), or dismiss it (and enter the move by tapping), or answer about a square the camera
keeps misreading (is the game right there?), or say that the table is set as the game shows
it (after an alert that it is not: a Cups referee watches on from there).  The referee
decides; these routes only pass the choice on."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify

from engine import IllegalMove

from ..services import companion
from ..session import SessionError
from .errors import ApiError
from .game_api import game_errors, json_body
from .hub import GameChanged, NoGame
from .security import require_control

bp = Blueprint("referee_api", __name__, url_prefix="/api/camera")


def _live() -> Any:
    live = companion().live
    if live is None:
        raise ApiError(404, "there is no camera referee: moves are entered by tapping the board")
    return live


@bp.get("/pending")
def pending():
    """The detection waiting for a person (``{"pending": null}`` when there is none)."""
    live = _live()
    hub = companion().hub
    try:
        with hub.acting() as session, session.lock:
            return jsonify(pending=live.pending_json(session))
    except NoGame as e:
        raise game_errors(e) from None


@bp.post("/confirm")
@require_control
def confirm():
    """``{"index": i}``: play candidate ``i`` of the pending detection (0 when there is one)."""
    from ..live import NothingPending

    live = _live()
    data = json_body()
    index = data.get("index", 0)
    if not isinstance(index, int) or isinstance(index, bool):
        raise ApiError(400, "index must be the number of a candidate (0, 1, ...)")
    hub = companion().hub
    try:
        with hub.acting(data.get("game")):
            live.confirm(index)
    except NothingPending as e:
        raise ApiError(409, str(e)) from None
    except IllegalMove as e:
        raise ApiError(422, f"that move is no longer legal: {e}") from None
    except SessionError as e:
        raise ApiError(422, str(e)) from None
    except (NoGame, GameChanged) as e:
        raise game_errors(e) from None
    return jsonify(confirmed=index, state=hub.snapshot().state)


@bp.post("/dismiss")
@require_control
def dismiss():
    """Forget the pending detection (the players will tap the move in, or put the pieces
    back)."""
    live = _live()
    data = json_body()
    hub = companion().hub
    try:
        with hub.acting(data.get("game")):
            if not live.dismiss():
                raise ApiError(409, "there is no detected move waiting")
    except (NoGame, GameChanged) as e:
        raise game_errors(e) from None
    hub.refresh()
    return jsonify(dismissed=True, state=hub.snapshot().state)


@bp.post("/doubt")
@require_control
def doubt():
    """``{"square": "d1", "game_is_right": true}``: the players' answer about a square in
    doubt.  True: the game is right there, the camera's reading is how that cup looks; false:
    it is not, the camera ignores the square until it reads as the game says."""
    from ..live import NoDoubt

    live = _live()
    data = json_body()
    square, right = data.get("square"), data.get("game_is_right")
    if not isinstance(square, str) or not square:
        raise ApiError(400, "square must name the square in doubt, e.g. \"d1\"")
    if not isinstance(right, bool):
        raise ApiError(400, "game_is_right must be true (the game is right) or false")
    hub = companion().hub
    try:
        with hub.acting(data.get("game")):
            live.answer_doubt(square, right)
    except NoDoubt as e:
        raise ApiError(409, str(e)) from None
    except (NoGame, GameChanged) as e:
        raise game_errors(e) from None
    hub.refresh()
    return jsonify(square=square, game_is_right=right, state=hub.snapshot().state)


@bp.post("/resync")
@require_control
def resync():
    """The players say the table is set as the game shows it: the camera referee forgets its
    question or its alert and takes the next still table as the game's position (Cups).  409
    when the camera does not referee this game, reads a board of pieces (Gobblet: answer its
    doubted squares instead), or the game is over or was replaced."""
    live = _live()
    data = json_body()
    hub = companion().hub
    try:
        with hub.acting(data.get("game")):
            live.resync()
    except (NoGame, GameChanged, SessionError) as e:
        raise game_errors(e) from None
    hub.refresh()
    return jsonify(resynced=True, state=hub.snapshot().state)
