"""Making a calibration from frames of the empty board (and optionally one light and one
dark cup of the largest size standing on two known squares)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hardware.camera_model import (
    NOMINAL_CAMERAS,
    CameraIntrinsics,
    height_scale,
    nadir,
    nominal_intrinsics,
)
from hardware.markers import outer_rect
from hardware.pieces import BoardSpec, PieceSet

from .canvas import Canvas, board_canvas, canvas_maps, rectify
from .locate import BoardFix, detect_markers, estimate_pose
from .model import Calibration, CalibrationError, ColourModel, size_classes

CANVAS_PPM = 1.5
AUTO_CAMERA = "auto"  # ``calibrate``'s camera model when the markers are to tell the lens
STANDARD_CAMERA = "pi3"  # the module assumed where they cannot
CLEARLY_BETTER = 0.6  # a lens whose marker fit error is under this share of the standard's wins
# where the wizard asks for the two cups: the light one on a1, the dark one on the last square
LIGHT_CUP_SQUARE = 0


def dark_cup_square(board: BoardSpec) -> int:
    """The square where calibration expects the dark cup (the far corner)."""
    return board.squares - 1


def _margin(board: BoardSpec, pieces: PieceSet, fix: BoardFix) -> float:
    H = fix.pose.height
    n = nadir(fix.pose)
    top = pieces.sizes[-1]
    k = height_scale(H, min(top.height_mm, H * 0.8))
    x0, y0, x1, y1 = outer_rect(board)
    far = max(np.hypot(x - n[0], y - n[1]) for x in (x0, x1) for y in (y0, y1))
    return float(np.clip((k - 1) * far + top.top_diameter_mm / 2 * k + 8, 30.0, 160.0))


def board_area_mask(canvas: Canvas, board: BoardSpec) -> np.ndarray:
    """Boolean mask of the canvas pixels on the playing grid."""
    a = canvas.to_px(np.array([[0.0, board.depth_mm], [board.width_mm, 0.0]]))
    m = np.zeros((canvas.height, canvas.width), bool)
    (c0, r0), (c1, r1) = np.round(a).astype(int)
    m[max(r0, 0):r1, max(c0, 0):c1] = True
    return m


def _disc_mean(view: np.ndarray, canvas: Canvas, centre_mm: np.ndarray, radius_mm: float) -> np.ndarray:
    c = canvas.to_px(centre_mm)
    r = radius_mm * canvas.ppm
    yy, xx = np.mgrid[0:view.shape[0], 0:view.shape[1]]
    m = (xx - c[0]) ** 2 + (yy - c[1]) ** 2 <= r * r
    if not m.any():
        raise CalibrationError("the calibration cup lies outside the view")
    return view[m].reshape(-1, 3).mean(axis=0)


def calibrate(frames: Sequence[np.ndarray], pieces: PieceSet, board: BoardSpec, *,
              intrinsics: CameraIntrinsics | None = None, intrinsics_source: str = "",
              cup_frame: np.ndarray | None = None, camera_model: str = STANDARD_CAMERA) -> Calibration:
    """A calibration from ``frames`` of the empty board.  Without ``intrinsics`` the nominal
    values of ``camera_model`` (``pi3``, ``pi3-wide`` for low mounts, ``pi2``) at the frames'
    size are assumed, or with ``auto`` those of the module whose lens the markers fit plainly
    best (``_clearest_lens``); the model is recorded in the calibration.  ``cup_frame``
    optionally shows the board with a light cup of the largest size on a1 and a dark one on the
    last square; it measures the players' colours (otherwise the piece set's colours are used)."""
    if not frames:
        raise CalibrationError("calibration needs at least one frame of the empty board")
    h, w = frames[0].shape[:2]
    if intrinsics is not None:
        lenses = [(intrinsics if (intrinsics.width, intrinsics.height) == (w, h) else intrinsics.scaled(w, h),
                   intrinsics_source)]
    else:
        models = list(NOMINAL_CAMERAS) if camera_model == AUTO_CAMERA else [camera_model]
        lenses = [(nominal_intrinsics(m, w, h), intrinsics_source or f"nominal {m}") for m in models]
    markers = []  # found once, then fitted through each lens
    for k, f in enumerate(frames):
        if f.shape[:2] != (h, w):
            raise CalibrationError(f"frame {k} is {f.shape[1]}x{f.shape[0]}, the first was {w}x{h}")
        markers.append(detect_markers(f, board, thorough=True))
    fitted = []
    for lens, source in lenses:
        fixes = [(len(fix.markers), -fix.error_px, k, fix) for k, found in enumerate(markers)
                 if (fix := estimate_pose(found, board, lens)) is not None]
        if fixes:
            fitted.append((lens, source, max(fixes, key=lambda f: f[:3])[3]))
    if not fitted:
        raise CalibrationError(f"no board markers ({board.markers.dictionary}, ids "
                               f"{list(board.markers.ids)}) were found in any of the {len(frames)} frames")
    lens, source, best = _clearest_lens(fitted)
    if len(best.markers) < 3:
        raise CalibrationError(f"only markers {list(best.markers)} were seen; calibration needs at least 3 of "
                               f"{list(board.markers.ids)} in one frame")
    return calibration_from_fix(frames, best, pieces, board, lens, source, cup_frame)


def _clearest_lens(fitted: list[tuple[CameraIntrinsics, str, BoardFix]]) -> tuple[CameraIntrinsics, str, BoardFix]:
    """Of the markers fitted through several lenses, the lens they fit plainly best; where none
    stands out (a camera looking straight down sees the same markers through any focal
    length, at another height) the standard module's, ``STANDARD_CAMERA``."""
    best = min(fitted, key=lambda f: f[2].error_px)
    standard = next((f for f in fitted if f[0].model == STANDARD_CAMERA), best)
    return best if best[2].error_px < CLEARLY_BETTER * standard[2].error_px else standard


