"""The second look of the synthetic camera: a per-pixel ray caster with its own materials,
point lamps, hard shadows, sunlight, and a camera that meters, mosaics, adds sensor noise,
tone-maps and compresses.

It shares no drawing with ``draw.py``.  Each output pixel is a ray through the real lens
(the distortion of the intrinsics is undone per pixel, so geometry is that of
``camera_model.project``), intersected with the board plane (board, grid, marker cards,
table), with each cup (a surface of revolution: a tapered wall, a rounded or chamfered top
edge, a flat top) and with the hands (capsules).  The nearest hit is shaded with Lambert
plus a normalised Blinn-Phong lobe per lamp, an ambient sky/ground term with a Fresnel
reflection of the room, lamp and sun shadows traced per pixel against the same shapes, and
contact darkening where cups stand.  Clear cups (``material: clear``) are see-through walls
composited over what lies behind them, with their wood plugs opaque.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from ..camera_model import CameraIntrinsics
from ..markers import marker_bits, marker_centres, marker_image, outer_rect, tile_side
from .look import Look, kelvin_to_bgr
from .scene import Hand, Scene
from .shade_kernels import capsule_hit, capsule_shadow, cone_shadow, light_pass

_FAR = 1.0e5  # ray length standing for "nothing hit"
_PLUG_MM = 8.0  # length of a clear cup's wood plug (5/16 inch)
_PIPE_WALL_MM = 1.6  # clear cup wall (1/16 inch)
_NOISE_N = 256  # cells of a value-noise grid (it tiles)
_PRINT_PX = 16  # atlas pixels per marker cell


def to_linear(bgr) -> np.ndarray:
    """Display BGR (0-255) to linear reflectance."""
    return ((np.asarray(bgr, np.float32) / 255.0) ** 2.2).astype(np.float32)


def _luma(bgr: np.ndarray) -> np.ndarray:
    return 0.114 * bgr[..., 0] + 0.587 * bgr[..., 1] + 0.299 * bgr[..., 2]


def _light_colour(kelvin: float) -> np.ndarray:
    g = np.asarray(kelvin_to_bgr(kelvin), np.float32)
    return g / float(_luma(g))


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1] + a[..., 2] * b[..., 2]


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.maximum(np.sqrt(_dot(v, v)), 1e-6)[..., None]


def _smoothstep(e0, e1, x):
    t = np.clip((x - e0) / (e1 - e0), 0.0, 1.0)
    return t * t * (3 - 2 * t)


# -- rays --------------------------------------------------------------------------------

@lru_cache(maxsize=8)
def _normalised_rays(intr: CameraIntrinsics) -> np.ndarray:
    """(H, W, 2) ideal normalised image coordinates (x/z, y/z) of each output pixel's centre,
    the lens distortion undone."""
    u, v = np.meshgrid(np.arange(intr.width, dtype=np.float64), np.arange(intr.height, dtype=np.float64))
    if not any(intr.dist):
        return np.stack([(u - intr.cx) / intr.fx, (v - intr.cy) / intr.fy], -1).astype(np.float32)
    pts = np.stack([u.ravel(), v.ravel()], 1).reshape(-1, 1, 2)
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 1e-9)
    und = cv2.undistortPoints(pts, intr.K, intr.D, None, None, criteria=crit)
    return und.reshape(intr.height, intr.width, 2).astype(np.float32)


@lru_cache(maxsize=4)
def _world_rays(intr: CameraIntrinsics, rvec: tuple[float, float, float]) -> np.ndarray:
    """(H, W, 3) unit ray directions in board coordinates (read only: shared between frames)."""
    xy = _normalised_rays(intr)
    dcam = np.concatenate([xy, np.ones(xy.shape[:2] + (1,), np.float32)], -1)
    R = cv2.Rodrigues(np.asarray(rvec, np.float64))[0].astype(np.float32)
    D = _unit(dcam @ R)  # camera to world: R^T applied to row vectors
    D.flags.writeable = False
    return D


@lru_cache(maxsize=8)
def _ideal_to_image(intr: CameraIntrinsics) -> tuple[np.ndarray, np.ndarray]:
    """For each ideal-pinhole pixel, where it lands in the lens's (distorted) image."""
    return cv2.initUndistortRectifyMap(intr.K, intr.D, None, intr.K, (intr.width, intr.height), cv2.CV_32FC1)


