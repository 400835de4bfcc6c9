"""Finding the board in a frame: its ArUco markers, and the camera pose they give."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from hardware.camera_model import CameraIntrinsics, CameraPose, project
from hardware.markers import dictionary, marker_corners_world
from hardware.pieces import BoardSpec


# a marker looked for near where it was last seen is about the size it had: only outlines
# whose perimeter lies between these shares of its last one are examined (the many small ones
# of wood grain and cup rims, and the long ones of the board's edge, are left out at once).
# On 120 searches near the markers, bounds of 0.5 and 2 found the same corners as none did,
# in 64 % of the time (0.7 already lost some under perspective).  A marker outside them is
# not lost: the whole picture is then searched (``Recogniser.locate``).
PERIMETER_RANGE = (0.5, 2.0)


def _parameters(largest_window: int) -> cv2.aruco.DetectorParameters:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.adaptiveThreshWinSizeMax = largest_window
    # each bit read from 8 x 8 samples, its outer quarter left out: a soft, small marker's
    # bits bleed into their neighbours' edges (OpenCV's 4 x 4 and 13 % lost such markers)
    params.perspectiveRemovePixelPerCell = 8
    params.perspectiveRemoveIgnoredMarginPerCell = 0.25
    return params


@lru_cache(maxsize=8)
def _detector(dict_name: str, largest_window: int = 23) -> cv2.aruco.ArucoDetector:
    return cv2.aruco.ArucoDetector(dictionary(dict_name), _parameters(largest_window))


def _sized_detector(dict_name: str, marker_px: float, picture_px: int) -> cv2.aruco.ArucoDetector:
    """A detector for markers about ``marker_px`` wide in a picture whose longer side is
    ``picture_px``: outlines outside ``PERIMETER_RANGE`` of the marker's are not examined
    (OpenCV states the bounds as shares of the picture's longer side).  Cheap to make (well
    under a millisecond's thousandth), so made for each search."""
    params = _parameters(largest_window(marker_px))
    perimeter = 4.0 * marker_px / picture_px
    params.minMarkerPerimeterRate = PERIMETER_RANGE[0] * perimeter
    params.maxMarkerPerimeterRate = PERIMETER_RANGE[1] * perimeter
    return cv2.aruco.ArucoDetector(dictionary(dict_name), params)


def largest_window(marker_px: float | None) -> int:
    """The largest adaptive-threshold window worth trying for markers about ``marker_px``
    wide (None: any size).

    OpenCV thresholds each image with windows of 3, 13 and 23 px, for markers of any size.
    On markers under 100 px the 23 px window only finds again what the smaller ones found,
    and the smaller ones' corners are kept (on 558 rendered markers of 28-86 px, windows of
    3 and 13 px alone found every marker, with the same corners for 546 of 547): leaving it
    out halves the time of a search near the markers."""
    return 13 if marker_px is not None and marker_px < 100 else 23


def detect_markers(image: np.ndarray, board: BoardSpec,
                   rois: list[tuple[int, int, int, int]] | None = None,
                   marker_px: float | None = None, thorough: bool = False) -> dict[int, np.ndarray]:
    """The board's markers found in ``image``: id → corners (4, 2) in pixels.  With
    ``rois`` (x, y, w, h) only those regions are searched (much faster); ``marker_px``, the
    markers' expected side in pixels, if known, spares thresholds that cannot help.
    ``thorough`` (calibration, where time is no matter): where a marker is missing, look again
    in the picture with its contrast evened out and in it enlarged (a small, soft
    marker's bits are then wider than the thresholds' smallest window).  With both ``rois``
    and ``marker_px``, only outlines of about a marker's size are examined
    (``PERIMETER_RANGE``)."""
    wanted = set(board.markers.ids)
    if rois is None:
        det = _detector(board.markers.dictionary, largest_window(marker_px))
        gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        found = _keep(det.detectMarkers(gray)[:2], wanted, [(0, 0, 0)])
        return look_harder(gray, board, found) if thorough else found
    # the regions side by side in one picture, searched at once: a search costs much the same
    # whatever the picture's size up to a few regions' worth, and each marker lies well inside
    # its region (which pads it by at least 30 px), so it is found there as it would be alone
    h_img, w_img = image.shape[:2]
    boxes = []
    for x, y, w, h in rois:
        x0, y0, x1, y1 = max(0, x), max(0, y), min(w_img, x + w), min(h_img, y + h)
        if x1 - x0 >= 16 and y1 - y0 >= 16:
            boxes.append((x0, y0, x1, y1))
    if not boxes:
        return {}
    width = sum(x1 - x0 for x0, _, x1, _ in boxes) + MOSAIC_GAP * (len(boxes) + 1)
    height = max(y1 - y0 for _, y0, _, y1 in boxes) + 2 * MOSAIC_GAP
    # grey from the start: each region is converted straight into its place (the conversion
    # is per pixel, so this is the grey of the colour mosaic, and white stays 255)
    gray = np.full((height, width), 255, np.uint8)
    shifts, left = [], MOSAIC_GAP
    for x0, y0, x1, y1 in boxes:
        place = gray[MOSAIC_GAP:MOSAIC_GAP + y1 - y0, left:left + x1 - x0]
        if image.ndim == 2:
            place[...] = image[y0:y1, x0:x1]
        else:
            cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY, dst=place)
        shifts.append((left, x0 - left, y0 - MOSAIC_GAP))
        left += x1 - x0 + MOSAIC_GAP
    det = (_detector(board.markers.dictionary, largest_window(marker_px)) if marker_px is None
           else _sized_detector(board.markers.dictionary, marker_px, max(height, width)))
    return _keep(det.detectMarkers(gray)[:2], wanted, shifts)


