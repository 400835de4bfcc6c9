"""What the synthetic camera looks at: the position, where each cup stands, the camera, the
light, the hands, and how the picture is spoiled (blur, noise, JPEG).

A position is a tuple with one stack per square (square ``i`` is file ``i % cols``, rank
``i // cols``); a stack lists its cups bottom to top as ``(colour, size_class)`` with colour 0
light and 1 dark and size class 0 the smallest of the piece set.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..camera_model import CameraIntrinsics, CameraPose, nominal_intrinsics, project
from ..markers import outer_rect, tile_side
from ..pieces import BoardSpec, PieceSet

if TYPE_CHECKING:
    from .look import Look

Cup = tuple[int, int]
Stack = tuple[Cup, ...]
Position = tuple[Stack, ...]


@dataclass(frozen=True)
class Lighting:
    """A directional light (unit vector toward the light, z up) plus ambient light; a colour
    cast (per-channel gains), a brightness gradient across the image and vignetting."""

    direction: tuple[float, float, float] = (0.3, -0.2, 0.93)
    ambient: float = 0.5
    gain_bgr: tuple[float, float, float] = (1.0, 1.0, 1.0)
    gradient: tuple[float, float] = (0.0, 0.0)
    vignette: float = 0.0
    shadow: float = 0.35


@dataclass(frozen=True)
class Imaging:
    """How the picture is degraded: Gaussian blur sigma (px), noise sigma (grey levels),
    JPEG quality (0 = no JPEG)."""

    blur: float = 0.0
    noise: float = 0.0
    jpeg_quality: int = 0


@dataclass(frozen=True)
class Hand:
    """A hand over the board: the palm centre above board point ``target`` (mm) at
    ``height`` mm, the arm coming in from board point ``entry`` (outside the board)."""

    target: tuple[float, float]
    height: float
    entry: tuple[float, float]
    skin_bgr: tuple[int, int, int]
    sleeve_bgr: tuple[int, int, int]
    spread: float = 0.0


@dataclass(frozen=True)
class Scene:
    """Everything needed to render one frame.  ``offsets`` gives, per square and per cup of
    its stack, the cup's (dx, dy) from the square centre in mm.  ``look`` set means the
    scene is drawn in the shaded style (``hardware.render.shaded``) with those materials and
    lamps; ``lighting``, ``imaging``, ``texture_variant`` and ``table_bgr`` are then unused."""

    board: BoardSpec
    pieces: PieceSet
    position: Position
    offsets: tuple[tuple[tuple[float, float], ...], ...]
    intrinsics: CameraIntrinsics
    pose: CameraPose
    lighting: Lighting = Lighting()
    imaging: Imaging = Imaging()
    hands: tuple[Hand, ...] = ()
    texture_variant: int = 0
    table_bgr: tuple[int, int, int] = (95, 105, 112)
    look: "Look | None" = None


def empty_position(board: BoardSpec) -> Position:
    """A position with no cups."""
    return tuple(() for _ in range(board.squares))


def centred_offsets(position: Position) -> tuple[tuple[tuple[float, float], ...], ...]:
    """Every cup exactly at its square's centre."""
    return tuple(tuple((0.0, 0.0) for _ in stack) for stack in position)


def max_offset(board: BoardSpec, pieces: PieceSet, size: int) -> float:
    """How far (mm) a cup of this size class may stand off its square's centre and still be
    clearly in the square."""
    room = (board.square_mm - pieces.sizes[size].outer_diameter_mm) / 2 - 3.0
    return float(np.clip(room, 0.0, 10.0))


def random_position(board: BoardSpec, pieces: PieceSet, rng: np.random.Generator,
                    p_empty: float = 0.35, p_nested: float = 0.5) -> Position:
    """A random position (not necessarily reachable in a game): each square empty with
    probability ``p_empty``, otherwise a stack of strictly growing sizes and random colours."""
    n = len(pieces.sizes)
    out = []
    for _ in range(board.squares):
        if rng.random() < p_empty:
            out.append(())
            continue
        top = int(rng.integers(0, n))
        sizes = [top]
        s = top
        while s > 0 and rng.random() < p_nested:
            s = int(rng.integers(0, s))
            sizes.append(s)
        out.append(tuple((int(rng.integers(0, 2)), size) for size in reversed(sizes)))
    return tuple(out)


