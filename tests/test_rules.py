"""Hand-built positions, one group of tests per ruling of shared/RULES.md.

Positions are written as position texts (see ``engine.gobblet.notation``): ranks from the top rank
down, each square ``.`` or its stack bottom to top, then side to move, White's and Black's
reserves (tops of external stacks, or loose pieces) and the move number.  Every position is
checked by the engine's set-up validation, so piece counts are consistent.
"""

import pytest
from helpers import (
    destinations,
    empty_squares,
    entry,
    entry_squares,
    play_all,
    sq,
    step,
)

from engine.gobblet import BLACK, WHITE, Board, Move, Rules
from engine import GameOver, IllegalMove, Outcome

# --------------------------------------------------------------------------- positions
# gobblet, Black to move.  White shows 3 tops on rank 1 (W4 a1, W4 b1, W2 c1) and the 4th
# square d1 holds Black's own B1.  White's W1 on b3 is in no line where White shows 3
# (rank 3: B3 W1 B4 ., file b: W4 . W1 ., diagonals through b3 hold one White top).
# Black's two untouched external stacks show size 4.
DEFENSIVE = "gobblet B2,.,.,./B3,W1,W3B4,./.,.,.,./W4,W4,W2,B1 b 4,3 4,4 9"
# The same, but the 4th square of White's line (d1) is empty; Black's B1 is on d3.
DEFENSIVE_OPEN = "gobblet B2,.,.,./B3,W1,W3B4,B1/.,.,.,./W4,W4,W2,. b 4,3 4,4 9"
# As DEFENSIVE, but Black has also played a B4 (on d4) and so can enter a 3 or a 4.
DEFENSIVE_TWO_SIZES = "gobblet B2,.,.,B4/B3,W1,W3B4,./.,.,.,./W4,W4,W2,B1 b 4,3 4,3 9"

# gobblet, White to move.  Black shows 3 tops on rank 2 (B3 a2, B3 b2, B3 c2) and its 4th piece
# of that line, a B2, is hidden under White's W4 on d2.  White shows 3 on rank 1 (d1 empty).
OUTCOME = "gobblet B4,B4,.,./.,.,.,B4/B3,B3,B3,B2W4/W4,W4,W3,. w 3,3,2 2,2,1 10"
# gobblet, White to move.  Lifting White's W4 from d2 reveals a B2 completing BOTH Black's
# rank 2 (B3 a2, B3 b2, B3 c2) and Black's file d (B4 d1, B4 d3, B4 d4).
DOUBLE_REVEAL = "gobblet .,.,.,B4/.,.,.,B4/B3,B3,B3,B2W4/.,.,.,B4 w 4,4,3 2,2,1 10"

# gobblet-jr, White to move, every square occupied, no line for anyone:
#   B3 W2 B2 / W2 B3 W3 / W1 B1 W3(over W1).  White's reserve is empty.
# White's W1 on a1 can go nowhere (no empty square, no top smaller than 1).
TOUCH_JR = "gobblet-jr B3,W2,B2/W2,B3,W3/W1,B1,W1W3 w - 2,1 8"

# gobblet-jr with 5 pieces of each size: White has all 15 pieces on the board, every top is a
# size 3 (five White, four Black, a drawn tic-tac-toe pattern), so White cannot move at all.
NO_MOVES = (
    "gobblet-jr[per=5] W1W2W3,B3,W1W2W3/W1W2W3,B3,B3/B3,W1W2W3,W1W2W3 w - 3,2,2,2,2,2,1,1,1,1,1 20"
)
# One ply earlier: a1 is still empty and Black (to move) still holds that B3.
NO_MOVES_BEFORE = (
    "gobblet-jr[per=5] W1W2W3,B3,W1W2W3/W1W2W3,B3,B3/.,W1W2W3,W1W2W3 b - 3,3,2,2,2,2,2,1,1,1,1,1 19"
)


def names(board, squares):
    return tuple(board.geo.names[s] for s in squares)