def calibration_from_fix(frames: Sequence[np.ndarray], fix: BoardFix, pieces: PieceSet, board: BoardSpec,
                         intrinsics: CameraIntrinsics, intrinsics_source: str,
                         cup_frame: np.ndarray | None = None) -> Calibration:
    """The calibration once the board is found (``fix``, by markers or by tapped corners):
    the rectified reference picture of the empty board and the colour model."""
    h, w = frames[0].shape[:2]
    if cup_frame is not None and cup_frame.shape[:2] != (h, w):
        raise CalibrationError(f"the colour frame must be {w}x{h} like the others")
    canvas = board_canvas(board, CANVAS_PPM, _margin(board, pieces, fix))
    maps = canvas_maps(canvas, intrinsics, fix.pose)
    views = [rectify(f, maps) for f in frames]
    reference = np.median(np.stack(views), axis=0).astype(np.uint8) if len(views) > 1 else views[0]
    area = board_area_mask(canvas, board)
    board_bgr = tuple(float(v) for v in np.median(reference[area].reshape(-1, 3), axis=0))
    if cup_frame is not None:
        view = rectify(cup_frame, maps).astype(np.float32)
        sizes = size_classes(pieces, fix.pose.height)
        top = sizes[-1]
        n = nadir(fix.pose)
        means = []
        for sq in (LIGHT_CUP_SQUARE, dark_cup_square(board)):
            c = np.asarray(board.square_centre(sq))
            means.append(_disc_mean(view, canvas, n + (c - n) * top.scale, top.top_radius_mm * top.scale * 0.5))
        now_board = np.median(view[area].reshape(-1, 3), axis=0)
        fix_light = np.asarray(board_bgr) / np.maximum(now_board, 1)
        light = tuple(float(v) for v in means[0] * fix_light)
        dark = tuple(float(v) for v in means[1] * fix_light)
        if np.mean(light) <= np.mean(dark):
            raise CalibrationError("the cup on a1 should be the light one and the cup on the last square the "
                                   "dark one, but a1 looks darker")
        colour = ColourModel(board_bgr, light, dark, "cups")
    else:
        wood = np.asarray(board.wood_bgr, np.float64)
        ratio = np.asarray(board_bgr) / np.maximum(wood, 1)
        colour = ColourModel(board_bgr, tuple(float(v) for v in np.asarray(pieces.colours[0].top_bgr) * ratio),
                             tuple(float(v) for v in np.asarray(pieces.colours[1].top_bgr) * ratio), "nominal")
    return Calibration(pieces=pieces, board=board, intrinsics=intrinsics, intrinsics_source=intrinsics_source,
                       pose=fix.pose, markers_seen=fix.markers, reprojection_error_px=fix.error_px,
                       canvas=canvas, colour=colour, sizes=size_classes(pieces, fix.pose.height),
                       reference=reference)