def random_offsets(board: BoardSpec, pieces: PieceSet, position: Position,
                   rng: np.random.Generator, scale: float = 1.0) -> tuple[tuple[tuple[float, float], ...], ...]:
    """Off-centre placements: the top cup anywhere within its allowed offset; each cup
    inside a stack sits inside the cup above it, touching or near its wall."""
    out = []
    for stack in position:
        if not stack:
            out.append(())
            continue
        offs: list[tuple[float, float]] = [(0.0, 0.0)] * len(stack)
        colour, size = stack[-1]
        r = max_offset(board, pieces, size) * scale * np.sqrt(rng.random())
        a = rng.uniform(0, 2 * np.pi)
        offs[-1] = (r * np.cos(a), r * np.sin(a))
        for k in range(len(stack) - 2, -1, -1):
            outer = pieces.sizes[stack[k + 1][1]]
            inner = pieces.sizes[stack[k][1]]
            room = max(0.0, (outer.top_diameter_mm - inner.outer_diameter_mm) / 2)
            r = room * rng.random()
            a = rng.uniform(0, 2 * np.pi)
            offs[k] = (offs[k + 1][0] + r * np.cos(a), offs[k + 1][1] + r * np.sin(a))
        out.append(tuple(offs))
    return tuple(out)


def board_outline_points(board: BoardSpec, pieces: PieceSet | None = None) -> np.ndarray:
    """World points that must be inside the picture: the marker tiles and the top corners of
    the tallest cups on the corner squares."""
    x0, y0, x1, y1 = outer_rect(board)
    t = tile_side(board)
    pts = [[x0 - t, y0 - t, 0], [x1 + t, y0 - t, 0], [x1 + t, y1 + t, 0], [x0 - t, y1 + t, 0]]
    if pieces is not None:
        h = pieces.sizes[-1].height_mm
        pts += [[x0, y0, h], [x1, y0, h], [x1, y1, h], [x0, y1, h]]
    return np.array(pts, dtype=np.float64)


def _sees_all(uv: np.ndarray, intr: CameraIntrinsics, margin_px: float) -> bool:
    return bool(uv[:, 0].min() > margin_px and uv[:, 1].min() > margin_px
                and uv[:, 0].max() < intr.width - margin_px and uv[:, 1].max() < intr.height - margin_px)


# the modules tried, in order of preference: the standard lens gives more pixels per square,
# the wide one is needed where the standard one cannot see the whole board (low cameras)
CAMERA_MODELS = ("pi3", "pi3-wide")


def random_camera(board: BoardSpec, pieces: PieceSet, rng: np.random.Generator,
                  intrinsics: CameraIntrinsics | None = None, height: tuple[float, float] = (300.0, 700.0),
                  max_tilt_deg: float = 30.0, margin_px: float = 12.0,
                  models: tuple[str, ...] = CAMERA_MODELS) -> tuple[CameraIntrinsics, CameraPose]:
    """A random camera that sees the whole board with its markers: height above the board
    drawn uniformly within ``height`` (mm), tilt up to ``max_tilt_deg``, any rotation about
    its axis.  Unless ``intrinsics`` is given, the first of ``models`` (nominal Pi camera
    modules at 1280x720) that sees the whole board from the pose is used, so low cameras get
    the Camera Module 3 Wide.  Poses no module can use are redrawn at the same height a few
    times, then at a new height."""
    choices = [intrinsics] if intrinsics is not None else [nominal_intrinsics(m, 1280, 720) for m in models]
    pts = board_outline_points(board, pieces)
    centre = np.array([board.width_mm / 2, board.depth_mm / 2, 0.0])
    lo, hi = height
    h = rng.uniform(lo, hi)
    for attempt in range(600):
        if attempt and attempt % 12 == 0:
            # later heights favour higher cameras so the loop always ends
            h = rng.uniform(lo + (hi - lo) * min(1.0, attempt / 400) * 0.9, hi)
        tilt = np.radians(rng.uniform(0, max_tilt_deg))
        az = rng.uniform(0, 2 * np.pi)
        target = centre + np.array([rng.uniform(-20, 20), rng.uniform(-20, 20), 0.0])
        d = h / np.cos(tilt)
        eye = target + d * np.array([np.sin(tilt) * np.cos(az), np.sin(tilt) * np.sin(az), np.cos(tilt)])
        pose = CameraPose.look_at(eye, target, roll_deg=float(rng.uniform(0, 360)))
        for intr in choices:
            if _sees_all(project(pts, intr, pose), intr, margin_px):
                return intr, pose
    raise RuntimeError(f"no camera pose sees the whole of board {board.name} from {lo:.0f}-{hi:.0f} mm")


