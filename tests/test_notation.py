"""Position text and move text (engine.gobblet.notation): round trips, error messages, robustness."""

import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.gobblet import Board, Move
from engine import IllegalMove, variant
from engine.gobblet.notation import NotationError, format_move, format_position, parse_move
from engine.gobblet.board import parse_position
from engine.gobblet.rules import VARIANTS, Rules

CUSTOM_TOKENS = ["gobblet[board=5,line=4]", "gobblet-jr[per=3]", "custom[first=b]", "storer[rep=2]"]
ALL_TOKENS = [*VARIANTS, *CUSTOM_TOKENS]


def random_boards(token: str, games: int, seed: int):
    """Every position of a few random games of ``token``, as boards."""
    rng = random.Random(seed)
    for _ in range(games):
        board = Board(variant(token))
        yield board.copy()
        for _ in range(60):
            moves = board.legal_moves()
            if not moves:
                break
            board.push(rng.choice(moves))
            yield board.copy()


def board_after(token: str, choices: list[int]) -> Board:
    """The board of ``token`` after the moves ``choices`` pick (each modulo the legal moves)."""
    board = Board(variant(token))
    for c in choices:
        moves = board.legal_moves()
        if not moves:
            break
        board.push(moves[c % len(moves)])
    return board


@pytest.mark.parametrize("token", ALL_TOKENS)
def test_position_text_round_trips_on_random_games(token):
    for board in random_boards(token, games=4, seed=len(token)):
        text = format_position(board)
        again = parse_position(text)
        assert again.key() == board.key()
        assert again.rules == board.rules
        assert again.ply == board.ply
        assert format_position(again) == text
        assert board.text() == text and Board.from_text(text).key() == board.key()


def test_start_position_text_is_as_documented():
    assert format_position(Board(variant("gobblet"))) == (
        "gobblet .,.,.,./.,.,.,./.,.,.,./.,.,.,. w 4,4,4 4,4,4 1"
    )
    assert format_position(Board(variant("gobblet-jr"))) == (
        "gobblet-jr .,.,./.,.,./.,.,. w 3,3,2,2,1,1 3,3,2,2,1,1 1"
    )


def test_set_up_position_reads_stacks_bottom_to_top():
    text = "gobblet .,.,.,./.,B3W4,.,./.,.,W4,./.,.,.,B4 b 4,3,3 4,4,2 3"
    board = parse_position(text)
    b3, c2 = board.geo.square("b3"), board.geo.square("c2")
    assert board.stack(b3) == [(1, 3), (0, 4)]
    assert board.stack(c2) == [(0, 4)]
    assert board.turn == 1 and board.ply == 5
    assert board.reserve_tops(0) == [4, 3, 3]
    assert board.reserve_pieces(1) == [4, 4, 3, 3, 2, 2, 2, 1, 1, 1]
    assert format_position(board) == text


def test_set_up_position_plays_on():
    board = parse_position("gobblet-jr W3,.,./.,W2,./B3,B2,. w 3,2,1,1 3,2,1,1 3")
    # White shows a3 and b2: c1 completes the diagonal a3-b2-c1
    move = parse_move(board, "1c1#")
    assert move == Move(1, board.geo.square("c1"))
    board.push(move)
    assert board.outcome().winner == 0


