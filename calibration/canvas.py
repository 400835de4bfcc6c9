"""The rectified board view: the board plane z = 0 seen from straight above, resampled from
a camera frame through the full camera model (lens distortion included).

A horizontal disc at height h appears in this view scaled by H / (H - h) about the camera's
nadir (H the camera height), which is how each size class is predicted at its own height.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from hardware.camera_model import CameraIntrinsics, CameraPose, project
from hardware.markers import outer_rect
from hardware.pieces import BoardSpec


@dataclass(frozen=True)
class Canvas:
    """A grid over the board plane: ``ppm`` pixels per mm, covering x0..x0+width/ppm and
    y0..y0+height/ppm (mm).  Row 0 is the largest y, so the view reads like the board from
    above with rank 1 at the bottom."""

    ppm: float
    x0: float
    y1: float
    width: int
    height: int

    def to_px(self, xy: np.ndarray) -> np.ndarray:
        """Board mm (..., 2) → canvas pixels (..., 2) as (column, row)."""
        xy = np.asarray(xy, np.float64)
        return np.stack([(xy[..., 0] - self.x0) * self.ppm, (self.y1 - xy[..., 1]) * self.ppm], axis=-1)

    def to_mm(self, px: np.ndarray) -> np.ndarray:
        """Canvas pixels (..., 2) → board mm (..., 2)."""
        px = np.asarray(px, np.float64)
        return np.stack([px[..., 0] / self.ppm + self.x0, self.y1 - px[..., 1] / self.ppm], axis=-1)


def board_canvas(board: BoardSpec, ppm: float = 1.0, margin_mm: float = 40.0) -> Canvas:
    """A canvas over the board's outer edge plus ``margin_mm`` all round."""
    x0, y0, x1, y1 = outer_rect(board)
    x0, y0, x1, y1 = x0 - margin_mm, y0 - margin_mm, x1 + margin_mm, y1 + margin_mm
    return Canvas(ppm, x0, y1, int(np.ceil((x1 - x0) * ppm)), int(np.ceil((y1 - y0) * ppm)))


def canvas_maps(canvas: Canvas, intr: CameraIntrinsics, pose: CameraPose,
                step: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """cv2.remap maps from the canvas to image pixels.  The projection is smooth, so it is
    computed every ``step`` pixels and interpolated."""
    cols = np.arange(0, canvas.width + step, step, dtype=np.float64)
    rows = np.arange(0, canvas.height + step, step, dtype=np.float64)
    C, Rr = np.meshgrid(cols, rows)
    mm = canvas.to_mm(np.stack([C, Rr], axis=-1)).reshape(-1, 2)
    uv = project(np.column_stack([mm, np.zeros(len(mm))]), intr, pose).reshape(C.shape + (2,)).astype(np.float32)
    gx, gy = _coarse_grid_at_pixels(canvas.width, canvas.height, step)
    return (cv2.remap(uv[..., 0], gx, gy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE),
            cv2.remap(uv[..., 1], gx, gy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))


@functools.lru_cache(maxsize=4)
def _coarse_grid_at_pixels(width: int, height: int, step: int) -> tuple[np.ndarray, np.ndarray]:
    """Where each canvas pixel falls on the grid of every ``step`` pixels, in that grid's
    units: the maps that interpolate it (cv2.resize would misalign the corners).  The same
    for every pose of one canvas, so kept (read only)."""
    gx, gy = np.meshgrid(np.arange(width, dtype=np.float32) / step, np.arange(height, dtype=np.float32) / step)
    gx.flags.writeable = False
    gy.flags.writeable = False
    return gx, gy


def rectify(image: np.ndarray, maps: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """The canvas view of ``image`` (pixels outside the frame are black)."""
    return cv2.remap(image, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
