"""Cups position and move texts (round trips, errors naming the problem, parsers that never
crash) and the SVG drawing's tappable parts."""

import xml.etree.ElementTree as ET

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cups import (CupsGame, Drop, MoveTextError, Pass, PositionError, Sow, parse_move_text,
                         parse_position, variant)

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SVG = "{http://www.w3.org/2000/svg}"


def test_start_text_reads_aloud():
    assert variant("cups").new_game().text() == "cups S 0 0 0 0 | 0 | 40 / N 0 0 0 0 | 0 | 40 ; S to move"
    assert variant("cups[cups=3]").new_game().text() == "cups[cups=3] S 0 0 0 | 0 | 30 / N 0 0 0 | 0 | 30 ; S to move"


def test_a_played_game_text():
    game = variant("cups").new_game()
    for text in ("d3", "d2x", "d4x"):
        game.push(game.parse_move(text))
    assert game.text() == "cups S 2 2 1 1 | 1 | 33 / N 0 1 0 0 | 1 | 38 ; N to move"


@pytest.mark.parametrize("text,move", [("d3", Drop(3)), ("D3", Drop(3)), ("drop 2", Drop(2)), ("s4", Sow(4)),
                                       ("sow 1", Sow(1)), (" pass ", Pass()), ("d1x", Drop(1))])
def test_move_texts_parse(text, move):
    assert parse_move_text(text) == move


@pytest.mark.parametrize("text,words", [("x3", "not a Cups move"), ("d", "not a Cups move"), ("", "not a Cups move"),
                                        ("s2s", "not a Cups move")])
def test_bad_move_texts(text, words):
    with pytest.raises(MoveTextError, match=words):
        parse_move_text(text)


def test_parse_move_checks_the_position():
    game = parse_position("cups S 0 0 0 0 | 0 | 40 / N 0 1 0 0 | 0 | 39 ; S to move")
    assert game.parse_move("d3x") == Drop(3)
    assert game.parse_move("d3") == Drop(3)  # the capture mark is optional
    with pytest.raises(MoveTextError, match="marked as a capture, but it takes nothing"):
        game.parse_move("d2x")
    with pytest.raises(MoveTextError, match="exactly 4 beans"):
        game.parse_move("s1")
    with pytest.raises(MoveTextError, match="passing is allowed only without one"):
        game.parse_move("pass")


@pytest.mark.parametrize("text,words", [
    ("cups S 0 0 0 0 | 0 | 40 / N 0 0 0 0 | 0 | 39 ; S to move", "79 beans in all.*give 80"),
    ("cups S 0 0 0 0 | 0 | 41 / N 0 0 0 0 | 0 | 39 ; S to move", "South has 41 beans in cups and stock"),
    ("cups S 0 0 0 | 0 | 40 / N 0 0 0 0 | 0 | 40 ; S to move", "South's row has 3 cups.*have 4"),
    ("cups[cups=12] S 0 | 0 | 1 / N 0 | 0 | 1 ; S to move", "3 to 10"),
    ("gobblet S 0 0 0 0 | 0 | 40 / N 0 0 0 0 | 0 | 40 ; S to move", "Cups rule token"),
    ("cups S 0 0 0 0 | 0 | 40 / N 0 0 0 0 | 0 | 40", "to move"),
    ("cups S 0 0 0 0 | 0 | 40 ; S to move", "two rows"),
    ("cups N 0 0 0 0 | 0 | 40 / S 0 0 0 0 | 0 | 40 ; S to move", "South's row must read"),
    ("cups S 0 0 0 0 | 0 | 40 / N 0 0 0 0 | 0 | 40 ; W to move", "side to move"),
    ("cups S 0 0 0 0 | 0 | 40 / N 0 0 0 0 | 0 | 40 ; game over", "a player still has a move"),
    ("cups S 5 0 0 0 | 35 | 0 / N 0 0 0 0 | 40 | 0 ; S to move", "must say 'game over'"),
])
def test_bad_positions_name_the_problem(text, words):
    with pytest.raises(PositionError, match=words):
        parse_position(text)


games = st.tuples(st.sampled_from(["cups", "cups[cups=3]", "cups[cups=3,beans=5,count-left]",
                                   "cups[cups=7,beans=20,first=north]", "cups[cups=10,beans=15]"]),
                  st.lists(st.integers(0, 1000), max_size=120))


