"""What the referee sees, drawn over the camera preview: the board's grid, the markers found,
each cup read (size and colour) and the squares hidden from the camera.

Everything is projected from the board (millimetres) into the frame with the calibration's
camera model, then scaled to the preview; it is drawn only when a preview frame is encoded.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.model import Calibration
from hardware.camera_model import CameraPose, project
from hardware.markers import marker_corners_world
from vision.observation import CUP, OCCLUDED, Observation

GRID = (60, 220, 255)  # BGR: amber
MARKER_SEEN = (80, 220, 80)
MARKER_MISSING = (60, 60, 230)
LIGHT_CUP = (250, 250, 250)
DARK_CUP = (40, 40, 40)
HIDDEN = (200, 90, 200)


def _to_preview(points: np.ndarray, calibration: Calibration, pose: CameraPose, scale: float) -> np.ndarray:
    return project(points, calibration.intrinsics, pose) * scale


def square_centres(calibration: Calibration, z: float = 0.0) -> np.ndarray:
    """World (x, y, z) of each square's centre at height ``z``, square ``i`` being file
    ``i % cols``, rank ``i // cols``."""
    board = calibration.board
    s = board.square_mm
    return np.array(
        [[(i % board.cols + 0.5) * s, (i // board.cols + 0.5) * s, z] for i in range(board.squares)],
        dtype=np.float64,
    )


def draw_overlay(
    image: np.ndarray,
    calibration: Calibration,
    obs: Observation | None,
    scale: float,
    pose: CameraPose | None = None,
) -> np.ndarray:
    """``image`` (a preview ``scale`` times the frame's size) with the overlays drawn on it,
    in place; returns it.  Without an observation only the grid and markers are drawn."""
    pose = pose or calibration.pose
    board = calibration.board
    s = board.square_mm
    thickness = max(2, round(image.shape[1] / 320))

    lines = []
    for k in range(board.cols + 1):
        lines.append(((k * s, 0.0), (k * s, board.depth_mm)))
    for k in range(board.rows + 1):
        lines.append(((0.0, k * s), (board.width_mm, k * s)))
    for (x0, y0), (x1, y1) in lines:
        # a few points per line, so a lens's distortion bends it as it bends the board
        pts = np.array([[x0 + (x1 - x0) * t, y0 + (y1 - y0) * t, 0.0] for t in np.linspace(0, 1, 9)])
        px = _to_preview(pts, calibration, pose, scale)
        cv2.polylines(image, [np.round(px).astype(np.int32)], False, GRID, thickness, cv2.LINE_AA)

    seen = set(obs.markers_seen) if obs is not None else set(calibration.markers_seen)
    for mid, corners in marker_corners_world(board).items():
        px = np.round(_to_preview(corners, calibration, pose, scale)).astype(np.int32)
        colour = MARKER_SEEN if mid in seen else MARKER_MISSING
        cv2.polylines(image, [px], True, colour, thickness + 1, cv2.LINE_AA)

    if obs is None:
        return image
    logical = calibration.pieces.logical_sizes
    font = cv2.FONT_HERSHEY_SIMPLEX
    font_scale = max(0.35, image.shape[1] / 1000)
    ground = square_centres(calibration)
    for i, reading in enumerate(obs.squares):
        if reading.state == OCCLUDED:
            cx, cy, _ = ground[i]
            h = s * 0.4
            box = np.array([[cx - h, cy - h, 0], [cx + h, cy + h, 0], [cx + h, cy - h, 0], [cx - h, cy + h, 0]])
            b = np.round(_to_preview(box, calibration, pose, scale)).astype(int)
            cv2.line(image, tuple(b[0]), tuple(b[1]), HIDDEN, thickness + 1, cv2.LINE_AA)
            cv2.line(image, tuple(b[2]), tuple(b[3]), HIDDEN, thickness + 1, cv2.LINE_AA)
            continue
        if reading.state != CUP or reading.size is None:
            continue
        size_class = calibration.sizes[min(reading.size, len(calibration.sizes) - 1)]
        top = square_centres(calibration, size_class.height_mm)[i]
        rim = top + np.array([size_class.top_radius_mm, 0.0, 0.0])
        centre, edge = _to_preview(np.stack([top, rim]), calibration, pose, scale)
        radius = max(3, round(float(np.linalg.norm(edge - centre))))
        ink = LIGHT_CUP if reading.colour == 0 else DARK_CUP
        at = tuple(int(v) for v in np.round(centre))
        cv2.circle(image, at, radius, ink, thickness + 1, cv2.LINE_AA)
        label = str(logical[reading.size] if reading.size < len(logical) and logical[reading.size] else reading.size + 1)
        (w, h), _ = cv2.getTextSize(label, font, font_scale, thickness)
        org = (at[0] - w // 2, at[1] + h // 2)
        cv2.putText(image, label, org, font, font_scale, (0, 0, 0) if reading.colour == 0 else (255, 255, 255),
                    thickness + 2, cv2.LINE_AA)
        cv2.putText(image, label, org, font, font_scale, ink, thickness, cv2.LINE_AA)
    return image
