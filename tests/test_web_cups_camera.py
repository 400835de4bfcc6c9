"""The refereeing camera and Cups: the camera referees Cups from a Cups table's own set-up
(``companion.cups_camera``).  A camera calibrated only for a board of pieces refuses a Cups
game while it referees, saying to calibrate the table; with the camera paused the game is
played by tapping, and frames that still arrive leave it alone and name the reason in the
camera's health.  A camera whose Cups table is not calibrated yet lets the game start and
says so in its health."""

import pytest

from companion.app import create_app
from companion.cups_camera import CupsCamera, CupsSetupMissing, cups_setup
from companion.demo import calibrate_demo, demo_camera
from companion.live import LiveReferee
from companion.services import CompanionConfig
from companion.web.preview import PreviewCamera
from engine import family

TOKEN = "cups-camera-token"
AUTH = {"X-Cupboard-Token": TOKEN}


def make(tmp_path, family_cameras=None):
    source, rules = demo_camera("gobblet-jr", seed=2)
    calibration = calibrate_demo(source)
    frame = source.read()
    source.close()
    camera = PreviewCamera(source)
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, camera=camera, default_variant="gobblet-jr"))
    services = app.extensions["cupboard"]
    live = LiveReferee(services.hub, calibration, None, 0, family_cameras=family_cameras)
    services.attach_live(live)
    return app, live, camera, frame


@pytest.fixture
def setup(tmp_path):
    app, live, camera, frame = make(tmp_path)
    yield app, live, camera, frame
    app.extensions["cupboard"].hub.close()


def test_a_camera_calibrated_for_pieces_asks_for_the_cups_table(setup):
    app, live, camera, frame = setup
    assert family("cups").camera_referee is True and family("gobblet").camera_referee is True
    client = app.test_client()
    before = client.get("/api/state").get_json()["game"]
    r = client.post("/api/game/new", json={"variant": "cups"}, headers=AUTH)
    assert r.status_code == 422
    error = r.get_json()["error"]
    assert "not for Cups (4 cups, 40 beans each): calibrate its table first" in error and "pause" in error
    assert client.get("/api/state").get_json()["game"] == before

    assert client.post("/api/camera/pause", json={"paused": True}, headers=AUTH).status_code == 200
    r = client.post("/api/game/new", json={"variant": "cups", "options": {"cups": 3}}, headers=AUTH)
    assert r.status_code == 201
    live.on_frame(frame)  # a frame that arrives all the same: no referee for this game
    assert live.referee is None
    assert live.problem == ("the camera is calibrated for a board of pieces, not for Cups (3 cups, 30 beans each): "
                            "calibrate its table first, or tap the moves in")
    assert camera.referee_figures == {"error": live.problem}
    r = client.post("/api/game/move", json={"move": "d3"}, headers=AUTH)
    assert r.status_code == 200 and r.get_json()["state"]["ply"] == 1


def test_a_cups_table_not_calibrated_yet_is_said_in_the_health(tmp_path):
    with pytest.raises(CupsSetupMissing, match="calibrate the Cups table first"):
        cups_setup(None, tmp_path)
    app, live, camera, frame = make(tmp_path, {"cups": CupsCamera(None, "calibrate the Cups table first")})
    try:
        client = app.test_client()
        r = client.post("/api/game/new", json={"variant": "cups"}, headers=AUTH)
        assert r.status_code == 201  # the game starts: the camera says what it lacks
        live.on_frame(frame)
        assert live.referee is None
        assert live.problem == ("the camera cannot referee Cups (4 cups, 40 beans each): calibrate the Cups table "
                                "first; tap the moves in")
        assert camera.referee_figures == {"error": live.problem}
        r = client.post("/api/game/move", json={"move": "d2"}, headers=AUTH)
        assert r.status_code == 200 and r.get_json()["state"]["ply"] == 1
    finally:
        app.extensions["cupboard"].hub.close()
