"""The companion web app: ``create_app(config)`` builds the Flask app with its blueprints and
the services they share (the live game hub, the event broadcaster, the camera slot).

The services live in ``app.extensions["cupboard"]`` as a ``Companion`` (``companion.services``);
views reach them with ``companion()`` (through ``current_app``: no blueprint imports this module).
Nothing here knows how the app is served (see ``commands.serve_cmds``).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from pathlib import Path

from flask import Flask

from engine import variant
from engine.files import StorageError, describe_os_error

from .events import Broadcaster, SseMessage
from .journal import JournalError
from .jr_prepare import JrTablePreparer
from .services import CameraService, Companion, CompanionConfig
from .web import (
    analysis_api,
    camera_api,
    clock_api,
    game_api,
    hints_api,
    history_api,
    log_api,
    pages,
    records_api,
    referee_api,
    stream,
    wizard_api,
)
from .web.errors import register_error_handlers
from .web.hub import GameHub
from .web.security import load_or_create_token

log = logging.getLogger(__name__)


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
    hub = GameHub(config.data_dir, broadcaster, config.clock_time or time.monotonic)
    hub.camera_info = {"present": config.camera is not None,
                       "paused": config.camera is not None and config.camera.paused}
    token = config.token or load_or_create_token(config.data_dir)
    services = Companion(config, token, hub, broadcaster, config.camera,
                         jr_table=config.jr_table or JrTablePreparer())
    app.extensions["cupboard"] = services
    if config.prepare_tables and services.jr_table.start():
        log.info("building the exact Gobblet Jr. table in the background: %s", services.jr_table.path)

    try:
        resumed = hub.resume()
        if resumed is None and config.start_game:
            hub.new_game(variant(config.default_variant), {})
        if hub.session is not None:
            services.prepare_for(hub.session.board.rules)
    except (StorageError, JournalError) as e:
        # e.g. a read-only or full disk: serve what there is and say why
        hub.notices.append(f"{e}")
        log.warning("%s", e)

    register_error_handlers(app)
    for module in (pages, game_api, stream, hints_api, records_api, camera_api, referee_api, wizard_api,
                   log_api, clock_api, history_api, analysis_api):
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
