"""The pages: the live board (``/``) and the records (``/records``), plus the QR code that
invites another phone.  The pages are plain HTML; their scripts and styles are served by the
app itself, so a LAN without internet works."""

from __future__ import annotations

import io
from urllib.parse import urlencode

from flask import Blueprint, Response, render_template, request

from ..services import companion
from .security import has_control

bp = Blueprint("pages", __name__)


@bp.get("/")
def live():
    """The live page: board, alerts, hints, moves and controls."""
    return render_template("live.html")


@bp.get("/calibrate")
def calibrate():
    """The calibration wizard: markers, empty board, colours, a check, save; without a camera,
    a page saying so and what to do (no preview, no steps)."""
    services = companion()
    return render_template("calibrate.html", camera=services.camera is not None,
                           camera_note=services.config.extra.get("camera_note"))


@bp.get("/records")
def records():
    """The records page: the list of games, downloads, import and the replay viewer."""
    return render_template("records.html")


def page_url(with_token: bool) -> str:
    """The address of the live page, with the token when asked."""
    base = companion().config.public_url or request.host_url
    if not with_token:
        return base
    return f"{base.rstrip('/')}/?{urlencode({'token': companion().token})}"


@bp.get("/qr.svg")
def qr():
    """A QR code of the live page: with the token for a request that has it (to hand control
    to another player's phone), without it for anyone else (a spectator's link)."""
    import segno

    out = io.BytesIO()
    segno.make(page_url(has_control()), error="m").save(out, kind="svg", scale=5, border=2, dark="#2b2118")
    return Response(out.getvalue(), mimetype="image/svg+xml", headers={"Cache-Control": "no-store"})


@bp.get("/analysis")
def analysis():
    """The analysis of a finished game (``?game=ID``, the live game once over, or
    ``?file=NAME&index=N``, a recorded game): every move replayed with the engine's verdict."""
    return render_template("analysis.html")
