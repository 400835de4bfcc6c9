"""The calibration wizard, step by step: (a) are the four markers in view, (b) capture frames
of the empty board and calibrate (with the camera module the user names, or the one that
fits the markers best), (c) measure the user's own set: one cup of every size in both colours
on the squares ``vision.set_measure.set_layout`` names, which teaches recognition the real
pieces' sizes and colours under this light, (d) check that recognition reads one cup of each
size, (e) save the calibration into the data folder and referee with it.

Without markers, step (b) is done by hand instead: ``POST /still`` keeps a still frame (shown
by ``GET /still/<id>.jpg``), the user taps the board's four outer corners on it, and
``POST /corners`` calibrates from them (``calibration.corners``).

A Cups table has its own steps under ``/cups`` (``calibration.cups``): on the same still, the
play area's four corners (``POST /cups/corners``, which also chooses the layout; or the marker
sheet's tiles laid at them, ``POST /cups/markers``), then each
container tapped in a named order (``POST /cups/containers`` with the taps so far, checked at
each tap; ``POST /cups/find`` proposes them), the empty table (``POST /cups/empty``) and save
(``POST /cups/save``, ``cups-setup.json`` in the data folder).

The captures live in ``Companion.wizard`` (one wizard at a time: the board is one).  Every
step that changes anything needs the token."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from itertools import count as counter
from typing import Any

import cv2
import numpy as np
from flask import Blueprint, Response, jsonify

from calibration.calibrate import AUTO_CAMERA, STANDARD_CAMERA, calibrate
from calibration.corners import calibrate_from_corners
from calibration.cups import (
    BEAN_MM,
    CAMERA_MODULES,
    CupsSetup,
    CupsSetupError,
    TableFix,
    check_placed,
    check_taps,
    find_containers,
    fix_from_corners,
    fix_from_markers,
    make_setup,
    rim_pixels,
    save_cups_setup,
    setup_path,
    tap_order,
    taps_to_table,
    template_layout,
)
from calibration.locate import detect_markers
from calibration.model import Calibration, CalibrationError, save_calibration
from engine.inputs import InputError, finite_number
from hardware.cups.layout import CupsLayout, layout_names, load_layout
from hardware.pieces import (
    BoardSpec,
    DataFileError,
    PieceSet,
    load_board,
    load_piece_set,
    piece_set_names,
)
from vision.cups.empty import check_empty_table
from vision.observation import CUP
from vision.recognise import Recogniser
from vision.set_measure import describe_layout, measure_set

from ..services import Companion, companion
from .errors import ApiError
from .game_api import json_body
from .security import require_control

bp = Blueprint("wizard_api", __name__, url_prefix="/api/calibration")

MAX_FRAMES = 8
# what the wizard offers for the camera module, in the words on the module's box
CAMERA_NAMES = {AUTO_CAMERA: "find it from the markers", "pi3": "Camera Module 3",
                "pi3-wide": "Camera Module 3 Wide", "pi2": "Camera Module 2"}
# a Pi camera's sensor, as Picamera2 names it, and the module it is on
SENSOR_MODULES = {"imx708": "pi3", "imx708_wide": "pi3-wide", "imx219": "pi2"}
CAPTURE_TIMEOUT = 10.0  # seconds to wait for the camera's next frame


@dataclass
class Wizard:
    """What the wizard captured so far."""

    pieces: PieceSet
    board: BoardSpec
    empty: list[np.ndarray] = field(default_factory=list)
    set_frame: np.ndarray | None = None  # the set's layout (step c)
    set_advice: tuple[str, ...] = ()
    camera_model: str = AUTO_CAMERA
    draft: Calibration | None = None
    corners: list[list[float]] | None = None  # the tapped corners, when calibrated without markers
    still: np.ndarray | None = None  # the still frame shown for tapping the corners
    still_id: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    # the last marker search for the status: (monotonic time, frame index, ids seen)
    markers: tuple[float, int, tuple[int, ...]] | None = None
    search_lock: threading.Lock = field(default_factory=threading.Lock)
    cups: "CupsSteps | None" = None  # the Cups steps, started on first use


@dataclass
class CupsSteps:
    """What the wizard's Cups steps have so far: the layout chosen (its sizes; the taps say
    where each container stands), the camera module, the play area found on the still
    ``still_id``, the containers tapped (px, in ``tap_order``), the empty table, the draft."""

    layout: CupsLayout
    camera_model: str = AUTO_CAMERA
    fix: TableFix | None = None
    still_id: int = 0
    taps: list[list[float]] = field(default_factory=list)
    draft: CupsSetup | None = None
    # what the empty-table check doubted about the draft's empty table (a bean may be left in a
    # container): told to the player with the draft, to check before saving
    empty_warnings: tuple[str, ...] = ()
    # how the play area was found ("corners" or "markers") and the corners tapped (px): the
    # page shows them again after a reload
    method: str = "corners"
    corners: list[list[float]] | None = None


_STILL_IDS = counter(1)


def _camera() -> Any:
    camera = companion().camera
    if camera is None:
        raise ApiError(404, "there is no camera to calibrate: start the server with a camera")
    return camera


def default_equipment(services: Companion) -> tuple[PieceSet, BoardSpec]:
    """The piece set and board to calibrate for: the live calibration's, else the camera's
    (the demo camera knows its own), else the current game's set, else the Gobblet set."""
    live = services.live
    if live is not None and live.calibration is not None:
        return live.calibration.pieces, live.calibration.board
    source = getattr(services.camera, "source", None)
    pieces, board = getattr(source, "pieces", None), getattr(source, "board", None)
    if isinstance(pieces, PieceSet) and isinstance(board, BoardSpec):
        return pieces, board
    session = services.hub.session
    name = session.journal.header.tags.get("Set", "gobblet") if session is not None else "gobblet"
    data_dir = services.config.data_dir
    pieces = load_piece_set(name if name in piece_set_names(data_dir) else "gobblet", data_dir)
    return pieces, load_board(pieces.default_board, data_dir)


