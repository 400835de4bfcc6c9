"""Hints that explain: each kind of explanation (``engine.gobblet.explain``) on a hand-built
position, in the words a player reads, and the hints that carry them (search and exact)."""

import pytest

from engine import parse_position, variant
from engine.gobblet.explain import (
    Alternative,
    explain,
    facts,
    line_name,
    refutation,
    score_words,
)
from engine.gobblet.hints import hint

# White to move in each; the move named is the one whose explanation is checked
WIN = "gobblet B4,.,.,B4/.,B4,.,./W4,W4,W4,./.,.,.,. w 3,3,3 3,3,3 4"  # 3d2 completes row 2
BLOCK = "gobblet B4,.,W4,./B4,.,.,./B4,.,W4,./.,.,.,W4 w 3,3,3 3,3,3 4"  # Black shows a4 a3 a2
GOBBLE = "gobblet B4,B4,.,W4/.,.,W4,B4/B3,B3,B3,./.,W4,.,. w 3,3,3 2,2,2 7"  # Black's row 2 needs c2
DOUBLE = "gobblet W4,W3,.,./.,.,.,W3/.,B4,.,W4/B4,W4,B4,. w 3,2,2 3,3,3 6"  # 4b1-d4 hits row 4 and the d-file
THREAT = "gobblet .,.,.,./B4,.,.,./W4,W4,.,./.,.,B4,. w 4,3,3 4,3,3 3"  # 4c2: three in row 2
REVEAL = "gobblet W4,.,W4,./.,.,.,./B4,B3W4,B4,B4/.,.,.,. w 3,3,3 3,3,2 5"  # White's 4 on b2 hides Black's row 2
JR_BLOCK = "gobblet-jr B3,.,./B3,W3,./.,.,W2 w 3,2,1,1 2,2,1,1 3"  # Black shows a3 a2
MUST_BLOCK = "gobblet B3,B3,B2,./.,.,.,./.,W4,W4,./B4,.,.,B4 w 4,3,3 4,2,1 6"  # Black's row 4 needs d4


def said(text: str, move: str, names=None) -> list[str]:
    board = parse_position(text)
    before = board.text()
    out = facts(board, board.parse_move(move), names)
    assert board.text() == before  # explaining never changes the board
    return out


def test_a_winning_move_names_its_line():
    assert said(WIN, "3d2") == ["wins: 4 in row 2"]


def test_a_block_names_the_opponents_line_and_what_they_show():
    assert said(BLOCK, "3a1") == ["blocks Black's a-file (3 shown)"]
    assert said(BLOCK, "3a1", ("Ann", "Ben")) == ["blocks Ben's a-file (3 shown)"]
    # a move elsewhere blocks nothing
    assert not any("blocks" in f for f in said(BLOCK, "3b1"))


def test_gobbling_a_piece_the_opponent_needs():
    assert said(GOBBLE, "4d4xc2")[0] == "gobbles the 3 on c2 that Black needs for row 2"
    # covering the open square instead is a block
    assert said(GOBBLE, "4d4-d2")[0] == "blocks Black's row 2 (3 shown)"
    # a piece that no line of Black's needs is just gobbled
    assert said(GOBBLE, "4b1xb2", ("Ann", "Ben"))[0] == "gobbles the 3 on b2 that Ben needs for row 2"


def test_gobbling_a_piece_no_line_needs_is_plain():
    board = "gobblet .,.,.,B4/.,.,.,B3/.,B2,.,./W4,.,.,. w 4,4,3 4,4,1 4"
    assert said(board, "4a1xb2") == ["gobbles Black's 2 on b2"]


def test_a_double_threat_the_opponent_cannot_stop():
    assert said(DOUBLE, "4b1-d4", ("Ann", "Ben"))[0] == "after this Ben cannot stop c4 and d1"
    # one threat alone can be stopped: no such claim
    assert not any(f.startswith("after this") for f in said(DOUBLE, "4d2-c4"))


def test_a_new_threat_says_where_it_wins_next():
    assert said(THREAT, "4c2") == ["threatens 4 in row 2 next move"]


def test_a_piece_that_must_stay_covered():
    assert "keep b2 covered: uncovering b2 would give Black row 2" in said(REVEAL, "3a1")
    # lifting that piece loses at once, and the explanation says so
    assert said(REVEAL, "4b2-b3") == ["uncovering b2 gives Black row 2"]


