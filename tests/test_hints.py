"""Hints: exact suggestions for Gobblet Jr., reasons in words, levels, the command line."""

import random

import pytest

from companion.cli import main
from engine.gobblet import GOBBLET_JR, Board
from engine import LEVELS, level
from engine.gobblet.hints import hint, use_jr_table
from engine.gobblet.jr.table import build, load, save
from engine.gobblet.tactics import winning_moves

MUST_BLOCK = "gobblet B3,B3,B2,./.,.,.,./.,W4,W4,./B4,.,.,B4 w 4,3,3 4,2,1 6"
MIDGAME = "gobblet .,B4,.,W3/W4,.,W2,B2/.,.,.,./.,.,B3,B4 w 4,4,1 4,3,1 8"
WIN_IN_1 = "goblet-5 .,.,.,.,./.,.,.,.,./B5,B5,.,.,./.,.,.,.,./W5,W5,W5,W5,. w 5,4,4,4,4 5,5,5,4,4 5"


def stops_row_4(reason: str) -> bool:
    """Whether a hint's reason says it stops Black's row 4 (a4, b4 and c4 shown, d4 open):
    by blocking d4 or by gobbling one of the three."""
    return "blocks Black's row 4 (3 shown)" in reason or "that Black needs for row 4" in reason


@pytest.fixture(scope="module")
def jr_table(tmp_path_factory):
    path = tmp_path_factory.getbasetemp() / "jr-table-1.bin"
    if not path.exists():
        save(build(plies=1), path)
    table = load(path)
    use_jr_table(table)
    return table


def test_start_hint_is_exact(jr_table):
    board = Board(GOBBLET_JR)
    h = hint(board, "full", 2.0)
    assert h.exact and h.value == "wins in 13"
    assert h.move.size == 3 and h.move.is_entry
    values = {a.text: a.value for a in h.alternatives}
    assert values["3b2"] == "wins in 13" and values["2b2"].startswith("loses in")
    assert "wins in 13" in h.reason


def test_medium_opening_gives_the_reply_that_wins(jr_table):
    board = Board(GOBBLET_JR)
    board.push(board.parse_move("2b2"))
    h = hint(board, "full", 3.0)
    assert h.exact and h.value.startswith("wins in")


def test_win_now_is_named():
    board = Board.from_text(WIN_IN_1)
    h = hint(board, "casual", 1.0)
    assert h.text == "5e1#" and h.value == "wins in 1"
    assert h.reason == "wins: 5 in row 1"


def test_forced_block_says_which_line():
    board = Board.from_text(MUST_BLOCK)
    h = hint(board, "full", 0.5)
    board.push(h.move)
    assert not winning_moves(board)
    board.pop()
    assert stops_row_4(h.reason), h.reason


@pytest.mark.parametrize("name", list(LEVELS))
def test_every_level_suggests_a_legal_move(name):
    board = Board.from_text(MUST_BLOCK)
    h = hint(board, name, 0.2, random.Random(1))
    assert h.move in board.legal_moves() and h.level == name


def test_unknown_level_is_refused():
    with pytest.raises(ValueError, match="unknown level"):
        level("grandmaster")


def test_hint_after_the_end_is_refused():
    board = Board.from_text(WIN_IN_1)
    board.play(board.parse_move("5e1"))
    with pytest.raises(ValueError, match="over"):
        hint(board)


def test_cli_hint_prints_move_and_reason(capsys):
    assert main(["hint", "--position", MUST_BLOCK, "--time", "0.3"]) == 0
    out = capsys.readouterr().out
    assert "why: " in out and stops_row_4(out) and "alternatives:" in out


def test_cli_selfplay_prints_the_table(capsys):
    args = ["selfplay", "--variant", "gobblet", "--white", "casual", "--black", "beginner",
            "--games", "2", "--time", "0.05"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "A casual" in out and "B beginner" in out and "2 games of gobblet" in out


def test_full_level_scores_alternatives_exactly_when_asked():
    board = Board.from_text(MUST_BLOCK)
    h = hint(board, "full", 0.3, multipv=3)
    assert sum(1 for a in h.alternatives if not a.value.startswith("at best")) >= 3


def test_full_level_ranks_alternatives_with_real_values():
    # (test_search checks the exact scores, and that no bound is left above them, with a node
    # budget; here the clock decides how far the re-searches get, and at full strength they
    # work at the deepest depth the search completed, so only their shape is checked: at depth
    # 6 a busy machine may leave every alternative with a bound)
    board = Board.from_text(MIDGAME)
    h = hint(board, "full", 2.0)
    assert h.seconds < 2.0 + 0.5
    values = [not a.value.startswith("at best") for a in h.alternatives]
    assert values[0], h.alternatives[:5]
    exact = [a.score for a, v in zip(h.alternatives, values) if v and abs(a.score) < 900_000]
    assert exact[0] == h.score and exact == sorted(exact, reverse=True)
    assert values == sorted(values, reverse=True)  # the exact values first
    assert all(a.score <= h.score for a in h.alternatives), h.alternatives[:5]
    assert len(h.alternatives) == len(board.legal_moves())
