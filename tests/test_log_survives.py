"""The referee's log survives a restart: ``/api/log`` reads the current game's entries back from
its journal, so a new app on the same data folder shows exactly what the old one had logged."""

from conftest import AUTH, TOKEN

from companion.app import create_app
from companion.services import CompanionConfig


def entries(client):
    body = client.get("/api/log").get_json()
    return body["game"], [(e["seq"], e["kind"], e["text"]) for e in body["events"]]


def test_a_new_app_on_the_same_data_folder_shows_the_log_entries(tmp_path):
    first = create_app(CompanionConfig(tmp_path, token=TOKEN))
    client = first.test_client()
    for move in ("4c3", "4b2"):
        assert client.post("/api/game/move", json={"move": move}, headers=AUTH).status_code == 200
    assert client.post("/api/game/move", json={"move": "4d4-a1"}, headers=AUTH).status_code == 422  # illegal: an alert
    client.post("/api/game/takeback", json={}, headers=AUTH)
    game, before = entries(client)
    assert [kind for _, kind, _ in before] == ["start", "move", "move", "illegal", "takeback"]
    assert before[3][2].startswith("Illegal move by White: 4d4-a1")
    first.extensions["cupboard"].hub.close()  # the server stops

    again = create_app(CompanionConfig(tmp_path, token=TOKEN))
    try:
        assert entries(again.test_client()) == (game, before)
        assert again.test_client().get("/api/log?limit=2").get_json()["events"][0]["seq"] == 4  # the latest two
    finally:
        again.extensions["cupboard"].hub.close()


def test_a_new_game_starts_a_new_log(client):
    client.post("/api/game/move", json={"move": "4c3"}, headers=AUTH)
    old, _ = entries(client)
    client.post("/api/game/new", json={"variant": "gobblet-jr", "white": "Ann", "black": "Bob"}, headers=AUTH)
    game, log = entries(client)
    assert game != old and [kind for _, kind, _ in log] == ["start"] and "Ann" in log[0][2]


def test_bad_limits_and_no_game(tmp_path, client):
    r = client.get("/api/log?limit=0")
    assert r.status_code == 400 and "limit must be a whole number from 1 to 500" in r.get_json()["error"]
    empty = create_app(CompanionConfig(tmp_path / "empty", token=TOKEN, start_game=False))
    try:
        r = empty.test_client().get("/api/log")
        assert r.status_code == 404 and "no game in progress" in r.get_json()["error"]
    finally:
        empty.extensions["cupboard"].hub.close()