def test_what_goes_wrong_after_the_tempting_alternative():
    board = parse_position(MUST_BLOCK)
    alt = board.parse_move("4a2")  # three in row 2, but Black wins first on d4
    reply = board.copy()
    reply.push(alt)
    line = (alt, reply.parse_move("4d4"))
    words = refutation(board, Alternative(alt, line, "loses in 2"))
    assert words == "not 4a2: Black answers 4d4 and wins: 4 in row 4"
    # lifting the covering piece: the alternative loses by itself
    board = parse_position(REVEAL)
    alt = board.parse_move("4b2-b3")
    assert refutation(board, Alternative(alt, (alt,), "loses in 1"), ("Ann", "Ben")) == \
        "not 4b2-b3: uncovering b2 would give Ben row 2"
    # the answer sets up two threats at once
    board = parse_position("gobblet B4,B3,.,./.,.,.,B3/.,W4,.,B4/W4,B4,W4,. w 3,3,3 3,2,2 6")
    alt = board.parse_move("3a3")
    after = board.copy()
    after.push(alt)
    line = (alt, after.parse_move("4b1-d4"))
    assert refutation(board, Alternative(alt, line, "loses in 4"), ("Ann", "Ben")) == \
        "not 3a3: Ben answers 4b1-d4, and Ann cannot stop c4 and d1"
    # an answer without a tactic is said with the value in words
    board = parse_position(THREAT)
    alt = board.parse_move("4d4")
    after = board.copy()
    after.push(alt)
    line = (alt, after.parse_move("4c2"))
    assert refutation(board, Alternative(alt, line, "a bit worse")) == \
        "not 4d4: after Black's 4c2 White is a bit worse"


def test_the_whole_reason_joins_the_facts_and_the_warning():
    board = parse_position(MUST_BLOCK)
    alt = board.parse_move("4a2")
    after = board.copy()
    after.push(alt)
    text = explain(board, board.parse_move("4d4"), None,
                   Alternative(alt, (alt, after.parse_move("4d4")), "loses in 2"), "the only move")
    assert text == ("the only move; blocks Black's row 4 (3 shown). "
                    "Not 4a2: Black answers 4d4 and wins: 4 in row 4")


def test_a_quiet_move_is_explained_by_the_plan_the_search_found():
    board = parse_position(THREAT)
    line = []
    for text in ("3d4", "3d3", "4c2"):  # White's quiet move, Black's answer, White's threat
        line.append(board.parse_move(text))
        board.push(line[-1])
    for _ in line:
        board.pop()
    assert facts(board, line[0]) == []
    assert explain(board, line[0], ("Ann", "Ben"), line=line) == \
        "the plan: after Ben's 3d3, 4c2 threatens 4 in row 2 next move"
    assert explain(board, line[0], line=line[:2]) == ""  # too short a line: nothing to say


def test_lines_are_named_as_players_say_them():
    board = parse_position(WIN)
    geo = board.geo
    by_squares = {tuple(geo.names[s] for s in geo.line_squares(line)): line for line in geo.lines}
    assert line_name(board, by_squares[("a2", "b2", "c2", "d2")]) == "row 2"
    assert line_name(board, by_squares[("a1", "a2", "a3", "a4")]) == "the a-file"
    assert line_name(board, by_squares[("a1", "a2", "a3", "a4")], article=False) == "a-file"
    assert line_name(board, by_squares[("a1", "b2", "c3", "d4")]) == "the a1\u2013d4 diagonal"
    big = variant("gobblet[board=5,line=4]").new_game()  # lines of 4 on a 5x5 board: the squares are said
    squares = {tuple(big.geo.names[s] for s in big.geo.line_squares(line)): line for line in big.geo.lines}
    assert line_name(big, squares[("b2", "c2", "d2", "e2")]) == "row 2 (b2\u2013e2)"


def test_values_in_words():
    assert [score_words(s) for s in (0, 19, 20, 59, 60, 179, 180, 1000)] == [
        "about even", "about even", "a bit better", "a bit better", "clearly better", "clearly better",
        "winning", "winning"]
    assert [score_words(-s) for s in (20, 60, 180)] == ["a bit worse", "clearly worse", "losing"]


