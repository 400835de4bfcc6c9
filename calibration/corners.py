"""Calibration without markers: the user taps the board's four outer corners in a still frame,
and the camera pose comes from those four points and the board's known size.

The corners are given in a fixed order, going round the board as White sees it: the corner by
square a1, the corner at the other end of rank 1, the far corner (beyond the last square),
then the corner at the far end of file a.  The rest of the calibration (canvas, reference
picture, colours, size classes) is made exactly as ``calibrate.calibrate`` makes it.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from hardware.camera_model import (
    CameraIntrinsics,
    CameraPose,
    nominal_intrinsics,
    project,
)
from hardware.markers import outer_rect
from hardware.pieces import BoardSpec, PieceSet

from .calibrate import calibration_from_fix
from .locate import BoardFix
from .model import Calibration, CalibrationError

# a tap is rarely better than a few pixels; beyond this the corners do not fit a rectangle
MAX_CORNER_ERROR_PX = 25.0
# the quadrilateral must cover at least this fraction of the picture to give a usable pose
MIN_AREA_FRACTION = 0.01


def board_corners_world(board: BoardSpec) -> np.ndarray:
    """The board's four outer corners (4, 3) in board mm, in the order the user taps them."""
    x0, y0, x1, y1 = outer_rect(board)
    return np.array([[x0, y0, 0.0], [x1, y0, 0.0], [x1, y1, 0.0], [x0, y1, 0.0]])


BOARD_ORDER = "start at a1, then the other end of White's first row, then the far corner, then the last one"


def check_corner_points(points: Sequence[Sequence[float]], width: int, height: int, what: str = "board",
                        order: str = BOARD_ORDER) -> np.ndarray:
    """``points`` as a (4, 2) array, or CalibrationError saying what is wrong with them: not
    four points, outside the ``width`` x ``height`` picture, or not a convex quadrilateral
    of a useful size going round the ``what`` (``board``, ``play area``) the right way
    (``order`` says which way, for the error)."""
    try:
        pts = np.asarray(points, dtype=np.float64)
    except (TypeError, ValueError):
        raise CalibrationError("corners must be four [x, y] pixel positions") from None
    if pts.shape != (4, 2):
        raise CalibrationError(f"tap exactly four corners (got {len(pts) if pts.ndim else 0})")
    if not np.isfinite(pts).all():
        raise CalibrationError("corner positions must be numbers")
    outside = [k + 1 for k, (x, y) in enumerate(pts) if not (0 <= x <= width - 1 and 0 <= y <= height - 1)]
    if outside:
        raise CalibrationError(f"corner(s) {outside} lie outside the {width}x{height} picture")
    # cross products at each vertex: all of one sign for a convex quadrilateral.  Seen from
    # above, a1 → rank 1 → far corner goes anticlockwise, which with image y down gives a
    # negative signed area; a positive one is a mirror image no camera above the board sees
    edges = np.roll(pts, -1, axis=0) - pts
    cross = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
    area = 0.5 * float(np.sum(pts[:, 0] * np.roll(pts[:, 1], -1) - np.roll(pts[:, 0], -1) * pts[:, 1]))
    if np.abs(cross).max() < MIN_AREA_FRACTION * width * height:
        raise CalibrationError(f"the four corners are too close together: tap the {what}'s outer corners")
    if not ((cross > 0).all() or (cross < 0).all()):
        raise CalibrationError("the four corners do not make a convex shape: tap them in order, going round "
                               f"the {what}")
    if abs(area) < MIN_AREA_FRACTION * width * height:
        raise CalibrationError(f"the four corners are too close together: tap the {what}'s outer corners")
    if area > 0:
        raise CalibrationError(f"the corners go round the wrong way: {order}")
    return pts


def pose_from_corners(points: np.ndarray, board: BoardSpec, intr: CameraIntrinsics) -> BoardFix:
    """The camera pose from the four tapped corners (checked by ``check_corner_points``)."""
    return fit_plane_pose(board_corners_world(board), points, intr, f"the {board.name} board")


def fit_plane_pose(obj: np.ndarray, points: np.ndarray, intr: CameraIntrinsics, what: str) -> BoardFix:
    """The camera pose from four tapped corners ``points`` (pixels) of a rectangle on the
    table whose corners are ``obj`` (4, 3) mm; ``what`` names the rectangle in errors."""
    img = np.asarray(points, np.float64).reshape(4, 2)
    ok, rvec, tvec = cv2.solvePnP(obj, img, intr.K, intr.D, flags=cv2.SOLVEPNP_IPPE)
    if ok:
        ok, rvec, tvec = cv2.solvePnP(obj, img, intr.K, intr.D, rvec, tvec, True, cv2.SOLVEPNP_ITERATIVE)
    if not ok:
        raise CalibrationError("no camera position fits these four corners")
    pose = CameraPose(tuple(float(v) for v in rvec.ravel()), tuple(float(v) for v in tvec.ravel()))
    if pose.height <= 0:
        raise CalibrationError(f"these corners put the camera below {what}: tap them in order")
    err = float(np.sqrt(np.mean(np.sum((project(obj, intr, pose) - img) ** 2, axis=1))))
    if err > MAX_CORNER_ERROR_PX:
        raise CalibrationError(f"the four corners do not fit {what} (off by {err:.0f} px): "
                               "tap its outer corners, in order")
    return BoardFix(pose, (), err)


def calibrate_from_corners(frames: Sequence[np.ndarray], corners: Sequence[Sequence[float]],
                           pieces: PieceSet, board: BoardSpec, *, intrinsics: CameraIntrinsics | None = None,
                           intrinsics_source: str = "", cup_frame: np.ndarray | None = None,
                           camera_model: str = "pi3") -> Calibration:
    """A calibration from ``frames`` of the empty board and the board's four outer ``corners``
    tapped in the first frame (pixels, in the order of ``board_corners_world``).  The other
    arguments mean what they mean for ``calibrate.calibrate``; ``markers_seen`` is empty."""
    if not frames:
        raise CalibrationError("calibration needs at least one frame of the empty board")
    h, w = frames[0].shape[:2]
    if any(f.shape[:2] != (h, w) for f in frames):
        raise CalibrationError(f"every frame must be {w}x{h} like the first")
    if intrinsics is None:
        intrinsics = nominal_intrinsics(camera_model, w, h)
        intrinsics_source = intrinsics_source or f"nominal {camera_model}"
    elif (intrinsics.width, intrinsics.height) != (w, h):
        intrinsics = intrinsics.scaled(w, h)
    fix = pose_from_corners(check_corner_points(corners, w, h), board, intrinsics)
    return calibration_from_fix(frames, fix, pieces, board, intrinsics, intrinsics_source, cup_frame)
