"""The search's shortcuts that read a child from the parent's bitboards without playing the move
agree with playing it: wins and scores of unplayed children.  (The replies to threats and
their targets are checked in ``test_search_tables.py``.)"""

import pytest
from helpers import random_positions

from engine.gobblet import Board
from engine.gobblet.rules import VARIANTS
from engine.gobblet.search.searcher import Searcher, SearchLimits
from engine.gobblet.search.frontier import Frontier
from engine.gobblet.tactics import (
    completing_squares,
    has_winning_move,
    winning_moves,
)


def _frontier(board):
    searcher = Searcher()
    searcher.search(board, SearchLimits(time=None, depth=1))  # sets up the searcher's state
    searcher._board = board
    return Frontier(searcher, 1).reset()


@pytest.mark.parametrize("name", list(VARIANTS))
def test_unplayed_children_know_who_wins_at_once(name):
    # ``Frontier._wins`` says what ``has_winning_move`` says on the child
    checked = 0
    for board in random_positions(name, 12, 23, 40):
        if board.outcome() is not None or winning_moves(board):
            continue
        leaf = _frontier(board)
        me = board.turn
        for move in board.legal_moves():
            board.push(move)
            if board.decided is None:
                tops = list(board.tops)
                for c in (me, 1 - me):
                    hot = completing_squares(board, c)
                    want = has_winning_move(board, c)
                    board.pop()
                    got = bool(hot) and leaf._wins(tuple(move), c, tops[c], tops[1 - c], hot)
                    board.push(move)
                    assert got == want, (board.text(), move, c)
                    checked += 1
            board.pop()
    assert checked > 100


@pytest.mark.parametrize("name", list(VARIANTS))
def test_a_searcher_scores_the_same_with_and_without_unplayed_children(name):
    for k, board in enumerate(random_positions(name, 6, 24, 24)):
        if k % 4 or board.outcome() is not None or winning_moves(board):
            continue
        for limits in (SearchLimits(time=None, depth=3), SearchLimits(time=None, nodes=4000, deterministic=True)):
            fast = Searcher().search(board, limits)
            slow = Searcher(_fast_frontier=False).search(board, limits)
            assert (fast.move, fast.score, fast.nodes, fast.pv) == (slow.move, slow.score, slow.nodes, slow.pv)


def test_a_board_move_back_to_a_seen_position_scores_as_a_draw_on_4x4():
    # the frontier reads repetitions from the child's hash; entries never repeat (the child has
    # more pieces on the board than any earlier position), board moves may
    board = Board.from_text("gobblet .,B4,.,W3/W4,.,W2,B2/.,.,.,./.,.,B3,B4 w 4,4,1 4,3,1 8")
    for text in ["4a3-a2", "4b4-b3", "4a2-a3", "4b3-b4"]:
        board.play(board.parse_move(text))
    assert board.repetitions() == 2
    for fast in (True, False):
        r = Searcher(_fast_frontier=fast).search(board, SearchLimits(time=None, depth=1), multipv=100)
        scores = {board.move_text(sm.move): sm.score for sm in r.ranked}
        assert scores["4a3-a2"] == 0
        assert any(v != 0 for v in scores.values())
    # one ply deeper the repetition is met at the frontier and in the quiescence step's replies
    board.pop()
    limits = SearchLimits(time=None, depth=3)
    fast = Searcher().search(board, limits, multipv=3)
    slow = Searcher(_fast_frontier=False).search(board, limits, multipv=3)
    assert (fast.move, fast.score, fast.nodes, fast.ranked) == (slow.move, slow.score, slow.nodes, slow.ranked)
