"""Adapting recognition to a user's own board, pieces, light and camera from labelled frames
(``vision.frames_folder``: frames the referee kept of committed positions, or the user's own
photos with a truth file).

The square model was fitted on rendered boards, but it decides only empty or which size from
the evidence the recogniser measures; where that evidence or the colour is misread, no
training of its weights helps.  On tables of the held-out look most misreads that training
left were of two kinds: one size off, because the edge search looked for a top's edge at the
set file's radius while a rounded top shows it further in, and a colour misread, because the
players' colours measured on the layout's picture were not those the table's light shows on
most tops (a dark plug mirroring the lamp there measured grey).  Both are values the
recogniser reads from the calibration, so ``adapt`` measures them on the frames' labelled tops
(``measure_edges``, ``measure_colours``; and where a lamp mirrors in the tops of a few squares
only, the players' colours square by square, ``measure_square_colours``), then trains the
weights for the folder's cup material on the squares as that calibration reads them, pulled towards the calibration's own
weights (so a few games' frames move them only as far as they must).  A share of the frames is
kept apart: the adaptation is kept only if the whole readings of those are at least as good
through it as through the folder's calibration, and both figures are reported.  The measured
edge radii and the trained weights are each kept only where they read better than the
calibration's, judged on more frames than those (``adapt``).

What is learnt (``TableAdaptation``) is written as a versioned file (``save_adaptation``,
format ``cupboard-adaptation``) tied to its calibration, and put into it when read
(``adapted_calibration``): the recogniser itself is unchanged.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.model import Calibration, CalibrationError, ColourModel, to_json
from engine.files import write_atomic
from hardware.pieces import check_header

from .frames_folder import FramesFolderError, LabelledFrame, frames, open_folder
from .observation import OCCLUDED
from .recognise import Recogniser
from .square_fit import PARAMS, train_choice
from .square_model import (MaterialModel, ModelFileError, SquareModel, alternatives, calibrated_model, model_json,
                           parse_model)
from .tops import body_colour, peak_scale, with_edge_scales
from .tracking import TrackerConfig

log = logging.getLogger(__name__)

# per square, the light and dark players' BGR (``Calibration.square_colours``)
SquareColours = tuple[tuple[tuple[float, float, float], tuple[float, float, float]], ...]

STEPS = 300
PULL = 0.02  # l2 towards the weights adapted from
RATE = 0.005
HOLD_OUT = 0.25  # share of the frames (every 4th) kept apart to check the adaptation on
PLAY_WINDOW = 12  # committed positions a game's learning remembers
PLAY_STEPS = 150  # training steps after each (from the calibration's model, so they do not add up)
# the cup materials whose square model learns in play (``PlayLearner``): where it mends readings
LEARNS_IN_PLAY = frozenset({"clear"})
EDGE_SCALES = np.round(np.arange(0.75, 1.1251, 0.025), 3)  # edge radii tried, shares of the set file's
EDGE_FRAMES = 10  # frames to adapt on that the edge radii are measured on (each read at every radius)
EDGE_DEADBAND = 0.035  # a measured edge scale this close to 1 keeps the calibration's
EDGE_CUPS = 6  # labelled tops of a size from which its edge is measured
COLOUR_TOPS = 6  # labelled tops of a player from which its colour is measured
COLOUR_FRAMES = 8  # frames to adapt on that the players' candidate colours are tried on
SQUARE_PRIOR = 1.0  # tops of a square worth as much as the table's colours, where a square's own are measured
KEPT_PICTURES = max(EDGE_FRAMES, COLOUR_FRAMES)  # pictures of a folder kept once read (``_Pictures``)


@dataclass(frozen=True)
class Squares:
    """The folder's squares as the model sees them: alternatives (squares, alternatives,
    features), which are real, and the true alternative (0 empty, 1 + size class)."""

    x: np.ndarray
    valid: np.ndarray
    y: np.ndarray


@dataclass(frozen=True)
class TableAdaptation:
    """What adapting learnt about one table, beyond the calibration it was adapted from
    (``calibration_id``, ``calibration_id(cal)``): per size class where its top's edge shows
    (``SizeClass.edge_scale``, measured on every labelled top of the frames rather than on the
    layout's two cups), the players' colours as this light shows them on every labelled top
    (and on each square, ``square_colours``, where a lamp mirrored in some squares' tops made
    that read better), and the square model's weights for the set's ``material`` trained on the
    frames' squares (the calibration's own where the trained ones read no better, ``adapt``).
    ``adapted_calibration`` puts them in the calibration; ``save_adaptation`` writes them as a
    versioned file and ``load_adaptation`` checks one."""

    calibration_id: str
    material: str
    edge_scales: tuple[float, ...]
    colour: ColourModel
    weights: MaterialModel
    note: str = ""
    frames: int = 0  # the labelled frames it was adapted from (learnt on and kept apart); 0: not known
    square_colours: SquareColours | None = None  # the players' colours square by square, where measured


@dataclass(frozen=True)
class Adaptation:
    """The model to use (adapted, or the one started from if adapting did not help), whether
    it was adapted, and the share of the kept-apart squares each reads right (the whole
    reading, size and colour, of the calibration as it was against the adapted one).
    ``table`` is what was learnt (None when it was not kept) and ``calibration`` the
    calibration to read with: the folder's, with ``table`` applied when it was kept."""

    model: SquareModel
    adapted: bool
    frames_used: int
    frames_checked: int
    before: float
    after: float
    calibration: Calibration | None = None
    table: TableAdaptation | None = None
    weights_trained: bool = False  # the weights kept are trained ones, not the calibration's


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


