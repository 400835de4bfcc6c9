"""The server's side of issue 24's page fixes, through the real app's test client: a take-back
gives no free hint (the limit is per turn, and the turn comes back with its hints counted), and
the status line speaks of the players by name, with their side where it tells more."""

import pytest

import engine
from companion.app import create_app
from companion.services import CompanionConfig
from companion.session import status_text

TOKEN = "access-token"
AUTH = {"X-Cupboard-Token": TOKEN}


@pytest.fixture
def client(tmp_path):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, hint_seconds=1.0))
    yield app.test_client()
    app.extensions["cupboard"].hub.close()


def ask(client, colour):
    return client.post("/api/hint", json={"colour": colour, "level": 1}, headers=AUTH)


def state(client):
    return client.get("/api/state").get_json()


def test_a_take_back_gives_no_free_hint(client):
    client.post("/api/game/new", json={"variant": "gobblet", "white": "Ann", "black": "Bob", "hint_limit": 1},
                headers=AUTH)
    assert ask(client, "white").status_code == 200
    assert ask(client, "white").status_code == 429
    assert client.post("/api/game/move", json={"move": "4a1"}, headers=AUTH).status_code == 200
    assert state(client)["hints_used"] == {"white": 0, "black": 0}  # Bob's turn: his allowance
    assert ask(client, "black").status_code == 200
    assert client.post("/api/game/takeback", json={}, headers=AUTH).status_code == 200
    # Ann's turn again: the hint she had there still counts
    assert state(client)["hints_used"] == {"white": 1, "black": 0}
    r = ask(client, "white")
    assert r.status_code == 429 and "1 hint(s) allowed this turn" in r.get_json()["error"]
    # and Bob's, once Ann has played again
    assert client.post("/api/game/move", json={"move": "4b2"}, headers=AUTH).status_code == 200
    assert state(client)["hints_used"] == {"white": 0, "black": 1}
    assert ask(client, "black").status_code == 429
    # a new game starts afresh
    client.post("/api/game/new", json={"variant": "gobblet", "hint_limit": 1}, headers=AUTH)
    assert state(client)["hints_used"] == {"white": 0, "black": 0}
    assert ask(client, "white").status_code == 200


def test_the_status_line_names_the_players(client):
    client.post("/api/game/new", json={"variant": "gobblet-jr", "white": "Ann", "black": "Bob"}, headers=AUTH)
    assert state(client)["status"] == "Ann (light) to move"
    client.post("/api/game/move", json={"move": "3a1"}, headers=AUTH)
    assert state(client)["status"] == "Bob (dark) to move"
    client.post("/api/game/resign", json={"colour": "black"}, headers=AUTH)
    assert state(client)["status"] == "Ann wins: Bob resigned"
    # unnamed players keep the game's own words
    client.post("/api/game/new", json={"variant": "gobblet-jr"}, headers=AUTH)
    assert state(client)["status"] == "White to move"


def test_status_text_swaps_names_in_one_pass():
    board = engine.variant("gobblet-jr").new_game()
    board.push(board.parse_move("3a1"))
    outcome = board.resign(1)
    # a player called "Black" plays White: the names do not chase each other round
    assert status_text(board, outcome, ["Black", "White"], ["light", "dark"]) == "Black wins: White resigned"
    assert status_text(board, outcome) == "White wins: Black resigned"


def test_the_log_names_the_players(tmp_path):
    from companion.session import GameSession

    session = GameSession.new(tmp_path, engine.variant("gobblet-jr"), {"White": "Ann", "Black": "Bob"})
    try:
        assert session.play("3a1").text == "Ann played 3a1"
        assert session.play("3b1").text == "Bob played 3b1"
        assert session.resign(1).text == "Ann wins: Bob resigned"
    finally:
        session.close()