# --------------------------------------------------------------------------- defensive entry
class TestDefensiveEntryGobblet:
    """`gobblet`: a reserve piece enters onto an empty square, or onto a smaller OPPONENT piece
    that belongs to a line in which the opponent shows 3 tops; never onto one's own piece."""

    def test_allowed_onto_smaller_opponent_piece_in_a_line_of_three(self):
        board = Board.from_text(DEFENSIVE)
        assert board.illegal_reason(entry(board, 4, "c1")) is None  # W2 in White's rank 1
        board.play(entry(board, 4, "c1"))
        assert board.stack(sq(board, "c1")) == [(WHITE, 2), (BLACK, 4)]

    def test_refused_onto_own_piece_even_in_that_line(self):
        board = Board.from_text(DEFENSIVE)
        reason = board.illegal_reason(entry(board, 4, "d1"))  # Black's own B1, in rank 1
        assert reason is not None and "own" in reason
        with pytest.raises(IllegalMove):
            board.play(entry(board, 4, "d1"))

    def test_refused_onto_opponent_piece_not_in_such_a_line(self):
        board = Board.from_text(DEFENSIVE)
        reason = board.illegal_reason(entry(board, 4, "b3"))  # White's W1, lines hold <= 2 White
        assert reason is not None and "shows 3" in reason

    def test_refused_onto_piece_not_smaller(self):
        board = Board.from_text(DEFENSIVE)
        reason = board.illegal_reason(entry(board, 4, "a1"))  # W4 in the line: equal size
        assert reason is not None and "not smaller" in reason

    def test_only_a_larger_piece_may_gobble(self):
        """With a 3 and a 4 on top of Black's stacks: the 3 may take the W2 in the line, but
        not a W4 of the same line."""
        board = Board.from_text(DEFENSIVE_TWO_SIZES)
        assert board.is_legal(entry(board, 3, "c1"))
        assert not board.is_legal(entry(board, 3, "a1"))
        assert not board.is_legal(entry(board, 3, "b1"))

    def test_entry_squares_are_exactly_the_empty_ones_plus_the_threatening_piece(self):
        board = Board.from_text(DEFENSIVE)
        assert entry_squares(board, 4) == empty_squares(board) | {"c1"}
        # Black's only size in reserve is 4 (both stacks untouched)
        assert {m.size for m in board.legal_moves() if m.is_entry} == {4}

    def test_line_with_an_empty_fourth_square(self):
        board = Board.from_text(DEFENSIVE_OPEN)
        assert entry_squares(board, 4) == empty_squares(board) | {"c1"}
        assert "d1" in empty_squares(board)

    def test_no_gobbling_entry_without_a_line_of_three(self):
        """Remove one piece of White's line (the W2 on c1 moves away): entries go only to
        empty squares again."""
        board = Board.from_text(DEFENSIVE.replace(" b ", " w "))
        board.play(step(board, "c1", "c2"))  # White's rank 1 now shows 2
        assert entry_squares(board, 4) == empty_squares(board)

    def test_entering_onto_empty_square_is_always_allowed(self):
        for text in (DEFENSIVE, DEFENSIVE_OPEN, OUTCOME):
            board = Board.from_text(text)
            for size in set(board.reserve_tops(board.turn)):
                assert empty_squares(board) <= entry_squares(board, size)

    def test_the_mover_may_defend_against_a_diagonal(self):
        """White shows 3 on the diagonal a1-d4 with a W1 on b2; Black enters its 4 there."""
        # White: W4 a4, W1 b2, W4 over W3 on c3, W4 over W2 on d4; a1 empty
        text = "gobblet W4,.,.,W2W4/.,.,W3W4,./.,W1,.,./.,.,.,. b 3,3 4,4,4 4"
        board = Board.from_text(text)
        assert entry_squares(board, 4) == empty_squares(board) | {"b2"}


