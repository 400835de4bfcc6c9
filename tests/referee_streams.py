"""Rendered camera streams for the referee's tests and bench: scripted timelines of positions
with hands coming and going, and a wrapper that spoils frames the way real cameras do
(light flicker, a torn frame).  Every frame is drawn by the real synthetic renderer."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from companion.demo import calibrate_demo, script_of
from companion.referee import Referee
from companion.session import GameSession
from engine.gobblet import Rules
from hardware.frames import EndOfStream, Frame, FrameSource
from hardware.pieces import load_piece_set
from hardware.synthetic import Position, SyntheticCamera
from vision.observation import CUP
from vision.tracking import TrackEvent


@dataclass(frozen=True)
class Step:
    """``frames`` frames of ``position`` with hands over ``hands`` (squares)."""

    position: Position
    hands: tuple[int, ...] = ()
    frames: int = 1


class StagedCamera(SyntheticCamera):
    """The synthetic camera playing an explicit timeline of steps instead of one change per
    script position: lifts put back, two moves under one hand visit, hands that only hover."""

    def __init__(self, steps: Sequence[Step], **kwargs) -> None:
        super().__init__(script=[steps[0].position], **kwargs)
        self.steps = list(steps)

    def _build_timeline(self) -> list[tuple[Position, tuple[int, ...]]]:
        return [(s.position, s.hands) for s in self.steps for _ in range(s.frames)]

    def hand_at(self, index: int) -> bool:
        """True when frame ``index`` shows a hand over the board."""
        return bool(self._timeline[index][1])

    def position_at(self, index: int) -> Position:
        """The position frame ``index`` shows."""
        return self._timeline[index][0]

    @property
    def frame_count(self) -> int:
        """How many frames the stream has."""
        return sum(s.frames for s in self.steps)


def changed_squares(a: Position, b: Position) -> tuple[int, ...]:
    """The squares whose stacks differ between two positions."""
    return tuple(i for i in range(len(a)) if a[i] != b[i])


def move_steps(before: Position, after: Position, frames: int = 6) -> list[Step]:
    """A hand reaching for the first changed square, then over the last as the cup lands."""
    changed = changed_squares(before, after)
    half = frames // 2
    return [Step(before, changed[:1], half), Step(after, changed[-1:], frames - half)]


def game_steps(positions: Sequence[Position], still: int = 8, move: int = 6,
               pauses: Iterable[int] = (), pause: int = 20, hovers: Iterable[int] = (),
               quick: Iterable[int] = ()) -> list[Step]:
    """Steps playing ``positions`` one change at a time.  After position ``k`` in ``pauses``
    the board rests ``pause`` frames longer; at ``hovers`` a hand comes and goes without
    moving anything; a ``k`` in ``quick`` makes change ``k`` and the next one under a single
    hand visit (no still frames between them)."""
    pauses, hovers, quick = set(pauses), set(hovers), set(quick)
    steps = [Step(positions[0], (), still)]
    k = 1
    while k < len(positions):
        before = positions[k - 1]
        if k in quick and k + 1 < len(positions):
            steps += move_steps(before, positions[k], move)
            steps += move_steps(positions[k], positions[k + 1], move)
            k += 1
        else:
            steps += move_steps(before, positions[k], move)
        here = positions[k]
        steps.append(Step(here, (), still + (pause if k in pauses else 0)))
        if k in hovers:
            steps += [Step(here, (len(here) // 2,), move), Step(here, (), still)]
        k += 1
    return steps


def lifted(position: Position, square: int) -> Position:
    """``position`` with the top cup of ``square`` in the air."""
    return tuple(stack[:-1] if sq == square else stack for sq, stack in enumerate(position))


def lift_and_put_back(position: Position, square: int, hover: int, frames: int = 4) -> list[Step]:
    """A hand lifts the top of ``square``, holds it over ``hover`` and puts it back."""
    up = lifted(position, square)
    return [Step(position, (square,), 2), Step(up, (hover,), frames), Step(position, (square,), 2)]


@dataclass
class Perturbed(FrameSource):
    """Wraps a source and spoils its frames: per-frame brightness flicker of up to
    ``flicker`` (a share), and the frames in ``torn`` torn (a band shifted sideways and
    washed out, as a broken transfer looks)."""

    source: FrameSource
    flicker: float = 0.0
    torn: frozenset[int] = field(default_factory=frozenset)
    seed: int = 0

    def open(self) -> None:
        """Open the wrapped source."""
        self.source.open()

    def close(self) -> None:
        """Close the wrapped source."""
        self.source.close()

    def read(self) -> Frame:
        """The wrapped source's next frame, spoiled."""
        frame = self.source.read()
        image = frame.image
        rng = np.random.default_rng(self.seed * 7919 + frame.index)
        if self.flicker:
            gain = 1.0 + rng.uniform(-self.flicker, self.flicker)
            image = cv2.convertScaleAbs(image, alpha=gain, beta=0)
        if frame.index in self.torn:
            image = image.copy()
            h = image.shape[0]
            y0 = int(rng.integers(h // 4, h // 2))
            band = image[y0: y0 + h // 3]
            band[:] = cv2.addWeighted(np.roll(band, int(rng.integers(40, 120)), axis=1), 0.6,
                                      np.full_like(band, 255), 0.4, 0)
        return Frame(image=image, timestamp=frame.timestamp, index=frame.index)


class DarkForLight:
    """A persistent misread, as glare on a glossy light top causes under another camera: the
    real recogniser's reading of a light cup on ``square`` reported as the dark cup of the
    same size (same confidence), in every frame from when ``when()`` is first true.  The
    project's renderer never fools its own recogniser so; this puts the misread the issue saw
    on the held-out renderer into otherwise real observations."""

    def __init__(self, recogniser, square: int, when=lambda: True) -> None:
        self.inner = recogniser
        self.square = square
        self.when = when
        self.started = False
        self.frames = 0  # frames misread

    def recognise(self, image):
        """The inner recogniser's observation, with the misread applied."""
        obs = self.inner.recognise(image)
        self.started = self.started or self.when()
        reading = obs.squares[self.square]
        if not self.started or reading.state != CUP or reading.colour != 0:
            return obs
        self.frames += 1
        squares = list(obs.squares)
        squares[self.square] = replace(reading, colour=1)
        return replace(obs, squares=tuple(squares))

    def __getattr__(self, name: str):
        return getattr(self.inner, name)  # pose and the rest, as the referee reads them


def misread_light(referee: Referee, square: int, when=lambda: True) -> DarkForLight:
    """Make ``referee``'s camera read a light cup on ``square`` as dark (see DarkForLight)."""
    referee.recogniser = DarkForLight(referee.recogniser, square, when)
    return referee.recogniser


def positions_of(rules: Rules, pieces_name: str, moves: Sequence[str]) -> list[Position]:
    """The renderer's positions after each move of a game (see ``companion.demo.script_of``)."""
    return script_of(rules, load_piece_set(pieces_name), moves)


def referee_for(data_dir, rules: Rules, camera: SyntheticCamera, **kwargs) -> tuple[GameSession, Referee]:
    """A new game in ``data_dir`` refereed from ``camera`` (calibrated on its empty board)."""
    calibration = calibrate_demo(camera)
    session = GameSession.new(data_dir, rules)
    return session, Referee(session, calibration, **kwargs)


@dataclass
class Run:
    """What a stream made the referee do: its events, and per committed ``moves`` event the
    index of the frame that committed it."""

    events: list[TrackEvent]
    commits: list[tuple[int, TrackEvent]]
    frames: int


def run(referee: Referee, source: FrameSource) -> Run:
    """Feed every frame of ``source`` (already open) to ``referee``."""
    events: list[TrackEvent] = []
    commits: list[tuple[int, TrackEvent]] = []
    frames = 0
    while True:
        try:
            frame = source.read()
        except EndOfStream:
            return Run(events, commits, frames)
        frames += 1
        new = referee.process(frame)
        events += new
        commits += [(frame.index, e) for e in new if e.kind == "moves"]


def recorded_moves(session: GameSession) -> list[str]:
    """The moves the session's journal holds, in order."""
    return [e.data["move"] for e in session.journal.events if e.kind == "move"]


def alerts(session: GameSession, *kinds: str) -> list:
    """The journal's events of the given kinds."""
    return [e for e in session.journal.events if e.kind in kinds]
