"""The search on 4x4 and 5x5 positions: wins, blocks, reveal traps, limits, determinism."""

import time

import pytest
from helpers import random_positions

from engine.gobblet import Board, Move
from engine.gobblet.movegen import is_legal_now, ordered_moves
from engine.gobblet.search.searcher import (
    FALLBACK_GROWTH,
    INF,
    MATE,
    TWO_PLY_GROWTH,
    Searcher,
    SearchLimits,
    child_hash,
    search,
)
from engine.gobblet.search.frontier import staged_moves
from engine.gobblet.tactics import LOSES, WINS, has_winning_move, move_result, winning_moves

WIN_IN_3 = "gobblet B4,.,.,./.,.,W3,./.,W4,.,B4/.,W4,W3,. w 4,2,2 4,3,3 5"
REVEAL_TRAP = "gobblet .,.,.,./.,W4,W3,./.,.,.,./B4,B4,B2W4,B3 w 4,3,2 4,3,1 6"
MUST_BLOCK = "gobblet B3,B3,B2,./.,.,.,./.,W4,W4,./B4,.,.,B4 w 4,3,3 4,2,1 6"
WIN_IN_1_5X5 = "goblet-5 .,.,.,.,./.,.,.,.,./B5,B5,.,.,./.,.,.,.,./W5,W5,W5,W5,. w 5,4,4,4,4 5,5,5,4,4 5"
MIDGAME = "gobblet .,B4,.,W3/W4,.,W2,B2/.,.,.,./.,.,B3,B4 w 4,4,1 4,3,1 8"


def pushed_result(board, move):
    board.push(move)
    try:
        return board.outcome()
    finally:
        board.pop()


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_takes_a_win_in_one_on_5x5(depth):
    board = Board.from_text(WIN_IN_1_5X5)
    r = search(board, SearchLimits(time=None, depth=depth))
    assert r.mate == 1 and r.score == MATE - 1
    assert pushed_result(board, r.move).winner == board.turn


def test_finds_the_win_in_three():
    board = Board.from_text(WIN_IN_3)
    assert not winning_moves(board)
    r = search(board, SearchLimits(time=None, depth=3))
    assert r.mate == 3
    # after the move every Black reply leaves White a win in one
    board.push(r.move)
    for reply in board.legal_moves():
        board.push(reply)
        assert board.outcome() is None and winning_moves(board), board.text()
        board.pop()


def test_blocks_the_immediate_threat():
    board = Board.from_text(MUST_BLOCK)
    assert winning_moves(board, 1 - board.turn)
    for depth in (1, 2, 3):
        r = search(board, SearchLimits(time=None, depth=depth))
        board.push(r.move)
        assert board.outcome() is None and not winning_moves(board), board.move_text(r.move)
        board.pop()
        assert r.mate is None


def test_avoids_uncovering_the_opponents_line():
    board = Board.from_text(REVEAL_TRAP)
    c1 = board.geo.square("c1")
    lifts = [m for m in board.legal_moves() if m.frm == c1]
    losing = [m for m in lifts if move_result(board, m) == LOSES]
    assert losing and all(pushed_result(board, m).winner != board.turn for m in losing)
    for depth in (1, 2):
        r = search(board, SearchLimits(time=None, depth=depth))
        assert move_result(board, r.move) != LOSES
        assert r.mate is None or r.mate > 0


def test_move_result_agrees_with_the_board():
    board = Board.from_text(WIN_IN_1_5X5)
    for m in board.legal_moves():
        outcome = pushed_result(board, m)
        expected = WINS if outcome and outcome.winner == board.turn else LOSES if outcome else 0
        assert move_result(board, m) == expected


def test_time_limit_is_honoured():
    board = Board.from_text(MIDGAME)
    start = time.perf_counter()
    r = search(board, SearchLimits(time=0.3))
    elapsed = time.perf_counter() - start
    assert elapsed < 0.3 + 0.4
    assert r.move in board.legal_moves() and r.depth >= 1