# --------------------------------------------------------------------------- storer entry
class TestStorerEntry:
    """`storer`: a reserve cup may go onto any smaller top (either colour) on a square lying on
    a line that already has 3 stacks with the opponent's colour on top; nowhere else."""

    def board(self, text=DEFENSIVE):
        return Board.from_text(text.replace("gobblet", "storer", 1))

    def test_onto_opponent_piece_in_the_line(self):
        assert self.board().is_legal(entry(self.board(), 4, "c1"))

    def test_onto_own_piece_in_the_line(self):
        board = self.board()
        assert board.is_legal(entry(board, 4, "d1"))  # Black's own B1 on White's rank 1
        board.play(entry(board, 4, "d1"))
        assert board.stack(sq(board, "d1")) == [(BLACK, 1), (BLACK, 4)]

    def test_not_onto_smaller_tops_off_the_line(self):
        board = self.board()
        for name in ("b3", "a3", "a4"):  # W1, own B3, own B2: on no line with 3 White tops
            reason = board.illegal_reason(entry(board, 4, name))
            assert reason is not None and "shows 3" in reason

    def test_not_onto_a_top_that_is_not_smaller(self):
        board = self.board()
        assert not board.is_legal(entry(board, 4, "a1"))  # W4
        assert not board.is_legal(entry(board, 4, "c3"))  # B4

    def test_entry_squares(self):
        board = self.board()
        assert entry_squares(board, 4) == empty_squares(board) | {"c1", "d1"}

    def test_without_a_line_of_three_only_empty_squares(self):
        board = self.board(DEFENSIVE.replace(" b ", " w "))
        board.play(step(board, "c1", "c2"))
        assert entry_squares(board, 4) == empty_squares(board)


# --------------------------------------------------------------------------- gobblet-jr entry
def test_gobblet_jr_reserve_piece_may_gobble_any_smaller_top():
    """`gobblet-jr`: a reserve piece may go on an empty square or over any smaller top of
    either colour, with no line condition."""
    board = Board.from_text("gobblet-jr .,.,./.,.,./B1,W1,B2 w 3,3,2,2,1 3,3,2,1 3")
    empty = empty_squares(board)
    assert entry_squares(board, 3) == empty | {"a1", "b1", "c1"}
    assert entry_squares(board, 2) == empty | {"a1", "b1"}  # both size-1 tops, either colour
    assert entry_squares(board, 1) == empty
    assert destinations(board, "b1") == empty  # the W1 on the board
    # 9 + 8 + 6 entries, 6 board moves
    assert len(board.legal_moves()) == 9 + 8 + 6 + 6


# --------------------------------------------------------------------------- external stacks
class TestExternalStacks:
    """Only the top of an external stack can be played."""

    def test_after_playing_a_4_its_3_is_available_but_not_the_2(self):
        board = Board()
        assert entry_squares(board, 3) == set()
        board.play(entry(board, 4, "a1"))
        board.play(entry(board, 4, "d4"))
        assert board.reserve_tops(WHITE) == [4, 4, 3]
        assert board.is_legal(entry(board, 3, "b1"))
        reason = board.illegal_reason(entry(board, 2, "b1"))
        assert reason is not None and "size 2" in reason
        with pytest.raises(IllegalMove):
            board.play(entry(board, 2, "b1"))
        board.play(entry(board, 3, "b1"))
        board.play(entry(board, 4, "d3"))
        assert board.reserve_tops(WHITE) == [4, 4, 2]
        assert board.is_legal(entry(board, 2, "c1"))
        assert not board.is_legal(entry(board, 1, "c1"))

    def test_the_pieces_off_the_board_are_the_nested_remainders(self):
        board = Board()
        board.play(entry(board, 4, "a1"))
        assert board.reserve_pieces(WHITE) == [4, 4, 3, 3, 3, 2, 2, 2, 1, 1, 1]
        assert board.reserve_pieces(BLACK) == [4, 4, 4, 3, 3, 3, 2, 2, 2, 1, 1, 1]


