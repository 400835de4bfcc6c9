"""The game API through Flask's test client: state, moves by text and by tap, take back,
resign, draw, new games, export; tokens, other sites and malformed requests refused as JSON."""

import pytest
from conftest import AUTH, TOKEN  # the app and client fixtures live there too

from companion.app import create_app
from companion.services import CompanionConfig
from engine.record import read_records


def post(client, path, body=None, headers=AUTH):
    return client.post(path, json=body if body is not None else {}, headers=headers)


def state(client):
    r = client.get("/api/state")
    assert r.status_code == 200
    return r.get_json()


# ---------------------------------------------------------------------- reading
def test_state_of_a_fresh_game(client):
    s = state(client)
    assert s["variant"] == "gobblet" and s["turn"] == "white" and s["ply"] == 0
    assert s["over"] is False and s["status"] == "White to move"
    assert s["reserves"] == {"white": [4, 4, 4], "black": [4, 4, 4]}
    assert len(s["legal"]) == 16 and {"size": 4, "from": None, "to": "c3", "text": "4c3"} in s["legal"]
    assert s["svg"].startswith("<svg") and 'data-square="a1"' in s["svg"]
    assert s["camera"] == {"present": False, "paused": False}


def test_spectators_may_read_but_not_control(client):
    assert client.get("/api/whoami").get_json()["control"] is False
    assert client.get("/api/whoami", headers=AUTH).get_json()["control"] is True
    assert client.get(f"/api/whoami?token={TOKEN}").get_json()["control"] is True
    r = post(client, "/api/game/move", {"move": "4c3"}, headers={})
    assert r.status_code == 401 and "token" in r.get_json()["error"]
    r = post(client, "/api/game/move", {"move": "4c3"}, headers={"X-Cupboard-Token": "wrong"})
    assert r.status_code == 403 and "wrong token" in r.get_json()["error"]
    assert state(client)["ply"] == 0


@pytest.mark.parametrize("path", [
    "/api/game/move", "/api/game/takeback", "/api/game/resign", "/api/game/draw", "/api/game/new",
    "/api/hint", "/api/camera/pause", "/api/records",
])
def test_every_control_route_needs_the_token(client, path):
    r = client.post(path, json={})
    assert r.status_code == 401
    assert set(r.get_json()) == {"error"}


def test_requests_from_other_sites_are_refused(client):
    for headers in (
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Referer": "http://evil.example/page"},
        {"Sec-Fetch-Site": "cross-site"},
    ):
        r = post(client, "/api/game/move", {"move": "4c3"}, headers={**AUTH, **headers})
        assert r.status_code == 403, headers
        assert "refused" in r.get_json()["error"]
    ok = post(client, "/api/game/move", {"move": "4c3"}, headers={**AUTH, "Origin": "http://localhost"})
    assert ok.status_code == 200


# ---------------------------------------------------------------------- moving
def test_moves_by_text_and_by_tap(client):
    r = post(client, "/api/game/move", {"move": "4c3"})
    assert r.status_code == 200
    body = r.get_json()
    assert body["state"]["moves"] == [{"ply": 1, "colour": "white", "text": "4c3", "spoken": "White, large to c3"}]
    assert body["state"]["last_move"] == {"size": 4, "from": None, "to": "c3"}
    r = post(client, "/api/game/move", {"size": 4, "from": None, "to": "b2"})
    assert r.status_code == 200
    r = post(client, "/api/game/move", {"size": 4, "from": "c3", "to": "d4"})
    assert r.status_code == 200
    s = state(client)
    assert [m["text"] for m in s["moves"]] == ["4c3", "4b2", "4c3-d4"]
    assert s["turn"] == "black"


def test_an_illegal_move_is_refused_and_announced(client, app):
    post(client, "/api/game/move", {"move": "4c3"})
    seq = state(client)["seq"]
    r = post(client, "/api/game/move", {"size": 4, "from": None, "to": "c3"})
    assert r.status_code == 422
    assert "c3 holds a size 4" in r.get_json()["error"]
    s = state(client)
    assert s["ply"] == 1 and s["seq"] == seq + 1
    event = app.extensions["cupboard"].hub.session.journal.events[-1]
    assert event.kind == "illegal" and "Illegal move by Black" in event.text


@pytest.mark.parametrize("body, status, words", [
    ({"move": "zz"}, 400, "not move text"),
    ({"move": 12}, 400, "move text"),
    ({"size": "4", "to": "c3"}, 400, "send"),
    ({"size": 4, "to": "q9"}, 400, "unknown square"),
    ({"size": 4, "to": "c3", "from": 7}, 400, "square name"),
    ({"size": 9, "to": "c3"}, 422, "no size 9"),
    ({"move": "4a1-b1"}, 422, "empty"),
])
def test_bad_moves(client, body, status, words):
    r = post(client, "/api/game/move", body)
    assert r.status_code == status
    assert words in r.get_json()["error"]


def test_malformed_json_is_a_400(client):
    for data in ("{not json", "[1, 2]", ""):
        r = client.post("/api/game/move", data=data, headers={**AUTH, "Content-Type": "application/json"})
        assert r.status_code == 400
        assert r.get_json() == {"error": "the request body must be a JSON object"}


def test_a_stale_page_cannot_move_in_another_game(client):
    old = state(client)["game"]
    r = post(client, "/api/game/new", {"variant": "gobblet-jr"})
    assert r.status_code == 201
    r = post(client, "/api/game/move", {"move": "3a1", "game": old})
    assert r.status_code == 409 and "replaced" in r.get_json()["error"]
    r = post(client, "/api/game/move", {"move": "3a1", "game": state(client)["game"]})
    assert r.status_code == 200