def _project(intr: CameraIntrinsics, R: np.ndarray, t: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """World points to (distorted) pixels; points behind the camera come out far away."""
    cam = pts @ R.T + t
    z = cam[:, 2]
    behind = z < 1.0
    z = np.maximum(z, 1.0)
    x, y = cam[:, 0] / z, cam[:, 1] / z
    k1, k2, p1, p2, k3 = (tuple(intr.dist) + (0.0,) * 5)[:5]
    r2 = np.minimum(x * x + y * y, 4.0)
    rad = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
    xd = x * rad + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * rad + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    uv = np.stack([xd * intr.fx + intr.cx, yd * intr.fy + intr.cy], 1)
    uv[behind] = np.nan
    return uv


# -- procedural textures ------------------------------------------------------------------

@lru_cache(maxsize=8)
def _noise_grids(seed: int) -> np.ndarray:
    rng = np.random.default_rng([seed, 77])
    return rng.random((6, _NOISE_N, _NOISE_N)).astype(np.float32)


def _vnoise(grid: np.ndarray, x: np.ndarray, y: np.ndarray, fine: bool = False) -> np.ndarray:
    """Smooth value noise in [0, 1] at (x, y) measured in noise cells (tiles every 256);
    ``fine`` noise, a pixel or two per cell, is interpolated linearly (cheaper, and cubic
    would not show)."""
    mx = np.mod(x, _NOISE_N).astype(np.float32)
    my = np.mod(y, _NOISE_N).astype(np.float32)
    return cv2.remap(grid, mx, my, cv2.INTER_LINEAR if fine else cv2.INTER_CUBIC, borderMode=cv2.BORDER_WRAP)


@lru_cache(maxsize=16)
def _marker_print(dictionary: str, marker_id: int) -> np.ndarray:
    side = marker_bits(dictionary, marker_id).shape[0] * _PRINT_PX
    return marker_image(dictionary, marker_id, side).astype(np.float32) / 255


def _wood(look_rng_tables, grids, u, v, early, late, ring_mm, strip_mm, fp):
    """Wood seen on a flat-sawn face: growth rings of a log lying along ``u`` (one log per
    glued strip across ``v``), warped, with fine fibres."""
    v0, depth, tint = look_rng_tables
    strip = np.floor(v / strip_mm)
    idx = np.mod(strip, len(v0)).astype(np.int32)
    # rings are of uneven width (good and poor growing years): a slow wobble across them
    warp = (7.0 * _vnoise(grids[0], u / 160.0, v / 45.0) + 0.8 * _vnoise(grids[1], u / 25.0, v / 5.0)
            + 1.6 * ring_mm * _vnoise(grids[3], u / 400.0, v / (2.5 * ring_mm)))
    dist = np.sqrt((v - (strip + 0.5) * strip_mm - v0[idx]) ** 2 + depth[idx] ** 2) + warp
    ring = np.mod(dist / ring_mm, 1.0)
    # the dark latewood band of each ring, sharp on one side; it fades where a pixel spans
    # several rings so the grain does not alias into moire
    late_w = _smoothstep(0.55, 0.92, ring) * (1.0 - _smoothstep(0.92, 1.0, ring))
    fade = np.clip(1.5 - fp / ring_mm * 1.5, 0.0, 1.0)
    late_w = late_w * fade + 0.3 * (1 - fade)
    fibre = _vnoise(grids[2], u / 18.0, v / 0.9, True) - 0.5
    alb = early[None, None, :] * (1 - late_w[..., None]) + late[None, None, :] * late_w[..., None]
    return alb * (1.0 + 0.12 * fibre)[..., None] * tint[idx][..., None]


# -- the frame being built -----------------------------------------------------------------

@dataclass
class _Occluder:
    kind: str  # "cone" or "capsule"
    obj: int
    params: tuple
    opacity: float
    bounds: np.ndarray  # world points bounding it


@dataclass
class _Frame:
    H: int
    W: int
    C: np.ndarray
    D: np.ndarray
    T: np.ndarray
    obj: np.ndarray
    N: np.ndarray
    A: np.ndarray
    KS: np.ndarray
    SH: np.ndarray
    WRAP: np.ndarray
    occluders: list = field(default_factory=list)
    pipes: list = field(default_factory=list)
    hand_ids: set = field(default_factory=set)

    def bbox(self, uv: np.ndarray, pad: int = 3) -> tuple[int, int, int, int] | None:
        if np.isnan(uv).any():
            return 0, self.H, 0, self.W
        x0 = max(int(np.floor(uv[:, 0].min())) - pad, 0)
        x1 = min(int(np.ceil(uv[:, 0].max())) + pad + 1, self.W)
        y0 = max(int(np.floor(uv[:, 1].min())) - pad, 0)
        y1 = min(int(np.ceil(uv[:, 1].max())) + pad + 1, self.H)
        if x1 <= x0 or y1 <= y0:
            return None
        return y0, y1, x0, x1

    def write(self, box, t, normal, albedo, ks, sh, obj, wrap=0.0):
        """Keep the hits ``t`` (per box pixel, inf = none) that are nearer than what is there."""
        y0, y1, x0, x1 = box
        win = t < self.T[y0:y1, x0:x1]
        if not win.any():
            return win
        self.T[y0:y1, x0:x1][win] = t[win]
        self.obj[y0:y1, x0:x1][win] = obj
        self.N[y0:y1, x0:x1][win] = normal[win]
        self.A[y0:y1, x0:x1][win] = albedo[win] if np.ndim(albedo) == 3 else albedo
        self.KS[y0:y1, x0:x1][win] = ks[win] if np.ndim(ks) == 2 else ks
        self.SH[y0:y1, x0:x1][win] = sh[win] if np.ndim(sh) == 2 else sh
        self.WRAP[y0:y1, x0:x1][win] = wrap
        return win


# -- intersections --------------------------------------------------------------------------

def _cone_hit(o: np.ndarray, d: np.ndarray, r0: float, z0: float, r1: float, z1: float):
    """Nearest ray parameter where rays ``o + t d`` (o relative to the axis) meet the side of
    a frustum whose radius goes linearly from r0 at z0 to r1 at z1; inf where they miss."""
    k = (r1 - r0) / (z1 - z0)
    a0 = r0 + k * (o[2] - z0)
    a1 = k * d[..., 2]
    A = d[..., 0] ** 2 + d[..., 1] ** 2 - a1 * a1
    B = 2 * (o[0] * d[..., 0] + o[1] * d[..., 1] - a0 * a1)
    Cc = o[0] ** 2 + o[1] ** 2 - a0 * a0
    disc = B * B - 4 * A * Cc
    ok = (disc >= 0) & (np.abs(A) > 1e-12)
    sq = np.sqrt(np.where(ok, disc, 0.0))
    A2 = np.where(ok, 2 * A, 1.0)
    best = np.full(A.shape, np.inf, np.float32)
    for sgn in (1.0, -1.0):
        t = (-B - sgn * sq) / A2
        z = o[2] + t * d[..., 2]
        good = ok & (t > 0) & (z >= z0) & (z <= z1) & (a0 + a1 * t >= 0)
        best = np.where(good & (t < best), t, best)
    return best


def _disc_hit(o: np.ndarray, d: np.ndarray, z: float, r_in: float, r_out: float):
    dz = d[..., 2]
    t = (z - o[2]) / np.where(np.abs(dz) > 1e-9, dz, -1e-9)
    x, y = o[0] + t * d[..., 0], o[1] + t * d[..., 1]
    r2 = x * x + y * y
    good = (t > 0) & (r2 <= r_out * r_out) & (r2 >= r_in * r_in)
    return np.where(good, t, np.inf).astype(np.float32)


# -- the renderer -----------------------------------------------------------------------------

class _Shader:
    def __init__(self, scene: Scene, look: Look, seed: int):
        self.scene, self.look, self.seed = scene, look, seed
        intr = scene.intrinsics
        self.intr = intr
        self.R, self.t = scene.pose.R, scene.pose.t
        C = scene.pose.centre
        H, W = intr.height, intr.width
        D = _world_rays(intr, scene.pose.rvec)
        self.f = _Frame(H, W, C.astype(np.float64), D,
                        np.full((H, W), _FAR, np.float32), np.full((H, W), -1, np.int16),
                        np.zeros((H, W, 3), np.float32), np.zeros((H, W, 3), np.float32),
                        np.zeros((H, W), np.float32), np.ones((H, W), np.float32), np.zeros((H, W), np.float32))
        self.grids = _noise_grids(look_seed(look))
        self.tex_rng = np.random.default_rng([look_seed(look), 5])
        self.strips = (self.tex_rng.uniform(-400, 400, 64), self.tex_rng.uniform(30, 300, 64),
                       self.tex_rng.uniform(0.88, 1.1, 64).astype(np.float32))
        self.next_obj = 0
        self.ao = np.ones((H, W), np.float32)  # contact darkening of the board round cups

    def new_obj(self) -> int:
        self.next_obj += 1
        return self.next_obj

    def proj(self, pts: np.ndarray) -> np.ndarray:
        return _project(self.intr, self.R, self.t, np.asarray(pts, np.float64))

    # -- the board plane ---------------------------------------------------------------
    def plane(self) -> None:
        f, look, board = self.f, self.look, self.scene.board
        D = f.D
        dz = D[..., 2]
        t = np.where(dz < -1e-4, -f.C[2] / np.where(dz < -1e-4, dz, -1.0), _FAR).astype(np.float32)
        t = np.minimum(t, _FAR)
        X = (f.C[0] + t * D[..., 0]).astype(np.float32)
        Y = (f.C[1] + t * D[..., 1]).astype(np.float32)
        # footprint of a pixel on the plane, mm (larger where the plane is seen obliquely)
        fp = (t / self.intr.fx / np.sqrt(np.maximum(-dz, 0.05))).astype(np.float32)
        g = self.grids
        # table
        cx, cy = board.width_mm / 2, board.depth_mm / 2
        ta, tb = to_linear(look.table_bgr), to_linear(look.table_alt_bgr)
        if look.table_kind == "wood":
            plank = look.table_scale_mm
            alb = _wood(self.strips, g, X + 3000.0, Y + 1700.0, ta, tb, 4.5, plank, fp)
            gap = np.abs(np.mod(Y + 1700.0, plank) - plank / 2) > plank / 2 - 0.8
            alb *= np.where(gap & (fp < 2.0), 0.45, 1.0)[..., None]
        elif look.table_kind == "laminate":
            n = 0.05 * (_vnoise(g[3], X / 0.8, Y / 0.8, True) - 0.5) + 0.05 * (_vnoise(g[4], X / 40, Y / 40) - 0.5)
            alb = ta[None, None, :] * (1 + n)[..., None]
        elif look.table_kind == "cloth":
            weave = _vnoise(g[3], X / 1.2, Y / 1.2, True) - 0.5
            wrinkle = _vnoise(g[4], X / 70, Y / 50) - 0.5
            alb = ta[None, None, :] * (1 + 0.12 * weave * np.clip(2 - fp, 0, 1) + 0.25 * wrinkle)[..., None]
        else:  # gingham check
            p = look.table_scale_mm
            sx = _smoothstep(-fp, fp, np.abs(np.mod(X, p) - p / 2) - p / 4)
            sy = _smoothstep(-fp, fp, np.abs(np.mod(Y, p) - p / 2) - p / 4)
            k = (sx + sy) / 2
            alb = ta[None, None, :] * (1 - k)[..., None] + tb[None, None, :] * k[..., None]
            alb *= (1 + 0.2 * (_vnoise(g[4], X / 70, Y / 50) - 0.5))[..., None]
        far = _smoothstep(1100.0, 2500.0, np.hypot(X - cx, Y - cy))  # the table ends, a dimmer floor
        alb = alb * (1 - far[..., None]) + (0.3 * (ta + tb) / 2)[None, None, :] * far[..., None]
        ks = np.full(X.shape, look.table_gloss, np.float32)
        # the board, worked out only where it can appear
        sh = np.full(X.shape, 12.0, np.float32)
        x0, y0, x1, y1 = outer_rect(board)
        # a board is a few millimetres thick: the table right along its edge is in its shade
        rim = 8.0
        box = self.rect_box(x0 - rim, y0 - rim, x1 + rim, y1 + rim)
        if box is not None:
            by0, by1, bx0, bx1 = box
            Xb, Yb = X[by0:by1, bx0:bx1], Y[by0:by1, bx0:bx1]
            out = np.maximum(np.maximum(x0 - Xb, Xb - x1), np.maximum(y0 - Yb, Yb - y1))
            edge = 1 - 0.35 * np.exp(-np.maximum(out, 0) / 2.5) * (out > 0)
            alb[by0:by1, bx0:bx1] *= edge[..., None]
        box = self.rect_box(x0, y0, x1, y1)
        if box is not None:
            by0, by1, bx0, bx1 = box
            Xb, Yb, fb = X[by0:by1, bx0:bx1], Y[by0:by1, bx0:bx1], fp[by0:by1, bx0:bx1]
            on_board = _smoothstep(-fb, fb, np.minimum(np.minimum(Xb - x0, x1 - Xb), np.minimum(Yb - y0, y1 - Yb)))
            be, bl = to_linear(look.board_bgr), to_linear(look.board_late_bgr)
            if look.board_kind == "wood":
                a = np.radians(look.board_grain_angle)
                u = Xb * np.cos(a) + Yb * np.sin(a)
                v = -Xb * np.sin(a) + Yb * np.cos(a)
                balb = _wood(self.strips, g, u + 500.0, v + 900.0, be, bl, look.board_ring_mm, look.board_strip_mm, fb)
            elif look.board_kind == "mdf":
                n = (0.06 * (_vnoise(g[3], Xb / 0.9, Yb / 0.9, True) - 0.5)
                     + 0.1 * (_vnoise(g[5], Xb / 35, Yb / 35) - 0.5))
                balb = be[None, None, :] * (1 + n)[..., None]
            else:
                n = 0.03 * (_vnoise(g[5], Xb / 6, Yb / 6) - 0.5)
                balb = be[None, None, :] * (1 + n)[..., None]
            # grid lines, at every multiple of the square including the grid's outer edges
            sq, lw = board.square_mm, board.line_mm

            def line_cover(coord, n_lines, other, other_len):
                k = np.clip(np.round(coord / sq), 0, n_lines)
                dist = np.abs(coord - k * sq)
                inside = _smoothstep(-fb, fb, np.minimum(other + lw / 2, other_len + lw / 2 - other))
                return _smoothstep(-fb * 0.7, fb * 0.7, lw / 2 - dist) * inside

            lines = np.maximum(line_cover(Xb, board.cols, Yb, board.depth_mm),
                               line_cover(Yb, board.rows, Xb, board.width_mm))
            lc = to_linear(look.line_bgr)
            balb = balb * (1 - lines[..., None]) + lc[None, None, :] * lines[..., None]
            sub = alb[by0:by1, bx0:bx1]
            alb[by0:by1, bx0:bx1] = sub * (1 - on_board[..., None]) + balb * on_board[..., None]
            ks[by0:by1, bx0:bx1] = ks[by0:by1, bx0:bx1] * (1 - on_board) + look.board_gloss * on_board
            sh[by0:by1, bx0:bx1] = np.where(on_board > 0.5, 30.0, 12.0)
        # marker cards: white paper, black print
        m = board.markers
        ts = tile_side(board)
        paper = to_linear(look.paper_bgr)
        ink = paper * 0.045
        for mid, (mx, my) in marker_centres(board).items():
            box = self.rect_box(mx - ts / 2, my - ts / 2, mx + ts / 2, my + ts / 2)
            if box is None:
                continue
            by0, by1, bx0, bx1 = box
            Xb, Yb, fb = X[by0:by1, bx0:bx1], Y[by0:by1, bx0:bx1], fp[by0:by1, bx0:bx1]
            card = _smoothstep(-fb, fb, np.minimum(np.minimum(Xb - (mx - ts / 2), (mx + ts / 2) - Xb),
                                                   np.minimum(Yb - (my - ts / 2), (my + ts / 2) - Yb)))
            atlas = _marker_print(m.dictionary, mid)
            side = atlas.shape[0]
            mu = ((Xb - (mx - m.size_mm / 2)) / m.size_mm * side - 0.5).astype(np.float32)
            mv = (((my + m.size_mm / 2) - Yb) / m.size_mm * side - 0.5).astype(np.float32)
            white = cv2.remap(atlas, mu, mv, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=1.0)
            palb = ink[None, None, :] + (paper - ink)[None, None, :] * white[..., None]
            sub = alb[by0:by1, bx0:bx1]
            alb[by0:by1, bx0:bx1] = sub * (1 - card[..., None]) + palb * card[..., None]
            ks[by0:by1, bx0:bx1] = ks[by0:by1, bx0:bx1] * (1 - card) + 0.03 * card
        f.T[:] = t
        f.obj[:] = np.where(t < _FAR, -1, -2)
        f.N[:] = (0.0, 0.0, 1.0)
        f.A[:] = alb
        f.KS[:] = ks
        f.SH[:] = sh
        self.X, self.Y, self.fp = X, Y, fp

    def rect_box(self, x0: float, y0: float, x1: float, y1: float):
        """The pixel box where a rectangle of the board plane can appear."""
        xs, ys = np.linspace(x0, x1, 5), np.linspace(y0, y1, 5)
        pts = np.array([[x, y, 0.0] for x in xs for y in ys])
        return self.f.bbox(self.proj(pts), pad=4)

    # -- cups --------------------------------------------------------------------------------
    def cup_profile(self, R: float, rt: float, h: float) -> list[tuple[float, float, float, float, str]]:
        """Segments (r0, z0, r1, z1, part) from the wall's foot to the flat top."""
        look = self.look
        Rw = self.look_top_radius(R, rt)
        f = min(look.fillet_mm, Rw * 0.4, h * 0.3)
        segs = [(R, 0.0, Rw, h - f, "wall")]
        if look.edge == "chamfer":
            segs.append((Rw, h - f, Rw - f, h, "edge0"))
        else:
            K = 4
            for j in range(K):
                a0, a1 = j / K * np.pi / 2, (j + 1) / K * np.pi / 2
                segs.append((Rw - f + f * np.cos(a0), h - f + f * np.sin(a0),
                             Rw - f + f * np.cos(a1), h - f + f * np.sin(a1), f"edge{j}"))
        return segs

    def opaque_cup(self, cx: float, cy: float, R: float, rt: float, h: float, albedo: np.ndarray,
                   ks: float, sh: float, grain: float, obj: int) -> None:
        f = self.f
        ring = np.linspace(0, 2 * np.pi, 16, endpoint=False)
        bounds = np.concatenate([np.column_stack([cx + R * np.cos(ring), cy + R * np.sin(ring), np.full(16, z)])
                                 for z in (0.0, h)])
        box = f.bbox(self.proj(bounds))
        f.occluders.append(_Occluder("cone", obj, ((cx, cy), R, self.look_top_radius(R, rt), 0.0, h), 1.0, bounds))
        if box is None:
            return
        y0, y1, x0, x1 = box
        d = f.D[y0:y1, x0:x1].astype(np.float64)
        o = f.C - np.array([cx, cy, 0.0])
        segs = self.cup_profile(R, rt, h)
        best = np.full(d.shape[:2], np.inf)
        part = np.full(d.shape[:2], -1, np.int8)
        for k, (r0, z0, r1, z1, _) in enumerate(segs):
            tk = _cone_hit(o, d, r0, z0, r1, z1)
            closer = tk < best
            best = np.where(closer, tk, best)
            part = np.where(closer, k, part)
        top_r = segs[-1][2]
        tk = _disc_hit(o, d, h, 0.0, top_r)
        closer = tk < best
        best = np.where(closer, tk, best)
        part = np.where(closer, len(segs), part)
        if not np.isfinite(best).any():
            return
        P = o + np.where(np.isfinite(best), best, 0.0)[..., None] * d
        rho = np.hypot(P[..., 0], P[..., 1])
        rx, ry = P[..., 0] / np.maximum(rho, 1e-6), P[..., 1] / np.maximum(rho, 1e-6)
        n = np.zeros(d.shape)
        n[..., 2] = 1.0
        r0, z0, r1, z1, _ = segs[0]
        kw = (r1 - r0) / (z1 - z0)
        wall = part == 0
        nw = np.stack([rx, ry, np.full(rx.shape, -kw)], -1)
        n = np.where(wall[..., None], nw / np.linalg.norm(nw, axis=-1, keepdims=True), n)
        nseg = len(segs) - 1
        for j in range(nseg):
            r0, z0, r1, z1, _ = segs[j + 1]
            sel = part == j + 1
            if not sel.any():
                continue
            if self.look.edge == "chamfer":
                th = np.full(rx.shape, np.pi / 4)
            else:
                s = np.clip((P[..., 2] - z0) / (z1 - z0), 0, 1)
                th = (j + s) / nseg * np.pi / 2
            ne = np.stack([np.cos(th) * rx, np.cos(th) * ry, np.sin(th)], -1)
            n = np.where(sel[..., None], ne, n)
        alb = np.broadcast_to(albedo, d.shape).astype(np.float32)
        if grain > 0:
            # varnished wood: straight grain across the top, running up the wall
            top = part == len(segs)
            gtop = _vnoise(self.grids[1], (P[..., 0] + cx) / 25.0, (P[..., 1] + cy) / 0.9, True)
            ang = np.arctan2(P[..., 1], P[..., 0])
            gwall = _vnoise(self.grids[2], ang * R / 0.9 + cx, P[..., 2] / 25.0, True)
            gr = np.where(top, gtop, gwall)
            alb = alb * (1 - grain * (gr - 0.5) * 2)[..., None]
        f.write(box, best.astype(np.float32), n.astype(np.float32), alb, ks, sh, obj)
        self.contact_shade(cx, cy, R, box)

    def look_top_radius(self, R: float, rt: float) -> float:
        return R - self.look.taper * max(R - rt, 0.0)

    def contact_shade(self, cx: float, cy: float, R: float, box: tuple[int, int, int, int]) -> None:
        """Darken the board right round a cup's foot (light cannot reach under its edge)."""
        y0, y1, x0, x1 = box
        pad = 12
        y0, y1 = max(y0 - pad, 0), min(y1 + pad, self.f.H)
        x0, x1 = max(x0 - pad, 0), min(x1 + pad, self.f.W)
        dist = np.hypot(self.X[y0:y1, x0:x1] - cx, self.Y[y0:y1, x0:x1] - cy) - R
        ao = 1 - 0.45 * np.exp(-np.maximum(dist, 0) / (0.12 * R + 0.5))
        self.ao[y0:y1, x0:x1] *= ao.astype(np.float32)

    def clear_cup(self, cx: float, cy: float, R: float, rp: float, h: float, plug: np.ndarray,
                  ks: float, sh: float, grain: float, wall_bgr, obj: int) -> None:
        """A clear pipe with a wood plug: the plug and the pipe's end are opaque, the wall is
        composited later over whatever is behind it."""
        f = self.f
        ring = np.linspace(0, 2 * np.pi, 16, endpoint=False)
        bounds = np.concatenate([np.column_stack([cx + R * np.cos(ring), cy + R * np.sin(ring), np.full(16, z)])
                                 for z in (0.0, h)])
        box = f.bbox(self.proj(bounds))
        zt = h - self.look.plug_recess_mm
        zb = zt - _PLUG_MM
        f.occluders.append(_Occluder("cone", obj, ((cx, cy), rp, rp, zb, zt), 1.0, bounds))
        f.occluders.append(_Occluder("cone", obj, ((cx, cy), R, R, 0.0, h), 0.25, bounds))
        if box is None:
            return
        y0, y1, x0, x1 = box
        d = f.D[y0:y1, x0:x1].astype(np.float64)
        o = f.C - np.array([cx, cy, 0.0])
        t_side = _cone_hit(o, d, rp, zb, rp, zt)
        t_top = _disc_hit(o, d, zt, 0.0, rp)
        t_rim = _disc_hit(o, d, h, rp, R)
        t_inner = _cone_hit(o, d, rp, zt, rp, h)  # the pipe's inside above a recessed plug
        best = np.minimum(np.minimum(t_side, t_top), np.minimum(t_rim, t_inner))
        P = o + np.where(np.isfinite(best), best, 0.0)[..., None] * d
        rho = np.maximum(np.hypot(P[..., 0], P[..., 1]), 1e-6)
        radial = np.stack([P[..., 0] / rho, P[..., 1] / rho, np.zeros_like(rho)], -1)
        up = np.zeros_like(radial)
        up[..., 2] = 1
        n = np.where((best == t_side)[..., None], radial, up)
        n = np.where((best == t_inner)[..., None], -radial, n)
        gr = _vnoise(self.grids[1], (P[..., 0] + cx) / 20.0, (P[..., 1] + cy) / 0.8, True)
        alb = plug[None, None, :] * (1 - grain * (gr - 0.5) * 2)[..., None]
        pale = to_linear(wall_bgr) * 0.55
        is_plastic = (best == t_rim) | (best == t_inner)
        alb = np.where(is_plastic[..., None], pale[None, None, :], alb)
        f.write(box, best.astype(np.float32), n.astype(np.float32), alb.astype(np.float32),
                np.where(is_plastic, 0.3, ks), np.where(is_plastic, 200.0, sh), obj)
        # the wall: both crossings of the outer cylinder, composited after shading
        f.pipes.append((box, (cx, cy), R, h, o, wall_bgr))
        self.contact_shade(cx, cy, R, box)

    # -- hands -----------------------------------------------------------------------------
    def hand(self, hand: Hand, index: int) -> None:
        f, look = self.f, self.look
        top = f.C[2]
        P = np.array([hand.target[0], hand.target[1], min(hand.height, 0.4 * top)])
        E = np.array([hand.entry[0], hand.entry[1], min(hand.height + 160.0, 0.7 * top)])
        d = P[:2] - E[:2]
        d /= np.linalg.norm(d)
        d3 = np.array([d[0], d[1], 0.0])
        perp = np.array([-d[1], d[0], 0.0])
        side = 1.0 if (index + int(abs(hand.entry[0]) * 3)) % 2 else -1.0
        wrist = P - d3 * 55.0 + np.array([0, 0, 8.0])
        elbow = wrist + (E - wrist) * 0.45
        skin = to_linear(hand.skin_bgr)
        sleeve = to_linear(hand.sleeve_bgr)
        long_sleeve = (index + int(abs(hand.target[1]))) % 3 == 0
        obj = self.new_obj()
        f.hand_ids.add(obj)
        parts = [(E, elbow, 44.0, "sleeve"), (elbow, wrist, 30.0, "sleeve" if long_sleeve else "skin")]
        # the palm: overlapping rods fanning out from the wrist to the knuckles
        for off in (-22.0, -11.0, 0.0, 11.0, 22.0):
            parts.append((wrist + d3 * 12 + perp * off * 0.7, P + d3 * 24 + perp * off + np.array([0, 0, -4.0]),
                          13.0, "skin"))
        for k, off in enumerate((-24.0, -8.0, 8.0, 24.0)):
            ang = (k - 1.5) * 0.12 * (1 + hand.spread)
            fd = np.array([np.cos(ang) * d[0] - np.sin(ang) * d[1], np.sin(ang) * d[0] + np.cos(ang) * d[1], 0.0])
            base = P + d3 * 35 + perp * off + np.array([0, 0, -5.0])
            tip = base + fd * (58 - abs(off) * 0.6) + np.array([0, 0, -22.0])
            parts.append((base, tip, 8.5, "skin"))
        tb = P + perp * 36 * side + np.array([0, 0, -5.0])
        parts.append((tb, tb + perp * 30 * side + d3 * 28 + np.array([0, 0, -15.0]), 10.0, "skin"))
        for a, b, r, kind in parts:
            lo, hi = np.minimum(a, b) - r, np.maximum(a, b) + r
            corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
            f.occluders.append(_Occluder("capsule", obj, (a, b, r), 1.0, corners))
            box = f.bbox(self.proj(corners))
            if box is None:
                continue
            y0, y1, x0, x1 = box
            t, n = capsule_hit(f.D, y0, y1, x0, x1, f.C, np.asarray(a, np.float64), np.asarray(b, np.float64),
                               float(r))
            hit = np.isfinite(t)
            if not hit.any():
                continue
            # the textures below are worked out only over the part's own pixels
            rows, cols = np.nonzero(hit.any(axis=1))[0], np.nonzero(hit.any(axis=0))[0]
            ry0, ry1, rx0, rx1 = int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1
            t, n = t[ry0:ry1, rx0:rx1], n[ry0:ry1, rx0:rx1]
            box = (y0 + ry0, y0 + ry1, x0 + rx0, x0 + rx1)
            dd = f.D[box[0]:box[1], box[2]:box[3]]
            if kind == "skin":
                # skin is not one flat colour: blotches and creases, a few per cent
                Pw = f.C + np.where(np.isfinite(t), t, 0.0)[..., None] * dd
                blot = _vnoise(self.grids[5], Pw[..., 0] / 9.0, Pw[..., 1] / 9.0 + Pw[..., 2] / 13.0)
                alb = skin[None, None, :] * (0.9 + 0.2 * blot)[..., None]
                f.write(box, t.astype(np.float32), n, alb.astype(np.float32), 0.05, 14.0, obj, wrap=0.35)
            else:
                Pw = f.C + np.where(np.isfinite(t), t, 0.0)[..., None] * dd
                e = (b - a) / np.linalg.norm(b - a)
                u = (Pw - a) @ e
                side_v = np.cross(e, [0.0, 0.0, 1.0])
                side_v /= max(np.linalg.norm(side_v), 1e-6)
                up_v = np.cross(side_v, e)
                rel = Pw - a
                phi = np.arctan2(rel @ up_v, rel @ side_v) * r
                per = look.sleeve_period_mm
                if look.sleeve_pattern == "stripes":
                    k_alt = _smoothstep(-0.15, 0.15, np.sin(2 * np.pi * u / per))
                elif look.sleeve_pattern == "check":
                    k_alt = 0.5 * (_smoothstep(-0.2, 0.2, np.sin(2 * np.pi * u / per))
                                   + _smoothstep(-0.2, 0.2, np.sin(2 * np.pi * phi / per)))
                else:
                    k_alt = np.zeros(u.shape)
                fold = 1 + 0.15 * (_vnoise(self.grids[4], u / 15.0, phi / 25.0) - 0.5)
                alt = to_linear(look.sleeve_alt_bgr)
                alb = (sleeve[None, None, :] * (1 - k_alt[..., None]) + alt[None, None, :] * k_alt[..., None])
                f.write(box, t.astype(np.float32), n, (alb * fold[..., None]).astype(np.float32), 0.01, 6.0, obj,
                        wrap=0.2)

    # -- light ----------------------------------------------------------------------------------
    def visibility(self, P: np.ndarray, light: np.ndarray, point: bool, pen_scale: float,
                   region: tuple[int, int, int, int] | None = None) -> np.ndarray:
        """Per pixel, how much of a lamp (at ``light``, ``point``) or the sun (toward
        ``light``) reaches the surface: shadows of every cup and hand part, soft over a small
        penumbra; only inside ``region`` (rows y0:y1, columns x0:x1) when given."""
        f = self.f
        vis = np.ones((f.H, f.W), np.float32)
        light = np.asarray(light, np.float64)
        for occ in f.occluders:
            pts = occ.bounds
            if point:
                den = np.maximum(light[2] - pts[:, 2], 20.0)
                on_plane = light + (pts - light) * (light[2] / den)[:, None]
            else:
                on_plane = pts - np.outer(pts[:, 2] / max(light[2], 0.05), light)
            on_plane[:, 2] = 0.0
            box = f.bbox(self.proj(np.vstack([pts, on_plane])), pad=4)
            if box is None:
                continue
            y0, y1, x0, x1 = box
            if region is not None:
                y0, y1 = max(y0, region[0]), min(y1, region[1])
                x0, x1 = max(x0, region[2]), min(x1, region[3])
                if y1 <= y0 or x1 <= x0:
                    continue
            if occ.kind == "cone":
                (cx, cy), R0, R1, zb, zt = occ.params
                cone_shadow(vis, P, f.obj, occ.obj, y0, y1, x0, x1, float(cx), float(cy), float(R0), float(R1),
                            float(zb), float(zt), light, point, float(occ.opacity), pen_scale)
            else:
                a, b, r = occ.params
                capsule_shadow(vis, P, f.obj, occ.obj, y0, y1, x0, x1, np.asarray(a, np.float64),
                               np.asarray(b, np.float64), float(r), light, point, float(occ.opacity), pen_scale)
        return vis

    def shade(self) -> np.ndarray:
        f, look = self.f, self.look
        T = np.where(f.obj == -2, 0.0, f.T)
        P = np.ascontiguousarray(f.C[None, None, :].astype(np.float32) + T[..., None] * f.D)
        V = -f.D
        N = f.N
        out = np.zeros((f.H, f.W, 3), np.float32)
        centre = np.array([self.scene.board.width_mm / 2, self.scene.board.depth_mm / 2, 0.0])
        self.light_mix = np.zeros(3, np.float32)
        full = (0, f.H, 0, f.W)
        for lamp in look.lamps:
            Lp = np.asarray(lamp.position, np.float64)
            d0 = np.linalg.norm(Lp - centre)
            power = lamp.strength * d0 ** 3 / Lp[2]  # irradiance `strength` at the board's centre
            colour = _light_colour(lamp.kelvin)
            light_pass(out, P, N, f.D, f.A, f.KS, f.SH, f.WRAP, self.visibility(P, Lp, True, 1.0), Lp, True,
                       float(power), colour, *full)
            self.light_mix += colour * lamp.strength
        if look.sun is not None:
            s = np.asarray(look.sun.direction, np.float64)
            s /= np.linalg.norm(s)
            x0, y0, x1, y1 = look.sun.patch
            # where each point's ray toward the sun meets the board plane: in the window's patch?
            px = P[..., 0] - P[..., 2] * np.float32(s[0] / s[2])
            py = P[..., 1] - P[..., 2] * np.float32(s[1] / s[2])
            e = 0.6
            patch = _smoothstep(-e, e, np.minimum(np.minimum(px - x0, x1 - px), np.minimum(py - y0, y1 - py)))
            bx, bw = look.sun.bar
            if bw > 0:
                patch *= 1 - _smoothstep(-e, e, bw / 2 - np.abs(px - bx))
            colour = _light_colour(look.sun.kelvin)
            rows, cols = np.nonzero(patch.any(axis=1))[0], np.nonzero(patch.any(axis=0))[0]
            if len(rows):
                region = (int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1)
                vis = self.visibility(P, s, False, 0.1, region) * patch.astype(np.float32)
                light_pass(out, P, N, f.D, f.A, f.KS, f.SH, f.WRAP, vis, s, False, float(look.sun.strength),
                           colour, *region)
            self.light_mix += colour * look.sun.strength * 0.2
        # ambient: the room's light from above, less from below, less in the cups' corners
        amb = _light_colour(look.ambient_kelvin) * look.ambient
        sky = (0.55 + 0.45 * N[..., 2]) * np.where(f.obj == -1, self.ao, 1.0)
        out += f.A * (sky[..., None] * amb[None, None, :])
        # the room reflected by smooth surfaces (a dielectric's 4 %, more at grazing angles):
        # the ceiling above, the darker walls and table below
        ndv = np.clip(_dot(N, V), 0.0, 1.0)
        refl_z = 2 * ndv * N[..., 2] - V[..., 2]
        env = (0.3 + 0.7 * np.clip(refl_z, 0, 1)) * look.ambient
        smooth = np.clip((f.SH - 10.0) / 50.0, 0.0, 1.0) * (f.KS > 0.015)
        fres = (0.04 + 0.96 * (1 - ndv) ** 5) * smooth
        out += (fres * env)[..., None] * _light_colour(look.ambient_kelvin)[None, None, :]
        self.light_mix += _light_colour(look.ambient_kelvin) * look.ambient
        # beyond the table: a dim room
        out[f.obj == -2] = 0.05 * amb
        return out

    def composite_pipes(self, img: np.ndarray) -> None:
        """Clear walls over the shaded picture: what is behind shows through, a little shifted
        and darker, the wall's edges (seen edge-on) darker still, with the lamps' glints and
        the room's reflection."""
        f, look = self.f, self.look
        Rm = self.R.astype(np.float32)
        order = sorted(f.pipes, key=lambda p: -float(np.linalg.norm(p[4])))
        env = look.ambient * _light_colour(look.ambient_kelvin)
        for box, (cx, cy), R, h, o, wall_bgr in order:
            y0, y1, x0, x1 = box
            d = f.D[y0:y1, x0:x1].astype(np.float64)
            tint = to_linear(wall_bgr) / max(float(_luma(to_linear(wall_bgr))), 1e-3)
            tint = 0.92 + 0.08 * tint
            roots = []
            A = d[..., 0] ** 2 + d[..., 1] ** 2
            B = 2 * (o[0] * d[..., 0] + o[1] * d[..., 1])
            Cc = o[0] ** 2 + o[1] ** 2 - R * R
            disc = B * B - 4 * A * Cc
            ok = (disc > 0) & (A > 1e-12)
            sq = np.sqrt(np.where(ok, disc, 0.0))
            for sgn in (-1.0, 1.0):
                t = (-B + sgn * sq) / np.where(ok, 2 * A, 1.0)
                z = o[2] + t * d[..., 2]
                roots.append(np.where(ok & (t > 0) & (z >= 0) & (z <= h), t, np.inf))
            behind_t = f.T[y0:y1, x0:x1]
            region = img[y0:y1, x0:x1]
            for which, t in ((1, roots[1]), (0, roots[0])):  # back wall first, then the front
                sel = t < behind_t
                if not sel.any():
                    continue
                P = o + np.where(np.isfinite(t), t, 0.0)[..., None] * d
                rho = np.maximum(np.hypot(P[..., 0], P[..., 1]), 1e-6)
                n = np.stack([P[..., 0] / rho, P[..., 1] / rho, np.zeros_like(rho)], -1)
                if which == 1:
                    n = -n
                cosv = np.clip(np.abs(_dot(n, d)), 0.02, 1.0)
                # light passing the wall obliquely crosses more plastic
                # (and the wall seen edge-on along the silhouette is a dark line)
                trans = np.exp(-0.08 * _PIPE_WALL_MM / cosv) * (1 - 0.75 * _smoothstep(0.3, 0.06, cosv))
                shifted = region
                if which == 0:
                    ncam = n @ Rm.T
                    shift = 3.0 * (1 - cosv)
                    gy, gx = np.mgrid[0:y1 - y0, 0:x1 - x0].astype(np.float32)
                    mx = (gx - shift * ncam[..., 0]).astype(np.float32)
                    my = (gy - shift * ncam[..., 1]).astype(np.float32)
                    shifted = cv2.remap(np.ascontiguousarray(region), mx, my, cv2.INTER_LINEAR,
                                        borderMode=cv2.BORDER_REPLICATE)
                fres = 0.04 + 0.96 * (1 - cosv) ** 5
                # the reflected ray: up to the room's ceiling, or down to the darker table
                refl_z = d[..., 2] - 2 * _dot(d, n) * n[..., 2]
                room = 0.15 + 0.85 * np.clip(refl_z, 0, 1)
                glint = np.zeros(sel.shape + (3,), np.float32)
                for lamp in look.lamps:
                    Lp = np.asarray(lamp.position)
                    l = Lp - (P + np.array([cx, cy, 0.0]))
                    l = _unit(l)
                    hv = l - d
                    hv = _unit(hv)
                    ndh = np.clip(_dot(n, hv), 0, 1)
                    glint += (lamp.strength * 6.0 * ndh ** 300)[..., None] * _light_colour(lamp.kelvin)[None, None, :]
                # a little haze (scratches, dust) lit by the room
                new = (shifted * (trans[..., None] * tint[None, None, :])
                       + (fres * room + 0.025)[..., None] * env[None, None, :] + glint)
                region[sel] = new[sel]


def look_seed(look: Look) -> int:
    """A seed for the look's fixed textures (so one game keeps the same table and board)."""
    vals = [look.board_ring_mm, look.board_strip_mm, look.table_scale_mm, look.fillet_mm,
            *look.board_bgr, *look.table_bgr]
    return int(sum(v * 1000.0 * (k + 1) for k, v in enumerate(vals))) & 0x7FFFFFFF


# -- the camera ------------------------------------------------------------------------------------

_TONE_STEPS = 4096


@lru_cache(maxsize=32)
def _tone_table(tone: str, contrast: float) -> np.ndarray:
    """The camera's tone curve (linear 0-1 in steps of 1/4095 to display 0-1): an optional
    film-like shoulder, the sRGB curve, then a contrast about mid grey."""
    x = np.linspace(0.0, 1.0, _TONE_STEPS)
    if tone == "filmic":
        k = 2.2
        x = (1 - np.exp(-k * x)) / (1 - np.exp(-k))
    y = np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(np.maximum(x, 1e-8), 1 / 2.4) - 0.055)
    return np.clip(0.5 + (y - 0.5) * contrast, 0.0, 1.0).astype(np.float32)


