"""The recogniser's compiled and shared fast paths against the plain numpy statements they
replaced, on rendered frames of the held-out shaded look (Storer's clear set, and Gobblet Jr.,
whose chroma keeps eight gradient planes): each must give the same values, bit for bit, so
that making a frame cheaper never changes what is read.  (The time they save is measured by
``bench/vision_ab.py``, not here.)"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.camera_model import height_scale
from hardware.pieces import load_board, load_piece_set
from vision.evaluate import bench_cameras
from vision.kernels import channel_medians_at, log_changes, median_at, sheen_distance, sheen_gaps, smallest_sums
from vision.recognise import (_FINE, _LOG_LEVEL, _LOG_SUM, COARSE_ANGLES, CROP_PX, CROP_SPAN, N_ANG, RADII,
                              REMAP_ROWS, SHEEN_DOUBT, TINT_SIGMA, LUM_SIGMA, Recogniser, _channels,
                              _coarse_offsets, _log_gradients, _units, _whiteness)


@pytest.fixture(scope="module", params=["storer-clear", "gobblet-jr"])
def frames(request):
    """One calibrated camera of the shaded look and its two frames: (calibration, images)."""
    pieces = load_piece_set(request.param)
    board = load_board(pieces.default_board)
    for camera in bench_cameras(pieces, board, 2, seed=7, style="shaded"):
        if camera.calibration is not None:
            return camera.calibration, [image for image, _ in camera.frames]
    pytest.fail("no camera of seed 7 calibrated")


def _read(frames):
    """A recogniser after reading each frame in turn (yielded after each)."""
    cal, images = frames
    rec = Recogniser(cal)
    for image in images:
        rec.recognise(image)
        yield rec


def test_board_medians_by_counting_are_numpys(frames):
    for rec in _read(frames):
        f = rec._last
        change = (f.lum - rec.ref_log).ravel()
        for idx in (rec._area_7, rec._area_7[:-1], rec._area_7[:1]):  # even, odd and one
            assert median_at(change, idx) == float(np.median(change[idx]))
        for idx in (rec._area_9, rec._area_9[:-1]):
            assert np.array_equal(channel_medians_at(f.view, idx), np.median(f.view.reshape(-1, 3)[idx], axis=0))
        # one value over and over: the bins have no width
        assert median_at(np.full(10, 0.25, np.float32), np.arange(10)) == 0.25
        assert np.isnan(median_at(np.array([1.0, np.nan, 2.0], np.float32), np.arange(3)))


def test_log_changes_are_the_channels_less_the_empty_board(frames):
    for rec in _read(frames):
        view = rec._last.view
        lum, chroma = _channels(view)
        got = log_changes(view, _LOG_SUM, _LOG_LEVEL, True, rec.ref_log,
                          rec.ref_white if rec.ref_white is not None else np.zeros((0, 0), np.float32))
        assert np.array_equal(got[0], lum) and np.array_equal(got[1], chroma)
        assert np.array_equal(got[2], lum - rec.ref_log)
        if rec.ref_white is not None:
            assert np.array_equal(got[3], _whiteness(lum, chroma) - rec.ref_white)
        else:
            assert got[3].size == 0
        assert log_changes(view, _LOG_SUM, _LOG_LEVEL, False, rec.ref_log, np.zeros((0, 0), np.float32))[1].size == 0


def test_gradients_written_into_a_padded_buffer_are_the_plain_ones(frames):
    for rec in _read(frames):
        lum, chroma = _channels(rec._last.view)
        plain = _log_gradients(lum, chroma)
        h, w = lum.shape
        buf = np.full((4, h + 10, w + 10), 7.0, np.float32)
        written = _log_gradients(lum, chroma, list(buf[:, 5:5 + h, 5:5 + w]))
        for a, b in zip(plain, written):
            assert np.array_equal(a, b)
        assert np.array_equal(buf[:, 5:5 + h, 5:5 + w], np.stack(plain))
        assert (buf[:, :5] == 7.0).all() and (buf[:, :, -5:] == 7.0).all()  # the border untouched


def _inside_lead_numpy(rec, pts, radius, n_ang, offsets):
    """The lighter outline's leads as numpy stated them before ``kernels.inside_leads``."""
    hyp = rec._last.hyp
    wp = rec.canvas.width + 2 * hyp.pad
    u = _units(n_ang)
    ring = u[:, None, :] * (radius + np.asarray(offsets))[None, :, None]
    step = np.rint(ring[..., 1]).astype(np.int64) * wp + np.rint(ring[..., 0]).astype(np.int64)
    idx = ((pts[:, 1] + hyp.pad) * wp + pts[:, 0] + hyp.pad)[None, :, None] + step[:, None, :]
    ux, uy = (u[:, c, None, None].astype(np.float32) for c in (0, 1))

    def radial(gx, gy):
        along = np.take(gx, idx)
        along *= ux
        across = np.take(gy, idx)
        across *= uy
        along += across
        return along

    planes = hyp.planes
    rise = radial(planes[0], planes[1])
    if len(planes) == 8:
        rise -= radial(planes[2], planes[3])
    half = n_ang // 2
    weak = smallest_sums(np.ascontiguousarray(-rise.reshape(len(rise), -1)), half)
    return (weak.reshape(rise.shape[1:]) / half).max(axis=1)


