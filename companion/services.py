"""The services every view of the companion's web app shares (``Companion``, reached from a
request through ``companion()``: Flask's ``current_app`` extensions, never by importing the
app), and the app's configuration.  ``companion.app.create_app`` builds them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from flask import current_app

from .events import Broadcaster
from .jr_prepare import JrTablePreparer
from .live import LiveReferee
from .table_prepare import TablePreparer
from .web.hub import GameHub


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
    # build exact tables in the background when missing (cupboard serve): the Gobblet Jr. table
    # at start, a family's table when a game that wants one starts (``table_prepare``)
    prepare_tables: bool = False
    jr_table: JrTablePreparer | None = None  # None: the cache's table, built with the engine's defaults
    keep_frames: int = 0  # committed positions the live referee keeps as labelled frames (opt-in)
    # with frames kept, adapt to the table in the background after games (cupboard serve, unless
    # --no-adapt): ``table_adapt``
    adapt_in_play: bool = False
    clock_time: Callable[[], float] | None = None  # what game clocks read (None: time.monotonic)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Companion:
    """The services every view shares."""

    config: CompanionConfig
    token: str
    hub: GameHub
    broadcaster: Broadcaster
    camera: CameraService | None
    live: LiveReferee | None = None  # refereeing from the camera (see attach_live)
    wizard: Any = None  # the calibration wizard's captures (web.wizard_api)
    jr_table: JrTablePreparer = field(default_factory=JrTablePreparer)
    tables: TablePreparer = field(default_factory=TablePreparer)

    def prepare_for(self, rules: Any) -> None:
        """Start building the table ``rules``' games want, in the background, if the app
        prepares tables (``CompanionConfig.prepare_tables``)."""
        if self.config.prepare_tables:
            self.tables.ensure(rules)

    def attach_live(self, live: LiveReferee) -> None:
        """Wire the camera's ``LiveReferee``: its pending detection and what it offers the
        players (``referee_json``) go into every page's state, and the routes confirm, dismiss
        or resync through it."""
        self.live = live
        if self.camera is not None:
            live.attach(self.camera)
        self.hub.pending_source = live.pending_json
        self.hub.referee_source = live.referee_json
        self.hub.refresh()

    @property
    def calibration_path(self) -> Path:
        """Where the calibration wizard saves the calibration."""
        return self.config.data_dir / "calibration.json"

    @property
    def adaptation_path(self) -> Path:
        """Where ``cupboard adapt`` writes what it learnt of the table, beside the calibration
        (the live referee reads through it while it belongs to the calibration in use)."""
        from vision.adapt import ADAPTATION_FILE

        return self.config.data_dir / ADAPTATION_FILE

    @property
    def records_dir(self) -> Path:
        """Where finished and imported game records are kept."""
        return self.config.data_dir / "records"


def companion() -> Companion:
    """The services of the app handling the current request."""
    return current_app.extensions["cupboard"]
