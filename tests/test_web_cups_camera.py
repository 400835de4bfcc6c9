"""The refereeing camera and Cups: the camera does not referee Cups yet, and says so because
the family says so (``Family.camera_referee``).  A Cups game is refused while the camera
referees; with the camera paused it is played by tapping, and frames that still arrive leave
it alone and name the reason in the camera's health."""

import pytest

from companion.app import create_app
from companion.demo import calibrate_demo, demo_camera
from companion.live import LiveReferee
from companion.services import CompanionConfig
from companion.web.preview import PreviewCamera
from engine import family

TOKEN = "cups-camera-token"
AUTH = {"X-Cupboard-Token": TOKEN}


@pytest.fixture
def setup(tmp_path):
    source, rules = demo_camera("gobblet-jr", seed=2)
    calibration = calibrate_demo(source)
    frame = source.read()
    source.close()
    camera = PreviewCamera(source)
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, camera=camera, default_variant="gobblet-jr"))
    services = app.extensions["cupboard"]
    live = LiveReferee(services.hub, calibration, None, 0)
    services.attach_live(live)
    yield app, live, camera, frame
    services.hub.close()


def test_the_camera_says_it_does_not_referee_cups(setup):
    app, live, camera, frame = setup
    assert family("cups").camera_referee is False and family("gobblet").camera_referee is True
    client = app.test_client()
    before = client.get("/api/state").get_json()["game"]
    r = client.post("/api/game/new", json={"variant": "cups"}, headers=AUTH)
    assert r.status_code == 422
    error = r.get_json()["error"]
    assert "the camera does not referee Cups (4 cups, 40 beans each) yet" in error and "pause" in error
    assert client.get("/api/state").get_json()["game"] == before

    assert client.post("/api/camera/pause", json={"paused": True}, headers=AUTH).status_code == 200
    r = client.post("/api/game/new", json={"variant": "cups", "options": {"cups": 3}}, headers=AUTH)
    assert r.status_code == 201
    live.on_frame(frame)  # a frame that arrives all the same: no referee for this game
    assert live.referee is None
    assert live.problem == "the camera does not referee Cups (3 cups, 30 beans each) yet: tap the moves in"
    assert camera.referee_figures == {"error": live.problem}
    r = client.post("/api/game/move", json={"move": "d3"}, headers=AUTH)
    assert r.status_code == 200 and r.get_json()["state"]["ply"] == 1
