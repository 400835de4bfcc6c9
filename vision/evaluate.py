"""Measuring recognition on rendered boards: accuracy per square and per board, the
confusion of size x colour, how well confidence predicts errors, hands, and time per frame.

Each camera is a fresh random one (height, tilt, rotation, camera module) calibrated from
one rendered frame of its empty board; ``per_camera`` positions are then read through it,
each under its own random light and picture defects, with the board sometimes nudged.  The
table and the board's wood stay those of the calibration: they are the same furniture.
"""

from __future__ import annotations

import functools
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from calibration import Calibration, calibrate
from hardware.pieces import BoardSpec, PieceSet, load_board, load_piece_set
from hardware.synthetic import (
    GroundTruth,
    Scene,
    empty_scene,
    nudged,
    random_scene,
    render_scene,
)
from hardware.render.scene import centred_offsets, random_offsets

from .frames_folder import frames as folder_frames
from .frames_folder import open_folder
from .observation import OCCLUDED, Observation
from .recognise import Recogniser
from .set_measure import measure_set, set_layout
from .tracking import TrackerConfig
from .size_check import SizeCheck
from .square_model import SquareModel

COMMIT = TrackerConfig.commit_confidence  # readings at or above it are what the referee acts on
# upper edges of the confidence bins of the reliability table
CONF_BINS = (0.2, 0.4, 0.5, 0.6, 0.8, 0.9, 1.0001)


@dataclass
class EvalResult:
    """Counts from one evaluation run of one piece set."""

    piece_set: str
    board: str
    boards: int = 0
    boards_right: int = 0
    occupied: int = 0
    occupied_right: int = 0
    empty: int = 0
    empty_right: int = 0
    occluded_truth: int = 0
    occluded_truth_said: int = 0
    wrong_labels: int = 0
    wrong_under_hand: int = 0
    said_occluded: int = 0
    false_occluded: int = 0
    # of those, squares with no hidden square beside them either: no hand near
    occluded_no_hand_near: int = 0
    false_hand_frames: int = 0
    hand_frames: int = 0
    hand_frames_seen: int = 0
    confusion: Counter = field(default_factory=Counter)
    ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    conf_right: list[tuple[float, bool]] = field(default_factory=list)
    # the same for the readings that said "empty" (a missed cup is one of these)
    empty_conf_right: list[tuple[float, bool]] = field(default_factory=list)
    heights: list[float] = field(default_factory=list)
    models: Counter = field(default_factory=Counter)
    calibrations_failed: int = 0

    @property
    def square_accuracy(self) -> float:
        """Share of squares read exactly right."""
        n = self.occupied + self.empty
        return (self.occupied_right + self.empty_right) / n if n else 0.0

    @property
    def board_accuracy(self) -> float:
        """Share of boards with every square right."""
        return self.boards_right / self.boards if self.boards else 0.0

    def count(self, obs: Observation, tops: Sequence, occluded: Sequence[bool], cols: int | None = None) -> None:
        """Count one recognised frame against its truth: per square the top (colour, size
        class) or None, and whether something hides it (a hidden square is right if read
        as occluded or read correctly).  ``cols``: the board's columns, to tell a square said
        occluded with no hand near (no hidden square beside it) from one a hand touches."""
        any_occl = any(occluded)
        self.hand_frames += any_occl
        self.hand_frames_seen += any_occl and obs.hand
        self.false_hand_frames += (not any_occl) and obs.hand
        all_right = True
        for sq, (reading, top, occl) in enumerate(zip(obs.squares, tops, occluded)):
            got = reading.top if reading.state != OCCLUDED else OCCLUDED
            right = got == top or (occl and got == OCCLUDED)
            if occl:
                self.occluded_truth += 1
                self.occluded_truth_said += got == OCCLUDED
            if got == OCCLUDED:
                self.said_occluded += 1
                self.false_occluded += not occl
                if cols and not occl and not _hidden_beside(occluded, sq, cols):
                    self.occluded_no_hand_near += 1
            else:
                self.conf_right.append((reading.confidence, got == top))
                if got is None:
                    self.empty_conf_right.append((reading.confidence, got == top))
                if got != top:
                    self.wrong_labels += 1
                    self.wrong_under_hand += occl
            if top is None:
                self.empty += 1
                self.empty_right += right
            else:
                self.occupied += 1
                self.occupied_right += right
            all_right &= right
            self.confusion[(top_label(top), top_label(got))] += 1
        self.boards += 1
        self.boards_right += all_right

    @property
    def confidently_wrong(self) -> int:
        """Readings wrong at or above the confidence the referee commits moves at."""
        return sum(1 for c, ok in self.conf_right if c >= COMMIT and not ok)

    def reliability(self) -> list[tuple[float, float, int, int]]:
        """Per confidence bin of the labelled (not occluded) readings: (low edge, high edge,
        readings, right)."""
        out = []
        lo = 0.0
        arr = np.array([c for c, _ in self.conf_right]) if self.conf_right else np.zeros(0)
        ok = np.array([r for _, r in self.conf_right], bool) if self.conf_right else np.zeros(0, bool)
        for hi in CONF_BINS:
            m = (arr >= lo) & (arr < hi)
            out.append((lo, min(hi, 1.0), int(m.sum()), int(ok[m].sum())))
            lo = hi
        return out


