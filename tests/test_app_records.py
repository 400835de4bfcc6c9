"""Records through the web app: list, download, replay position by position, import."""

import io

import pytest
from conftest import AUTH, TOKEN  # the app and client fixtures live there too

from companion.app import create_app
from companion.services import CompanionConfig
from engine.record import read_records

GAME = """[Variant "gobblet-jr"]
[White "Ann"]
[Black "Bob"]
[Date "2024.05.01"]
[Result "1-0"]

1. 3a1 3a2
2. 3b1 3b2
3. 2c1# 1-0
"""


def finish_a_game(client):
    client.post("/api/game/move", json={"move": "4a1"}, headers=AUTH)
    client.post("/api/game/resign", json={"colour": "black"}, headers=AUTH)


def test_the_list_is_empty_at_first(client):
    assert client.get("/api/records").get_json() == {"games": [], "broken": [], "variants": [], "demo_files": 0, "demo_games": 0}


def test_a_finished_game_is_listed_and_downloadable(client):
    finish_a_game(client)
    (game,) = client.get("/api/records").get_json()["games"]
    assert game["white"] == "White" and game["result"] == "1-0" and game["termination"] == "resignation"
    assert game["moves"] == 1 and game["variant"] == "gobblet" and game["index"] == 0
    r = client.get(f"/api/records/{game['file']}")
    assert r.status_code == 200
    assert r.headers["Content-Disposition"] == f"attachment; filename={game['file']}"
    (record,) = read_records(r.get_data(as_text=True))
    assert record.result == "1-0"


def test_import_then_replay_step_by_step(client):
    r = client.post("/api/records", data={"file": (io.BytesIO(GAME.encode()), "ann-bob.gbn")},
                    headers=AUTH, content_type="multipart/form-data")
    assert r.status_code == 201 and r.get_json() == {"file": "ann-bob.gbn", "games": 1}
    games = client.get("/api/records").get_json()["games"]
    assert [(g["white"], g["black"], g["result"]) for g in games] == [("Ann", "Bob", "1-0")]
    body = client.get("/api/records/ann-bob.gbn/0").get_json()
    assert body["moves"] == ["3a1", "3a2", "3b1", "3b2", "2c1#"] and body["tags"]["White"] == "Ann"
    start = client.get("/api/records/ann-bob.gbn/0/position/0").get_json()
    assert start["ply"] == 0 and start["move"] is None and start["status"] == "Ann (light) to move"
    assert 'class="piece"' not in start["svg"]
    third = client.get("/api/records/ann-bob.gbn/0/position/3").get_json()
    assert third["move"] == {"text": "3b1", "colour": "white"} and third["svg"].count('class="piece"') == 3
    end = client.get("/api/records/ann-bob.gbn/0/position/5").get_json()
    assert end["status"] == "Ann wins with the line a1-b1-c1" and end["total"] == 5
    # a second import of the same name does not overwrite the first
    r = client.post("/api/records?name=ann-bob.gbn", data=GAME.encode(), headers=AUTH, content_type="text/plain")
    assert r.status_code == 201 and r.get_json()["file"] == "ann-bob-2.gbn"


def test_a_resigned_game_replays_to_its_ending(client):
    finish_a_game(client)
    (game,) = client.get("/api/records").get_json()["games"]
    end = client.get(f"/api/records/{game['file']}/0/position/1").get_json()
    assert end["status"] == "White wins: Black resigned"


@pytest.mark.parametrize("text, status, words", [
    (GAME.replace("3b2", "3a1"), 422, "line 8"),
    ("[Variant \"gobblet\"]\n\n1. 4a1", 422, "does not end with a result"),
    ("   ", 400, "empty"),
])
def test_broken_imports_are_refused_with_the_line(client, text, status, words):
    r = client.post("/api/records", data={"file": (io.BytesIO(text.encode()), "bad.gbn")},
                    headers=AUTH, content_type="multipart/form-data")
    assert r.status_code == status
    assert words in r.get_json()["error"]
    assert client.get("/api/records").get_json()["games"] == []