@lru_cache(maxsize=8)
def _lens_maps(intr: CameraIntrinsics, aberration: float, vignette: float):
    """The lens's light fall-off (1 / (1 + r^2)^2 of the field angle, in part) and the maps
    that scale the red and blue images about the centre (lateral chromatic aberration)."""
    W, H = intr.width, intr.height
    u, v = np.meshgrid((np.arange(W, dtype=np.float32) - intr.cx) / intr.fx,
                       (np.arange(H, dtype=np.float32) - intr.cy) / intr.fy)
    r2 = u * u + v * v
    fall = (1 - vignette * (1 - 1 / (1 + r2) ** 2)).astype(np.float32)
    maps = []
    for s in (1 - aberration, 1 + aberration):  # blue, red
        mx = (intr.cx + (np.arange(W, dtype=np.float32) - intr.cx) / s)[None, :].repeat(H, 0)
        my = (intr.cy + (np.arange(H, dtype=np.float32) - intr.cy) / s)[:, None].repeat(W, 1)
        maps.append((mx, my))
    return fall, maps


def sensor_image(lin: np.ndarray, look: Look, intr: CameraIntrinsics, light_mix: np.ndarray, seed: int) -> np.ndarray:
    """Lens, sensor and processing: vignetting, lateral chromatic aberration, blur, metering
    with a drifting auto-exposure, shot and read noise on a Bayer mosaic (or per channel),
    demosaic, white balance, tone curve, sharpening and JPEG."""
    rng = np.random.default_rng([seed, 31])
    H, W = lin.shape[:2]
    fall, maps = _lens_maps(intr, round(look.aberration, 6), round(look.vignette, 4))
    lin *= fall[..., None]
    if look.aberration > 0:
        for ch, (mx, my) in zip((0, 2), maps):
            lin[..., ch] = cv2.remap(np.ascontiguousarray(lin[..., ch]), mx, my, cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_REPLICATE)
    if look.blur > 0.05:
        lin = cv2.GaussianBlur(lin, (0, 0), look.blur)
    # white balance the camera will apply: it removes part of the light's colour
    wb = (light_mix / _luma(light_mix)) ** -look.awb
    wb = (wb / wb[1]).astype(np.float32)
    # metering: centre-weighted mean of the balanced picture, aimed at mid grey
    small = cv2.resize(lin, (64, 36), interpolation=cv2.INTER_AREA) * wb
    yy, xx = np.mgrid[0:36, 0:64]
    wgt = np.exp(-(((xx - 31.5) / 32) ** 2 + ((yy - 17.5) / 18) ** 2) * 1.5)
    mean = float((_luma(small) * wgt).sum() / wgt.sum())
    ev = look.exposure_bias + rng.normal(0.0, look.exposure_drift)
    gain = 0.18 * 2.0 ** ev / max(mean, 1e-4) if look.auto_exposure else 0.5 * 2.0 ** ev
    sensor = lin * gain
    fw = look.full_well
    if look.bayer:
        raw = np.empty((H, W), np.float32)
        raw[0::2, 0::2] = sensor[0::2, 0::2, 2]
        raw[0::2, 1::2] = sensor[0::2, 1::2, 1]
        raw[1::2, 0::2] = sensor[1::2, 0::2, 1]
        raw[1::2, 1::2] = sensor[1::2, 1::2, 0]
        raw = np.clip(raw, 0, 1)
        e = raw * fw
        raw = (e + rng.standard_normal((H, W), dtype=np.float32) * np.sqrt(e + look.read_noise ** 2)) / fw
        raw16 = np.clip(raw * 65535.0, 0, 65535).astype(np.uint16)
        img = cv2.cvtColor(raw16, cv2.COLOR_BayerBG2BGR).astype(np.float32) / 65535.0
    else:
        img = np.clip(sensor, 0, 1)
        e = img * fw
        img = (e + rng.standard_normal(img.shape, dtype=np.float32) * np.sqrt(e + look.read_noise ** 2)) / fw
    if look.chroma_noise > 0:
        blot = rng.standard_normal((H // 8 + 1, W // 8 + 1, 3)).astype(np.float32)
        blot = cv2.resize(blot, (W, H), interpolation=cv2.INTER_CUBIC)
        blot -= blot.mean(axis=2, keepdims=True)
        img = img * (1 + look.chroma_noise * blot)
    img *= wb
    idx = np.clip(img * (_TONE_STEPS - 1) + 0.5, 0, _TONE_STEPS - 1).astype(np.int16)
    out = _tone_table(look.tone, round(look.contrast, 4))[idx]
    if look.sharpen > 0:
        out = out + look.sharpen * (out - cv2.GaussianBlur(out, (0, 0), 1.2))
    out8 = np.clip(out * 255.0 + 0.5, 0, 255).astype(np.uint8)
    if look.jpeg_quality:
        ok, buf = cv2.imencode(".jpg", out8, [cv2.IMWRITE_JPEG_QUALITY, int(look.jpeg_quality)])
        out8 = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out8


def render_shaded(scene: Scene, look: Look, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Render ``scene`` in ``look``: (BGR uint8 image as the camera delivers it, hand mask
    uint8 in ideal-pinhole pixels, like ``draw.render``).  Deterministic for ``seed``, which
    only moves the sensor noise and the auto-exposure's drift."""
    s = _Shader(scene, look, seed)
    s.plane()
    board, pieces = scene.board, scene.pieces
    for sq, stack in enumerate(scene.position):
        if not stack:
            continue
        sx, sy = board.square_centre(sq)
        offs = scene.offsets[sq]
        if pieces.clear:
            for k, (colour, size) in enumerate(stack):
                sz = pieces.sizes[size]
                fin = look.finishes[colour]
                cx, cy = sx + offs[k][0], sy + offs[k][1]
                tint = np.random.default_rng([look_seed(look), sq, k, size]).uniform(0.95, 1.05)
                plug = to_linear(fin.top_bgr) * np.float32(tint)
                if sz.solid:
                    s.opaque_cup(cx, cy, sz.outer_diameter_mm / 2, sz.top_diameter_mm / 2, sz.height_mm, plug,
                                 fin.specular, fin.shininess, max(fin.grain, 0.1), s.new_obj())
                else:
                    s.clear_cup(cx, cy, sz.outer_diameter_mm / 2, sz.top_diameter_mm / 2, sz.height_mm, plug,
                                fin.specular, fin.shininess, fin.grain, pieces.colours[colour].wall_bgr, s.new_obj())
        else:
            colour, size = stack[-1]
            sz = pieces.sizes[size]
            fin = look.finishes[colour]
            tint = np.random.default_rng([look_seed(look), sq, size]).uniform(0.96, 1.04)
            s.opaque_cup(sx + offs[-1][0], sy + offs[-1][1], sz.outer_diameter_mm / 2, sz.top_diameter_mm / 2,
                         sz.height_mm, to_linear(fin.top_bgr) * np.float32(tint), fin.specular, fin.shininess,
                         fin.grain, s.new_obj())
    for i, hand in enumerate(scene.hands):
        s.hand(hand, i)
    lin = s.shade()
    if s.f.pipes:
        s.composite_pipes(lin)
    image = sensor_image(lin, look, scene.intrinsics, s.light_mix, seed)
    hand_img = np.isin(s.f.obj, list(s.f.hand_ids)).astype(np.uint8) * 255 if s.f.hand_ids else None
    if hand_img is None:
        mask = np.zeros((s.f.H, s.f.W), np.uint8)
    else:
        mx, my = _ideal_to_image(scene.intrinsics)
        mask = cv2.remap(hand_img, mx, my, cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return image, mask
