"""The calibration wizard on the demo camera: markers found, capture the empty board and
calibrate, check, save into the data folder (atomically) and referee with it; every step that
changes anything needs the token, and steps out of order answer clear JSON errors."""

import time

import pytest
from conftest import AUTH, TOKEN, started_camera

from calibration.model import load_calibration
from companion.app import CompanionConfig, create_app
from hardware.synthetic import SyntheticCamera


@pytest.fixture(scope="module")
def camera():
    empty = tuple(() for _ in range(9))
    cam = started_camera(SyntheticCamera(script=[empty], pieces="gobblet-jr", loop=True, seed=7))
    yield cam
    cam.stop()


@pytest.fixture
def app(camera_app):
    return camera_app


def test_capture_calibrate_check_and_save(app, camera, tmp_path):
    client = app.test_client()
    status = client.get("/api/calibration").get_json()
    assert status["markers"]["found"] and status["markers"]["seen"] == [0, 1, 2, 3]
    assert status["set"] == "gobblet-jr" and status["draft"] is None and status["saved"] is False

    r = client.post("/api/calibration/empty", json={"frames": 2, "set": "gobblet-jr"}, headers=AUTH)
    assert r.status_code == 200, r.get_json()
    draft = r.get_json()["draft"]
    assert r.get_json()["empty_frames"] == 2
    assert draft["markers"] == [0, 1, 2, 3] and draft["reprojection_error_px"] < 2
    assert 300 < draft["camera_height_mm"] < 900

    r = client.post("/api/calibration/check", json={}, headers=AUTH)
    check = r.get_json()
    assert r.status_code == 200 and check["board_found"] and check["cups"] == []
    assert check["sizes_missing"] == [1, 2, 3] and check["ok"] is False

    r = client.post("/api/calibration/save", json={}, headers=AUTH)
    assert r.status_code == 200, r.get_json()
    path = tmp_path / "calibration.json"
    saved = load_calibration(path)
    assert saved.pieces.name == "gobblet-jr" and saved.markers_seen == (0, 1, 2, 3)
    assert not list(tmp_path.glob("*.tmp"))
    services = app.extensions["cupboard"]
    assert services.live is not None and services.live.calibration is not None
    assert camera.on_frame == services.live.on_frame and camera.overlay == services.live.draw_overlay
    status = client.get("/api/calibration").get_json()
    assert status["saved"] and status["active"]["markers"] == [0, 1, 2, 3]
    deadline = time.monotonic() + 20  # the referee reads frames with the new calibration
    while services.live.referee is None or services.live.referee.last_observation is None:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert services.live.referee.last_observation.board_found


def test_steps_need_the_token_and_their_order(app):
    client = app.test_client()
    for step in ("empty", "colours", "check", "save"):
        r = client.post(f"/api/calibration/{step}", json={})
        assert r.status_code == 401 and "token" in r.get_json()["error"]
        r = client.post(f"/api/calibration/{step}", json={}, headers={"X-Cupboard-Token": "nope"})
        assert r.status_code == 403
    for step in ("colours", "check", "save"):
        r = client.post(f"/api/calibration/{step}", json={}, headers=AUTH)
        assert r.status_code == 409 and "empty board first" in r.get_json()["error"]
    r = client.post("/api/calibration/empty", data="[", headers={**AUTH, "Content-Type": "application/json"})
    assert r.status_code == 400 and "JSON object" in r.get_json()["error"]
    for frames in (0, 99, "3", True):
        r = client.post("/api/calibration/empty", json={"frames": frames}, headers=AUTH)
        assert r.status_code == 400 and "frames" in r.get_json()["error"]
    r = client.post("/api/calibration/empty", json={"set": "chess"}, headers=AUTH)
    assert r.status_code == 422 and "unknown piece set" in r.get_json()["error"]
    assert client.get("/calibrate").status_code == 200


def test_without_a_camera_the_wizard_answers_404(tmp_path):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN))
    try:
        r = app.test_client().post("/api/calibration/empty", json={}, headers=AUTH)
        assert r.status_code == 404 and "no camera" in r.get_json()["error"]
        assert app.test_client().get("/api/calibration").status_code == 404
    finally:
        app.extensions["cupboard"].hub.close()
