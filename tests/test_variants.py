"""Rule options: presets, rule tokens, invalid options, and legal-move counts (perft) of the
variants that RULES.md gives no numbers for, derived by hand in the comments."""

import pytest

from engine.gobblet import BLACK, GOBBLET, GOBBLET_JR, GOBLET_5, STORER, VARIANTS, WHITE, Board, Rules, RulesError, perft
from engine import variant
from engine.gobblet.board import parse_position

# Start-position perft of `gobblet`, as given in shared/RULES.md (independent engines agree).
GOBBLET_PERFT = [16, 240, 10_080, 406_560, 19_024_320]


# ----------------------------------------------------------------- presets
def test_the_named_variants():
    assert set(VARIANTS) == {"gobblet", "gobblet-jr", "storer", "goblet-5"}
    assert VARIANTS["gobblet"] is GOBBLET and variant("storer") == STORER


def test_gobblet_preset():
    """4x4, lines of 4, three external stacks of sizes 1-4, defensive entry, White first."""
    r = GOBBLET
    assert (r.board, r.line, r.sizes, r.per_size) == (4, 4, 4, 3)
    assert (r.reserve, r.entry, r.first) == ("stacks", "defensive", WHITE)
    assert r.pieces_per_player == 12 and r.repetitions == 3 and r.touch_move


def test_gobblet_jr_preset():
    """3x3, lines of 3, two loose pieces of each size 1-3, free entry."""
    r = GOBBLET_JR
    assert (r.board, r.line, r.sizes, r.per_size) == (3, 3, 3, 2)
    assert (r.reserve, r.entry, r.first) == ("free", "free", WHITE)
    assert r.pieces_per_player == 6


def test_storer_preset_differs_from_gobblet_only_in_entry():
    assert STORER.entry == "storer"
    assert Rules.parse("gobblet[entry=storer]").token == "gobblet[entry=storer]"
    for field in ("board", "line", "sizes", "per_size", "reserve", "first", "touch_move", "repetitions"):
        assert getattr(STORER, field) == getattr(GOBBLET, field)


def test_goblet_5_preset():
    """5x5, lines of 5, five external stacks of sizes 1-5, defensive entry."""
    r = GOBLET_5
    assert (r.board, r.line, r.sizes, r.per_size) == (5, 5, 5, 5)
    assert (r.reserve, r.entry) == ("stacks", "defensive")
    assert r.pieces_per_player == 25 and r.squares == 25


# ----------------------------------------------------------------- tokens
@pytest.mark.parametrize("name", ["gobblet", "gobblet-jr", "storer", "goblet-5", "custom"])
def test_preset_token_is_its_name(name):
    rules = Rules.parse(name)
    assert rules.token == name
    assert Rules.parse(rules.token) == rules


@pytest.mark.parametrize(
    "token, canonical",
    [
        # line=4 is already gobblet's value, so it is left out
        ("gobblet[board=5,line=4]", "gobblet[board=5]"),
        ("gobblet[sizes=3,reserve=free,first=b]", "gobblet[sizes=3,reserve=free,first=b]"),
        # overrides are written in the order of the Rules fields
        ("gobblet-jr[entry=defensive,per=3]", "gobblet-jr[per=3,entry=defensive]"),
        ("storer[board=5,sizes=5,per=5,line=5]", "storer[board=5,sizes=5,per=5,line=5]"),
        ("goblet-5[line=4,entry=storer,touch=off,rep=2]", "goblet-5[line=4,entry=storer,touch=off,rep=2]"),
        ("custom[board=3,line=3,entry=empty]", "custom[board=3,line=3,entry=empty]"),
    ],
)
def test_token_round_trip(token, canonical):
    rules = Rules.parse(token)
    assert rules.token == canonical
    assert Rules.parse(rules.token) == rules
    # and through a position text
    board = Board(rules)
    assert board.text().split()[0] == canonical
    assert parse_position(board.text()).rules == rules


def test_token_overrides_are_written_in_a_fixed_order_and_defaults_left_out():
    assert Rules.parse("gobblet[line=3,board=5]").token == "gobblet[board=5,line=3]"
    assert Rules.parse("gobblet[board=4,line=4]").token == "gobblet"
    assert Rules.parse("gobblet-jr[per=2]").token == "gobblet-jr"
    assert Rules.parse("gobblet[]") == GOBBLET


