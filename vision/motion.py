"""Is anything moving in front of the camera?  Frame differencing on a small, blurred copy.

Two things that are not motion are ignored: the light changing (mains flicker, a cloud) —
each thumbnail is scaled to the previous one's mean brightness before comparing — and a
single odd frame (a transfer glitch) — a frame that matches the one before the odd one is
still.
"""

from __future__ import annotations

import cv2
import numpy as np

THUMB_WIDTH = 160


class MotionDetector:
    """Compares each frame with the previous ones; motion is a share of changed pixels."""

    def __init__(self, threshold: int = 18, min_fraction: float = 0.004) -> None:
        self.threshold = threshold
        self.min_fraction = min_fraction
        self._previous: np.ndarray | None = None
        self._before: np.ndarray | None = None  # the frame before the previous one

    def update(self, image: np.ndarray) -> bool:
        """True when ``image`` differs from the previous frame by more than noise and light,
        and is not merely back to how things were before a one-frame glitch."""
        h, w = image.shape[:2]
        small = cv2.resize(image, (THUMB_WIDTH, max(1, h * THUMB_WIDTH // w)), interpolation=cv2.INTER_AREA)
        grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0).astype(np.float32)
        previous, before = self._previous, self._before
        self._before, self._previous = previous, grey
        if previous is None or previous.shape != grey.shape:
            return False
        if not self._differs(grey, previous):
            return False
        return before is None or before.shape != grey.shape or self._differs(grey, before)

    def _differs(self, a: np.ndarray, b: np.ndarray) -> bool:
        gain = float(b.mean()) / max(float(a.mean()), 1.0)
        changed = np.abs(a * gain - b) > self.threshold
        return bool(changed.mean() > self.min_fraction)
