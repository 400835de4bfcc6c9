"""Cups through the game API and Flask's test client: a new game with its options, moves by
text as the page taps them, illegal moves answered with the rule, the forced pass, the end and
its score, hints, take back, resignation, and the record saved, listed, replayed and exported."""

import random

import pytest
from conftest import AUTH

import engine
from engine.cups import Pass
from engine.record import read_records

SMALL = {"cups": 3, "beans": 6}  # cups[cups=3,beans=6]: a whole game in about a dozen moves


def post(client, path, body=None):
    return client.post(path, json=body if body is not None else {}, headers=AUTH)


def state(client):
    r = client.get("/api/state")
    assert r.status_code == 200
    return r.get_json()


def new_cups(client, options=SMALL, **extra):
    r = post(client, "/api/game/new", {"variant": "cups", "options": options, "white": "Ann", "black": "Bob", **extra})
    assert r.status_code == 201, r.get_json()
    return r.get_json()["state"]


def until_pass(token: str = "cups[cups=3,beans=6]") -> list[str]:
    """Move texts of a random game of ``token`` up to a position where the player to move must
    pass (found by the engine, so the test does not depend on a remembered game)."""
    for seed in range(200):
        rng = random.Random(seed)
        game = engine.variant(token).new_game()
        texts = []
        while game.outcome() is None:
            moves = game.legal_moves()
            if moves == [Pass()]:
                return texts
            move = rng.choice(moves)
            texts.append(game.move_text(move))
            game.push(move)
    raise AssertionError("no forced pass in 200 random games")


def play(client, texts):
    for text in texts:
        r = post(client, "/api/game/move", {"move": text, "tapped": True})
        assert r.status_code == 200, (text, r.get_json())
    return state(client)


def test_variants_offer_cups_with_its_options(client):
    body = client.get("/api/variants").get_json()
    assert "cups" in {v["token"] for v in body["variants"]}
    cups = next(f for f in body["families"] if f["name"] == "cups")
    assert {o["name"] for o in cups["options"]} == {"cups", "beans", "count_left"}
    sizes = next(o for o in cups["options"] if o["name"] == "cups")
    assert (sizes["min"], sizes["max"]) == (3, 10)
    # the camera referees Cups (from a Cups table's own set-up); it is no game of pieces
    assert cups["players"] == ["South", "North"] and cups["camera"] is True and cups["pieces"] is False
    gobblet = next(f for f in body["families"] if f["name"] == "gobblet")
    assert gobblet["camera"] is True and gobblet["pieces"] is True and gobblet["options"] == []


def test_new_cups_game_with_options_and_who_starts(client):
    s = new_cups(client, {"cups": 5, "beans": 30, "count_left": True}, first="north")
    assert s["variant"] == "cups[cups=5,beans=30,count-left,first=north]"
    assert s["family"] == "cups" and s["turn"] == "black" and s["names"] == {"white": "South", "black": "North"}
    assert s["status"] == "Bob (north) to move" and s["over"] is False
    assert s["position"].startswith("cups[cups=5,beans=30,count-left,first=north] S 0 0 0 0 0 | 0 | 30")
    assert [m["text"] for m in s["legal"]] == ["d1", "d2", "d3", "d4", "d5"]
    # the drawing is the game's: two rows of cups with bowls and stocks, North's stock tappable
    assert 'class="cups-board"' in s["svg"] and s["svg"].count('data-cup=') == 10
    assert 'data-stock="north"' in s["svg"] and 'data-bowl="south"' in s["svg"]
    stock = next(c for c in s["taps"] if c["selector"] == '[data-stock="north"]')
    assert [m["text"] for m in stock["moves"]] == ["d1", "d2", "d3", "d4", "d5"]
    assert stock["moves"][2]["label"] == "drop 3"
    assert "reserves" not in s  # nothing of Gobblet's piece picker


@pytest.mark.parametrize("options, problem", [
    ({"cups": 2}, "cups must be 3 to 10"),
    ({"cups": 11}, "cups must be 3 to 10"),
    ({"beans": 0}, "beans must be 1 to"),
    ({"cups": "four"}, "cups must be a whole number"),
])
def test_bad_options_are_refused_with_the_problem(client, options, problem):
    before = state(client)["game"]
    r = post(client, "/api/game/new", {"variant": "cups", "options": options})
    assert r.status_code == 422 and problem in r.get_json()["error"]
    assert state(client)["game"] == before  # the old game goes on


