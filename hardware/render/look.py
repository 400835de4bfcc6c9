"""The style parameters of the shaded renderer (``hardware.render.shaded``): what the board,
table, cups, lamps, hands and camera are made of.  ``random_look`` draws one within realistic
ranges; a scene carries its look, so a scripted game keeps the same table and lamps while the
camera's auto-exposure drifts from frame to frame.

Colours are BGR in 0-255 display values (as in the set and board files); the renderer turns
them into linear reflectances.  Lengths are millimetres in board coordinates.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..pieces import BoardSpec, PieceSet
from .scene import Hand

# second radiation constant h*c/k (m K) and the wavelengths (m) standing for the sensor's
# blue, green and red channels
_C2 = 1.4388e-2
_BGR_WAVELENGTHS = (465e-9, 540e-9, 605e-9)


def kelvin_to_bgr(kelvin: float) -> tuple[float, float, float]:
    """Per-channel gains (B, G, R; G = 1) of a black body at ``kelvin`` as seen by a camera
    white-balanced for daylight (6,500 K): below 6,500 K red rises and blue falls."""
    if not 1000.0 <= kelvin <= 20000.0:
        raise ValueError(f"colour temperature {kelvin} K is outside 1,000-20,000 K")

    def planck(lam: float, t: float) -> float:
        return lam ** -5 / (np.exp(_C2 / (lam * t)) - 1.0)

    rel = [planck(lam, kelvin) / planck(lam, 6500.0) for lam in _BGR_WAVELENGTHS]
    return (float(rel[0] / rel[1]), 1.0, float(rel[2] / rel[1]))


@dataclass(frozen=True)
class Lamp:
    """A point light at ``position`` (mm, z above the board) with a colour temperature and a
    strength (irradiance it gives the board's centre, before the camera's exposure)."""

    position: tuple[float, float, float]
    kelvin: float
    strength: float


@dataclass(frozen=True)
class Sun:
    """Sunlight through a window: a direction toward the sun, and the bright patch it throws
    on the board plane (an axis-aligned rectangle in board mm, cut by a window bar)."""

    direction: tuple[float, float, float]
    kelvin: float
    strength: float
    patch: tuple[float, float, float, float]  # x0, y0, x1, y1
    bar: tuple[float, float]  # centre x of a vertical window bar and its width (0 = none)


@dataclass(frozen=True)
class CupFinish:
    """How a player's cups are made: reflectance of top and wall (BGR display values), the
    specular strength and sharpness (Blinn-Phong exponent), and whether wood grain shows."""

    top_bgr: tuple[int, int, int]
    wall_bgr: tuple[int, int, int]
    specular: float
    shininess: float
    grain: float  # 0 = none, else the contrast of the wood grain


@dataclass(frozen=True)
class Look:
    """Every style parameter of one shaded scene."""

    # board: "wood", "mdf" or "painted"; its colours, grain scale and strips
    board_kind: str = "wood"
    board_bgr: tuple[int, int, int] = (120, 170, 205)
    board_late_bgr: tuple[int, int, int] = (80, 120, 165)
    board_ring_mm: float = 3.0
    board_strip_mm: float = 80.0
    board_grain_angle: float = 0.0
    board_gloss: float = 0.04
    line_bgr: tuple[int, int, int] = (40, 50, 60)
    paper_bgr: tuple[int, int, int] = (225, 228, 228)
    # table: "wood", "laminate", "cloth" or "check"
    table_kind: str = "laminate"
    table_bgr: tuple[int, int, int] = (150, 150, 150)
    table_alt_bgr: tuple[int, int, int] = (120, 120, 120)
    table_scale_mm: float = 120.0
    table_gloss: float = 0.03
    # cups: one finish per player; the top's edge profile
    finishes: tuple[CupFinish, CupFinish] = (
        CupFinish((190, 215, 230), (170, 195, 212), 0.05, 20.0, 0.0),
        CupFinish((40, 45, 55), (30, 35, 45), 0.05, 20.0, 0.0))
    edge: str = "round"  # "round" or "chamfer"
    fillet_mm: float = 2.0
    taper: float = 0.15  # how far the wall narrows toward the set's top diameter (0 = cylinder, 1 = to it)
    plug_recess_mm: float = 0.5  # clear sets: how far the wood plug sits below the pipe's rim
    # light
    lamps: tuple[Lamp, ...] = (Lamp((150.0, 100.0, 1400.0), 3500.0, 1.0),)
    sun: Sun | None = None
    ambient: float = 0.35
    ambient_kelvin: float = 6500.0
    # hands: sleeve pattern ("plain", "stripes", "check") and its second colour
    sleeve_pattern: str = "plain"
    sleeve_alt_bgr: tuple[int, int, int] = (200, 200, 200)
    sleeve_period_mm: float = 12.0
    # camera
    auto_exposure: bool = True  # False: a fixed exposure (0.5 * 2^bias), whatever is in view
    exposure_bias: float = 0.0  # EV
    exposure_drift: float = 0.08  # EV, sigma of the frame-to-frame drift
    awb: float = 0.7  # how much of the light's colour the white balance removes (1 = all)
    vignette: float = 0.3
    aberration: float = 0.0008  # relative radial shift of red against blue
    blur: float = 0.5  # optics, px (sigma)
    full_well: float = 3000.0  # electrons at white: lower is noisier
    read_noise: float = 4.0  # electrons
    bayer: bool = True
    chroma_noise: float = 0.01
    tone: str = "srgb"  # "srgb" or "filmic"
    contrast: float = 1.0
    sharpen: float = 0.5
    jpeg_quality: int = 85


def _jitter(rng: np.random.Generator, bgr, spread: float, level: tuple[float, float] = (1.0, 1.0)):
    k = rng.uniform(*level)
    return tuple(int(np.clip(c * k * rng.uniform(1 - spread, 1 + spread), 0, 255)) for c in bgr)


# (kind, early colour, late colour, ring spacing mm): species other than the polygon style's
# orange-tan board
_BOARD_WOODS = [
    ("wood", (170, 205, 225), (130, 170, 200), 2.5),   # maple / birch, pale
    ("wood", (75, 110, 165), (45, 70, 120), 3.0),      # cherry, reddish
    ("wood", (55, 75, 105), (30, 42, 62), 3.5),        # walnut, dark brown
    ("wood", (110, 160, 195), (70, 110, 150), 5.0),    # oak, open grain
    ("wood", (135, 190, 215), (95, 150, 190), 1.8),    # bamboo / ash, straw
    ("wood", (95, 140, 175), (60, 95, 130), 4.0),      # teak, golden brown
]
_BOARD_FLATS = [
    ("mdf", (45, 55, 70)), ("mdf", (110, 118, 122)), ("mdf", (60, 90, 120)),
    ("painted", (210, 214, 216)), ("painted", (60, 105, 65)), ("painted", (120, 80, 45)),
    ("painted", (40, 40, 42)), ("painted", (160, 190, 200)),
]
_TABLES = [
    ("wood", (100, 135, 170), (65, 95, 130)), ("wood", (50, 65, 85), (30, 40, 55)),
    ("wood", (150, 180, 200), (120, 150, 175)), ("laminate", (235, 235, 235), (215, 215, 215)),
    ("laminate", (90, 90, 92), (80, 80, 82)), ("laminate", (160, 170, 175), (140, 150, 155)),
    ("cloth", (60, 45, 140), (40, 30, 110)), ("cloth", (150, 120, 60), (120, 95, 45)),
    ("cloth", (200, 205, 210), (180, 185, 190)), ("check", (230, 230, 230), (60, 60, 170)),
    ("check", (230, 230, 230), (140, 90, 40)),
]
# skin tones from pale to dark, BGR
SKINS = [(190, 205, 240), (160, 180, 228), (130, 160, 215), (100, 135, 195), (75, 105, 160),
         (55, 75, 120), (40, 55, 90)]


def _finish(rng: np.random.Generator, top, wall, kind: str) -> CupFinish:
    """A player's cups in a finish of ``kind``: painted, varnished wood, plastic, matt or
    glossy; colours near the set's."""
    top = _jitter(rng, top, 0.08, (0.85, 1.12))
    wall = tuple(int(np.clip(w * t2 / max(t1, 1), 0, 255)) for w, t1, t2 in zip(wall, top, top))
    # specular: the lobe's share of the lamp's light (a clear coat reflects about 4-10 %),
    # shininess: the Blinn-Phong exponent (a wide satin sheen to a tight lacquer glint)
    if kind == "painted":
        spec, shin, grain = rng.uniform(0.02, 0.06), rng.uniform(8, 40), 0.0
    elif kind == "varnished":
        spec, shin, grain = rng.uniform(0.05, 0.12), rng.uniform(40, 250), rng.uniform(0.08, 0.25)
    elif kind == "glossy":
        spec, shin, grain = rng.uniform(0.06, 0.14), rng.uniform(60, 400), 0.0
    elif kind == "satin":
        spec, shin, grain = rng.uniform(0.05, 0.12), rng.uniform(12, 50), 0.0
    else:  # matt
        spec, shin, grain = rng.uniform(0.0, 0.03), rng.uniform(4, 12), 0.0
    return CupFinish(top, wall, float(spec), float(shin), float(grain))


