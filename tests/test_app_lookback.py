"""Looking back and the analysis through the API, with Flask's test client on real games: the
position after any ply of the live game and of a record (spectators too), and the analysis of
a finished game worked out in the background with its verdicts."""

import re
import time

from conftest import AUTH

from engine import variant
from engine.gobblet.hints import hint as gobblet_hint
from engine.gobblet.hints import use_jr_table
from engine.record import GameRecord, write_record

QUICK_WIN = ["4a1", "4b2", "4a2", "4b3", "4a3", "4b4", "3a4"]  # Black's 4b4 lets White finish the a-file


def play(client, moves, variant_token="gobblet", **body):
    assert client.post("/api/game/new", json={"variant": variant_token, **body}, headers=AUTH).status_code == 201
    for text in moves:
        r = client.post("/api/game/move", json={"move": text}, headers=AUTH)
        assert r.status_code == 200, r.get_json()
    return client.get("/api/state").get_json()


def finish(client, job, timeout=120.0):
    """Poll an analysis until it is done (as the page does)."""
    deadline = time.monotonic() + timeout
    while job["status"] in ("queued", "running"):
        assert time.monotonic() < deadline, job
        time.sleep(0.1)
        job = client.get(f"/api/analysis/{job['id']}").get_json()
    return job


def pieces(svg):
    """The pieces a drawing shows: (class, square, colour, size) of every top and hidden piece."""
    return sorted(re.findall(r'<g class="(piece|hidden)" data-square="(\w+)"(?: data-depth="\d+")? '
                             r'data-colour="(\w+)" data-size="(\d)"', svg))


# ---------------------------------------------------------------------- looking back
def test_the_position_after_each_ply_of_the_live_game(client):
    state = play(client, ["1b2", "3xb2", "3a1"], "gobblet-jr")
    spectator = client.application.test_client()  # no token: looking back is read-only
    start = spectator.get("/api/game/position?ply=0").get_json()
    assert start["status"] == "White to move" and start["move"] is None and start["hidden"] == []
    assert start["position"] == variant("gobblet-jr").new_game().text()
    two = spectator.get(f"/api/game/position?ply=2&game={state['game']}").get_json()
    assert (two["first"], two["last"], two["ply"], two["turn"]) == (0, 3, 2, "white")
    assert two["move"] == {"text": "3xb2", "colour": "black"}
    # Black's 3 hides White's 1 on b2: listed, and drawn as a hidden piece in both drawings
    assert two["hidden"] == [{"square": "b2", "pieces": [{"colour": "white", "size": 1}]}]
    assert ("hidden", "b2", "white", "1") in pieces(two["svg"]) and ("piece", "b2", "black", "3") in pieces(two["svg"])
    assert pieces(two["svg_flipped"]) == pieces(two["svg"]) and two["svg_flipped"] != two["svg"]
    assert two["hidden_pieces"] is True
    # the last ply is the live board itself
    last = spectator.get("/api/game/position?ply=3").get_json()
    assert last["position"] == state["position"] and last["svg"] == state["svg"]


def test_looking_back_refuses_what_is_not_there(client):
    state = play(client, ["4a1", "4b2"])
    r = client.get("/api/game/position?ply=3")
    assert r.status_code == 404 and "plies 0 to 2" in r.get_json()["error"]
    assert client.get("/api/game/position?ply=-1").status_code == 404
    r = client.get("/api/game/position?ply=two")
    assert r.status_code == 400 and "whole number" in r.get_json()["error"]
    client.post("/api/game/new", json={"variant": "gobblet"}, headers=AUTH)
    r = client.get(f"/api/game/position?ply=1&game={state['game']}")
    assert r.status_code == 409  # that game was replaced


def test_the_last_ply_of_a_resigned_game_says_so(client):
    play(client, ["4a1"])
    client.post("/api/game/resign", json={"colour": "black"}, headers=AUTH)
    last = client.get("/api/game/position?ply=1").get_json()
    assert last["over"] is True and "resign" in last["status"].lower()
    assert client.get("/api/game/position?ply=0").get_json()["over"] is False


def test_the_position_after_a_ply_of_a_recorded_game(client):
    play(client, QUICK_WIN)  # the win writes the record
    (listed,) = client.get("/api/records").get_json()["games"]
    three = client.get(f"/api/records/{listed['file']}/0/position/3").get_json()
    board = variant("gobblet").new_game()
    for text in QUICK_WIN[:3]:
        board.push(board.parse_move(text))
    assert three["position"] == board.text() and three["move"]["text"] == "4a2"
    end = client.get(f"/api/records/{listed['file']}/0/position/7").get_json()
    assert end["over"] and "White wins" in end["status"]
    assert client.get(f"/api/records/{listed['file']}/0/position/8").status_code == 404
    assert client.get("/api/records/missing.gbn/0/position/1").status_code == 404


def test_cups_positions_can_be_looked_at(client):
    state = play(client, [], "cups", options={"cups": 3, "beans": 6})
    first = state["legal"][0]["text"]
    client.post("/api/game/move", json={"move": first}, headers=AUTH)
    start = client.get("/api/game/position?ply=0").get_json()
    assert start["svg"].startswith("<svg") and start["svg_flipped"] is None and start["hidden"] == []
    assert client.get("/api/game/position?ply=1").get_json()["move"]["text"] == first