def test_moves_and_illegal_moves_answered_with_the_rule(client):
    new_cups(client)
    s = play(client, ["d2"])  # South: one bean each into cups 1 and 2
    assert s["position"].startswith("cups[cups=3,beans=6] S 1 1 0 | 0 | 4 / N 0 0 0 | 0 | 6 ; N to move")
    assert s["moves"] == [{"ply": 1, "colour": "white", "text": "d2", "spoken": "Ann drops 2"}]
    # North sows cup 1 without the exact count (it needs 3 beans, it holds none)
    r = post(client, "/api/game/move", {"move": "s1"})
    assert r.status_code == 422
    error = r.get_json()["error"]
    assert "cup 1 can be sown only with exactly 3 beans (its distance to the bowl); it holds 0" in error
    log = state(client)
    assert log["ply"] == 1  # nothing changed
    # more beans than the stock holds: play down North's stock, then ask for too many
    play(client, ["d3x", "d2", "d2"])  # North d3 captures South's cup 1; South d2; North d2
    r = post(client, "/api/game/move", {"move": "d3"})  # South has 2 beans left
    assert r.status_code == 422 and "South has only 2 beans in stock, not 3" in r.get_json()["error"]
    # unreadable move text is a 400 naming the problem
    r = post(client, "/api/game/move", {"move": "4c3"})
    assert r.status_code == 400 and "is not a Cups move" in r.get_json()["error"]
    # Gobblet's tap by squares is refused for a game without squares
    r = post(client, "/api/game/move", {"size": 4, "to": "c3", "from": None})
    assert r.status_code == 400 and "send the move as text" in r.get_json()["error"]


def test_illegal_move_is_announced_in_the_journal(app, client):
    new_cups(client)
    post(client, "/api/game/move", {"move": "s3"})
    events = app.extensions["cupboard"].hub.session.journal.events
    last = events[-1]
    assert last.kind == "illegal" and "Illegal move by South: s3" in last.text
    assert "cup 3 can be sown only with exactly 1 bean" in last.data["reason"]


def test_forced_pass_is_offered_played_and_recorded(client):
    texts = until_pass()
    new_cups(client)
    s = play(client, texts)
    mover = s["names"][s["turn"]]
    assert [m["text"] for m in s["legal"]] == ["pass"]
    assert s["taps"] == [{"selector": None, "note": f"{mover} has no move and must pass",
                          "moves": [{"text": "pass", "label": "Pass (no move)"}]}]
    assert "(no move: must pass)" in s["svg"]
    s = play(client, ["pass"])
    assert s["moves"][-1]["text"] == "pass" and s["ply"] == len(texts) + 1


def test_a_whole_game_ends_with_the_score_and_its_record(app, client):
    new_cups(client)
    game = engine.variant("cups[cups=3,beans=6]").new_game()
    rng = random.Random(7)
    while game.outcome() is None:
        move = rng.choice(game.legal_moves())
        r = post(client, "/api/game/move", {"move": game.move_text(move), "tapped": True})
        assert r.status_code == 200, r.get_json()
        game.push(move)
    s = state(client)
    outcome = game.outcome()
    south, north = game.scores()
    assert s["over"] is True and s["outcome"]["result"] == outcome.result and s["outcome"]["reason"] == "score"
    # the game's sentence, in the players' names
    named = game.outcome_text(outcome).replace("South", "Ann").replace("North", "Bob")
    assert s["status"] == named and f"{south}-{north}" in s["status"]
    assert s["taps"] == [] and 'data-move' not in s["svg"]
    r = post(client, "/api/game/move", {"move": "d1"})
    assert r.status_code == 409 and "over" in r.get_json()["error"]
    # the record was written, is listed, and replays to the same end
    listing = client.get("/api/records").get_json()
    assert listing["broken"] == [] and len(listing["games"]) == 1
    summary = listing["games"][0]
    assert summary["variant"] == "cups[cups=3,beans=6]" and summary["result"] == outcome.result
    assert summary["termination"] == "score" and summary["white"] == "Ann"
    text = client.get(f"/api/records/{summary['file']}").get_data(as_text=True)
    (record,) = read_records(text)
    assert record.replay().text() == game.text()
    assert [m.annotations["source"] for m in record.moves] == ["tap"] * len(record.moves)
    last = client.get(f"/api/records/{summary['file']}/0/position/{len(record.moves)}").get_json()
    assert last["status"] == s["status"] and 'class="cups-board"' in last["svg"]
    first = client.get(f"/api/records/{summary['file']}/0/position/0").get_json()
    assert first["status"] == "Ann (south) to move" and first["position"].endswith("; S to move")


