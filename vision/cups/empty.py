"""Is the table clear?  The wizard's "empty table" step keeps one frame as the reader's
reference for the whole table, so a hand over it or a thing standing on it would be read ever
after as the table's normal look (and the hand detector would take its going for a change).
Before it is kept, the frame is checked against the still the play area was found on (its
containers may have held beans then, so only the table outside them is compared): the hand
detector's changed regions (``vision.hands``: the light's change fitted out, shade left
aside); one that reaches the edge of the view (an arm comes in from beyond) or is a hand's
size is a hand, a smaller one a thing standing there.

Beans left in a container: no picture of that container empty exists yet (the still may have
held beans too), so a bean has to stand out against the floor alone.  A bare floor is not flat
(a bowl's curve, a rim's shadow under a low lamp), but its changes are edges and slopes; a bean
is a blob of a bean's size.  The blob response (the scale-normalised determinant of the
Hessian of the log picture, at a bean's scale, in the floor seen through the rim) is high only
for blobs: an edge has one flat direction and gives next to nothing.  A blob that strong
(``BEAN_BLOB``) is a bean for sure, and the frame is refused.

A weaker sign is only a doubt, told to the player as a warning ("a bean may be left in ... —
check") while the frame is taken: a refusal with no bean there would stop the wizard for good
(the still-based sign below named a bare held-out table, seed 8010 cups-6 daylight).  The
doubt: where the floor is unlike the still's (the wizard's first picture, the start's empty
cups as a rule) in a blob of ``CAME_AREA`` of a bean, the frame's blob response there beats
the still's by ``CAME_BLOB`` (a bean came; one taken out leaves the still's the stronger).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.canvas import rectify
from hardware.cups.layout import CupsLayout

from .calibration import CupsCalibration
from .reader import PPM, CupsReader

THING_MM2 = 500.0  # a region outside the containers this large that differs is a thing (a 25 mm block)
HAND_MM2 = 5000.0  # ... and one this large (a palm and fingers, 60 x 85 mm) is a hand
SHADE_SHARE = 0.8  # ... unless this much of it only went darker, keeping its tint: a shadow
# a container's floor holds a bean when its blob response reaches this: on the rendered empty
# tables of seeds 10-15 (both layouts and looks) no floor passed 0.89, where one or two beans
# left gave up to 2.0 (a bean under the rim or pale on a pale floor gives little); on seeds
# 16-21, held out, no empty floor passed 0.97 and 14 of 24 tables with beans left were found
BEAN_BLOB = 1.0
# a doubt (a warning, not a refusal): a blob of CAME_AREA of a bean or more where the floor is
# unlike the still's, CAME_BLOB stronger than the still's there (worked out on seeds 16-21)
CAME_AREA = 0.125
CAME_BLOB = 0.42


@dataclass(frozen=True)
class EmptyCheck:
    """What the empty-table frame shows that it should not: ``hand`` when a hand is over the
    table, ``things`` the table points (mm) where something stands, ``beans`` the containers
    that surely still hold beans.  ``problems`` says it in words (the frame is refused);
    ``doubts`` are the containers where a bean may be left, ``warnings`` says so in words (the
    frame is taken, the player is asked to check)."""

    hand: bool
    things: tuple[tuple[float, float], ...]
    problems: tuple[str, ...]
    beans: tuple[int, ...] = ()  # the containers (layout order) where beans were left
    doubts: tuple[int, ...] = ()  # the containers (layout order) where a bean may be left
    warnings: tuple[str, ...] = ()

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
    beans, doubts = ([], []) if hand else beans_left(reader, frame, still)
    for k in beans:
        problems.append(f"beans are still in {names[k]}")
    for x, y in things:
        near = _nearest(layout, x, y, names)
        problems.append(f"something stands on the table at {x:.0f} mm from South's left, {y:.0f} mm toward "
                        f"North ({near})")
    warnings = tuple(f"a bean may be left in {names[k]}: check it is empty" for k in doubts)
    return EmptyCheck(hand, tuple(things), tuple(problems), tuple(beans), tuple(doubts), warnings)


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


def _blob_maps(reader: CupsReader, frame: np.ndarray) -> list[np.ndarray | None]:
    """Per container (layout order), its view's blob response map (see ``blob_response``),
    None where its floor is out of view."""
    sigma = reader.cal.bean_mm / 2 * PPM / np.sqrt(2)  # a blob of a bean's radius
    out: list[np.ndarray | None] = []
    for v in reader.views:
        floor = cv2.erode(v.mask_u8, np.ones((5, 5), np.uint8)) > 0  # not the wall's own edge
        if not floor.any():
            out.append(None)
            continue
        logs = np.log(rectify(frame, v.maps).astype(np.float32) + 24.0)
        best = np.zeros(floor.shape, np.float32)
        for c in range(3):
            g = cv2.GaussianBlur(logs[..., c], (0, 0), sigma)
            gxx = cv2.Sobel(g, cv2.CV_32F, 2, 0, ksize=3)
            gyy = cv2.Sobel(g, cv2.CV_32F, 0, 2, ksize=3)
            gxy = cv2.Sobel(g, cv2.CV_32F, 1, 1, ksize=3)
            best = np.maximum(best, (gxx * gyy - gxy * gxy) * sigma ** 4)
        out.append(np.sqrt(np.maximum(best, 0.0)) * floor)
    return out


def blob_response(reader: CupsReader, frame: np.ndarray) -> list[float]:
    """Per container (layout order), the strongest bean-sized blob on its floor as the camera
    sees it through the rim: the square root of the scale-normalised determinant of the
    Hessian of the log picture at a bean's scale, the highest over the three channels; 0 for
    a container whose floor is out of view."""
    return [0.0 if m is None else float(m.max()) for m in _blob_maps(reader, frame)]


def came_since(reader: CupsReader, frame: np.ndarray, still: np.ndarray) -> list[float]:
    """Per container (layout order), the strongest blob in ``frame`` where its floor is unlike
    the same floor in ``still`` (``reader``'s reference), less the still's blob response
    there: what came into the container since the still.  A bean taken out leaves the still's
    blob stronger (a negative), a bean left or put in the frame's.  0 where nothing differs."""
    now, then = _blob_maps(reader, frame), _blob_maps(reader, still)
    out = []
    for i, (a, b) in enumerate(zip(now, then)):
        if a is None or b is None:
            out.append(0.0)
            continue
        unlike = reader.beans_seen(i, frame)
        blobs = CupsReader.large_blobs(unlike, reader.bean_px * CAME_AREA)
        if not blobs.any():
            out.append(0.0)
            continue
        near = cv2.dilate(blobs, np.ones((5, 5), np.uint8)) > 0
        out.append(float(a[near].max() - b[near].max()))
    return out


def beans_left(reader: CupsReader, frame: np.ndarray, still: np.ndarray | None = None) -> tuple[list[int], list[int]]:
    """The containers (layout order) whose floor in ``frame`` surely shows a bean (a blob
    reaching ``BEAN_BLOB``), and, against ``still`` (``reader``'s reference), the others where
    a bean may be left (a blob that came since the still, ``CAME_BLOB`` stronger)."""
    blobs = blob_response(reader, frame)
    sure = [k for k, r in enumerate(blobs) if r >= BEAN_BLOB]
    if still is None:
        return sure, []
    came = came_since(reader, frame, still)
    return sure, [k for k, c in enumerate(came) if c >= CAME_BLOB and k not in sure]