def test_options_set_the_fields():
    r = Rules.parse("custom[board=5,line=4,sizes=3,reserve=free,per=2,entry=free,first=b,touch=off,rep=5]")
    assert (r.board, r.line, r.sizes, r.reserve, r.per_size) == (5, 4, 3, "free", 2)
    assert (r.entry, r.first, r.touch_move, r.repetitions) == ("free", BLACK, False, 5)


# ----------------------------------------------------------------- invalid options
@pytest.mark.parametrize(
    "token, words",
    [
        ("chess", ["unknown variant", "'chess'"]),
        ("gobblet[board=6]", ["board", "6"]),
        ("gobblet[board=2]", ["board", "2"]),
        ("gobblet[sizes=6]", ["sizes", "6"]),
        ("gobblet[per=0]", ["per", "0"]),
        ("gobblet[line=5]", ["line", "5"]),
        ("gobblet-jr[line=4]", ["line", "4"]),
        ("gobblet[entry=sideways]", ["entry", "'sideways'"]),
        ("gobblet[reserve=bag]", ["reserve", "'bag'"]),
        ("gobblet[first=x]", ["first", "'x'"]),
        ("gobblet[touch=maybe]", ["touch", "'maybe'"]),
        ("gobblet[rep=1]", ["repetitions"]),
        ("gobblet[board=x]", ["board", "whole number"]),
        ("gobblet[colour=w]", ["'colour=w'", "key"]),
        ("gobblet[board]", ["'board'", "key=value"]),
        ("gobblet[board=5", ["]"]),
        ("gobblet[board=5,board=4]", ["board", "twice"]),
    ],
)
def test_invalid_options_name_the_option(token, words):
    with pytest.raises(RulesError) as info:
        Rules.parse(token)
    for word in words:
        assert word in str(info.value), f"{word!r} not in {str(info.value)!r}"


def test_invalid_rules_built_directly():
    with pytest.raises(RulesError, match="board"):
        Rules(board=7)
    with pytest.raises(RulesError, match="line"):
        Rules(board=3)  # the default line of 4 does not fit a 3x3 board


# ----------------------------------------------------------------- perft: storer
# The storer rules differ from gobblet only in entering onto a non-empty square, which needs a
# line where the OPPONENT shows 3 tops.  In the first 5 plies no player faces 3 opponent tops:
# at ply k the opponent has made at most k // 2 <= 2 moves, so shows at most 2 pieces.  Board
# moves are the same in both rule sets.  Hence perft(storer, d) == perft(gobblet, d) for
# d <= 5, the numbers RULES.md gives.  Derived by hand for depths 1-4:
#   d1: three stacks all show a 4 -> one size x 16 empty squares = 16.
#   d2: Black: a 4 on any of the 15 empty squares (no gobbling entry, no Black piece on the
#       board) -> 16 x 15 = 240.
#   d3: White's stacks show 4, 4, 3: a 4 or a 3 on any of 14 empty squares (28), or the W4 on
#       the board to one of 14 empty squares (the B4 is not smaller) -> 42; 240 x 42 = 10 080.
#   d4: Black's stacks show 4, 4, 3, so 2 sizes x (empty squares) entries, plus the B4's moves:
#       after White entered a 4 (240 x 14 lines): 13 empty -> 26 + 13 = 39;
#       after White entered a 3 (240 x 14): 26 + 13 + 1 (the B4 may gobble the W3) = 40;
#       after White moved its 4 (240 x 14): 14 empty -> 28 + 14 = 42;
#       240 x 14 x (39 + 40 + 42) = 406 560.
@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5])
def test_storer_start_perft(depth):
    assert perft(Board(STORER), depth) == GOBBLET_PERFT[depth - 1]


def test_storer_and_gobblet_counts_where_they_differ():
    """Black to move; White shows 3 on rank 1 (W4 a1, W4 b1, W2 c1, Black's B1 on d1).
    Black's stacks show 4, 4.  Black's pieces: B2 a4, B3 a3, B4 c3 (over a W3), B1 d1.
    8 empty squares (a2 b2 c2 d2 b4 c4 d4 d3).
    Board moves (same in both):  B2 a4 -> 8 empty + W1 b3 + B1 d1 = 10;
        B3 a3 -> 8 + W2 c1, W1 b3, B2 a4, B1 d1 = 12;  B4 c3 -> 8 + c1 b3 a4 a3 d1 = 13;
        B1 d1 -> 8 empty = 8;  total 43.
    Entries of a 4: gobblet 8 empty + c1 (the W2) = 9; storer also d1 (own B1 in the line) = 10.
    """
    text = "B2,.,.,./B3,W1,W3B4,./.,.,.,./W4,W4,W2,B1 b 4,3 4,4 9"
    assert perft(parse_position("gobblet " + text), 1) == 43 + 9
    assert perft(parse_position("storer " + text), 1) == 43 + 10


