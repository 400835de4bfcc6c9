"""The game clock through the real app, driven by a time function the test moves on: only the
side to move's time runs, it stops with the camera and while the camera waits for an answer,
a flag fall ends the game on time (journalled and recorded), and the clocks come back after a
restart."""

import pytest
from conftest import AUTH, TOKEN, started_camera

from companion.app import create_app
from companion.clock import ClockError, TimeControl, clock_text, parse_clock
from companion.services import CompanionConfig
from engine.record import load_records


class Time:
    """A clock the test moves on by hand."""

    def __init__(self) -> None:
        self.now = 5000.0

    def __call__(self) -> float:
        return self.now

    def wait(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def ticking():
    return Time()


def make_app(tmp_path, ticking, **config):
    return create_app(CompanionConfig(tmp_path, token=TOKEN, clock_time=ticking, **config))


@pytest.fixture
def app(tmp_path, ticking):
    app = make_app(tmp_path, ticking)
    yield app
    app.extensions["cupboard"].hub.close()


def new_clock_game(client, minutes=1, increment=2):
    r = client.post("/api/game/new", json={"variant": "gobblet", "white": "Ann", "black": "Bob",
                                           "clock_minutes": minutes, "clock_increment": increment}, headers=AUTH)
    assert r.status_code == 201, r.get_json()
    return r.get_json()["state"]


def clocks(client):
    c = client.get("/api/clock").get_json()["clock"]
    return c["white"], c["black"], c["running"]


def move(client, text):
    r = client.post("/api/game/move", json={"move": text}, headers=AUTH)
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_time_controls_and_clock_texts():
    assert TimeControl.from_minutes(5, 2) == TimeControl(300.0, 2.0) and TimeControl(300, 2).tag == "300+2"
    assert TimeControl.parse("90").words == "1.5 min" and TimeControl.parse("30+1").words == "30 s + 1 s"
    assert clock_text(3725.44) == "1:02:05.4" and clock_text(-3) == "0:00:00.0"
    assert parse_clock("1:02:05.4") == pytest.approx(3725.4)
    for bad in ("", "5 min", "0", "-3+1"):
        with pytest.raises(ClockError):
            TimeControl.parse(bad)
    with pytest.raises(ClockError, match="clock_increment must be from 0 to 600"):
        TimeControl.from_minutes(5, 601)


def test_a_game_without_a_clock_has_none(client):
    assert client.get("/api/state").get_json()["clock"] is None
    assert client.get("/api/clock").get_json()["clock"] is None
    r = client.post("/api/game/new", json={"variant": "gobblet", "clock_minutes": -1}, headers=AUTH)
    assert r.status_code == 422 and r.get_json()["error"] == "clock_minutes must be from 0 to 600, not -1"
    r = client.post("/api/game/new", json={"variant": "gobblet", "clock_minutes": 5, "clock_increment": "x"}, headers=AUTH)
    assert r.status_code == 422 and r.get_json()["error"] == "clock_increment must be a number"


def test_only_the_side_to_moves_time_runs(client, ticking):
    state = new_clock_game(client)
    assert state["tags"]["TimeControl"] == "60+2"
    assert state["clock"]["stopped"] == "starts with the first move"
    ticking.wait(5)  # setting up takes no one's time
    assert clocks(client) == (60, 60, None)
    first = move(client, "4c3")
    assert first["state"]["clock"]["running"] == "black"
    ticking.wait(7)
    assert clocks(client) == (62, 53, "black")  # White's increment; only Black's time ran
    move(client, "4b2")
    ticking.wait(3.5)
    assert clocks(client) == (58.5, 55, "white")
    notes = client.get("/api/game/record").get_data(as_text=True)
    assert "4c3 {[%time" in notes and "[%clk 0:01:02.0] [%emt 0:00:00.0]" in notes
    assert "[%clk 0:00:55.0] [%emt 0:00:07.0]" in notes


def test_a_take_back_sets_the_clocks_back_to_the_position(client, ticking):
    new_clock_game(client)
    move(client, "4c3")
    ticking.wait(10)
    move(client, "4b2")
    ticking.wait(20)
    assert clocks(client) == (42, 52, "white")
    client.post("/api/game/takeback", json={}, headers=AUTH)  # 4b2 taken back: Black to move again
    assert clocks(client) == (62, 60, "black")


@pytest.fixture(scope="module")
def camera():
    from hardware.synthetic import SyntheticCamera

    cam = started_camera(SyntheticCamera(loop=True))
    yield cam
    cam.stop()


def test_the_clocks_stop_with_the_camera(tmp_path, ticking, camera):
    app = make_app(tmp_path, ticking, camera=camera)
    client = app.test_client()
    try:
        new_clock_game(client)
        move(client, "4c3")
        ticking.wait(4)
        assert client.post("/api/camera/pause", json={"paused": True}, headers=AUTH).status_code == 200
        ticking.wait(100)  # far past Black's time: the clock is stopped
        white, black, running = clocks(client)
        assert (white, black, running) == (62, 56, None)
        assert client.get("/api/state").get_json()["clock"]["stopped"] == "paused with the camera"
        assert app.extensions["cupboard"].hub.check_clock() is False
        client.post("/api/camera/pause", json={"paused": False}, headers=AUTH)
        ticking.wait(6)
        assert clocks(client) == (62, 50, "black")
    finally:
        client.post("/api/camera/pause", json={"paused": False}, headers=AUTH)
        app.extensions["cupboard"].hub.close()


def test_the_clocks_stop_while_the_camera_waits_for_an_answer(app, client, ticking):
    hub = app.extensions["cupboard"].hub
    new_clock_game(client)
    move(client, "4c3")
    ticking.wait(2)
    # what the live referee offers the pages when a detection waits for the players
    asked = {"reason": "two moves fit", "squares": ["b2"], "candidates": [{"index": 0, "text": "4b2"}], "doubts": []}
    hub.pending_source = lambda session: asked
    hub.refresh()
    ticking.wait(30)
    assert clocks(client) == (62, 58, None)
    assert client.get("/api/state").get_json()["clock"]["stopped"] == "paused: the camera waits for your answer"
    hub.pending_source = lambda session: None  # answered
    hub.refresh()
    ticking.wait(1)
    assert clocks(client) == (62, 57, "black")


def test_a_flag_fall_ends_the_game_on_time_and_is_recorded(app, client, ticking):
    hub = app.extensions["cupboard"].hub
    new_clock_game(client, minutes=1, increment=0)
    move(client, "4c3")
    ticking.wait(59.9)
    assert hub.check_clock() is False and not client.get("/api/state").get_json()["over"]
    ticking.wait(0.2)
    hub.check_clock()  # (the watcher thread may have ended it first: the end is the same)
    state = client.get("/api/state").get_json()
    assert state["over"] and state["status"] == "Ann wins on time: Bob's clock ran out"
    assert state["outcome"]["reason"] == "time" and state["outcome"]["result"] == "1-0"
    assert state["clock"]["black"] == 0 and state["clock"]["running"] is None
    assert state["clock"]["stopped"] == "the game is over"
    log = client.get("/api/log").get_json()["events"]
    assert log[-1]["kind"] == "end" and log[-1]["data"]["reason"] == "time" and log[-1]["data"]["colour"] == 1
    (game,) = client.get("/api/records").get_json()["games"]
    assert game["termination"] == "time" and game["result"] == "1-0" and game["clock"] == "1 min"
    (record,) = load_records(hub.data_dir / "records" / game["file"])
    assert record.tags["BlackClock"] == "0:00:00.0" and record.tags["WhiteClock"] == "0:01:00.0"
    assert record.moves[0].annotations["clk"] == "0:01:00.0"
    assert record.replay().outcome().reason == "time"
    ticking.wait(100)
    assert clocks(client) == (60, 0, None)  # stopped at the end
    assert client.post("/api/game/move", json={"move": "4b2"}, headers=AUTH).status_code == 409


def test_a_move_after_the_flag_fell_is_refused_and_ends_the_game(app, client, ticking):
    hub = app.extensions["cupboard"].hub
    new_clock_game(client, minutes=1, increment=0)
    hub._clock_watcher.stop()  # no background check: the move itself must find the fallen flag
    move(client, "4c3")
    ticking.wait(61)
    r = client.post("/api/game/move", json={"move": "4b2"}, headers=AUTH)
    assert r.status_code == 409 and "Black's time ran out" in r.get_json()["error"]
    state = client.get("/api/state").get_json()
    assert state["status"] == "Ann wins on time: Bob's clock ran out" and state["ply"] == 1


def test_the_clocks_come_back_after_a_restart(tmp_path, ticking):
    first = make_app(tmp_path, ticking)
    client = first.test_client()
    new_clock_game(client, minutes=2, increment=1)
    move(client, "4c3")
    ticking.wait(15)
    move(client, "4b2")
    ticking.wait(30)  # White thinks, then the server stops
    first.extensions["cupboard"].hub.close()
    again = make_app(tmp_path, ticking)
    client = again.test_client()
    try:
        # each player's time after their last move; the turn cut short by the stop costs nothing
        assert clocks(client) == (121, 106, "white")
        ticking.wait(4)
        assert clocks(client) == (117, 106, "white")
    finally:
        again.extensions["cupboard"].hub.close()


def test_a_game_lost_on_time_stays_lost_after_a_restart(tmp_path, ticking):
    first = make_app(tmp_path, ticking)
    client = first.test_client()
    new_clock_game(client, minutes=1, increment=0)
    ticking.wait(1)
    move(client, "4c3")
    ticking.wait(61)
    first.extensions["cupboard"].hub.check_clock()
    first.extensions["cupboard"].hub.close()
    again = make_app(tmp_path, ticking)
    try:
        state = again.test_client().get("/api/state").get_json()
        assert state["over"] and state["outcome"]["reason"] == "time"
        assert (state["clock"]["white"], state["clock"]["black"], state["clock"]["running"]) == (60, 0, None)
    finally:
        again.extensions["cupboard"].hub.close()


def test_a_move_refused_on_a_full_disk_leaves_the_clocks_as_they_were(app, client, ticking):
    from engine import files

    new_clock_game(client)
    move(client, "4c3")
    ticking.wait(5)
    layer = files.FaultyLayer(partial=7)
    saved, files.layer = files.layer, layer
    try:
        layer.full = True
        r = client.post("/api/game/move", json={"move": "4b2"}, headers=AUTH)
        assert r.status_code == 507
    finally:
        files.layer = saved
    ticking.wait(5)
    assert clocks(client) == (62, 50, "black")  # still Black's turn and time, no increment given


def test_time_charged_before_a_pause_survives_a_restart(tmp_path, ticking):
    first = make_app(tmp_path, ticking)
    client = first.test_client()
    hub = first.extensions["cupboard"].hub
    new_clock_game(client)
    move(client, "4c3")
    ticking.wait(10)  # Black thinks, then the camera asks the players something: the clocks stop
    hub.pending_source = lambda session: {"reason": "?", "squares": [], "candidates": [], "doubts": [{"square": "b2"}]}
    hub.refresh()
    assert clocks(client) == (62, 50, None)
    hub.close()
    again = make_app(tmp_path, ticking)
    try:
        assert clocks(again.test_client()) == (62, 50, "black")  # Black's 10 s stay spent
    finally:
        again.extensions["cupboard"].hub.close()
    # a damaged clock file is set aside: the moves' notes give the clocks
    (tmp_path / "clock.json").write_text("{not json", encoding="utf-8")
    third = make_app(tmp_path, ticking)
    try:
        assert clocks(third.test_client()) == (62, 60, "black")
    finally:
        third.extensions["cupboard"].hub.close()