# --------------------------------------------------------------------------- board moves
class TestBoardMoves:
    """A board move lifts one's own visible piece to a different square that is empty or has
    a smaller top of either colour; lifting reveals what was underneath."""

    def test_destinations_are_empty_or_smaller_tops(self):
        board = Board.from_text(DEFENSIVE.replace(" b ", " w "))
        # W2 on c1: the empty squares, the W1 on b3 and the B1 on d1 (both smaller); not the
        # B2 on a4 (equal) nor any 3 or 4
        assert destinations(board, "c1") == empty_squares(board) | {"b3", "d1"}
        # W4 on a1 may go over every smaller top of either colour, but not onto the other W4
        # nor the B4 on c3
        assert destinations(board, "a1") == empty_squares(board) | {"c1", "d1", "b3", "a3", "a4"}

    def test_same_square_is_refused(self):
        board = Board.from_text(DEFENSIVE.replace(" b ", " w "))
        reason = board.illegal_reason(Move(4, sq(board, "a1"), sq(board, "a1")))
        assert reason is not None and "different square" in reason

    def test_onto_equal_or_larger_is_refused(self):
        board = Board.from_text(DEFENSIVE.replace(" b ", " w "))
        assert not board.is_legal(step(board, "a1", "b1"))  # W4 on W4
        assert not board.is_legal(step(board, "a1", "c3"))  # W4 on B4
        assert not board.is_legal(step(board, "c1", "a4"))  # W2 on B2

    def test_lifting_reveals_the_piece_underneath(self):
        board = Board.from_text(OUTCOME)
        board.play(step(board, "d2", "a2"))
        assert board.top(sq(board, "d2")) == (BLACK, 2)
        assert board.stack(sq(board, "a2")) == [(BLACK, 3), (WHITE, 4)]

    def test_moving_a_piece_whose_top_is_the_opponents_is_illegal(self):
        """c3 holds a White 3 under a Black 4: White may not move either of them."""
        board = Board.from_text(DEFENSIVE.replace(" b ", " w "))
        c3 = sq(board, "c3")
        for size in (3, 4):
            reason = board.illegal_reason(Move(size, sq(board, "c2"), c3))
            assert reason is not None and "Black's" in reason
        assert all(m.frm != c3 for m in board.legal_moves())

    def test_the_size_must_be_the_top_size(self):
        board = Board.from_text(OUTCOME)
        reason = board.illegal_reason(Move(2, sq(board, "c3"), sq(board, "d2")))
        assert reason is not None and "size 4" in reason

    def test_moving_from_an_empty_square_is_illegal(self):
        board = Board.from_text(OUTCOME)
        assert board.illegal_reason(Move(4, sq(board, "c3"), sq(board, "d1"))) is not None


# --------------------------------------------------------------------------- outcome
class TestOutcomeAfterTheWholeMove:
    """Judged after the whole move: the opponent's line wins first (reason "reveal"), then
    the mover's line (reason "line").  Losing moves are legal."""

    def test_mover_completing_a_line_wins(self):
        board = Board.from_text(OUTCOME)
        outcome = board.play(entry(board, 3, "d1"))
        assert outcome == Outcome(WHITE, "line", tuple(sq(board, n) for n in ("a1", "b1", "c1", "d1")))
        assert outcome.result == "1-0"

    def test_uncovering_the_opponents_line_loses(self):
        board = Board.from_text(OUTCOME)
        move = step(board, "d2", "c3")  # lifts the W4 off Black's B2 to an empty square
        assert move in board.legal_moves()  # the losing move is legal
        outcome = board.play(move)
        assert outcome.winner == BLACK and outcome.reason == "reveal"
        assert names(board, outcome.line) == ("a2", "b2", "c2", "d2")
        assert outcome.result == "0-1"

    @pytest.mark.parametrize("cover", ["a2", "b2", "c2"])
    def test_covering_another_piece_of_the_same_line_escapes(self, cover):
        board = Board.from_text(OUTCOME)
        assert board.play(step(board, "d2", cover)) is None
        assert board.outcome() is None
        assert board.turn == BLACK and board.legal_moves()

    def test_both_lines_after_the_move_the_opponent_wins(self):
        """W4 d2-d1 completes White's rank 1 AND uncovers Black's rank 2: Black wins."""
        board = Board.from_text(OUTCOME)
        outcome = board.play(step(board, "d2", "d1"))
        assert board.showing_line(WHITE) and board.showing_line(BLACK)
        assert outcome.winner == BLACK and outcome.reason == "reveal"
        assert names(board, outcome.line) == ("a2", "b2", "c2", "d2")

    def test_covering_one_line_does_not_save_from_a_second_revealed_line(self):
        board = Board.from_text(DOUBLE_REVEAL)
        outcome = board.play(step(board, "d2", "a2"))  # breaks rank 2, file d stays
        assert outcome.winner == BLACK and outcome.reason == "reveal"
        assert names(board, outcome.line) == ("d1", "d2", "d3", "d4")
        # every move of that W4 loses: it cannot cover d1, d3 or d4 (all B4)
        board.pop()
        for move in board.touch(sq(board, "d2")).moves:
            board.push(move)
            assert board.outcome().winner == BLACK
            board.pop()

    def test_a_set_up_position_with_a_line_is_already_over(self):
        """White (who moved last) shows the diagonal a1-b2-c3."""
        board = Board.from_text("gobblet-jr .,.,W1/.,W2,./W3,.,. b 3,2,1 3,3,2,2,1,1 2")
        assert board.outcome() == Outcome(WHITE, "line", tuple(sq(board, n) for n in ("a1", "b2", "c3")))

    def test_move_text_marks_the_endings(self):
        board = Board.from_text(OUTCOME)
        assert board.move_text(entry(board, 3, "d1")) == "3d1#"
        assert board.move_text(step(board, "d2", "c3")) == "4d2-c3?#"
        assert board.move_text(step(board, "d2", "a2")) == "4d2xa2"


