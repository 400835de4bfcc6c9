"""The demo as a new user meets it: varied games at a person's pace, refereed for real from
the rendered camera, their records tagged and kept apart from real games (and only the latest
kept), the records page's filters and delete, and a hint asked while the position changes."""

import time

import pytest

from companion.app import create_app
from companion.services import CompanionConfig
from companion.demo import DEMO_STILL_FRAMES, DemoCamera, calibrate_demo, demo_game, varied_demo_camera
from companion.events import Broadcaster
from companion.live import DEMO_TAGS, LiveReferee
from companion.session import DEMO_RECORDS_KEPT, GameSession
from companion.web.hub import GameHub
from engine.gobblet import Board
from engine import variant
from engine.record import load_records

TOKEN = "demo-token"
AUTH = {"X-Cupboard-Token": TOKEN}


@pytest.mark.parametrize("name", ["gobblet-jr", "gobblet", "storer"])
def test_demo_games_differ_and_end_in_a_win(name):
    rules = variant(name)
    games = [demo_game(rules, seed) for seed in range(8)]
    assert len({tuple(g) for g in games}) == 8
    for moves in games:
        board = Board(rules)
        for text in moves:
            board.push(board.parse_move(text))
        outcome = board.outcome()
        assert outcome is not None and outcome.result in ("1-0", "0-1")
        assert moves[-1].endswith("#") and len(moves) >= 9


def test_the_served_demo_moves_at_a_persons_pace():
    """At the camera thread's 10 frames a second, a position stands at least 5 s."""
    camera, _ = varied_demo_camera("gobblet-jr")
    camera.open()
    line = [camera._entry(i) for i in range(3000)]
    changes = [i for i in range(1, len(line)) if line[i][0] != line[i - 1][0]]
    gaps = [b - a for a, b in zip(changes, changes[1:])]
    assert min(gaps) >= 50 and DEMO_STILL_FRAMES >= 50
    assert len(camera.starts) >= 2  # more than one game in 5 minutes of frames


def test_demo_games_are_refereed_and_recorded_apart(tmp_path):
    rules = variant("gobblet-jr")
    camera = DemoCamera("gobblet-jr", rules, seed=3, still_frames=10, move_frames=6, end_frames=10)
    calibration = calibrate_demo(camera)
    hub = GameHub(tmp_path, Broadcaster(10, 10))
    live = LiveReferee(hub, calibration, rules, new_game_at=camera.new_game_at)
    frames = 0
    while camera.games_made < 3 or frames < max(camera.starts):
        live.on_frame(camera.read())
        frames += 1
        assert frames < 2000
    hub.close()
    played = [moves for start, moves in sorted(camera.starts.items())][:2]
    records = sorted((tmp_path / "records" / "demo").glob("demo-*.gbn"))
    assert not list((tmp_path / "records").glob("*.gbn"))  # nothing among the real games
    assert len(records) == 2
    recorded = [load_records(p)[0] for p in records]
    assert [[m.text for m in r.moves] for r in recorded] == played  # the referee saw every move
    assert all(r.tags["Demo"] == "yes" and r.result in ("1-0", "0-1") for r in recorded)


def test_only_the_latest_demo_records_are_kept(tmp_path):
    folder = tmp_path / "records" / "demo"
    folder.mkdir(parents=True)
    for k in range(DEMO_RECORDS_KEPT + 3):
        (folder / f"demo-20200101-0000{k:02d}.gbn").write_text("", encoding="utf-8")
    session = GameSession.new(tmp_path, variant("gobblet-jr"), dict(DEMO_TAGS))
    session.play("3a1")
    session.resign()
    kept = sorted(p.name for p in folder.glob("*.gbn"))
    assert len(kept) == DEMO_RECORDS_KEPT and session.record_path.name in kept
    assert "demo-20200101-000000.gbn" not in kept
    session.close()


@pytest.fixture
def app(tmp_path):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, hint_seconds=2.0))
    yield app
    app.extensions["cupboard"].hub.close()


