"""The live referee inside the web app: the camera thread's frames go to a ``Referee`` on the
hub's current game (a new game gets a new referee).  With the demo camera, a new game starts
each time the scripted game starts again, so the demo runs for as long as the server does."""

from __future__ import annotations

import logging
import time
from typing import Any

from calibration.model import Calibration
from engine import Rules
from hardware.frames import Frame

from .referee import Referee
from .web.hub import GameHub

log = logging.getLogger(__name__)


class LiveReferee:
    """``on_frame`` for the camera thread.  ``demo_rules`` and ``cycle_frames`` are set for the
    demo camera: a game of those rules is (re)started at the start of each cycle."""

    def __init__(
        self,
        hub: GameHub,
        calibration: Calibration,
        demo_rules: Rules | None = None,
        cycle_frames: int = 0,
    ) -> None:
        self.hub = hub
        self.calibration = calibration
        self.demo_rules = demo_rules
        self.cycle_frames = cycle_frames
        self.camera: Any = None  # the PreviewCamera, to show board-found and last-stable
        self.referee: Referee | None = None

    def on_frame(self, frame: Frame) -> None:
        """Referee one frame (runs on the camera thread)."""
        if self.demo_rules is not None and self.cycle_frames and frame.index % self.cycle_frames == 0:
            self.hub.new_game(self.demo_rules, {"White": "Demo White", "Black": "Demo Black", "Place": "demo camera"})
        session = self.hub.session
        if session is None:
            return
        if self.referee is None or self.referee.session is not session:
            self.referee = Referee(session, self.calibration)
        try:
            self.referee.process(frame)
        except Exception:  # one bad frame must not stop the referee
            log.exception("referee")
            return
        if self.camera is not None:
            health = self.referee.health
            self.camera.board_found = health.board_found
            if health.last_stable is not None:
                self.camera.last_stable = time.monotonic()
