"""Hints through the web app: the suggestion with its value, reason and alternatives, journalled
so the other player sees it; the limit per turn; exact values in Gobblet Jr."""

import pytest

from companion.app import create_app
from companion.services import CompanionConfig

TOKEN = "hint-token"
AUTH = {"X-Cupboard-Token": TOKEN}


@pytest.fixture
def client(tmp_path):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, hint_seconds=1.0))
    yield app.test_client()
    app.extensions["cupboard"].hub.close()


def ask(client, **body):
    return client.post("/api/hint", json=body, headers=AUTH)


def test_a_hint_for_the_player_to_move(client):
    r = ask(client, colour="white", level=2)
    assert r.status_code == 200
    body = r.get_json()
    legal = {m["text"] for m in client.get("/api/state").get_json()["legal"]}
    assert body["move"]["text"] in legal and body["colour"] == "white" and body["level"] == 2
    assert body["value"] and body["reason"]
    alternatives = [a["text"] for a in body["alternatives"]]
    assert alternatives and body["move"]["text"] not in alternatives
    assert set(alternatives) <= legal
    state = client.get("/api/state").get_json()
    assert state["hints_used"] == {"white": 1, "black": 0}
    assert state["ply"] == 0  # asking changes nothing on the board
    assert "table" not in body  # the exact table is only for Gobblet Jr.


def test_the_limit_per_turn(client):
    client.post("/api/game/new", json={"variant": "gobblet", "hint_limit": 1}, headers=AUTH)
    assert ask(client, level=1).status_code == 200
    r = ask(client, level=1)
    assert r.status_code == 429 and "1 hint(s) allowed this turn" in r.get_json()["error"]
    client.post("/api/game/move", json={"move": "4a1"}, headers=AUTH)
    assert ask(client, colour="black", level=1).status_code == 200  # a new turn, a new allowance


def test_no_hint_when_the_game_is_over(client):
    client.post("/api/game/resign", json={}, headers=AUTH)
    r = ask(client, level=1)
    assert r.status_code == 409 and "over" in r.get_json()["error"]


def test_exact_values_in_gobblet_jr(client, exact_jr_table):
    client.post("/api/game/new", json={"variant": "gobblet-jr"}, headers=AUTH)
    body = ask(client, level=5).get_json()
    assert body["exact"] is True and body["value"].startswith("wins in ")
    assert body["table"] == "ready" and body["table_note"] == "exact table ready"
