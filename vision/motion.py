"""Is anything moving in front of the camera?  Frame differencing on a small, blurred copy."""

from __future__ import annotations

import cv2
import numpy as np

THUMB_WIDTH = 160


class MotionDetector:
    """Compares each frame with the previous one; motion is a share of changed pixels."""

    def __init__(self, threshold: int = 18, min_fraction: float = 0.004) -> None:
        self.threshold = threshold
        self.min_fraction = min_fraction
        self._previous: np.ndarray | None = None

    def update(self, image: np.ndarray) -> bool:
        """True when ``image`` differs from the previous frame by more than noise."""
        h, w = image.shape[:2]
        small = cv2.resize(image, (THUMB_WIDTH, max(1, h * THUMB_WIDTH // w)), interpolation=cv2.INTER_AREA)
        grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0)
        previous, self._previous = self._previous, grey
        if previous is None or previous.shape != grey.shape:
            return False
        changed = cv2.absdiff(grey, previous) > self.threshold
        return bool(changed.mean() > self.min_fraction)