def random_lighting(rng: np.random.Generator, strength: float = 1.0) -> Lighting:
    """Random light: direction, colour cast, uneven brightness, vignetting."""
    elev = np.radians(rng.uniform(40, 85))
    az = rng.uniform(0, 2 * np.pi)
    d = (float(np.cos(elev) * np.cos(az)), float(np.cos(elev) * np.sin(az)), float(np.sin(elev)))
    cast = rng.uniform(-0.12, 0.12) * strength
    gain = (1.0 + cast + rng.uniform(-0.04, 0.04), 1.0 + rng.uniform(-0.04, 0.04), 1.0 - cast)
    level = rng.uniform(0.7, 1.15) if strength > 0 else 1.0
    gain = tuple(float(g * level) for g in gain)
    return Lighting(direction=d, ambient=float(rng.uniform(0.35, 0.6)), gain_bgr=gain,
                    gradient=(float(rng.uniform(-0.25, 0.25) * strength), float(rng.uniform(-0.25, 0.25) * strength)),
                    vignette=float(rng.uniform(0.0, 0.3) * strength), shadow=float(rng.uniform(0.2, 0.45)))


def random_imaging(rng: np.random.Generator, strength: float = 1.0) -> Imaging:
    """Random blur, noise and JPEG quality."""
    return Imaging(blur=float(rng.uniform(0.0, 1.2) * strength), noise=float(rng.uniform(1.0, 5.0) * strength),
                   jpeg_quality=int(rng.integers(55, 95)) if strength > 0 else 0)


def random_hand(board: BoardSpec, rng: np.random.Generator, target_square: int | None = None) -> Hand:
    """A hand reaching over the board from one of its sides toward a square."""
    if target_square is None:
        target_square = int(rng.integers(0, board.squares))
    tx, ty = board.square_centre(target_square)
    tx += rng.uniform(-15, 15)
    ty += rng.uniform(-15, 15)
    side = int(rng.integers(0, 4))
    far = 250.0
    w, d = board.width_mm, board.depth_mm
    entry = [(tx + rng.uniform(-80, 80), -far), (w + far, ty + rng.uniform(-80, 80)),
             (tx + rng.uniform(-80, 80), d + far), (-far, ty + rng.uniform(-80, 80))][side]
    skins = [(150, 175, 225), (120, 150, 205), (85, 115, 170), (60, 80, 120), (170, 190, 235)]
    skin = skins[int(rng.integers(0, len(skins)))]
    skin = tuple(int(np.clip(c * rng.uniform(0.92, 1.08), 0, 255)) for c in skin)
    sleeve = tuple(int(v) for v in rng.integers(20, 230, 3))
    return Hand(target=(float(tx), float(ty)), height=float(rng.uniform(60, 160)),
                entry=(float(entry[0]), float(entry[1])), skin_bgr=skin, sleeve_bgr=sleeve,
                spread=float(rng.uniform(0, 1)))