# ------------------------------------------------------------------ through the hints
def test_searched_hint_explains_the_win_and_says_values_in_words():
    board = parse_position(WIN)
    h = hint(board, "club", 1.0)
    assert h.text == "3d2#" and h.value == "wins in 1" and h.reason == "wins: 4 in row 2"


def test_searched_hint_explains_the_double_threat_and_its_names():
    board = parse_position(DOUBLE)
    h = hint(board, "club", 1.0, names=("Ann", "Ben"))
    assert h.text == "4b1-d4" and h.value == "wins in 3"
    assert h.reason.startswith("wins in 3 plies whatever Ben does; after this Ben cannot stop c4 and d1")


def test_searched_hint_warns_about_the_tempting_alternative():
    board = parse_position(BLOCK)
    h = hint(board, "club", 1.0)
    assert "blocks Black's a-file (3 shown)" in h.reason
    warning = h.reason.split(". ", 1)[1]
    assert warning.startswith("Not ") and "Black answers 3a1 and wins: 4 in the a-file" in warning
    # every value is said in words (or as a forced result), the number kept apart
    assert h.value in ("about even", "a bit better", "clearly better", "winning") and isinstance(h.score, int)
    for alt in h.alternatives:
        assert not alt.value.lstrip("at best ").startswith(("+", "-")), alt


def test_exact_jr_hint_keeps_its_result_and_explains():
    board = parse_position(JR_BLOCK)
    h = hint(board, "full", 2.0)
    assert h.exact and h.value == "wins in 3"
    assert h.text == "3a1"
    assert "blocks Black's a-file (2 shown)" in h.reason and "cannot stop b1 and c3" in h.reason
    # the moves that throw the win away get their exact values
    values = {a.text: a.value for a in h.alternatives}
    assert values["3a1"] == "wins in 3" and any(v.startswith(("loses", "draw")) for v in values.values())


@pytest.mark.parametrize("text", [WIN, BLOCK, GOBBLE, DOUBLE, THREAT, REVEAL, MUST_BLOCK])
def test_every_level_gives_a_reason(text):
    board = parse_position(text)
    for level in ("beginner", "club"):
        h = hint(board, level, 0.3)
        assert h.reason and h.value


# ------------------------------------------------------------------ Cups
CUPS_CAPTURE = "cups[cups=3,beans=12] S 1 0 0 | 0 | 11 / N 0 2 0 | 0 | 10 ; S to move"


def test_cups_hint_says_what_the_move_does_with_the_players_names():
    from engine.cups.hints import hint as cups_hint

    game = parse_position(CUPS_CAPTURE)
    h = cups_hint(game, "full", seconds=5, names=("Ann", "Ben"))
    assert h.text == "d2x"
    assert h.reason.startswith("Captures the 2 beans opposite: the last bean lands in your empty cup 2 "
                               "and takes Ben's cup 2")
    assert "Ben can then take 2 beans with d3x" in h.reason
    # a sow says where its last bean goes (cup 2 of 3 holds the 2 beans to reach the bowl)
    from engine.cups.hints import reason
    from engine.cups.moves import Sow
    from engine.cups.solve import MoveValue

    sow = parse_position("cups[cups=3,beans=12] S 0 2 0 | 0 | 10 / N 0 0 0 | 0 | 12 ; S to move")
    chosen = MoveValue(Sow(2), 1.0, 1, True)
    assert reason(sow, chosen, [chosen], ("Ann", "Ben")).startswith(
        "Sows cup 2: its last bean lands in your bowl, one more for you")


def test_the_generic_hint_passes_the_names_to_either_family():
    from engine import hint as any_hint

    assert "Ben's a-file" in any_hint(parse_position(BLOCK), "club", 0.5, names=("Ann", "Ben")).reason
    assert "Ben's cup 2" in any_hint(parse_position(CUPS_CAPTURE), "full", 5, names=("Ann", "Ben")).reason


def test_the_command_line_shows_the_words_and_the_number(capsys):
    import re

    from companion.cli import main

    assert main(["hint", "--position", BLOCK, "--level", "club", "--time", "0.5"]) == 0
    first, why = capsys.readouterr().out.splitlines()[:2]
    assert re.fullmatch(r"\S+  \((about even|a bit better|clearly better|winning), [+-]\d+\)", first), first
    assert why.startswith("why: blocks Black's a-file (3 shown)")