# ---------------------------------------------------------------------- analysis
def test_a_jr_blunder_is_marked_with_its_exact_values(client, exact_jr_table):
    use_jr_table(exact_jr_table)
    board = variant("gobblet-jr").new_game()
    board.push(board.parse_move("2b2"))  # White's first move throws away the win in 13
    reply = gobblet_hint(board, "full", 2.0)  # Black answers with the engine's best move
    state = play(client, ["2b2", reply.text], "gobblet-jr", white="Ann", black="Bob")
    assert client.post("/api/analysis", json={"game": state["game"]}).status_code == 409  # not over yet
    client.post("/api/game/resign", json={"colour": "white"}, headers=AUTH)
    r = client.post("/api/analysis", json={"game": state["game"]})  # a spectator may ask
    assert r.status_code in (200, 202)
    job = finish(client, r.get_json())
    assert job["status"] == "done" and (job["done"], job["total"]) == (2, 2)
    blunder, best = job["moves"]
    assert blunder["verdict"] == "blunder" and blunder["exact"] is True
    assert blunder["before"] == "wins in 13" and blunder["after"].startswith("loses in")
    assert blunder["colour"] == "white" and blunder["best"] != "2b2"
    assert best["verdict"] == "best" and best["text"] == reply.text and best["before"] == best["after"]
    assert job["summary"]["white"]["blunder"] == 1 and job["summary"]["black"]["best"] == 1
    assert job["players"] == {"white": "Ann", "black": "Bob"}
    # the same game asked again shares the analysis; its positions are there to step through
    again = client.post("/api/analysis", json={"game": state["game"]})
    assert again.status_code == 200 and again.get_json()["id"] == job["id"]
    after_blunder = client.get(f"/api/analysis/{job['id']}/position/1").get_json()
    assert after_blunder["move"]["text"] == "2b2"


def test_a_recorded_4x4_game_is_analysed_by_search(client):
    game = variant("gobblet").new_game()
    for text in QUICK_WIN:
        game.push(game.parse_move(text))
    record = GameRecord.from_board(game, {"White": "Ann", "Black": "Bob"})
    text = write_record(record)
    r = client.post("/api/records?name=quick", data=text.encode(), headers=AUTH)
    assert r.status_code == 201
    name = r.get_json()["file"]
    job = finish(client, client.post("/api/analysis", json={"file": name, "index": 0}).get_json())
    assert job["status"] == "done" and [m["text"] for m in job["moves"]] == [m.text for m in record.moves]
    verdicts = {m["ply"]: m for m in job["moves"]}
    assert verdicts[6]["verdict"] == "blunder" and verdicts[6]["after"] == "loses in 2"
    assert verdicts[7]["verdict"] == "best" and verdicts[7]["before"] == "wins in 1"
    assert all(m["how"] == "searched 4 plies" and m["units"] == "points" for m in job["moves"])
    assert job["title"] == "Ann – Bob · 1-0"


def test_analysis_requests_that_cannot_be_served(client):
    assert client.post("/api/analysis", json={}).status_code == 400
    assert client.post("/api/analysis", json={"file": 3}).status_code == 400
    assert client.post("/api/analysis", json={"file": "nothing.gbn", "index": 0}).status_code == 404
    r = client.post("/api/analysis", json={"game": "not-the-game"})
    assert r.status_code == 409 and "current game" in r.get_json()["error"]
    r = client.get("/api/analysis/0123456789ab")
    assert r.status_code == 404 and "start it again" in r.get_json()["error"]


def test_a_large_cups_game_says_the_analysis_is_not_available(client):
    state = play(client, [], "cups", options={"cups": 6})
    client.post("/api/game/move", json={"move": state["legal"][0]["text"]}, headers=AUTH)
    client.post("/api/game/resign", json={"colour": "black"}, headers=AUTH)
    job = finish(client, client.post("/api/analysis", json={"game": state["game"]}).get_json())
    (move,) = job["moves"]
    assert move["verdict"] is None and "do not fit the exact solver" in move["problem"]
    assert job["summary"]["white"]["unjudged"] == 1


def test_the_server_answers_while_a_game_is_analysed(client):
    game = variant("gobblet").new_game()
    import random

    from engine import play_opening

    play_opening(game, random.Random(7), 30)
    while game.outcome() is None:
        game.push(gobblet_hint(game, 1, 0.1, rng=random.Random(game.ply)).move)
    name = client.post("/api/records?name=long", data=write_record(GameRecord.from_board(game)).encode(),
                       headers=AUTH).get_json()["file"]
    job = client.post("/api/analysis", json={"file": name, "index": 0}).get_json()
    assert client.get("/api/state").status_code == 200
    during = client.get(f"/api/analysis/{job['id']}").get_json()
    assert during["status"] in ("queued", "running") and during["done"] < during["total"]  # still thinking
    job = finish(client, job)
    assert job["status"] == "done" and job["done"] == job["total"] == len(game.move_stack)
