"""The synthetic camera over a Cups table: cups, bowls and stock dishes seen from above at real
sizes, with beans (or beads, coins, stones) in them, heaps when there are many, shadows, lamps,
and hands reaching in; scripted sequences of table states as frames with the truth per frame.

Geometry is the house camera model's (``hardware.camera_model``): everything is drawn through
an ideal pinhole in linear light, painter's order (far containers first), then the lens
distortion of ``draw.distortion_maps`` and the sensor, auto-exposure, noise, tone and JPEG of
the shaded look's camera (``shaded._camera``).  The camera's settings, the table's material and
the lamps come from ``look.random_look``; hands are ``draw``'s hand polygons in ``look``'s
skins and sleeves.

Beans stay where they fell: a container's beans are a list that grows (new beans land on the
lowest spot among a few tries, so a floor fills before beans pile) and shrinks from the top, so
a container whose count does not change looks the same from frame to frame.

Two looks (``CUPS_STYLES``): ``daylight`` (a lamp high over the table, soft light) and
``lamplight`` (a low lamp to one side: long shadows, a darker room).  They share this code, so
the second is a held-out look of the scene's parameters, not an independent renderer.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from functools import lru_cache
from types import SimpleNamespace

import cv2
import numpy as np

from ..camera_model import CameraIntrinsics, CameraPose, nominal_intrinsics, plane_homography, project
from ..cups.layout import Container, CupsLayout
from ..cups.state import TableState
from ..pieces import load_board, load_piece_set
from .draw import Painter, blend_polygon, distortion_maps, fill_polygon
from .look import Look, kelvin_to_bgr, random_look, styled_hand
from .scene import Hand, Lighting
from .shaded import sensor_image, to_linear
from .textures import smooth_noise, wood

CUPS_STYLES = ("daylight", "lamplight")
N_SEG = 48
_ANG = np.linspace(0, 2 * np.pi, N_SEG, endpoint=False)
TEX_PPM = 1.0  # table texture pixels per mm
WALL_MM = 3.0  # container wall thickness at the rim
FLOOR_MM = 4.0  # a cup's floor above the table


@dataclass(frozen=True)
class BeanKind:
    """What is counted: ``shape`` ``bean`` (an ellipse), ``bead`` (a disc with a hole),
    ``coin`` (a thin disc with a rim) or ``stone`` (an irregular pebble); length and width
    (mm, seen from above), thickness, the colours it comes in (BGR display) and its gloss."""

    name: str
    shape: str
    length_mm: float
    width_mm: float
    thickness_mm: float
    palette: tuple[tuple[int, int, int], ...]
    gloss: float

    @property
    def size_mm(self) -> float:
        """The diameter of a disc of the same area seen from above."""
        return float(np.sqrt(self.length_mm * self.width_mm))


BEAN_KINDS: dict[str, BeanKind] = {
    "bean": BeanKind("bean", "bean", 13.0, 8.5, 5.5,
                     ((45, 65, 125), (200, 215, 228), (32, 30, 36), (40, 40, 135), (120, 150, 190)), 0.05),
    "bead": BeanKind("bead", "bead", 10.0, 10.0, 6.0,
                     ((40, 40, 200), (200, 90, 30), (40, 180, 60), (30, 200, 230), (180, 60, 160), (235, 235, 235)), 0.25),
    "coin": BeanKind("coin", "coin", 20.0, 20.0, 1.6, ((60, 110, 185), (185, 185, 190), (80, 170, 205)), 0.35),
    "stone": BeanKind("stone", "stone", 15.0, 11.0, 7.0,
                      ((110, 115, 120), (150, 160, 170), (70, 80, 95), (180, 185, 190), (90, 110, 140)), 0.03),
}


@dataclass(frozen=True)
class Bean:
    """One bean where it lies: centre (mm, table coordinates), height of its top face, turn
    (radians), colour (BGR display) and a per-bean shape seed."""

    x: float
    y: float
    z: float
    angle: float
    bgr: tuple[int, int, int]
    shape_seed: int


@dataclass(frozen=True)
class Vessel:
    """How a container is made: ``tumbler`` (straight), ``tapered`` (narrower at its foot),
    ``bowl`` (round inside) or ``saucer`` (a low dish); outside and inside colours (BGR)."""

    shape: str
    outside_bgr: tuple[int, int, int]
    inside_bgr: tuple[int, int, int]
    gloss: float


@dataclass(frozen=True)
class CupsLook:
    """One table's style: the beans, each container's vessel, where the main light comes from
    (a unit vector toward it) and how strong the ambient and shadows are, and the camera and
    table as a house ``Look``."""

    style: str
    beans: BeanKind
    vessels: tuple[Vessel, ...]  # one per container, in the layout's order
    light_dir: tuple[float, float, float]
    light_kelvin: float
    ambient: float
    shadow: float
    camera: Look


@dataclass(frozen=True)
class CupsScene:
    """Everything one frame shows: the layout and each container's offset from its layout
    position (mm), the beans in each container (layout order), the camera, the look and the
    hands over the table."""

    layout: CupsLayout
    offsets: tuple[tuple[float, float], ...]
    beans: tuple[tuple[Bean, ...], ...]
    intrinsics: CameraIntrinsics
    pose: CameraPose
    look: CupsLook
    hands: tuple[Hand, ...] = ()

    @property
    def counts(self) -> tuple[int, ...]:
        """Beans per container (layout order)."""
        return tuple(len(b) for b in self.beans)

    @property
    def state(self) -> TableState:
        """The table state the scene shows."""
        return TableState.from_counts(self.counts)

    def centre(self, i: int) -> tuple[float, float]:
        """Where container ``i`` stands (mm)."""
        c = self.layout.containers[i]
        return (c.x_mm + self.offsets[i][0], c.y_mm + self.offsets[i][1])


@dataclass(frozen=True)
class CupsTruth:
    """What a perfect reader would say of a frame: the state shown, whether a hand is in the
    picture over the play area, and the camera."""

    state: TableState
    hand: bool
    intrinsics: CameraIntrinsics
    pose: CameraPose


# -- the parts of a scene ---------------------------------------------------------------------

@lru_cache(maxsize=1)
def _house_set():
    # random_look draws the table, lamps and camera for a piece set and board; Cups uses only
    # those parts, so any shipped pair will do
    return load_piece_set("gobblet"), load_board("gobblet-4x4")


_GLAZES = [(235, 238, 240), (60, 95, 170), (150, 95, 45), (70, 130, 80), (40, 40, 45), (120, 170, 210),
           (200, 200, 190), (90, 60, 130), (30, 110, 190), (180, 180, 180)]


def _vessel(rng: np.random.Generator, c: Container) -> Vessel:
    if c.kind == "stock":
        shape = "saucer"
    elif c.kind == "bowl":
        shape = "bowl"
    else:
        shape = ("tumbler", "tapered", "bowl")[int(rng.integers(3))]
    out = _GLAZES[int(rng.integers(len(_GLAZES)))]
    inside = out if rng.random() < 0.6 else _GLAZES[int(rng.integers(len(_GLAZES)))]
    return Vessel(shape, out, inside, float(rng.uniform(0.02, 0.3)))


def random_cups_look(rng: np.random.Generator, layout: CupsLayout, style: str = "daylight",
                     beans: str | None = None) -> CupsLook:
    """A random look in ``style``: bean kind (``beans`` or any), vessels (all cups of a row
    alike, as most sets are, or each different), the main light, the house camera and table."""
    if style not in CUPS_STYLES:
        raise ValueError(f"unknown Cups look {style!r}; known: {', '.join(CUPS_STYLES)}")
    if beans is not None and beans not in BEAN_KINDS:
        raise ValueError(f"unknown bean kind {beans!r}; known: {', '.join(BEAN_KINDS)}")
    kind = BEAN_KINDS[beans or list(BEAN_KINDS)[int(rng.integers(len(BEAN_KINDS)))]]
    pieces, board = _house_set()
    cam = random_look(rng, pieces, board)
    matched = rng.random() < 0.6
    first = {k: _vessel(rng, c) for k, c in ((c.kind, c) for c in layout.containers)}
    vessels = tuple(first[c.kind] if matched else _vessel(rng, c) for c in layout.containers)
    az = rng.uniform(0, 2 * np.pi)
    if style == "daylight":
        elev = np.radians(rng.uniform(60, 85))
        ambient, shadow = rng.uniform(0.35, 0.55), rng.uniform(0.3, 0.5)
    else:
        elev = np.radians(rng.uniform(28, 50))
        ambient, shadow = rng.uniform(0.12, 0.3), rng.uniform(0.55, 0.8)
        cam = replace(cam, vignette=min(0.6, cam.vignette + 0.15), exposure_bias=cam.exposure_bias - 0.2)
    d = (float(np.cos(elev) * np.cos(az)), float(np.cos(elev) * np.sin(az)), float(np.sin(elev)))
    kelvin = cam.lamps[0].kelvin if cam.lamps else 4000.0
    return CupsLook(style, kind, vessels, d, float(kelvin), float(ambient), float(shadow), cam)


def _floor(c: Container, shape: str) -> tuple[float, float, float]:
    """(floor radius, floor height, inside depth) of a container: the flat part beans rest on."""
    r = c.radius_mm - WALL_MM
    if shape == "saucer":
        return r * 0.85, 2.0, max(c.height_mm - 2.0, 3.0)
    if shape == "bowl":
        return r * 0.55, FLOOR_MM, c.height_mm - FLOOR_MM
    if shape == "tapered":
        return r * 0.78, FLOOR_MM, c.height_mm - FLOOR_MM
    return r * 0.92, FLOOR_MM, c.height_mm - FLOOR_MM


def _settle(beans: list[Bean], kind: BeanKind, fx: float, fy: float, rf: float, floor_z: float, bowl: float,
            rng: np.random.Generator, tries: int = 4) -> Bean:
    """A new bean dropped into a container: the lowest of a few random spots, resting on the
    floor (rising toward the wall in a bowl) or on the beans under it."""
    best = None
    reach = 0.8 * kind.size_mm
    room = max(rf - kind.width_mm * 0.4, 1.0)
    for _ in range(tries):
        r = room * np.sqrt(rng.random())
        a = rng.uniform(0, 2 * np.pi)
        x, y = fx + r * np.cos(a), fy + r * np.sin(a)
        z = floor_z + bowl * (r / room) ** 2 * kind.thickness_mm
        for b in beans:
            if abs(b.x - x) < reach and abs(b.y - y) < reach and np.hypot(b.x - x, b.y - y) < reach:
                z = max(z, b.z + kind.thickness_mm * 0.05)
        if best is None or z < best[2]:
            best = (x, y, z)
    x, y, z = best
    bgr = kind.palette[int(rng.integers(len(kind.palette)))]
    return Bean(float(x), float(y), float(z + kind.thickness_mm), float(rng.uniform(0, np.pi)), bgr,
                int(rng.integers(1 << 30)))


def arrange(layout: CupsLayout, state: TableState, look: CupsLook, offsets: tuple[tuple[float, float], ...],
            rng: np.random.Generator, previous: tuple[tuple[Bean, ...], ...] | None = None
            ) -> tuple[tuple[Bean, ...], ...]:
    """The beans of ``state`` in each container: ``previous`` beans kept where they lie,
    beans taken away from the top (the last to land), new ones dropped in."""
    counts = state.as_counts()
    if len(counts) != len(layout.containers):
        raise ValueError(f"the state has {len(counts)} containers; layout {layout.name} has {len(layout.containers)}")
    out = []
    for i, (c, n) in enumerate(zip(layout.containers, counts)):
        beans = list(previous[i]) if previous is not None else []
        del beans[n:]
        shape = look.vessels[i].shape
        rf, fz, _ = _floor(c, shape)
        # a bowl's beans lie on its curved inside, rising toward the wall
        bowl = 2.5 if shape == "bowl" else (0.8 if shape == "saucer" else 0.0)
        if shape == "bowl":
            rf = (c.radius_mm - WALL_MM - 2.0) * 0.75
        fx, fy = c.x_mm + offsets[i][0], c.y_mm + offsets[i][1]
        while len(beans) < n:
            beans.append(_settle(beans, look.beans, fx, fy, rf, fz, bowl, rng))
        out.append(tuple(beans))
    return tuple(out)


def _sees(pts: np.ndarray, intr: CameraIntrinsics, pose: CameraPose, margin: float) -> bool:
    uv = project(pts, intr, pose)
    return bool(uv[:, 0].min() > margin and uv[:, 1].min() > margin
                and uv[:, 0].max() < intr.width - margin and uv[:, 1].max() < intr.height - margin)


def random_cups_camera(layout: CupsLayout, rng: np.random.Generator, height: tuple[float, float] = (550.0, 850.0),
                       max_tilt_deg: float = 15.0, size: tuple[int, int] = (1280, 720)
                       ) -> tuple[CameraIntrinsics, CameraPose]:
    """A camera over the table that sees every container whole (rims included): a Pi Camera
    Module 3 at ``size``, or its wide version where the standard lens cannot see it all."""
    pts = []
    for c in layout.containers:
        for z in (0.0, c.height_mm):
            pts += [[c.x_mm + c.radius_mm * np.cos(a), c.y_mm + c.radius_mm * np.sin(a), z]
                    for a in np.linspace(0, 2 * np.pi, 8, endpoint=False)]
    pts = np.array(pts)
    centre = np.array([layout.width_mm / 2, layout.depth_mm / 2, 0.0])
    intrs = [nominal_intrinsics(m, *size) for m in ("pi3", "pi3-wide")]
    for attempt in range(400):
        h = rng.uniform(*height) if attempt < 200 else height[1] * 1.2
        tilt = np.radians(rng.uniform(0, max_tilt_deg))
        az = rng.uniform(0, 2 * np.pi)
        target = centre + np.array([rng.uniform(-20, 20), rng.uniform(-20, 20), 0.0])
        eye = target + h / np.cos(tilt) * np.array([np.sin(tilt) * np.cos(az), np.sin(tilt) * np.sin(az), np.cos(tilt)])
        # roughly along the table's long side, as a camera over a table is set up
        pose = CameraPose.look_at(eye, target, roll_deg=float(rng.uniform(-8, 8) + (180 if rng.random() < 0.5 else 0)))
        for intr in intrs:
            if _sees(pts, intr, pose, 10.0):
                return intr, pose
    raise RuntimeError(f"no camera sees the whole of layout {layout.name}")


def random_cups_hand(layout: CupsLayout, rng: np.random.Generator, over: tuple[float, float] | None = None) -> Hand:
    """A hand reaching over the table toward ``over`` (mm; a random container if None) from
    the south or north player's side."""
    if over is None:
        c = layout.containers[int(rng.integers(len(layout.containers)))]
        over = (c.x_mm, c.y_mm)
    tx, ty = over[0] + rng.uniform(-15, 15), over[1] + rng.uniform(-15, 15)
    from_south = rng.random() < 0.5
    entry = (tx + rng.uniform(-120, 120), -250.0 if from_south else layout.depth_mm + 250.0)
    hand = Hand(target=(float(tx), float(ty)), height=float(rng.uniform(90, 180)), entry=(float(entry[0]), entry[1]),
                skin_bgr=(150, 175, 225), sleeve_bgr=(120, 120, 120), spread=float(rng.uniform(0, 1)))
    return styled_hand(hand, rng)