def wizard(services: Companion | None = None) -> Wizard:
    """The wizard of this app, started on first use."""
    services = services or companion()
    if services.wizard is None:
        services.wizard = Wizard(*default_equipment(services))
    return services.wizard


def capture(camera: Any, count: int, timeout: float = CAPTURE_TIMEOUT) -> list[np.ndarray]:
    """``count`` distinct frames from the camera thread (copies), waiting for each."""
    frames: list[np.ndarray] = []
    last_index = None
    deadline = time.monotonic() + timeout
    while len(frames) < count:
        frame = camera.latest_frame()
        if frame is not None and frame.index != last_index:
            frames.append(frame.image.copy())
            last_index = frame.index
            continue
        if time.monotonic() > deadline:
            raise ApiError(503, "the camera sends no frames: check its cable and the health panel")
        time.sleep(0.03)
    return frames


def summary(cal: Calibration | None) -> dict[str, Any] | None:
    """What the wizard shows about a calibration."""
    if cal is None:
        return None
    return {
        "edge_scale": [round(sc.edge_scale, 3) for sc in cal.sizes],
        "set": cal.pieces.name,
        "board": cal.board.name,
        "markers": list(cal.markers_seen),
        "reprojection_error_px": round(cal.reprojection_error_px, 2),
        "camera_height_mm": round(cal.camera_height_mm, 1),
        "colours": cal.colour.source,
        "camera_model": cal.intrinsics_source,
        "method": "markers" if cal.markers_seen else "corners",
    }


def _sensor_module() -> str:
    """The camera module the Pi camera's sensor names (``SENSOR_MODULES``), else ``auto``."""
    source = getattr(companion().camera, "source", None)
    return SENSOR_MODULES.get(str(getattr(source, "model", "")).lower(), AUTO_CAMERA)


def _camera_model(w: Wizard) -> str:
    """The camera module to calibrate with: the one named, else the one the Pi camera's sensor
    says, else ``auto`` (the markers tell the lens, ``calibration.calibrate``)."""
    if w.camera_model != AUTO_CAMERA:
        return w.camera_model
    return _sensor_module()


