"""Keeping records through the web app, on real record files in the app's data folder:
renaming the players, marking and hiding demo games, filters by player and date, deleting one
game of a file, one game's text for sharing, and broken files that never stop the others."""

import pytest
from conftest import AUTH  # the app and client fixtures live there too

from engine.record import load_records, read_records

ANN_BOB = """[Variant "gobblet-jr"]
[White "Ann"]
[Black "Bob"]
[Date "2024.05.01"]
[Result "1-0"]

1. 3a1 {[%clk 0:04:58.0]} 3a2
2. 3b1 3b2
3. 2c1# 1-0
"""

CY_DEE = """[Variant "gobblet"]
[White "Cy"]
[Black "Dee"]
[Date "2024.06.15"]
[Result "*"]
[Termination "unfinished"]

1. 4a1 *
"""


def put(app, name, text, folder=""):
    """Write a record file into the app's records folder (or a folder under it)."""
    path = app.extensions["cupboard"].records_dir / folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def listed(client, query=""):
    return [(g["file"], g["index"], g["white"], g["black"]) for g in client.get(f"/api/records{query}").get_json()["games"]]


def test_renaming_changes_the_file_and_it_stays_readable(app, client):
    path = put(app, "ann-bob.gbn", ANN_BOB)
    r = client.patch("/api/records/ann-bob.gbn/0", json={"white": "  Annie   Smith ", "black": "Bob"}, headers=AUTH)
    assert r.status_code == 200, r.get_json()
    assert (r.get_json()["white"], r.get_json()["black"], r.get_json()["file"]) == ("Annie Smith", "Bob", "ann-bob.gbn")
    (record,) = load_records(path)  # the file on disk, read again from scratch
    assert record.tags["White"] == "Annie Smith" and record.tags["Date"] == "2024.05.01"
    assert [m.text for m in record.moves] == ["3a1", "3a2", "3b1", "3b2", "2c1#"]
    assert record.moves[0].annotations == {"clk": "0:04:58.0"}  # the move notes survive the rewrite
    record.replay()  # and the game is still legal to the end
    assert listed(client) == [("ann-bob.gbn", 0, "Annie Smith", "Bob")]
    assert not [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")]  # no leftover of the atomic write


@pytest.mark.parametrize("body, words", [
    ({"white": ""}, "white must not be empty"),
    ({"black": "x" * 41}, "black is too long (41 characters; at most 40)"),
    ({"white": 7}, "white must be text"),
    ({"white": "a\u0000b"}, "white"),
    ({"colour": "red"}, "unknown field(s) colour"),
    ({}, "send a new name"),
    ({"demo": "yes"}, "demo must be true or false"),
])
def test_bad_changes_are_refused_with_the_problem_named(app, client, body, words):
    path = put(app, "ann-bob.gbn", ANN_BOB)
    r = client.patch("/api/records/ann-bob.gbn/0", json=body, headers=AUTH)
    assert r.status_code == 400 and words in r.get_json()["error"]
    assert path.read_text(encoding="utf-8") == ANN_BOB  # untouched


def test_changes_need_the_token_and_a_real_game(app, client):
    put(app, "ann-bob.gbn", ANN_BOB)
    assert client.patch("/api/records/ann-bob.gbn/0", json={"white": "Eve"}).status_code == 401
    r = client.patch("/api/records/ann-bob.gbn/3", json={"white": "Eve"}, headers=AUTH)
    assert r.status_code == 404 and "ann-bob.gbn has 1 game(s); there is no game 3" in r.get_json()["error"]
    assert client.patch("/api/records/nosuch.gbn/0", json={"white": "Eve"}, headers=AUTH).status_code == 404


def test_a_malformed_record_is_named_and_the_others_keep_working(app, client):
    put(app, "ann-bob.gbn", ANN_BOB)
    broken = put(app, "broken.gbn", ANN_BOB.replace("2. 3b1", "2. {[%clk 1 3b1"))
    body = client.get("/api/records").get_json()
    assert [g["file"] for g in body["games"]] == ["ann-bob.gbn"]
    (problem,) = body["broken"]
    assert problem["file"] == "broken.gbn" and problem["error"].startswith("broken.gbn line 8: unterminated")
    for r in (client.patch("/api/records/broken.gbn/0", json={"white": "Eve"}, headers=AUTH),
              client.get("/api/records/broken.gbn/0/text"),
              client.delete("/api/records/broken.gbn/0", headers=AUTH)):
        assert r.status_code == 422 and r.get_json()["error"].startswith("broken.gbn line 8: "), r.get_json()
    assert "Traceback" not in broken.read_text(encoding="utf-8") and broken.exists()
    # the good record still changes and reads
    assert client.patch("/api/records/ann-bob.gbn/0", json={"black": "Bo"}, headers=AUTH).status_code == 200
    assert client.get("/api/records/ann-bob.gbn/0/text").status_code == 200
    # a file that is not even UTF-8 is named too
    put(app, "binary.gbn", "").write_bytes(b"\xff\xfe\x00[Variant")
    errors = {b["file"]: b["error"] for b in client.get("/api/records").get_json()["broken"]}
    assert errors["binary.gbn"] == "binary.gbn: the file is not UTF-8 text"


def test_filters_by_player_and_date(app, client):
    put(app, "ann-bob.gbn", ANN_BOB)
    put(app, "cy-dee.gbn", CY_DEE)
    assert {f for f, *_ in listed(client)} == {"ann-bob.gbn", "cy-dee.gbn"}
    assert listed(client, "?player=ANN") == [("ann-bob.gbn", 0, "Ann", "Bob")]
    assert listed(client, "?player=de") == [("cy-dee.gbn", 0, "Cy", "Dee")]  # the second player too
    assert listed(client, "?player=zed") == []
    assert listed(client, "?since=2024-06-01") == [("cy-dee.gbn", 0, "Cy", "Dee")]
    assert listed(client, "?until=2024-05-31") == [("ann-bob.gbn", 0, "Ann", "Bob")]
    assert listed(client, "?since=2024-05-01&until=2024-05-01") == [("ann-bob.gbn", 0, "Ann", "Bob")]
    assert listed(client, "?since=2024-05-02&until=2024-06-14") == []
    assert listed(client, "?variant=gobblet&player=cy&since=2024.06.15") == [("cy-dee.gbn", 0, "Cy", "Dee")]
    r = client.get("/api/records?since=yesterday")
    assert r.status_code == 400 and r.get_json()["error"] == "since must be a date like 2024-05-01, not 'yesterday'"


def test_a_game_marked_demo_is_hidden_and_back(app, client):
    path = put(app, "ann-bob.gbn", ANN_BOB)
    put(app, "cy-dee.gbn", CY_DEE)
    r = client.patch("/api/records/ann-bob.gbn/0", json={"demo": True}, headers=AUTH)
    assert r.status_code == 200 and r.get_json()["demo"] is True
    assert load_records(path)[0].tags["Demo"] == "yes"
    body = client.get("/api/records").get_json()
    assert [g["file"] for g in body["games"]] == ["cy-dee.gbn"] and body["demo_games"] == 1
    assert listed(client, "?demo=1") == [("ann-bob.gbn", 0, "Ann", "Bob")]
    assert len(listed(client, "?demo=all")) == 2
    assert client.patch("/api/records/ann-bob.gbn/0", json={"demo": False}, headers=AUTH).get_json()["demo"] is False
    assert "Demo" not in load_records(path)[0].tags
    assert len(listed(client)) == 2 and listed(client, "?demo=1") == []


def test_a_demo_camera_game_marked_real_leaves_the_demo_folder(app, client):
    demo = put(app, "demo-20240501-101010.gbn", ANN_BOB.replace('[Result "1-0"]', '[Demo "yes"]\n[Result "1-0"]'), "demo")
    assert listed(client) == [] and listed(client, "?demo=1")[0][0] == demo.name
    r = client.patch(f"/api/records/{demo.name}/0", json={"demo": False, "white": "Me"}, headers=AUTH)
    assert r.status_code == 200
    moved = r.get_json()["file"]
    assert moved == "20240501-101010.gbn" and not demo.exists()  # out of the folder whose oldest go
    (record,) = load_records(app.extensions["cupboard"].records_dir / moved)
    assert record.tags["White"] == "Me" and "Demo" not in record.tags
    assert listed(client) == [(moved, 0, "Me", "Bob")]


def test_deleting_one_game_of_a_file_keeps_the_others(app, client):
    path = put(app, "two.gbn", ANN_BOB + "\n" + CY_DEE)
    assert client.delete("/api/records/two.gbn/0").status_code == 401
    r = client.delete("/api/records/two.gbn/0", headers=AUTH)
    assert r.get_json() == {"deleted": "two.gbn", "index": 0, "left": 1}
    (left,) = load_records(path)
    assert left.tags["White"] == "Cy"
    assert client.delete("/api/records/two.gbn/0", headers=AUTH).get_json() == {"deleted": "two.gbn"}
    assert not path.exists() and listed(client) == []


def test_one_games_text_for_sharing(app, client):
    put(app, "two.gbn", ANN_BOB + "\n" + CY_DEE)
    r = client.get("/api/records/two.gbn/1/text")
    assert r.status_code == 200 and r.mimetype == "text/plain"
    (record,) = read_records(r.get_data(as_text=True))
    assert (record.tags["White"], record.result, [m.text for m in record.moves]) == ("Cy", "*", ["4a1"])
    assert client.get("/api/records/two.gbn/2/text").status_code == 404
