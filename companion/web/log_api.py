"""The referee's log of the current game, read back from its journal: what a page shows in its
log when it opens, after a reload, or after the server restarted (the journal is on disk, so a
restarted server reads the same entries back)."""

from __future__ import annotations

from dataclasses import asdict

from flask import Blueprint, jsonify, request

from ..services import companion
from .errors import ApiError
from .hub import game_id

bp = Blueprint("log_api", __name__, url_prefix="/api")

LOG_ENTRIES = 60  # as many as the live page's log keeps


@bp.get("/log")
def log_entries():
    """The current game's latest journal entries, oldest first: ``{"game", "seq", "events"}``
    (each event as the stream sends it).  ``?limit=N`` (1 to 500, default 60) caps them; 404
    when there is no game."""
    raw = request.args.get("limit", str(LOG_ENTRIES))
    if not raw.isdigit() or not 1 <= int(raw) <= 500:
        raise ApiError(400, f"limit must be a whole number from 1 to 500, not {raw!r}")
    hub = companion().hub
    session = hub.session
    if session is None:
        raise ApiError(404, "there is no game in progress: start a new game")
    with session.lock:  # the events and the game's id of one moment
        events = [asdict(e) for e in session.journal.events[-int(raw):]]
        game = game_id(session)
    return jsonify(game=game, seq=events[-1]["seq"] if events else 0, events=events)
