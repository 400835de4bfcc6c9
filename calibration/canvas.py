"""The rectified board view: the board plane z = 0 seen from straight above, resampled from
a camera frame through the full camera model (lens distortion included).

A horizontal disc at height h appears in this view scaled by H / (H - h) about the camera's
nadir (H the camera height), which is how each size class is predicted at its own height.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from hardware.camera_model import CameraIntrinsics, CameraPose
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


def canvas_maps(canvas: Canvas, intr: CameraIntrinsics, pose: CameraPose) -> tuple[np.ndarray, np.ndarray]:
    """cv2.remap maps from the canvas to image pixels, exact at every pixel, in OpenCV's
    fixed-point form (the quicker to remap with).  The canvas lies on the plane z = 0, so
    from canvas pixels to the camera's normalised coordinates is one homography; OpenCV's
    undistort-rectify maps take it (as the inverse of their rectifying rotation, which may be
    any invertible matrix) and add the lens distortion, as the pose's solvePnP took it."""
    to_mm = np.array([[1 / canvas.ppm, 0.0, canvas.x0], [0.0, -1 / canvas.ppm, canvas.y1], [0.0, 0.0, 1.0]])
    plane = np.column_stack([pose.R[:, 0], pose.R[:, 1], pose.t]) @ to_mm
    return cv2.initUndistortRectifyMap(intr.K, intr.D, np.linalg.inv(plane), np.eye(3),
                                       (canvas.width, canvas.height), cv2.CV_16SC2)


def maps_inside(maps: tuple[np.ndarray, np.ndarray], shape: tuple[int, ...]) -> np.ndarray:
    """Which view pixels ``maps`` (``canvas_maps``) take wholly from inside a frame of
    ``shape`` (all the pixels they blend lie in it): a uint8 mask, 255 there, else 0."""
    return cv2.inRange(maps[0], (0, 0), (shape[1] - 2, shape[0] - 2))


def rectify(image: np.ndarray, maps: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """The canvas view of ``image`` (pixels outside the frame are black)."""
    return cv2.remap(image, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
