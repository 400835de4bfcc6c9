"""The players tell the camera "the table is set as the game shows it" (issue 23): after an
illegal change is alerted on a Cups table, ``POST /api/camera/resync`` makes the live Cups
referee forget the alert and take the next still table as the game's position, and the next
move is refereed from there.  The pages see the wait and its end in the state's ``referee``;
the players' word is journalled (``resync``).  And the route's errors: no camera referee, no
game, another game, a camera that has not seen the table yet, a Gobblet board (its tracker
finds the position by itself), a finished game.

Every frame is drawn by the Cups renderer (seed 5011, the illegal-change stream of
``tests/test_cups_referee.py``); the referee is the real ``CupsReferee`` behind the real
``LiveReferee`` and Flask app."""

from __future__ import annotations

import pytest

from companion.app import create_app
from companion.cups_camera import RESYNC_TEXT, CupsCamera
from companion.demo import calibrate_demo, demo_camera
from companion.live import LiveReferee
from companion.referee import Referee
from companion.services import CompanionConfig
from tests.cups_streams import cups_layout, stream
from tests.test_cups_referee import illegal_tables

TOKEN = "cups-resync-token"
AUTH = {"X-Cupboard-Token": TOKEN}
SEED = 5011


@pytest.fixture(scope="module")
def illegal():
    """South's d3, North's beans put into South's cups (illegal), the table put back, North's d2x."""
    return stream(cups_layout(), illegal_tables()[:5], SEED)


def served(tmp_path, setup, **config):
    """The app with a live referee for Cups games over ``setup`` (frames fed by the test, as
    the camera thread feeds them)."""
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, default_variant="cups", **config))
    services = app.extensions["cupboard"]
    live = LiveReferee(services.hub, None, family_cameras={"cups": CupsCamera(setup)})
    services.attach_live(live)
    return app, services.hub, live


def kinds(hub, since=0):
    return [e.kind for e in hub.session.journal.events[since:]]


def test_after_an_alert_the_players_say_the_table_is_the_games(illegal, tmp_path):
    s = illegal
    app, hub, live = served(tmp_path, s.setup)
    client = app.test_client()
    try:
        state = client.get("/api/state").get_json()
        assert state["referee"] == {"resync": False, "waiting": None}  # no frame of the game seen yet
        r = client.post("/api/camera/resync", json={"game": state["game"]}, headers=AUTH)
        assert r.status_code == 409 and "not refereeing this game" in r.get_json()["error"]

        live.on_frame(s.frames[0])  # the camera takes up the game: the pages hear it at once
        assert client.get("/api/state").get_json()["referee"] == {"resync": True, "waiting": None}

        put_back = s.steps.index(3)  # the first frame of the table put back
        for frame in s.frames[1:put_back]:
            live.on_frame(frame)
        assert kinds(hub).count("illegal") == 1 and hub.session.board.ply == 1
        alert = [e for e in hub.session.journal.events if e.kind == "illegal"][0]
        state = client.get("/api/state").get_json()
        assert state["referee"] == {"resync": True, "waiting": alert.text}
        assert "never into South's" in alert.text and alert.text.endswith("put the table back as the game shows it")

        game = state["game"]
        r = client.post("/api/camera/resync", json={"game": game})
        assert r.status_code == 401
        r = client.post("/api/camera/resync", json={"game": "0"}, headers=AUTH)
        assert r.status_code == 409 and "is over or was replaced" in r.get_json()["error"]
        assert client.get("/api/state").get_json()["referee"]["waiting"] == alert.text  # nothing changed

        seen = len(hub.session.journal.events)
        r = client.post("/api/camera/resync", json={"game": game}, headers=AUTH)
        assert r.status_code == 200, r.get_json()
        body = r.get_json()
        assert body["resynced"] is True
        assert body["state"]["referee"] == {"resync": True, "waiting": None}  # the alert is gone
        assert body["state"]["pending"] is None
        (said,) = hub.session.journal.events[seen:]
        assert (said.kind, said.text) == ("resync", RESYNC_TEXT)
        assert said.data["position"] == hub.session.board.text()

        for frame in s.frames[put_back:]:  # the table put back, then North's d2x
            live.on_frame(frame)
        moves = [(e.data["move"], e.data["notes"]["source"]) for e in hub.session.journal.events if e.kind == "move"]
        assert moves == [("d3", "camera"), ("d2x", "camera")]
        assert kinds(hub, seen) == ["resync", "move"]  # the table put back taken as the game's: no alert
        assert client.get("/api/state").get_json()["referee"] == {"resync": True, "waiting": None}

        hub.session.resign()  # a finished game: nothing more to watch for
        assert client.get("/api/state").get_json()["referee"] == {"resync": False, "waiting": None}
        r = client.post("/api/camera/resync", json={}, headers=AUTH)
        assert r.status_code == 409 and r.get_json()["error"] == (
            "the game is over: the camera has no more moves to watch for")
    finally:
        hub.close()


