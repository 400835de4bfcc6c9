"""Is anything moving in front of the camera?  Frame differencing on a small, blurred copy.

Two things that are not motion are ignored: the light changing (mains flicker, a cloud) —
each thumbnail is scaled to the previous one's mean brightness before comparing — and a
single odd frame (a transfer glitch) — a frame that matches the one before the odd one is
still.

Where it changed also tells where something happened: a cup cannot come or go on a square
whose picture stayed the same, whatever the recogniser reads there (``squares_changed``).
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.model import Calibration
from hardware.camera_model import CameraPose, project

THUMB_WIDTH = 160


class MotionDetector:
    """Compares each frame with the previous ones; motion is a share of changed pixels."""

    def __init__(self, threshold: int = 18, min_fraction: float = 0.004) -> None:
        self.threshold = threshold
        self.min_fraction = min_fraction
        self._previous: np.ndarray | None = None
        self._before: np.ndarray | None = None  # the frame before the previous one
        # the thumbnail's pixels that changed since the previous frame, when it moved
        self.changed: np.ndarray | None = None

    def update(self, image: np.ndarray) -> bool:
        """True when ``image`` differs from the previous frame by more than noise and light,
        and is not merely back to how things were before a one-frame glitch."""
        self.changed = None
        h, w = image.shape[:2]
        small = cv2.resize(image, (THUMB_WIDTH, max(1, h * THUMB_WIDTH // w)), interpolation=cv2.INTER_AREA)
        grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0).astype(np.float32)
        previous, before = self._previous, self._before
        self._before, self._previous = previous, grey
        if previous is None or previous.shape != grey.shape:
            return False
        changed = self._changed(grey, previous)
        if changed.mean() <= self.min_fraction:
            return False
        if before is not None and before.shape == grey.shape and self._changed(grey, before).mean() <= self.min_fraction:
            return False
        self.changed = changed
        return True

    def _changed(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        gain = float(b.mean()) / max(float(a.mean()), 1.0)
        return np.abs(a * gain - b) > self.threshold


def square_masks(calibration: Calibration, pose: CameraPose, image_size: tuple[int, int]) -> list[np.ndarray]:
    """Per square, the pixels of a ``MotionDetector`` thumbnail of an ``image_size`` (w, h)
    frame where a cup on that square shows: the middle of the square on the board and the
    same region raised to the tallest cup's top."""
    w, h = image_size
    scale = THUMB_WIDTH / w
    shape = (max(1, h * THUMB_WIDTH // w), THUMB_WIDTH)
    board = calibration.board
    top = calibration.pieces.sizes[-1].height_mm
    half = board.square_mm * 0.35
    corners = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    masks = []
    for sq in range(board.squares):
        c = np.asarray(board.square_centre(sq)) + corners
        pts = np.vstack([np.c_[c, np.zeros(4)], np.c_[c, np.full(4, top)]])
        px = project(pts, calibration.intrinsics, pose) * scale
        m = np.zeros(shape, np.uint8)
        cv2.fillConvexPoly(m, np.round(cv2.convexHull(px.astype(np.float32))).astype(np.int32), 1)
        masks.append(m.astype(bool))
    return masks


def squares_changed(changed: np.ndarray | None, masks: list[np.ndarray], share: float = 0.05) -> list[int]:
    """The squares whose region (``square_masks``) changed in more than ``share`` of it."""
    if changed is None:
        return []
    return [sq for sq, m in enumerate(masks) if m.any() and changed[m].mean() > share]
