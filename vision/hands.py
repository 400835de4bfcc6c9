"""Hands and arms over the board: large regions unlike the empty board that reach the edge of
the board view (an arm always comes in from outside the board)."""

from __future__ import annotations

import cv2
import numpy as np

DIFF = 0.55  # log-colour change that counts as "not the empty board"
MIN_AREA_FRACTION = 0.02


def hand_mask(view: np.ndarray, reference: np.ndarray, area: np.ndarray) -> np.ndarray | None:
    """A mask (uint8, canvas size) of hand/arm regions (and their shadows, which also hide
    detail), or None when there is none.  ``area`` marks the playing grid."""
    small_v = cv2.resize(view, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA).astype(np.float32)
    small_r = cv2.resize(reference, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA).astype(np.float32)
    d = np.log(small_v + 8.0) - np.log(small_r + 8.0)
    d -= np.median(d.reshape(-1, 3), axis=0)  # the light's overall change
    diff = (np.abs(d).max(axis=2) > DIFF).astype(np.uint8)
    diff = cv2.morphologyEx(diff, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(diff, connectivity=8)
    h, w = diff.shape
    keep = np.zeros(n, bool)
    for i in range(1, n):
        x, y, bw, bh, a = stats[i]
        touches = x == 0 or y == 0 or x + bw >= w or y + bh >= h
        keep[i] = touches and a >= MIN_AREA_FRACTION * h * w
    if not keep.any():
        return None
    mask = keep[labels].astype(np.uint8) * 255
    mask = cv2.dilate(mask, np.ones((5, 5), np.uint8))
    return cv2.resize(mask, (view.shape[1], view.shape[0]), interpolation=cv2.INTER_NEAREST)
