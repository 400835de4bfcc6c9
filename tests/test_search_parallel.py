"""The search shared with helper processes (engine.gobblet.search.parallel): the same scores as a
search alone, real work done by the helpers, limits honoured, and a helper that dies costing
nothing but speed."""

from __future__ import annotations

import threading
import time

import pytest

from engine.gobblet import Board
from engine import variant
from engine.gobblet.search.searcher import INF, Searcher, SearchLimits
from engine.gobblet.search.parallel import (
    _HELPER_LIMITS,
    _POOLS,
    ALPHA,
    END,
    GO,
    ROOT,
    _HelperSearcher,
    forget_helpers,
    search_moves,
    start_helpers,
)
from engine.gobblet.search.shared_table import SharedTable, pack_move, unpack_move
from tests.helpers import random_positions

HELPERS = 1


@pytest.fixture(scope="module")
def helpers() -> int:
    ready = start_helpers(HELPERS, timeout=30)
    assert ready == HELPERS, "the helper process did not start"
    return ready


def middle_games(count: int, seed: int) -> list[Board]:
    out = []
    for board in random_positions("gobblet", count * 3, seed, 14):
        if not board.is_over() and len(out) < count:
            out.append(board)
    return out


@pytest.mark.parametrize("name,depth", [("gobblet", 4), ("storer", 4), ("goblet-5", 4)])
def test_helpers_find_the_scores_of_a_search_alone(helpers: int, name: str, depth: int) -> None:
    boards = [b for b in random_positions(name, 12, 5, 12) if not b.is_over()][:6]
    shared = 0
    for board in boards:
        alone = Searcher().search(board, SearchLimits(time=None, depth=depth))
        together = Searcher(helpers=HELPERS).search(board, SearchLimits(time=None, depth=depth))
        assert (together.score, together.depth) == (alone.score, alone.depth), board.text()
        assert together.move in board.legal_moves()
        scores = {sm.move: sm.score for sm in alone.ranked if sm.exact}
        if together.move in scores:
            assert scores[together.move] == together.score
        shared += together.helper_nodes
        assert alone.helper_nodes == 0
    assert shared > 0, "the helpers searched nothing"


def test_a_deterministic_or_node_bound_search_runs_alone(helpers: int) -> None:
    board = middle_games(1, 3)[0]
    for limits in (SearchLimits(time=None, depth=4, deterministic=True), SearchLimits(time=None, nodes=20_000)):
        a = Searcher().search(board, limits)
        b = Searcher(helpers=HELPERS).search(board, limits)
        assert (b.move, b.score, b.depth, b.nodes, b.pv) == (a.move, a.score, a.depth, a.nodes, a.pv)
        assert b.helper_nodes == 0


def test_the_time_limit_holds_with_helpers(helpers: int) -> None:
    board = middle_games(1, 7)[0]
    start = time.perf_counter()
    r = Searcher(helpers=HELPERS).search(board, SearchLimits(time=0.5))
    elapsed = time.perf_counter() - start
    assert elapsed < 0.5 + 0.4
    assert r.move in board.legal_moves() and r.depth >= 2
    assert r.helper_nodes > 0


def test_a_second_search_meanwhile_runs_alone(helpers: int) -> None:
    boards = middle_games(2, 11)
    results: dict[int, object] = {}

    def run(i: int) -> None:
        results[i] = Searcher(helpers=HELPERS).search(boards[i], SearchLimits(time=None, depth=4))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, board in enumerate(boards):
        assert results[i].score == Searcher().search(board, SearchLimits(time=None, depth=4)).score


def test_a_helper_that_dies_costs_only_speed(helpers: int) -> None:
    board = middle_games(1, 13)[0]
    expected = Searcher().search(board, SearchLimits(time=None, depth=4)).score
    pool = _POOLS[HELPERS]

    def kill() -> None:
        for link in pool.links:
            link.process.kill()

    timer = threading.Timer(0.3, kill)
    timer.start()
    r = Searcher(helpers=HELPERS).search(board, SearchLimits(time=1.0))
    timer.join()
    assert r.move in board.legal_moves() and r.depth >= 2
    # with no helper alive, the next search starts a new one and still finds the same scores
    again = Searcher(helpers=HELPERS).search(board, SearchLimits(time=None, depth=4))
    assert again.score == expected
    assert start_helpers(HELPERS, timeout=30) == HELPERS


def test_forgetting_empties_the_shared_table_and_searches_go_on(helpers: int) -> None:
    board = middle_games(1, 17)[0]
    first = Searcher(helpers=HELPERS).search(board, SearchLimits(time=None, depth=4))
    table = _POOLS[HELPERS].table
    assert any(table.words[1::2]), "the search stored nothing in the shared table"
    forget_helpers(HELPERS)
    assert not any(table.words)
    again = Searcher(helpers=HELPERS).search(board, SearchLimits(time=None, depth=4))
    assert again.score == first.score and again.helper_nodes > 0


def test_shared_table_entries_round_trip_and_torn_ones_are_misses() -> None:
    import ctypes

    words = (ctypes.c_uint64 * 32)()
    table = SharedTable(words, 4)
    key = (1 << 63) | 12345
    table.store(key, 5, 2, -999_990, (4, 15, None))
    assert table.probe(key) == (5, 2, -999_990, (4, 15, None))
    assert table.probe(key ^ 1 << 40) is None  # another position in the same slot
    words[(key & 15) * 2 + 1] ^= 1 << 30  # half of a write from another process
    assert table.probe(key) is None
    rules = variant("goblet-5")
    for move in Board(rules).legal_moves():
        assert unpack_move(pack_move(move)) == tuple(move)
    assert unpack_move(pack_move((3, 24, 23))) == (3, 24, 23)
    assert unpack_move(pack_move(None)) is None


class _OutbiddingHelper(_HelperSearcher):
    """A helper whose 'other process' finds the score ``news`` after ``ticks`` checks: the
    index of the move then being searched, and the bound it was searched against, are kept."""

    def __init__(self, news: int, ticks: int) -> None:
        super().__init__()
        self.news, self.ticks = news, ticks
        self.caught: tuple[int, int] | None = None

    def _tick(self) -> None:
        self.ticks -= 1
        if self.ticks == 0:
            self.caught = (self._shared[END], self._outbid_above)
            self._shared[ALPHA] = self.news
        super()._tick()


def test_a_move_under_way_when_a_better_score_is_found_is_searched_against_it() -> None:
    board = middle_games(1, 8)[0]
    ranked = Searcher().search(board, SearchLimits(time=None, depth=4), multipv=4).ranked
    best = ranked[0].score
    move, score = next((sm.move, sm.score) for sm in ranked[:4] if sm.score < best)
    # a helper searching this weaker move against an old bound far below it; another process
    # finds the best score meanwhile
    helper = _OutbiddingHelper(best, 2)
    helper._shared, helper._lock = [0, 1, score - 100, GO], threading.Lock()
    helper._begin(board, _HELPER_LIMITS)
    results: list[tuple[int, int, bool]] = []
    search_moves(helper, helper._shared, helper._lock, [tuple(move)], 4, INF, 0, ROOT, False, results)
    assert helper.caught == (0, score - 100), "the move was not under way"
    # searched on against the old bound, it would get its exact score; searched against the
    # best score, it is known to be no better, which is all the root needs
    ((_, found, exact),) = results
    assert not exact and score <= found <= best, (found, exact, score, best)