@pytest.mark.parametrize(
    "text, words",
    [
        ("gobblet .,.,.,./.,.,.,./.,.,.,./.,.,.,. w 4,4,4 4,4,4", "6 fields"),
        ("gobblet .,.,.,./.,.,.,./.,.,.,. w 4,4,4 4,4,4 1", "4 ranks; the position text has 3"),
        ("gobblet .,.,.,./.,.,.,./.,.,.,./.,.,. w 4,4,4 4,4,4 1", "rank 1 has 3 squares"),
        ("gobblet .,.,.,./.,.,.,./.,.,W5X,./.,.,.,. w 4,4,4 4,4,4 1", "square c2"),
        ("gobblet .,.,.,./.,.,.,./.,.,w4,./.,.,.,. w 4,4,4 4,4,4 1", "square c2"),
        ("chess .,.,.,./.,.,.,./.,.,.,./.,.,.,. w 4,4,4 4,4,4 1", "unknown variant 'chess'"),
        ("gobblet .,.,.,./.,.,.,./.,.,.,./.,.,.,. x 4,4,4 4,4,4 1", "side to move must be w or b"),
        ("gobblet .,.,.,./.,.,.,./.,.,.,./.,.,.,. w 4;4;4 4,4,4 1", "White's reserve"),
        ("gobblet .,.,.,./.,.,.,./.,.,.,./.,.,.,. w 4,4,4 4,a 1", "Black's reserve"),
        ("gobblet .,.,.,./.,.,.,./.,.,.,./.,.,.,. w 4,4,4 4,4,4 0", "move number"),
        (
            "gobblet .,.,.,./.,.,.,./.,.,W4,./.,.,.,. b 4,4,4 4,4,4 1",
            "White has 4 pieces of size 4",
        ),
        (
            "gobblet .,.,.,./.,.,.,./.,.,W3W4,./.,.,.,. b 4,4,3 4,4,4 1",
            "impossible position: White has 4 pieces of size 3",
        ),
        ("gobblet .,.,.,./.,.,.,./.,.,W4W3,./.,.,.,. b 4,4,2 4,4,4 1", "sizes must increase"),
        ("gobblet .,.,.,./.,.,.,./.,.,.,./.,.,.,. w 4,4,4,4 4,4,4 1", "4 external stacks"),
        ("gobblet .,.,.,./.,.,.,./.,.,.,./.,.,.,. w 4,4,7 4,4,4 1", "size 7 is not 1 to 4"),
        ("gobblet-jr .,.,./.,.,./.,.,. w 3,3,2,2,1 3,3,2,2,1,1 1", "White has 1 pieces of size 1"),
        ("gobblet[board=9] .,.,./.,.,./.,.,. w 4 4 1", "board must be 3 to 5"),
    ],
)
def test_malformed_position_texts_say_what_is_wrong(text, words):
    with pytest.raises(NotationError) as info:
        parse_position(text)
    assert words in str(info.value)


@pytest.mark.parametrize("token", ALL_TOKENS)
def test_move_text_round_trips_on_every_legal_move(token):
    for i, board in enumerate(random_boards(token, games=2, seed=7)):
        if i % 3:
            continue  # every third position keeps this quick
        for move in board.legal_moves():
            text = format_move(board, move)
            assert parse_move(board, text) == move
            assert board.move_text(move) == text
            # the size may be left out of a board move, and the end mark too
            if move.frm is not None:
                assert parse_move(board, text[1:]) == move
            bare = text.rstrip("#?=")
            assert parse_move(board, bare) == move


def test_move_text_shapes():
    board = Board(variant("gobblet"))
    sq = board.geo.square
    assert format_move(board, Move(4, sq("c3"))) == "4c3"
    for text in ["4c3", "4d4", "4a4", "3b2"]:
        board.push(board.parse_move(text))
    assert format_move(board, Move(4, sq("b2"), sq("c3"))) == "4c3xb2"
    assert format_move(board, Move(4, sq("a1"), sq("c3"))) == "4c3-a1"
    jr = Board(variant("gobblet-jr"))
    jr.push(jr.parse_move("1a1"))
    assert format_move(jr, Move(2, sq("a1"))) == "2xa1"


def _line_position() -> Board:
    # White shows a1, b1, c1 and d1 is empty
    return parse_position("gobblet .,.,.,B4/.,.,.,./B4,B4,.,./W4,W4,W4,. w 3,3,3 3,3,3 4")


def test_end_marks_are_written_and_checked():
    board = _line_position()
    d1, d2 = board.geo.square("d1"), board.geo.square("d2")
    assert format_move(board, Move(3, d1)) == "3d1#"
    assert format_move(board, Move(3, d2)) == "3d2"
    assert parse_move(board, "3d1#") == Move(3, d1)
    with pytest.raises(IllegalMove, match="marked '=' but the move gives #"):
        parse_move(board, "3d1=")
    with pytest.raises(IllegalMove, match="marked '#' but the move gives no mark"):
        parse_move(board, "3d2#")


def test_reveal_and_repetition_marks():
    board = Board(variant("gobblet"))
    for text in "4a4 4a2 4b4 4b2 4c4 4d4 3c3 3c2 4c4xc2 3d2".split():
        board.push(board.parse_move(text))
    # White's 4 on c2 covers Black's 3 that completes Black's rank 2
    sq = board.geo.square
    assert format_move(board, Move(4, sq("d1"), sq("c2"))) == "4c2-d1?#"
    assert format_move(board, Move(4, sq("d2"), sq("c2"))) == "4c2xd2"
    jr = Board(variant("gobblet-jr"))
    shuffle = ["3a1", "3c3", "3a1-b1", "3c3-b3", "3b1-a1", "3b3-c3", "3a1-b1", "3c3-b3", "3b1-a1"]
    for text in shuffle:
        jr.push(jr.parse_move(text))
    assert jr.move_text(Move(3, jr.geo.square("c3"), jr.geo.square("b3"))) == "3b3-c3="


