"""The camera: its health, pausing the referee, and the MJPEG preview.

Without a camera (``Companion.camera`` is None) these answer 404 with a JSON error, and the
page hides its camera panel."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

from flask import Blueprint, Response, jsonify, request

from ..services import CameraService, companion
from .errors import ApiError
from .game_api import json_body
from .security import require_control

bp = Blueprint("camera_api", __name__)

BOUNDARY = "cupboard-frame"
PREVIEW_FPS = 4.0


def _camera() -> CameraService:
    camera = companion().camera
    if camera is None:
        raise ApiError(404, "there is no camera: moves are entered by tapping the board")
    return camera


@bp.get("/api/camera")
def health():
    """The camera's health: frames per second, board found, time since the last stable state,
    and how many previews are open."""
    camera = _camera()
    return jsonify(paused=camera.paused, previews=open_previews(), **camera.health())


@bp.post("/api/camera/pause")
@require_control
def pause():
    """``{"paused": true}`` stops refereeing from the camera; false starts it again."""
    camera = _camera()
    paused = json_body().get("paused")
    if not isinstance(paused, bool):
        raise ApiError(400, "paused must be true or false")
    camera.set_paused(paused)
    hub = companion().hub
    hub.camera_info = {"present": True, "paused": paused}
    hub.refresh()
    return jsonify(paused=paused)


def mjpeg_parts(frames: Iterator[bytes | None], fps: float = PREVIEW_FPS) -> Iterator[bytes]:
    """``multipart/x-mixed-replace`` parts, one JPEG each, at most ``fps`` a second."""
    interval = 1.0 / fps
    for jpeg in frames:
        started = time.monotonic()
        if jpeg:
            yield (
                f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(jpeg)}\r\n\r\n".encode()
                + jpeg
                + b"\r\n"
            )
        time.sleep(max(0.0, interval - (time.monotonic() - started)))


MAX_VIEWERS = 4  # each preview holds a server thread; the referee matters more
MAX_VIEWERS_PER_ADDRESS = 3  # so that one machine cannot take every preview
_viewers = threading.BoundedSemaphore(MAX_VIEWERS)
_open = [0]  # previews streaming now (the semaphore does not say)
_open_lock = threading.Lock()
_by_address: dict[str, int] = {}  # previews streaming now, by network address


def open_previews() -> int:
    """How many camera previews are streaming now."""
    return _open[0]


def _count(delta: int) -> None:
    with _open_lock:
        _open[0] += delta


def overlay_wanted() -> bool:
    """The ``overlay`` query parameter: on unless it says ``0``/``off``/``false``."""
    value = request.args.get("overlay", "1").strip().lower()
    if value in ("1", "on", "true", "yes"):
        return True
    if value in ("0", "off", "false", "no"):
        return False
    raise ApiError(400, "overlay must be 1 (draw what the camera reads) or 0 (the plain picture)")


@bp.get("/camera.mjpg")
def preview():
    """The live preview as MJPEG (downscaled, a few frames a second), with what the referee
    reads drawn on it; ``?overlay=0`` is the plain picture.  It only reads the camera thread's
    latest JPEG, so viewers never slow the referee down."""
    camera = _camera()
    overlay = overlay_wanted()
    address = request.remote_addr or ""
    with _open_lock:
        if _by_address.get(address, 0) >= MAX_VIEWERS_PER_ADDRESS:
            raise ApiError(503, f"{address} already has {MAX_VIEWERS_PER_ADDRESS} camera previews open")
        if not _viewers.acquire(blocking=False):
            raise ApiError(503, f"{MAX_VIEWERS} camera previews are already open")
        _by_address[address] = _by_address.get(address, 0) + 1
    broadcaster = companion().broadcaster
    disconnected = request.environ.get("waitress.client_disconnected")

    def frames() -> Iterator[bytes | None]:
        while not broadcaster.closed and not (disconnected and disconnected()):
            yield camera.preview_jpeg() if overlay else camera.preview_jpeg(overlay=False)

    response = Response(
        mjpeg_parts(frames()),
        mimetype=f"multipart/x-mixed-replace; boundary={BOUNDARY}",
        headers={"Cache-Control": "no-store"},
    )
    _count(+1)

    def closed() -> None:
        _count(-1)
        with _open_lock:
            _by_address[address] -= 1
            if not _by_address[address]:
                del _by_address[address]
        _viewers.release()

    response.call_on_close(closed)
    return response