# --------------------------------------------------------------------------- repetition
SHUFFLE = "a1-a2 d4-d3 a2-a1 d3-d4"

# gobblet-jr, White to move: a1 = B1 under W3, b1 = W3, Black's B2 on c3.
HIDDEN_P = "gobblet-jr .,.,B2/.,.,./B1W3,W3,. w 2,2,1,1 3,3,2,1 5"
# 8 plies from P to Q, where the B1 is under the W3 of b1 instead (same tops as P) ...
P_TO_Q = "b1-c1 c3-b3 a1-a2 a1-b1 a2-b1 b3-a3 c1-a1 a3-c3"
# ... and 8 plies back from Q to P.
Q_TO_P = "a1-c1 c3-b3 b1-a2 b1-a1 a2-a1 b3-a3 c1-b1 a3-c3"


def tops(board):
    return [board.top(i) for i in range(board.rules.squares)]


class TestRepetition:
    """The third occurrence of the exact position (all stacks including hidden pieces, the
    reserves, the side to move) is a draw; pop undoes it."""

    def test_third_occurrence_is_a_draw(self):
        board = Board()
        play_all(board, "4a1 4d4")
        start_key = board.key()
        assert board.repetitions() == 1
        play_all(board, SHUFFLE)
        assert board.key() == start_key and board.repetitions() == 2
        assert board.outcome() is None
        play_all(board, "a1-a2 d4-d3 a2-a1")
        assert board.outcome() is None
        outcome = board.play(board.parse_move("d3-d4"))
        assert board.key() == start_key
        assert outcome == Outcome(None, "repetition")
        assert outcome.result == "1/2-1/2"
        assert board.legal_moves() == []
        with pytest.raises(GameOver):
            board.play(step(board, "a1", "a2"))

    def test_pop_undoes_the_draw(self):
        board = Board()
        play_all(board, "4a1 4d4 " + SHUFFLE + " " + SHUFFLE)
        assert board.outcome() == Outcome(None, "repetition")
        board.pop()
        assert board.outcome() is None
        assert board.legal_moves()
        board.play(board.parse_move("d3-d4"))  # the same move draws again
        assert board.outcome() == Outcome(None, "repetition")
        board.pop()
        board.play(board.parse_move("d3-c3"))  # another move does not
        assert board.outcome() is None

    def test_same_tops_with_different_hidden_pieces_is_a_different_position(self):
        p = Board.from_text(HIDDEN_P)
        q = Board.from_text(HIDDEN_P)
        play_all(q, P_TO_Q)
        assert q.stack(sq(q, "b1")) == [(BLACK, 1), (WHITE, 3)]
        assert tops(p) == tops(q) and p.turn == q.turn
        assert p.reserve == q.reserve
        assert p.key() != q.key()
        assert p.hash != q.hash

    def test_repeating_the_tops_with_other_hidden_pieces_does_not_draw(self):
        board = Board.from_text(HIDDEN_P)
        first = board.key()
        play_all(board, P_TO_Q)  # Q: same tops as P, 2nd time
        play_all(board, Q_TO_P)  # P again: same tops a 3rd time, exact position a 2nd time
        assert board.key() == first
        assert board.repetitions() == 2
        assert board.outcome() is None
        play_all(board, P_TO_Q)  # Q a 2nd time
        assert board.outcome() is None
        play_all(board, Q_TO_P)  # P a 3rd time
        assert board.repetitions() == 3
        assert board.outcome() == Outcome(None, "repetition")