class _Pictures(Sequence):
    """A folder's labelled frames as (image, truth) pairs, each picture read when asked for:
    a referee's folder holds up to hundreds (1280x720 each), too many to hold at once.  The
    first ``KEPT_PICTURES`` read are kept (shared with slices): the edge radii and the colours
    are measured by reading the same first frames again and again."""

    def __init__(self, folder: Path, items: list[LabelledFrame], kept: dict[str, np.ndarray] | None = None) -> None:
        self.folder, self.items = folder, items
        self._kept = {} if kept is None else kept

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, k):  # type: ignore[override]
        if isinstance(k, slice):
            return _Pictures(self.folder, self.items[k], self._kept)
        item = self.items[k]
        image = self._kept.get(item.file)
        if image is None:
            image = cv2.imread(str(self.folder / item.file), cv2.IMREAD_COLOR)
            if image is None:
                raise FramesFolderError(f"{self.folder / item.file}: missing, or not a picture OpenCV can read")
            if len(self._kept) < KEPT_PICTURES:
                self._kept[item.file] = image
        return image, item


def calibration_id(cal: Calibration) -> str:
    """A fingerprint of ``cal`` as the camera saw the board (its file's contents less the
    square model, which adapting replaces): an adaptation belongs to one calibration."""
    data = {k: v for k, v in to_json(cal).items() if k != "square_model"}
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode("utf-8")).hexdigest()[:16]


def adapted_calibration(cal: Calibration, table: TableAdaptation) -> Calibration:
    """``cal`` reading as ``table`` learnt: its size classes' edge scales, the players' colours
    (and per square, where measured) and its square model's weights replaced (what the
    recogniser reads them from).  A ``CalibrationError`` when ``table`` was learnt through another calibration or set."""
    if table.calibration_id != calibration_id(cal):
        raise CalibrationError("the adaptation was made through another calibration (the camera or the board "
                               "moved since, or it is another set): adapt again on frames of this one")
    if len(table.edge_scales) != len(cal.sizes):
        raise CalibrationError(f"the adaptation has {len(table.edge_scales)} size classes, the calibration "
                               f"{len(cal.sizes)}")
    own = SquareModel({table.material: table.weights}, table.note)
    if table.square_colours is not None and len(table.square_colours) != cal.board.squares:
        raise CalibrationError(f"the adaptation has colours for {len(table.square_colours)} squares, the board "
                               f"{cal.board.squares}")
    return dataclasses.replace(with_edge_scales(cal, table.edge_scales), colour=table.colour,
                               square_model=model_json(own), square_colours=table.square_colours)


@dataclass(frozen=True)
class EdgeSums:
    """The edge search's score of the labelled tops of some frames at each tried edge radius
    (``EDGE_SCALES``), summed per player and size class: ``sums`` (radii, 2 players, sizes),
    light first, and ``counts`` (2, sizes), how many tops each sum holds."""

    sums: np.ndarray
    counts: np.ndarray

    def peak(self, colour: int | None, size: int) -> float | None:
        """Where the sum of ``colour``'s tops (both players' for None) of ``size`` peaks, as a
        share of the set file's radius (``peak_scale``); None where there is no such top."""
        cols = slice(None) if colour is None else slice(colour, colour + 1)
        if not self.counts[cols, size].sum():
            return None
        return peak_scale(self.sums[:, cols, size].sum(axis=1), EDGE_SCALES)


