"""Procedural textures: wood grain for boards and plugs, the table top."""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from ..markers import marker_centres, marker_image, outer_rect, tile_side
from ..pieces import BoardSpec

TEXTURE_PPM = 2.0  # texture pixels per millimetre


def smooth_noise(h: int, w: int, cell: int, rng: np.random.Generator) -> np.ndarray:
    """Values in [0, 1) varying smoothly over about ``cell`` pixels."""
    small = rng.random((h // cell + 3, w // cell + 3)).astype(np.float32)
    big = cv2.resize(small, ((w // cell + 3) * cell, (h // cell + 3) * cell),
                     interpolation=cv2.INTER_CUBIC)
    return big[cell:cell + h, cell:cell + w]


def wood(h: int, w: int, base_bgr: tuple[int, int, int], rng: np.random.Generator,
         ppm: float = TEXTURE_PPM, strength: float = 0.13) -> np.ndarray:
    """A wood-grain image (float32 BGR, 0-255) with the grain running along x."""
    yy = np.arange(h, dtype=np.float32)[:, None] / ppm
    warp = smooth_noise(h, w, max(8, int(40 * ppm)), rng) * 9.0 + smooth_noise(h, w, max(4, int(6 * ppm)), rng) * 0.8
    period = rng.uniform(2.0, 3.5)
    grain = 0.5 + 0.5 * np.sin(2 * np.pi * (yy + warp) / period)
    grain = grain ** 4
    low = smooth_noise(h, w, max(8, int(25 * ppm)), rng)
    factor = 1.0 - strength * grain - 0.08 * (low - 0.5)
    img = factor[..., None] * np.asarray(base_bgr, np.float32)[None, None, :]
    return img


def texture_extent(board: BoardSpec) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) in mm covered by a board's texture: the board and its marker tiles."""
    x0, y0, x1, y1 = outer_rect(board)
    t = tile_side(board)
    return (x0 - t, y0 - t, x1 + t, y1 + t)


@lru_cache(maxsize=16)
def board_texture(board: BoardSpec, variant: int) -> tuple[np.ndarray, np.ndarray]:
    """The board as seen from straight above: (BGR float32 image, alpha mask float32) in
    texture pixels covering ``texture_extent``; alpha is 0 where the table shows through."""
    rng = np.random.default_rng(1000 + variant)
    ex0, ey0, ex1, ey1 = texture_extent(board)
    w = int(round((ex1 - ex0) * TEXTURE_PPM))
    h = int(round((ey1 - ey0) * TEXTURE_PPM))
    # texture row 0 is the far edge (largest y) so the image reads like the board from above
    def px(x: float, y: float) -> tuple[float, float]:
        return ((x - ex0) * TEXTURE_PPM, (ey1 - y) * TEXTURE_PPM)

    tint = rng.uniform(0.93, 1.07, 3)
    base = tuple(int(min(255, c * t)) for c, t in zip(board.wood_bgr, tint))
    img = wood(h, w, base, rng)
    alpha = np.zeros((h, w), np.float32)
    x0, y0, x1, y1 = outer_rect(board)
    (ax, ay), (bx, by) = px(x0, y1), px(x1, y0)
    alpha[int(round(ay)):int(round(by)), int(round(ax)):int(round(bx))] = 1.0
    line = np.asarray(board.line_bgr, np.float32)
    lw = max(1, int(round(board.line_mm * TEXTURE_PPM)))
    for k in range(board.cols + 1):
        u, _ = px(k * board.square_mm, 0)
        a, b = int(round(u - lw / 2)), int(round(u - lw / 2)) + lw
        _, top = px(0, board.depth_mm)
        _, bot = px(0, 0)
        img[int(round(top)) - lw // 2:int(round(bot)) + lw // 2 + 1, a:b] = line
    for k in range(board.rows + 1):
        _, v = px(0, k * board.square_mm)
        a, b = int(round(v - lw / 2)), int(round(v - lw / 2)) + lw
        left, _ = px(0, 0)
        right, _ = px(board.width_mm, 0)
        img[a:b, int(round(left)) - lw // 2:int(round(right)) + lw // 2 + 1] = line
    m = board.markers
    t = tile_side(board)
    side = int(round(m.size_mm * TEXTURE_PPM))
    for mid, (cx, cy) in marker_centres(board).items():
        tx, ty = px(cx - t / 2, cy + t / 2)
        ts = int(round(t * TEXTURE_PPM))
        img[int(ty):int(ty) + ts, int(tx):int(tx) + ts] = 238.0
        alpha[int(ty):int(ty) + ts, int(tx):int(tx) + ts] = 1.0
        mx, my = px(cx - m.size_mm / 2, cy + m.size_mm / 2)
        mk = marker_image(m.dictionary, mid, side).astype(np.float32)
        mk = np.where(mk > 127, 238.0, 22.0)
        img[int(round(my)):int(round(my)) + side, int(round(mx)):int(round(mx)) + side] = mk[..., None]
    return img, alpha


def texture_to_world(board: BoardSpec) -> np.ndarray:
    """3x3 matrix from texture pixel (u, v, 1) to board (x, y, 1) in mm."""
    ex0, _, _, ey1 = texture_extent(board)
    s = 1.0 / TEXTURE_PPM
    return np.array([[s, 0, ex0], [0, -s, ey1], [0, 0, 1]], dtype=np.float64)