MOSAIC_GAP = 16  # px of white between the regions searched together


def look_harder(image: np.ndarray, board: BoardSpec, found: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    """``found`` (a whole-picture ``detect_markers`` of ``image``) with the markers it missed
    looked for again (``_second_looks``); ``found``'s corners win where both have one."""
    wanted = set(board.markers.ids)
    if set(found) == wanted:
        return found
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return {**_second_looks(gray, _detector(board.markers.dictionary), wanted), **found}


def _second_looks(gray: np.ndarray, det: cv2.aruco.ArucoDetector, wanted: set[int]) -> dict[int, np.ndarray]:
    """Markers found in ``gray`` with its contrast evened out (CLAHE), then enlarged two and
    three times, corners in ``gray``'s pixels; the earlier look's where two find one."""
    even = cv2.createCLAHE(clipLimit=2.0, tileGridSize=(8, 8)).apply(gray)
    found = _keep(det.detectMarkers(even)[:2], wanted, [(0, 0, 0)])
    for scale in (2, 3):
        for picture in (gray, even):
            if set(found) == wanted:
                return found
            big = cv2.resize(picture, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
            for i, c in _keep(det.detectMarkers(big)[:2], wanted, [(0, 0, 0)]).items():
                found.setdefault(i, (c + 0.5) / scale - 0.5)  # pixel centres of the enlarged picture
    return found


def _keep(detected, wanted: set[int], shifts: list[tuple[int, int, int]]) -> dict[int, np.ndarray]:
    """The wanted markers of one detection (corners, ids), each moved back to the image by the
    shift (dx, dy) of the region it lies in; ``shifts`` gives per region, left to right, where
    it starts in the searched picture and its shift.  A marker found in two regions is taken
    from the first."""
    corners, ids = detected
    if ids is None:
        return {}
    starts = np.array([left for left, _, _ in shifts])
    picked: list[tuple[int, int, np.ndarray]] = []
    for c, i in zip(corners, ids.ravel()):
        c = c.reshape(4, 2).astype(np.float64)
        k = int(np.searchsorted(starts, c[:, 0].mean(), side="right")) - 1
        if int(i) in wanted and k >= 0:
            picked.append((k, int(i), c + shifts[k][1:]))
    found: dict[int, np.ndarray] = {}
    for _, i, c in sorted(picked, key=lambda p: p[0]):
        found.setdefault(i, c)
    return found


@dataclass(frozen=True)
class BoardFix:
    """Where the board is in one frame: the camera pose relative to it, the markers used and
    the RMS reprojection error of their corners in pixels."""

    pose: CameraPose
    markers: tuple[int, ...]
    error_px: float


def estimate_pose(markers: dict[int, np.ndarray], board: BoardSpec, intr: CameraIntrinsics,
                  guess: CameraPose | None = None) -> BoardFix | None:
    """The camera pose from the detected marker corners (None if there are none)."""
    if not markers:
        return None
    world = marker_corners_world(board)
    ids = sorted(markers)
    obj = np.concatenate([world[i] for i in ids]).astype(np.float64)
    img = np.concatenate([markers[i] for i in ids]).astype(np.float64)
    if guess is not None:
        ok, rvec, tvec = cv2.solvePnP(obj, img, intr.K, intr.D, np.asarray(guess.rvec).reshape(3, 1).copy(),
                                      np.asarray(guess.tvec).reshape(3, 1).copy(), True, cv2.SOLVEPNP_ITERATIVE)
    else:
        method = cv2.SOLVEPNP_IPPE if len(ids) > 1 else cv2.SOLVEPNP_IPPE_SQUARE
        if method == cv2.SOLVEPNP_IPPE_SQUARE:
            s = board.markers.size_mm / 2
            local = np.array([[-s, s, 0], [s, s, 0], [s, -s, 0], [-s, -s, 0]], np.float64)
            ok, rvec, tvec = cv2.solvePnP(local, img, intr.K, intr.D, flags=method)
            if ok:
                # move from the marker's own frame to the board's
                R = cv2.Rodrigues(rvec)[0]
                centre = world[ids[0]].mean(axis=0)
                tvec = tvec - (R @ centre).reshape(3, 1)
        else:
            ok, rvec, tvec = cv2.solvePnP(obj, img, intr.K, intr.D, flags=method)
        if ok and len(ids) > 1:
            ok, rvec, tvec = cv2.solvePnP(obj, img, intr.K, intr.D, rvec, tvec, True, cv2.SOLVEPNP_ITERATIVE)
    if not ok:
        return None
    pose = CameraPose(tuple(float(v) for v in rvec.ravel()), tuple(float(v) for v in tvec.ravel()))
    if pose.height <= 0:
        return None
    err = float(np.sqrt(np.mean(np.sum((project(obj, intr, pose) - img) ** 2, axis=1))))
    return BoardFix(pose, tuple(ids), err)
