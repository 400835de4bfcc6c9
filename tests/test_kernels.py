"""The compiled inner loops of recognition (``vision/kernels.py``) against plain numpy
statements of what they compute, and against tops planted where they must be found; and the
rectified view's maps against the camera model they stand for."""

import cv2
import numpy as np
import pytest

from calibration.canvas import Canvas, canvas_maps, maps_inside
from hardware.camera_model import CameraPose, nominal_intrinsics, project
from vision.kernels import colour_vote, disc_offsets, log_channels, rim_search, ring_search, ring_vote
from vision.recognise import _FAR_UNITS, _FINE, _LOG_LEVEL, _LOG_SUM, _UNITS, _channels

PAD = 40


# -- plain statements of the scores ------------------------------------------------------------
def _weak_mean(values: np.ndarray, keep: int) -> float:
    return float(np.sort(values)[:keep].sum() / keep)


def _ring_score(planes, p, units, radii, offsets, c, s):
    """Score, sign and per-ring scores of one candidate centre ``p`` (x, y) on padded planes."""
    ux = (units[:, 0] * c - units[:, 1] * s).astype(np.float32)
    uy = (units[:, 0] * s + units[:, 1] * c).astype(np.float32)
    half = len(units) // 2
    per_ring, signs = [], []
    for r in radii:
        best, best_sign = -np.inf, 0.0
        for o in offsets:
            x, y = units[:, 0] * (r + o), units[:, 1] * (r + o)
            xi = p[0] + PAD + np.rint(x * c - y * s).astype(int)
            yi = p[1] + PAD + np.rint(x * s + y * c).astype(int)

            def radial(k):
                return planes[k][yi, xi] * ux + planes[k + 1][yi, xi] * uy

            val = radial(0)
            if len(planes) == 8:
                chroma = radial(4)
                val = chroma - radial(6) if abs(chroma.sum()) > abs(val.sum()) else val - radial(2)
            sign = np.sign(val.sum())
            score = _weak_mean(val * sign, half)
            if score > best:
                best, best_sign = score, sign
        per_ring.append(best)
        signs.append(best_sign)
    return float(np.mean(per_ring)), signs[0], per_ring


