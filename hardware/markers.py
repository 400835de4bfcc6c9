"""The ArUco markers that locate the board, and the printable sheet that carries them.

Four square markers sit on white tiles just outside the board's four outer corners, each
tile's inner corner touching the board's corner, so they move with the board when it is
nudged.  ``ids[0]`` is at the a1 corner (left, near White), ``ids[1]`` at the last file on
rank 1, ``ids[2]`` at the far right corner, ``ids[3]`` at the far left corner.  Every marker
is printed upright with its label text toward the far side of the board (Black's side).
"""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np

from .pieces import BoardSpec

MM_PER_INCH = 25.4


@cache
def dictionary(name: str) -> cv2.aruco.Dictionary:
    """The predefined ArUco dictionary called ``name`` (e.g. ``DICT_4X4_50``)."""
    code = getattr(cv2.aruco, name, None)
    if not isinstance(code, int):
        raise ValueError(f"unknown ArUco dictionary {name!r}")
    return cv2.aruco.getPredefinedDictionary(code)


def outer_rect(board: BoardSpec) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) of the board's outer edge in board coordinates, mm."""
    b = board.border_mm
    return (-b, -b, board.width_mm + b, board.depth_mm + b)


def tile_side(board: BoardSpec) -> float:
    """Side of the white tile around one marker, mm."""
    return board.markers.size_mm + 2 * board.markers.quiet_mm


def marker_centres(board: BoardSpec) -> dict[int, np.ndarray]:
    """Centre (x, y) of each marker by id, mm, in board coordinates."""
    x0, y0, x1, y1 = outer_rect(board)
    h = tile_side(board) / 2
    ids = board.markers.ids
    return {
        ids[0]: np.array([x0 - h, y0 - h]),
        ids[1]: np.array([x1 + h, y0 - h]),
        ids[2]: np.array([x1 + h, y1 + h]),
        ids[3]: np.array([x0 - h, y1 + h]),
    }


def marker_corners_world(board: BoardSpec) -> dict[int, np.ndarray]:
    """The four corners (4, 3) of each marker by id, in ArUco's order (top-left, top-right,
    bottom-right, bottom-left of the printed marker), at the markers' height above the
    playing surface (z = 0; ``MarkerLayout.height_mm``)."""
    s = board.markers.size_mm / 2
    z = board.markers.height_mm
    out = {}
    for mid, (cx, cy) in marker_centres(board).items():
        out[mid] = np.array([[cx - s, cy + s, z], [cx + s, cy + s, z],
                             [cx + s, cy - s, z], [cx - s, cy - s, z]], dtype=np.float64)
    return out


def marker_bits(dictionary_name: str, marker_id: int) -> np.ndarray:
    """The marker as a boolean grid including its black border (True = white cell)."""
    d = dictionary(dictionary_name)
    cells = d.markerSize + 2
    img = cv2.aruco.generateImageMarker(d, marker_id, cells)
    return img > 127


def marker_image(dictionary_name: str, marker_id: int, side_px: int) -> np.ndarray:
    """The marker drawn as a grey image of ``side_px`` pixels (no quiet zone)."""
    bits = marker_bits(dictionary_name, marker_id).astype(np.uint8) * 255
    return cv2.resize(bits, (side_px, side_px), interpolation=cv2.INTER_NEAREST)


def marker_sheet_svg(board: BoardSpec) -> str:
    """An A4 SVG, at true scale, with the four marker tiles of ``board``, cut lines, labels
    and a 100 mm scale bar to check the printer did not resize it."""
    m = board.markers
    tile = tile_side(board)
    cells = dictionary(m.dictionary).markerSize + 2
    cell = m.size_mm / cells
    page_w, page_h = 210.0, 297.0
    gap = 20.0
    placements = [(m.ids[0], "a1 corner (near left)"), (m.ids[1], "near right corner"),
                  (m.ids[3], "far left corner"), (m.ids[2], "far right corner")]
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{page_w}mm" height="{page_h}mm" '
        f'viewBox="0 0 {page_w} {page_h}">',
        '<rect width="100%" height="100%" fill="white"/>',
        f'<text x="15" y="18" font-size="5" font-family="sans-serif">cupboard board markers: '
        f'{board.name} ({m.dictionary}, {m.size_mm:g} mm)</text>',
        '<text x="15" y="25" font-size="3.2" font-family="sans-serif">Print at 100 % (no '
        '"fit to page"). Cut along the dashed lines. Stick each tile outside its board corner, '
        'inner corner touching the board corner, label toward the far (Black) side.</text>',
    ]
    x_start, y_start = 15.0, 40.0
    for k, (mid, where) in enumerate(placements):
        tx = x_start + (k % 2) * (tile + gap + 40)
        ty = y_start + (k // 2) * (tile + gap + 25)
        parts.append(f'<rect x="{tx:.3f}" y="{ty:.3f}" width="{tile:.3f}" height="{tile:.3f}" '
                     'fill="none" stroke="#888" stroke-width="0.2" stroke-dasharray="1.5,1"/>')
        bits = marker_bits(m.dictionary, mid)
        ox, oy = tx + m.quiet_mm, ty + m.quiet_mm
        for r in range(cells):
            for c in range(cells):
                if not bits[r, c]:
                    parts.append(f'<rect x="{ox + c * cell:.3f}" y="{oy + r * cell:.3f}" '
                                 f'width="{cell + 0.01:.3f}" height="{cell + 0.01:.3f}" fill="black"/>')
        parts.append(f'<text x="{tx:.3f}" y="{ty - 1.5:.3f}" font-size="3" '
                     f'font-family="sans-serif">id {mid}: {where} ↑ far side</text>')
    sy = page_h - 30
    parts.append(f'<rect x="15" y="{sy}" width="100" height="3" fill="black"/>')
    parts.append(f'<text x="15" y="{sy + 8}" font-size="3.5" font-family="sans-serif">'
                 'this bar must measure exactly 100 mm</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def marker_sheet_png(board: BoardSpec, dpi: int = 300) -> np.ndarray:
    """The same sheet as a grey raster image at ``dpi`` (A4), for printers that want a
    bitmap; print it at that resolution."""
    px = dpi / MM_PER_INCH
    img = np.full((round(297 * px), round(210 * px)), 255, np.uint8)
    m = board.markers
    tile = tile_side(board)
    gap = 20.0
    order = [m.ids[0], m.ids[1], m.ids[3], m.ids[2]]
    for k, mid in enumerate(order):
        tx = 15.0 + (k % 2) * (tile + gap + 40)
        ty = 40.0 + (k // 2) * (tile + gap + 25)
        side = round(m.size_mm * px)
        x, y = round((tx + m.quiet_mm) * px), round((ty + m.quiet_mm) * px)
        img[y:y + side, x:x + side] = marker_image(m.dictionary, mid, side)
        cv2.rectangle(img, (round(tx * px), round(ty * px)),
                      (round((tx + tile) * px), round((ty + tile) * px)), 150, 1)
    sy = round((297 - 30) * px)
    img[sy:sy + round(3 * px), round(15 * px):round(115 * px)] = 0
    return img
