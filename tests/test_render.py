"""The synthetic camera: geometry of heights, determinism, ground truth."""

import numpy as np
import pytest

from calibration.locate import detect_markers
from hardware.camera_model import CameraPose, height_scale, nominal_intrinsics, project
from hardware.frames import EndOfStream, FrameSource
from hardware.pieces import load_board, load_piece_set
from hardware.synthetic import SyntheticCamera, random_scene, render_scene


@pytest.mark.parametrize("H,h", [(300.0, 63.5), (500.0, 25.4), (700.0, 45.0)])
def test_top_at_height_appears_scaled(H, h):
    intr = nominal_intrinsics("pi3", 1280, 720)
    intr = type(intr)(intr.fx, intr.fy, intr.cx, intr.cy, intr.width, intr.height)  # no distortion
    pose = CameraPose.look_at(np.array([0.0, 0.0, H]), np.array([0.0, 0.0, 0.0]))
    r = 20.0
    ring = lambda z, cx: np.array([[cx + r * np.cos(a), r * np.sin(a), z] for a in np.linspace(0, 6.28, 9)])
    for cx in (0.0, 60.0):
        low, high = project(ring(0.0, cx), intr, pose), project(ring(h, cx), intr, pose)
        size_low = np.ptp(low[:, 1])
        size_high = np.ptp(high[:, 1])
        assert size_high / size_low == pytest.approx(H / (H - h), rel=1e-6)
        # the centre moves away from the point below the camera by the same factor
        c0 = project(np.array([[cx, 0, 0]]), intr, pose)[0] - [intr.cx, intr.cy]
        c1 = project(np.array([[cx, 0, h]]), intr, pose)[0] - [intr.cx, intr.cy]
        assert np.allclose(c1, c0 * height_scale(H, h), atol=1e-6)


def test_tilted_camera_scales_about_the_nadir():
    intr = nominal_intrinsics("pi3", 1280, 720)
    pose = CameraPose.look_at(np.array([80.0, -150.0, 450.0]), np.array([120.0, 120.0, 0.0]), roll_deg=33)
    H, h = pose.height, 40.0
    n = pose.centre[:2]
    p = np.array([150.0, 60.0])
    seen = project(np.array([[*p, h]]), intr, pose)
    on_board = n + (p - n) * height_scale(H, h)
    assert np.allclose(seen, project(np.array([[*on_board, 0.0]]), intr, pose), atol=1e-6)


def test_render_is_deterministic_and_returns_truth():
    ps = load_piece_set("storer-clear")
    b = load_board(ps.default_board)
    sc = random_scene(ps, b, 11)
    a, ta = render_scene(sc, 5)
    c, _ = render_scene(sc, 5)
    assert a.shape == (720, 1280, 3) and a.dtype == np.uint8
    assert np.array_equal(a, c)
    assert ta.tops == tuple(s[-1] if s else None for s in sc.position)
    assert not any(ta.occluded)
    assert sorted(detect_markers(a, b)) == [0, 1, 2, 3]


def test_hands_hide_squares_in_the_truth():
    ps = load_piece_set("gobblet")
    b = load_board(ps.default_board)
    _, truth = render_scene(random_scene(ps, b, 4, hands=1), 1)
    assert any(truth.occluded)


def test_synthetic_camera_plays_its_script():
    cam = SyntheticCamera(seed=1, pieces="gobblet-jr", still_frames=1, move_frames=2)
    assert isinstance(cam, FrameSource)
    with cam:
        frames = []
        with pytest.raises(EndOfStream):
            while True:
                frames.append(cam.read())
    assert [f.index for f in frames] == list(range(len(frames)))
    assert frames[-1].timestamp > frames[0].timestamp
    assert cam.truth is not None and any(t is not None for t in cam.truth.tops)


def test_random_cameras_cover_the_stated_ranges():
    """Heights 300-700 mm, tilt up to 30 degrees, any rotation; low cameras get the wide module."""
    from hardware.render.scene import random_camera

    ps = load_piece_set("storer-clear")
    b = load_board(ps.default_board)
    rng = np.random.default_rng(0)
    heights, tilts, models = [], [], []
    for _ in range(120):
        intr, pose = random_camera(b, ps, rng)
        heights.append(pose.height)
        axis = pose.R[2]  # the optical axis in board coordinates
        tilts.append(np.degrees(np.arccos(abs(axis[2]))))
        models.append((pose.height, intr.model))
        uv = project(np.array([[0.0, 0.0, 0.0], [b.width_mm, b.depth_mm, 0.0]]), intr, pose)
        assert (uv >= 0).all() and (uv[:, 0] < intr.width).all() and (uv[:, 1] < intr.height).all()
    heights = np.array(heights)
    assert heights.min() < 340 and heights.max() > 660
    assert 300 <= heights.min() and heights.max() <= 700
    # the spread is close to uniform, not pushed up to where the standard lens fits
    assert np.median(heights) < 560
    assert max(tilts) > 22 and max(tilts) <= 30.0 + 1e-6
    assert {m for h, m in models if h < 380} == {"pi3-wide"}
    assert "pi3" in {m for _, m in models}
