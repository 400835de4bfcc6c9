"""The companion web app: ``create_app(config)`` builds the Flask app with its blueprints and
the services they share (the live game hub, the event broadcaster, the camera slot).

The services live in ``app.extensions["cupboard"]`` as a ``Companion``; views reach them with
``companion()``.  Nothing here knows how the app is served (see ``commands.serve_cmds``).
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from flask import Flask, current_app

from engine import variant
from engine.files import StorageError, describe_os_error

from .events import Broadcaster, SseMessage
from .journal import JournalError
from .jr_prepare import JrTablePreparer
from .web.errors import register_error_handlers
from .web.hub import GameHub
from .web.security import load_or_create_token

log = logging.getLogger(__name__)


class CameraService(Protocol):
    """What the app needs from the camera thread (``None`` when there is no camera).

    The camera thread owns the camera; web requests only read its latest results."""

    paused: bool

    def health(self) -> dict[str, Any]:
        """Frames per second, board found, seconds since the last stable state, ..."""

    def set_paused(self, paused: bool) -> None:
        """Stop or restart refereeing from frames (the preview may go on)."""

    def preview_jpeg(self, overlay: bool = True) -> bytes | None:
        """The latest downscaled preview frame as JPEG (with the overlays unless ``overlay``
        is False), or None."""

    def latest_frame(self) -> Any:
        """The last full-size ``Frame`` read (the calibration wizard captures it), or None."""


@dataclass
class CompanionConfig:
    """How the app behaves.  ``token`` None: kept in ``data_dir/token``, created once."""

    data_dir: Path
    token: str | None = None
    start_game: bool = True  # start a game of ``default_variant`` when there is none to resume
    default_variant: str = "gobblet"
    heartbeat: float = 15.0  # seconds between keep-alive comments on idle streams
    max_streams: int = 40  # each open stream holds a server thread
    max_streams_per_address: int = 10  # so one machine on the LAN cannot take every stream
    stream_queue: int = 256  # messages a slow page may lag behind before it is dropped
    max_upload: int = 2_000_000  # bytes of an imported record file
    public_url: str | None = None  # the LAN address for links and QR codes
    hint_seconds: float = 3.0  # the most a hint may think
    health_every: float = 2.0  # seconds between camera health messages on the stream
    camera: CameraService | None = None
    # build the exact Gobblet Jr. table in the background when it is missing (cupboard serve)
    prepare_jr_table: bool = False
    jr_table: JrTablePreparer | None = None  # None: the cache's table, built with the engine's defaults
    keep_frames: int = 0  # committed positions the live referee keeps as labelled frames (opt-in)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Companion:
    """The services every view shares."""

    config: CompanionConfig
    token: str
    hub: GameHub
    broadcaster: Broadcaster
    camera: CameraService | None
    live: Any = None  # the LiveReferee refereeing from the camera (see attach_live)
    wizard: Any = None  # the calibration wizard's captures (web.wizard_api)
    jr_table: JrTablePreparer = field(default_factory=JrTablePreparer)

    def attach_live(self, live: Any) -> None:
        """Wire the camera's ``LiveReferee``: its pending detection goes into every page's
        state, and the routes confirm or dismiss through it."""
        self.live = live
        if self.camera is not None:
            live.attach(self.camera)
        self.hub.pending_source = live.pending_json
        self.hub.refresh()

    @property
    def calibration_path(self) -> Path:
        """Where the calibration wizard saves the calibration."""
        return self.config.data_dir / "calibration.json"

    @property
    def records_dir(self) -> Path:
        """Where finished and imported game records are kept."""
        return self.config.data_dir / "records"


def companion() -> Companion:
    """The services of the app handling the current request."""
    return current_app.extensions["cupboard"]


def create_app(config: CompanionConfig | None = None) -> Flask:
    """The Flask app for ``config`` (default: data in ``./cupboard-data``)."""
    config = config or CompanionConfig(Path("cupboard-data"))
    config.data_dir = Path(config.data_dir)
    try:
        config.data_dir.mkdir(parents=True, exist_ok=True)
        (config.data_dir / "records").mkdir(exist_ok=True)
    except OSError as e:  # a read-only folder: the game is still shown (see GameHub.problems)
        log.warning("data folder %s: %s", config.data_dir, describe_os_error(e))

    app = Flask(__name__, static_folder="static", template_folder="templates")
    app.config["MAX_CONTENT_LENGTH"] = config.max_upload
    app.config["JSON_SORT_KEYS"] = False
    app.json.sort_keys = False  # type: ignore[attr-defined]

    broadcaster = Broadcaster(config.max_streams, config.stream_queue, config.max_streams_per_address)
    hub = GameHub(config.data_dir, broadcaster)
    hub.camera_info = {"present": config.camera is not None, "paused": bool(getattr(config.camera, "paused", False))}
    token = config.token or load_or_create_token(config.data_dir)
    services = Companion(config, token, hub, broadcaster, config.camera,
                         jr_table=config.jr_table or JrTablePreparer())
    app.extensions["cupboard"] = services
    if config.prepare_jr_table and services.jr_table.start():
        log.info("building the exact Gobblet Jr. table in the background: %s", services.jr_table.path)

    try:
        resumed = hub.resume()
        if resumed is None and config.start_game:
            hub.new_game(variant(config.default_variant), {})
    except (StorageError, JournalError) as e:
        # e.g. a read-only or full disk: serve what there is and say why
        hub.notices.append(f"{e}")
        log.warning("%s", e)

    register_error_handlers(app)
    from .web import (
        camera_api,
        game_api,
        hints_api,
        pages,
        records_api,
        referee_api,
        stream,
        wizard_api,
    )

    for module in (pages, game_api, stream, hints_api, records_api, camera_api, referee_api, wizard_api):
        app.register_blueprint(module.bp)

    if config.camera is not None:
        _start_health_pushes(config.camera, broadcaster, config.health_every)

    @app.after_request
    def _headers(response):
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; "
            "frame-ancestors 'none'",
        )
        return response

    return app


def _start_health_pushes(camera: CameraService, broadcaster: Broadcaster, every: float) -> None:
    """Send the camera's health to every page every ``every`` seconds, until shutdown."""

    def run() -> None:
        from .web.camera_api import open_previews

        while not broadcaster.closed:
            try:
                health = {"paused": camera.paused, "previews": open_previews(), **camera.health()}
                broadcaster.publish(SseMessage("camera", json.dumps(health, separators=(",", ":"))))
            except Exception:  # a camera problem must not end the pushes
                log.exception("camera health")
            threading.Event().wait(every)

    threading.Thread(target=run, name="cupboard-camera-health", daemon=True).start()
