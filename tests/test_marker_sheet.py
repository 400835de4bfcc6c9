"""The printable marker sheet, read back the way a user's printer and camera see it: the
PNG at its recorded 300 dpi carries the four markers at their true size (found by OpenCV's
ArUco detector), a 100 mm scale bar and every label; the SVG has the same content and, laid
out by a real browser, none of its text runs off the page, on A4 and on Letter."""

import struct
import subprocess
import sys

import cv2
import numpy as np
import pytest
from browser_support import needs_chromium, phone_page

from hardware.markers import (
    MM_PER_INCH,
    PAPERS,
    SCALE_BAR_MM,
    dictionary,
    marker_sheet,
    marker_sheet_png,
    marker_sheet_svg,
    png_bytes,
)
from hardware.pieces import load_board

DPI = 300
PX = DPI / MM_PER_INCH


def _phys(data: bytes) -> tuple[int, int, int]:
    at = data.index(b"pHYs")
    return struct.unpack(">IIB", data[at + 4:at + 13])


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_png_sheet_prints_at_true_scale(tmp_path, paper):
    board = load_board("gobblet-4x4")
    out = tmp_path / f"markers-{paper}.png"
    proc = subprocess.run([sys.executable, "-m", "companion.cli", "marker-sheet", "--board", "gobblet-4x4",
                           "--paper", paper, "--out", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "100 %" in proc.stdout and "100 mm" in proc.stdout
    data = out.read_bytes()
    assert _phys(data) == (round(DPI / 0.0254), round(DPI / 0.0254), 1)  # 300 dpi, per metre
    image = cv2.imread(str(out))
    w_mm, h_mm = PAPERS[paper]
    assert image.shape[:2] == (round(h_mm * PX), round(w_mm * PX))

    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary(board.markers.dictionary)).detectMarkers(grey)
    assert ids is not None and sorted(ids.ravel().tolist()) == list(board.markers.ids)
    for quad in corners:
        side = np.linalg.norm(quad[0][1] - quad[0][0])
        assert abs(side - board.markers.size_mm * PX) < 3  # 30 mm at 300 dpi = 354 px

    # the scale bar: the longest run of black pixels on one row of the lower part of the page
    lower = grey[grey.shape[0] // 2:] < 100
    best = 0
    for row in lower:
        runs = np.diff(np.flatnonzero(np.diff(np.concatenate([[0], row.astype(np.int8), [0]]))))[::2]
        best = max(best, int(runs.max()) if runs.size else 0)
    assert abs(best - SCALE_BAR_MM * PX) <= 3


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_sheet_is_labelled(paper):
    board = load_board("storer-lid-4x4")
    sheet = marker_sheet(board, paper)
    text = "\n".join(t.text for t in sheet.texts)
    for mid in board.markers.ids:
        assert f"marker id {mid}" in text
    for words in ("near left corner, by a1", "near right corner", "far right corner", "far left corner",
                  "far side", "Cut out each tile along its dashed line", "Scale check",
                  "100 mm", "White sits here", "actual size"):
        assert words in text, words
    svg = marker_sheet_svg(board, paper)
    w, h = PAPERS[paper]
    assert f'width="{w}mm" height="{h}mm"' in svg and f'viewBox="0 0 {w} {h}"' in svg
    assert svg.count("stroke-dasharray") >= 4  # a cut line round each tile
    assert "marker id 0" in svg and "far left corner" in svg
    # the PNG draws the same sheet: its tiles' cut lines are there (grey dashes)
    png = marker_sheet_png(board, paper)
    assert ((png[:, :, 0] == 110) & (png[:, :, 1] == 110)).sum() > 1000


def test_unknown_paper_and_format_are_refused(tmp_path, capsys):
    from companion.cli import main

    with pytest.raises(ValueError, match="unknown paper"):
        marker_sheet(load_board("gobblet-4x4"), "a3")
    assert main(["marker-sheet", "--out", str(tmp_path / "m.pdf")]) == 1
    assert "written as .svg or .png" in capsys.readouterr().err


def test_png_bytes_keeps_the_image():
    image = np.zeros((20, 30, 3), np.uint8)
    image[5:10, 5:25] = 200
    decoded = cv2.imdecode(np.frombuffer(png_bytes(image, dpi=150), np.uint8), cv2.IMREAD_COLOR)
    assert np.array_equal(decoded, image)


@needs_chromium
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_svg_text_stays_on_the_page_in_a_browser(tmp_path, paper):
    """Chromium lays the SVG out with its own fonts; every text box must be inside the page."""
    path = tmp_path / "markers.svg"
    path.write_text(marker_sheet_svg(load_board("gobblet-jr-3x3"), paper), encoding="utf-8")
    w, h = PAPERS[paper]
    with phone_page() as page:
        page.goto(path.as_uri())
        boxes = page.evaluate("""() => [...document.querySelectorAll('text')].map(t => {
            const b = t.getBBox(); return [t.textContent, b.x, b.y, b.x + b.width, b.y + b.height]; })""")
    assert len(boxes) > 20
    outside = [b for b in boxes if b[1] < 0 or b[2] < 0 or b[3] > w - 5 or b[4] > h - 5]
    assert outside == []