def edge_sums(cal: Calibration, labelled_frames: Sequence[tuple[np.ndarray, LabelledFrame]]) -> EdgeSums:
    """The first ``EDGE_FRAMES`` of ``labelled_frames`` read at every radius of ``EDGE_SCALES``
    (every size class's edge at that share of the set file's radius): each labelled top's ring
    score at its own size (clipped to 0-30 ring units, so one sharp top does not outweigh the
    rest), summed per player and size (``EdgeSums``).

    ``measure_edges`` adds the two players: one radius per size.  Kept per player so that
    what a radius per player would gain can be measured (``bench/adapt.py --edge-colours``):
    on tuning tables it did not (docs/geometry.md, "One edge radius per size")."""
    n = len(cal.sizes)
    sums = np.zeros((len(EDGE_SCALES), 2, n))
    counts = np.zeros((2, n), int)
    for i, f in enumerate(EDGE_SCALES):
        rec = Recogniser(with_edge_scales(cal, (float(f),) * n), model=None,
                         size_check=None)
        for image, item in labelled_frames[:EDGE_FRAMES]:
            if not rec.recognise(image).board_found or rec.last_evidence is None:
                continue
            ring = np.clip(rec.last_evidence.ring, 0.0, 30.0)
            for sq, top in enumerate(item.tops):
                if top is not None and not item.hidden[sq]:
                    sums[i, top[0], top[1]] += ring[sq, top[1]]
                    counts[top[0], top[1]] += i == 0
    return EdgeSums(sums, counts)


def measure_edges(cal: Calibration, labelled_frames: Sequence[tuple[np.ndarray, LabelledFrame]]) -> tuple[float, ...]:
    """Per size class, where the edge of its tops shows on ``labelled_frames`` (the scale of
    the set file's radius, ``SizeClass.edge_scale``): the edge search's score of each
    labelled top at its own size, summed over every such top, peaks at the radius the top
    really shows (a rounded or chamfered top shows its edge inside its outer diameter).  The
    layout's picture measured it on two cups, and kept the set file's where they disagreed;
    a few games' frames hold dozens of each size.  Clear sizes (sized by their white rims)
    and sizes with fewer than ``EDGE_CUPS`` tops keep the calibration's.  A peak within
    ``EDGE_DEADBAND`` of the file's radius does not tell the edge from the file's radius (on the
    look the models were fitted on, where the file's radius is right, the scores peak 0.3-3 %
    outside it: the picture's blur), so it keeps the calibration's: the file's, or what the
    layout's picture measured (Storer's tuning table 22: the layout measured 0.913 for the
    solid smallest cup, the frames peak at 0.968, and taking 1.0 there read 4 more squares of
    20 other frames wrong).  One radius for both players' tops (``edge_sums`` keeps them apart,
    to measure): a radius per player gained no more than moving the one radius."""
    n = len(cal.sizes)
    solid = [not (cal.pieces.clear and not size.solid) for size in cal.pieces.sizes]
    by_colour = edge_sums(cal, labelled_frames)
    sums, counts = by_colour.sums.sum(axis=1), by_colour.counts.sum(axis=0)
    out = []
    for s in range(n):
        if not solid[s] or counts[s] < EDGE_CUPS:
            out.append(cal.sizes[s].edge_scale)
            continue
        f = peak_scale(sums[:, s], EDGE_SCALES)
        out.append(round(f, 3) if abs(f - 1.0) > EDGE_DEADBAND else cal.sizes[s].edge_scale)
    return tuple(out)


@dataclass(frozen=True)
class TopBody:
    """One labelled top's own colour on a frame (``top_bodies``): its square, its player
    (0 light, 1 dark) and its body's BGR brought to the light of the calibration's empty board."""

    square: int
    colour: int
    bgr: np.ndarray


def top_bodies(cal: Calibration, labelled_frames: Sequence[tuple[np.ndarray, LabelledFrame]]) -> list[list[TopBody]]:
    """Per frame of ``labelled_frames``, each labelled top's own colour (``body_colour`` of its
    pixels, read where ``cal``'s recogniser found a top of its size) times the board's colour
    at calibration over its colour in that frame, as the recogniser compares them; a frame
    whose board was not found has none."""
    rec = Recogniser(cal, model=None, size_check=None)
    ref_board = np.asarray(cal.colour.board_bgr, np.float64)
    out: list[list[TopBody]] = [[] for _ in labelled_frames]
    for i, sq, (colour, size) in _labelled_tops(rec, labelled_frames):
        pixels, board_now = rec.top_pixels(sq, size)
        body = body_colour(pixels) if len(pixels) else None
        if body is not None:
            out[i].append(TopBody(sq, colour, body * ref_board / np.maximum(board_now, 1.0)))
    return out


