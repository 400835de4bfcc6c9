"""Hands and arms over the board.

A hand is a large region unlike the empty board that comes in from outside: an arm always
crosses the edge of the board view, which lies beyond where any cup standing on the board can
appear (calibration sizes the view so), so cups never look like arms.  The light changing is
taken out first: the log-ratio of the frame to the empty-board picture is fitted by a smooth
(quadratic) field per colour channel over the board, and only what departs from that field
counts.  A shadow (of a cup, or of the hand itself) only darkens the wood it falls on and keeps
its tint, so the whole log-ratio moves down by about the same amount in each channel; a hand or
a sleeve puts another surface there, which changes the tint too.  A changed region that is
nearly all shade is no hand: the long shadows of several cups under a low light join and reach
the view's edge as an arm would.  (A hand's own shadow stays part of its region: it often
links a pale hand's few changed pixels over the board to its sleeve.)  Everything is done on a
quarter-size copy of the board view.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

SCALE = 0.25
DIFF = 0.22  # log-colour departure from the fitted light field that counts as "changed"
MIN_INSIDE_MM2 = 1800.0  # a hand covers at least this much of the board
BORDER_PX = 1  # a component within this many (small) pixels of the view's edge touches it
SHADE_SHARE = 0.95  # a changed region this much shade is shadows, not an arm
# shade: darker by at most this much (log; a shadow under a lamp with little ambient light) ...
SHADE_DEPTH = 1.0
# ... with each channel within this of the mean darkening (log; room for a cast between the
# direct light and the ambient light that fills the shadow)
SHADE_TINT = 0.12


@dataclass(frozen=True)
class HandFinding:
    """Hand/arm pixels on the board view (uint8 0/255, the view's size, or None), and the
    light field's overall level change (log)."""

    mask: np.ndarray | None
    light_change: float
    small: np.ndarray | None = None  # the same mask at the detector's quarter size


@dataclass(frozen=True)
class Change:
    """Pixels of a board view (quarter size, uint8 0/1) unlike the empty board once the
    light's change is taken out, the light's overall level change (log), and each pixel's
    departure from the light's change (log BGR, one row a pixel)."""

    mask: np.ndarray
    light: float
    depart: np.ndarray

    def shade(self) -> np.ndarray:
        """Pixels (uint8 0/1, the mask's shape) that only went darker, keeping their tint.
        Asked for only when a region may be a hand, which most frames have none of."""
        mean = self.depart.mean(axis=1)
        tint = _largest_channel(np.abs(self.depart - mean[:, None]))
        shade = (mean < 0) & (mean > -SHADE_DEPTH) & (tint < SHADE_TINT)
        return shade.reshape(self.mask.shape).astype(np.uint8)


class HandDetector:
    """Finds hands on board views of one calibration (the empty-board reference and the
    board's outline on the view are fixed, so their small copies are prepared once)."""

    def __init__(self, reference: np.ndarray, board_area: np.ndarray, ppm: float):
        self.size = (reference.shape[1], reference.shape[0])
        small = cv2.resize(reference, None, fx=SCALE, fy=SCALE, interpolation=cv2.INTER_AREA)
        self.ref_log = np.log(small.astype(np.float32) + 8.0)
        h, w = small.shape[:2]
        area = cv2.resize(board_area.astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST) > 0
        self.area = area
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        x, y = xx / w - 0.5, yy / h - 0.5
        self.basis = np.stack([np.ones_like(x), x, y, x * x, y * y, x * y], axis=-1).reshape(-1, 6)
        # the light is fitted over everything the view shows (board, tiles, table), where the
        # reference has picture at all
        seen = small.max(axis=2) > 0
        self.fit_idx = np.flatnonzero(seen.ravel())[::7]
        self.fit_basis = self.basis[self.fit_idx]
        self.mm2_per_px = 1.0 / (ppm * SCALE) ** 2

    def changed(self, view: np.ndarray) -> Change:
        """The pixels of ``view`` unlike the empty board once the light's change is taken out."""
        small = cv2.resize(view, None, fx=SCALE, fy=SCALE, interpolation=cv2.INTER_AREA)
        d = np.log(small.astype(np.float32) + 8.0) - self.ref_log
        h, w = d.shape[:2]
        flat = d.reshape(-1, 3)
        y = flat[self.fit_idx]
        keep = np.ones(len(y), bool)
        B = self.fit_basis
        coef = np.zeros((6, 3), np.float32)
        # a robust fit: cups and hands are outliers to the smooth change of the light
        for _ in range(3):
            Bk = B[keep]
            coef = np.linalg.solve(Bk.T @ Bk + 1e-6 * np.eye(6, dtype=np.float32), Bk.T @ y[keep])
            resid = _largest_channel(np.abs(y - B @ coef))
            keep = resid < max(0.06, float(np.percentile(resid, 60)) * 2.0)
            if keep.sum() < 12:
                break
        depart = flat - self.basis @ coef
        changed = (_largest_channel(np.abs(depart)) > DIFF).reshape(h, w).astype(np.uint8)
        return Change(changed, float(coef[0].mean()), depart)

    def find(self, view: np.ndarray, explained: np.ndarray | None = None) -> HandFinding:
        """Hand pixels in ``view`` (the board view of the current frame); ``explained`` is an
        optional small mask of pixels the cups read on the board account for."""
        change = self.changed(view)
        return self.from_changed(change.mask, change.light, explained, change.shade)

    def from_changed(self, changed: np.ndarray, light: float, explained: np.ndarray | None = None,
                     shade: Callable[[], np.ndarray] | None = None) -> HandFinding:
        """The hand among the changed pixels, leaving out those the cups explain and regions
        that are nearly all shade (``shade()``: ``Change.shade``)."""
        if explained is not None:
            changed = changed & (explained == 0)
        raw = changed > 0
        # a pale hand over pale wood shows mostly as the grid lines and grain it hides:
        # closing joins those fragments into one region
        changed = cv2.morphologyEx(changed, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        h, w = changed.shape
        n, labels, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
        if n <= 1:
            return HandFinding(None, light)
        inside = np.bincount(labels[self.area], minlength=n)
        x, y0, bw, bh = stats[:, 0], stats[:, 1], stats[:, 2], stats[:, 3]
        touches = ((x <= BORDER_PX) | (y0 <= BORDER_PX) | (x + bw >= w - BORDER_PX)
                   | (y0 + bh >= h - BORDER_PX))
        keep_c = touches & (inside * self.mm2_per_px >= MIN_INSIDE_MM2)
        keep_c[0] = False
        if shade is not None and keep_c.any():
            shaded = np.bincount(labels[raw & (shade() > 0)], minlength=n)
            keep_c &= shaded < SHADE_SHARE * np.bincount(labels[raw], minlength=n)
        if not keep_c.any():
            return HandFinding(None, light)
        mask = keep_c[labels].astype(np.uint8) * 255
        mask = cv2.dilate(mask, np.ones((3, 3), np.uint8))
        return HandFinding(cv2.resize(mask, self.size, interpolation=cv2.INTER_NEAREST), light, mask)


def _largest_channel(values: np.ndarray) -> np.ndarray:
    """Per row of ``values`` (pixels, 3 channels), the largest channel: ``values.max(axis=1)``
    without a reduction's overhead over an axis of three."""
    return np.maximum(np.maximum(values[:, 0], values[:, 1]), values[:, 2])


def hand_mask(view: np.ndarray, reference: np.ndarray, area: np.ndarray, ppm: float = 1.5) -> np.ndarray | None:
    """A mask (uint8, view size) of hand/arm regions, or None when there is none; ``area``
    marks the board on the view.  One-off form of ``HandDetector``."""
    return HandDetector(reference, area, ppm).find(view).mask
