"""The calibration as a value, and its versioned JSON file.

The file is self-contained: it embeds the piece set and board it was made for, the camera
intrinsics and pose, the colour model, the size-class model and a small picture of the empty
board seen from above (PNG, base64).  ``load_calibration`` checks everything and raises
``CalibrationError`` naming the file and the problem.
"""

from __future__ import annotations

import base64
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from engine.files import write_atomic
from engine.inputs import InputError, finite_number, read_json_file, whole_number
from hardware.camera_model import CameraIntrinsics, CameraPose, height_scale
from hardware.pieces import (
    BoardSpec,
    DataFileError,
    PieceSet,
    board_from_dict,
    check_header,
    piece_set_from_dict,
)

from .canvas import Canvas

FORMAT = "cupboard-calibration"
VERSION = 1


class CalibrationError(ValueError):
    """A calibration cannot be made, or a calibration file is malformed."""


@dataclass(frozen=True)
class ColourModel:
    """Mean BGR of the board wood and of the light and dark players' tops, all seen under the
    same light (so their ratios carry over to other light); ``source`` says whether they were
    measured on the user's whole set (``set``), on two cups (``cups``) or taken from the piece
    set (``nominal``)."""

    board_bgr: tuple[float, float, float]
    light_bgr: tuple[float, float, float]
    dark_bgr: tuple[float, float, float]
    source: str = "nominal"


@dataclass(frozen=True)
class SizeClass:
    """One size class as the camera sees it at calibration: the top disc's true radius and
    height, and how much it is magnified (H / (H - h)) at the calibrated camera height.
    ``edge_scale`` is how much wider or narrower than the piece set's numbers the top's edge
    was measured on the user's own cups (``vision.set_measure``; 1.0 when not measured):
    a rounded or chamfered top shows its edge inside the outer diameter."""

    size: int
    height_mm: float
    top_radius_mm: float
    scale: float
    edge_scale: float = 1.0


@dataclass(frozen=True)
class Calibration:
    """Everything recognition needs about one camera over one board with one piece set."""

    pieces: PieceSet
    board: BoardSpec
    intrinsics: CameraIntrinsics
    intrinsics_source: str
    pose: CameraPose
    markers_seen: tuple[int, ...]
    reprojection_error_px: float
    canvas: Canvas
    colour: ColourModel
    sizes: tuple[SizeClass, ...]
    reference: np.ndarray  # the empty board on the canvas, BGR uint8
    # the square model trained further on the user's own set where it was measured
    # (``vision.set_measure``), as the JSON object of a square model file; vision checks it
    square_model: dict[str, Any] | None = None
    # per square (a1 first), the light and dark players' colours (BGR, under the empty board's
    # light, as ``colour``'s) as adapting measured them on that square's labelled tops
    # (``vision.adapt``: a lamp mirrored in the tops of some squares only); None: ``colour``'s
    # on every square.  Kept in an adaptation file, never in the calibration file
    square_colours: tuple[tuple[tuple[float, float, float], tuple[float, float, float]], ...] | None = None

    @property
    def camera_height_mm(self) -> float:
        """The camera's height above the board, mm."""
        return self.pose.height


def size_classes(pieces: PieceSet, camera_height: float) -> tuple[SizeClass, ...]:
    """The size-class model for a camera at ``camera_height`` mm above the board."""
    return tuple(SizeClass(i, s.height_mm, s.top_diameter_mm / 2, height_scale(camera_height, s.height_mm))
                 for i, s in enumerate(pieces.sizes))