def _labelled_tops(rec: Recogniser, labelled_frames: Sequence[tuple[np.ndarray, LabelledFrame]]
                   ) -> Iterator[tuple[int, int, tuple[int, int]]]:
    """Each labelled top not hidden of the frames of ``labelled_frames`` on which ``rec`` finds
    the board, as (the frame's index, its square, (colour, size class)), yielded while that
    frame is ``rec``'s last (so its readings of the square can be asked for)."""
    for i, (image, item) in enumerate(labelled_frames):
        if not rec.recognise(image).board_found:
            continue
        for sq, top in enumerate(item.tops):
            if top is not None and not item.hidden[sq]:
                yield i, sq, (int(top[0]), int(top[1]))


def measure_colours(cal: Calibration, labelled_frames: Sequence[tuple[np.ndarray, LabelledFrame]],
                    tops: list[list[TopBody]] | None = None) -> ColourModel:
    """The players' colours as this table's light shows them, from every labelled top of
    ``labelled_frames``: each top's own colour (``body_colour``) brought to the light of the
    calibration's empty board (times the board's colour then over its colour in that frame, as
    the recogniser compares them).  The layout's picture saw each player's cups at a few places
    only: a lamp mirrored in one of them, or shade on another, moved the player's colour; over a
    few games the tops stand everywhere.

    Where the light makes a player's tops look two ways (a glossy top grey where it mirrors
    the lamp, plainly coloured elsewhere) no single colour is typical, so a few are tried: the
    calibration's, the players' medians, the medians of the half of each player's tops least
    like the other's, and mixes of the two.  The one kept reads the colours of the labelled tops
    (on ``COLOUR_FRAMES`` of the frames) with the fewest errors; ties go to the first, so the
    calibration's colours stay unless measured ones read the tops better.
    (The medians of the half most like the other player's, the grey tops, were tried too on a
    tuning table whose dark plugs mirror the lamp: they read three times as many tops wrong.)  A player
    with fewer than ``COLOUR_TOPS`` tops keeps the calibration's colour.  ``tops``: the
    frames' ``top_bodies`` when they were read already."""
    if tops is None:
        tops = top_bodies(cal, labelled_frames)
    bodies: tuple[list[np.ndarray], list[np.ndarray]] = ([], [])
    for frame in tops:
        for top in frame:
            bodies[top.colour].append(top.bgr)
    if min(len(b) for b in bodies) < COLOUR_TOPS:
        return cal.colour
    stacks = [np.stack(b) for b in bodies]
    medians = [np.median(b, axis=0) for b in stacks]
    far = []  # per player: the median of the half of its tops least like the other player's
    for c in (0, 1):
        apart = np.linalg.norm(np.log(np.maximum(stacks[c], 1.0)) - np.log(np.maximum(medians[1 - c], 1.0)), axis=1)
        far.append(np.median(stacks[c][apart >= np.median(apart)], axis=0))
    tried = [(np.asarray(cal.colour.light_bgr), np.asarray(cal.colour.dark_bgr)),
             (medians[0], medians[1]), (far[0], far[1]), (medians[0], far[1]), (far[0], medians[1])]
    candidates = [ColourModel(cal.colour.board_bgr, tuple(float(v) for v in light), tuple(float(v) for v in dark),
                              "adapted") for light, dark in tried]
    errors = [colour_errors(dataclasses.replace(cal, colour=cm), labelled_frames[:COLOUR_FRAMES])
              for cm in candidates]
    best = int(np.argmin(errors))
    return candidates[best] if best else cal.colour


def colour_errors(cal: Calibration, labelled_frames: Sequence[tuple[np.ndarray, LabelledFrame]]) -> int:
    """How many labelled tops of ``labelled_frames`` ``cal``'s recogniser reads in the wrong
    colour, each taken at its true size."""
    rec = Recogniser(cal, model=None, size_check=None)
    return sum(rec.colour_of(sq, size)[0] != colour for _, sq, (colour, size) in _labelled_tops(rec, labelled_frames))