@pytest.mark.parametrize(
    "text, error, words",
    [
        ("4f3", NotationError, "not move text"),
        ("4d5", NotationError, "unknown square 'd5'"),
        ("c3", NotationError, "an entry names the size"),
        ("4-c3", NotationError, "without '-'"),
        ("4c3!", NotationError, "not move text"),
        ("", NotationError, "not move text"),
        ("b1-c3", IllegalMove, "b1 is empty"),
        ("4xc3", IllegalMove, "c3 is empty, there is nothing to gobble"),
        ("4c3#", IllegalMove, "marked '#' but the move gives no mark"),
        ("5c3", IllegalMove, "there is no size 5 in this game"),
        ("3c3", IllegalMove, "White has no external stack with a size 3 on top"),
    ],
)
def test_wrong_move_texts_say_why(text, error, words):
    board = Board(variant("gobblet"))
    with pytest.raises(error) as info:
        parse_move(board, text)
    assert words in str(info.value)


def test_illegal_moves_say_which_rule():
    board = Board(variant("gobblet"))
    for text in ["4a1", "4b2", "3a2"]:
        board.push(board.parse_move(text))
    cases = {
        "4xa2": "may gobble only an opponent piece in a line where White shows 3",
        "4b2-a1": "a1 holds a size 4, not smaller than 4",
        "3a2-a3": "the top of a2 is White's, not Black's",
        "2b2-a3": "the top of b2 is a size 4, not 2",
        "4b2-b2": "a piece must move to a different square",
    }
    for text, words in cases.items():
        with pytest.raises(IllegalMove) as info:
            parse_move(board, text)
        assert words in str(info.value), (text, str(info.value))
    jr = Board(variant("gobblet-jr"))
    for text in ["1a1", "1b1", "1c1", "2a2"]:
        jr.push(jr.parse_move(text))
    with pytest.raises(IllegalMove, match="White has no size 1 left in reserve"):
        jr.parse_move("1a3")
    over = _line_position()
    over.push(over.parse_move("3d1#"))
    with pytest.raises(IllegalMove, match="the game is over"):
        over.parse_move("3d2")


TEXT = st.text(
    alphabet=st.sampled_from(list("wbWB.,/- 0123456789abcdex#?=[]gobletjrsu-") + ["\n"]),
    max_size=80,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(TEXT, st.text(max_size=60)))
def test_parse_position_never_crashes(text):
    try:
        board = parse_position(text)
    except NotationError:
        return
    assert parse_position(format_position(board)).key() == board.key()


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(ALL_TOKENS),
    st.lists(st.integers(min_value=0, max_value=10_000), max_size=6),
    st.one_of(TEXT, st.text(max_size=20)),
)
def test_parse_move_never_crashes(token, choices, text):
    board = board_after(token, choices)
    try:
        move = parse_move(board, text)
    except (NotationError, IllegalMove):
        return
    assert board.is_legal(move)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(list(VARIANTS)),
    st.lists(st.integers(min_value=0, max_value=10_000), max_size=30),
    st.text(alphabet=st.sampled_from(list("0123456789,- ")), max_size=12),
)
def test_reserve_and_move_number_fields_never_crash(token, choices, noise):
    board = board_after(token, choices)
    fields = format_position(board).split(" ")
    for i in (3, 4, 5):
        changed = list(fields)
        changed[i] = noise
        try:
            parse_position(" ".join(changed))
        except NotationError:
            pass


@pytest.mark.parametrize(
    "text",
    [
        "gobblet .,.,.,./.,.,.,./.,.,.,./.,.,.,. w 4,4,4 4,4,4 \u00b2",
        "gobblet .,.,.,./.,.,.,./.,.,.,./.,.,.,. w 4,4,\u00b2 4,4,4 1",
        "gobblet[board=\u00b2] .,.,.,./.,.,.,./.,.,.,./.,.,.,. w 4,4,4 4,4,4 1",
    ],
)
def test_non_ascii_digits_are_a_notation_error(text):
    with pytest.raises(NotationError):
        parse_position(text)


def doc_blocks(kind: str) -> list[str]:
    """The fenced blocks of docs/formats.md whose info string is ``kind``."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "formats.md").read_text(
        encoding="utf-8"
    )
    return re.findall(rf"^```{kind}\n(.*?)^```$", text, flags=re.S | re.M)


def test_rule_tokens_in_the_docs_are_canonical():
    (block,) = doc_blocks("rules")
    for token in block.split():
        assert Rules.parse(token).token == token
    assert Rules.parse("gobblet[line=4,board=5]").token == "gobblet[board=5]"  # as the docs say


def test_position_texts_in_the_docs_are_real():
    blocks = doc_blocks("position")
    assert len(blocks) >= 2
    for block in blocks:
        for line in block.splitlines():
            assert format_position(parse_position(line)) == line