def to_json(cal: Calibration) -> dict[str, Any]:
    """The calibration as a JSON-ready dict."""
    ok, png = cv2.imencode(".png", cal.reference)
    if not ok:
        raise CalibrationError("could not encode the reference picture")
    return {
        "format": FORMAT,
        "version": VERSION,
        "piece_set": asdict(cal.pieces),
        "board": asdict(cal.board),
        "intrinsics": {**asdict(cal.intrinsics), "source": cal.intrinsics_source},
        "pose": {"rvec": list(cal.pose.rvec), "tvec": list(cal.pose.tvec)},
        "camera_height_mm": round(cal.camera_height_mm, 2),
        "markers_seen": list(cal.markers_seen),
        "reprojection_error_px": cal.reprojection_error_px,
        "canvas": asdict(cal.canvas),
        "colour_model": asdict(cal.colour),
        "size_classes": [asdict(s) for s in cal.sizes],
        "reference_png": base64.b64encode(png.tobytes()).decode("ascii"),
        **({"square_model": cal.square_model} if cal.square_model is not None else {}),
    }


def save_calibration(cal: Calibration, path: str | Path) -> None:
    """Write the calibration to ``path`` atomically and durably (a crash never leaves half a
    file; the new file is on disk when this returns).  A full disk raises ``StorageError``."""
    path = Path(path)
    write_atomic(path, json.dumps(to_json(cal), indent=1), what="the calibration")


def _need(d: Any, key: str, where: str) -> Any:
    if not isinstance(d, dict):
        raise CalibrationError(f"{where}: expected an object with field {key!r}")
    if key not in d:
        raise CalibrationError(f"{where}: missing field {key!r}")
    return d[key]


def _numbers(value: Any, n: int, where: str) -> tuple[float, ...]:
    if (not isinstance(value, list) or len(value) != n
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)):
        raise CalibrationError(f"{where}: expected a list of {n} numbers")
    return tuple(_number(v, where) for v in value)


def _number(value: Any, where: str) -> float:
    try:
        return finite_number(value, where)
    except InputError as e:
        raise CalibrationError(str(e)) from None


def _whole(value: Any, where: str) -> int:
    try:
        return whole_number(value, where, 1, 100_000)
    except InputError as e:
        raise CalibrationError(str(e)) from None


def _edge_scale(value: Any, where: str) -> float:
    v = _number(value, where)
    if not 0.5 <= v <= 1.5:
        raise CalibrationError(f"{where}: {v} is not a plausible measured edge scale (0.5 to 1.5)")
    return v


