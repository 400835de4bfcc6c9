"""What seeing a Cups table needs to know about the camera: the homography from the table plane
(mm) to the ideal (undistorted) image, the lens, and the size of one bean.

For now it is made from the known render pose (``from_pose``); the wizard step that finds it on
a real table (the marker sheet's markers or four tapped corners, then each container tapped)
comes later with issue 23's set-up.  The pose is recovered from the homography and the lens
(``pose``), so nothing else is stored.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hardware.camera_model import CameraIntrinsics, CameraPose, plane_homography


@dataclass(frozen=True)
class CupsCalibration:
    """Table plane → ideal image homography (3x3, mm to px), the lens it belongs to, and the
    size of one bean seen from above (the diameter of a disc of the same area, mm: measured
    by the user like the cups of a Gobblet set, later learnt from the first drop)."""

    homography: tuple[tuple[float, ...], ...]
    intrinsics: CameraIntrinsics
    bean_mm: float

    def __post_init__(self) -> None:
        H = np.asarray(self.homography, np.float64)
        if H.shape != (3, 3) or not np.all(np.isfinite(H)) or abs(np.linalg.det(H)) < 1e-12:
            raise ValueError("the table homography must be an invertible 3x3 matrix of finite numbers")
        if not 2.0 <= self.bean_mm <= 60.0:
            raise ValueError(f"a bean must be 2-60 mm across, got {self.bean_mm}")

    @property
    def H(self) -> np.ndarray:
        """The homography as an array."""
        return np.asarray(self.homography, np.float64)

    def pose(self) -> CameraPose:
        """The camera pose the homography implies: K^-1 H = s [r1 r2 t], with the camera
        above the table (positive height)."""
        M = np.linalg.inv(self.intrinsics.K) @ self.H
        s = 2.0 / (np.linalg.norm(M[:, 0]) + np.linalg.norm(M[:, 1]))
        r1, r2, t = M[:, 0] * s, M[:, 1] * s, M[:, 2] * s
        if t[2] < 0:  # the table must lie in front of the camera
            r1, r2, t = -r1, -r2, -t
        R = np.column_stack([r1, r2, np.cross(r1, r2)])
        u, _, vt = np.linalg.svd(R)  # nearest rotation
        R = u @ vt
        if np.linalg.det(R) < 0:
            R = u @ np.diag([1, 1, -1]) @ vt
        return CameraPose.from_matrices(R, t)


def from_pose(intrinsics: CameraIntrinsics, pose: CameraPose, bean_mm: float) -> CupsCalibration:
    """The calibration of a camera whose pose is known (the synthetic camera's)."""
    H = plane_homography(intrinsics, pose, 0.0)
    H = H / H[2, 2]
    return CupsCalibration(tuple(tuple(float(v) for v in row) for row in H), intrinsics, float(bean_mm))
