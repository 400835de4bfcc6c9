"""Moves said aloud (``engine.spoken``): Gobblet's pieces by size in words with what they gobble
and uncover, Cups' drops, captures, sows and passes, with the players' names; and the move list
the page receives carries them (``spoken``)."""

from engine import parse_position, variant
from engine.spoken import spoken_move

REVEAL = "gobblet W4,.,W4,./.,.,.,./B4,B3W4,B4,B4/.,.,.,. w 3,3,3 3,3,2 5"


def say(text: str, move: str, names=None) -> str:
    game = parse_position(text)
    before = game.text()
    words = spoken_move(game, game.parse_move(move), names)
    assert game.text() == before
    return words


def test_gobblet_entries_and_moves_in_words():
    assert say(REVEAL, "3a1") == "White, medium to a1"
    assert say(REVEAL, "3a1", ("Ann", "Ben")) == "Ann, medium to a1"
    assert say(REVEAL, "4a4-a3", ("Ann", "Ben")) == "Ann, large from a4 to a3"


def test_gobbling_and_uncovering_are_said():
    jr = "gobblet-jr .,.,./.,B1,./.,.,. w 3,3,2,2,1,1 3,3,2,2,1 2"
    assert say(jr, "3xb2", ("Ann", "Ben")) == "Ann, large to b2, gobbles Ben's small"
    assert say(REVEAL, "4b2-b3", ("Ann", "Ben")) == "Ann, large from b2 to b3, uncovers Ben's medium"
    own = "gobblet-jr .,.,./.,W1,./B1,.,. w 3,3,2,2,1 3,3,2,2,1 2"
    assert say(own, "2xb2") == "White, medium to b2, gobbles own small"


def test_sizes_are_words_for_each_variant():
    four = variant("gobblet").new_game()
    assert spoken_move(four, four.parse_move("4a1")) == "White, large to a1"
    five = variant("goblet-5").new_game()
    assert spoken_move(five, five.legal_moves()[0]).startswith("White, huge to")


def test_cups_moves_in_words():
    game = parse_position("cups[cups=3,beans=12] S 1 0 0 | 0 | 11 / N 0 2 0 | 0 | 10 ; S to move")
    assert spoken_move(game, game.parse_move("d2x"), ("Ann", "Ben")) == "Ann drops 2 and takes 2 beans"
    assert spoken_move(game, game.parse_move("d1")) == "South drops 1"
    sow = parse_position("cups[cups=3,beans=12] S 0 2 0 | 0 | 10 / N 0 0 0 | 0 | 12 ; S to move")
    assert spoken_move(sow, sow.parse_move("s2"), ("Ann", "Ben")) == "Ann sows cup 2"
    stuck = parse_position("cups S 5 0 0 0 | 35 | 0 / N 0 0 0 0 | 0 | 40 ; S to move")
    assert spoken_move(stuck, stuck.parse_move("pass"), ("Ann", "Ben")) == "Ann passes"


# ------------------------------------------------------------------ through the web app
def test_the_page_receives_spoken_moves_and_hints_in_words(tmp_path):
    from companion.app import create_app
    from companion.services import CompanionConfig

    token = {"X-Cupboard-Token": "speech-token"}
    app = create_app(CompanionConfig(tmp_path, token="speech-token", hint_seconds=0.5))
    client = app.test_client()
    try:
        r = client.post("/api/game/new", json={"variant": "gobblet", "white": "Ann", "black": "Ben"}, headers=token)
        assert r.status_code == 201, r.get_json()
        for text in ("4a1", "4a4", "4b1", "4b4", "4c1"):  # Ann shows a1, b1 and c1
            assert client.post("/api/game/move", json={"move": text}, headers=token).status_code == 200
        state = client.get("/api/state").get_json()
        assert [m["spoken"] for m in state["moves"]][:2] == ["Ann, large to a1", "Ben, large to a4"]
        body = client.post("/api/hint", json={"colour": "black", "level": 2}, headers=token).get_json()
        assert body["move"]["text"] == "4d1" and body["move"]["spoken"] == "Ben, large to d1"
        assert body["reason"].startswith("blocks Ann's row 1 (3 shown). Not ")  # and the tempting mistake:
        assert body["reason"].endswith("Ann answers 3d1 and wins: 4 in row 1")
        assert body["value"] in ("about even", "a bit better", "a bit worse", "clearly better", "clearly worse")
        assert body["detail"].startswith(f"{body['score']:+d} after looking ")
    finally:
        app.extensions["cupboard"].hub.close()
