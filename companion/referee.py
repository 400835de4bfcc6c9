"""The live referee: camera frames in, judged and journalled game events out.

One ``Referee`` owns the recogniser, the motion detector and the tracker, and acts on a
``GameSession``: it commits the moves the tracker explains with confidence, and journals
alerts for everything else (a move waiting for a person, an illegal physical move, a hidden
piece that is not what memory says, a board that disagrees or shows an earlier position of
the game — as a resumed game's camera may at first — touch-move, the camera lost and back,
the board moved).  A square the camera keeps misreading is a *doubt* (``doubt``, then
``doubt-cleared`` when it reads right again): the game goes on around it and the players are
asked whether the game is right there; their answer is journalled (``doubt-answered``) and
taken up again after a restart.  The engine judges; the referee only passes on what the
camera shows.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar
from pathlib import Path

import cv2
import numpy as np

from calibration.model import Calibration
from hardware.camera_model import CameraPose
from engine.gobblet import Board, Move
from engine.gobblet.notation import format_moves
from hardware.frames import EndOfStream, Frame, FrameSource
from hardware.sources import Reconnecting, SourceEvent
from vision.motion import MotionDetector, square_masks, squares_changed
from vision.adapt import PlayLearner
from vision.frames_folder import FramesWriter
from vision.recognise import Recogniser
from vision.tracking import (
    UNKNOWN,
    Ambiguous,
    Doubt,
    Explained,
    HiddenMismatch,
    Label,
    Tracker,
    TrackerConfig,
    TrackEvent,
    looks_text,
)

from .session import GameSession, SessionError

log = logging.getLogger(__name__)

BOARD_MOVED_MM = 4.0  # a shift of the board larger than this (pose noise stays under 2 mm) ...
BOARD_MOVED_FRAMES = 3  # ... held for this many frames is announced
SNAPSHOT_WIDTH = 320  # pixels across a move's snapshot
SNAPSHOT_QUALITY = 70  # its JPEG quality


@dataclass
class Health:
    """What the companion's health panel shows."""

    frames: int = 0
    fps: float = 0.0
    board_found: bool = False
    hand: bool = False
    camera: str = "starting"
    last_stable: float | None = None
    frame_ms: float = 0.0


@dataclass
class Pending:
    """Continuations the camera saw but could not commit alone: a person confirms or chooses."""

    candidates: list[tuple[Move, ...]]
    reason: str
    squares: tuple[int, ...] = ()
    since: float = field(default_factory=time.time)


class CameraLoop:
    """The camera thread's side of a referee (Gobblet's ``Referee``, Cups' ``CupsReferee``):
    frames read from a reconnecting source and handed to ``process``, the camera's going and
    coming back journalled.  A referee has a ``session``, a ``health`` and a ``process``."""

    session: GameSession
    health: Health
    pending: Pending | None  # the detection waiting for a person to confirm or dismiss it
    last_observation: object  # what the preview overlay draws of the last frame (or None)
    frames: FramesWriter | None = None  # where committed positions are kept as labelled frames
    _fps_window: list[float]
    # whether the players can tell the referee that the table is set as the game shows it
    # (``resync``): a table of containers can be put right by hand and the camera told so; a
    # board of pieces is found by the tracker itself, its misread squares answered as doubts
    takes_resync: ClassVar[bool] = False
    # whether the referee asks the players about single squares it doubts (a board of pieces:
    # a misread square is answered, the game goes on); a table of containers is resynced instead
    asks_doubts: ClassVar[bool] = False

    @property
    def waiting(self) -> str | None:
        """The alert of an illegal change while the game waits for the table to be put right,
        else None (only a referee that ``takes_resync`` waits so)."""
        return None

    def resync(self) -> None:
        """The players say the table is set as the game shows it (only where ``takes_resync``)."""
        raise NotImplementedError

    def open_doubts(self) -> list[Doubt]:
        """The squares the players are asked about now (only a referee that ``asks_doubts``)."""
        return []

    def answer_doubt(self, square: int, game_is_right: bool) -> Doubt:
        """The players' answer about a doubted square (only where ``asks_doubts``)."""
        raise NotImplementedError

    def confirm(self, index: int = 0) -> None:
        """Play candidate ``index`` of the pending detection."""
        raise NotImplementedError

    def dismiss(self) -> None:
        """Forget the pending detection."""
        raise NotImplementedError

    def process(self, frame: Frame) -> object:
        """Judge one frame (the referee's own)."""
        raise NotImplementedError

    def overlay_pose(self) -> CameraPose | None:
        """Where the board stands as the referee last found it, for the preview's overlay
        (None: the calibration's pose)."""
        return None

    def _count_frame(self, frame: Frame, seconds: float) -> None:
        """Count a judged frame on the health panel: frames, time per frame, and frames per
        second over the last two seconds (``_fps_window``: their timestamps)."""
        h = self.health
        h.frames += 1
        h.frame_ms = seconds * 1000
        h.camera = "live"
        self._fps_window = [t for t in self._fps_window if frame.timestamp - t < 2.0] + [frame.timestamp]
        if len(self._fps_window) > 1:
            span = self._fps_window[-1] - self._fps_window[0]
            h.fps = (len(self._fps_window) - 1) / span if span > 0 else 0.0

    def camera_event(self, event: SourceEvent) -> None:
        """Journal the camera going away and coming back."""
        self.health.camera = event.kind
        if event.kind in ("lost", "back"):
            self.session.alert(f"camera-{event.kind}", event.message, {})

    def run(self, source: FrameSource, stop: threading.Event) -> None:
        """Read frames until ``stop`` is set or a finite source ends (the camera thread, or
        ``cupboard watch``)."""
        camera = source if isinstance(source, Reconnecting) else Reconnecting(source, on_event=self.camera_event)
        try:
            camera.open()
            while not stop.is_set():
                try:
                    frame = camera.read()
                except EndOfStream:
                    break
                self.process(frame)
        finally:
            camera.close()