def test_node_limit_and_deterministic_mode_reproduce():
    board = Board.from_text(MIDGAME)
    limits = SearchLimits(time=None, nodes=3000, deterministic=True)
    a = Searcher().search(board, limits)
    b = Searcher().search(board, limits)
    assert (a.move, a.score, a.depth, a.nodes, a.pv) == (b.move, b.score, b.depth, b.nodes, b.pv)
    assert a.nodes <= 3000 + 64


def test_search_leaves_the_board_unchanged():
    board = Board.from_text(MIDGAME)
    before = (board.text(), board.hash, dict(board.seen))
    search(board, SearchLimits(time=None, nodes=2000, deterministic=True))
    assert (board.text(), board.hash, dict(board.seen)) == before


def test_deterministic_mode_needs_a_limit():
    with pytest.raises(ValueError):
        SearchLimits(time=1.0, deterministic=True)


def test_a_repeated_position_scores_as_a_draw():
    board = Board.from_text("gobblet-jr W3,.,./.,.,./.,.,B3 w 3,2,2,1,1 3,2,2,1,1 2")
    for text in ["3a3-b3", "3c1-b1", "3b3-a3", "3b1-c1"]:
        board.play(board.parse_move(text))
    assert board.repetitions() == 2
    r = Searcher().search(board, SearchLimits(time=None, depth=1), multipv=100)
    scores = {board.move_text(sm.move): sm.score for sm in r.ranked}
    assert scores["3a3-b3"] == 0  # the position after it already occurred
    assert any(v != 0 for v in scores.values())


@pytest.mark.parametrize("name", ["gobblet", "gobblet-jr", "storer", "goblet-5"])
def test_search_move_generation_agrees_with_the_board(name):
    for board in random_positions(name, 12, 3, 30):
        legal = set(board.legal_moves())
        generated = ordered_moves(board, (), [None, None], {})
        assert len(generated) == len(legal) and set(generated) == legal, board.text()
        tried = tuple(generated[:2])
        assert set(ordered_moves(board, tried, [None, None], {})) == legal - set(tried)
        assert has_winning_move(board) == bool(winning_moves(board))
        assert has_winning_move(board, 1 - board.turn) == bool(winning_moves(board, 1 - board.turn))


@pytest.mark.parametrize("name", ["gobblet", "storer", "gobblet-jr"])
def test_killer_legality_check_agrees_with_the_board(name):
    for board in random_positions(name, 4, 5, 30):
        rules_squares = board.rules.squares
        legal = set(board.legal_moves())
        for size in range(1, board.rules.sizes + 1):
            for to in range(rules_squares):
                for frm in [None, *range(rules_squares)]:
                    assert is_legal_now(board, (size, to, frm)) == ((size, to, frm) in legal)


@pytest.mark.parametrize("nodes", [150, 700, 2500, 6000])
def test_a_stopped_iteration_gives_a_legal_move_and_leaves_the_board(nodes):
    board = Board.from_text(MIDGAME)
    before = (board.text(), board.hash, dict(board.seen))
    r = Searcher().search(board, SearchLimits(time=None, nodes=nodes, deterministic=True))
    assert r.move in board.legal_moves() and r.pv[0] == r.move
    assert all(isinstance(m, Move) for m in r.pv)
    assert (board.text(), board.hash, dict(board.seen)) == before


def test_a_reused_searcher_forgets_its_table_under_other_rules():
    searcher = Searcher()
    gobblet = Board.from_text(MIDGAME)
    searcher.search(gobblet, SearchLimits(time=None, depth=2))
    assert searcher.tt
    storer = Board.from_text(MIDGAME.replace("gobblet", "storer", 1))
    r = searcher.search(storer, SearchLimits(time=None, depth=2))
    assert r.move in storer.legal_moves()


def test_the_clock_never_stops_the_first_iterations():
    board = Board.from_text(MIDGAME)
    assert Searcher().search(board, SearchLimits(time=1e-6)).depth >= 1
    assert Searcher().search(board, SearchLimits(time=1e-6, min_depth=2)).depth >= 2


