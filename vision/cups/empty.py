"""Is the table clear?  The wizard's "empty table" step keeps one frame as the reader's
reference for the whole table, so a hand over it or a thing standing on it would be read ever
after as the table's normal look (and the hand detector would take its going for a change).
Before it is kept, the frame is checked against the still the play area was found on (its
containers may have held beans then, so only the table outside them is compared): the hand
detector's changed regions (``vision.hands``: the light's change fitted out, shade left
aside); one that reaches the edge of the view (an arm comes in from beyond) or is a hand's
size is a hand, a smaller one a thing standing there.

Beans left in a container are not checked yet: a bare floor is not smooth enough (a bowl's
curve, a rim's shadow under a low lamp) for a bean to stand out against the floor alone, and
the still may have held beans too.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.canvas import rectify
from hardware.cups.layout import CupsLayout

from .calibration import CupsCalibration
from .reader import CupsReader

THING_MM2 = 500.0  # a region outside the containers this large that differs is a thing (a 25 mm block)
HAND_MM2 = 5000.0  # ... and one this large (a palm and fingers, 60 x 85 mm) is a hand
SHADE_SHARE = 0.8  # ... unless this much of it only went darker, keeping its tint: a shadow


@dataclass(frozen=True)
class EmptyCheck:
    """What the empty-table frame shows that it should not: ``hand`` when a hand is over the
    table, ``things`` the table points (mm) where something stands.  ``problems`` says it in
    words."""

    hand: bool
    things: tuple[tuple[float, float], ...]
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """True when the frame can be the empty table."""
        return not self.problems


def check_empty_table(layout: CupsLayout, calibration: CupsCalibration, still: np.ndarray,
                      frame: np.ndarray, names: list[str]) -> EmptyCheck:
    """Check ``frame`` as the empty table of ``layout``: no hand, nothing standing on the table
    outside the containers (against ``still``, a frame of the same table without a hand).
    ``names`` names the containers in the layout's order (for where a thing stands)."""
    reader = CupsReader(layout, calibration, still)
    hand, things = _outside(reader, frame)
    problems = []
    if hand:
        problems.append("a hand is over the table")
    for x, y in things:
        near = _nearest(layout, x, y, names)
        problems.append(f"something stands on the table at {x:.0f} mm from South's left, {y:.0f} mm toward "
                        f"North ({near})")
    return EmptyCheck(hand, tuple(things), tuple(problems))


def _nearest(layout: CupsLayout, x: float, y: float, names: list[str]) -> str:
    d = [np.hypot(c.x_mm - x, c.y_mm - y) - c.radius_mm for c in layout.containers]
    k = int(np.argmin(d))
    return f"by {names[k]}"


def _outside(reader: CupsReader, frame: np.ndarray) -> tuple[bool, list[tuple[float, float]]]:
    """A hand over the table, and the points where things stand, outside the containers."""
    det = reader.hand_detector
    change = det.changed(rectify(frame, reader.hand_maps))
    changed = change.mask & (reader.container_area == 0)
    if not changed.any():
        return False, []
    changed = cv2.morphologyEx(changed.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(changed, connectivity=8)
    shade = None
    hand, things = False, []
    h, w = changed.shape
    s = det.size[0] / w  # hand-view pixels per small pixel
    for k in range(1, n):
        mm2 = stats[k, cv2.CC_STAT_AREA] * det.mm2_per_px
        if mm2 < THING_MM2:
            continue
        if shade is None:
            shade = change.shade()
        if (shade[labels == k] > 0).mean() > SHADE_SHARE:
            continue
        x0, y0 = stats[k, cv2.CC_STAT_LEFT], stats[k, cv2.CC_STAT_TOP]
        x1, y1 = x0 + stats[k, cv2.CC_STAT_WIDTH], y0 + stats[k, cv2.CC_STAT_HEIGHT]
        if mm2 >= HAND_MM2 or x0 == 0 or y0 == 0 or x1 == w or y1 == h:  # an arm comes in from beyond
            hand = True
            continue
        cx, cy = reader.hand_canvas.to_mm(np.array([centroids[k]]) * s)[0]
        things.append((float(cx), float(cy)))
    return hand, things