def test_import_needs_utf8_and_the_token(client):
    r = client.post("/api/records", data=b"\xff\xfe\x00bad", headers=AUTH, content_type="text/plain")
    assert r.status_code == 422 and "not UTF-8" in r.get_json()["error"]
    r = client.post("/api/records", data={"file": (io.BytesIO(GAME.encode()), "x.gbn")},
                    content_type="multipart/form-data")
    assert r.status_code == 401
    r = client.post("/api/records", data={"other": (io.BytesIO(GAME.encode()), "x.gbn")},
                    headers=AUTH, content_type="multipart/form-data")
    assert r.status_code == 400 and "'file'" in r.get_json()["error"]


def test_an_import_too_large_is_a_413(tmp_path):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, max_upload=1000))
    r = app.test_client().post("/api/records", data=b"x" * 5000, headers=AUTH, content_type="text/plain")
    assert r.status_code == 413 and r.get_json() == {"error": "the upload is too large"}
    app.extensions["cupboard"].hub.close()


@pytest.mark.parametrize("path", [
    "/api/records/missing.gbn", "/api/records/..%2Ftoken", "/api/records/token",
    "/api/records/missing.gbn/0", "/api/records/missing.gbn/0/position/0",
])
def test_unknown_records_are_404(client, path):
    r = client.get(path)
    assert r.status_code == 404 and "error" in r.get_json()


def test_unknown_games_and_plies_are_404(client):
    client.post("/api/records?name=g.gbn", data=GAME.encode(), headers=AUTH, content_type="text/plain")
    r = client.get("/api/records/g.gbn/3")
    assert r.status_code == 404 and "no game 3" in r.get_json()["error"]
    r = client.get("/api/records/g.gbn/0/position/9")
    assert r.status_code == 404 and "plies 0 to 5" in r.get_json()["error"]
    # the old replay address is gone: one address for a recorded position
    assert client.get("/api/records/g.gbn/0/3").status_code == 404


def test_a_broken_file_in_the_folder_is_listed_with_its_problem(client, app):
    (app.extensions["cupboard"].records_dir / "broken.gbn").write_text("1. 4a1 *\n", encoding="utf-8")
    body = client.get("/api/records").get_json()
    assert body["games"] == [] and "broken.gbn" in body["broken"][0]["error"]
    r = client.get("/api/records/broken.gbn/0")
    assert r.status_code == 422 and "broken.gbn" in r.get_json()["error"]


SET_UP = """[Variant "gobblet-jr"]
[White "Ann"]
[Black "Bob"]
[Position "gobblet-jr .,.,./B3,.,./W3,.,. w 3,2,2,1,1 3,2,2,1,1 2"]
[Result "*"]

2. 3b1 3b2 *
"""


def test_a_game_set_up_mid_way_replays_from_its_first_ply(client):
    """The game says the ply it starts from, and its positions are numbered from there: the
    records page asks for first + moves shown."""
    client.post("/api/records?name=set-up.gbn", data=SET_UP.encode(), headers=AUTH, content_type="text/plain")
    body = client.get("/api/records/set-up.gbn/0").get_json()
    assert body["first"] == 2 and body["moves"] == ["3b1", "3b2"]
    start = client.get("/api/records/set-up.gbn/0/position/2").get_json()
    assert start["position"].startswith("gobblet-jr .,.,./B3,.,./W3,.,. w") and start["move"] is None
    assert start["status"] == "Ann (light) to move" and start["total"] == 2
    end = client.get("/api/records/set-up.gbn/0/position/4").get_json()
    assert end["move"] == {"text": "3b2", "colour": "black"} and end["status"] == "Ann (light) to move"
    assert client.get("/api/records/set-up.gbn/0/position/1").status_code == 404
