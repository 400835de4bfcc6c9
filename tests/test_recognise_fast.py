"""The recogniser's compiled and shared fast paths against the plain numpy statements they
replaced, on rendered frames of the held-out shaded look (Storer's clear set, and Gobblet Jr.,
whose chroma keeps eight gradient planes): each must give the same values, bit for bit, so
that making a frame cheaper never changes what is read.  The two nets' layers (``convnet.py``)
are checked the same way on the crops they read on those frames: the convolutions bit for
bit, the dense head (now summed one row at a time, in one thread) within float32 rounding,
and the probabilities they give within 1e-5, with the same best reading.  (The time they
save is measured by ``bench/vision_ab.py``, not here.)"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.locate import MOSAIC_GAP, _detector, _keep, detect_markers, largest_window
from hardware.camera_model import height_scale
from hardware.pieces import load_board, load_piece_set
from vision import convnet, kernels
from vision.convnet import conv_relu_pool, conv_stride2_relu, dense_score
from vision.evaluate import bench_cameras
from vision.kernels import channel_medians_at, log_changes, median_at, sheen_distance, sheen_gaps, smallest_sums
from vision.recognise import (_FINE, _LOG_LEVEL, _LOG_SUM, COARSE_ANGLES, CROP_PX, CROP_SPAN, N_ANG, RADII,
                              REMAP_ROWS, SHEEN_DOUBT, TINT_SIGMA, LUM_SIGMA, Recogniser, _channels,
                              _coarse_offsets, _log_gradients, _units, _whiteness)
from vision.size_check import CONVS as CHECK_CONVS
from vision.size_check import load_size_check
from vision.square_model import alternatives
from vision.square_net import CONVS as NET_CONVS
from vision.square_net import load_square_net, square_crops


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
                    got = rec._inside_lead(p, r, _units(n_ang), offsets)
                    assert got.dtype == want.dtype and np.array_equal(got, want), (sq, s)


def test_sheen_gaps_are_the_two_sheen_distances_apart(frames):
    for rec in _read(frames):
        for sq in range(rec.board.squares):
            pixels, board_now = rec.top_pixels(sq, len(rec.cal.sizes) - 1)
            px = np.maximum(pixels.astype(np.float64), 1.0)
            refs = rec.colour_refs
            for gamma in (1.0, 2.2):  # display values, and light (a plug's, ``Recogniser._sheen``)
                want = (sheen_distance(px, board_now, refs[1], LUM_SIGMA, TINT_SIGMA, SHEEN_DOUBT, gamma)
                        - sheen_distance(px, board_now, refs[0], LUM_SIGMA, TINT_SIGMA, SHEEN_DOUBT, gamma))
                assert np.array_equal(sheen_gaps(px, board_now, refs[1], refs[0], LUM_SIGMA, TINT_SIGMA, SHEEN_DOUBT,
                                                 gamma), want)


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


# -- the nets' layers: the numpy statements ``convnet.py`` had before its compiled loops ---------

def _conv_relu_pool_numpy(x, w, b):
    n, c, h, wd = x.shape
    row = wd + 2
    flat = np.zeros((n, c, (h + 2) * row + 2), np.float32)
    flat[:, :, :(h + 2) * row].reshape(n, c, h + 2, row)[:, :, 1:-1, 1:-1] = x
    span = h * row
    cols = np.concatenate([flat[:, :, i * row + j:i * row + j + span] for i in range(3) for j in range(3)], axis=1)
    y = np.matmul(w.transpose(0, 2, 3, 1).reshape(len(w), 9 * c), cols)
    y = y.reshape(n, len(w), h // 2, 2 * row)
    m = np.maximum(y[..., :row], y[..., row:])
    p = np.maximum(m[..., 0:wd:2], m[..., 1:wd:2])
    p += b[:, None, None]
    return np.maximum(p, 0.0, out=p)


def _conv_stride2_relu_numpy(x, w, b):
    n, c, h, wd = x.shape
    pad = np.zeros((n, c, h + 2, wd + 2), np.float32)
    pad[:, :, 1:-1, 1:-1] = x
    cols = np.concatenate([pad[:, :, i:i + h:2, j:j + wd:2] for i in range(3) for j in range(3)], axis=1)
    y = np.matmul(w.transpose(0, 2, 3, 1).reshape(len(w), 9 * c), cols.reshape(n, 9 * c, -1))
    y += b[:, None]
    np.maximum(y, 0.0, out=y)
    return y.reshape(n, len(w), h // 2, wd // 2)


def _dense_numpy(x, weights):
    h = x.reshape(len(x), -1) @ weights["fc1_w"].T + weights["fc1_b"]
    np.maximum(h, 0.0, out=h)
    return (h @ weights["fc2_w"].T + weights["fc2_b"])[:, 0]


def _plain_layer(x, w, b, stride):
    """A 3x3 convolution written out as its definition (float64, each output the sum over its
    zero-padded window), ReLU, and 2x2 max pooling after a stride of 1."""
    padded = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    n, _, h, wd = x.shape
    y = np.zeros((n, len(w), h // stride, wd // stride))
    for i in range(0, h, stride):
        for j in range(0, wd, stride):
            y[:, :, i // stride, j // stride] = np.einsum("ncuv,ocuv->no", padded[:, :, i:i + 3, j:j + 3], w) + b
    y = np.maximum(y, 0.0)
    if stride == 1:
        y = y.reshape(n, len(w), h // 2, 2, wd // 2, 2).max(axis=(3, 5))
    return y


def _layers_alike(x, weights, convs, strided_first):
    """Runs ``x`` through the nets' convolutions fast and by the numpy statement, asserting each
    layer's output the same bit for bit; returns the last."""
    for i, (name, _, _) in enumerate(convs):
        w, b = weights[f"{name}_w"], weights[f"{name}_b"]
        fast, numpy = ((conv_stride2_relu, _conv_stride2_relu_numpy) if strided_first and i == 0
                       else (conv_relu_pool, _conv_relu_pool_numpy))
        got = fast(x, w, b)
        want = numpy(x, w, b)
        assert got.dtype == want.dtype == np.float32 and np.array_equal(got, want), name
        x = got
    return x