def test_inside_leads_are_the_numpy_statement(frames):
    for rec in _read(frames):
        f = rec._last
        for sq in range(0, rec.board.squares, 3):
            for s in range(len(rec.cal.sizes)):
                k = height_scale(f.H, rec.cal.sizes[s].height_mm)
                r = rec.edges_mm[s][-1] * k * rec.canvas.ppm
                reach = rec.offsets_mm[s] * k * rec.canvas.ppm
                base = np.rint(f.n_px + (rec.centres_px[sq] - f.n_px) * k).astype(np.int64)
                pts = base + _coarse_offsets(reach)
                fine = (pts[:4, None, :] + _FINE[None, :, :]).reshape(-1, 2)
                for p, n_ang, offsets in ((pts, COARSE_ANGLES, (0.0,)), (fine, N_ANG, RADII)):
                    want = _inside_lead_numpy(rec, p, r, n_ang, offsets)
                    got = rec._inside_lead(p, r, n_ang, offsets)
                    assert got.dtype == want.dtype and np.array_equal(got, want), (sq, s)


def test_sheen_gaps_are_the_two_sheen_distances_apart(frames):
    for rec in _read(frames):
        for sq in range(rec.board.squares):
            pixels, board_now = rec.top_pixels(sq, len(rec.cal.sizes) - 1)
            px = np.maximum(pixels.astype(np.float64), 1.0)
            refs = rec.colour_refs
            want = (sheen_distance(px, board_now, refs[1], LUM_SIGMA, TINT_SIGMA, SHEEN_DOUBT)
                    - sheen_distance(px, board_now, refs[0], LUM_SIGMA, TINT_SIGMA, SHEEN_DOUBT))
            assert np.array_equal(sheen_gaps(px, board_now, refs[1], refs[0], LUM_SIGMA, TINT_SIGMA, SHEEN_DOUBT),
                                  want)


def _size_crops_numpy(rec, squares):
    """``Recogniser.size_crops`` as numpy stated it before ``kernels.crop_maps``."""
    f = rec._last
    D, L, (cs, sn), H = f.white, f.lum_level, f.far_dir, f.H
    nsz, n = len(rec.cal.sizes), len(squares)
    fine = 2 * CROP_PX
    g = (np.arange(fine, dtype=np.float32) + 0.5) / fine * 2 * CROP_SPAN - CROP_SPAN
    u, v = np.meshgrid(g, g)
    r = np.array([rec.edges_mm[s][-1] * height_scale(H, sc.height_mm) * rec.canvas.ppm
                  for s, sc in enumerate(rec.cal.sizes)], np.float32)
    c, sq_s = cs[squares, 0].astype(np.float32), sn[squares, 0].astype(np.float32)
    dx = (u[None] * c[:, None, None] - v[None] * sq_s[:, None, None])
    dy = (u[None] * sq_s[:, None, None] + v[None] * c[:, None, None])
    centre = np.asarray(rec._top_centres(squares), np.float32)
    mx = np.ascontiguousarray((centre[:, :, 0, None, None] + r[None, :, None, None] * dx[:, None]).reshape(-1, fine))
    my = np.ascontiguousarray((centre[:, :, 1, None, None] + r[None, :, None, None] * dy[:, None]).reshape(-1, fine))
    out = np.empty((n, nsz, 2, CROP_PX, CROP_PX), np.float32)
    for j, plane in enumerate((D, L)):
        z = np.concatenate([cv2.remap(plane, mx[i:i + REMAP_ROWS], my[i:i + REMAP_ROWS], cv2.INTER_LINEAR,
                                      borderMode=cv2.BORDER_REPLICATE) for i in range(0, len(mx), REMAP_ROWS)])
        z = (z[0::2, 0::2] + z[1::2, 0::2]) + (z[0::2, 1::2] + z[1::2, 1::2])
        z *= 0.25
        out[:, :, j] = z.reshape(n, nsz, CROP_PX, CROP_PX)
    return out


def test_size_crops_are_the_numpy_statement(frames):
    if not frames[0].pieces.clear:
        pytest.skip("size crops are read on clear sets only")
    for rec in _read(frames):
        squares = np.arange(rec.board.squares)
        assert np.array_equal(rec.size_crops(squares), _size_crops_numpy(rec, squares))