# --------------------------------------------------------------------------- actions
class TestActions:
    """Resignation and draw by agreement are explicit actions; pop undoes them; nothing is
    accepted after the end."""

    def test_resignation(self):
        board = Board()
        board.play(entry(board, 4, "a1"))
        outcome = board.resign()  # Black, to move, resigns
        assert outcome == Outcome(WHITE, "resignation")
        assert board.outcome() == outcome and board.is_over()
        assert board.legal_moves() == [] and board.count_legal_moves() == 0
        with pytest.raises(GameOver):
            board.play(entry(board, 4, "d4"))
        with pytest.raises(GameOver):
            board.agree_draw()

    def test_the_player_not_to_move_may_resign(self):
        board = Board()
        assert board.resign(BLACK) == Outcome(WHITE, "resignation")

    def test_draw_by_agreement(self):
        board = Board()
        outcome = board.agree_draw()
        assert outcome == Outcome(None, "agreement") and outcome.result == "1/2-1/2"
        with pytest.raises(GameOver):
            board.play(entry(board, 4, "a1"))
        with pytest.raises(GameOver):
            board.resign()

    @pytest.mark.parametrize("action", ["resign", "agree_draw"])
    def test_pop_undoes_an_action(self, action):
        board = Board()
        board.play(entry(board, 4, "a1"))
        key, h, moves = board.key(), board.hash, board.legal_moves()
        getattr(board, action)()
        assert board.can_pop
        assert board.pop() is None
        assert board.outcome() is None
        assert (board.key(), board.hash, board.legal_moves()) == (key, h, moves)
        assert board.ply == 1 and board.move_stack == [entry(board, 4, "a1")]
        board.play(entry(board, 4, "d4"))  # play goes on

    def test_no_move_after_a_line(self):
        board = Board.from_text(OUTCOME)
        board.play(entry(board, 3, "d1"))
        assert board.illegal_reason(entry(board, 2, "c3")) == "the game is over"
        with pytest.raises(GameOver):
            board.play(entry(board, 2, "c3"))
        with pytest.raises(GameOver):
            board.resign()


