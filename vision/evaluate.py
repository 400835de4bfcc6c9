"""Measuring recognition on rendered boards: accuracy per square and per board, the
confusion of size x colour, and time per frame."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from calibration import calibrate
from hardware.pieces import load_board, load_piece_set
from hardware.synthetic import empty_scene, random_scene, render_scene

from .observation import OCCLUDED
from .recognise import Recogniser


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
    wrong_labels: int = 0
    said_occluded: int = 0
    confusion: Counter = field(default_factory=Counter)
    ms: list[float] = field(default_factory=list)
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


def _label(top, sizes: int) -> str:
    if top is None:
        return "empty"
    if top == OCCLUDED:
        return "occl"
    return f"{'LD'[top[0]]}{top[1] + 1}"


def evaluate(piece_set: str, boards: int, seed: int = 0, per_camera: int = 10, hands: int = 0,
             board_name: str | None = None, progress=None) -> EvalResult:
    """Render ``boards`` random positions of ``piece_set`` (``per_camera`` positions per random
    camera; each camera calibrated from two rendered empty-board frames), recognise them
    and count.  With ``hands`` > 0 each frame has that many hands over the board; a square a
    hand hides counts as right if read as occluded or read correctly."""
    pieces = load_piece_set(piece_set)
    board = load_board(board_name or pieces.default_board)
    res = EvalResult(pieces.name, board.name)
    n_cams = -(-boards // per_camera)
    done = 0
    for cam in range(n_cams):
        cam_seed = seed * 1_000_003 + cam * 7919
        base = random_scene(pieces, board, cam_seed)
        empty = empty_scene(base)
        try:
            cal = calibrate([render_scene(empty, cam_seed + 1)[0], render_scene(empty, cam_seed + 2)[0]], pieces, board)
        except ValueError:
            res.calibrations_failed += 1
            continue
        rec = Recogniser(cal)
        for j in range(min(per_camera, boards - done)):
            sc = random_scene(pieces, board, cam_seed + 100 + j, intrinsics=base.intrinsics, pose=base.pose,
                              hands=hands)
            image, truth = render_scene(sc, cam_seed + 200 + j)
            t0 = time.perf_counter()
            obs = rec.recognise(image)
            res.ms.append((time.perf_counter() - t0) * 1000)
            all_right = True
            for sq, (reading, top, occl) in enumerate(zip(obs.squares, truth.tops, truth.occluded)):
                got = reading.top if reading.state != OCCLUDED else OCCLUDED
                right = got == top or (occl and got == OCCLUDED)
                if occl:
                    res.occluded_truth += 1
                if got == OCCLUDED:
                    res.said_occluded += 1
                elif got != top:
                    res.wrong_labels += 1
                if top is None:
                    res.empty += 1
                    res.empty_right += right
                else:
                    res.occupied += 1
                    res.occupied_right += right
                all_right &= right
                res.confusion[(_label(top, len(pieces.sizes)), _label(got, len(pieces.sizes)))] += 1
            res.boards += 1
            res.boards_right += all_right
            done += 1
            if progress:
                progress(done, boards)
    return res


def format_result(res: EvalResult) -> str:
    """The report printed by ``cupboard vision-eval`` and ``bench/vision.py``."""
    ms = np.array(res.ms) if res.ms else np.zeros(1)
    lines = [
        f"== {res.piece_set} on {res.board}: {res.boards} boards",
        f"per-square accuracy  {100 * res.square_accuracy:7.3f} %  "
        f"(occupied {res.occupied_right}/{res.occupied} = {100 * res.occupied_right / max(1, res.occupied):.3f} %, "
        f"empty {res.empty_right}/{res.empty} = {100 * res.empty_right / max(1, res.empty):.3f} %)",
        f"whole-board accuracy {100 * res.board_accuracy:7.3f} %  ({res.boards_right}/{res.boards})",
        f"wrong labels {res.wrong_labels}, read as occluded {res.said_occluded}, hidden by hands in truth "
        f"{res.occluded_truth}, calibrations failed {res.calibrations_failed}",
        f"ms per frame         median {np.median(ms):.1f}, p95 {np.percentile(ms, 95):.1f} "
        f"({ms.size} frames of 1280x720, one thread)",
    ]
    labels_t = sorted({t for t, _ in res.confusion}, key=_order)
    labels_p = sorted({p for _, p in res.confusion} | set(labels_t), key=_order)
    lines.append("confusion (rows truth, columns recognised):")
    lines.append("       " + "".join(f"{p:>7}" for p in labels_p))
    for t in labels_t:
        lines.append(f"{t:>7}" + "".join(f"{res.confusion.get((t, p), 0):>7}" for p in labels_p))
    return "\n".join(lines)


def _order(label: str) -> tuple[int, str]:
    return ({"empty": 0, "occl": 9}.get(label, 1), label)