def test_size_check_layers_are_the_numpy_statement_on_rendered_crops(frames):
    if not frames[0].pieces.clear:
        pytest.skip("the size check reads clear sets only")
    check = load_size_check()
    for rec in _read(frames):
        squares = np.arange(rec.board.squares)
        crops = rec.candidate_crops(squares)  # every square's, not only the doubtful ones
        x = np.clip(crops.reshape((-1,) + crops.shape[-3:]) / check.input_scale, -5.0, 5.0).astype(np.float32)
        last = _layers_alike(x, check.weights, CHECK_CONVS, strided_first=False)
        places = check.scores(crops)
        want = _dense_numpy(last, check.weights).reshape(places.shape)
        assert np.abs(places - want).max() <= 2e-6 * max(1.0, float(np.abs(want).max()))
        # the definition, on one square's crops
        plain = x[:crops[0].size // x[0].size].astype(np.float64)
        for name, _, _ in CHECK_CONVS:
            plain = _plain_layer(plain, check.weights[f"{name}_w"], check.weights[f"{name}_b"], 1)
        assert np.allclose(places[0].ravel(), _dense_numpy(plain, check.weights), atol=1e-4)
        # what the recogniser makes of them: the probabilities within 1e-5, the same readings
        own = rec._own_places(squares)[:, None, :]
        probs = rec.model.probabilities(alternatives(rec.last_evidence))
        got_p = check.revise(probs, check.combine(np.take_along_axis(places, own, axis=1)[:, 0], places))
        want_p = check.revise(probs, check.combine(np.take_along_axis(want, own, axis=1)[:, 0], want))
        assert np.abs(got_p - want_p).max() <= 1e-5
        assert np.array_equal(got_p.argmax(axis=1), want_p.argmax(axis=1))
        assert np.array_equal(rec.size_scores(squares), check.combine(np.take_along_axis(places, own, axis=1)[:, 0],
                                                                      places))


def test_square_net_layers_are_the_numpy_statement_on_rendered_crops(frames):
    net = load_square_net()
    for rec in _read(frames):
        crops = square_crops(rec)
        scale = net.weights["input_scale"][None, :, None, None]
        x = np.clip(crops.reshape((-1,) + crops.shape[-3:]) / scale, -5.0, 5.0).astype(np.float32)
        last = _layers_alike(x, net.weights, NET_CONVS, strided_first=True)
        scores = net.scores(crops)
        want = _dense_numpy(last, net.weights).reshape(scores.shape)
        assert np.abs(scores - want).max() <= 2e-6 * max(1.0, float(np.abs(want).max()))
        plain = x[:crops[0].size // x[0].size].astype(np.float64)
        for i, (name, _, _) in enumerate(NET_CONVS):
            plain = _plain_layer(plain, net.weights[f"{name}_w"], net.weights[f"{name}_b"], 2 if i == 0 else 1)
        assert np.allclose(scores[0], _dense_numpy(plain, net.weights), atol=1e-4)
        model = rec.model.probabilities(alternatives(rec.last_evidence))
        got_p = net.combine(model, net.probabilities(scores))
        want_p = net.combine(model, net.probabilities(want))
        assert np.abs(net.probabilities(scores) - net.probabilities(want)).max() <= 1e-5
        assert np.abs(got_p - want_p).max() <= 1e-5
        assert np.array_equal(got_p.argmax(axis=1), want_p.argmax(axis=1))


@pytest.mark.parametrize("n", [0, 1, convnet.CHUNK - 1, convnet.CHUNK, 2 * convnet.CHUNK + 3])
def test_convolutions_in_chunks_are_the_numpy_statement(n):
    rng = np.random.default_rng(n)
    x = rng.normal(0, 2, (n, 3, 10, 8)).astype(np.float32)
    w = rng.normal(0, 1, (5, 3, 3, 3)).astype(np.float32)
    b = rng.normal(0, 1, 5).astype(np.float32)
    assert np.array_equal(conv_relu_pool(x, w, b), _conv_relu_pool_numpy(x, w, b))
    if not n:  # (numpy's statement could not reshape an empty batch)
        assert conv_stride2_relu(x, w, b).shape == (0, 5, 5, 4)
        return
    assert np.array_equal(conv_stride2_relu(x, w, b), _conv_stride2_relu_numpy(x, w, b))
    # a NaN pixel spreads through the pooling as numpy's maximum spreads it
    x[0, 1, 4, 4] = np.nan
    got, want = conv_relu_pool(x, w, b), _conv_relu_pool_numpy(x, w, b)
    assert np.isnan(want).any() and np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(got[~np.isnan(got)], want[~np.isnan(want)])


def test_a_pictures_score_does_not_depend_on_the_batch():
    check = load_size_check()
    rng = np.random.default_rng(4)
    x = np.maximum(rng.normal(0, 1, (40, 16, 3, 3)), 0).astype(np.float32)
    batch = dense_score(x, check.weights)
    alone = np.concatenate([dense_score(x[i:i + 1], check.weights) for i in range(len(x))])
    assert batch.dtype == np.float32 and np.array_equal(batch, alone)
    assert np.allclose(batch, _dense_numpy(x, check.weights), atol=1e-5)


def test_no_kernel_asks_for_threads():
    # recognition is timed on one core: a kernel compiled with numba's parallel option would
    # spread a frame's work over threads the per-thread CPU time does not count
    compiled = [v for v in vars(kernels).values() if hasattr(v, "targetoptions")]
    assert len(compiled) > 20
    assert not [k.py_func.__name__ for k in compiled if k.targetoptions.get("parallel")]


# -- the marker search near the markers ------------------------------------------------------

def _search_near_numpy(image, board, rois, marker_px):
    """The search near the markers as it was before the outlines were bounded by the
    markers' size: a colour mosaic of the regions, made grey, every outline examined."""
    h_img, w_img = image.shape[:2]
    boxes = [(max(0, x), max(0, y), min(w_img, x + w), min(h_img, y + h)) for x, y, w, h in rois]
    boxes = [b for b in boxes if b[2] - b[0] >= 16 and b[3] - b[1] >= 16]
    width = sum(x1 - x0 for x0, _, x1, _ in boxes) + MOSAIC_GAP * (len(boxes) + 1)
    height = max(y1 - y0 for _, y0, _, y1 in boxes) + 2 * MOSAIC_GAP
    mosaic = np.full((height, width, 3), 255, np.uint8)
    shifts, left = [], MOSAIC_GAP
    for x0, y0, x1, y1 in boxes:
        mosaic[MOSAIC_GAP:MOSAIC_GAP + y1 - y0, left:left + x1 - x0] = image[y0:y1, x0:x1]
        shifts.append((left, x0 - left, y0 - MOSAIC_GAP))
        left += x1 - x0 + MOSAIC_GAP
    det = _detector(board.markers.dictionary, largest_window(marker_px))
    return _keep(det.detectMarkers(cv2.cvtColor(mosaic, cv2.COLOR_BGR2GRAY))[:2], set(board.markers.ids), shifts)


def test_markers_near_where_they_were_are_found_with_the_same_corners(frames):
    cal, images = frames
    rec = Recogniser(cal)
    for image in images + images[::-1]:
        rois, side = rec.search_regions()  # from the calibration's pose on the first frame
        want = _search_near_numpy(image, rec.board, rois, side)
        got = detect_markers(image, rec.board, rois, marker_px=side)
        assert len(want) == 4 and got.keys() == want.keys()
        assert all(np.array_equal(got[i], want[i]) for i in want)
        # outlines far from the size asked for are not examined: a marker three times as
        # large is not there (``Recogniser.locate`` then searches the whole picture)
        assert len(detect_markers(image, rec.board, rois, marker_px=3 * side)) < len(want)
        rec.recognise(image)