def _ring_search_reference(planes, base, reach, radii, cs, sn):
    half = int(reach // 2.0)
    g = np.arange(-half, half + 1) * 2.0
    ox, oy = np.meshgrid(g, g)
    inside = ox ** 2 + oy ** 2 <= reach ** 2 + 1e-6
    cand = np.stack([ox[inside], oy[inside]], axis=1).astype(int)
    out = []
    for (bx, by), c, s in zip(base, cs, sn):
        coarse = [_ring_score(planes, (bx + dx, by + dy), _FAR_UNITS[16], radii, (0.0,), c, s)[0]
                  for dx, dy in cand]
        seeds = cand[np.argsort(coarse)[::-1][:2]] + (bx, by)
        pts = (seeds[:, None, :] + _FINE[None]).reshape(-1, 2)
        fine = [_ring_score(planes, p, _FAR_UNITS[24], radii, (-0.6, 0.0, 0.6), c, s) for p in pts]
        i = int(np.argmax([f[0] for f in fine]))
        out.append((fine[i][0], fine[i][1], pts[i], (fine[i][2][0], fine[i][2][-1])))
    return out


def _rim_lead(D, xi, yi):
    v = D[yi + PAD, xi + PAD]  # (radii, angles)
    return v[1:-1].max(axis=0) - np.maximum(v[0], v[-1])


def _rim_search_reference(D, base, reach, coarse_radii, radii):
    g = np.arange(-reach, reach + 1e-6, 2.0)
    ox, oy = np.meshgrid(g, g)
    inside = ox ** 2 + oy ** 2 <= reach ** 2 + 1e-6
    cand = np.stack([ox[inside], oy[inside]], axis=1)
    uc, uf = _UNITS[12], _UNITS[24]
    ring_c = np.rint(uc[None] * np.asarray(coarse_radii)[:, None, None]).astype(int)  # (radii, angles, 2)
    ring_f = uf[None] * np.asarray(radii)[:, None, None]
    out = []
    for b in base:
        pts = b + cand
        coarse = []
        for p in pts:
            q = np.rint(p).astype(int)
            coarse.append(_weak_mean(_rim_lead(D, q[0] + ring_c[..., 0], q[1] + ring_c[..., 1]), 9))
        seeds = pts[np.argsort(coarse)[::-1][:3]]
        fine_pts = (seeds[:, None, :] + _FINE[None]).reshape(-1, 2)
        fine = [_weak_mean(_rim_lead(D, np.rint(p[0] + ring_f[..., 0]).astype(int),
                                     np.rint(p[1] + ring_f[..., 1]).astype(int)), 19) for p in fine_pts]
        i = int(np.argmax(fine))
        out.append((fine[i], fine_pts[i]))
    return out


# -- the kernels against them -----------------------------------------------------------------
@pytest.mark.parametrize("n_planes", [2, 8])
def test_ring_search_scores_as_the_plain_statement(n_planes):
    rng = np.random.default_rng(n_planes)
    h = w = 90
    planes = np.zeros((n_planes, h + 2 * PAD, w + 2 * PAD), np.float32)
    planes[:, PAD:-PAD, PAD:-PAD] = rng.standard_normal((n_planes, h, w))
    base = np.array([[30, 40], [55, 50], [45, 28]])
    phi = rng.uniform(-np.pi, np.pi, len(base))
    cs, sn = np.cos(phi), np.sin(phi)
    radii, reach = [9.0, 12.5], 7.3
    score, sign, centre, edges = ring_search(
        planes.reshape(n_planes, -1), w + 2 * PAD, PAD, base, np.arange(-3, 4) * 2.0, reach, np.array(radii),
        cs, sn, _FAR_UNITS[16], _FINE, _FAR_UNITS[24], np.array([-0.6, 0.0, 0.6]), 2)
    for i, (ref_score, ref_sign, ref_centre, ref_edges) in enumerate(
            _ring_search_reference(planes, base, reach, radii, cs, sn)):
        assert score[i] == pytest.approx(ref_score, rel=1e-5, abs=1e-6)
        assert sign[i] == ref_sign
        assert tuple(centre[i]) == tuple(ref_centre)
        np.testing.assert_allclose(edges[i], ref_edges, rtol=1e-5, atol=1e-6)


def test_rim_search_scores_as_the_plain_statement():
    rng = np.random.default_rng(5)
    h = w = 90
    D = cv2.copyMakeBorder(rng.standard_normal((h, w)).astype(np.float32), PAD, PAD, PAD, PAD,
                           cv2.BORDER_REPLICATE)
    base = np.array([[30.3, 40.8], [55.5, 50.1], [44.9, 28.4]])
    reach, coarse_radii, radii = 6.7, (8.3, 10.2, 11.8, 15.1), (9.0, 11.0, 14.4)
    score, centre = rim_search(D, PAD, base, np.arange(-reach, reach + 1e-6, 2.0), reach, _UNITS[12],
                               np.array(coarse_radii), _UNITS[24], np.array(radii), _FINE.astype(float), 3, 9, 19)
    for i, (ref_score, ref_centre) in enumerate(_rim_search_reference(D, base, reach, coarse_radii, radii)):
        assert score[i] == pytest.approx(ref_score, rel=1e-5, abs=1e-6)
        np.testing.assert_array_equal(centre[i], ref_centre)


# -- tops planted where they must be found ----------------------------------------------------
def test_ring_search_finds_a_planted_disc_edge():
    """A dark disc of radius 10 drawn 3 px right of and 4 px above where a top would be:
    its edge (the change of log-brightness gradient) is found at its centre, with the sign of
    a top darker than the board round it."""
    h = w = 100
    lum = np.full((h, w), 5.0, np.float32)
    cv2.circle(lum, (53, 46), 10, 4.0, -1, lineType=cv2.LINE_AA, shift=0)
    lum = cv2.GaussianBlur(lum, (5, 5), 1.0)
    planes = np.zeros((2, h + 2 * PAD, w + 2 * PAD), np.float32)
    for k, (dx, dy) in enumerate(((1, 0), (0, 1))):
        planes[k, PAD:-PAD, PAD:-PAD] = cv2.Sobel(lum, cv2.CV_32F, dx, dy, ksize=3, scale=0.125)
    score, sign, centre, _ = ring_search(
        planes.reshape(2, -1), w + 2 * PAD, PAD, np.array([[50, 50]]), np.arange(-4, 5) * 2.0, 8.0,
        np.array([10.0]), np.array([1.0]), np.array([0.0]), _FAR_UNITS[16], _FINE, _FAR_UNITS[24],
        np.array([-0.6, 0.0, 0.6]), 2)
    assert tuple(centre[0]) == (53, 46)
    assert sign[0] == 1.0  # darker inside: log-brightness rises outwards
    assert score[0] > 0.05


def test_rim_search_finds_a_planted_white_rim():
    h = w = 100
    D = np.zeros((h, w), np.float32)
    cv2.circle(D, (47, 55), 12, 1.0, 2)
    Dp = cv2.copyMakeBorder(D, PAD, PAD, PAD, PAD, cv2.BORDER_REPLICATE)
    score, centre = rim_search(Dp, PAD, np.array([[50.0, 50.0]]), np.arange(-8.0, 8.0 + 1e-6, 2.0), 8.0,
                               _UNITS[12], np.array([9.3, 11.2, 12.8, 15.2]), _UNITS[24],
                               np.array([10.0, 12.0, 14.5]), _FINE.astype(float), 3, 9, 19)
    assert np.abs(centre[0] - (47, 55)).max() <= 1.0
    assert score[0] > 0.5


def test_disc_offsets_are_the_grid_points_within_reach_in_row_order():
    g = np.arange(-5, 6) * 2.0
    ox, oy = np.meshgrid(g, g)
    inside = ox ** 2 + oy ** 2 <= 7.5 ** 2
    np.testing.assert_array_equal(disc_offsets(g, 7.5), np.stack([ox[inside], oy[inside]], axis=1))


def test_log_channels_are_the_logs_of_the_pixels():
    view = np.random.default_rng(1).integers(0, 256, (37, 53, 3), dtype=np.uint8)
    b, g, r = (view[..., i].astype(np.float32) for i in range(3))
    lum, chroma = _channels(view)
    np.testing.assert_array_equal(lum, cv2.log(b + g + r + 12.0))
    np.testing.assert_array_equal(chroma, cv2.log(r + 8.0) - cv2.log(b + 8.0))
    assert _channels(view, with_chroma=False)[1] is None
    # a view that is a slice of a larger picture reads the same
    big = np.zeros((40, 60, 3), np.uint8)
    big[2:39, 3:56] = view
    np.testing.assert_array_equal(_channels(big[2:39, 3:56])[0], lum)
    assert log_channels(view, _LOG_SUM, _LOG_LEVEL, False)[1].size == 0


# -- the rectified view's maps ----------------------------------------------------------------
def _tilted_camera():
    intr = nominal_intrinsics("pi3", 1280, 720)
    pose = CameraPose.look_at(np.array([90.0, -160.0, 480.0]), np.array([120.0, 110.0, 0.0]), roll_deg=17.0)
    return intr, pose


def test_canvas_maps_take_each_view_pixel_from_where_the_camera_model_puts_it():
    intr, pose = _tilted_camera()
    canvas = Canvas(1.5, -40.0, 280.0, 480, 450)
    m1, m2 = canvas_maps(canvas, intr, pose)
    mx, my = cv2.convertMaps(m1, m2, cv2.CV_32FC1)
    rng = np.random.default_rng(2)
    px = np.stack([rng.integers(0, canvas.width, 300), rng.integers(0, canvas.height, 300)], axis=1)
    mm = canvas.to_mm(px)
    expected = project(np.column_stack([mm, np.zeros(len(mm))]), intr, pose)
    got = np.stack([mx[px[:, 1], px[:, 0]], my[px[:, 1], px[:, 0]]], axis=1)
    # fixed-point maps hold a pixel to 1/32
    assert np.abs(got - expected).max() < 1 / 32 + 1e-3


def test_maps_inside_marks_the_view_pixels_taken_from_the_frame():
    intr, pose = _tilted_camera()
    canvas = Canvas(1.0, -300.0, 500.0, 800, 800)  # reaches well beyond the frame
    maps = canvas_maps(canvas, intr, pose)
    inside = maps_inside(maps, (intr.height, intr.width, 3))
    assert inside.dtype == np.uint8 and set(np.unique(inside)) == {0, 255}
    mm = canvas.to_mm(np.stack(np.meshgrid(np.arange(0, 800, 7), np.arange(0, 800, 7)), axis=-1).reshape(-1, 2))
    uv = project(np.column_stack([mm, np.zeros(len(mm))]), intr, pose)
    px = np.rint(canvas.to_px(mm)).astype(int)
    clear = ((uv[:, 0] > 1) & (uv[:, 1] > 1) & (uv[:, 0] < intr.width - 2) & (uv[:, 1] < intr.height - 2))
    far_out = ((uv[:, 0] < -1) | (uv[:, 1] < -1) | (uv[:, 0] > intr.width) | (uv[:, 1] > intr.height))
    got = inside[px[:, 1], px[:, 0]]
    assert clear.any() and far_out.any()
    assert (got[clear] == 255).all()
    assert (got[far_out] == 0).all()


# -- the colour of a top ---------------------------------------------------------------------
BOARD_BGR = np.array([120.0, 170.0, 205.0])
LIGHT_BGR, DARK_BGR = np.array([150.0, 200.0, 230.0]), np.array([40.0, 60.0, 95.0])
REFS = np.log(np.array([LIGHT_BGR, DARK_BGR]) / BOARD_BGR)
WARM_FROM = float((REFS[:, 2] - REFS[:, 0]).min()) - 0.15


def _vote(view, cx, cy, r):
    return colour_vote(view, cx, cy, r, BOARD_BGR, REFS, WARM_FROM, 0.35, 0.08)


def _vote_reference(view, cx, cy, r):
    """The vote in plain numpy."""
    yy, xx = np.mgrid[0:view.shape[0], 0:view.shape[1]]
    disc = (xx - cx) ** 2 + (yy - cy) ** 2 <= r * r
    v = np.log(np.maximum(view[disc].astype(float), 1.0) / BOARD_BGR)
    warm = v[:, 2] - v[:, 0] >= WARM_FROM
    if warm.sum() >= max(4, len(v) // 4):
        v = v[warm]
    v = v[v.mean(axis=1) <= np.median(v.mean(axis=1))]

    def dist(ref):
        d = v - ref
        lum = d.mean(axis=1)
        return np.sqrt((lum / 0.35) ** 2 + ((d - lum[:, None]) ** 2).sum(axis=1) / 0.08 ** 2)

    return float(np.median(dist(REFS[1]) - dist(REFS[0])))


def _plug(colour, glare_share=0.0):
    view = np.empty((60, 60, 3), np.uint8)
    view[:] = BOARD_BGR
    cv2.circle(view, (30, 30), 12, colour.tolist(), -1)
    if glare_share:
        # a white spot over part of the plug, as a lamp leaves on a varnished top
        cv2.circle(view, (24, 26), int(12 * np.sqrt(glare_share)), (250, 250, 250), -1)
    return view


def test_colour_vote_as_the_plain_statement():
    view = np.random.default_rng(3).integers(20, 250, (50, 50, 3)).astype(np.uint8)
    for cx, cy, r in ((20.3, 24.8, 7.5), (3.2, 46.0, 6.0), (30.0, 30.0, 1.5)):
        assert _vote(view, cx, cy, r) == pytest.approx(_vote_reference(view, cx, cy, r), abs=1e-12)


def test_colour_vote_tells_the_players_apart_past_glare():
    assert _vote(_plug(LIGHT_BGR), 30.0, 30.0, 9.0) > 0
    assert _vote(_plug(DARK_BGR), 30.0, 30.0, 9.0) < 0
    # glare over more than half of a dark plug is left out of the vote
    assert _vote(_plug(DARK_BGR, 0.6), 30.0, 30.0, 9.0) == pytest.approx(_vote(_plug(DARK_BGR), 30.0, 30.0, 9.0))
    assert np.isnan(_vote(_plug(DARK_BGR), -30.0, 30.0, 9.0))  # the disc lies off the view


def test_a_dark_top_under_grey_sheen_is_read_dark():
    """A glossy dark top facing a lamp mirrors it as grey on top of its own colour: here half as
    bright again as the board, and its tint faded towards grey.  Measured plainly, its
    brightness is nearer the light player's; taking off the grey a sheen adds (which can only
    brighten and grey a colour) leaves the dark player's colour, at a cost that keeps a plainly
    light top light."""
    sheen = np.array([70.0, 70.0, 70.0])
    glossy_dark = np.clip(DARK_BGR + sheen, 0, 255)
    plain = colour_vote(_plug(glossy_dark), 30.0, 30.0, 9.0, BOARD_BGR, REFS, WARM_FROM, 0.35, 0.08)
    assert plain > 0  # without the sheen taken off: the light player's
    with_sheen = colour_vote(_plug(glossy_dark), 30.0, 30.0, 9.0, BOARD_BGR, REFS, WARM_FROM, 0.35, 0.08, 0.3)
    assert with_sheen < 0
    for colour, sign in ((LIGHT_BGR, 1), (DARK_BGR, -1), (LIGHT_BGR * 0.85, 1), (DARK_BGR * 1.2, -1)):
        assert sign * colour_vote(_plug(colour), 30.0, 30.0, 9.0, BOARD_BGR, REFS, WARM_FROM, 0.35, 0.08, 0.3) > 0


def _ring_reference(view, cx, cy, r_from, r_to, n_ang, steps):
    """``ring_vote`` in plain numpy: per ray the darkest bilinear sample, its vote, the median."""
    img = view.astype(float)
    votes = []
    for a in range(n_ang):
        u = np.array([np.cos(2 * np.pi * a / n_ang), np.sin(2 * np.pi * a / n_ang)])
        samples = []
        for r in np.linspace(r_from, r_to, steps):
            x, y = cx + r * u[0], cy + r * u[1]
            x0, y0 = int(np.floor(x)), int(np.floor(y))
            if x0 < 0 or y0 < 0 or x0 + 1 >= view.shape[1] or y0 + 1 >= view.shape[0]:
                continue
            fx, fy = x - x0, y - y0
            samples.append((1 - fy) * ((1 - fx) * img[y0, x0] + fx * img[y0, x0 + 1])
                           + fy * ((1 - fx) * img[y0 + 1, x0] + fx * img[y0 + 1, x0 + 1]))
        if not samples:
            continue
        p = min(samples, key=lambda c: c.sum())
        v = np.log(np.maximum(p, 1.0) / BOARD_BGR)

        def dist(ref):
            d = v - ref
            lum = d.mean()
            return np.sqrt((lum / 0.35) ** 2 + ((d - lum) ** 2).sum() / 0.08 ** 2)

        votes.append(dist(REFS[1]) - dist(REFS[0]))
    return float(np.median(votes)) if votes else float("nan")


def _top(flat, rim, r_flat=10, r_rim=13):
    """A solid top from above: a flat disc of colour ``flat`` inside its rounded rim of ``rim``."""
    view = np.empty((60, 60, 3), np.uint8)
    view[:] = BOARD_BGR
    cv2.circle(view, (30, 30), r_rim, rim.tolist(), -1)
    cv2.circle(view, (30, 30), r_flat, flat.tolist(), -1)
    return view


def test_ring_vote_as_the_plain_statement():
    view = np.random.default_rng(5).integers(20, 250, (50, 50, 3)).astype(np.uint8)
    for cx, cy, a, b in ((20.3, 24.8, 6.0, 8.5), (2.2, 46.0, 4.0, 6.0), (30.0, 30.0, 0.0, 1.0)):
        assert ring_vote(view, cx, cy, a, b, 48, 5, BOARD_BGR, REFS, 0.35, 0.08) == pytest.approx(
            _ring_reference(view, cx, cy, a, b, 48, 5), abs=1e-9)
    assert np.isnan(ring_vote(view, -40.0, 30.0, 4.0, 6.0, 48, 5, BOARD_BGR, REFS, 0.35, 0.08))


def test_a_dark_top_grey_with_sheen_shows_its_colour_on_its_rim():
    """A glossy dark top facing the lamp is grey all over its flat top, which the disc's vote
    reads as light even past a typical sheen; its rounded rim, turned away from the mirror
    direction, keeps the dark player's colour, and the ring across the top's edge reads it.
    A light top's rim, a little shaded, stays light."""
    grey = np.clip(DARK_BGR + 130.0, 0, 255)
    sheened = _top(grey, DARK_BGR)
    assert colour_vote(sheened, 30.0, 30.0, 7.0, BOARD_BGR, REFS, WARM_FROM, 0.35, 0.08, 0.3) > 0
    assert ring_vote(sheened, 30.0, 30.0, 10.4, 13.0, 48, 5, BOARD_BGR, REFS, 0.35, 0.08) < 0
    for flat, rim in ((LIGHT_BGR, LIGHT_BGR * 0.8), (np.clip(LIGHT_BGR + 20, 0, 255), LIGHT_BGR)):
        assert ring_vote(_top(flat, rim), 30.0, 30.0, 10.4, 13.0, 48, 5, BOARD_BGR, REFS, 0.35, 0.08) > 0