class _RecordingSearcher(Searcher):
    """A searcher that notes the depth of each iteration it starts and its node count then."""

    def _root(self, ranked, depth, multipv):
        self.iterations.append((depth, self._stats.nodes))
        return super()._root(ranked, depth, multipv)


def iterations(board, limits):
    searcher = _RecordingSearcher()
    searcher.iterations = []
    result = searcher.search(board, limits)
    return [depth for depth, _ in searcher.iterations], searcher.iterations, result


@pytest.mark.parametrize("depth,expected", [(2, [1, 2]), (3, [1, 2, 3]), (5, [1, 2, 3, 5]), (6, [1, 2, 3, 4, 6])])
def test_a_search_to_a_depth_skips_the_iteration_before_the_last(depth, expected):
    board = Board.from_text(MIDGAME)
    depths, _, result = iterations(board, SearchLimits(time=None, depth=depth))
    assert depths == expected and result.depth == depth


def test_a_node_bound_search_deepens_two_plies_at_a_time_while_they_are_expected_to_fit():
    board = Board.from_text(MIDGAME)
    seen = set()
    for nodes in (30_000, 60_000, 120_000, 400_000):
        _, its, result = iterations(board, SearchLimits(time=None, nodes=nodes, deterministic=True))
        assert [d for d, _ in its[:2]] == [1, 2]
        # an iteration ended if a deeper one followed it, or it is the result's
        ended = [b > a for (a, _), (b, _) in zip(its, its[1:])] + [its[-1][0] == result.depth]
        last = 1  # the index of the last iteration that ended
        for i in range(2, len(its)):
            depth, start = its[i]
            done, done_start = its[last]
            if not ended[i - 1]:  # a two-ply step that did not end: the ply it skipped follows
                assert its[i - 1][0] == done + 2 and depth == done + 1, (nodes, its)
                seen.add("back")
            else:
                took = start - done_start  # the nodes of the iteration that ended
                two = done >= 4 and done % 2 == 0 and start + took * (TWO_PLY_GROWTH + FALLBACK_GROWTH) <= nodes
                assert depth - done == (2 if two else 1), (nodes, its)
                seen.add(depth - done)
            if ended[i]:
                last = i
        assert result.nodes <= nodes + 64
    assert seen == {1, 2, "back"}, seen  # every kind of step was taken


def test_an_iteration_that_skipped_one_goes_on_when_its_pace_says_it_will_end():
    # here depth 6, searched straight after 4, passes the limit lowered to keep nodes for depth 5
    # with most of its root's moves done: it goes on, ends within the search's own limit and
    # the search is one of depth 6
    board = Board.from_text("gobblet W3,.,B3,./W4,W3,W3B4,W4/.,.,B2,./.,W4,.,. w 2,2,2 4,4,1 8")
    nodes = 180_000
    depths, its, result = iterations(board, SearchLimits(time=None, nodes=nodes, deterministic=True))
    assert depths[:5] == [1, 2, 3, 4, 6]
    (_, at4), (_, at6), (after, at_next) = its[3:6]
    assert after == 7 and at_next > nodes - (at6 - at4) * FALLBACK_GROWTH
    assert result.depth == 6 and result.nodes <= nodes + 64


@pytest.mark.parametrize("name", ["gobblet", "storer", "goblet-5", "gobblet-jr"])
def test_scoring_frontier_children_unplayed_gives_the_same_search(name):
    # the frontier's shortcut (hash, lines and evaluation of a child from the move alone) must
    # change nothing: same moves, scores, bounds, node counts and principal variations
    for k, board in enumerate(random_positions(name, 6, 11, 30)):
        if k % 3 or board.outcome() is not None or winning_moves(board):
            continue
        for limits in (SearchLimits(time=None, depth=3), SearchLimits(time=None, nodes=3000, deterministic=True)):
            fast = Searcher().search(board, limits, multipv=2)
            slow = Searcher(_fast_frontier=False).search(board, limits, multipv=2)
            assert (fast.move, fast.score, fast.depth, fast.nodes, fast.pv, fast.ranked) == (
                slow.move, slow.score, slow.depth, slow.nodes, slow.pv, slow.ranked), board.text()