def test_take_back_and_resignation(client):
    new_cups(client)
    play(client, ["d3", "d1"])  # North's d1 lands in an empty cup: a capture, written d1x
    r = post(client, "/api/game/takeback")
    assert r.status_code == 200 and r.get_json()["text"] == "Took back d1x"
    s = state(client)
    assert s["ply"] == 1 and s["turn"] == "black"
    r = post(client, "/api/game/resign", {"colour": "north"})  # the game's own name for the player
    assert r.status_code == 200
    s = state(client)
    assert s["over"] and s["outcome"] == {"winner": "white", "reason": "resignation", "result": "1-0", "line": []}
    assert s["status"] == "Ann wins: Bob resigned (0-0)"
    r = post(client, "/api/game/takeback")  # the resignation is taken back, the game goes on
    assert r.status_code == 200 and state(client)["over"] is False
    r = post(client, "/api/game/draw")
    assert r.status_code == 200 and state(client)["status"] == "Draw by agreement (0-0)"
    exported = client.get("/api/game/record").get_data(as_text=True)
    (record,) = read_records(exported)
    assert record.tags["Termination"] == "agreement" and record.result == "1/2-1/2"
    assert record.replay().outcome().reason == "agreement"


def test_hint_for_cups_with_its_value_in_beans(client):
    new_cups(client, {"cups": 3, "beans": 6})
    r = post(client, "/api/hint", {"colour": "white", "level": 5})
    assert r.status_code == 200, r.get_json()
    hint = r.get_json()
    assert hint["move"]["text"] in {"d1", "d2", "d3"} and hint["exact"] is True
    assert "with perfect play" in hint["value"] and hint["reason"]
    assert {a["text"] for a in hint["alternatives"]} | {hint["move"]["text"]} == {"d1", "d2", "d3"}
    r = post(client, "/api/hint", {"colour": "north", "level": 3})
    assert r.status_code == 409 and "South's turn" in r.get_json()["error"]


def test_hint_limit_per_turn_holds_for_cups(client):
    new_cups(client, hint_limit=1)
    assert post(client, "/api/hint", {"colour": "south", "level": 1}).status_code == 200
    r = post(client, "/api/hint", {"colour": "south", "level": 1})
    assert r.status_code == 429 and "South has used the 1 hint(s)" in r.get_json()["error"]


def test_a_cups_game_resumes_from_its_journal(tmp_path):
    from companion.session import GameSession

    session = GameSession.new(tmp_path, engine.variant("cups[cups=3]"), {"White": "Ann", "Black": "Bob"})
    for text in ("d3", "d2", "s3"):  # North's d2 takes South's cup 2; South sows cup 3
        session.play(text)
    position = session.board.text()
    session.close()
    resumed = GameSession.resume(tmp_path)
    assert resumed.board.text() == position and resumed.board.ply == 3
    assert [m.text for m in resumed.to_record().moves] == ["d3", "d2x", "s3"]
    resumed.resign()  # the player to move (North) resigns; the record is written
    resumed.close()
    again = GameSession.resume(tmp_path)
    assert again.over and again.board.outcome().reason == "resignation" and again.board.outcome().winner == 0
    (record_file,) = (tmp_path / "records").glob("*.gbn")
    (record,) = read_records(record_file.read_text())
    assert record.tags["Termination"] == "resignation" and record.result == "1-0"
    assert record.replay().outcome() == again.board.outcome()
    again.close()