# ----------------------------------------------------------------- perft: goblet-5
# 5x5, five stacks of 5 sizes, lines of 5: nothing can be gobbled from a stack (the opponent
# would need 4 in a line) and no line can be made within 4 plies.
#   d1: all five stacks show a 5 -> 1 size x 25 squares = 25.
#   d2: Black: a 5 on one of 24 empty squares -> 25 x 24 = 600.
#   d3: White's stacks show 5,5,5,5,4: a 5 or a 4 on 23 empty squares (46), or the W5 to one of
#       23 empty squares (23; the B5 is not smaller) -> 69; 600 x 69 = 41 400.
#   d4: Black's stacks show 5,5,5,5,4 -> 2 sizes x (empty squares), plus the B5's moves:
#       after White entered a 5 (600 x 23): 22 empty -> 44 + 22 = 66;
#       after White entered a 4 (600 x 23): 44 + 22 + 1 (the B5 may gobble the W4) = 67;
#       after White moved its 5 (600 x 23): 23 empty -> 46 + 23 = 69;
#       600 x 23 x (66 + 67 + 69) = 2 787 600.
@pytest.mark.parametrize("depth, expected", [(1, 25), (2, 600), (3, 41_400), (4, 2_787_600)])
def test_goblet_5_start_perft(depth, expected):
    assert perft(Board(GOBLET_5), depth) == expected


# ----------------------------------------------------------------- perft: custom games
def test_free_reserve_perft():
    """`gobblet[reserve=free]`: any of the 4 sizes may enter at once.
    d1: 4 sizes x 16 squares = 64.  d2: Black, 4 sizes x 15 empty squares (White shows one top,
    so no gobbling entry) and no Black piece on the board = 60; 64 x 60 = 3 840."""
    board = Board(Rules.parse("gobblet[reserve=free]"))
    assert perft(board, 1) == 64
    assert perft(board, 2) == 3_840


def test_black_first_perft_mirrors_gobblet():
    """The rules are the same for both colours, so starting with Black gives the same counts."""
    board = Board(Rules.parse("gobblet[first=b]"))
    assert board.turn == BLACK
    assert [perft(board, d) for d in (1, 2, 3)] == GOBBLET_PERFT[:3]


def test_5x5_lines_of_4_perft():
    """`gobblet[board=5,line=4]`: three stacks showing 4 on 25 squares.
    d1: 25.  d2: 25 x 24 = 600.  d3: White's stacks show 4,4,3: 2 sizes x 23 empty squares +
    the W4 to 23 empty squares = 69; 600 x 69 = 41 400."""
    board = Board(Rules.parse("gobblet[board=5,line=4]"))
    assert [perft(board, d) for d in (1, 2, 3)] == [25, 600, 41_400]


def test_entry_empty_option_never_gobbles_from_the_reserve():
    """`gobblet[entry=empty]` in the position where `gobblet` allows a defensive entry on c1."""
    text = "B2,.,.,./B3,W1,W3B4,./.,.,.,./W4,W4,W2,B1 b 4,3 4,4 9"
    board = parse_position("gobblet[entry=empty] " + text)
    assert perft(board, 1) == 43 + 8
    assert all(board.top(m.to) is None for m in board.legal_moves() if m.is_entry)


# ----------------------------------------------------------------- touch-move option
# gobblet-jr, White to move, every square occupied: the W1 on a1 has nowhere to go (see
# tests/test_rules.py, TOUCH_JR).
STUCK = "B3,W2,B2/W2,B3,W3/W1,B1,W1W3 w - 2,1 8"


def test_touch_move_on_by_default_forfeits_a_stuck_piece():
    board = parse_position("gobblet-jr " + STUCK)
    assert board.rules.touch_move
    assert board.forfeit_touch(board.geo.square("a1")).reason == "touch-move"


def test_touch_move_off_means_no_forfeit():
    """With ``touch=off`` the touch-move rule is not in force (the Gobblet Jr. summary, seed
    002: "This particular rule is not enforced"), so lifting a stuck piece loses nothing."""
    board = parse_position("gobblet-jr[touch=off] " + STUCK)
    assert not board.rules.touch_move
    with pytest.raises(ValueError):
        board.forfeit_touch(board.geo.square("a1"))
    assert board.outcome() is None