def test_a_move_tapped_in_ends_the_wait_in_the_state(illegal, tmp_path):
    """The players may also tap the move in: the page stops showing the alert at once (the
    referee reads the next still table afresh)."""
    s = illegal
    app, hub, live = served(tmp_path, s.setup)
    client = app.test_client()
    try:
        for frame in s.frames[:s.steps.index(3)]:
            live.on_frame(frame)
        assert client.get("/api/state").get_json()["referee"]["waiting"] is not None
        r = client.post("/api/game/move", json={"move": "d2"}, headers=AUTH)
        assert r.status_code == 200
        assert r.get_json()["state"]["referee"] == {"resync": True, "waiting": None}
    finally:
        hub.close()


def test_a_cups_table_has_no_squares_in_doubt(illegal, tmp_path):
    """A Cups referee asks no square in doubt (that is a board of pieces' question): an
    answer about one gets a 409 that says so, not a server error, and changes nothing."""
    s = illegal
    app, hub, live = served(tmp_path, s.setup)
    client = app.test_client()
    try:
        live.on_frame(s.frames[0])
        assert client.get("/api/state").get_json()["pending"] is None
        seen = len(hub.session.journal.events)
        r = client.post("/api/camera/doubt", json={"square": "d1", "game_is_right": True}, headers=AUTH)
        assert r.status_code == 409 and r.get_json()["error"] == "the camera asks about no square in doubt in this game"
        assert len(hub.session.journal.events) == seen
    finally:
        hub.close()


def test_without_a_camera_referee_or_a_game(illegal, tmp_path):
    app = create_app(CompanionConfig(tmp_path / "plain", token=TOKEN, default_variant="cups"))
    try:
        client = app.test_client()
        r = client.post("/api/camera/resync", json={}, headers=AUTH)
        assert r.status_code == 404 and "no camera referee" in r.get_json()["error"]
        assert client.get("/api/state").get_json()["referee"] is None
    finally:
        app.extensions["cupboard"].hub.close()
    app, hub, live = served(tmp_path / "none", illegal.setup, start_game=False)
    try:
        r = app.test_client().post("/api/camera/resync", json={}, headers=AUTH)
        assert r.status_code == 404 and "no game in progress" in r.get_json()["error"]
        r = app.test_client().post("/api/camera/resync", data="[]", content_type="application/json", headers=AUTH)
        assert r.status_code == 400 and r.get_json()["error"] == "the request body must be a JSON object"
    finally:
        hub.close()


def test_a_cups_table_not_calibrated_says_why(illegal, tmp_path):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, default_variant="cups"))
    services = app.extensions["cupboard"]
    live = LiveReferee(services.hub, None, family_cameras={"cups": CupsCamera(None, "calibrate the Cups table first")})
    services.attach_live(live)
    try:
        live.on_frame(illegal.frames[0])  # a frame of the table: there is no set-up to read it with
        r = app.test_client().post("/api/camera/resync", json={}, headers=AUTH)
        assert r.status_code == 409
        assert r.get_json()["error"] == ("the camera cannot referee Cups (4 cups, 40 beans each): calibrate the "
                                         "Cups table first; tap the moves in")
    finally:
        services.hub.close()


def test_a_gobblet_board_is_not_resynced(tmp_path):
    """The Gobblet tracker finds the game's position on the board by itself (a resumed game
    waits until the board matches it), and a square it keeps misreading is answered as a doubt:
    taking whatever the board shows as the game's would take a misread for the truth."""
    camera, _ = demo_camera("gobblet-jr", seed=2)
    try:
        calibration = calibrate_demo(camera)
    finally:
        camera.close()
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, default_variant="gobblet-jr"))
    services = app.extensions["cupboard"]
    live = LiveReferee(services.hub, calibration)
    services.attach_live(live)
    try:
        live.referee = Referee(services.hub.session, live.reading)
        client = app.test_client()
        services.hub.refresh()
        assert client.get("/api/state").get_json()["referee"] == {"resync": False, "waiting": None}
        r = client.post("/api/camera/resync", json={}, headers=AUTH)
        assert r.status_code == 409 and "answer the squares it doubts" in r.get_json()["error"]
        assert [e.kind for e in services.hub.session.journal.events if e.kind == "resync"] == []
    finally:
        services.hub.close()