@pytest.mark.parametrize("name", ["gobblet", "gobblet-jr", "goblet-5"])
def test_child_hash_is_the_hash_after_the_move(name):
    for board in random_positions(name, 4, 13, 30):
        for move in board.legal_moves():
            expected_after = child_hash(board, move)
            board.push(move)
            assert board.hash == expected_after
            board.pop()


def test_rescored_alternatives_are_exact_and_no_bound_is_above_them():
    board = Board.from_text(MIDGAME)
    r = Searcher().search(board, SearchLimits(time=None, nodes=60000, deterministic=True), rescore=3)
    top = r.ranked[:3]
    assert all(sm.exact for sm in top)
    assert top[0].score >= top[1].score >= top[2].score
    assert all(sm.score <= top[2].score for sm in r.ranked[3:] if not sm.exact)
    assert r.nodes <= 60000 + 64
    # each rescored value is what an open-window search of the move (same table) returns
    searcher = Searcher()
    again = searcher.search(board, SearchLimits(time=None, nodes=60000, deterministic=True), rescore=3)
    assert again.ranked[:3] == top


def test_rescoring_keeps_to_the_time_limit():
    board = Board.from_text(MIDGAME)
    start = time.perf_counter()
    r = Searcher().search(board, SearchLimits(time=0.4), rescore=3)
    assert time.perf_counter() - start < 0.4 + 0.4
    assert r.ranked[0].exact and r.move in board.legal_moves()


def test_generated_moves_put_threats_first_above_the_frontier():
    # White shows a1 and b1: an entry on c1 or d1 makes row 1 one top short of complete
    board = Board()
    for text in ["4a1", "4d4", "4b1", "4c3"]:
        board.play(board.parse_move(text))
    threats = {tuple(board.parse_move(t)) for t in ["4c1", "4d1", "3c1", "3d1"]}
    with_threats = ordered_moves(board, (), [None, None], {}, True)
    assert set(with_threats[:len(threats)]) == threats
    plain = ordered_moves(board, (), [None, None], {})
    assert set(plain) == set(with_threats) and len(plain) == len(with_threats)
    assert set(plain[:len(threats)]) != threats


def test_staged_moves_try_the_killer_before_the_table_move_and_each_move_once():
    board = Board.from_text(MIDGAME)
    legal = [tuple(m) for m in board.legal_moves()]
    tt_move, killer, other = legal[3], legal[7], legal[11]
    staged = list(staged_moves(board, [killer, tt_move], [killer, other], {}, True))
    assert staged[:3] == [killer, tt_move, other]
    assert len(staged) == len(legal) and set(staged) == set(legal)


def test_the_killer_goes_before_the_table_move_only_above_the_frontier():
    # plant a table move and a different legal killer; the first move a node plays is the
    # table's at depth 1 and the killer above it
    board = Board.from_text(MIDGAME)
    legal = [tuple(m) for m in board.legal_moves()]
    tt_move, killer = legal[5], legal[9]
    for depth, expected in ((1, tt_move), (2, killer)):
        searcher = Searcher(_fast_frontier=False)
        searcher.search(board, SearchLimits(time=None, depth=1))  # sets up the search state
        searcher.tt.clear()
        searcher.tt[board.hash] = (0, 0, 0, tt_move)  # too shallow to settle the node
        searcher._killers[1] = [killer, None]
        inner = searcher._board
        played = []
        push = inner.push

        def spy(move, played=played, push=push):
            played.append(tuple(move))
            push(move)

        inner.push = spy
        searcher._negamax(depth, -INF, INF, 1)
        assert played[0] == expected