def square_colours(colour: ColourModel, squares: int, tops: Sequence[Sequence[TopBody]]) -> SquareColours:
    """Per square, the players' colours ``tops`` show there (``Calibration.square_colours``):
    per player the geometric median of the square's tops' colours, shrunk towards ``colour``'s
    as n / (n + ``SQUARE_PRIOR``) for n tops (none: ``colour``'s), so a square seen with one or
    two tops moves little and one seen with a dozen stands on its own."""
    logs = [[[] for _ in range(squares)] for _ in (0, 1)]
    for frame in tops:
        for top in frame:
            logs[top.colour][top.square].append(np.log(np.maximum(top.bgr, 1.0)))
    out = []
    for sq in range(squares):
        pair = []
        for c, ref in enumerate((colour.light_bgr, colour.dark_bgr)):
            base = np.log(np.maximum(np.asarray(ref, np.float64), 1.0))
            seen = logs[c][sq]
            w = len(seen) / (len(seen) + SQUARE_PRIOR)
            here = np.median(seen, axis=0) if seen else base
            pair.append(tuple(float(v) for v in np.exp(base + w * (here - base))))
        out.append((pair[0], pair[1]))
    return tuple(out)


def measure_square_colours(cal: Calibration, labelled_frames: Sequence[tuple[np.ndarray, LabelledFrame]],
                           tops: list[list[TopBody]] | None = None) -> SquareColours | None:
    """The players' colours square by square (``square_colours``) where they read the labelled
    tops' colours better than ``cal``'s own: a lamp mirrored in the glossy tops of a few squares
    makes the dark player's tops look grey there and plainly dark elsewhere, which no one pair
    of colours reads (on a tuning table of the held-out look the adapted storer-clear read dark
    plugs on two squares light at 0.9-0.99).  Where a square is so lit that both players' tops
    look alike there (white, on a Jr. tuning table), its two colours come close and its colour
    readings doubtful (``Recogniser._refs``), which is the truth.  Checked left out: measured on
    the frames past the first ``COLOUR_FRAMES`` and tried on those first ones
    (``colour_misreads``), kept (then measured on every frame) only when they read fewer of the
    tops' colours wrong there than ``cal``'s colours do, or no more and fewer of them wrong at
    the referee's commit confidence; else None.  ``tops``: the frames' ``top_bodies`` through
    ``cal`` when read already."""
    if tops is None:
        tops = top_bodies(cal, labelled_frames)
    squares = cal.board.squares
    check = labelled_frames[:COLOUR_FRAMES]
    if len(labelled_frames) <= COLOUR_FRAMES:
        return None
    trial = square_colours(cal.colour, squares, tops[COLOUR_FRAMES:])
    wrong, sure = colour_misreads(cal, check)
    if not wrong:
        return None
    wrong_sq, sure_sq = colour_misreads(dataclasses.replace(cal, square_colours=trial), check)
    if not (wrong_sq < wrong or (wrong_sq == wrong and sure_sq < sure)):
        return None
    return square_colours(cal.colour, squares, tops)


def colour_misreads(cal: Calibration, labelled_frames: Sequence[tuple[np.ndarray, LabelledFrame]]) -> tuple[int, int]:
    """How many labelled tops of ``labelled_frames`` ``cal``'s recogniser reads in the wrong
    colour, each taken at its true size, as a reading's colour is read (``sure_colour_of``), and
    how many of those with a colour confidence (``MaterialModel.colour_confidence``) at or
    above the referee's commit."""
    rec = Recogniser(cal, model=None, size_check=None)
    model = calibrated_model(cal).for_material(rec.material)
    commit = TrackerConfig.commit_confidence
    wrong = sure = 0
    for _, sq, (colour, size) in _labelled_tops(rec, labelled_frames):
        read, margin = rec.sure_colour_of(sq, size)
        if read != colour:
            wrong += 1
            sure += model.colour_confidence(margin) >= commit
    return wrong, sure


def reading_right(cal: Calibration, labelled_frames: Sequence[tuple[np.ndarray, LabelledFrame]],
                  model: SquareModel | str = "shipped") -> tuple[int, int]:
    """How many of the squares of ``labelled_frames`` (those not hidden) ``Recogniser(cal,
    model)`` reads whole right (empty, or the top's colour and size), and how many there are."""
    rec = Recogniser(cal, model)
    right = total = 0
    for image, item in labelled_frames:
        obs = rec.recognise(image)
        for reading, top, hidden in zip(obs.squares, item.tops, item.hidden):
            if hidden:
                continue
            total += 1
            right += (reading.top if reading.state != OCCLUDED else OCCLUDED) == top
    return right, total


def reading_accuracy(cal: Calibration, labelled_frames: Sequence[tuple[np.ndarray, LabelledFrame]],
                     model: SquareModel | str = "shipped") -> float:
    """Share of the squares of ``labelled_frames`` (those not hidden) whose whole reading (empty,
    or the top's colour and size) ``Recogniser(cal, model)`` gets right."""
    right, total = reading_right(cal, labelled_frames, model)
    return right / max(1, total)