def _calibrate(w: Wizard) -> Calibration:
    """The draft from what the wizard has: the empty board (by markers, or by the tapped
    corners with the module named or the standard one), then the set measured if it was."""
    try:
        if w.corners is not None:
            model = w.camera_model if w.camera_model != AUTO_CAMERA else STANDARD_CAMERA
            cal = calibrate_from_corners(w.empty, w.corners, w.pieces, w.board, camera_model=model)
        else:
            cal = calibrate(w.empty, w.pieces, w.board, camera_model=_camera_model(w))
        w.set_advice = ()
        if w.set_frame is not None:
            measured = measure_set(cal, w.set_frame)
            cal, w.set_advice = measured.calibration, measured.advice
        return cal
    except CalibrationError as e:
        raise ApiError(422, f"calibration failed: {e}") from None


MARKER_SEARCH_EVERY = 1.0  # seconds: the most often a status request searches a frame for markers


def markers_seen(w: Wizard, frame: Any) -> list[int]:
    """The marker ids in ``frame``.  A full-frame marker search costs the referee frames, and
    any number of pages may poll the status: the result is shared, searched again at most
    once a ``MARKER_SEARCH_EVERY`` and only for a new frame, and a request that finds a search
    running takes the last result instead of waiting."""
    if frame is None:
        return []
    cached = w.markers
    fresh = cached is not None and (cached[1] == frame.index or time.monotonic() - cached[0] < MARKER_SEARCH_EVERY)
    if fresh or not w.search_lock.acquire(blocking=False):
        return list(cached[2]) if cached is not None else []
    try:
        seen = sorted(int(i) for i in detect_markers(frame.image, w.board))
        w.markers = (time.monotonic(), frame.index, tuple(seen))
        return seen
    finally:
        w.search_lock.release()


@bp.get("")
def status():
    """Step (a): the markers the camera sees now, and where the wizard is."""
    services = companion()
    camera = _camera()
    w = wizard(services)
    frame = camera.latest_frame()
    seen = markers_seen(w, frame)
    expected = list(w.board.markers.ids)
    live = services.live
    names = piece_set_names(services.config.data_dir)
    return jsonify(
        set=w.pieces.name,
        board=w.board.name,
        # the user's own sets (cupboard set new) first, then the shipped ones
        sets=list(names),
        own_sets=[n for n, where in names.items() if where == "user"],
        frame=None if frame is None else {"width": frame.image.shape[1], "height": frame.image.shape[0]},
        markers={"expected": expected, "seen": seen, "found": set(expected) <= set(seen)},
        empty_frames=len(w.empty),
        cameras=[{"id": k, "name": v} for k, v in CAMERA_NAMES.items()],
        camera=w.camera_model,
        layout=describe_layout(w.board, w.pieces),
        set_measured=w.set_frame is not None,
        advice=list(w.set_advice),
        still=None if w.still is None else w.still_id,
        draft=summary(w.draft),
        active=summary(None if live is None else live.calibration),
        saved=services.calibration_path.exists(),
    )


@bp.post("/empty")
@require_control
def empty():
    """Step (b): ``{"frames": 3, "set": "gobblet", "camera": "auto"}`` captures frames of the
    empty board and calibrates from them (``camera``: a module of ``CAMERA_NAMES``; ``auto``
    finds it).  The set measured in step (c) is dropped: measure it again."""
    services = companion()
    camera = _camera()
    data = json_body()
    count = data.get("frames", 3)
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_FRAMES:
        raise ApiError(400, f"frames must be a whole number from 1 to {MAX_FRAMES}")
    w = wizard(services)
    with w.lock:
        _choose_set(w, data)
        _choose_camera(w, data)
        w.empty = capture(camera, count)
        w.set_frame = None
        w.corners = None
        w.draft = None
        w.draft = _calibrate(w)
        return jsonify(draft=summary(w.draft), empty_frames=len(w.empty))


def _choose_camera(w: Wizard, data: dict[str, Any]) -> None:
    if "camera" in data:
        name = data["camera"]
        if not isinstance(name, str) or name not in CAMERA_NAMES:
            raise ApiError(422, f"unknown camera module {name!r}; known: {', '.join(CAMERA_NAMES)}")
        w.camera_model = name