# --------------------------------------------------------------------------- touch-move
class TestTouchMove:
    """Board.touch(square): the legal moves of the lifted piece; lifting the opponent's piece
    is a violation; lifting one's own piece with nowhere to go loses (forfeit_touch)."""

    def test_lifted_piece_moves(self):
        board = Board.from_text(TOUCH_JR)
        verdict = board.touch(sq(board, "c2"))  # W3: onto any top smaller than 3
        assert verdict.violation is None and not verdict.loses
        assert {board.geo.names[m.to] for m in verdict.moves} == {"a1", "b1", "a2", "b3", "c3"}
        assert all(m.frm == sq(board, "c2") and m.size == 3 for m in verdict.moves)
        assert set(verdict.moves) == {m for m in board.legal_moves() if m.frm == sq(board, "c2")}

    def test_lifting_the_opponents_piece_is_a_violation(self):
        board = Board.from_text(TOUCH_JR)
        verdict = board.touch(sq(board, "b2"))  # Black's B3
        assert verdict.violation is not None and "Black's" in verdict.violation
        assert not verdict.loses and verdict.moves == ()
        with pytest.raises(IllegalMove):
            board.forfeit_touch(sq(board, "b2"))
        assert board.outcome() is None

    def test_lifting_a_stack_with_own_piece_hidden_under_the_opponents(self):
        board = Board.from_text(DEFENSIVE.replace(" b ", " w "))
        verdict = board.touch(sq(board, "c3"))  # W3 under B4
        assert verdict.violation is not None and not verdict.loses

    def test_lifting_nothing_is_a_violation(self):
        board = Board.from_text(OUTCOME)
        assert board.touch(sq(board, "c3")).violation is not None

    def test_own_piece_with_no_destination_loses(self):
        board = Board.from_text(TOUCH_JR)
        assert board.legal_moves()  # White has other moves...
        verdict = board.touch(sq(board, "a1"))  # ... but the W1 on a1 has none
        assert verdict.violation is None and verdict.moves == () and verdict.loses
        outcome = board.forfeit_touch(sq(board, "a1"))
        assert outcome == Outcome(BLACK, "touch-move")
        assert board.outcome() == outcome and board.legal_moves() == []
        with pytest.raises(GameOver):
            board.play(Move(3, sq(board, "a1"), sq(board, "c2")))
        board.pop()
        assert board.outcome() is None

    def test_forfeit_refused_when_the_piece_can_move(self):
        board = Board.from_text(TOUCH_JR)
        with pytest.raises(IllegalMove):
            board.forfeit_touch(sq(board, "c2"))
        assert board.outcome() is None

    def test_touch_in_4x4_lists_losing_moves_too(self):
        """The lifted W4 on d2 may go to c3 even though that uncovers Black's line."""
        board = Board.from_text(OUTCOME)
        moves = board.touch(sq(board, "d2")).moves
        assert step(board, "d2", "c3") in moves
        assert {board.geo.names[m.to] for m in moves} == empty_squares(board) | {"a2", "b2", "c2", "c1"}


# --------------------------------------------------------------------------- no legal move
class TestNoLegalMove:
    """The player to move with no legal move loses."""

    def test_set_up_position(self):
        board = Board.from_text(NO_MOVES)
        assert board.legal_moves() == [] and board.count_legal_moves() == 0
        assert board.outcome() == Outcome(BLACK, "no-moves")
        assert board.is_over()
        with pytest.raises(GameOver):
            board.resign()
        assert board.touch(sq(board, "a3")).violation is not None

    def test_arising_from_a_move(self):
        board = Board.from_text(NO_MOVES_BEFORE)
        assert board.outcome() is None
        outcome = board.play(entry(board, 3, "a1"))
        assert outcome == Outcome(BLACK, "no-moves")
        assert board.key() == Board.from_text(NO_MOVES).key()
        board.pop()
        assert board.outcome() is None

    def test_any_move_is_refused(self):
        board = Board.from_text(NO_MOVES)
        with pytest.raises(IllegalMove):
            board.play(Move(3, sq(board, "b3"), sq(board, "a3")))

    def test_a_move_after_a_no_moves_loss_is_refused_as_game_over(self):
        board = Board.from_text(NO_MOVES)
        with pytest.raises(GameOver):
            board.play(Move(3, sq(board, "b3"), sq(board, "a3")))


# --------------------------------------------------------------------------- 5x5 and custom
# goblet-5, Black to move: White shows 4 on rank 1 (W5 W5 W5 W4), e1 empty.
G5_FOUR = "goblet-5 .,.,.,.,./.,.,.,.,./.,.,.,.,./.,.,.,.,./W5,W5,W5,W4,. b 5,5,4,4,3 5,5,5,5,5 3"
# goblet-5, Black to move: White shows only 3 on rank 1 (W5 W5 W4), d1 and e1 empty.
G5_THREE = "goblet-5 .,.,.,.,./.,.,.,.,./.,.,.,.,./.,.,.,.,./W5,W5,W4,.,. b 5,5,5,4,3 5,5,5,5,5 3"


