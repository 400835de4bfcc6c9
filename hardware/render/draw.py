"""Drawing a scene: the board (a warped texture), shadows, cups as 3-D cylinders in
painter's order, hands, then light, lens distortion, blur, noise and JPEG.

Everything is first drawn through an ideal pinhole; the lens distortion is applied to the
finished picture by one remap, so straight edges bend exactly as the model says.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from ..camera_model import CameraIntrinsics, plane_homography, project
from ..pieces import PieceSet
from .scene import Hand, Scene
from .textures import board_texture, smooth_noise, texture_to_world

N_SEG = 40
SHIFT = 4
ONE = 1 << SHIFT
_ANG = np.linspace(0, 2 * np.pi, N_SEG, endpoint=False)
_COS, _SIN = np.cos(_ANG), np.sin(_ANG)


def _fix(uv: np.ndarray) -> np.ndarray:
    return np.round(uv * ONE).astype(np.int32)


def fill_polygon(img: np.ndarray, uv: np.ndarray, colour, aa: bool = False) -> None:
    """Fill a convex polygon (image coordinates, sub-pixel) into ``img``."""
    cv2.fillConvexPoly(img, _fix(uv), colour, cv2.LINE_AA if aa else cv2.LINE_8, SHIFT)


def blend_polygon(img: np.ndarray, uv: np.ndarray, colour, alpha: float) -> None:
    """Blend a filled convex polygon into ``img`` with opacity ``alpha``."""
    x0, y0 = np.floor(uv.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(uv.max(axis=0)).astype(int) + 2
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, img.shape[1]), min(y1, img.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    roi = img[y0:y1, x0:x1]
    mask = np.zeros(roi.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, _fix(uv - [x0, y0]), 255, cv2.LINE_AA, SHIFT)
    a = (mask.astype(np.float32) * (alpha / 255.0))[..., None]
    roi *= 1 - a
    roi += a * np.asarray(colour, np.float32)


def _circle(cx: float, cy: float, r: float, z: float) -> np.ndarray:
    return np.column_stack([cx + r * _COS, cy + r * _SIN, np.full(N_SEG, z)])


class Painter:
    """Per-frame drawing state: the camera, the light and a random generator for details."""

    def __init__(self, scene: Scene, rng: np.random.Generator):
        self.scene = scene
        self.intr = scene.intrinsics
        self.pose = scene.pose
        self.cam = scene.pose.centre
        L = np.asarray(scene.lighting.direction, np.float64)
        self.L = L / np.linalg.norm(L)
        self.amb = scene.lighting.ambient
        self.flat = self.amb + (1 - self.amb) * self.L[2]
        self.rng = rng

    def uv(self, pts: np.ndarray) -> np.ndarray:
        return project(pts, self.intr, self.pose, distort=False)

    def shade(self, normals: np.ndarray) -> np.ndarray:
        """Brightness of surfaces with these normals relative to the (flat) board."""
        return (self.amb + (1 - self.amb) * np.maximum(0.0, normals @ self.L)) / self.flat

    def shadow_polygon(self, cx: float, cy: float, r: float, h: float) -> np.ndarray:
        d = -h * self.L[:2] / max(self.L[2], 0.2)
        base = _circle(cx, cy, r, 0.0)
        top = base.copy()
        top[:, :2] += d
        uv = self.uv(np.vstack([base, top]))
        return cv2.convexHull(uv.astype(np.float32)).reshape(-1, 2)

    # -- cups -----------------------------------------------------------------------------
    def walls(self, cx: float, cy: float, r: float, h: float):
        """Projected bottom and top rims and per-segment visibility, normals."""
        bot = _circle(cx, cy, r, 0.0)
        top = _circle(cx, cy, r, h)
        uvb, uvt = self.uv(bot), self.uv(top)
        mid = _ANG + np.pi / N_SEG
        normals = np.column_stack([np.cos(mid), np.sin(mid), np.zeros(N_SEG)])
        centre_pts = np.column_stack([cx + r * np.cos(mid), cy + r * np.sin(mid), np.full(N_SEG, h / 2)])
        view = self.cam[None, :] - centre_pts
        view /= np.linalg.norm(view, axis=1, keepdims=True)
        visible = np.einsum("ij,ij->i", normals, view) > 0
        return uvb, uvt, visible, normals, view

    def opaque_cup(self, img: np.ndarray, cx: float, cy: float, pieces: PieceSet, size: int,
                   colour: int, solid_wood: bool = False) -> None:
        s = pieces.sizes[size]
        col = pieces.colours[colour]
        r, h = s.outer_diameter_mm / 2, s.height_mm
        wall = np.asarray(col.top_bgr if solid_wood else col.wall_bgr, np.float32)
        top = np.asarray(col.top_bgr, np.float32)
        uvb, uvt, vis, normals, _ = self.walls(cx, cy, r, h)
        sh = self.shade(normals)
        for i in np.nonzero(vis)[0]:
            j = (i + 1) % N_SEG
            quad = np.array([uvb[i], uvb[j], uvt[j], uvt[i]])
            fill_polygon(img, quad, tuple(float(v) for v in np.clip(wall * sh[i], 0, 255)))
        tint = self.rng.uniform(0.96, 1.04)
        rt = s.top_diameter_mm / 2
        if rt < r - 0.3:
            # the rounded shoulder between wall and flat top
            bevel = np.clip(top * 0.5 * (1 + float(self.shade(np.array([[0.0, 0.0, 1.0]]))[0]) * 0.75) * tint, 0, 255)
            fill_polygon(img, self.uv(_circle(cx, cy, r, h - 0.8)), tuple(float(v) for v in bevel), aa=True)
        fill_polygon(img, self.uv(_circle(cx, cy, rt, h)), tuple(float(v) for v in np.clip(top * tint, 0, 255)), aa=True)

    def clear_cup(self, img: np.ndarray, cx: float, cy: float, pieces: PieceSet, size: int, colour: int) -> None:
        s = pieces.sizes[size]
        col = pieces.colours[colour]
        r, h = s.outer_diameter_mm / 2, s.height_mm
        uvb, uvt, vis, normals, view = self.walls(cx, cy, r, h)
        hull = cv2.convexHull(np.vstack([uvb, uvt]).astype(np.float32)).reshape(-1, 2)
        blend_polygon(img, hull, col.wall_bgr, 0.13)
        half = self.L[None, :] + view
        half /= np.linalg.norm(half, axis=1, keepdims=True)
        spec = np.maximum(0.0, np.einsum("ij,ij->i", normals, half)) ** 60
        for i in np.nonzero(vis & (spec > 0.08))[0]:
            j = (i + 1) % N_SEG
            blend_polygon(img, np.array([uvb[i], uvb[j], uvt[j], uvt[i]]), (250, 250, 250), float(min(0.85, spec[i])))
        # the pipe wall seen edge-on along the silhouette looks darker
        flips = np.nonzero(vis != np.roll(vis, 1))[0]
        edge = tuple(float(v) * 0.55 for v in col.wall_bgr)
        for i in flips:
            cv2.line(img, tuple(_fix(uvb[i])), tuple(_fix(uvt[i])), edge, 1, cv2.LINE_AA, SHIFT)
        rim = self.uv(_circle(cx, cy, r, h))
        blend_polygon(img, rim, (235, 238, 236), 0.55)
        rp = s.top_diameter_mm / 2
        tint = self.rng.uniform(0.95, 1.05)
        plug = np.clip(np.asarray(col.top_bgr, np.float32) * tint, 0, 255)
        plug_uv = self.uv(_circle(cx, cy, rp, h))
        fill_polygon(img, plug_uv, tuple(float(v) for v in plug), aa=True)
        cv2.polylines(img, [_fix(plug_uv)], True, tuple(float(v) * 0.6 for v in plug), 1, cv2.LINE_AA, SHIFT)
        # glare: a bright arc of the rim facing the light, sometimes a spot on the plug
        az = np.arctan2(self.L[1], self.L[0])
        d = np.angle(np.exp(1j * (_ANG - az)))
        arc = np.abs(d) < np.radians(35)
        if arc.sum() >= 2:
            pts = self.uv(_circle(cx, cy, r - 0.8, h))[np.roll(arc, 0)]
            order = np.argsort(d[arc])
            cv2.polylines(img, [_fix(pts[order])], False, (250, 250, 250), 2, cv2.LINE_AA, SHIFT)
        if self.rng.random() < 0.3:
            a = self.rng.uniform(0, 2 * np.pi)
            rr = self.rng.uniform(0, rp * 0.6)
            spot = self.uv(_circle(cx + rr * np.cos(a), cy + rr * np.sin(a), self.rng.uniform(1.0, 2.5), h))
            blend_polygon(img, spot, (252, 252, 252), float(self.rng.uniform(0.4, 0.9)))

    # -- hands ----------------------------------------------------------------------------
    def hand_parts(self, hand: Hand) -> list[tuple[np.ndarray, str]]:
        """Hand and arm as world-space polygons tagged 'skin' or 'sleeve'."""
        # a hand never rises to the camera: keep the palm and the shoulder well below it
        top = self.cam[2]
        P = np.array([hand.target[0], hand.target[1], min(hand.height, 0.4 * top)])
        E = np.array([hand.entry[0], hand.entry[1], min(hand.height + 160.0, 0.7 * top)])
        d = P[:2] - E[:2]
        d /= np.linalg.norm(d)
        perp = np.array([-d[1], d[0]])
        parts: list[tuple[np.ndarray, str]] = []

        def slab(a: np.ndarray, b: np.ndarray, wa: float, wb: float) -> np.ndarray:
            return np.array([[*(a[:2] + perp * wa / 2), a[2]], [*(b[:2] + perp * wb / 2), b[2]],
                             [*(b[:2] - perp * wb / 2), b[2]], [*(a[:2] - perp * wa / 2), a[2]]])

        wrist = P - np.array([*d * 55.0, -8.0])
        elbow = wrist + (E - wrist) * 0.45
        parts.append((slab(E, elbow, 95, 80), "sleeve"))
        parts.append((slab(elbow, wrist, 75, 58), "skin"))
        palm = np.array([[*(P[:2] + 45 * np.cos(a) * d + 42 * np.sin(a) * perp), P[2]]
                         for a in np.linspace(0, 2 * np.pi, 20, endpoint=False)])
        parts.append((palm, "skin"))
        for k, off in enumerate((-24.0, -8.0, 8.0, 24.0)):
            ang = (k - 1.5) * 0.12 * (1 + hand.spread)
            fd = np.array([np.cos(ang) * d[0] - np.sin(ang) * d[1], np.sin(ang) * d[0] + np.cos(ang) * d[1]])
            base = np.array([*(P[:2] + d * 35 + perp * off), P[2] - 5])
            tip = np.array([*(base[:2] + fd * (62 - abs(off) * 0.6)), P[2] - 25])
            fp = np.array([-fd[1], fd[0]])
            parts.append((np.array([[*(base[:2] + fp * 8), base[2]], [*(tip[:2] + fp * 7), tip[2]],
                                    [*(tip[:2] - fp * 7), tip[2]], [*(base[:2] - fp * 8), base[2]]]), "skin"))
        thumb_base = np.array([*(P[:2] + perp * 38), P[2] - 5])
        thumb_tip = np.array([*(thumb_base[:2] + perp * 35 + d * 30), P[2] - 20])
        parts.append((slab(thumb_base, thumb_tip, 20, 16), "skin"))
        return parts


def _table(h: int, w: int, bgr, rng: np.random.Generator) -> np.ndarray:
    noise = smooth_noise(h // 8 + 1, w // 8 + 1, 12, rng)
    noise = cv2.resize(noise, (w, h), interpolation=cv2.INTER_LINEAR)
    return (1.0 + 0.08 * (noise - 0.5))[..., None] * np.asarray(bgr, np.float32)


@lru_cache(maxsize=8)
def distortion_maps(intr: CameraIntrinsics) -> tuple[np.ndarray, np.ndarray] | None:
    """Maps that turn an ideal-pinhole picture into one seen through the lens: for each
    output (distorted) pixel, where it comes from in the ideal picture."""
    if not any(intr.dist):
        return None
    step = 8
    gx = np.arange(0, intr.width + step, step, dtype=np.float64)
    gy = np.arange(0, intr.height + step, step, dtype=np.float64)
    X, Y = np.meshgrid(gx, gy)
    pts = np.stack([X.ravel(), Y.ravel()], axis=1).reshape(-1, 1, 2)
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 20, 1e-6)
    ideal = cv2.undistortPoints(pts, intr.K, intr.D, None, intr.K, criteria=crit).reshape(X.shape + (2,))
    big = (ideal.shape[1] - 1) * step, (ideal.shape[0] - 1) * step
    mx = cv2.resize(ideal[..., 0].astype(np.float32), big, interpolation=cv2.INTER_LINEAR)
    my = cv2.resize(ideal[..., 1].astype(np.float32), big, interpolation=cv2.INTER_LINEAR)
    return mx[:intr.height, :intr.width].copy(), my[:intr.height, :intr.width].copy()


def render(scene: Scene, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``scene``: returns (BGR uint8 image as the camera delivers it, hand mask uint8 in
    ideal-pinhole pixels)."""
    rng = np.random.default_rng(seed)
    intr = scene.intrinsics
    W, H = intr.width, intr.height
    p = Painter(scene, rng)
    board, pieces = scene.board, scene.pieces

    img = _table(H, W, scene.table_bgr, rng)
    tex, alpha = board_texture(board, scene.texture_variant % 4)
    Hm = plane_homography(intr, scene.pose, 0.0) @ texture_to_world(board)
    warped = cv2.warpPerspective(tex, Hm, (W, H), flags=cv2.INTER_LINEAR)
    walpha = cv2.warpPerspective(alpha, Hm, (W, H), flags=cv2.INTER_LINEAR)[..., None]
    img += (warped - img) * walpha

    # shadows of cups and hands on the board
    shadow = np.zeros((H, W), np.float32)
    cups = []
    for sq, stack in enumerate(scene.position):
        if not stack:
            continue
        sx, sy = board.square_centre(sq)
        offs = scene.offsets[sq]
        colour, size = stack[-1]
        dx, dy = offs[-1]
        s = pieces.sizes[size]
        fill_polygon(shadow, p.shadow_polygon(sx + dx, sy + dy, s.outer_diameter_mm / 2, s.height_mm),
              0.6 if pieces.clear and not s.solid else 1.0, aa=True)
        dist = np.linalg.norm(p.cam - np.array([sx + dx, sy + dy, 0.0]))
        cups.append((dist, sq))
    hand_shadow = np.zeros((H, W), np.float32)
    for hand in scene.hands:
        for poly, _ in p.hand_parts(hand):
            flat = poly.copy()
            flat[:, :2] -= flat[:, 2:3] * p.L[None, :2] / max(p.L[2], 0.2)
            flat[:, 2] = 0.0
            fill_polygon(hand_shadow, p.uv(flat), 1.0)
    if scene.hands:
        shadow = np.maximum(shadow, cv2.GaussianBlur(hand_shadow, (0, 0), 9) * 0.8)
    shadow = cv2.GaussianBlur(shadow, (0, 0), 2.5)
    img *= (1.0 - scene.lighting.shadow * shadow)[..., None]

    for _, sq in sorted(cups, reverse=True):
        stack = scene.position[sq]
        sx, sy = board.square_centre(sq)
        offs = scene.offsets[sq]
        if pieces.clear:
            for k, (colour, size) in enumerate(stack):
                cx, cy = sx + offs[k][0], sy + offs[k][1]
                if pieces.sizes[size].solid:
                    p.opaque_cup(img, cx, cy, pieces, size, colour, solid_wood=True)
                else:
                    p.clear_cup(img, cx, cy, pieces, size, colour)
        else:
            colour, size = stack[-1]
            p.opaque_cup(img, sx + offs[-1][0], sy + offs[-1][1], pieces, size, colour)

    hand_mask = np.zeros((H, W), np.uint8)
    for hand in scene.hands:
        skin = np.asarray(hand.skin_bgr, np.float32)
        for poly, kind in p.hand_parts(hand):
            uv = p.uv(poly)
            colour = skin * rng.uniform(0.88, 1.0) if kind == "skin" else np.asarray(hand.sleeve_bgr, np.float32)
            fill_polygon(img, uv, tuple(float(v) for v in colour), aa=True)
            fill_polygon(hand_mask, uv, 255)

    L = scene.lighting
    gy, gx = np.mgrid[0:45, 0:80].astype(np.float32)
    nx, ny = gx / 79 - 0.5, gy / 44 - 0.5
    field = (1 + L.gradient[0] * nx * 2 + L.gradient[1] * ny * 2) * (1 - L.vignette * (nx ** 2 + ny ** 2) * 2)
    field = cv2.resize(field, (W, H), interpolation=cv2.INTER_LINEAR)
    gains = np.asarray(L.gain_bgr, np.float32)
    img *= field[..., None]
    img *= gains[None, None, :]
    out = np.clip(img, 0, 255).astype(np.uint8)

    maps = distortion_maps(intr)
    if maps is not None:
        out = cv2.remap(out, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    im = scene.imaging
    if im.blur > 0.05:
        out = cv2.GaussianBlur(out, (0, 0), im.blur)
    if im.noise > 0:
        noise = np.empty(out.shape, np.int16)
        cv2.setRNGSeed(int(seed) & 0x7FFFFFFF)
        cv2.randn(noise, 0, im.noise)
        out = np.clip(out.astype(np.int16) + noise, 0, 255).astype(np.uint8)
    if im.jpeg_quality:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, im.jpeg_quality])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out, hand_mask