def _finish(client, variant_name, demo=False):
    hub = client.application.extensions["cupboard"].hub
    tags = dict(DEMO_TAGS) if demo else {"White": "Ann", "Black": "Bob"}
    session = hub.new_game(variant(variant_name), tags)
    session.play(session.board.move_text(session.board.legal_moves()[0]))
    session.resign()
    return session.record_path.name


def test_records_filter_by_variant_and_demo_and_delete(app):
    client = app.test_client()
    jr = _finish(client, "gobblet-jr")
    time.sleep(1.1)  # record names carry the second the game began
    four = _finish(client, "gobblet")
    demo = _finish(client, "gobblet-jr", demo=True)
    listed = client.get("/api/records").get_json()
    assert {g["file"] for g in listed["games"]} == {jr, four}
    assert listed["variants"] == ["gobblet", "gobblet-jr"] and listed["demo_files"] == 1
    only_jr = client.get("/api/records?variant=gobblet-jr").get_json()["games"]
    assert [g["file"] for g in only_jr] == [jr]
    demos = client.get("/api/records?demo=1").get_json()["games"]
    assert [(g["file"], g["demo"]) for g in demos] == [(demo, True)]
    assert len(client.get("/api/records?demo=all").get_json()["games"]) == 3
    assert client.get(f"/api/records/{demo}/0").status_code == 200  # a demo game replays too
    assert client.get("/api/records?demo=maybe").status_code == 400

    assert client.delete(f"/api/records/{jr}").status_code == 401  # needs the token
    assert client.delete(f"/api/records/{jr}", headers=AUTH).get_json() == {"deleted": jr}
    assert client.delete(f"/api/records/{demo}", headers=AUTH).status_code == 200
    assert client.delete("/api/records/nosuch.gbn", headers=AUTH).status_code == 404
    left = client.get("/api/records?demo=all").get_json()["games"]
    assert [g["file"] for g in left] == [four]


def _hint_while(client, body, change, monkeypatch):
    """Ask a full-strength hint and run ``change`` while it is thought out: right after the
    engine's first search (the real one) and before the answer is checked against the game.
    Waiting a fixed time instead raced the search on a loaded machine."""
    from engine import hints

    search = hints.hint
    searches = []

    def search_then_change(*args, **kwargs):
        result = search(*args, **kwargs)
        searches.append(result)
        if len(searches) == 1:
            change()
        return result

    monkeypatch.setattr(hints, "hint", search_then_change)
    response = client.post("/api/hint", json=body, headers=AUTH)
    monkeypatch.setattr(hints, "hint", search)
    assert searches, "the hint was answered without a search"
    return response


def test_a_hint_follows_the_position_when_the_asker_is_still_to_move(app, monkeypatch):
    client = app.test_client()
    hub = app.extensions["cupboard"].hub

    def two_moves():
        hub.session.play("4a1")
        hub.session.play("4d4")

    r = _hint_while(client, {"colour": "white", "level": 5}, two_moves, monkeypatch)
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert body["ply"] == 2 and body["colour"] == "white"
    legal = {hub.session.board.move_text(m) for m in hub.session.board.legal_moves()}
    assert body["move"]["text"] in legal  # a move of the new position
    # in a real game the other player's turn is not answered
    r = _hint_while(client, {"colour": "white", "level": 5}, lambda: hub.session.play("4b2"), monkeypatch)
    assert r.status_code == 409 and "Black's turn" in r.get_json()["error"]


def test_a_demo_hint_is_answered_for_the_new_position(app, monkeypatch):
    client = app.test_client()
    hub = app.extensions["cupboard"].hub
    hub.new_game(variant("gobblet"), dict(DEMO_TAGS))
    game = client.get("/api/state").get_json()["game"]
    r = _hint_while(client, {"colour": "white", "level": 5, "game": game}, lambda: hub.session.play("4a1"), monkeypatch)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["ply"] == 1 and r.get_json()["colour"] == "black"

    # a new demo game began since the page last heard: the hint is for the new game
    hub.new_game(variant("gobblet"), dict(DEMO_TAGS))
    r = client.post("/api/hint", json={"colour": "black", "level": 1, "game": game}, headers=AUTH)
    assert r.status_code == 200 and r.get_json()["game"] != game and r.get_json()["ply"] == 0