# ---------------------------------------------------------------------- endings
def test_take_back(client):
    r = post(client, "/api/game/takeback")
    assert r.status_code == 409 and "no move to take back" in r.get_json()["error"]
    post(client, "/api/game/move", {"move": "4c3"})
    r = post(client, "/api/game/takeback")
    assert r.status_code == 200 and r.get_json()["text"] == "Took back 4c3"
    assert state(client)["ply"] == 0


def test_resign_and_draw(client, app):
    post(client, "/api/game/move", {"move": "4c3"})
    r = post(client, "/api/game/resign", {"colour": "purple"})
    assert r.status_code == 422
    r = post(client, "/api/game/resign", {"colour": "white"})
    assert r.status_code == 200 and r.get_json()["text"] == "Black wins: White resigned"
    s = state(client)
    assert s["over"] and s["outcome"]["result"] == "0-1" and s["legal"] == []
    assert post(client, "/api/game/draw").status_code == 409
    r = post(client, "/api/game/move", {"move": "4b2"})
    assert r.status_code == 409 and "over" in r.get_json()["error"]
    post(client, "/api/game/takeback")
    r = post(client, "/api/game/draw")
    assert r.status_code == 200 and state(client)["outcome"]["reason"] == "agreement"
    records = list((app.extensions["cupboard"].records_dir).glob("*.gbn"))
    assert len(records) == 1


def test_a_win_on_the_board(client):
    post(client, "/api/game/new", {"variant": "gobblet-jr"})
    for text in ["3a1", "3a2", "3b1", "3b2", "2c1"]:
        assert post(client, "/api/game/move", {"move": text}).status_code == 200
    s = state(client)
    assert s["status"] == "White wins with the line a1-b1-c1"
    assert s["outcome"] == {"winner": "white", "reason": "line", "result": "1-0", "line": ["a1", "b1", "c1"]}


# ---------------------------------------------------------------------- new games
def test_new_game_options(client):
    r = post(client, "/api/game/new", {
        "variant": "gobblet-jr", "white": "  Ann  ", "black": "Bob", "first": "black", "set": "gobblet-jr",
        "hint_limit": 2,
    })
    assert r.status_code == 201
    s = r.get_json()["state"]
    assert s["players"] == {"white": "Ann", "black": "Bob"}
    assert s["turn"] == "black" and s["rules"]["first"] == "black"
    assert s["tags"]["Set"] == "gobblet-jr" and s["hint_limit"] == 2
    assert len(s["legal"]) == 27


@pytest.mark.parametrize("body, words", [
    ({"variant": "chess"}, "unknown variant"),
    ({"variant": 3}, "variant must be text"),
    ({"first": "green"}, "colour must be white or black"),
    ({"set": "lego"}, "unknown piece set"),
    ({"hint_limit": -1}, "hint_limit"),
    ({"hint_limit": True}, "hint_limit"),
])
def test_new_game_errors(client, body, words):
    r = post(client, "/api/game/new", body)
    assert r.status_code in (400, 422)
    assert words in r.get_json()["error"]


def test_variants_lists_variants_and_sets(client):
    body = client.get("/api/variants").get_json()
    assert {"gobblet", "gobblet-jr", "storer", "goblet-5"} <= {v["token"] for v in body["variants"]}
    assert "gobblet" in body["sets"]


def test_no_game_in_progress(tmp_path):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, start_game=False))
    client = app.test_client()
    r = client.get("/api/state")
    assert r.status_code == 404 and "no game in progress" in r.get_json()["error"]
    assert post(client, "/api/game/move", {"move": "4c3"}).status_code == 404
    assert post(client, "/api/game/takeback").status_code == 404
    assert client.get("/api/game/record").status_code == 404
    assert post(client, "/api/game/new", {}).status_code == 201
    assert client.get("/api/state").status_code == 200


def test_the_game_resumes_when_the_app_restarts(tmp_path):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN))
    client = app.test_client()
    post(client, "/api/game/move", {"move": "4c3"})
    before = state(client)
    app.extensions["cupboard"].hub.close()
    again = create_app(CompanionConfig(tmp_path, token=TOKEN)).test_client()
    after = state(again)
    assert (after["game"], after["seq"], after["position"]) == (before["game"], before["seq"], before["position"])


def test_the_token_is_kept_in_the_data_folder(tmp_path):
    first = create_app(CompanionConfig(tmp_path))
    token = first.extensions["cupboard"].token
    assert len(token) >= 16 and (tmp_path / "token").stat().st_mode & 0o077 == 0
    first.extensions["cupboard"].hub.close()
    second = create_app(CompanionConfig(tmp_path))
    assert second.extensions["cupboard"].token == token


# ---------------------------------------------------------------------- export, errors, headers
def test_export_the_live_game_at_any_time(client):
    post(client, "/api/game/move", {"move": "4c3"})
    r = client.get("/api/game/record")
    assert r.status_code == 200
    assert r.headers["Content-Disposition"].startswith("attachment; filename=\"cupboard-")
    (record,) = read_records(r.get_data(as_text=True))
    assert record.result == "*" and [m.text for m in record.moves] == ["4c3"]
    assert record.replay().ply == 1


def test_unknown_routes_and_methods_are_json(client):
    r = client.get("/api/nothing")
    assert r.status_code == 404 and r.get_json() == {"error": "no such page or resource"}
    r = client.get("/api/game/move")
    assert r.status_code == 405 and "method" in r.get_json()["error"]


def test_security_headers(client):
    r = client.get("/")
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert "default-src 'self'" in r.headers["Content-Security-Policy"]
    assert r.headers["X-Frame-Options"] == "DENY"