def adapt(folder: str | Path, base: SquareModel, steps: int = STEPS, pull: float = PULL,
          table: bool = True) -> Adaptation:
    """Adapt to the frames of ``folder`` (every 4th frame kept apart to check).  With
    ``table`` (the default) the edge radii and the players' colours are measured on the
    frames first (``measure_edges``, ``measure_colours``, ``measure_square_colours``), then
    ``base``'s weights for the set's material trained on the frames' squares as the measured
    calibration reads them.  Each part is kept only where it reads better
    (``adapt``): the measured edge radii and the trained weights are each judged on more frames
    than the quarter kept apart, and the whole adapted calibration is kept when it reads the
    kept-apart frames at least as well as the folder's.  Without ``table``, only the weights
    are trained (as before the table was measured), and checked by the model's own choice on
    the kept-apart squares."""
    cal, truth = open_folder(folder)
    if not table:
        return _adapt_weights(folder, cal, base, steps, pull)
    usable = _Pictures(Path(folder), [item for item in truth if not any(item.hidden)])
    if len(usable) < 4:
        raise FramesFolderError(f"{folder}: {len(usable)} usable frames (nothing hidden); adapting needs at least 4")
    every = int(round(1 / HOLD_OUT))
    check = usable[::every]
    train = _Pictures(usable.folder, [f for k, f in enumerate(usable.items) if k % every], usable._kept)
    # frames learnt on that neither the edge radii nor the players' colours were chosen on
    # (``EDGE_FRAMES``, ``COLOUR_FRAMES``; the square colours are measured on them too): every
    # other one of those judges the edges and, left out of their training, the weights, beside
    # the frames kept apart
    later = list(range(KEPT_PICTURES, len(train)))[::2]
    start_model = calibrated_model(cal, base)
    material = "clear" if cal.pieces.clear else "opaque"
    start = start_model.for_material(material)
    edges = measure_edges(cal, train)
    measured = with_edge_scales(cal, edges)
    tops = top_bodies(measured, train)
    measured = dataclasses.replace(measured, colour=measure_colours(measured, train, tops))
    measured = dataclasses.replace(measured, square_colours=measure_square_colours(measured, train, tops))
    judging = _Pictures(train.folder, [train.items[k] for k in later], train._kept)

    def by_start(c: Calibration) -> tuple[tuple[int, int], int]:
        """``c`` read with the calibration's weights: squares right and read on the frames kept
        apart, and squares right on the later frames."""
        return reading_right(c, check, start_model), reading_right(c, judging, start_model)[0]

    start_check, start_later = by_start(measured)
    if edges != tuple(sc.edge_scale for sc in cal.sizes):
        kept_edges = with_edge_scales(measured, [sc.edge_scale for sc in cal.sizes])
        edges_check, edges_later = by_start(kept_edges)
        if edges_check[0] + edges_later > start_check[0] + start_later:
            # the calibration's edge radii read those frames better
            measured, start_check, start_later = kept_edges, edges_check, edges_later
    rec = Recogniser(measured, model=None, size_check=None)
    parts = [labelled(rec, image, item.tops) for image, item in train]
    if all(sq is None for sq in parts):
        raise FramesFolderError(f"{folder}: the board was found in none of the frames to adapt on")
    tuned = SquareModel({**base.materials, material: fine_tune(start, _merge([sq for sq in parts if sq is not None]),
                                                                steps, pull)})
    rest = [sq for k, sq in enumerate(parts) if sq is not None and k not in later]
    left_out = tuned if not later or not rest else SquareModel(
        {**base.materials, material: fine_tune(start, _merge(rest), steps, pull)})
    # the weights trained are kept only where they read better than the calibration's: on the
    # frames kept apart, and on the later ones through weights trained without them; a tie
    # keeps them where the square model sizes the tops (clear sets, as in play), not where the
    # walls do (solid sets: there they mend nothing and cost a square on a tuning table)
    tuned_check = reading_right(measured, check, tuned)
    trained = tuned_check[0] + reading_right(measured, judging, left_out)[0]
    kept = start_check[0] + start_later
    weights_help = trained > kept or (trained == kept and material in LEARNS_IN_PLAY)
    log.info("adapting %s: squares read right by the trained weights %d, by the calibration's %d", folder, trained,
             kept)
    model = tuned if weights_help else start_model
    weights = model.for_material(material)
    learnt = TableAdaptation(calibration_id(cal), material, tuple(sc.edge_scale for sc in measured.sizes),
                             measured.colour, weights, frames=len(usable), square_colours=measured.square_colours)
    before = _share(reading_right(cal, check, start_model))
    after = _share(tuned_check if weights_help else start_check)
    note = (f"{base.note}; adapted to {Path(folder).name} on {len(train)} frames "
            f"({100 * before:.2f} -> {100 * after:.2f} % of the squares of {len(check)} frames kept apart"
            f"{'' if weights_help else '; weights kept'})")
    learnt = dataclasses.replace(learnt, note=note)
    if after < before:
        return Adaptation(base, False, len(train), len(check), before, after, cal, None)
    return Adaptation(SquareModel({**base.materials, material: weights}, note), True, len(train), len(check),
                      before, after, adapted_calibration(cal, learnt), learnt, weights_help)


