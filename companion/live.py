"""The live referee inside the web app: the camera thread's frames go to a referee of the
hub's current game (a ``Referee`` for a board of pieces, or a family's own ``CameraLoop``, Cups'
``CupsReferee``; a new game gets a new referee).  With the demo camera, a new game starts
each time the scripted game starts again, so the demo runs for as long as the server does.

The web app reaches the referee only through this object: the detection waiting for a person
(``pending_json``, ``confirm``, ``dismiss``), the squares in doubt and the players' answer
about them (``answer_doubt``), the players' word that the table is set as the game shows it
(``resync``, for a referee of containers: Cups) and what the page offers of it
(``referee_json``), the last observation for the preview overlay, and a new calibration from
the wizard (``use_calibration``).

With an adaptation file (``cupboard adapt`` writes ``DATA/adaptation.json``) the referee reads
through the calibration as it adapted it, when it was made through that calibration
(``vision.adapt.read_through``); the health panel says which (``adaptation``).  A new
calibration is checked against the file again: an adaptation of the old one is not used.

With frames kept and ``learn`` (``cupboard serve --keep-frames N``, unless ``--no-adapt``), the
end of a game refereed from the calibration (finished, or left for a new one) may start
adapting to the table in the background (``table_adapt.TableLearner``); an adaptation written
is read through from the next game the referee starts, never in the middle of one."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from calibration.model import Calibration
from engine import GameRules as Rules, family_of
from hardware.frames import Frame

from vision.adapt import read_through
from vision.frames_folder import FramesWriter
from vision.tracking import looks_text

from .referee import CameraLoop, Referee, doubt_json, piece_text
from .session import GameSession, SessionError
from .table_adapt import TableLearner
from .web.hub import GameHub, move_json

log = logging.getLogger(__name__)

# The tags of a demo camera's game: its record says it is a demo (``Demo``) and is kept in
# ``records/demo`` apart from real games (see ``GameSession.record_path``).
DEMO_TAGS = {"White": "Demo White", "Black": "Demo Black", "Place": "demo camera", "Demo": "yes"}


class NothingPending(SessionError):
    """There is no detected move waiting for a person."""


class NoDoubt(SessionError):
    """The square named is not in doubt."""


class NoResync(SessionError):
    """The camera cannot be told that the table is set as the game shows it."""


class LiveReferee:
    """``on_frame`` for the camera thread.  ``demo_rules`` and ``cycle_frames`` are set for the
    demo camera: a game of those rules is (re)started at the start of each cycle.  Without a
    calibration (a real camera before the wizard ran) frames are only previewed.
    ``adaptation``: the adaptation file to read through when it belongs to the calibration
    (``DATA/adaptation.json`` for a real camera; None, the demo camera's, reads the
    calibration alone).  ``calibration`` stays the calibration as saved (the labelled frames
    are kept through it, so that adapting on them again applies to it); ``reading`` is the
    one the referee reads with.  ``learn``: adapt to the table by itself after games, when
    frames are kept and there is an adaptation file to write (``table_adapt``)."""

    def __init__(
        self,
        hub: GameHub,
        calibration: Calibration | None,
        demo_rules: Rules | None = None,
        cycle_frames: int = 0,
        new_game_at: Callable[[int], bool] | None = None,
        keep_frames: int = 0,
        family_cameras: dict[str, Any] | None = None,
        adaptation: Path | None = None,
        learn: bool = False,
    ) -> None:
        self.hub = hub
        self.adaptation = adaptation
        self.calibration = calibration
        self.reading: Calibration | None = None  # ``calibration`` with the adaptation applied, if it is
        self.adaptation_status = ""  # one line for the health panel: adapted, or why not ("" no file)
        self.adapted = False
        self._read_through(calibration)
        # families the camera sees with a set-up of their own (Cups: ``cups_camera.CupsCamera``),
        # by family name: each gives ``referee(session)`` or says why not (``problem``)
        self.family_cameras: dict[str, Any] = dict(family_cameras or {})
        self.demo_rules = demo_rules
        self.cycle_frames = cycle_frames
        self.new_game_at = new_game_at  # the varied demo camera says where its games begin
        self.keep_frames = keep_frames  # labelled frames kept in DATA/frames (0: none)
        self._frames: FramesWriter | None = None
        # adapting to the table after games: a real camera (an adaptation file) with frames kept
        self.learner = (TableLearner(hub.data_dir, adaptation) if learn and keep_frames and adaptation is not None
                        else None)
        self._ended: GameSession | None = None  # the last game handed to the learner as ended
        self.camera: Any = None  # the PreviewCamera, to show board-found and last-stable
        self.referee: CameraLoop | None = None  # Gobblet's Referee, or a family's own (Cups)
        self.problem: str | None = None  # why the camera cannot referee the current game
        self._lock = threading.Lock()  # swapping the referee or its calibration

    # ------------------------------------------------------------------ wiring
    def attach(self, camera: Any) -> None:
        """Wire to the camera thread: health figures, overlays, and refereeing when calibrated."""
        self.camera = camera
        camera.overlay = self.draw_overlay
        camera.on_frame = self.on_frame if self.calibration is not None or self.family_cameras else None
        camera.referee_figures = self._figures({})

    def use_calibration(self, calibration: Calibration) -> None:
        """Referee from now on with ``calibration`` (the wizard saved a new one), through the
        adaptation only if it was made through this one."""
        with self._lock:
            self.calibration = calibration
            self._read_through(calibration)
            self.referee = None
        if self.camera is not None:
            self.camera.on_frame = self.on_frame
            self.camera.referee_figures = self._figures({})

    def _read_through(self, calibration: Calibration | None) -> None:
        """Set ``reading`` and the adaptation's status for ``calibration`` (logged)."""
        if calibration is None or self.adaptation is None:
            self.reading, self.adaptation_status, self.adapted = calibration, "", False
            return
        use = read_through(calibration, self.adaptation)
        self.reading, self.adaptation_status, self.adapted = use.calibration, use.status, use.used
        if use.status:
            (log.info if use.used else log.warning)("%s", use.status)

    def _figures(self, figures: dict[str, Any]) -> dict[str, Any]:
        """``figures`` for the health panel, with the adaptation's status when there is one."""
        if self.adaptation_status:
            return {**figures, "adaptation": {"used": self.adapted, "text": self.adaptation_status}}
        return figures

    def _frames_writer(self) -> FramesWriter | None:
        """The labelled-frames folder of the current calibration, if frames are kept."""
        if not self.keep_frames:
            return None
        if self._frames is None or self._frames.cal is not self.calibration:
            try:
                self._frames = FramesWriter(self.hub.data_dir / "frames", self.calibration, keep=self.keep_frames)
            except OSError as e:
                log.warning("labelled frames cannot be kept in %s: %s", self.hub.data_dir / "frames", e)
                self.keep_frames = 0
                return None
        return self._frames

    # ------------------------------------------------------------------ camera thread
    def on_frame(self, frame: Frame) -> None:
        """Referee one frame (runs on the camera thread)."""
        if self.demo_rules is not None and self._demo_starts(frame.index):
            self.hub.new_game(self.demo_rules, dict(DEMO_TAGS))
        session = self.hub.session
        if session is None:
            return
        rules = session.board.rules
        fam = family_of(rules.token)
        own = self.family_cameras.get(fam.name)  # a family with a set-up of its own
        if own is None and self.calibration is None:
            return
        offered = False  # a new referee the players can tell that the table is the game's
        with self._lock:
            referee = self.referee
            if own is not None:
                if referee is None or referee.session is not session:
                    try:
                        referee = self.referee = own.referee(session)
                    except ValueError as e:  # not calibrated for it, or a table of another size
                        self.referee = None
                        self._cannot_referee(f"the camera cannot referee {rules.name}: {e}; tap the moves in")
                        return
                    offered = referee.takes_resync
            elif (not isinstance(referee, Referee) or referee.session is not session
                  or referee.calibration is not self.reading):
                if not fam.camera_referee:  # the family says; no name is checked
                    self.referee = None
                    self._cannot_referee(f"the camera does not referee {rules.name} yet: tap the moves in")
                    return
                if getattr(rules, "sizes", None) is None:  # a game of containers, not of pieces
                    self.referee = None
                    self._cannot_referee(f"the camera is calibrated for a board of pieces, not for {rules.name}: "
                                         "calibrate its table first, or tap the moves in")
                    return
                if referee is None or referee.session is not session:
                    self._next_game(referee)
                try:
                    referee = self.referee = Referee(session, self.reading, frames=self._frames_writer())
                except ValueError as e:  # the calibrated set cannot play this game (too few sizes)
                    self._cannot_referee(f"the camera cannot referee this game: {e}")
                    return
            self.problem = None
        if offered:  # the pages hear at once that the camera now referees this game
            self.hub.refresh()
        try:
            referee.process(frame)
        except Exception:  # one bad frame must not stop the referee
            log.exception("referee")
            return
        if self.learner is not None:
            self._learn(session)
        if self.camera is not None:
            health = referee.health
            self.camera.board_found = health.board_found
            self.camera.referee_figures = self._figures({"frame_ms": round(health.frame_ms, 1), "hand": health.hand})
            if health.last_stable is not None:
                self.camera.last_stable = time.monotonic()

    def _next_game(self, last: CameraLoop | None) -> None:
        """A referee is wanted for a new game: the game ``last`` refereed has ended (adapt
        after it, unless it was seen to finish), and an adaptation written since it began is
        read through from this game on."""
        if self.learner is None:
            return
        if last is not None and last.session is not self._ended and last.frames is not None:
            self._ended = last.session
            self.learner.game_ended(last.frames)
        if self.learner.take_fresh():
            self._read_through(self.calibration)

    def _learn(self, session: GameSession) -> None:
        """After each frame: a game seen to finish is handed to the learner once, and an
        adaptation that has ended says so on the health panel (read from the next game)."""
        assert self.learner is not None
        referee = self.referee
        if session.over and session is not self._ended and referee is not None and referee.session is session:
            self._ended = session
            self.learner.game_ended(referee.frames)
        if self.learner.running:
            outcome = self.learner.poll()
            if outcome is not None and outcome.written:
                self.adaptation_status, self.adapted = outcome.text, True

    def stop(self) -> None:
        """End an adaptation still running in the background (the server is stopping)."""
        if self.learner is not None:
            self.learner.stop()

    def _cannot_referee(self, problem: str) -> None:
        """Say once in the log, and in the health panel, why the current game is not refereed."""
        if problem != self.problem:
            self.problem = problem
            log.error("%s", problem)
        if self.camera is not None:
            self.camera.referee_figures = self._figures({"error": problem})

    def _demo_starts(self, index: int) -> bool:
        if self.new_game_at is not None:
            return self.new_game_at(index)
        return bool(self.cycle_frames) and index % self.cycle_frames == 0

    # ------------------------------------------------------------------ people
    def _current(self, session: GameSession | None = None) -> CameraLoop | None:
        referee = self.referee
        session = session or self.hub.session
        if referee is None or session is None or referee.session is not session:
            return None
        return referee

    def pending_json(self, session: GameSession) -> dict[str, Any] | None:
        """The detection waiting for a person in ``session``, as the pages show it (call under
        the session's lock): why, the squares involved, and each candidate's moves."""
        referee = self._current(session)
        pending = None if referee is None else referee.pending
        doubts = [] if referee is None else self._doubts_json(referee, session)
        if pending is None:
            if not doubts:
                return None
            # only squares in doubt: the pages ask about them, with no move to confirm
            return {"reason": None, "squares": [d["square"] for d in doubts], "candidates": [],
                    "since": None, "doubts": doubts}
        board = session.board
        candidates = []
        for i, moves in enumerate(pending.candidates):
            after = board.copy()
            steps = []
            for move in moves:
                steps.append(move_json(after, move))
                after.push(move)
            # each step's text is the game's move text in its turn (format_moves' for Gobblet)
            candidates.append({"index": i, "text": " then ".join(step["text"] for step in steps), "moves": steps})
        return {
            "reason": pending.reason,
            "squares": [board.geo.names[s] for s in pending.squares],
            "candidates": candidates,
            "since": pending.since,
            "doubts": doubts,
        }

    @staticmethod
    def _doubts_json(referee: CameraLoop, session: GameSession) -> list[dict[str, Any]]:
        """The squares the players are asked about: what the game says there, what the camera
        sees, the question, and whether they already said the game is wrong there."""
        board = session.board
        out = []
        for doubt in referee.open_doubts():
            name = board.geo.names[doubt.square]
            out.append({
                **doubt_json(board, doubt),
                "game_piece": piece_text(doubt.belief),
                "seen_text": looks_text(doubt.seen),
                "question": f"The game says {piece_text(doubt.belief)} on {name}: is that right?",
                "denied": doubt.denied,
            })
        return out

    def answer_doubt(self, square: str, game_is_right: bool) -> None:
        """The players' answer about the doubted ``square`` (its name).  NoDoubt when it is
        not in doubt (or there is no camera referee)."""
        referee = self._current()
        if referee is None:
            raise NoDoubt("the camera is not refereeing this game")
        if not referee.asks_doubts:
            raise NoDoubt("the camera asks about no square in doubt in this game")
        names = referee.session.board.geo.names
        if square not in names:
            raise NoDoubt(f"there is no square {square!r} on this board")
        try:
            referee.answer_doubt(names.index(square), game_is_right)
        except SessionError as e:
            raise NoDoubt(str(e)) from None

    def referee_json(self, session: GameSession) -> dict[str, Any]:
        """What the pages show of the camera referee of ``session`` besides its questions (call
        under the session's lock): whether the players can tell it the table is set as the game
        shows it (``resync``: a referee of containers, Cups; a board of pieces is found by the
        tracker itself, its misread squares answered as doubts), and the alert of an illegal
        change while the game waits for the table to be put right (``waiting``, or None)."""
        referee = self._current(session)
        resync = referee is not None and referee.takes_resync and not session.over
        return {"resync": resync, "waiting": referee.waiting if resync else None}

    def resync(self) -> None:
        """The players say the table is set as the game shows it: the referee forgets its
        question or alert and watches on from the next still table.  NoResync when the camera
        does not referee the current game, or reads a board of pieces (Gobblet: the tracker
        finds the game's position by itself; a square it misreads is answered as a doubt)."""
        referee = self._current()
        if referee is None:
            raise NoResync(self.problem or "the camera is not refereeing this game (paused, or it has not seen "
                           "the table yet): tap the moves in")
        if not referee.takes_resync:
            raise NoResync("the camera finds a board of pieces as the game shows it by itself: answer the squares "
                           "it doubts, or take back and tap the moves in")
        referee.resync()

    def confirm(self, index: int) -> None:
        """Play candidate ``index`` of the pending detection.  NothingPending when there is
        none; SessionError for an index out of range."""
        referee = self._current()
        if referee is None or referee.pending is None:
            raise NothingPending("there is no detected move waiting")
        referee.confirm(index)

    def dismiss(self) -> bool:
        """Forget the pending detection; False when there was none."""
        referee = self._current()
        if referee is None or referee.pending is None:
            return False
        referee.dismiss()
        return True

    # ------------------------------------------------------------------ preview
    def draw_overlay(self, image: np.ndarray, frame_width: int) -> np.ndarray:
        """Draw the grid, markers, cups and hidden squares on a preview image that was
        downscaled from a frame ``frame_width`` pixels wide (camera thread, preview only)."""
        from .web.overlay import draw_overlay

        referee, calibration = self.referee, self.calibration
        if calibration is None:
            return image
        obs = None if referee is None else referee.last_observation
        pose = (None if referee is None else referee.overlay_pose()) or calibration.pose
        return draw_overlay(image, calibration, obs, image.shape[1] / frame_width, pose)