@dataclass(frozen=True)
class BenchCamera:
    """One random camera of an evaluation: its empty-board scene, the calibration made from a
    rendered frame of it (None if that failed) and the frames rendered through it, each with
    its ground truth."""

    base: Scene
    calibration: Calibration | None
    frames: list[tuple[np.ndarray, GroundTruth]]


def bench_cameras(pieces: PieceSet, board: BoardSpec, boards: int, seed: int = 0, per_camera: int = 2,
                  hands: int = 0, hand_share: float = 1.0, nudge: bool = True,
                  first_camera: int = 0, measure: bool = False, style: str = "polygon") -> Iterator[BenchCamera]:
    """The cameras and frames ``evaluate`` reads (its arguments mean the same), camera by
    camera: deterministic for a seed, so two recognisers can be timed on the same frames.
    With ``measure`` each calibration also measures the set as the wizard does
    (``vision.set_measure``), on a frame of the set's layout under the camera's own light.
    ``style`` is the renderer's look (``hardware.synthetic.STYLES``): in the ``shaded`` one a
    camera's table keeps its look (wood, finishes, lamps) for all its frames."""
    done = 0
    for cam in range(first_camera, first_camera + -(-boards // per_camera)):
        cam_seed = seed * 1_000_003 + cam * 7919
        base = random_scene(pieces, board, cam_seed, style=style)
        try:
            cal = calibrate([render_scene(empty_scene(base), cam_seed + 1)[0]], pieces, board,
                            intrinsics=base.intrinsics, intrinsics_source=f"nominal {base.intrinsics.model}")
            if measure:
                cal = measure_set(cal, render_scene(layout_scene(base, board.squares), cam_seed + 2)[0]).calibration
        except ValueError:
            yield BenchCamera(base, None, [])
            continue
        frames = []
        for j in range(min(per_camera, boards - done)):
            rng = np.random.default_rng(cam_seed + 300 + j)
            with_hands = hands if rng.random() < hand_share else 0
            sc = random_scene(pieces, board, cam_seed + 100 + j, intrinsics=base.intrinsics, pose=base.pose,
                              hands=with_hands, style=style)
            pose = base.pose
            if nudge and rng.random() < 0.5:
                pose = nudged(pose, rng.uniform(-8, 8), rng.uniform(-8, 8), rng.uniform(-3, 3),
                              (board.width_mm / 2, board.depth_mm / 2))
            sc = replace(sc, pose=pose, table_bgr=base.table_bgr, texture_variant=base.texture_variant,
                         look=base.look)
            frames.append(render_scene(sc, cam_seed + 200 + j))
        done += len(frames)
        yield BenchCamera(base, cal, frames)


def layout_scene(base: Scene, seed: int | None) -> Scene:
    """``base`` with one cup of each size in both colours where the wizard asks for them
    (``set_layout``), no hands; the cups a little off-centre as a person puts them (offsets
    drawn from ``seed``), or centred for ``None``."""
    position = [() for _ in range(base.board.squares)]
    for c in set_layout(base.board, base.pieces):
        position[c.square] = ((c.colour, c.size),)
    pos = tuple(position)
    offsets = (centred_offsets(pos) if seed is None
               else random_offsets(base.board, base.pieces, pos, np.random.default_rng(seed)))
    return replace(base, position=pos, offsets=offsets, hands=())


def _hidden_beside(occluded: Sequence[bool], sq: int, cols: int) -> bool:
    """True when a square next to ``sq`` (diagonals too) on a board of ``cols`` columns is hidden."""
    r, c = divmod(sq, cols)
    rows = len(occluded) // cols
    return any(occluded[rr * cols + cc] for rr in range(max(0, r - 1), min(rows, r + 2))
               for cc in range(max(0, c - 1), min(cols, c + 2)) if (rr, cc) != (r, c))


def top_label(top) -> str:
    """A top as the confusion table names it: ``empty``, ``occl`` or colour and size (``D3``)."""
    if top is None:
        return "empty"
    if top == OCCLUDED:
        return "occl"
    return f"{'LD'[top[0]]}{top[1] + 1}"


def _on_one_thread(fn):
    """``fn`` run with OpenCV's work on the calling thread only, so that the thread's CPU time
    per frame is all of a frame's work, as on one core (by default OpenCV spreads some
    functions over worker threads, whose time ``time.thread_time`` does not see)."""
    @functools.wraps(fn)
    def on_one_thread(*args, **kwargs):
        threads = cv2.getNumThreads()
        cv2.setNumThreads(1)
        try:
            return fn(*args, **kwargs)
        finally:
            cv2.setNumThreads(threads)
    return on_one_thread


@_on_one_thread
def evaluate(piece_set: str, boards: int, seed: int = 0, per_camera: int = 2, hands: int = 0,
             board_name: str | None = None, progress=None, hand_share: float = 1.0,
             nudge: bool = True, observer=None, model: SquareModel | None | str = "shipped",
             first_camera: int = 0, size_check: SizeCheck | None | str = "shipped",
             measure: bool = False, style: str = "polygon") -> EvalResult:
    """Render ``boards`` random positions of ``piece_set`` (``per_camera`` positions per random
    camera, each camera calibrated from a rendered frame of its empty board), recognise them
    and count.  With ``hands`` > 0, a share ``hand_share`` of the frames has that many hands
    over the board; a square a hand hides counts as right if read as occluded or read
    correctly.  ``observer(recogniser, observation, truth)``, if given, sees every frame (the
    model's fit collects its evidence that way); ``model`` and ``size_check`` are passed to
    ``Recogniser``.
    ``first_camera`` skips that many cameras of the seed's sequence, so a long run can be
    done (and kept) in parts that together give the same boards as one run.  ``measure``:
    calibrate as the wizard does, with the set measured; ``style``: the renderer's look (both
    as in ``bench_cameras``)."""
    pieces = load_piece_set(piece_set)
    board = load_board(board_name or pieces.default_board)
    res = EvalResult(pieces.name, board.name)
    done = 0
    for camera in bench_cameras(pieces, board, boards, seed, per_camera, hands, hand_share, nudge, first_camera,
                                measure, style):
        if camera.calibration is None:
            res.calibrations_failed += 1
            continue
        base = camera.base
        res.heights.append(base.pose.height)
        res.models[base.intrinsics.model] += 1
        rec = Recogniser(camera.calibration, model, size_check)
        for image, truth in camera.frames:
            t0, c0 = time.perf_counter(), time.thread_time()
            obs = rec.recognise(image)
            res.ms.append((time.perf_counter() - t0) * 1000)
            res.cpu_ms.append((time.thread_time() - c0) * 1000)
            if observer is not None:
                observer(rec, obs, truth)
            res.count(obs, truth.tops, truth.occluded, board.cols)
            done += 1
            if progress:
                progress(done, boards)
    return res


@_on_one_thread
def evaluate_folder(folder: str | Path, model: SquareModel | None | str = "shipped",
                    calibration: Calibration | None = None) -> EvalResult:
    """Recognise every frame of a frames folder (``vision.frames_folder``: the user's own
    photos, or frames the referee kept) through its calibration, or through ``calibration``
    (the folder's adapted to it, ``vision.adapt.adapted_calibration``), and count against its truth."""
    cal, _ = open_folder(folder)
    cal = calibration or cal
    res = EvalResult(cal.pieces.name, cal.board.name)
    res.heights.append(cal.camera_height_mm)
    res.models[cal.intrinsics.model or "?"] += 1
    rec = Recogniser(cal, model)
    for image, item in folder_frames(folder):
        t0, c0 = time.perf_counter(), time.thread_time()
        obs = rec.recognise(image)
        res.ms.append((time.perf_counter() - t0) * 1000)
        res.cpu_ms.append((time.thread_time() - c0) * 1000)
        res.count(obs, item.tops, item.hidden, cal.board.cols)
    return res


def format_result(res: EvalResult) -> str:
    """The report printed by ``cupboard vision-eval`` and ``bench/vision.py``."""
    ms = np.array(res.ms) if res.ms else np.zeros(1)
    cpu = np.array(res.cpu_ms) if res.cpu_ms else np.zeros(1)
    hs = np.array(res.heights) if res.heights else np.zeros(1)
    lines = [
        f"== {res.piece_set} on {res.board}: {res.boards} boards, {len(res.heights)} cameras "
        f"({', '.join(f'{m} {n}' for m, n in sorted(res.models.items()))}; height {hs.min():.0f}-{hs.max():.0f} mm)",
        f"per-square accuracy  {100 * res.square_accuracy:7.3f} %  "
        f"(occupied {res.occupied_right}/{res.occupied} = {100 * res.occupied_right / max(1, res.occupied):.3f} %, "
        f"empty {res.empty_right}/{res.empty} = {100 * res.empty_right / max(1, res.empty):.3f} %)",
        f"whole-board accuracy {100 * res.board_accuracy:7.3f} %  ({res.boards_right}/{res.boards})",
        f"wrong labels {res.wrong_labels}, read as occluded {res.said_occluded} (of them not hidden "
        f"{res.false_occluded}, with no hidden square beside them {res.occluded_no_hand_near}), "
        f"calibrations failed {res.calibrations_failed}",
        f"hands: {res.hand_frames} frames with hidden squares, hand seen in {res.hand_frames_seen} "
        f"(missed in {res.hand_frames - res.hand_frames_seen}); "
        f"hand reported in {res.false_hand_frames} hand-free frames; hidden squares {res.occluded_truth}, "
        f"said occluded {res.occluded_truth_said}, wrong labels under a hand {res.wrong_under_hand}",
        f"ms per frame         median {np.median(ms):.1f}, p95 {np.percentile(ms, 95):.1f} wall; "
        f"CPU median {np.median(cpu):.1f}, p95 {np.percentile(cpu, 95):.1f} ({ms.size} frames of 1280x720, one thread)",
        "reliability (labelled squares): confidence bin  readings  right",
    ]
    for lo, hi, n, ok in res.reliability():
        if n:
            lines.append(f"    [{lo:.2f}, {hi:.2f})  {n:7d}  {100 * ok / n:7.2f} %")
    for name, pairs in (("all labels", res.conf_right), ("said empty", res.empty_conf_right)):
        sure = [ok for c, ok in pairs if c >= 0.8]
        lines.append(f"confidence >= 0.8, {name}: {len(sure)} of {len(pairs)} readings, "
                     f"{100 * sum(sure) / max(1, len(sure)):.2f} % right")
    squares = res.occupied + res.empty
    lines.append(f"confidently wrong (confidence >= {COMMIT}): {res.confidently_wrong} of {squares} squares "
                 f"({100 * res.confidently_wrong / max(1, squares):.3f} %)")
    labels_t = sorted({t for t, _ in res.confusion}, key=_order)
    labels_p = sorted({p for _, p in res.confusion} | set(labels_t), key=_order)
    lines.append("confusion (rows truth, columns recognised):")
    lines.append("       " + "".join(f"{p:>7}" for p in labels_p))
    for t in labels_t:
        lines.append(f"{t:>7}" + "".join(f"{res.confusion.get((t, p), 0):>7}" for p in labels_p))
    return "\n".join(lines)


def _order(label: str) -> tuple[int, str]:
    return ({"empty": 0, "occl": 9}.get(label, 1), label)