class Referee(CameraLoop):
    """Turns frames into game events for ``session``.

    With ``snapshots`` a small JPEG of the board is saved for every move the camera commits,
    in ``snapshots/`` beside the journal, and named in the move's notes (``snapshot``).
    With ``frames`` (a ``FramesWriter``: the user asked for it) every committed position is kept
    as a labelled frame, the picture with what the game says stands on each square: what
    ``cupboard vision-eval --frames`` measures and ``cupboard adapt`` learns from.
    With ``learn`` (the default) the recogniser learns from every committed position
    during the game (``vision.adapt.PlayLearner``)."""

    asks_doubts: ClassVar[bool] = True

    def __init__(
        self,
        session: GameSession,
        calibration: Calibration,
        logical_sizes: Sequence[int | None] | None = None,
        config: TrackerConfig | None = None,
        snapshots: bool = False,
        frames: FramesWriter | None = None,
        learn: bool = True,
    ) -> None:
        self.session = session
        self.snapshots = snapshots
        self.frames = frames
        self._frames_failed = False
        self.calibration = calibration
        sizes = (logical_sizes if logical_sizes is not None
                 else calibration.pieces.logical_sizes_for(session.board.rules.sizes))
        self.recogniser = Recogniser(calibration, in_play=[size is not None for size in sizes])
        self.learner = PlayLearner(self.recogniser) if learn else None
        self.motion = MotionDetector()
        self._square_masks: list[np.ndarray] = []  # per square, where it shows on the motion thumbnail
        self._masks_pose: object = None
        self._masks_size: tuple[int, int] | None = None
        self.tracker = Tracker(sizes, config)
        self._size_class = {size: k for k, size in enumerate(sizes) if size is not None}
        if session.board.move_stack:  # a resumed game: the camera must find its position first
            self.tracker.expect_resync()
        for doubt in answered_doubts(session):
            self.tracker.restore_doubt(doubt)
        self._image: np.ndarray | None = None  # the frame being processed, for snapshots
        self.health = Health()
        self.pending: Pending | None = None
        self.last_observation = None
        self.last_motion: tuple[bool, tuple[int, ...]] = (False, ())
        self._board_moved = False
        self._moved_frames = 0
        self._fps_window: list[float] = []

    # ------------------------------------------------------------------ frames
    def process(self, frame: Frame) -> list[TrackEvent]:
        """Recognise one frame and act on what the tracker makes of it."""
        start = time.perf_counter()
        obs = self.recogniser.recognise(frame.image)
        moving = self.motion.update(frame.image)
        touched = self._touched(frame.image) if moving and obs.board_found else []
        self.last_observation = obs
        self.last_motion = (moving, tuple(touched))  # what the tracker was told (bench replays)
        self._image = frame.image
        with self.session.lock:
            board = self.session.board
            events = [] if self.session.over else self.tracker.update(board, obs, frame.timestamp, moving, touched)
            for event in events:
                self._act(event)
        self._watch_board(obs.board_moved_mm)
        self._update_health(frame, obs, time.perf_counter() - start)
        return events

    def overlay_pose(self) -> CameraPose:
        """Where the recogniser last found the board (it follows a board nudged in play)."""
        return self.recogniser.pose

    def _touched(self, image: np.ndarray) -> list[int]:
        """The squares whose picture changed since the last frame."""
        pose = self.recogniser.pose
        size = (image.shape[1], image.shape[0])
        if self._masks_pose is not pose or self._masks_size != size:  # a new pose: the board moved
            self._square_masks = square_masks(self.calibration, pose, size)
            self._masks_pose, self._masks_size = pose, size
        return squares_changed(self.motion.changed, self._square_masks)

    def _act(self, event: TrackEvent) -> None:
        session = self.session
        board = session.board
        if event.kind == "stable":
            self.health.last_stable = event.time
            return
        if event.kind == "moves":
            verdict = event.verdict
            assert isinstance(verdict, Explained)
            self.pending = None
            notes = {"conf": f"{verdict.confidence:.2f}"}
            if self.snapshots:  # the board as seen when the move(s) were committed
                notes["snapshot"] = self._save_snapshot()
            for move in verdict.moves:
                if session.over:
                    break
                session.play(move, source="camera", notes=notes)
            self._keep_frame()
            if self.learner is not None and not session.over:
                doubted = [d.square for d in self.open_doubts()]
                self.learner.learn(self._tops(), skip=doubted)
            return
        if event.kind == "lifted":
            square = event.squares[0]
            verdict = board.touch(square)
            session.alert("lifted", f"{board.geo.names[square]} lifted", {"square": square})
            if board.rules.touch_move and verdict.loses:
                session.forfeit_touch(square)
            return
        if event.kind == "touch-move" and not board.rules.touch_move:
            return
        if event.kind == "pending":
            self.pending = Pending([event.verdict.moves], f"not sure: {event.text}?", event.squares)
        elif event.kind == "ambiguous":
            assert isinstance(event.verdict, Ambiguous)
            self.pending = Pending([c.moves for c in event.verdict.candidates], event.text)
        elif event.kind == "hidden-mismatch":
            assert isinstance(event.verdict, HiddenMismatch)
            self.pending = Pending([(event.verdict.move,)], event.text, event.squares)
        elif event.kind == "restored":
            self.pending = None
        data: dict = {"squares": [board.geo.names[s] for s in event.squares]}
        if event.kind in ("doubt", "doubt-cleared"):
            data.update(doubt_json(board, event.verdict))
        if self.pending is not None and event.kind in ("pending", "ambiguous", "hidden-mismatch"):
            data["candidates"] = [format_moves(self.session.board, c) for c in self.pending.candidates]
        session.alert(event.kind, event.text, data)

    def _keep_frame(self) -> None:
        """Keep the frame just explained with the game's position as its truth (``frames``).
        A full disk stops the keeping, said once, never the refereeing."""
        if self.frames is None or self._image is None or self._frames_failed:
            return
        try:
            self.frames.add(self._image, self._tops())
        except OSError as e:
            self._frames_failed = True
            text = f"labelled frames are no longer kept in {self.frames.folder}: {e.strerror or e}"
            log.warning("%s", text)
            try:
                self.session.alert("frames", text, {})
            except (OSError, SessionError):  # the same full disk: the log has said it
                pass

    def _tops(self) -> tuple[tuple[int, int] | None, ...]:
        """What the game says stands on top of each square: (colour, size class) or None."""
        board = self.session.board
        tops = []
        for square in range(len(board.geo.names)):
            top = board.top(square)
            tops.append(None if top is None else (top[0], self._size_class[top[1]]))
        return tuple(tops)

    def _save_snapshot(self) -> str:
        """Write the current frame, small, for the move about to be played; its path relative
        to the data folder.  Written before the move is journalled, so a journalled move's
        snapshot always exists."""
        assert self._image is not None
        image = self._image
        h, w = image.shape[:2]
        small = cv2.resize(image, (SNAPSHOT_WIDTH, max(1, h * SNAPSHOT_WIDTH // w)), interpolation=cv2.INTER_AREA)
        ok, jpeg = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, SNAPSHOT_QUALITY])
        if not ok:
            raise RuntimeError("could not encode the snapshot")
        session = self.session
        stamp = session.record_path.stem
        relative = Path("snapshots") / f"{stamp}-{session.board.ply + 1:03d}.jpg"
        path = session.data_dir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(jpeg.tobytes())
        tmp.replace(path)
        return relative.as_posix()

    def _watch_board(self, moved_mm: float) -> None:
        self._moved_frames = self._moved_frames + 1 if moved_mm > BOARD_MOVED_MM else 0
        if self._moved_frames >= BOARD_MOVED_FRAMES and not self._board_moved:
            self._board_moved = True
            self.session.alert("board-moved", f"the board moved by {moved_mm:.0f} mm; found it again", {})
        elif moved_mm <= BOARD_MOVED_MM / 2:
            self._board_moved = False

    def _update_health(self, frame: Frame, obs, seconds: float) -> None:
        h = self.health
        h.board_found = obs.board_found
        h.hand = obs.hand
        self._count_frame(frame, seconds)

    # ------------------------------------------------------------------ people
    def confirm(self, index: int = 0) -> None:
        """Accept candidate ``index`` of the pending detection."""
        with self.session.lock:
            if self.pending is None:
                raise SessionError("there is no detected move waiting")
            if not 0 <= index < len(self.pending.candidates):
                raise SessionError(f"choose a candidate from 0 to {len(self.pending.candidates) - 1}")
            moves = self.pending.candidates[index]
            self.pending = None
            for move in moves:
                self.session.play(move, source="confirmed")

    def dismiss(self) -> None:
        """Forget the pending detection (e.g. after entering the move by hand)."""
        with self.session.lock:
            self.pending = None

    def open_doubts(self) -> list[Doubt]:
        """The squares in doubt the players are asked about in the current position."""
        return self.tracker.open_doubts(self.session.board)

    def answer_doubt(self, square: int, game_is_right: bool) -> Doubt:
        """The players' answer about a doubted square: the game is right there (the camera's
        reading of it is then just how that cup looks under this light), or it is not (the
        square is ignored until it reads as the game says).  Journalled; SessionError when
        the square is not in doubt."""
        with self.session.lock:
            board = self.session.board
            names = board.geo.names
            if not 0 <= square < board.rules.squares:
                raise SessionError(f"there is no square {square} on this board")
            if not any(d.square == square for d in self.open_doubts()):
                raise SessionError(f"{names[square]} is not in doubt")
            doubt = self.tracker.answer_doubt(square, game_is_right)
            name, game, seen = names[square], looks_text(doubt.belief), looks_text(doubt.seen)
            if game_is_right:
                text = f"{name} holds {game}, as the game says: the camera's {seen} there is taken for it"
            else:
                text = (f"{name} is not {game}: put the board back as the game shows it, or take back "
                        f"and tap the moves in (the camera sees {seen} there)")
            data = {"squares": [name], "game_is_right": game_is_right, **doubt_json(board, doubt)}
            self.session.alert("doubt-answered", text, data)
            return doubt


# ---------------------------------------------------------------------- doubts in the journal
def label_json(label: Label) -> list[int] | str | None:
    """A tracker label as JSON: ``[colour, size]``, ``null`` for empty, or ``"unknown"``."""
    return list(label) if isinstance(label, tuple) else label


def label_from_json(value: object) -> Label:
    """The inverse of ``label_json``; ValueError for anything else."""
    if value is None:
        return None
    if value == UNKNOWN:
        return UNKNOWN
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return (value[0], value[1])
    raise ValueError(f"not a square label: {value!r}")


def piece_text(label: Label) -> str:
    """A label as the position text writes a top: ``W4``, ``B2``, ``empty``."""
    return f"{'WB'[label[0]]}{label[1]}" if isinstance(label, tuple) else looks_text(label)


def doubt_json(board: Board, doubt: Doubt) -> dict:
    """What the journal and the pages say about a doubt."""
    return {
        "square": board.geo.names[doubt.square],
        "game": label_json(doubt.belief),
        "seen": label_json(doubt.seen),
        "expected": label_json(doubt.expected),
    }


def answered_doubts(session: GameSession) -> list[Doubt]:
    """The doubts the players answered in this game that still apply: the square still
    holds, by the game, the cup they answered about, and it has not read right since."""
    board = session.board
    found: dict[int, Doubt] = {}
    for event in session.journal.events:
        if event.kind not in ("doubt-answered", "doubt-cleared"):
            continue
        try:
            square = board.geo.names.index(event.data["square"])
        except (KeyError, ValueError):
            continue  # not a doubt this version wrote
        if event.kind == "doubt-cleared":
            found.pop(square, None)
            continue
        try:
            belief = label_from_json(event.data.get("game"))
            seen = label_from_json(event.data.get("seen"))
            expected = label_from_json(event.data.get("expected"))
        except ValueError:
            continue
        right = bool(event.data.get("game_is_right"))
        found[square] = Doubt(square, expected, belief, seen, confirmed=right, denied=not right)
    return [d for sq, d in sorted(found.items()) if board.top(sq) == d.belief]
