"""The game clocks as they are now: what a page draws its clocks from when it opens or comes
back (the state on the stream may be older than the clocks)."""

from __future__ import annotations

from flask import Blueprint, jsonify

from ..services import companion
from .errors import ApiError
from .hub import PLAYER_KEYS, game_id

bp = Blueprint("clock_api", __name__, url_prefix="/api")


@bp.get("/clock")
def clock():
    """``{"game", "clock"}``: the current game's clocks (seconds left per player, whose runs,
    why none does), ``clock`` null for a game without clocks; 404 when there is no game."""
    hub = companion().hub
    session = hub.session
    if session is None:
        raise ApiError(404, "there is no game in progress: start a new game")
    with session.lock:
        if session.clock is None:
            return jsonify(game=game_id(session), clock=None)
        return jsonify(game=game_id(session), clock=session.clock.json(PLAYER_KEYS))
