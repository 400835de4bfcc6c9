"""Settling a detection from the phone: the pending candidates in every page's state,
confirm / dismiss through the routes (token, errors), a tapped move clearing it; the lifted
piece and the flipped board in the state."""

import pytest

from companion.app import create_app
from companion.services import CompanionConfig
from companion.demo import calibrate_demo, demo_camera
from companion.live import LiveReferee
from companion.referee import Referee
from engine import variant
from vision.tracking import Ambiguous, Explained, TrackEvent

TOKEN = "ref-token"
AUTH = {"X-Cupboard-Token": TOKEN}


@pytest.fixture(scope="module")
def calibration():
    camera, _ = demo_camera("gobblet-jr", seed=2)
    try:
        return calibrate_demo(camera)
    finally:
        camera.close()


@pytest.fixture
def app(tmp_path, calibration):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, default_variant="gobblet-jr"))
    services = app.extensions["cupboard"]
    services.attach_live(LiveReferee(services.hub, calibration))
    yield app
    services.hub.close()


def raise_detection(app, kind, *candidates):
    """Have the live referee act on a tracker event as it does for camera frames: ``pending``
    (one low-confidence candidate) or ``ambiguous`` (several), each candidate move text."""
    services = app.extensions["cupboard"]
    live, session = services.live, services.hub.session
    if live.referee is None or live.referee.session is not session:
        live.referee = Referee(session, live.reading)
    board = session.board
    verdicts = [Explained((board.parse_move(text),), 0.4) for text in candidates]
    if kind == "pending":
        event = TrackEvent("pending", 1.0, candidates[0], verdicts[0], (verdicts[0].moves[0].to,), 0.4)
    else:
        event = TrackEvent("ambiguous", 1.0, f"the board fits {' or '.join(candidates)}", Ambiguous(tuple(verdicts)))
    with session.lock:
        live.referee._act(event)


def test_pending_detection_is_in_the_state_and_confirmed(app):
    client = app.test_client()
    raise_detection(app, "pending", "3b2")
    state = client.get("/api/state").get_json()
    pending = state["pending"]
    assert pending["reason"] == "not sure: 3b2?" and pending["squares"] == ["b2"]
    assert [c["text"] for c in pending["candidates"]] == ["3b2"]
    assert pending["candidates"][0]["moves"] == [{"size": 3, "from": None, "to": "b2", "text": "3b2"}]
    assert client.get("/api/camera/pending").get_json()["pending"] == pending
    journal = app.extensions["cupboard"].hub.session.journal.events
    assert journal[-1].kind == "pending" and journal[-1].data["candidates"] == [["3b2"]]

    r = client.post("/api/camera/confirm", json={"index": 0, "game": state["game"]}, headers=AUTH)
    assert r.status_code == 200, r.get_json()
    after = r.get_json()["state"]
    assert after["pending"] is None and [m["text"] for m in after["moves"]] == ["3b2"]
    move = [e for e in app.extensions["cupboard"].hub.session.journal.events if e.kind == "move"][-1]
    assert move.data["notes"]["source"] == "confirmed"
    r = client.post("/api/camera/confirm", json={"index": 0}, headers=AUTH)
    assert r.status_code == 409 and "no detected move" in r.get_json()["error"]


def test_choose_one_of_ambiguous_candidates(app):
    client = app.test_client()
    raise_detection(app, "ambiguous", "3a1", "3c3")
    assert [c["text"] for c in client.get("/api/state").get_json()["pending"]["candidates"]] == ["3a1", "3c3"]
    r = client.post("/api/camera/confirm", json={"index": 2}, headers=AUTH)
    assert r.status_code == 422 and "from 0 to 1" in r.get_json()["error"]
    r = client.post("/api/camera/confirm", json={"index": 1}, headers=AUTH)
    assert r.status_code == 200
    assert r.get_json()["state"]["last_move"] == {"size": 3, "from": None, "to": "c3"}


def test_confirm_and_dismiss_refuse_bad_requests(app):
    client = app.test_client()
    raise_detection(app, "pending", "3b2")
    for path in ("/api/camera/confirm", "/api/camera/dismiss"):
        r = client.post(path, json={"index": 0})
        assert r.status_code == 401 and "token" in r.get_json()["error"]
        r = client.post(path, json={"index": 0}, headers={"X-Cupboard-Token": "wrong"})
        assert r.status_code == 403 and r.get_json()["error"].startswith("wrong token")
        r = client.post(path, data="{not json", headers={**AUTH, "Content-Type": "application/json"})
        assert r.status_code == 400 and "JSON object" in r.get_json()["error"]
        r = client.post(path, json={}, headers={**AUTH, "Origin": "http://evil.example"})
        assert r.status_code == 403 and "refused" in r.get_json()["error"]
        r = client.post(path, json={"game": "0"}, headers=AUTH)
        assert r.status_code == 409 and "replaced" in r.get_json()["error"]
    for index in ("0", True, None, 1.5):
        r = client.post("/api/camera/confirm", json={"index": index}, headers=AUTH)
        assert r.status_code == 400 and "index" in r.get_json()["error"]
    assert client.get("/api/state").get_json()["pending"] is not None  # nothing was spent


def test_dismiss_clears_the_detection(app):
    client = app.test_client()
    r = client.post("/api/camera/dismiss", json={}, headers=AUTH)
    assert r.status_code == 409 and r.get_json()["error"] == "there is no detected move waiting"
    raise_detection(app, "pending", "3b2")
    r = client.post("/api/camera/dismiss", json={}, headers=AUTH)
    assert r.status_code == 200 and r.get_json()["state"]["pending"] is None
    assert client.get("/api/state").get_json()["pending"] is None
    assert client.get("/api/state").get_json()["moves"] == []


def test_a_tapped_move_settles_the_detection(app):
    client = app.test_client()
    raise_detection(app, "pending", "3b2")
    r = client.post("/api/game/move", json={"size": 2, "from": None, "to": "a1"}, headers=AUTH)
    assert r.status_code == 200
    state = client.get("/api/state").get_json()
    assert state["pending"] is None and state["moves"][0]["text"] == "2a1"
    # an illegal tap leaves the detection in place
    raise_detection(app, "pending", "3b2")
    r = client.post("/api/game/move", json={"size": 2, "from": None, "to": "a1"}, headers=AUTH)
    assert r.status_code == 422
    assert client.get("/api/state").get_json()["pending"] is not None


def test_without_a_camera_referee_the_routes_answer_404(tmp_path):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN))
    client = app.test_client()
    try:
        for method, path in (("GET", "/api/camera/pending"), ("POST", "/api/camera/confirm"), ("POST", "/api/camera/dismiss")):
            r = client.open(path, method=method, json={"index": 0}, headers=AUTH)
            assert r.status_code == 404 and "no camera referee" in r.get_json()["error"]
        assert client.get("/api/state").get_json()["pending"] is None
    finally:
        app.extensions["cupboard"].hub.close()


def test_lifted_piece_and_flipped_board(app):
    client = app.test_client()
    hub = app.extensions["cupboard"].hub
    hub.session.play("3b2")
    hub.session.alert("lifted", "b2 lifted", {"square": 4})
    state = client.get("/api/state").get_json()
    assert state["lifted"] == "b2"
    assert '<circle class="lifted" data-square="b2"' in state["svg"]
    assert state["svg_flipped"] != state["svg"] and "b2" in state["svg_flipped"]
    hub.session.play("3a1")
    assert client.get("/api/state").get_json()["lifted"] is None
    hub.new_game(variant("gobblet-jr"), {})
    assert client.get("/api/state").get_json()["lifted"] is None