def _choose_set(w: Wizard, data: dict[str, Any]) -> None:
    if "set" in data:
        name = data["set"]
        data_dir = companion().config.data_dir
        names = piece_set_names(data_dir)
        if not isinstance(name, str) or name not in names:
            raise ApiError(422, f"unknown piece set {name!r}; known: {', '.join(names)}")
        try:
            w.pieces = load_piece_set(name, data_dir)
            w.board = load_board(w.pieces.default_board, data_dir)
            w.markers = None  # another board has other markers
        except DataFileError as e:
            raise ApiError(422, str(e)) from None


@bp.post("/still")
@require_control
def still():
    """Without markers, step (b) by hand: keep a still frame of the empty board to tap the
    four corners on.  Answers its ``frame`` id and size; the picture is ``/still/<id>.jpg``."""
    camera = _camera()
    w = wizard()
    image = capture(camera, 1)[0]
    with w.lock:
        w.still = image
        w.still_id = next(_STILL_IDS)
        return jsonify(frame=w.still_id, width=image.shape[1], height=image.shape[0],
                       url=f"{bp.url_prefix}/still/{w.still_id}.jpg")


@bp.get("/still/<int:frame_id>.jpg")
def still_jpeg(frame_id: int):
    """The still frame kept for tapping (what the camera preview shows anyway, full size)."""
    w = wizard()
    with w.lock:
        image = w.still if w.still_id == frame_id else None
    if image is None:
        raise ApiError(404, "that still frame is gone: take a new one")
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:
        raise ApiError(500, "could not encode the still frame")
    return Response(jpeg.tobytes(), mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


def _corner_points(raw: Any) -> list[list[float]]:
    if not isinstance(raw, list) or not all(
            isinstance(p, list) and len(p) == 2
            # finite_number: a whole number too large for a float is no position either
            and all(_is_position(v) for v in p) for p in raw):
        raise ApiError(400, "points must be a list of [x, y] pixel positions")
    if len(raw) != 4:
        raise ApiError(400, f"points must be the board's four corners, got {len(raw)}")
    return [[float(x), float(y)] for x, y in raw]


def _is_position(v: Any) -> bool:
    try:
        finite_number(v, "a position")
    except InputError:
        return False
    return True


@bp.post("/corners")
@require_control
def corners():
    """Step (b) without markers: ``{"points": [[x, y] × 4], "frame": id, "set": name}`` are the
    board's outer corners tapped on the still frame ``id`` (default: the last still kept,
    else the camera's next frame), from a1's corner round the board as White sees it: the
    other end of rank 1, the far corner, the far end of file a.  Calibrates from them."""
    services = companion()
    camera = _camera()
    data = json_body()
    points = _corner_points(data.get("points"))
    frame_id = data.get("frame")
    if frame_id is not None and (not isinstance(frame_id, int) or isinstance(frame_id, bool)):
        raise ApiError(400, "frame must be the id of a still frame")
    w = wizard(services)
    with w.lock:
        _choose_set(w, data)
        _choose_camera(w, data)
        if frame_id is not None:
            if w.still is None or frame_id != w.still_id:
                raise ApiError(409, "that still frame is gone: take a new one and tap the corners again")
            image = w.still
        else:
            image = w.still if w.still is not None else capture(camera, 1)[0]
        previous = (w.empty, w.corners, w.set_frame, w.draft)
        w.empty, w.corners, w.set_frame, w.draft = [image], points, None, None
        try:
            w.draft = _calibrate(w)
        except ApiError:
            w.empty, w.corners, w.set_frame, w.draft = previous
            raise
        return jsonify(draft=summary(w.draft), empty_frames=1)


@bp.post("/set")
@require_control
def measure():
    """Step (c): with one cup of every size in both colours where ``layout`` (in ``GET``) puts
    them, capture a frame and measure the set's sizes and colours from it.  Answers the draft
    and advice on what looked wrong (never a refusal for the light alone)."""
    w = wizard()
    camera = _camera()
    with w.lock:
        if not w.empty:
            raise ApiError(409, "capture the empty board first (step b)")
        previous = (w.set_frame, w.set_advice, w.draft)
        w.set_frame = capture(camera, 1)[0]
        try:
            w.draft = _calibrate(w)
        except ApiError:
            w.set_frame, w.set_advice, w.draft = previous
            raise
        return jsonify(draft=summary(w.draft), advice=list(w.set_advice))


@bp.post("/check")
@require_control
def check():
    """Step (d): read the board with the new calibration.  Put one cup of each size of the set
    on the board; the answer lists every cup read (square, colour, the set's size 1 = smallest,
    and the game size it plays as) and the set's sizes not read."""
    w = wizard()
    camera = _camera()
    with w.lock:
        if w.draft is None:
            raise ApiError(409, "capture the empty board first (step b)")
        cal = w.draft
    obs = Recogniser(cal).recognise(capture(camera, 1)[0])
    classes = cal.pieces.sizes
    game_sizes = cal.pieces.logical_sizes
    cups = []
    for i, r in enumerate(obs.squares):
        if r.state == CUP and r.size is not None:
            k = min(r.size, len(classes) - 1)
            cups.append({
                "square": cal.board.square_name(i),
                "colour": "light" if r.colour == 0 else "dark",
                # the set's own numbering (1 = its smallest cup): a set may have a size that a
                # game does not use (Storer's solid smallest), so the game's size is apart
                "size": k + 1,
                "size_name": classes[k].name,
                "game_size": game_sizes[k] if k < len(game_sizes) else None,
                "confidence": round(r.confidence, 2),
            })
    sizes = sorted({c["size"] for c in cups})
    wanted = list(range(1, len(classes) + 1))
    return jsonify(
        board_found=obs.board_found,
        cups=cups,
        sizes_read=sizes,
        sizes_missing=[s for s in wanted if s not in sizes],
        ok=obs.board_found and all(s in sizes for s in wanted),
    )


@bp.post("/save")
@require_control
def save():
    """Step (e): save the calibration (atomically, in the data folder) and referee with it."""
    services = companion()
    _camera()
    w = wizard(services)
    with w.lock:
        if w.draft is None:
            raise ApiError(409, "there is no new calibration to save: capture the empty board first (step b)")
        cal = w.draft
        path = services.calibration_path
        save_calibration(cal, path)  # a StorageError (a full disk) is answered 507 saying so (web.errors)
    if services.live is None:
        from ..live import LiveReferee

        services.attach_live(LiveReferee(services.hub, cal, keep_frames=services.config.keep_frames,
                                         adaptation=services.adaptation_path, learn=services.config.adapt_in_play))
    else:
        services.live.use_calibration(cal)
    hub = services.hub
    hub.camera_info = {**hub.camera_info, "present": True, "referee": True}
    hub.refresh()
    # an adaptation of the old calibration is not used with this one: the answer says so
    return jsonify(saved=path.name, active=summary(cal), adaptation=services.live.adaptation_status or None)


# -- Cups ---------------------------------------------------------------------------------------

def _game_cups(services: Companion) -> int | None:
    """The cups a side of the current game when it is Cups, else None."""
    session = services.hub.session
    board = None if session is None else session.board
    if board is None or board.family != "cups":
        return None
    return int(getattr(board.rules, "cups", 4))


def _default_layout(cups: int | None) -> CupsLayout:
    """The shipped layout with the game's cups a side, else one of the standard size."""
    if cups is None or f"cups-{cups}" in layout_names():
        return load_layout(f"cups-{cups or 4}")
    return template_layout(cups, 340.0 + 95.0 * cups, 565.0)


def cups_steps(services: Companion | None = None) -> CupsSteps:
    """The wizard's Cups steps, started on first use with the current game's layout."""
    services = services or companion()
    w = wizard(services)
    if w.cups is None:
        w.cups = CupsSteps(_default_layout(_game_cups(services)))
    return w.cups


def _layout_json(layout: CupsLayout) -> dict[str, Any]:
    cup = layout.cups("south")[0]
    return {"name": layout.name, "cups_per_row": layout.cups_per_row, "width_mm": layout.width_mm,
            "depth_mm": layout.depth_mm, "cup_mm": cup.diameter_mm, "cup_height_mm": cup.height_mm}


def _cups_draft(steps: CupsSteps) -> dict[str, Any] | None:
    draft = steps.draft
    if draft is None:
        return None
    cal = draft.calibration
    return {"layout": _layout_json(draft.layout), "bean_mm": cal.bean_mm,
            "camera_height_mm": round(cal.pose().height, 1), "camera_model": cal.intrinsics.model,
            "containers": [{"name": name, "x_mm": round(c.x_mm, 1), "y_mm": round(c.y_mm, 1)}
                           for name, c in zip(tap_order(draft.layout), draft.layout.containers)],
            "warnings": list(steps.empty_warnings)}


def _cups_fix(c: CupsSteps) -> dict[str, Any] | None:
    if c.fix is None:
        return None
    return {"camera_height_mm": round(c.fix.pose.height, 1), "error_px": round(c.fix.error_px, 2),
            "camera_model": c.fix.intrinsics.model,
            # named, told by the sensor, fitted plainly best by the corners, or assumed
            "lens": c.fix.lens,
            # where the layout expects each container's opening: guides for the taps
            "expected": [[round(float(x), 1), round(float(y), 1)] for x, y in rim_pixels(c.layout, c.fix)]}


@bp.get("/cups")
def cups_status():
    """The Cups steps: the layout and its tap order, what is done, the choices offered."""
    services = companion()
    _camera()
    c = cups_steps(services)
    w = wizard(services)
    order = tap_order(c.layout)
    return jsonify(
        game_is_cups=_game_cups(services) is not None,
        layouts=layout_names(),
        layout=_layout_json(c.layout),
        cameras=[{"id": AUTO_CAMERA, "name": "find it from the corners"}]
        + [{"id": k, "name": CAMERA_NAMES[k]} for k in CAMERA_MODULES],
        camera=c.camera_model,
        beans=BEAN_MM,
        # the marker sheet whose four tiles may mark the play area's corners instead of taps
        marker_sheet=w.board.name,
        order=order,
        still=None if w.still is None else w.still_id,
        table=_cups_fix(c),
        # the still the play area was found on (the page restores its steps only on that still)
        table_still=c.still_id if c.fix is not None else None,
        method=c.method,
        corners=c.corners,
        taps=c.taps,
        next=order[len(c.taps)] if c.fix is not None and len(c.taps) < len(order) else None,
        draft=_cups_draft(c),
        saved=setup_path(services.config.data_dir).exists(),
    )


def _choose_layout(c: CupsSteps, data: dict[str, Any]) -> None:
    """A shipped layout by name, or ``{"cups_per_row", "width_mm", "depth_mm"}`` (and
    optionally ``cup_mm``, ``cup_height_mm``) for the user's own play area and cups."""
    raw = data.get("layout")
    if raw is None:
        return
    try:
        if isinstance(raw, str):
            if raw not in layout_names():
                raise ApiError(422, f"unknown Cups layout {raw!r}; known: {', '.join(layout_names())}, "
                                    "or give cups_per_row, width_mm and depth_mm")
            layout = load_layout(raw)
        elif isinstance(raw, dict):
            layout = template_layout(raw.get("cups_per_row"), raw.get("width_mm"), raw.get("depth_mm"),
                                     raw.get("cup_mm"), raw.get("cup_height_mm", 65.0))
        else:
            raise ApiError(400, "layout must be a layout's name or {cups_per_row, width_mm, depth_mm}")
    except (CupsSetupError, DataFileError) as e:
        raise ApiError(422, str(e)) from None
    if layout != c.layout:
        c.layout, c.fix, c.taps, c.draft = layout, None, [], None


def _still_for(w: Wizard, frame_id: Any) -> np.ndarray:
    if frame_id is not None and (not isinstance(frame_id, int) or isinstance(frame_id, bool)):
        raise ApiError(400, "frame must be the id of a still frame")
    if w.still is None:
        raise ApiError(409, "take a still picture of the table first")
    if frame_id is not None and frame_id != w.still_id:
        raise ApiError(409, "that still frame is gone: take a new one and tap again")
    return w.still


@bp.post("/cups/corners")
@require_control
def cups_corners():
    """``{"points": [[x, y] × 4], "frame": id, "layout": "cups-4" | {...}, "camera": "pi3"}``:
    the play area's four corners tapped on the still, from South's left going round (South's
    right, the far corner on that side, the last one).  Finds the camera over the table and
    answers where each container is expected (the guides for tapping them)."""
    _camera()  # no camera is said before a bad tap, as for every wizard step
    points = _corner_points(json_body().get("points"))
    return _find_table(lambda c, w, image, model: fix_from_corners(points, c.layout, image.shape[1],
                                                                   image.shape[0], model),
                       "corners", [[float(x), float(y)] for x, y in points])


@bp.post("/cups/markers")
@require_control
def cups_markers():
    """``{"frame": id, "layout": …, "camera": …}``: find the play area by the marker sheet's
    four tiles laid at its corners (``cupboard marker-sheet``'s, of the piece set's board: each
    tile's inner corner on a corner, the first at South's left going round), on the still."""
    return _find_table(lambda c, w, image, model: fix_from_markers(image, c.layout, w.board.markers, model),
                       "markers", None, method="markers")


def _find_table(find: Callable[[CupsSteps, Wizard, np.ndarray, str], Any], how: str,
                corners: list[list[float]] | None, **extra: Any) -> Response:
    """Find the play area on the request's still (``frame``) with ``find(steps, wizard, image,
    camera model)``, for the request's layout and camera; keep it as the Cups steps' table with
    how it was found (``how``: "corners" or "markers"; the ``corners`` tapped: the page shows them after a reload;
    the container taps start again), and answer where each container is expected."""
    services = companion()
    _camera()
    data = json_body()
    w = wizard(services)
    with w.lock:
        c = cups_steps(services)
        image = _still_for(w, data.get("frame"))
        _choose_layout(c, data)
        model = _cups_camera(c, data)
        try:
            fix = find(c, w, image, model)
        except CupsSetupError as e:
            raise ApiError(422, f"the play area was not found: {e}") from None
        if c.camera_model == AUTO_CAMERA and model != AUTO_CAMERA:
            fix = replace(fix, lens="sensor")
        c.fix, c.still_id, c.taps, c.draft = fix, w.still_id, [], None
        c.method, c.corners = how, corners
        return jsonify(table=_cups_fix(c), layout=_layout_json(c.layout), order=tap_order(c.layout),
                       next=tap_order(c.layout)[0], **extra)


def _cups_camera(c: CupsSteps, data: dict[str, Any]) -> str:
    """The module to fit the table with: the one named (kept for the next steps), else the
    one the Pi camera's sensor says, else ``auto`` (the corners or markers tell it where they
    can)."""
    if "camera" in data:
        if not isinstance(data["camera"], str) or data["camera"] not in (AUTO_CAMERA, *CAMERA_MODULES):
            raise ApiError(422, f"unknown camera module {data['camera']!r}; known: {AUTO_CAMERA}, "
                                f"{', '.join(CAMERA_MODULES)}")
        c.camera_model = data["camera"]
    if c.camera_model != AUTO_CAMERA:
        return c.camera_model
    return _sensor_module()


def _need_table(w: Wizard, c: CupsSteps) -> np.ndarray:
    if c.fix is None:
        raise ApiError(409, "tap the play area's four corners first")
    if w.still is None or w.still_id != c.still_id:
        raise ApiError(409, "the still the corners were tapped on is gone: take a new one and tap again")
    return w.still


@bp.post("/cups/containers")
@require_control
def cups_containers():
    """``{"points": [[x, y], …]}``: the containers tapped so far on the still, in the order
    ``GET /cups`` gives (South's cups from South's left, North's from North's left, the
    bowls, the stocks).  Each is checked (inside the picture, inside the play area, clear of
    the others); answers where they stand on the table (mm) and the next one to tap."""
    services = companion()
    _camera()
    data = json_body()
    w = wizard(services)
    with w.lock:
        c = cups_steps(services)
        image = _need_table(w, c)
        try:
            taps = check_taps(data.get("points"), c.layout, image.shape[1], image.shape[0])
            centres = taps_to_table(taps, c.layout, c.fix)
            check_placed(c.layout, centres)
        except CupsSetupError as e:
            raise ApiError(422 if isinstance(data.get("points"), list) else 400, str(e)) from None
        c.taps, c.draft = taps, None
        order = tap_order(c.layout)
        return jsonify(placed=len(taps), of=len(order), complete=len(taps) == len(order),
                       next=order[len(taps)] if len(taps) < len(order) else None,
                       centres_mm=[[round(float(x), 1), round(float(y), 1)] for x, y in centres])


@bp.post("/cups/find")
@require_control
def cups_find():
    """Look for every container's rim near where the layout expects it, on the still; answers
    the taps it proposes (px, null where none was found) for the user to confirm or redo.
    Nothing is kept: the page sends the confirmed taps to ``/cups/containers``."""
    services = companion()
    _camera()
    w = wizard(services)
    with w.lock:
        c = cups_steps(services)
        image = _need_table(w, c)
        fix, layout = c.fix, c.layout
    found = find_containers(image, layout, fix)
    # a tap proposed where the found rim's opening appears (its centre at the rim's height)
    rims = rim_pixels(layout, fix, [f if f is not None else (k.x_mm, k.y_mm) for f, k in zip(found, layout.containers)])
    taps = [None if f is None else [round(float(u), 1), round(float(v), 1)] for f, (u, v) in zip(found, rims)]
    return jsonify(taps=taps, found=sum(t is not None for t in taps), of=len(taps), order=tap_order(layout))


def _bean_mm(data: dict[str, Any]) -> float:
    if "bean_mm" in data:
        v = data["bean_mm"]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 2 <= v <= 60:
            raise ApiError(400, "bean_mm must be a bean's size in mm, from 2 to 60")
        return float(v)
    kind = data.get("beans", "bean")
    if not isinstance(kind, str) or kind not in BEAN_MM:
        raise ApiError(422, f"unknown kind of beans {kind!r}; known: {', '.join(BEAN_MM)}, or give bean_mm")
    return BEAN_MM[kind]


@bp.post("/cups/empty")
@require_control
def cups_empty():
    """``{"beans": "bean" | "bead" | "coin" | "stone"}`` or ``{"bean_mm": 12}``: with every
    cup, bowl and stock empty and no hand over the table, capture the empty table and make
    the set-up (not saved yet)."""
    services = companion()
    camera = _camera()
    data = json_body()
    bean = _bean_mm(data)
    w = wizard(services)
    with w.lock:
        c = cups_steps(services)
        still = _need_table(w, c)
        if len(c.taps) != len(c.layout.containers):
            raise ApiError(409, f"tap every container first ({len(c.taps)} of {len(c.layout.containers)} so far)")
        frame = capture(camera, 1)[0]
        if frame.shape != still.shape:
            raise ApiError(409, "the camera's pictures changed size since the still: take a new still")
        try:
            draft = make_setup(c.layout, c.fix, taps_to_table(c.taps, c.layout, c.fix), frame, bean)
        except CupsSetupError as e:
            raise ApiError(422, str(e)) from None
        # the frame becomes the reader's picture of the bare table: a hand or a thing on it
        # would be taken for the table ever after.  A bean it is not sure of is a warning in the
        # draft, not a refusal: a refusal with no bean there would stop the wizard for good
        check = check_empty_table(draft.layout, draft.calibration, still, frame, tap_order(draft.layout))
        if not check.ok:
            raise ApiError(409, "the table is not clear: " + "; ".join(check.problems) + ". Clear it and capture again.")
        c.draft, c.empty_warnings = draft, check.warnings
        return jsonify(draft=_cups_draft(c))


@bp.post("/cups/save")
@require_control
def cups_save():
    """Save the Cups set-up into the data folder (``cups-setup.json`` and its empty-table
    frame, atomically)."""
    services = companion()
    _camera()
    w = wizard(services)
    with w.lock:
        c = cups_steps(services)
        if c.draft is None:
            raise ApiError(409, "there is no Cups set-up to save: capture the empty table first")
        path = save_cups_setup(services.config.data_dir, c.draft)  # a full disk: 507 (web.errors)
        return jsonify(saved=path.name, draft=_cups_draft(c))