def from_json(data: Any, where: str = "calibration") -> Calibration:
    """Validate a parsed calibration file and build the Calibration."""
    check_header(data, FORMAT, VERSION, where, CalibrationError, "; calibrate again")
    try:
        pieces = piece_set_from_dict(_need(data, "piece_set", where), f"{where}: piece_set")
        board = board_from_dict(_need(data, "board", where), f"{where}: board")
    except DataFileError as e:
        raise CalibrationError(str(e)) from None
    i = _need(data, "intrinsics", where)
    w = f"{where}: intrinsics"
    width, height = _need(i, "width", w), _need(i, "height", w)
    if not (isinstance(width, int) and isinstance(height, int) and not isinstance(width, bool)
            and not isinstance(height, bool) and 0 < width <= 100_000 and 0 < height <= 100_000):
        raise CalibrationError(f"{w}: width and height must be positive integers")
    dist = _need(i, "dist", w)
    if not isinstance(dist, list) or len(dist) not in (4, 5, 8):
        raise CalibrationError(f"{w}.dist: expected 4, 5 or 8 distortion coefficients")
    intr = CameraIntrinsics(_number(_need(i, "fx", w), f"{w}.fx"), _number(_need(i, "fy", w), f"{w}.fy"),
                            _number(_need(i, "cx", w), f"{w}.cx"), _number(_need(i, "cy", w), f"{w}.cy"),
                            width, height, _numbers(dist, len(dist), f"{w}.dist"), _label(i, "model", w))
    if intr.fx <= 0 or intr.fy <= 0:
        raise CalibrationError(f"{w}: focal lengths must be positive")
    p = _need(data, "pose", where)
    pose = CameraPose(_numbers(_need(p, "rvec", f"{where}: pose"), 3, f"{where}: pose.rvec"),
                      _numbers(_need(p, "tvec", f"{where}: pose"), 3, f"{where}: pose.tvec"))
    if pose.height <= 0:
        raise CalibrationError(f"{where}: pose puts the camera below the board")
    c = _need(data, "canvas", where)
    w = f"{where}: canvas"
    canvas = Canvas(_number(_need(c, "ppm", w), f"{w}.ppm"), _number(_need(c, "x0", w), f"{w}.x0"),
                    _number(_need(c, "y1", w), f"{w}.y1"), _whole(_need(c, "width", w), f"{w}.width"),
                    _whole(_need(c, "height", w), f"{w}.height"))
    if canvas.ppm <= 0 or canvas.width <= 0 or canvas.height <= 0:
        raise CalibrationError(f"{w}: ppm, width and height must be positive")
    cm = _need(data, "colour_model", where)
    w = f"{where}: colour_model"
    colour = ColourModel(_numbers(_need(cm, "board_bgr", w), 3, f"{w}.board_bgr"),
                         _numbers(_need(cm, "light_bgr", w), 3, f"{w}.light_bgr"),
                         _numbers(_need(cm, "dark_bgr", w), 3, f"{w}.dark_bgr"), _label(cm, "source", w))
    raw_sizes = _need(data, "size_classes", where)
    if not isinstance(raw_sizes, list) or len(raw_sizes) != len(pieces.sizes):
        raise CalibrationError(f"{where}: size_classes must list one entry per size of the piece set "
                               f"({len(pieces.sizes)})")
    sizes = tuple(SizeClass(k, _number(_need(s, "height_mm", f"{where}: size_classes[{k}]"),
                                       f"{where}: size_classes[{k}].height_mm"),
                            _number(_need(s, "top_radius_mm", f"{where}: size_classes[{k}]"),
                                    f"{where}: size_classes[{k}].top_radius_mm"),
                            _number(_need(s, "scale", f"{where}: size_classes[{k}]"), f"{where}: size_classes[{k}].scale"),
                            _edge_scale(s.get("edge_scale", 1.0), f"{where}: size_classes[{k}].edge_scale"))
                  for k, s in enumerate(raw_sizes))
    ref_text = _need(data, "reference_png", where)
    ref = None
    if isinstance(ref_text, str) and len(ref_text) < 50_000_000:
        try:
            ref = cv2.imdecode(np.frombuffer(base64.b64decode(ref_text, validate=True), np.uint8), cv2.IMREAD_COLOR)
        except (ValueError, TypeError, cv2.error):
            ref = None
    if ref is None or ref.shape[:2] != (canvas.height, canvas.width):
        raise CalibrationError(f"{where}: reference_png is not a PNG of the canvas size "
                               f"{canvas.width}x{canvas.height}")
    seen = _need(data, "markers_seen", where)
    if not isinstance(seen, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in seen):
        raise CalibrationError(f"{where}: markers_seen must be a list of marker ids")
    model = data.get("square_model")
    if model is not None and not isinstance(model, dict):
        raise CalibrationError(f"{where}: square_model must be an object (a square model file's contents)")
    return Calibration(pieces, board, intr, _label(i, "source", w), pose, tuple(seen),
                       _number(_need(data, "reprojection_error_px", where), f"{where}: reprojection_error_px"),
                       canvas, colour, sizes, ref, model)


def _label(d: dict, key: str, where: str) -> str:
    value = d.get(key, "")
    if not isinstance(value, str):
        raise CalibrationError(f"{where}.{key}: expected text")
    return value


def load_calibration(path: str | Path) -> Calibration:
    """Read and validate a calibration file; every problem (unreadable, not UTF-8, not JSON,
    a field of the wrong kind) is a ``CalibrationError`` naming the file and the problem."""
    path = Path(path)
    try:
        data = read_json_file(path)
    except InputError as e:
        raise CalibrationError(str(e)) from None
    try:
        return from_json(data, str(path))
    except CalibrationError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError,
            ZeroDivisionError, RecursionError, cv2.error) as e:
        # a field the checks above let through but the camera model cannot use
        raise CalibrationError(f"{path}: the calibration is damaged ({e}); calibrate again") from None
