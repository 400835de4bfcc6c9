"""Adapting the square model to a user's own board, pieces, light and camera from labelled
frames (``vision.frames_folder``: frames the referee kept of committed positions, or the
user's own photos with a truth file).

The square model was fitted on rendered boards.  Here its weights for the folder's cup
material are trained further on the folder's squares, pulled towards the shipped weights (so a
few games' frames move them only as far as they must) and with the same standardisation.  A
share of the frames is kept apart: the adapted model is kept only if it reads those at least
as well as the one it started from, and both figures are reported.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from calibration.model import Calibration

from .frames_folder import FramesFolderError, frames, open_folder
from .recognise import Recogniser
from .square_fit import PARAMS, train_choice
from .square_model import MaterialModel, SquareModel, alternatives, calibrated_model, model_json

log = logging.getLogger(__name__)

STEPS = 300
PULL = 0.02  # l2 towards the weights adapted from
RATE = 0.005
HOLD_OUT = 0.25  # share of the frames (every 4th) kept apart to check the adaptation on
PLAY_WINDOW = 12  # committed positions a game's learning remembers
PLAY_STEPS = 150  # training steps after each (from the calibration's model, so they do not add up)


@dataclass(frozen=True)
class Squares:
    """The folder's squares as the model sees them: alternatives (squares, alternatives,
    features), which are real, and the true alternative (0 empty, 1 + size class)."""

    x: np.ndarray
    valid: np.ndarray
    y: np.ndarray


@dataclass(frozen=True)
class Adaptation:
    """The model to use (adapted, or the one started from if adapting did not help), whether
    it was adapted, and the share of the kept-apart squares each model reads right."""

    model: SquareModel
    adapted: bool
    frames_used: int
    frames_checked: int
    before: float
    after: float


def collect(folder: str | Path) -> tuple[Calibration, str, list[Squares]]:
    """The folder's calibration, its material and, per frame with nothing hidden, its squares."""
    cal, _ = open_folder(folder)
    rec = Recogniser(cal, model=None, size_check=None)
    out = []
    for image, item in frames(folder):
        if any(item.hidden):
            continue
        squares = labelled(rec, image, item.tops)
        if squares is not None:
            out.append(squares)
    return cal, rec.material, out


def labelled(rec: Recogniser, image: np.ndarray, tops: Sequence[tuple[int, int] | None]) -> Squares | None:
    """The squares of ``image`` as the model sees them, labelled with the true ``tops``
    (colour, size class or None per square); None when the board is not found.  ``rec`` is a
    recogniser without a model (``Recogniser(cal, model=None, size_check=None)``)."""
    obs = rec.recognise(image)
    if not obs.board_found or rec.last_evidence is None:
        return None
    x = alternatives(rec.last_evidence)
    y = np.array([0 if t is None else 1 + t[1] for t in tops])
    return Squares(x, np.ones(x.shape[:2], bool), y)


def learn_from_frame(cal: Calibration, image: np.ndarray, tops: Sequence[tuple[int, int] | None],
                     steps: int = STEPS, pull: float = PULL) -> Calibration:
    """``cal`` with its own square model (``Calibration.square_model``): the one it reads with
    trained further on one picture whose every top is known, such as the set's layout at
    calibration.  On rendered tables of the held-out look, the layout's picture alone takes
    gobblet from 89 to 96 % of squares; on the look the model was fitted on it changes nothing.
    ``cal`` unchanged when the board is not found in ``image``."""
    rec = Recogniser(cal, model=None, size_check=None)
    squares = labelled(rec, image, tops)
    if squares is None:
        return cal
    start = calibrated_model(cal)
    tuned = fine_tune(start.for_material(rec.material), squares, steps, pull)
    own = SquareModel({rec.material: tuned}, f"{start.note}; trained further on the user's own set")
    return dataclasses.replace(cal, square_model=model_json(own))


def _merge(parts: list[Squares]) -> Squares:
    return Squares(*(np.concatenate([getattr(p, f.name) for p in parts]) for f in dataclasses.fields(Squares)))


def accuracy(model: MaterialModel, data: Squares) -> float:
    """Share of squares whose most probable alternative is the true one."""
    return float((model.probabilities(data.x).argmax(axis=-1) == data.y).mean())