def _share(counts: tuple[int, int]) -> float:
    """Squares read right over squares read (``reading_right``)."""
    return counts[0] / max(1, counts[1])


def _adapt_weights(folder: str | Path, cal: Calibration, base: SquareModel, steps: int, pull: float) -> Adaptation:
    """``adapt`` of the square model's weights alone (``table=False``)."""
    _, material, per_frame = collect(folder)
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
    return Adaptation(model, better, len(train), len(check), before, after, cal, None)


class PlayLearner:
    """Learning from refereed play.  Every position the referee commits is a picture whose
    every top the game knows; after each, the recogniser's model becomes the calibration's
    own trained further on the last ``window`` of them (pulled towards the calibration's, and
    always started from it, so a run of bad pictures cannot drift it far).  A table's light
    and cups so teach the recogniser during the game.  The training runs on a thread of its
    own (about half a second of CPU), so the camera's frames keep being read meanwhile; the
    new weights replace the old in one assignment.  Kept in memory: a restart begins again
    from the calibration.

    Only the sets whose cup material is in ``LEARNS_IN_PLAY`` (clear cups) learn
    (``learns``): there the square model sizes the tops from their rims and learning mends
    about half of its misreads (Storer's set, 24 cameras of seed 7 in the held-out look: 6 ->
    3).  A solid set's tops are sized by their walls where their edges are faint or a size down
    (``Recogniser._faint_walls``, ``_wall_lifts``), which leaves the weights nothing to mend,
    and learning there only moved them off what they were fitted at (Gobblet, 24 cameras of
    seed 5: 5 misreads -> 6 after learning; seeds 7 and 13: the same), so a solid set's
    learner keeps the calibration's weights."""

    def __init__(self, recogniser: Recogniser, window: int = PLAY_WINDOW, steps: int = PLAY_STEPS,
                 pull: float = PULL) -> None:
        self.recogniser = recogniser
        self.start = recogniser.model
        self.learns = recogniser.material in LEARNS_IN_PLAY
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
        once; ``wait`` waits for the training.  Nothing for a set that does not learn
        (``learns``)."""
        ev = self.recogniser.last_evidence
        if not self.learns or self.start is None or ev is None:
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


ADAPTATION_FORMAT = "cupboard-adaptation"
ADAPTATION_VERSION = 1
ADAPTATION_FILE = "adaptation.json"  # its name in the data folder, beside calibration.json (read_through)


class AdaptationFileError(ValueError):
    """An adaptation file is missing, damaged or of another format or version; the message
    names the file and the problem."""


def adaptation_json(table: TableAdaptation) -> dict[str, object]:
    """``table`` as the versioned JSON object of an adaptation file (``parse_adaptation``)."""
    return {"format": ADAPTATION_FORMAT, "version": ADAPTATION_VERSION, "note": table.note,
            "calibration": table.calibration_id, "material": table.material, "frames": int(table.frames),
            "edge_scales": [round(float(f), 4) for f in table.edge_scales],
            "colour_model": dataclasses.asdict(table.colour),
            **({"square_colours": [[[round(v, 2) for v in bgr] for bgr in pair] for pair in table.square_colours]}
               if table.square_colours is not None else {}),
            "square_model": model_json(SquareModel({table.material: table.weights}, table.note))}


def save_adaptation(table: TableAdaptation, path: str | Path) -> None:
    """Write ``table`` to ``path`` (atomically: a crash leaves the old file or the new one)."""
    write_atomic(path, json.dumps(adaptation_json(table), separators=(",", ":")) + "\n", what="the adaptation")


def _bgr(value: object, where: str) -> tuple[float, float, float]:
    if (not isinstance(value, list) or len(value) != 3
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0.0 <= v <= 512.0 for v in value)):
        raise AdaptationFileError(f"{where}: expected three numbers from 0 to 512 (blue, green, red)")
    return tuple(float(v) for v in value)  # type: ignore[return-value]


def parse_adaptation(data: object, where: str) -> TableAdaptation:
    """Check and convert the JSON of an adaptation file; ``where`` names it in errors."""
    data = check_header(data, ADAPTATION_FORMAT, ADAPTATION_VERSION, where, AdaptationFileError,
                        " (adapt again: cupboard adapt --frames DIR)")
    ident, material = data.get("calibration"), data.get("material")
    if not isinstance(ident, str) or not ident:
        raise AdaptationFileError(f"{where}: 'calibration' must name the calibration it was adapted through")
    if material not in ("opaque", "clear"):
        raise AdaptationFileError(f"{where}: 'material' must be 'opaque' or 'clear', got {material!r}")
    scales = data.get("edge_scales")
    if (not isinstance(scales, list) or not scales
            or not all(isinstance(f, (int, float)) and not isinstance(f, bool) and 0.5 <= f <= 1.5 for f in scales)):
        raise AdaptationFileError(f"{where}: 'edge_scales' must list a number from 0.5 to 1.5 per size class")
    frames = data.get("frames", 0)  # optional: files written before it was kept have none
    if not isinstance(frames, int) or isinstance(frames, bool) or frames < 0:
        raise AdaptationFileError(f"{where}: 'frames' must be the number of frames it was adapted from")
    cm = data.get("colour_model")
    if not isinstance(cm, dict):
        raise AdaptationFileError(f"{where}: 'colour_model' must be an object")
    colour = ColourModel(*(_bgr(cm.get(k), f"{where}: colour_model.{k}") for k in ("board_bgr", "light_bgr", "dark_bgr")),
                         str(cm.get("source", "adapted")))
    squares = data.get("square_colours")  # optional: files written before it was measured have none
    if squares is not None:
        if not isinstance(squares, list) or not squares or not all(isinstance(p, list) and len(p) == 2 for p in squares):
            raise AdaptationFileError(f"{where}: 'square_colours' must list, per square, the light and the dark "
                                      "player's colour")
        squares = tuple((_bgr(p[0], f"{where}: square_colours[{i}][0]"), _bgr(p[1], f"{where}: square_colours[{i}][1]"))
                        for i, p in enumerate(squares))
    try:
        model = parse_model(data.get("square_model"), f"{where}: square_model")
        weights = model.for_material(material)
    except (ModelFileError, KeyError) as e:
        raise AdaptationFileError(str(e).strip('"')) from None
    return TableAdaptation(ident, material, tuple(float(f) for f in scales), colour, weights, str(data.get("note", "")),
                           frames, squares)


def load_adaptation(path: str | Path) -> TableAdaptation:
    """Read and check an adaptation file (``cupboard adapt`` writes one); every problem is an
    ``AdaptationFileError`` naming the file and what is wrong."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise AdaptationFileError(f"{path}: cannot read the adaptation ({e.strerror})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise AdaptationFileError(f"{path}: not valid JSON ({e})") from None
    return parse_adaptation(data, str(path))


