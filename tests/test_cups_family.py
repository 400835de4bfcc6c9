"""Cups in the registry (``engine/cups/family.py``): the contract's shared values and endings,
what a tap offers, and records that refuse what is not Cups."""

import pytest

import engine
from engine import Game, Hint, Outcome
from engine.cups import Drop, Pass, Sow
from engine.record import RecordError, read_records


def test_cups_games_meet_the_contract():
    game = engine.variant("cups[cups=3]").new_game()
    assert isinstance(game, Game) and game.family == "cups" and engine.family_of("cups[cups=3]").name == "cups"
    again = engine.parse_position(game.text())
    assert type(again) is type(game) and again.rules == game.rules and again.text() == game.text()
    copy = game.copy()
    copy.push(Drop(2))
    assert game.ply == 0 and copy.ply == 1 and type(copy) is type(game)


def test_endings_are_the_shared_ones_and_can_be_taken_back():
    game = engine.variant("cups").new_game()
    game.push(Drop(4))
    assert game.resign() == Outcome(0, "resignation")
    assert game.legal_moves() == [] and game.illegal_reason(Drop(1)) == "the game is over"
    with pytest.raises(engine.GameOver):
        game.agree_draw()
    assert game.pop() is None and game.outcome() is None and game.ply == 1
    assert game.pop() == Drop(4) and not game.can_pop


def test_the_score_ending_has_a_reason_word_and_a_sentence():
    text = "cups[cups=3] S 0 0 0 | 31 | 0 / N 0 0 0 | 29 | 0 ; game over"
    game = engine.parse_position(text)
    assert game.outcome() == Outcome(0, "score") and game.outcome().result == "1-0"
    assert game.outcome_text(game.outcome()) == "South wins 31-29 on bowls"


def test_parse_move_tells_unreadable_from_illegal():
    game = engine.variant("cups[cups=3]").new_game()
    with pytest.raises(engine.IllegalMove, match="cup 2 can be sown only with exactly 2 beans"):
        game.parse_move("s2")
    with pytest.raises(ValueError, match="is not a Cups move") as caught:
        game.parse_move("4c3")
    assert not isinstance(caught.value, engine.IllegalMove)


def test_tap_choices_offer_the_stock_drops_the_cups_and_a_forced_pass():
    game = engine.variant("cups[cups=3]").new_game()
    stock, *cups = game.tap_choices()
    assert stock.selector == '[data-stock="south"]'
    assert stock.moves == (("d1", "drop 1"), ("d2", "drop 2"), ("d3", "drop 3"))
    assert [c.moves for c in cups] == [(("s1", "sow cup 1"),), (("s2", "sow cup 2"),), (("s3", "sow cup 3"),)]
    svg = game.svg()
    assert 'data-stock="south"' in svg and 'data-player="south" data-cup="3"' in svg
    # North without stock and no cup to sow must pass
    stuck = engine.parse_position("cups[cups=3,beans=6] S 3 1 0 | 3 | 0 / N 1 3 0 | 1 | 0 ; N to move")
    assert stuck.legal_moves() == [Pass()]
    (only,) = stuck.tap_choices()
    assert only.selector is None and only.moves == (("pass", "Pass (no move)"),)
    assert only.note == "North has no move and must pass"


def test_hint_is_the_shared_hint_in_plain_numbers():
    game = engine.variant("cups[cups=3,beans=6]").new_game()
    hint = engine.hint(game, "beginner", 0.2)
    assert isinstance(hint, Hint) and isinstance(hint.exact, bool) and isinstance(hint.nodes, int)
    assert hint.move in game.legal_moves() and hint.text == game.move_text(hint.move)
    game.resign()
    with pytest.raises(ValueError, match="over"):
        engine.hint(game, "full", 0.2)


@pytest.mark.parametrize("text, problem", [
    ('[Variant "cups"]\n\n1. 4c3 *\n', "unknown token '4c3'"),
    ('[Variant "cups"]\n[Termination "line"]\n[Result "1-0"]\n\n1. d1 1-0\n',
     "Termination 'line' is not one of score, resignation, agreement, time, unfinished"),
    ('[Variant "gobblet"]\n\n1. pass *\n', "unknown token 'pass'"),
])
def test_records_refuse_what_is_not_the_family_s(text, problem):
    with pytest.raises(RecordError, match=problem):
        read_records(text, "games.gbn")


def test_sows_and_passes_read_in_records():
    start = "cups[cups=3,beans=6] S 3 1 0 | 3 | 0 / N 1 3 0 | 1 | 0 ; N to move"
    text = f'[Variant "cups[cups=3,beans=6]"]\n[Position "{start}"]\n\n1. pass s1 *\n'
    (record,) = read_records(text)
    game = record.replay()
    assert game.moves == [Pass(), Sow(1)] and game.text().startswith("cups[cups=3,beans=6] S 0 2 1 | 4 |")
