"""The Cups set-up: where the play area, every cup, bowl and stock of the user's table are, the
camera over it, the size of one bean and a picture of the table with every container empty;
made by the calibration wizard's Cups steps, saved in the data folder, read back validated.

Finding the table (pure functions, tested on rendered tables):

1. The play area's four corners tapped on a still (``fix_from_corners``), in the order South
   sees them going round: South's left, South's right, North's left (the far right), North's
   right.  Their size is the chosen layout's (``cups-4``, ``cups-6``, or ``template_layout``
   for the user's own width × depth), and with the camera module's nominal lens they give the
   camera pose (``calibration.corners.fit_plane_pose``, as for a Gobblet board without
   markers).  Or, without taps, a board's marker sheet with its four tiles laid at the play
   area's corners (``fix_from_markers``: the Gobblet marker search and pose fit, the play
   area taken as a board of its size).
2. Each container tapped once at the centre of its opening, in ``tap_order`` (South's cups
   from South's left, North's from North's left, the bowls, the stocks).  A tap is on the
   rim, ``height_mm`` above the table: the ray through it is cut at that height
   (``taps_to_table``), so a tall cup away from the camera's nadir lands where it stands, not
   where its rim's picture falls on the table.  ``find_containers`` proposes them instead:
   per container a top-down view of the plane of its rim near where the layout expects it, in
   which the rim is a circle of its known diameter (``cv2.HoughCircles``); the wizard shows
   them for the user to confirm or tap again.
3. The bean's size: a default per kind (``BEAN_MM``), not measured.  The reader learns a
   bean's area in the picture from the lone beans it sees (``CupsReader.unit_area``: the
   median of the blobs from half to 2.2 times the nominal area), so the nominal size only has
   to be within that window; a kind covers it, and a user with other beans gives the size in mm.

The file (``SETUP_FILE`` in the data folder) is JSON with ``format``/``version``: the layout as
the table actually is (a layout file's object, ``hardware.cups.layout``), the homography, the
lens and the bean size; the empty-table frame is a PNG beside it named by its content's hash,
written before the JSON that names it (both atomically), so a crash between the two leaves the
old pair intact.  ``load_cups_setup`` raises ``CupsSetupError`` naming the file and the field.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from engine.files import write_atomic
from engine.inputs import InputError, finite_number, read_json_file
from hardware.camera_model import CameraIntrinsics, CameraPose, nominal_intrinsics, project
from hardware.cups.layout import (
    LAYOUT_FORMAT,
    LAYOUT_VERSION,
    Container,
    CupsLayout,
    layout_from_dict,
)
from hardware.pieces import BoardSpec, DataFileError, MarkerLayout, check_header
from vision.cups.calibration import CupsCalibration, from_pose

from .calibrate import AUTO_CAMERA, CLEARLY_BETTER, STANDARD_CAMERA
from .canvas import Canvas, canvas_maps, rectify
from .corners import check_corner_points, fit_plane_pose
from .locate import BoardFix, detect_markers, estimate_pose
from .model import CalibrationError

SETUP_FORMAT = "cupboard-cups-setup"
SETUP_VERSION = 1
SETUP_FILE = "cups-setup.json"
EMPTY_PREFIX = "cups-empty-"  # + the frame's hash + ".png"
# one bean seen from above, as the diameter of a disc of its area (mm): a kidney bean 13 x 8.5,
# a 10 mm bead, a 20 mm coin, a 15 x 11 pebble
BEAN_MM = {"bean": 10.5, "bead": 10.0, "coin": 20.0, "stone": 12.8}
CAMERA_MODULES = ("pi3", "pi3-wide", "pi2")
CORNER_ORDER = ("start at South's left, then South's right, then the far corner on South's right "
                "(North's left), then the last one")
FIND_PPM = 2.0  # the views the containers are looked for in, pixels per mm
FIND_REACH_MM = 45.0  # the farthest from the layout's place a container is looked for
RADIUS_SLACK = 0.07  # a rim found is within this share of the layout's radius
HOUGH_EDGE, HOUGH_VOTES = 30, 15  # cv2.HoughCircles' Canny threshold and accumulator votes


class CupsSetupError(CalibrationError):
    """A Cups set-up cannot be made from what was given, or its saved file is malformed."""


@dataclass(frozen=True)
class CupsSetup:
    """One camera over one Cups table: the layout as the table actually is (containers where
    they were tapped, in table mm from the play area's corner at South's left), the camera's
    calibration (homography, lens, bean size) and the table with every container empty."""

    layout: CupsLayout
    calibration: CupsCalibration
    empty: np.ndarray  # BGR uint8, the camera's full frame


@dataclass(frozen=True)
class TableFix:
    """Where the camera is over the play area: its lens, its pose and how far the tapped
    corners are from where that pose puts them (RMS, px)."""

    intrinsics: CameraIntrinsics
    pose: CameraPose
    error_px: float
    # how the lens was chosen: ``named`` (the module given), ``corners`` (``auto``: the corners
    # or markers fit it plainly best) or ``assumed`` (``auto``: none stood out, the standard one)
    lens: str = "named"


def _is_number(v: Any) -> bool:
    """Whether ``v`` is a finite JSON number (a whole number too large for a float is not)."""
    try:
        finite_number(v, "")
    except InputError:
        return False
    return True


# -- layouts ----------------------------------------------------------------------------------

def _where(c: Container) -> dict[str, float]:
    return {"x_mm": round(c.x_mm, 2), "y_mm": round(c.y_mm, 2), "diameter_mm": c.diameter_mm,
            "height_mm": c.height_mm}


def layout_to_dict(layout: CupsLayout) -> dict[str, Any]:
    """The layout as the JSON object of a layout file (``hardware/cups/layouts``)."""
    sides = ("south", "north")
    return {
        "format": LAYOUT_FORMAT, "version": LAYOUT_VERSION, "name": layout.name,
        "description": layout.description, "cups_per_row": layout.cups_per_row,
        "width_mm": layout.width_mm, "depth_mm": layout.depth_mm,
        "cups": {s: [_where(c) for c in layout.cups(s)] for s in sides},
        "bowls": {s: _where(layout.bowl(s)) for s in sides},
        "stocks": {s: _where(layout.stock(s)) for s in sides},
    }


def _size(v: Any, what: str, low: float, high: float) -> float:
    if not _is_number(v) or not low <= v <= high:
        raise CupsSetupError(f"{what} must be from {low:g} to {high:g} mm, got {v!r}")
    return float(v)


def template_layout(cups_per_row: int, width_mm: float, depth_mm: float, cup_mm: float | None = None,
                    cup_height_mm: float = 65.0) -> CupsLayout:
    """A layout for the user's own play area of ``width_mm`` × ``depth_mm`` with
    ``cups_per_row`` cups a side, set out like the shipped ``cups-4``: the rows facing across
    the middle, a bowl at each row's right end, the stocks in front of the players.  Where
    each container stands comes from the taps; its sizes are kept: the cups ``cup_mm`` across
    the rim (None: as wide as fits, at most 75) and ``cup_height_mm`` high."""
    if isinstance(cups_per_row, bool) or not isinstance(cups_per_row, int) or not 3 <= cups_per_row <= 10:
        raise CupsSetupError(f"cups a side must be a whole number from 3 to 10, got {cups_per_row!r}")
    width_mm = _size(width_mm, "the play area's width", 200, 3000)
    depth_mm = _size(depth_mm, "the play area's depth", 200, 3000)
    cup_height_mm = _size(cup_height_mm, "a cup's height", 0, 300)
    bowl = min(130.0, depth_mm / 4)
    room = (width_mm - 2 * bowl - 40) / cups_per_row  # each cup's share of the row
    if cup_mm is None:
        pitch = min(95.0, room)
        cup = min(75.0, pitch - 12)
    else:
        cup = _size(cup_mm, "a cup's rim", 20, 300)
        if cup + 5 > room:
            raise CupsSetupError(f"{cups_per_row} cups {cup:g} mm across and two bowls do not fit in a row "
                                 f"{width_mm:g} mm wide")
        pitch = min(cup + 20, room)
    if cup < 30:
        raise CupsSetupError(f"a play area {width_mm:g} mm wide is too narrow for {cups_per_row} cups a side "
                             "and two bowls")
    stock = min(120.0, depth_mm / 2 - cup - 80)
    if stock < 30:
        raise CupsSetupError(f"a play area {depth_mm:g} mm deep is too shallow for two rows and two stocks")
    first = width_mm / 2 - pitch * (cups_per_row - 1) / 2
    xs = [first + pitch * k for k in range(cups_per_row)]
    gap = cup / 2 + 22

    def at(x: float, y: float, d: float, h: float) -> dict[str, float]:
        return {"x_mm": x, "y_mm": y, "diameter_mm": d, "height_mm": h}

    data = {"name": f"own-{cups_per_row}",
            "description": f"{cups_per_row} cups a side on {width_mm:g} x {depth_mm:g} mm",
            "cups_per_row": cups_per_row, "width_mm": float(width_mm), "depth_mm": float(depth_mm),
            "cups": {"south": [at(x, depth_mm / 2 - gap, cup, cup_height_mm) for x in xs],
                     "north": [at(x, depth_mm / 2 + gap, cup, cup_height_mm) for x in reversed(xs)]},
            "bowls": {"south": at(width_mm - bowl / 2 - 15, depth_mm / 2, bowl, 55),
                      "north": at(bowl / 2 + 15, depth_mm / 2, bowl, 55)},
            "stocks": {"south": at(width_mm / 2, stock / 2 + 15, stock, 18),
                       "north": at(width_mm / 2, depth_mm - stock / 2 - 15, stock, 18)}}
    try:
        return layout_from_dict(data, "your play area")
    except DataFileError as e:
        raise CupsSetupError(str(e)) from None


def container_label(c: Container) -> str:
    """What the wizard calls a container: ``South's cup 1 (from South's left)``,
    ``North's bowl``, ``South's stock``."""
    side = c.side.capitalize()
    if c.kind == "cup":
        return f"{side}'s cup {c.index + 1} (from {side}'s left)"
    return f"{side}'s {c.kind}"


def tap_order(layout: CupsLayout) -> list[str]:
    """The containers in the order the wizard asks for them (the layout's order)."""
    return [container_label(c) for c in layout.containers]


# -- finding the table ------------------------------------------------------------------------

def play_area_corners(layout: CupsLayout) -> np.ndarray:
    """The play area's corners (4, 3) in table mm, in the order they are tapped: South's left,
    South's right, the far corner on South's right, the far corner on South's left."""
    w, d = layout.width_mm, layout.depth_mm
    return np.array([[0.0, 0.0, 0.0], [w, 0.0, 0.0], [w, d, 0.0], [0.0, d, 0.0]])


def camera_intrinsics(camera_model: str, width: int, height: int) -> CameraIntrinsics:
    """The nominal lens of ``camera_model`` (``CAMERA_MODULES``) at the still's size."""
    if camera_model not in CAMERA_MODULES:
        raise CupsSetupError(f"unknown camera module {camera_model!r}; known: {AUTO_CAMERA}, "
                             f"{', '.join(CAMERA_MODULES)}")
    return nominal_intrinsics(camera_model, width, height)


def fix_from_corners(points: Sequence[Sequence[float]], layout: CupsLayout, width: int, height: int,
                     camera_model: str = "pi3") -> TableFix:
    """The camera over the play area from its four corners tapped on a ``width`` × ``height``
    still, in ``play_area_corners``' order, through the lens of ``camera_model``; with
    ``auto``, the module whose lens the corners fit plainly best, else the standard one (as
    the Gobblet calibration picks it from the markers: a camera looking nearly straight down
    sees the same rectangle through any lens, at another height).  CupsSetupError says what
    is wrong with the taps."""
    models = CAMERA_MODULES if camera_model == AUTO_CAMERA else (camera_model,)
    intrs = [camera_intrinsics(m, width, height) for m in models]
    try:
        pts = check_corner_points(points, width, height, "play area", CORNER_ORDER)
        what = f"a play area of {layout.width_mm:g} x {layout.depth_mm:g} mm"
        fits, failed = [], None
        for intr in intrs:
            try:
                fits.append((intr, fit_plane_pose(play_area_corners(layout), pts, intr, what)))
            except CalibrationError as e:
                failed = e
        if not fits:
            raise failed or CupsSetupError("no camera position fits these four corners")
    except CupsSetupError:
        raise
    except CalibrationError as e:
        raise CupsSetupError(str(e)) from None
    return _clearest(fits, camera_model != AUTO_CAMERA)


def play_area_board(layout: CupsLayout, markers: MarkerLayout) -> BoardSpec:
    """The play area as a board for the marker code (``calibration.locate``,
    ``hardware.markers``): its outer edge is the play area's (to half a millimetre), with
    ``markers`` (a printed marker sheet's) on tiles just outside its four corners, ids[0] at
    South's left going round as the corners are tapped.  It has no squares of its own."""
    cols, rows = max(1, round(layout.width_mm * 2)), max(1, round(layout.depth_mm * 2))
    return BoardSpec(f"{layout.name} play area", "", rows, cols, 0.5, 0.0, 0.0, (0, 0, 0), (0, 0, 0), markers)


def fix_from_markers(image: np.ndarray, layout: CupsLayout, markers: MarkerLayout,
                     camera_model: str = AUTO_CAMERA) -> TableFix:
    """The camera over the play area from the marker sheet's four tiles laid at its corners
    (each tile's inner corner on the play area's corner, as the sheet lays them at a board's),
    found in ``image`` as the Gobblet calibration finds them (``calibration.locate``); at least
    three must be seen.  The lens as ``fix_from_corners`` chooses it, from the markers' corners."""
    board = play_area_board(layout, markers)
    found = detect_markers(image, board, thorough=True)
    if len(found) < 3:
        seen = f"only {sorted(found)}" if found else "none"
        raise CupsSetupError(f"the marker sheet's markers {list(markers.ids)} ({markers.dictionary}) must lie at the "
                             f"play area's corners, at least 3 in view; {seen} seen: tap the corners instead")
    h, w = image.shape[:2]
    models = CAMERA_MODULES if camera_model == AUTO_CAMERA else (camera_model,)
    fits = [(intr, fix) for intr in (camera_intrinsics(m, w, h) for m in models)
            if (fix := estimate_pose(found, board, intr)) is not None]
    if not fits:
        raise CupsSetupError("no camera position fits the markers seen")
    return _clearest(fits, camera_model != AUTO_CAMERA)


def _clearest(fits: list[tuple[CameraIntrinsics, BoardFix]], named: bool) -> TableFix:
    """Of the fits through several lenses, the one plainly best, else the standard lens's."""
    best = min(fits, key=lambda f: f[1].error_px)
    if named:
        return TableFix(best[0], best[1].pose, best[1].error_px)
    if len(fits) == 1:  # the only lens that fits at all
        return TableFix(best[0], best[1].pose, best[1].error_px, "corners")
    standard = next((f for f in fits if f[0].model == STANDARD_CAMERA), best)
    if best[1].error_px < CLEARLY_BETTER * standard[1].error_px:
        return TableFix(best[0], best[1].pose, best[1].error_px, "corners")
    return TableFix(standard[0], standard[1].pose, standard[1].error_px, "assumed")


def rim_pixels(layout: CupsLayout, fix: TableFix, centres: Sequence[Sequence[float]] | None = None) -> np.ndarray:
    """Where each container's opening's centre (its rim's height) appears in the frame, px
    (N, 2): the first ``len(centres)`` containers at ``centres`` (mm), else where ``layout``
    puts them."""
    where = [(c.x_mm, c.y_mm) for c in layout.containers] if centres is None else list(centres)
    pts = np.array([[x, y, c.height_mm] for (x, y), c in zip(where, layout.containers)], np.float64).reshape(-1, 3)
    return project(pts, fix.intrinsics, fix.pose) if len(pts) else np.zeros((0, 2))


def taps_to_table(points: Sequence[Sequence[float]], layout: CupsLayout, fix: TableFix) -> np.ndarray:
    """The table positions (mm, (n, 2)) of the first n containers (``tap_order``) tapped at
    ``points`` (px): each tap's ray cut at its container's rim height."""
    img = np.asarray(points, np.float64).reshape(-1, 1, 2)
    if len(img) == 0:
        return np.zeros((0, 2))
    intr, pose = fix.intrinsics, fix.pose
    rays = cv2.undistortPoints(img, intr.K, intr.D).reshape(-1, 2)
    d = (pose.R.T @ np.column_stack([rays, np.ones(len(rays))]).T).T  # world directions
    c = pose.centre
    out = []
    for (dx, dy, dz), cont in zip(d, layout.containers):
        if dz >= -1e-9:  # the ray never comes down to the table
            raise CupsSetupError(f"the tap for {container_label(cont)} is above the horizon: tap the table")
        s = (cont.height_mm - c[2]) / dz
        out.append((c[0] + s * dx, c[1] + s * dy))
    return np.asarray(out)


def check_taps(points: Any, layout: CupsLayout, width: int, height: int) -> list[list[float]]:
    """``points`` as a list of [x, y], at most one per container, each inside the
    ``width`` × ``height`` picture; CupsSetupError names the tap and its container."""
    n = len(layout.containers)
    if not isinstance(points, list) or not all(
            isinstance(p, (list, tuple)) and len(p) == 2 and all(_is_number(v) for v in p)
            for p in points):
        raise CupsSetupError("taps must be a list of [x, y] pixel positions")
    if len(points) > n:
        raise CupsSetupError(f"the {layout.name} table has {n} containers; got {len(points)} taps")
    for k, (x, y) in enumerate(points):
        if not (0 <= x <= width - 1 and 0 <= y <= height - 1):
            raise CupsSetupError(f"tap {k + 1} ({container_label(layout.containers[k])}) at ({x:g}, {y:g}) lies "
                                 f"outside the {width}x{height} picture")
    return [[float(x), float(y)] for x, y in points]


def check_placed(layout: CupsLayout, centres: np.ndarray) -> None:
    """The first ``len(centres)`` containers placed at ``centres`` (mm) must lie inside the
    play area and apart; CupsSetupError names the container (and the one it overlaps)."""
    placed = list(zip(layout.containers, np.asarray(centres, np.float64).reshape(-1, 2)))
    for c, (x, y) in placed:
        r = c.radius_mm
        if x - r < -r / 2 or y - r < -r / 2 or x + r > layout.width_mm + r / 2 or y + r > layout.depth_mm + r / 2:
            raise CupsSetupError(f"{container_label(c)} lies outside the play area ({x:.0f}, {y:.0f} mm from "
                                 "South's left corner): tap the centre of its opening, or check the corners")
    for i, (a, pa) in enumerate(placed):
        for b, pb in placed[i + 1:]:
            gap = math.hypot(*(pa - pb)) - a.radius_mm - b.radius_mm
            if gap < -2.0:  # a tap is a few mm off; two containers a bean apart are no overlap
                raise CupsSetupError(f"{container_label(b)} overlaps {container_label(a)} by {-gap:.0f} mm: "
                                     "tap the centre of each container's opening")


def table_layout(template: CupsLayout, centres: np.ndarray) -> tuple[CupsLayout, tuple[float, float]]:
    """``template`` with every container moved to ``centres`` (mm, the layout's order) and
    validated as a layout file is; sizes are the template's.  A container a little over the
    play area's edge (the corners were tapped by hand) widens the play area there: the
    answer's second part is where the new play area's origin lies in the old one's mm."""
    centres = np.asarray(centres, np.float64).reshape(-1, 2)
    if len(centres) != len(template.containers):
        raise CupsSetupError(f"tap all {len(template.containers)} containers (got {len(centres)})")
    check_placed(template, centres)
    lo = np.array([min(0.0, min(x - c.radius_mm for c, (x, _) in zip(template.containers, centres))),
                   min(0.0, min(y - c.radius_mm for c, (_, y) in zip(template.containers, centres)))])
    moved = [Container(c.kind, c.side, c.index, float(x - lo[0]), float(y - lo[1]), c.diameter_mm, c.height_mm)
             for c, (x, y) in zip(template.containers, centres)]
    width = max(template.width_mm - lo[0], max(c.x_mm + c.radius_mm for c in moved))
    depth = max(template.depth_mm - lo[1], max(c.y_mm + c.radius_mm for c in moved))
    table = CupsLayout(template.name, template.description, template.cups_per_row, float(width), float(depth),
                       tuple(moved))
    try:
        return layout_from_dict(layout_to_dict(table), "the tapped table"), (float(lo[0]), float(lo[1]))
    except DataFileError as e:
        raise CupsSetupError(f"{e}: tap the containers in the order asked") from None


def _raised(pose: CameraPose, z: float) -> CameraPose:
    """The pose seen from the plane z = ``z`` (its points (x, y, 0) are the table's (x, y, z))."""
    return CameraPose.from_matrices(pose.R, pose.t + pose.R[:, 2] * z)


def find_containers(image: np.ndarray, layout: CupsLayout, fix: TableFix,
                    reach_mm: float = FIND_REACH_MM) -> list[tuple[float, float] | None]:
    """Each container's centre (table mm) found near where ``layout`` puts it, or None where
    no rim of its size is seen within ``reach_mm`` (less where neighbours stand closer).

    Per container: a top-down view of the plane of its rim around the expected place, in
    which its rim is a circle of its diameter; the strongest circle of about that size whose
    centre lies within reach."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    found: list[tuple[float, float] | None] = []
    centres = np.array([[c.x_mm, c.y_mm] for c in layout.containers])
    for i, c in enumerate(layout.containers):
        others = np.delete(centres, i, axis=0)
        reach = min(reach_mm, 0.5 * float(np.min(np.hypot(*(others - centres[i]).T))))
        half = c.radius_mm * 1.2 + reach
        n = int(np.ceil(2 * half * FIND_PPM))
        canvas = Canvas(FIND_PPM, c.x_mm - half, c.y_mm + half, n, n)
        view = rectify(gray, canvas_maps(canvas, fix.intrinsics, _raised(fix.pose, c.height_mm)))
        view = cv2.GaussianBlur(view, (0, 0), 1.5)
        r = c.radius_mm * FIND_PPM
        # tuned on rendered tables seen through their true pose (cups-4 and cups-6, seeds 0-29,
        # looks alternating): the classic gradient Hough with the radius held to 7 % and a low
        # edge threshold (a pale saucer on a pale cloth) found all 840 containers, median 1.5 mm
        # off, at most 4.8; its ALT variant and wider radii missed some or drifted to 8 mm
        circles = cv2.HoughCircles(view, cv2.HOUGH_GRADIENT, dp=1, minDist=r * 0.5, param1=HOUGH_EDGE,
                                   param2=HOUGH_VOTES, minRadius=int(r * (1 - RADIUS_SLACK)),
                                   maxRadius=int(np.ceil(r * (1 + RADIUS_SLACK))))
        best = None
        if circles is not None:
            for cx, cy, _ in circles.reshape(-1, 3):  # strongest first
                x, y = canvas.to_mm(np.array([cx, cy]))
                if math.hypot(x - c.x_mm, y - c.y_mm) <= reach:
                    best = (float(x), float(y))
                    break
        found.append(best)
    return found


def make_setup(template: CupsLayout, fix: TableFix, centres: np.ndarray, empty: np.ndarray,
               bean_mm: float) -> CupsSetup:
    """The set-up from the play area's fix, every container's tapped centre (mm), a frame of
    the empty table (the still's size) and the bean's size."""
    intr = fix.intrinsics
    if empty.ndim != 3 or empty.shape[:2] != (intr.height, intr.width):
        raise CupsSetupError(f"the empty-table frame must be {intr.width}x{intr.height} like the still")
    if not 2.0 <= bean_mm <= 60.0:
        raise CupsSetupError(f"a bean must be 2-60 mm across, got {bean_mm:g}")
    layout, (dx, dy) = table_layout(template, centres)
    pose = fix.pose
    if dx or dy:  # the table's origin moved to (dx, dy): a point (x, y) is now (x + dx, y + dy) of the old
        pose = CameraPose.from_matrices(pose.R, pose.t + pose.R @ np.array([dx, dy, 0.0]))
    return CupsSetup(layout, from_pose(intr, pose, bean_mm), empty)


# -- the file ---------------------------------------------------------------------------------

def setup_path(folder: str | Path) -> Path:
    """The set-up file in the data folder ``folder``."""
    return Path(folder) / SETUP_FILE


def save_cups_setup(folder: str | Path, setup: CupsSetup) -> Path:
    """Save ``setup`` into the data folder ``folder``: the empty frame as a PNG named by its
    hash, then the JSON naming it, each atomically and durably; older frames are removed.
    A full disk raises ``StorageError``.  Answers the JSON file's path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    ok, png = cv2.imencode(".png", setup.empty)
    if not ok:
        raise CupsSetupError("could not encode the empty-table frame as PNG")
    data = png.tobytes()
    frame_name = f"{EMPTY_PREFIX}{hashlib.sha256(data).hexdigest()[:16]}.png"
    write_atomic(folder / frame_name, data, what="the Cups empty-table frame")
    cal, intr = setup.calibration, setup.calibration.intrinsics
    doc = {
        "format": SETUP_FORMAT,
        "version": SETUP_VERSION,
        "layout": layout_to_dict(setup.layout),
        "homography": [list(row) for row in cal.homography],
        "intrinsics": {"fx": intr.fx, "fy": intr.fy, "cx": intr.cx, "cy": intr.cy, "width": intr.width,
                       "height": intr.height, "dist": list(intr.dist), "model": intr.model},
        "bean_mm": cal.bean_mm,
        "camera_height_mm": round(cal.pose().height, 1),  # for the reader of the file; not read back
        "empty_frame": frame_name,
    }
    path = setup_path(folder)
    write_atomic(path, json.dumps(doc, indent=1), what="the Cups set-up")
    for old in folder.glob(f"{EMPTY_PREFIX}*.png"):
        if old.name != frame_name:
            old.unlink(missing_ok=True)
    return path


def _num(d: dict, key: str, where: str) -> float:
    if key not in d:
        raise CupsSetupError(f"{where}: missing field {key!r}")
    try:
        return finite_number(d[key], f"{where}.{key}")
    except InputError as e:
        raise CupsSetupError(str(e)) from None


def _intrinsics(raw: Any, where: str) -> CameraIntrinsics:
    if not isinstance(raw, dict):
        raise CupsSetupError(f"{where}: must be an object with fx, fy, cx, cy, width, height, dist")
    size = []
    for key in ("width", "height"):
        v = raw.get(key)
        if isinstance(v, bool) or not isinstance(v, int) or not 16 <= v <= 20_000:
            raise CupsSetupError(f"{where}.{key}: must be a whole number of pixels, got {v!r}")
        size.append(v)
    dist = raw.get("dist")
    if (not isinstance(dist, list) or len(dist) not in (4, 5, 8)
            or not all(_is_number(v) for v in dist)):
        raise CupsSetupError(f"{where}.dist: must be 4, 5 or 8 distortion coefficients")
    fx, fy = _num(raw, "fx", where), _num(raw, "fy", where)
    if fx <= 0 or fy <= 0:
        raise CupsSetupError(f"{where}: focal lengths must be positive")
    model = raw.get("model", "")
    if not isinstance(model, str):
        raise CupsSetupError(f"{where}.model: must be text")
    return CameraIntrinsics(fx, fy, _num(raw, "cx", where), _num(raw, "cy", where), size[0], size[1],
                            tuple(float(v) for v in dist), model)


def setup_from_json(data: Any, folder: Path, where: str) -> CupsSetup:
    """Validate a parsed set-up file of the data folder ``folder`` and build the CupsSetup
    (reading its empty frame); errors start with ``where`` and name the field."""
    check_header(data, SETUP_FORMAT, SETUP_VERSION, where, CupsSetupError, "; set the Cups table up again")
    raw_layout = data.get("layout")
    try:
        check_header(raw_layout, LAYOUT_FORMAT, LAYOUT_VERSION, f"{where}: layout", CupsSetupError)
        layout = layout_from_dict(raw_layout, f"{where}: layout")
    except DataFileError as e:
        raise CupsSetupError(str(e)) from None
    H = data.get("homography")
    if (not isinstance(H, list) or len(H) != 3 or not all(isinstance(r, list) and len(r) == 3 for r in H)
            or not all(_is_number(v) for r in H for v in r)):
        raise CupsSetupError(f"{where}.homography: must be 3 rows of 3 numbers")
    intr = _intrinsics(data.get("intrinsics"), f"{where}.intrinsics")
    bean = _num(data, "bean_mm", where)
    try:
        cal = CupsCalibration(tuple(tuple(float(v) for v in r) for r in H), intr, bean)
        height = cal.pose().height
    except ValueError as e:
        field = "bean_mm" if "bean" in str(e) else "homography"
        raise CupsSetupError(f"{where}.{field}: {e}") from None
    if not height > 0:
        raise CupsSetupError(f"{where}.homography: puts the camera below the table")
    name = data.get("empty_frame")
    if not isinstance(name, str) or not name.startswith(EMPTY_PREFIX) or not name.endswith(".png") or "/" in name \
            or "\\" in name:
        raise CupsSetupError(f"{where}.empty_frame: must name a {EMPTY_PREFIX}….png file beside it, got {name!r}")
    frame_path = folder / name
    if not frame_path.is_file():
        raise CupsSetupError(f"{frame_path}: the empty-table frame named by {where} is missing; "
                             "set the Cups table up again")
    empty = cv2.imread(str(frame_path), cv2.IMREAD_COLOR)
    if empty is None:
        raise CupsSetupError(f"{frame_path}: not a readable PNG picture (the empty-table frame of {where})")
    if empty.shape[:2] != (intr.height, intr.width):
        raise CupsSetupError(f"{frame_path}: the empty-table frame is {empty.shape[1]}x{empty.shape[0]}, "
                             f"{where}.intrinsics says {intr.width}x{intr.height}")
    return CupsSetup(layout, cal, empty)


def load_cups_setup(folder: str | Path) -> CupsSetup:
    """Read and validate the Cups set-up saved in the data folder ``folder``; every problem
    (no set-up, not JSON, a wrong version, a field of the wrong kind, a layout that fails the
    layout checks, a missing or unreadable frame) is a ``CupsSetupError`` naming the file and
    the field."""
    folder = Path(folder)
    path = setup_path(folder)
    if not path.exists():
        raise CupsSetupError(f"{path}: no Cups set-up saved; run the calibration wizard's Cups steps")
    try:
        data = read_json_file(path)
    except InputError as e:
        raise CupsSetupError(str(e)) from None
    return setup_from_json(data, folder, str(path))