def random_cups_scene(layout: CupsLayout, state: TableState, seed: int, style: str = "daylight",
                      hands: int = 0, beans: str | None = None) -> CupsScene:
    """A scene of ``state`` on ``layout``: random look in ``style``, camera, container
    placement (a few mm off the layout, as a person sets a table) and beans.  Deterministic
    for ``seed``."""
    rng = np.random.default_rng([seed, 23])
    look = random_cups_look(rng, layout, style, beans)
    intr, pose = random_cups_camera(layout, rng)
    offsets = tuple((float(rng.uniform(-3, 3)), float(rng.uniform(-3, 3))) for _ in layout.containers)
    placed = arrange(layout, state, look, offsets, rng)
    hs = tuple(random_cups_hand(layout, rng) for _ in range(hands))
    return CupsScene(layout, offsets, placed, intr, pose, look, hs)


# -- drawing ----------------------------------------------------------------------------------

def _circle(cx: float, cy: float, r: float, z: float, n: int = N_SEG) -> np.ndarray:
    a = _ANG if n == N_SEG else np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.column_stack([cx + r * np.cos(a), cy + r * np.sin(a), np.full(len(a), z)])


def _table_texture(look: CupsLook, x0: float, y0: float, w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    """The table top (display BGR float, ``TEX_PPM`` px/mm) in the house look's material."""
    cam = look.camera
    a, b = np.asarray(cam.table_bgr, np.float32), np.asarray(cam.table_alt_bgr, np.float32)
    if cam.table_kind == "wood":
        return wood(h, w, tuple(int(v) for v in a), rng, ppm=TEX_PPM, strength=0.18)
    if cam.table_kind == "check":
        period = max(cam.table_scale_mm, 12.0) * 2.0
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32) / TEX_PPM
        band_x = (np.floor((xx + x0) / period) % 2)
        band_y = (np.floor((yy + y0) / period) % 2)
        mix = (band_x + band_y)[..., None] / 2.0
        img = a * (1 - mix) + b * mix
    else:
        img = np.broadcast_to(a, (h, w, 3)).copy()
    grain = 0.06 if cam.table_kind == "cloth" else 0.03
    img *= (1.0 + grain * (smooth_noise(h, w, 6, rng) - 0.5) * 2)[..., None]
    return img


class _Drawer:
    def __init__(self, scene: CupsScene, rng: np.random.Generator):
        self.s = scene
        self.intr, self.pose = scene.intrinsics, scene.pose
        self.cam = scene.pose.centre
        L = np.asarray(scene.look.light_dir, np.float64)
        self.L = L / np.linalg.norm(L)
        self.amb = scene.look.ambient
        self.rng = rng
        # the painter of the house renderer draws the hands (it only needs the camera)
        shim = SimpleNamespace(intrinsics=self.intr, pose=self.pose, lighting=Lighting(direction=tuple(self.L)))
        self.hand_painter = Painter(shim, rng)

    def uv(self, pts: np.ndarray) -> np.ndarray:
        return project(pts, self.intr, self.pose, distort=False)

    def lit(self, normal_z: float = 1.0) -> float:
        return self.amb + (1 - self.amb) * max(0.0, normal_z * self.L[2])

    def shift(self, h: float) -> np.ndarray:
        """How far (x, y) a point's shadow falls from it on a surface ``h`` mm below."""
        return -h * self.L[:2] / max(self.L[2], 0.25)

    def vessel(self, img: np.ndarray, i: int) -> None:
        s = self.s
        c = s.layout.containers[i]
        v = s.look.vessels[i]
        cx, cy = s.centre(i)
        R, h = c.radius_mm, c.height_mm
        base = {"tumbler": 0.92, "tapered": 0.72, "bowl": 0.5, "saucer": 0.7}[v.shape] * R
        out_c = to_linear(v.outside_bgr)
        in_c = to_linear(v.inside_bgr)
        # outer wall: quads between the foot and the rim, lit by their normals
        bot, top = _circle(cx, cy, base, 0.0), _circle(cx, cy, R, h)
        uvb, uvt = self.uv(bot), self.uv(top)
        mid = _ANG + np.pi / N_SEG
        slope = (R - base) / max(h, 1.0)
        normals = np.column_stack([np.cos(mid), np.sin(mid), np.full(N_SEG, -slope)])
        normals /= np.linalg.norm(normals, axis=1, keepdims=True)
        view = self.cam[None, :] - np.column_stack([cx + R * np.cos(mid), cy + R * np.sin(mid), np.full(N_SEG, h / 2)])
        view /= np.linalg.norm(view, axis=1, keepdims=True)
        hull = cv2.convexHull(np.vstack([uvb, uvt]).astype(np.float32)).reshape(-1, 2)
        fill_polygon(img, hull, tuple(float(x) for x in out_c * self.amb))
        for k in np.nonzero(np.einsum("ij,ij->i", normals, view) > 0)[0]:
            j = (k + 1) % N_SEG
            shade = self.amb + (1 - self.amb) * max(0.0, float(normals[k] @ self.L))
            fill_polygon(img, np.array([uvb[k], uvb[j], uvt[j], uvt[k]]), tuple(float(x) for x in out_c * shade))
        # the rim
        fill_polygon(img, uvt, tuple(float(x) for x in (out_c * 0.5 + in_c * 0.5) * self.lit() * 1.05), aa=True)
        inner = self.uv(_circle(cx, cy, R - WALL_MM, h))
        self.inside(img, i, inner, in_c, cx, cy, R - WALL_MM, h, v)

    def inside(self, img: np.ndarray, i: int, opening: np.ndarray, in_c: np.ndarray, cx: float, cy: float,
               r_in: float, h: float, v: Vessel) -> None:
        """The inside seen through the opening: the far inner wall, the floor (part of it in
        the wall's shadow), the beans, all clipped to the opening."""
        s = self.s
        c = s.layout.containers[i]
        x0, y0 = np.floor(opening.min(axis=0)).astype(int) - 2
        x1, y1 = np.ceil(opening.max(axis=0)).astype(int) + 3
        H, W = img.shape[:2]
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
        if x1 <= x0 or y1 <= y0:
            return
        off = np.array([x0, y0], np.float64)
        layer = np.empty((y1 - y0, x1 - x0, 3), np.float32)
        layer[:] = in_c * (self.amb * 0.8 + 0.25 * (1 - self.amb))
        rf, fz, _ = _floor(c, v.shape)
        floor_uv = self.uv(_circle(cx, cy, rf if v.shape != "bowl" else r_in * 0.85, fz)) - off
        fill_polygon(layer, floor_uv, tuple(float(x) for x in in_c * self.amb), aa=True)
        # the part of the floor the light reaches over the rim
        d = self.shift(h - fz)
        lit_rim = self.uv(_circle(cx + d[0], cy + d[1], r_in, fz)) - off
        ok, lit_poly = cv2.intersectConvexConvex(floor_uv.astype(np.float32), lit_rim.astype(np.float32))
        if ok > 0 and lit_poly is not None:
            fill_polygon(layer, lit_poly.reshape(-1, 2), tuple(float(x) for x in in_c * self.lit()), aa=True)
        for b in sorted(s.beans[i], key=lambda b: b.z):
            dd = self.shift(h - b.z)
            lit = np.hypot(b.x - (cx + dd[0]), b.y - (cy + dd[1])) < r_in - 2
            self.bean(layer, b, off, lit)
        m = np.zeros(layer.shape[:2], np.uint8)
        fill_polygon(m, opening - off, 255, aa=True)
        a = (m.astype(np.float32) / 255.0)[..., None]
        roi = img[y0:y1, x0:x1]
        roi *= 1 - a
        roi += layer * a

    def bean(self, layer: np.ndarray, b: Bean, off: np.ndarray, lit: bool) -> None:
        kind = self.s.look.beans
        r = np.random.default_rng(b.shape_seed)
        n = 20
        ang = np.linspace(0, 2 * np.pi, n, endpoint=False)
        L2, W2 = kind.length_mm / 2, kind.width_mm / 2
        if kind.shape == "stone":
            rad = 1 + 0.12 * (r.random(n) - 0.5)
            rad = np.convolve(np.r_[rad[-2:], rad, rad[:2]], np.ones(5) / 5, "valid")
            lx, ly = L2 * rad * np.cos(ang), W2 * rad * np.sin(ang)
        elif kind.shape == "bean":
            lx, ly = L2 * np.cos(ang), W2 * np.sin(ang) * (1 - 0.12 * np.cos(ang) ** 2 * (np.sin(ang) > 0))
        else:
            lx, ly = L2 * np.cos(ang), W2 * np.sin(ang)
        ca, sa = np.cos(b.angle), np.sin(b.angle)
        pts = np.column_stack([b.x + lx * ca - ly * sa, b.y + lx * sa + ly * ca, np.full(n, b.z)])
        light = self.lit() if lit else self.amb
        col = to_linear(b.bgr) * float(r.uniform(0.9, 1.1))
        # a soft contact shadow, then the body, its darker edge and a highlight toward the light
        sh = pts.copy()
        sh[:, :2] += self.shift(kind.thickness_mm * 0.7)
        sh[:, 2] -= kind.thickness_mm
        blend_polygon(layer, self.uv(sh) - off, (0.0, 0.0, 0.0), 0.45 if lit else 0.2)
        uv = self.uv(pts) - off
        fill_polygon(layer, uv, tuple(float(x) for x in col * light * 0.55), aa=True)
        inner = pts.copy()
        inner[:, 0] = b.x + (pts[:, 0] - b.x) * 0.8
        inner[:, 1] = b.y + (pts[:, 1] - b.y) * 0.8
        fill_polygon(layer, self.uv(inner) - off, tuple(float(x) for x in col * light), aa=True)
        if kind.shape == "bead":
            hole = _circle(b.x, b.y, W2 * 0.3, b.z, 12)
            fill_polygon(layer, self.uv(hole) - off, tuple(float(x) for x in col * light * 0.3), aa=True)
        if kind.shape == "coin":
            ring = _circle(b.x, b.y, W2 * 0.8, b.z, 24)
            cv2.polylines(layer, [np.round((self.uv(ring) - off) * 16).astype(np.int32)], True,
                          tuple(float(x) for x in col * light * 0.7), 1, cv2.LINE_AA, 4)
        if lit and kind.gloss > 0.04:
            hx, hy = b.x + self.L[0] * W2 * 0.4, b.y + self.L[1] * W2 * 0.4
            spot = self.uv(_circle(hx, hy, W2 * 0.25, b.z, 10)) - off
            blend_polygon(layer, spot, (1.0, 1.0, 1.0), min(0.9, kind.gloss * 2.5))

    def shadows(self, H: int, W: int) -> np.ndarray:
        """Where the table is in shadow (0-1): containers, then hands."""
        sh = np.zeros((H, W), np.float32)
        for i, c in enumerate(self.s.layout.containers):
            cx, cy = self.s.centre(i)
            base = _circle(cx, cy, c.radius_mm * 0.9, 0.0)
            top = base.copy()
            top[:, :2] += self.shift(c.height_mm)
            hull = cv2.convexHull(self.uv(np.vstack([base, top])).astype(np.float32)).reshape(-1, 2)
            fill_polygon(sh, hull, 1.0, aa=True)
        if self.s.hands:
            hs = np.zeros((H, W), np.float32)
            for hand in self.s.hands:
                for poly, _ in self.hand_painter.hand_parts(hand):
                    flat = poly.copy()
                    flat[:, :2] += flat[:, 2:3] * (-self.L[None, :2] / max(self.L[2], 0.25))
                    flat[:, 2] = 0.0
                    fill_polygon(hs, self.uv(flat), 1.0)
            sh = np.maximum(sh, cv2.GaussianBlur(hs, (0, 0), 8) * 0.85)
        return cv2.GaussianBlur(sh, (0, 0), 2.0)


def render_cups(scene: CupsScene, seed: int = 0) -> tuple[np.ndarray, CupsTruth]:
    """Draw ``scene``: (BGR uint8 image as the camera delivers it, the truth).  Deterministic
    for ``seed`` (the sensor noise and the auto-exposure's drift)."""
    rng = np.random.default_rng([seed, 5])
    intr = scene.intrinsics
    W, H = intr.width, intr.height
    d = _Drawer(scene, rng)
    look = scene.look
    lay = scene.layout
    # the table: a texture over the play area and a wide margin, warped into the picture
    mx0, my0 = -700.0, -700.0
    tw, th = int((lay.width_mm + 1400) * TEX_PPM), int((lay.depth_mm + 1400) * TEX_PPM)
    tex = _table_texture(look, mx0, my0, tw, th, np.random.default_rng(int(look.camera.table_scale_mm * 1000)))
    tex_lin = to_linear(np.clip(tex, 0, 255))
    to_world = np.array([[1 / TEX_PPM, 0, mx0], [0, 1 / TEX_PPM, my0], [0, 0, 1]])
    Hm = plane_homography(intr, scene.pose, 0.0) @ to_world
    img = cv2.warpPerspective(tex_lin, Hm, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    # light on the table: the main light fades over the table (a lamp, not the sun)
    gy, gx = np.mgrid[0:H:8, 0:W:8].astype(np.float32)
    fall = 1.0 - 0.25 * (((gx - W / 2) * d.L[0] / W) + ((gy - H / 2) * d.L[1] / H))
    fall = cv2.resize(fall, (W, H), interpolation=cv2.INTER_LINEAR)
    direct = (1 - look.ambient) * d.L[2]
    shadow = d.shadows(H, W)
    img *= (look.ambient + direct * fall * (1 - look.shadow * shadow))[..., None]
    order = sorted(range(len(lay.containers)),
                   key=lambda i: -np.linalg.norm(d.cam - np.array([*scene.centre(i), 0.0])))
    for i in order:
        d.vessel(img, i)
    hand_mask = np.zeros((H, W), np.uint8)
    for hand in scene.hands:
        skin = to_linear(hand.skin_bgr)
        sleeve = to_linear(hand.sleeve_bgr)
        for poly, part in d.hand_painter.hand_parts(hand):
            uv = d.uv(poly)
            col = skin * rng.uniform(0.85, 1.0) if part == "skin" else sleeve
            fill_polygon(img, uv, tuple(float(x) for x in col * d.lit() * 1.1), aa=True)
            fill_polygon(hand_mask, uv, 255)
    maps = distortion_maps(intr)
    if maps is not None:
        img = cv2.remap(img, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        hand_mask = cv2.remap(hand_mask, maps[0], maps[1], cv2.INTER_NEAREST)
    light = np.asarray(kelvin_to_bgr(look.light_kelvin), np.float32)
    img *= light[None, None, :]
    image = sensor_image(np.ascontiguousarray(img, np.float32), look.camera, intr, light, seed)
    truth = CupsTruth(scene.state, bool(hand_mask.any()), intr, scene.pose)
    return image, truth


# -- scripted sequences -----------------------------------------------------------------------

@dataclass(frozen=True)
class ScriptFrame:
    """One frame of a scripted sequence: the picture, its truth, and which state of the
    script the table is in (its index; while a hand moves, the state it leaves until the hand
    has put the beans down)."""

    image: np.ndarray
    truth: CupsTruth
    step: int


def script_frames(layout: CupsLayout, states: list[TableState], seed: int, style: str = "daylight",
                  still_frames: int = 2, move_frames: int = 3, beans: str | None = None) -> list[ScriptFrame]:
    """Frames of a game: each state held for ``still_frames`` frames, each change made by a
    hand that moves over the containers that change during ``move_frames`` frames (the
    beans change under the hand half-way).  Look, camera and placement fixed for the game;
    beans that stay keep their places.  Deterministic for ``seed``."""
    if not states:
        raise ValueError("a script needs at least one state")
    return list(iter_script_frames(layout, states, seed, style, still_frames, move_frames, beans))


def iter_script_frames(layout: CupsLayout, states: Iterable[TableState], seed: int, style: str = "daylight",
                       still_frames: int = 2, move_frames: int = 3, beans: str | None = None
                       ) -> Iterator[ScriptFrame]:
    """``script_frames`` made one frame at a time, for a script of any length (the demo
    camera's endless games draw their next state only when the table reaches it).  The
    same frames as ``script_frames`` for the same arguments."""
    it = iter(states)
    try:
        first = next(it)
    except StopIteration:
        return
    scene = random_cups_scene(layout, first, seed, style, beans=beans)
    rng = np.random.default_rng([seed, 41])
    k = 0

    def shoot(sc: CupsScene, step: int) -> ScriptFrame:
        nonlocal k
        image, truth = render_cups(sc, seed * 1000 + k)
        k += 1
        return ScriptFrame(image, truth, step)

    for _ in range(still_frames):
        yield shoot(scene, 0)
    for step, state in enumerate(it, start=1):
        before = scene.counts
        after = state.as_counts()
        changed = [i for i in range(len(after)) if after[i] != before[i]] or [0]
        spots = [scene.centre(i) for i in changed]
        base = random_cups_hand(layout, rng, spots[0])
        new_beans = arrange(layout, state, scene.look, scene.offsets, rng, scene.beans)
        for m in range(move_frames):
            spot = spots[min(len(spots) - 1, m * len(spots) // move_frames)]
            hand = replace(base, target=(spot[0] + float(rng.uniform(-10, 10)), spot[1] + float(rng.uniform(-10, 10))))
            if m == move_frames // 2:
                scene = replace(scene, beans=new_beans)
            yield shoot(replace(scene, hands=(hand,)), step if m >= move_frames // 2 else step - 1)
        scene = replace(scene, beans=new_beans, hands=())
        for _ in range(still_frames):
            yield shoot(scene, step)