def random_look(rng: np.random.Generator, pieces: PieceSet, board: BoardSpec, strength: float = 1.0) -> Look:
    """A random look: board and table, cup finishes and top profile, one or two lamps (and
    sometimes the sun through a window), hand sleeves and the camera's processing.  The
    camera's defects (exposure drift, vignetting, blur, noise, JPEG) scale with ``strength``
    (0 = a clean camera); the materials and lamps do not."""
    if rng.random() < 0.6:
        kind, early, late, ring = _BOARD_WOODS[int(rng.integers(len(_BOARD_WOODS)))]
    else:
        kind, early = _BOARD_FLATS[int(rng.integers(len(_BOARD_FLATS)))]
        late, ring = tuple(int(c * 0.9) for c in early), 1.0
    early = _jitter(rng, early, 0.05, (0.9, 1.1))
    late = _jitter(rng, late, 0.05, (0.9, 1.1))
    lum = float(np.mean(early))
    # printed, painted or burnt lines: dark on light boards, pale on very dark ones
    line = (_jitter(rng, (35, 40, 50), 0.2) if lum > 80
            else _jitter(rng, (200, 205, 210), 0.05))
    t_kind, t_a, t_b = _TABLES[int(rng.integers(len(_TABLES)))]
    finish_kinds = ["painted", "varnished", "glossy", "satin", "matt"]
    if pieces.clear:
        # the clear sets' tops are wood plugs: oiled (matt) to lacquered
        finish_kinds = ["varnished", "matt", "satin", "varnished"]
    fk = finish_kinds[int(rng.integers(len(finish_kinds)))]
    finishes = tuple(_finish(rng, c.top_bgr, c.wall_bgr, fk) for c in pieces.colours)
    if pieces.clear:
        finishes = tuple(replace(f, grain=max(f.grain, float(rng.uniform(0.1, 0.25)))) for f in finishes)
    centre = np.array([board.width_mm / 2, board.depth_mm / 2])
    lamps = []
    for k in range(1 if rng.random() < 0.55 else 2):
        if k == 0 and rng.random() < 0.7:
            # a ceiling lamp, roughly over the table
            h = rng.uniform(900, 1800)
            r = rng.uniform(0, 500)
        else:
            # a desk or floor lamp to one side: long shadows
            h = rng.uniform(450, 900)
            r = rng.uniform(300, 900)
        a = rng.uniform(0, 2 * np.pi)
        pos = (float(centre[0] + r * np.cos(a)), float(centre[1] + r * np.sin(a)), float(h))
        lamps.append(Lamp(pos, float(rng.uniform(2700, 6500)), float(rng.uniform(0.5, 1.0) if k else 1.0)))
    sun = None
    if rng.random() < 0.25:
        elev = np.radians(rng.uniform(25, 60))
        az = rng.uniform(0, 2 * np.pi)
        d = (float(np.cos(elev) * np.cos(az)), float(np.cos(elev) * np.sin(az)), float(np.sin(elev)))
        w, dpt = rng.uniform(60, 220), rng.uniform(60, 260)
        x0 = centre[0] + rng.uniform(-250, 150)
        y0 = centre[1] + rng.uniform(-250, 150)
        bar = (float(x0 + w * rng.uniform(0.3, 0.7)), float(rng.uniform(0, 25) if rng.random() < 0.6 else 0.0))
        sun = Sun(d, float(rng.uniform(5200, 6500)), float(rng.uniform(1.5, 4.0)),
                  (float(x0), float(y0), float(x0 + w), float(y0 + dpt)), bar)
    tone = "filmic" if rng.random() < 0.5 else "srgb"
    pattern = ["plain", "plain", "stripes", "check"][int(rng.integers(4))]
    look = Look(
        board_kind=kind, board_bgr=early, board_late_bgr=late, board_ring_mm=float(ring * rng.uniform(0.8, 1.25)),
        board_strip_mm=float(rng.uniform(45, 160)), board_grain_angle=float(rng.choice([0.0, 90.0]) + rng.uniform(-2, 2)),
        board_gloss=float(rng.uniform(0.01, 0.12) if kind != "painted" else rng.uniform(0.05, 0.2)),
        line_bgr=line, paper_bgr=_jitter(rng, (228, 232, 232), 0.03, (0.92, 1.04)),
        table_kind=t_kind, table_bgr=_jitter(rng, t_a, 0.1, (0.8, 1.15)), table_alt_bgr=_jitter(rng, t_b, 0.1, (0.8, 1.15)),
        table_scale_mm=float(rng.uniform(90, 200) if t_kind == "wood" else rng.uniform(12, 30)),
        table_gloss=float(rng.uniform(0.0, 0.02) if t_kind in ("cloth", "check") else rng.uniform(0.02, 0.15)),
        finishes=(finishes[0], finishes[1]),
        edge="round" if rng.random() < 0.7 else "chamfer", fillet_mm=float(rng.uniform(1.0, 4.0)),
        taper=float(rng.uniform(0.0, 0.3)), plug_recess_mm=float(rng.uniform(0.0, 1.5)),
        lamps=tuple(lamps), sun=sun, ambient=float(rng.uniform(0.15, 0.5)),
        ambient_kelvin=float(rng.uniform(5000, 8000) if rng.random() < 0.6 else rng.uniform(3000, 4500)),
        sleeve_pattern=pattern, sleeve_alt_bgr=tuple(int(v) for v in rng.integers(30, 240, 3)),
        sleeve_period_mm=float(rng.uniform(6, 25)),
        exposure_bias=float(rng.uniform(-0.5, 0.4)), exposure_drift=float(rng.uniform(0.03, 0.12)),
        awb=float(rng.uniform(0.5, 0.95)), vignette=float(rng.uniform(0.1, 0.5)),
        aberration=float(rng.uniform(0.0, 0.0015)), blur=float(rng.uniform(0.2, 0.8)),
        full_well=float(rng.uniform(800, 6000)), read_noise=float(rng.uniform(2, 8)),
        bayer=bool(rng.random() < 0.5), chroma_noise=float(rng.uniform(0.0, 0.025)),
        tone=tone, contrast=float(rng.uniform(0.9, 1.2)), sharpen=float(rng.uniform(0.0, 0.9)),
        jpeg_quality=int(rng.integers(60, 96)),
    )
    if strength < 1.0:
        k = max(strength, 0.0)
        look = replace(look, exposure_drift=look.exposure_drift * k, vignette=look.vignette * k,
                       aberration=look.aberration * k, blur=look.blur * k, full_well=look.full_well / max(k, 1e-3),
                       read_noise=look.read_noise * k, chroma_noise=look.chroma_noise * k,
                       sharpen=look.sharpen * k, jpeg_quality=look.jpeg_quality if k > 0 else 0)
    return look


def styled_hand(hand: Hand, rng: np.random.Generator) -> Hand:
    """``hand`` with a skin tone from pale to dark and a sleeve (pale, dark or coloured)."""
    skin = _jitter(rng, SKINS[int(rng.integers(len(SKINS)))], 0.04)
    u = rng.random()
    if u < 0.3:
        sleeve = _jitter(rng, (225, 228, 230), 0.04)  # white / pale
    elif u < 0.55:
        sleeve = _jitter(rng, (35, 35, 40), 0.2)  # black / navy
    else:
        sleeve = tuple(int(v) for v in rng.integers(25, 235, 3))
    return replace(hand, skin_bgr=skin, sleeve_bgr=sleeve)