def fine_tune(model: MaterialModel, data: Squares, steps: int = STEPS, pull: float = PULL) -> MaterialModel:
    """``model`` trained further on ``data``, pulled towards its own weights."""
    z = ((data.x - model.mean) / model.scale).astype(np.float32)
    start = {k: getattr(model, k).astype(np.float32) for k in PARAMS}
    params = train_choice(z, data.valid, data.y, start, steps, pull, anchor=start, rate=RATE)
    return dataclasses.replace(model, **{k: v.astype(np.float64) for k, v in params.items()})


def adapt(folder: str | Path, base: SquareModel, steps: int = STEPS, pull: float = PULL) -> Adaptation:
    """Adapt ``base`` to the frames of ``folder`` (every 4th frame kept apart to check)."""
    cal, material, per_frame = collect(folder)
    if len(per_frame) < 4:
        raise FramesFolderError(f"{folder}: {len(per_frame)} usable frames (board found, nothing hidden); "
                                "adapting needs at least 4")
    check = per_frame[::int(round(1 / HOLD_OUT))]
    train = [f for k, f in enumerate(per_frame) if k % int(round(1 / HOLD_OUT))]
    start = calibrated_model(cal, base).for_material(material)
    tuned = fine_tune(start, _merge(train), steps, pull)
    held = _merge(check)
    before, after = accuracy(start, held), accuracy(tuned, held)
    better = after >= before
    note = (f"{base.note}; adapted to {Path(folder).name} on {len(train)} frames "
            f"({100 * before:.2f} -> {100 * after:.2f} % of {len(held.y)} squares kept apart)")
    model = SquareModel({**base.materials, material: tuned}, note) if better else base
    return Adaptation(model, better, len(train), len(check), before, after)


class PlayLearner:
    """Learning from refereed play.  Every position the referee commits is a picture whose
    every top the game knows; after each, the recogniser's model becomes the calibration's
    own trained further on the last ``window`` of them (pulled towards the calibration's, and
    always started from it, so a run of bad pictures cannot drift it far).  A table's light
    and cups so teach the recogniser during the game.  The training runs on a thread of its
    own (about half a second of CPU), so the camera's frames keep being read meanwhile; the
    new weights replace the old in one assignment.  Kept in memory: a restart begins again
    from the calibration."""

    def __init__(self, recogniser: Recogniser, window: int = PLAY_WINDOW, steps: int = PLAY_STEPS,
                 pull: float = PULL) -> None:
        self.recogniser = recogniser
        self.start = recogniser.model
        self.steps, self.pull = steps, pull
        self.positions: deque[Squares] = deque(maxlen=window)
        self._lock = threading.Lock()
        self._wanted = False  # positions were added since the last training began (under _lock)
        self._idle = threading.Event()
        self._idle.set()
        self._worker: threading.Thread | None = None

    def learn(self, tops: Sequence[tuple[int, int] | None], skip: Sequence[int] = ()) -> None:
        """Learn from the recogniser's last picture, whose tops are ``tops`` (colour, size
        class or None per square), leaving out the squares ``skip`` (in doubt).  Returns at
        once; ``wait`` waits for the training."""
        ev = self.recogniser.last_evidence
        if self.start is None or ev is None:
            return
        keep = np.array([sq not in skip for sq in range(len(tops))])
        x = alternatives(ev)[keep]
        y = np.array([0 if t is None else 1 + t[1] for t in tops])[keep]
        with self._lock:
            self.positions.append(Squares(x, np.ones(x.shape[:2], bool), y))
            self._idle.clear()
            self._wanted = True
            if self._worker is None:
                self._worker = threading.Thread(target=self._train, name="play-learner", daemon=True)
                self._worker.start()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until every position added has been learnt from; False on timeout."""
        return self._idle.wait(timeout)

    def _train(self) -> None:
        while True:
            with self._lock:
                if not self._wanted:
                    self._worker = None
                    self._idle.set()
                    return
                self._wanted = False
                data = _merge(list(self.positions))
            try:
                self.recogniser.model = fine_tune(self.start, data, self.steps, self.pull)
            except Exception:  # learning is a help, never a need: keep the weights there are
                log.exception("learning from play skipped a training")
