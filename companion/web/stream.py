"""The live event stream: Server-Sent Events, one stream per page, resumable."""

from __future__ import annotations

from flask import Blueprint, Response, request

from ..services import companion
from ..events import TooManyClients
from .errors import ApiError

bp = Blueprint("stream", __name__, url_prefix="/api")


@bp.get("/stream")
def stream():
    """``text/event-stream`` of the live game: ``state`` (the whole state, on connect or after
    a new game), ``game`` (a journal event with the state after it), ``nogame``; comments as
    heartbeats.  A reconnecting page sends ``Last-Event-ID`` and gets what it missed."""
    services = companion()
    hub = services.hub
    last_id = request.headers.get("Last-Event-ID") or request.args.get("last_event_id")
    try:
        client, first = services.broadcaster.connect(lambda: hub.catch_up(last_id), request.remote_addr)
    except TooManyClients as e:
        raise ApiError(503, f"too many open pages: {e}") from None
    disconnected = request.environ.get("waitress.client_disconnected")
    body = client.stream(first, services.config.heartbeat, disconnected)
    return Response(
        body,
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )
