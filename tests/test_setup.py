"""Set-up validation: a position that cannot occur is refused with a message naming the problem
(PositionError from Board.setup, NotationError from a position text)."""

import pytest

from engine.gobblet import BLACK, GOBBLET, GOBBLET_JR, GOBLET_5, WHITE, Board, PositionError, Rules
from engine.gobblet.notation import NotationError
from engine.gobblet.board import parse_position

EMPTY_4 = ".,.,.,./.,.,.,./.,.,.,./.,.,.,."


def rank1(*squares):
    """A 4x4 position's ranks with ``squares`` on rank 1 and the rest empty."""
    return ".,.,.,./.,.,.,./.,.,.,./" + ",".join(squares)


def refused(text, *words):
    """Parse ``text`` expecting NotationError whose message contains every one of ``words``."""
    with pytest.raises(NotationError) as info:
        parse_position(text)
    message = str(info.value)
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    return message


def empty_stacks(rules):
    return [[] for _ in range(rules.squares)]


# ----------------------------------------------------------------- accepted set-ups
@pytest.mark.parametrize("name", ["gobblet", "gobblet-jr", "storer", "goblet-5"])
def test_start_positions_round_trip(name):
    board = Board(Rules.parse(name))
    text = board.text()
    assert text.split()[0] == name
    again = parse_position(text)
    assert again.key() == board.key() and again.text() == text


def test_start_texts():
    assert Board().text() == f"gobblet {EMPTY_4} w 4,4,4 4,4,4 1"
    assert Board(GOBBLET_JR).text() == "gobblet-jr .,.,./.,.,./.,.,. w 3,3,2,2,1,1 3,3,2,2,1,1 1"


def test_setup_and_text_build_the_same_board():
    stacks = empty_stacks(GOBBLET)
    stacks[0] = [(WHITE, 3), (BLACK, 4)]  # a1: W3 under B4
    stacks[15] = [(WHITE, 4)]  # d4
    board = Board.setup(GOBBLET, stacks, [[4, 4, 2], [4, 4, 3]], WHITE, 2)
    text = "gobblet .,.,.,W4/.,.,.,./.,.,.,./W3B4,.,.,. w 4,4,2 4,4,3 2"
    assert board.key() == parse_position(text).key()
    assert board.hash == parse_position(text).hash
    assert board.text() == text


def test_free_reserve_order_does_not_matter():
    board = parse_position("gobblet-jr .,.,./.,.,./.,.,. w 1,3,2,1,2,3 2,1,3,1,3,2 1")
    assert board.text() == Board(GOBBLET_JR).text()


# ----------------------------------------------------------------- piece counts
def test_too_many_pieces_of_a_size():
    # four White 4s on rank 1; stacks show 3,3,3 (consistent for sizes 1-3)
    refused(f"gobblet {rank1('W4', 'W4', 'W4', 'W4')} b 3,3,3 4,4,4 3", "White", "size 4", "has 4")


def test_too_few_pieces_of_a_size():
    refused("gobblet-jr .,.,./.,.,./.,.,. w 3,3,2,2,1 3,3,2,2,1,1 1", "White", "size 1", "each player has 2")


def test_black_counts_are_checked_too():
    refused(f"gobblet {rank1('W4', 'B4', '.', '.')} w 4,4,3 4,4,4 2", "Black", "size 4", "has 4")


def test_a_piece_size_outside_the_game():
    refused(f"gobblet {rank1('W5', '.', '.', '.')} w 4,4,4 4,4,4 1", "a1", "size 5", "1 to 4")


# ----------------------------------------------------------------- stacks
@pytest.mark.parametrize("stack", ["W3W2", "W2B2", "B4W1"])
def test_sizes_must_increase_up_a_stack(stack):
    message = refused(f"gobblet {rank1('.', '.', stack, '.')} w 4,4,4 4,4,4 1", "c1", "increase")
    assert "stands on" in message


def test_setup_refuses_a_decreasing_stack():
    stacks = empty_stacks(GOBBLET)
    stacks[5] = [(BLACK, 4), (WHITE, 2)]
    with pytest.raises(PositionError, match="b2: sizes must increase"):
        Board.setup(GOBBLET, stacks, [[4, 4, 3], [4, 4, 3]], WHITE)


# ----------------------------------------------------------------- reserves vs external stacks
def test_small_piece_in_play_with_all_stacks_still_full():
    """A W1 on the board while White's 3 stacks still show 4: the stacks would hold three 1s,
    making four."""
    refused(f"gobblet {rank1('W1', '.', '.', '.')} b 4,4,4 4,4,4 1", "White", "size 1", "external stacks")


def test_more_small_pieces_in_play_than_large_ones():
    """A W2 on the board but no W3 or W4 played: a 2 comes out of a stack only after its 4 and
    3.  Any choice of stack tops is inconsistent; with tops 4,4,1 sizes 2 and 3 come out short."""
    for tops in ("4,4,1", "4,4,4", "4,4", "4,3,1"):
        refused(f"gobblet {rank1('W2', '.', '.', '.')} b {tops} 4,4,4 1", "White", "external stacks")


def test_hidden_large_pieces_make_small_ones_consistent():
    """The same W2 is fine once a W4 and a W3 of that stack stand on the board (here hidden)."""
    board = parse_position(f"gobblet {rank1('W2', 'W3B4', 'W4', '.')} w 4,4,1 4,4,3 3")
    assert board.reserve_tops(WHITE) == [4, 4, 1]


def test_too_many_external_stacks():
    refused(f"gobblet {EMPTY_4} w 4,4,4,4 4,4,4 1", "White", "4 external stacks", "3")
    goblet5 = "/".join([".,.,.,.,."] * 5)
    refused(f"goblet-5 {goblet5} w 5,5,5,5,5 5,5,5,5,5,5 1", "Black", "6 external stacks", "5")


@pytest.mark.parametrize("reserve, problem", [("5", "size 5"), ("0", "size 0"), ("4,x", "sizes separated")])
def test_bad_reserve_sizes(reserve, problem):
    refused(f"gobblet {EMPTY_4} w {reserve} 4,4,4 1", problem)


def test_setup_reserve_must_hold_whole_sizes():
    with pytest.raises(PositionError, match="reserve"):
        Board.setup(GOBBLET, empty_stacks(GOBBLET), [[4, 4, "4"], [4, 4, 4]], WHITE)


# ----------------------------------------------------------------- colours, side, shape
def test_bad_colour_in_setup():
    stacks = empty_stacks(GOBBLET)
    stacks[0] = [(2, 4)]
    with pytest.raises(PositionError, match="a1: unknown colour 2"):
        Board.setup(GOBBLET, stacks, [[4, 4, 4], [4, 4, 3]], WHITE)


def test_bad_colour_letter_in_text():
    refused(f"gobblet {rank1('R4', '.', '.', '.')} w 4,4,4 4,4,4 1", "a1", "'R4'", "colour W or B")


def test_bad_side_to_move():
    refused(f"gobblet {EMPTY_4} x 4,4,4 4,4,4 1", "side to move", "'x'")
    with pytest.raises(PositionError, match="side to move"):
        Board.setup(GOBBLET, empty_stacks(GOBBLET), [[4, 4, 4], [4, 4, 4]], 2)


def test_wrong_board_shape():
    refused("gobblet .,.,./.,.,./.,.,. w 4,4,4 4,4,4 1", "4 ranks", "3")
    refused("gobblet .,.,./.,.,.,./.,.,.,./.,.,.,. w 4,4,4 4,4,4 1", "rank 4", "3 squares")
    with pytest.raises(PositionError, match="expected 25 squares, got 16"):
        Board.setup(GOBLET_5, empty_stacks(GOBBLET), [[5] * 5, [5] * 5], WHITE)
    with pytest.raises(PositionError, match="a reserve for each"):
        Board.setup(GOBBLET, empty_stacks(GOBBLET), [[4, 4, 4]], WHITE)


def test_wrong_fields():
    refused(f"gobblet {EMPTY_4} w 4,4,4 4,4,4", "6 fields", "has 5")
    refused(f"gobblet {EMPTY_4} w 4,4,4 4,4,4 0", "move number")
    refused(f"chess {EMPTY_4} w 4,4,4 4,4,4 1", "unknown variant", "'chess'")
    with pytest.raises(PositionError, match="move number"):
        Board.setup(GOBBLET, empty_stacks(GOBBLET), [[4, 4, 4], [4, 4, 4]], WHITE, -1)


def test_move_number_and_side_give_the_ply():
    assert parse_position(f"gobblet {EMPTY_4} w 4,4,4 4,4,4 1").ply == 0
    board = parse_position(f"gobblet {rank1('W4', '.', '.', '.')} b 4,4,3 4,4,4 1")
    assert board.ply == 1
    # Black moves first: Black to move at move 1 is ply 0, White to move is ply 1
    assert parse_position(f"gobblet[first=b] {EMPTY_4} b 4,4,4 4,4,4 1").ply == 0
    assert parse_position(f"gobblet[first=b] {rank1('B4', '.', '.', '.')} w 4,4,4 4,4,3 1").ply == 1