@dataclass(frozen=True)
class AdaptationInUse:
    """What a camera reads through (``read_through``): ``calibration``, the calibration it was
    given with the adaptation ``table`` applied when that belongs to it (else the calibration
    as given, and ``table`` None), and ``status``, one line for the user saying which ("" when
    there is no adaptation file at all)."""

    calibration: Calibration
    table: TableAdaptation | None
    status: str

    @property
    def used(self) -> bool:
        """Whether the adaptation is applied."""
        return self.table is not None


def read_through(cal: Calibration, path: str | Path) -> AdaptationInUse:
    """``cal`` adapted by the adaptation file ``path`` (``cupboard adapt`` writes it), when
    there is one and it was made through ``cal``: what ``cupboard serve`` and ``watch`` read
    with.  A file of another calibration (the camera was calibrated again since) or a damaged
    one is not applied, and ``status`` says why and what to do; neither is an error, since the
    calibration alone still reads the board."""
    path = Path(path)
    if not path.exists():
        return AdaptationInUse(cal, None, "")
    try:
        table = load_adaptation(path)
        adapted = adapted_calibration(cal, table)
    except AdaptationFileError as e:
        return AdaptationInUse(cal, None, f"adaptation not used: {e}; reading with the calibration alone "
                                          "(adapt again: cupboard adapt)")
    except CalibrationError as e:
        return AdaptationInUse(cal, None, f"adaptation not used: {path}: {e}; reading with the calibration alone")
    frames = f"from {table.frames} frames" if table.frames else "from its frames"
    return AdaptationInUse(adapted, table, f"adapted to this table {frames} ({path})")
