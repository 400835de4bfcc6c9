"""The game contract (``engine.game``) and the registry of families (``engine.families``), as
the companion and the records use them: through ``engine.variant``, ``engine.parse_position``
and ``engine.hint`` only, never naming the family."""

import pytest

import engine
from engine import FAMILIES, Game, IllegalMove, Outcome, UnknownVariant, parse_position, variant

TOKENS = ["gobblet", "gobblet-jr", "storer", "goblet-5", "gobblet[board=3,sizes=3,per=2,line=3]"]
CONTRACT = ["legal_moves", "push", "pop", "outcome", "text", "parse_move", "move_text",
            "illegal_reason", "copy", "svg", "player_name"]


@pytest.mark.parametrize("token", TOKENS)
def test_every_token_gives_a_game_that_meets_the_contract(token):
    game = variant(token).new_game()
    assert isinstance(game, Game)  # the Protocol: every method is there
    assert game.family == "gobblet" and game.family in FAMILIES
    assert game.rules.token == variant(token).token
    assert (game.turn, game.ply, game.can_pop) == (0, 0, False)
    assert [game.player_name(p) for p in (0, 1)] == ["White", "Black"]
    svg = game.svg()
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")


@pytest.mark.parametrize("token", TOKENS)
def test_a_game_played_through_the_contract_round_trips(token):
    game = variant(token).new_game()
    texts = [game.text()]
    for _ in range(6):
        moves = game.legal_moves()
        move = moves[len(moves) // 3]
        assert game.illegal_reason(move) is None
        assert game.parse_move(game.move_text(move)) == move
        game.push(move)
        texts.append(game.text())
    again = parse_position(game.text())  # the registry reads the family from the text
    assert again.family == game.family and again.text() == game.text()
    assert again.legal_moves() == game.legal_moves()
    while game.can_pop:
        game.pop()
        texts.pop()
        assert game.text() == texts[-1]


def test_an_illegal_move_is_refused_with_the_rule_in_words():
    game = variant("gobblet").new_game()
    game.push(game.parse_move("4a1"))
    with pytest.raises(IllegalMove, match="a1"):
        game.parse_move("4a1")  # a1 is taken: an entry gobbles only to block a line


@pytest.mark.parametrize("text", ["chess", "chess .,.,. w 1", "", "   ", "[gobblet]"])
def test_unknown_variants_are_named(text):
    with pytest.raises(UnknownVariant, match="unknown variant") as info:
        parse_position(text) if " " in text.strip() or not text.strip() else variant(text)
    assert "gobblet" in str(info.value)  # the known ones are listed


def test_the_result_of_an_outcome_is_written_as_in_records():
    assert [Outcome(w, "line").result for w in (0, 1, None)] == ["1-0", "0-1", "1/2-1/2"]


def test_hints_go_to_the_family_of_the_game():
    from engine.gobblet.hints import hint as gobblet_hint

    game = variant("gobblet").new_game()
    for text in "4a1 4b2 4a2".split():
        game.push(game.parse_move(text))
    h = engine.hint(game, "club", 5.0)
    direct = gobblet_hint(game, "club", 5.0)
    assert h.level == "club" and h.move in game.legal_moves() and h.text == game.move_text(h.move)
    assert (h.move, h.value, h.depth, h.nodes) == (direct.move, direct.value, direct.depth, direct.nodes)
    with pytest.raises(ValueError, match="level"):
        engine.hint(game, "grandmaster", 1.0)