class TestGoblet5:
    """`goblet-5`: 5x5, 5 stacks of 5 sizes, lines of 5, defensive entry when the opponent
    shows 4 in a line."""

    def test_lines_of_five(self):
        board = Board(Rules.parse("goblet-5"))
        # 5 ranks + 5 files + 2 diagonals
        assert len(board.geo.lines) == 12
        assert all(line.bit_count() == 5 for line in board.geo.lines)

    def test_defensive_entry_when_the_opponent_shows_four(self):
        board = Board.from_text(G5_FOUR)
        assert entry_squares(board, 5) == empty_squares(board) | {"d1"}
        assert len(board.legal_moves()) == 21 + 1  # 21 empty squares + the W4 on d1
        assert not board.is_legal(entry(board, 5, "a1"))  # W5: not smaller

    def test_no_defensive_entry_when_the_opponent_shows_three(self):
        board = Board.from_text(G5_THREE)
        assert entry_squares(board, 5) == empty_squares(board)
        assert not board.is_legal(entry(board, 5, "c1"))

    def test_four_in_a_row_does_not_win_five_does(self):
        board = Board.from_text(G5_THREE.replace(" b ", " w ", 1))
        assert board.play(entry(board, 5, "d1")) is None  # 4 in a row: the game goes on
        board.play(entry(board, 5, "a5"))
        outcome = board.play(entry(board, 5, "e1"))
        assert outcome.winner == WHITE and outcome.reason == "line"
        assert names(board, outcome.line) == ("a1", "b1", "c1", "d1", "e1")


class TestCustomGame:
    """A custom game from options: ``gobblet[board=5,line=4]`` plays lines of 4 on a 5x5 board
    with defensive entry when the opponent shows 3."""

    TEXT = "gobblet[board=5,line=4] .,.,.,.,./.,.,.,.,./.,.,.,.,./.,.,.,.,./.,W4,W4,W3,. b 4,3,2 4,4,4 3"

    def test_geometry(self):
        board = Board(Rules.parse("gobblet[board=5,line=4]"))
        # per direction: ranks 5 rows x 2 starts, files 2 x 5, each diagonal direction 2 x 2
        assert len(board.geo.lines) == 10 + 10 + 4 + 4
        assert board.count_legal_moves() == 25  # the 3 stacks all show a 4

    def test_defensive_entry_with_three(self):
        board = Board.from_text(self.TEXT)
        assert entry_squares(board, 4) == empty_squares(board) | {"d1"}
        assert not board.is_legal(entry(board, 4, "b1"))

    def test_four_in_a_row_wins(self):
        board = Board.from_text(self.TEXT.replace(" b ", " w ", 1))
        outcome = board.play(entry(board, 4, "e1"))
        assert outcome.winner == WHITE and outcome.reason == "line"
        assert names(board, outcome.line) == ("b1", "c1", "d1", "e1")

    def test_free_reserve_three_sizes_black_first(self):
        rules = Rules.parse("gobblet[reserve=free,sizes=3,first=b]")
        board = Board(rules)
        assert board.turn == BLACK
        assert board.reserve_tops(BLACK) == [3, 3, 3, 2, 2, 2, 1, 1, 1]
        # any of 3 sizes on any of 16 squares
        assert board.count_legal_moves() == 3 * 16
        board.play(entry(board, 1, "b2"))
        assert board.turn == WHITE
        # White: 3 sizes on 15 empty squares; no gobbling entry (Black shows 1 top)
        assert len(board.legal_moves()) == 3 * 15
        assert board.text().split()[2:] == ["w", "3,3,3,2,2,2,1,1,1", "3,3,3,2,2,2,1,1", "1"]

    def test_twofold_repetition_option(self):
        board = Board(Rules.parse("gobblet[rep=2]"))
        play_all(board, "4a1 4d4 a1-a2 d4-d3 a2-a1")
        assert board.outcome() is None
        assert board.play(board.parse_move("d3-d4")) == Outcome(None, "repetition")