@SETTINGS
@given(games)
def test_texts_round_trip(case):
    token, choices = case
    game = variant(token).new_game()
    for c in choices:
        moves = game.legal_moves()
        if not moves:
            break
        move = moves[c % len(moves)]
        text = game.move_text(move)
        assert game.parse_move(text) == move
        game.push(move)
        again = parse_position(game.text())
        assert again.text() == game.text()
        assert again.legal_moves() == game.legal_moves()
        if not game.is_over():
            assert again.key() == game.key()


alphabet = st.sampled_from(list("cups[]=,;|/ SNdx0123456789-tomvegrpaslb\n"))


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet, max_size=80) | st.text(max_size=40))
def test_parsers_never_crash_on_random_text(text):
    for parse in (parse_position, parse_move_text, variant("cups").new_game().parse_move):
        try:
            parse(text)
        except ValueError as exc:  # every parse error is a ValueError with a message
            assert str(exc)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 45), min_size=10, max_size=10), st.sampled_from(["S", "N"]))
def test_parse_position_on_random_numbers_either_reads_or_explains(numbers, side):
    a, b = numbers[:4], numbers[4:8]
    text = f"cups S {' '.join(map(str, a))} | {numbers[8]} | 5 / N {' '.join(map(str, b))} | 3 | {numbers[9]} ; {side} to move"
    try:
        game = parse_position(text)
    except PositionError as exc:
        assert str(exc)
    else:
        assert game.text() == text


# -- the drawing -----------------------------------------------------------------------------

def svg_tree(game: CupsGame) -> ET.Element:
    return ET.fromstring(game.svg())


def test_svg_marks_the_moves_a_tap_can_make():
    game = parse_position("cups S 4 2 3 0 | 0 | 31 / N 0 0 9 0 | 0 | 31 ; S to move")
    root = svg_tree(game)
    cups = {(c.get("data-player"), int(c.get("data-cup"))): c for c in root.iter(f"{SVG}circle")
            if c.get("data-cup")}
    assert len(cups) == 8
    assert cups[("south", 1)].get("data-sow") == "s1" and cups[("south", 1)].get("data-move") == "s1"
    assert cups[("south", 2)].get("data-sow") is None and cups[("south", 2)].get("data-drop") == "d2"
    assert "blocked" in cups[("south", 3)].get("class")
    assert cups[("south", 4)].get("data-move") == "d4"
    assert all(c.get("data-move") is None for (p, _), c in cups.items() if p == "north")
    assert cups[("north", 3)].get("data-beans") == "9"
    # every tappable move is legal
    moves = {game.parse_move(e.get("data-move")) for e in root.iter() if e.get("data-move")}
    assert moves <= set(game.legal_moves()) and Sow(1) in moves
    stock = [e for e in root.iter() if e.get("data-stock") == "south"][0]
    assert stock.get("data-move") == "d1" and stock.get("data-beans") == "31"
    # beans drawn as dots up to 12: 4 + 2 + 3 + 9 of them
    assert len([e for e in root.iter(f"{SVG}circle") if e.get("class") == "bean"]) == 18


def test_svg_shows_pass_and_end():
    passing = parse_position("cups S 5 0 0 0 | 35 | 0 / N 0 0 0 0 | 0 | 40 ; S to move")
    status = [e for e in svg_tree(passing).iter() if e.get("class") == "status"][0]
    assert status.get("data-state") == "pass" and "must pass" in status.text
    over = parse_position("cups S 5 0 0 0 | 30 | 0 / N 1 0 0 0 | 44 | 0 ; game over")
    root = svg_tree(over)
    status = [e for e in root.iter() if e.get("class") == "status"][0]
    assert status.get("data-state") == "over" and "North wins 30-44" in status.text
    assert not [e for e in root.iter() if e.get("data-move")]


def test_svg_many_beans_are_a_number():
    game = parse_position("cups S 20 0 0 0 | 0 | 20 / N 0 0 0 0 | 0 | 40 ; N to move")
    root = svg_tree(game)
    assert not [e for e in root.iter(f"{SVG}circle") if e.get("class") == "bean"]
    assert "20" in [e.text for e in root.iter(f"{SVG}text")]
    assert game.svg() == game.svg()
