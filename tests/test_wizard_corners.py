"""Calibration without markers: the four outer corners tapped on a still frame give the camera
pose (``calibration.corners``), through the wizard's routes too.  The frames come from the
synthetic renderer with the markers painted over, the taps are the true corners' projections
with a few pixels of noise."""

from dataclasses import replace

import cv2
import numpy as np
import pytest
from conftest import AUTH, started_camera

from calibration.corners import (
    board_corners_world,
    calibrate_from_corners,
    check_corner_points,
)
from calibration.locate import detect_markers
from calibration.model import CalibrationError, load_calibration
from hardware.camera_model import project
from hardware.frames import Frame
from hardware.markers import marker_corners_world, tile_side
from hardware.render.scene import centred_offsets
from hardware.synthetic import SyntheticCamera, render_scene
from vision.observation import CUP
from vision.recognise import Recogniser

EMPTY = tuple(() for _ in range(9))


def hide_markers(image: np.ndarray, cam: SyntheticCamera) -> np.ndarray:
    """``image`` with every marker tile painted the colour of the wood: a board without markers."""
    out = image.copy()
    truth = cam.truth
    wood = np.median(image[image.shape[0] // 2 - 5:image.shape[0] // 2 + 5, :].reshape(-1, 3), axis=0)
    grow = tile_side(cam.board) / cam.board.markers.size_mm
    for corners in marker_corners_world(cam.board).values():
        centre = corners.mean(axis=0)
        tile = centre + (corners - centre) * grow
        uv = project(tile, truth.intrinsics, truth.pose)
        cv2.fillConvexPoly(out, np.round(uv).astype(np.int32), [int(v) for v in wood])
    return out


class MarkerlessCamera(SyntheticCamera):
    """The synthetic camera over a board whose markers are covered."""

    def read(self) -> Frame:
        frame = super().read()
        return replace(frame, image=hide_markers(frame.image, self))


def true_corners(cam: SyntheticCamera) -> np.ndarray:
    truth = cam.truth
    return project(board_corners_world(cam.board), truth.intrinsics, truth.pose)


def tapped(cam: SyntheticCamera, seed: int = 3, noise_px: float = 2.5) -> np.ndarray:
    return true_corners(cam) + np.random.default_rng(seed).normal(0.0, noise_px, (4, 2))


def test_four_tapped_corners_give_the_pose_and_recognition_reads_cups():
    cups = ((), ((1, 2),), (), ((0, 0),), (), (), ((0, 1),), (), ())
    cam = SyntheticCamera(script=[EMPTY], pieces="gobblet-jr", seed=7, difficulty=0.3)
    cam.open()
    seen = cam.read().image
    empty = hide_markers(seen, cam)
    assert detect_markers(empty, cam.board) == {}
    truth = cam.truth
    cal = calibrate_from_corners([empty], tapped(cam).tolist(), cam.pieces, cam.board)
    assert cal.markers_seen == () and cal.reprojection_error_px < 6
    # four taps a few pixels off on a board ~350 px wide fix the height to a few per cent
    assert abs(cal.camera_height_mm - truth.pose.height) < 0.06 * truth.pose.height
    assert np.linalg.norm(cal.pose.centre - truth.pose.centre) < 40
    # the squares land about where the renderer put them (the taps themselves are up to ~6 px off)
    centres = np.array([[*cam.board.square_centre(i), 0.0] for i in range(9)])
    drift = np.linalg.norm(project(centres, cal.intrinsics, cal.pose) - project(centres, truth.intrinsics, truth.pose), axis=1)
    assert drift.max() < 8, drift

    # recognition still finds the board in each frame by its markers (vision.recognise), so it
    # is checked on a frame whose markers are left in but ignored by the calibration, with taps
    # on the corners to 0.1 px: a few pixels off, the reference picture (made with the tapped
    # pose) and the frames (read with the markers' pose) disagree enough for a phantom cup
    cal = calibrate_from_corners([seen], np.round(true_corners(cam), 1).tolist(), cam.pieces, cam.board)
    scene = replace(cam.base, position=cups, offsets=centred_offsets(cups), hands=())
    image, _ = render_scene(scene, 11)
    obs = Recogniser(cal).recognise(image)
    assert obs.board_found
    read = {i: (r.colour, r.size) for i, r in enumerate(obs.squares) if r.state == CUP}
    assert read == {1: (1, 2), 3: (0, 0), 6: (0, 1)}


@pytest.mark.parametrize("points, words", [
    ([[10, 10], [20, 10], [20, 20]], "exactly four"),
    ([[10, 10], [2000, 10], [200, 200], [10, 200]], "outside"),
    ([[10, 10], [100, 10], [200, 10], [300, 10]], "too close"),
    ([[10, 10], [200, 200], [200, 10], [10, 200]], "convex"),
])
def test_bad_corner_taps_are_refused_with_a_reason(points, words):
    with pytest.raises(CalibrationError, match=words):
        check_corner_points(points, 1280, 720)


@pytest.fixture(scope="module")
def camera():
    cam = started_camera(MarkerlessCamera(script=[EMPTY], pieces="gobblet-jr", loop=True, seed=7))
    yield cam
    cam.stop()


@pytest.fixture
def app(camera_app):
    return camera_app


def test_the_wizard_calibrates_from_tapped_corners(app, camera, tmp_path):
    client = app.test_client()
    page = client.get("/calibrate").get_data(as_text=True)
    assert 'id="btn-still"' in page and "Tap the four corners" in page and "corner-diagram" in page
    status = client.get("/api/calibration").get_json()
    assert status["markers"]["found"] is False and status["markers"]["seen"] == []
    assert status["still"] is None

    r = client.post("/api/calibration/still", json={}, headers=AUTH)
    assert r.status_code == 200, r.get_json()
    still = r.get_json()
    assert (still["width"], still["height"]) == (1280, 720)
    jpeg = client.get(still["url"])
    assert jpeg.status_code == 200 and jpeg.mimetype == "image/jpeg" and jpeg.data[:2] == b"\xff\xd8"
    assert client.get("/api/calibration").get_json()["still"] == still["frame"]

    source = camera.source
    points = tapped(source).tolist()
    r = client.post("/api/calibration/corners", json={"points": points, "frame": still["frame"]}, headers=AUTH)
    assert r.status_code == 200, r.get_json()
    draft = r.get_json()["draft"]
    assert draft["method"] == "corners" and draft["markers"] == [] and draft["set"] == "gobblet-jr"
    assert abs(draft["camera_height_mm"] - source.truth.pose.height) < 0.06 * source.truth.pose.height

    r = client.post("/api/calibration/save", json={}, headers=AUTH)
    assert r.status_code == 200, r.get_json()
    saved = load_calibration(tmp_path / "calibration.json")
    assert saved.markers_seen == () and abs(saved.camera_height_mm - source.truth.pose.height) < 0.06 * source.truth.pose.height


def test_corner_taps_answer_clear_json_errors(app, camera):
    client = app.test_client()
    good = tapped(camera.source).tolist()
    assert client.post("/api/calibration/corners", json={"points": good}).status_code == 401
    frame = client.post("/api/calibration/still", json={}, headers=AUTH).get_json()["frame"]
    cases = [
        ({"points": good[:3]}, 400, "four corners, got 3"),
        ({"points": "corners"}, 400, "[x, y]"),
        ({"points": [[1, 2, 3]] * 4}, 400, "[x, y]"),
        ({"points": [[10 ** 400, 2]] * 4}, 400, "[x, y]"),  # too large for a float: no position
        ({"points": good, "frame": "x"}, 400, "frame"),
        ({"points": good, "frame": frame + 100}, 409, "take a new one"),
        ({"points": [[x + 5000, y] for x, y in good]}, 422, "outside"),
        ({"points": [good[0]] * 4}, 422, "too close"),
        ({"points": good[::-1]}, 422, "wrong way"),
        ({"points": [good[0], good[2], good[1], good[3]]}, 422, "convex"),
    ]
    for body, code, words in cases:
        r = client.post("/api/calibration/corners", json=body, headers=AUTH)
        assert r.status_code == code and words in r.get_json()["error"], (body, r.get_json())
    assert client.get("/api/calibration").get_json()["draft"] is None  # nothing half-made is kept
    assert client.get(f"/api/calibration/still/{frame + 100}.jpg").status_code == 404
