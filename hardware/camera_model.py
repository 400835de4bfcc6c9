"""The pinhole camera model shared by the synthetic renderer, calibration and recognition.

World coordinates are the board's: millimetres, origin at the outer corner of square a1,
x along the files (a→b), y along the ranks (1→2), z up out of the board.  A pose maps world
points into the camera frame (x right, y down, z forward), as OpenCV expects.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class CameraIntrinsics:
    """Focal lengths and principal point in pixels, OpenCV distortion (k1, k2, p1, p2, k3),
    and the image size they belong to."""

    fx: float
    fy: float
    cx: float
    cy: float
    width: int
    height: int
    dist: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0)
    model: str = ""  # the camera module these belong to (``pi3``, ``pi3-wide``...), if known

    @property
    def K(self) -> np.ndarray:
        """The 3x3 camera matrix."""
        return np.array([[self.fx, 0, self.cx], [0, self.fy, self.cy], [0, 0, 1]], dtype=np.float64)

    @property
    def D(self) -> np.ndarray:
        """The distortion coefficients as an array."""
        return np.asarray(self.dist, dtype=np.float64)

    def scaled(self, width: int, height: int) -> "CameraIntrinsics":
        """The same lens at another resolution of the same aspect (binned or resized)."""
        sx, sy = width / self.width, height / self.height
        return CameraIntrinsics(self.fx * sx, self.fy * sy, self.cx * sx, self.cy * sy,
                                width, height, self.dist, self.model)


# Nominal values of the Raspberry Pi camera modules, in their full-resolution pixels
# (datasheet focal length / pixel pitch; distortion from typical published calibrations).
NOMINAL_CAMERAS: dict[str, CameraIntrinsics] = {
    # Camera Module 3: 4.74 mm lens, 1.4 um pixels, 4608x2592, 66 deg horizontal
    "pi3": CameraIntrinsics(3386.0, 3386.0, 2304.0, 1296.0, 4608, 2592, (0.03, -0.06, 0.0, 0.0, 0.0)),
    # Camera Module 2: 3.04 mm lens, 1.12 um pixels, 3280x2464, 62 deg horizontal
    "pi2": CameraIntrinsics(2714.0, 2714.0, 1640.0, 1232.0, 3280, 2464, (0.12, -0.25, 0.0, 0.0, 0.0)),
    # Camera Module 3 Wide: 2.75 mm lens, 102 deg horizontal
    "pi3-wide": CameraIntrinsics(1964.0, 1964.0, 2304.0, 1296.0, 4608, 2592, (-0.02, 0.01, 0.0, 0.0, 0.0)),
}


def nominal_intrinsics(model: str = "pi3", width: int = 1280, height: int = 720) -> CameraIntrinsics:
    """Nominal intrinsics of a Pi camera module at a given output size.  When the aspect ratio
    differs from the sensor's, the sensor is assumed cropped to it (as Picamera2 does)."""
    try:
        full = NOMINAL_CAMERAS[model]
    except KeyError:
        raise ValueError(f"unknown camera model {model!r}; known: {', '.join(NOMINAL_CAMERAS)}") from None
    scale = max(width / full.width, height / full.height)
    return CameraIntrinsics(full.fx * scale, full.fy * scale, width / 2.0, height / 2.0,
                            width, height, full.dist, model)


@dataclass(frozen=True)
class CameraPose:
    """World-to-camera rotation (Rodrigues vector) and translation in millimetres."""

    rvec: tuple[float, float, float]
    tvec: tuple[float, float, float]

    @property
    def R(self) -> np.ndarray:
        """The 3x3 rotation matrix world→camera."""
        return cv2.Rodrigues(np.asarray(self.rvec, dtype=np.float64))[0]

    @property
    def t(self) -> np.ndarray:
        """The translation as a (3,) array."""
        return np.asarray(self.tvec, dtype=np.float64)

    @property
    def centre(self) -> np.ndarray:
        """The camera's position in world coordinates (its z is the height above the board)."""
        return -self.R.T @ self.t

    @property
    def height(self) -> float:
        """Height of the camera's centre above the board plane, mm."""
        return float(self.centre[2])

    @classmethod
    def from_matrices(cls, R: np.ndarray, t: np.ndarray) -> "CameraPose":
        """Build a pose from a rotation matrix and a translation vector."""
        rvec = cv2.Rodrigues(np.asarray(R, dtype=np.float64))[0].ravel()
        t = np.asarray(t, dtype=np.float64).ravel()
        return cls(tuple(float(v) for v in rvec), tuple(float(v) for v in t))

    @classmethod
    def look_at(cls, eye: np.ndarray, target: np.ndarray, roll_deg: float = 0.0) -> "CameraPose":
        """A camera at ``eye`` looking at ``target``, turned about its optical axis by
        ``roll_deg`` (which rotates the board in the image)."""
        eye = np.asarray(eye, dtype=np.float64)
        fwd = np.asarray(target, dtype=np.float64) - eye
        fwd /= np.linalg.norm(fwd)
        # image "down" starts as world -y projected off the optical axis (the board's rank 1
        # at the bottom of the picture), then the roll turns it
        ref = np.array([0.0, -1.0, 0.0])
        down = ref - fwd * (ref @ fwd)
        if np.linalg.norm(down) < 1e-6:
            down = np.array([1.0, 0.0, 0.0]) - fwd * fwd[0]
        down /= np.linalg.norm(down)
        right = np.cross(down, fwd)
        a = np.radians(roll_deg)
        right, down = (np.cos(a) * right + np.sin(a) * down, -np.sin(a) * right + np.cos(a) * down)
        R = np.stack([right, down, fwd])  # rows: camera axes in world coordinates
        return cls.from_matrices(R, -R @ eye)


def project(points: np.ndarray, intr: CameraIntrinsics, pose: CameraPose,
            distort: bool = True) -> np.ndarray:
    """Project world points (N, 3) to pixels (N, 2), with the lens distortion unless
    ``distort`` is False (an ideal pinhole)."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    cam = pts @ pose.R.T + pose.t
    z = np.maximum(cam[:, 2], 1e-6)
    x, y = cam[:, 0] / z, cam[:, 1] / z
    if distort and any(intr.dist):
        k1, k2, p1, p2, k3 = (tuple(intr.dist) + (0.0,) * 5)[:5]
        r2 = x * x + y * y
        radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
        x, y = (x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x),
                y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y)
    return np.stack([intr.fx * x + intr.cx, intr.fy * y + intr.cy], axis=1)


def plane_homography(intr: CameraIntrinsics, pose: CameraPose, z: float = 0.0) -> np.ndarray:
    """The 3x3 homography from world (x, y) on the plane at height ``z`` to ideal (undistorted)
    pixels."""
    R, t = pose.R, pose.t
    M = np.column_stack([R[:, 0], R[:, 1], R[:, 2] * z + t])
    return intr.K @ M


def nadir(pose: CameraPose) -> np.ndarray:
    """The board point straight below the camera, (x, y) in mm."""
    c = pose.centre
    return c[:2].copy()


def height_scale(camera_height: float, z: float) -> float:
    """How much larger a horizontal shape at height ``z`` looks than the same shape on the
    board, seen from a camera ``camera_height`` above the board: H / (H - z).  It also scales
    the shape's offset from the nadir."""
    return camera_height / (camera_height - z)
