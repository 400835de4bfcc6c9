"""A new game the refereeing camera cannot follow (its calibrated set has fewer sizes than the
game) is refused with a clear 422; with the camera paused it is played by tapping."""

import pytest

from companion.app import create_app
from companion.services import CompanionConfig
from companion.demo import calibrate_demo, demo_camera
from companion.live import LiveReferee
from companion.web.preview import PreviewCamera

TOKEN = "set-token"
AUTH = {"X-Cupboard-Token": TOKEN}


@pytest.fixture
def app(tmp_path):
    source, rules = demo_camera("gobblet-jr", seed=2)
    calibration = calibrate_demo(source)  # the Jr. set: 3 sizes
    source.close()
    camera = PreviewCamera(source)  # the camera thread is not needed to start a game
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, camera=camera, default_variant="gobblet-jr"))
    services = app.extensions["cupboard"]
    services.attach_live(LiveReferee(services.hub, calibration, rules, 0))
    yield app
    services.hub.close()


def test_a_game_the_camera_cannot_follow_is_refused_unless_paused(app):
    client = app.test_client()
    before = client.get("/api/state").get_json()["game"]
    r = client.post("/api/game/new", json={"variant": "gobblet"}, headers=AUTH)
    assert r.status_code == 422
    error = r.get_json()["error"]
    assert "cannot referee gobblet: the piece set 'gobblet-jr' has 3 sizes; this game needs 4" in error
    assert "pause" in error
    assert client.get("/api/state").get_json()["game"] == before  # nothing changed

    r = client.post("/api/game/new", json={"variant": "gobblet-jr"}, headers=AUTH)
    assert r.status_code == 201  # a game the set can play

    assert client.post("/api/camera/pause", json={"paused": True}, headers=AUTH).status_code == 200
    r = client.post("/api/game/new", json={"variant": "gobblet"}, headers=AUTH)
    assert r.status_code == 201 and r.get_json()["state"]["rules"]["sizes"] == 4
