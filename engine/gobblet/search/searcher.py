"""Game-tree search for every variant: negamax with alpha-beta (principal-variation search),
iterative deepening, a transposition table, move ordering and a quiescence step.

Scores are from the side to move's point of view.  A win reached by the move at ply ``p``
(the root move is ply 1) scores ``MATE - p``, a loss ``-(MATE - p)``; everything else is an
evaluation (``engine.gobblet.evaluation``), far below ``MATE_BOUND``.

Repetition: the search treats a position that already occurred (in the game or on the search
path) as a draw, which is where a repetition draw would lead.  The board detects threefold
repetition as the rules define it; a score that depends on either is never stored in the
transposition table, which is keyed on the board's exact Zobrist hash.

Move ordering: the table's move and the killer moves are tried before any move is generated
(at cut nodes they usually end the node); the rest come from ``engine.gobblet.movegen`` already
ordered (blocks of the opponent's lines, killers, history per colour, gobbles, size).  Above
the frontier (depth 2 and more) two things change, each measured on the bench suite (same
root scores, fewer nodes and less time): the ply's first killer, which refuted a sibling in
this iteration, goes before the table's move, which comes from a shallower one; and moves
that make a threat come before the other generated moves, since a refutation that threatens a
win leaves the opponent few replies that do not lose at once (those are scored without a
search).  At depth 1 the children are leaves and a threatening one costs a quiescence search,
so the plain order stays.  Wins in one are found before any move is tried, and a move after
which the opponent wins at once is scored without a search.  At the horizon, when the
opponent threatens a line, the quiescence step searches the replies that can stop it (a few
plies deep) instead of trusting the static evaluation.

Speed: at depth 1 the children are leaves, and ``search_frontier.Frontier`` scores most of them
from the move and the parent's bitboards without playing them: settled, lost (it reads whether
the opponent then has a winning move from the completing squares and the pieces that can reach
them) or quiet (the static evaluation, whose terms change only on the two squares the move
touches); only a child in which the mover threatens a win is played and goes to the quiescence
step.  The quiescence step scores its replies the same way, so only a reply that stops the
threat with a threat of its own is played; where a threat can be stopped and the replies that
go there come from ``engine.gobblet.search.threat_replies``.  A child whose table entry already settles it
is scored without playing it either (``_probe_child``); quiescence values have their own
table.  Each
shortcut gives exactly what playing the move would (``Searcher(_fast_frontier=False)`` plays
every move, for the tests to compare).  None of this prunes: every move is searched to the
nominal depth unless alpha-beta proves it irrelevant.

Iterative deepening runs until a limit stops it; an unfinished iteration is not wasted: it
searches the previous best move first with a full window, so a move it proves better goes
first (``_merge_partial``).  The iteration just before the last is skipped: on the bench suite
it costs the last one more than it saves (``_skip_next``).

Cores: ``Searcher(helpers=N)`` shares a time-bound search with N helper processes
(``engine.gobblet.search.parallel``): the moves of the root and of the nodes along the first move's line
are shared out once the first move has set the bound; the scores are those of the search
alone, the tree is not node for node the same.  Full-strength hints use one helper per core
beyond the first.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..board import Board
from ..values import Move
from ..evaluation import evaluate
from ..movegen import is_legal_now, moves_to, ordered_moves
from ..rules import Rules
from .frontier import Frontier, child_hash, staged_moves
from .scores import EXACT as _EXACT
from .scores import INF, MATE, MATE_BOUND, QDEPTH
from .scores import LOWER as _LOWER
from .scores import UPPER as _UPPER
from .scores import from_tt as _from_tt
from .scores import to_tt as _to_tt
from .shared_table import SHARED_DEPTH
from ..tactics import has_winning_move, threat_targets, winning_moves
from .threat_replies import threat_replies

__all__ = [
    "INF", "MATE", "MATE_BOUND", "QDEPTH", "ScoredMove", "Searcher", "SearchLimits", "SearchResult",
    "child_hash", "mate_distance", "search",
]

_QSTATIC = QDEPTH + 1  # the quiescence table's depth for a value that holds at any depth
RESCORE_SHARE = 0.75  # of the limits spent deepening when the next best moves get exact scores
ASPIRATION = 30  # half-width of the first root move's window around the previous score
# how many times as long as iteration d the iteration d + 2 searched straight after it is
# expected to take, on the hopeful side: on the bench suite after depth 4 it takes 9 to 52
# times as long, a quarter of positions 16 or less (``_skip_next``)
TWO_PLY_GROWTH = 16
# the time and nodes kept, in units of iteration d's, to search d + 1 in case d + 2 searched
# straight after d does not end (d + 1 alone takes 2 to 14 times d's, median 6.5; after part
# of d + 2, whose table entries it can use, 4 to 6.5 on the bench suite)
FALLBACK_GROWTH = 6
_MAX_PLY = 128
SPLIT_DEPTH = 3  # helper processes share the moves of a node this deep or more


@dataclass(frozen=True)
class SearchLimits:
    """When a search stops: after ``time`` seconds, ``nodes`` nodes or ``depth`` full-width
    plies, whichever comes first (None: no such limit).  ``deterministic`` ignores the clock,
    so the same position and limits always give the same result.  The clock never stops the
    first ``min_depth`` iterations (they are small: a slow or busy machine then overruns the
    time a little instead of answering from a shallower search than a fixed-depth level's)."""

    time: float | None = 1.0
    nodes: int | None = None
    depth: int | None = None
    deterministic: bool = False
    min_depth: int = 1

    def __post_init__(self) -> None:
        if self.deterministic and self.nodes is None and self.depth is None:
            raise ValueError("a deterministic search needs a node or depth limit")
        if self.time is None and self.nodes is None and self.depth is None:
            raise ValueError("a search needs at least one limit")


@dataclass(frozen=True)
class ScoredMove:
    """A root move with its score and whether the score is exact or only a bound."""

    move: Move
    score: int
    exact: bool = True


@dataclass(frozen=True)
class SearchResult:
    """The outcome of a search: best move, score, depth reached and statistics."""

    move: Move | None
    score: int
    depth: int  # deepest full-width iteration completed
    nodes: int
    seconds: float
    pv: tuple[Move, ...] = ()
    ranked: tuple[ScoredMove, ...] = ()  # root moves, best first
    seldepth: int = 0  # deepest ply visited, quiescence included
    helper_nodes: int = 0  # of ``nodes``, those searched by helper processes (``Searcher.helpers``)

    @property
    def mate(self) -> int | None:
        """Plies to a forced win (positive) or loss (negative), None when not forced."""
        return mate_distance(self.score)

    @property
    def nps(self) -> float:
        """Nodes per second."""
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


# How a search gets its helper processes: ``engine.gobblet.search.parallel`` registers
# ``SplitSearch.acquire`` here when it is imported (the package imports it), so that this
# module does not import the one built on it
_SPLITTER: list[Callable[[Searcher, int], Any]] = []


def use_splitter(acquire: Callable[[Searcher, int], Any]) -> None:
    """Make searches with ``helpers`` share their work through ``acquire(searcher, count)``,
    which returns the helpers for one search (with ``release()``) or None when none are free."""
    _SPLITTER[:] = [acquire]


def mate_distance(score: int) -> int | None:
    """Plies to the end for a forced-win (positive) or forced-loss (negative) score."""
    if score > MATE_BOUND:
        return MATE - score
    if score < -MATE_BOUND:
        return -(MATE + score)
    return None


class _Stop(Exception):
    """Raised inside the search when a limit is reached."""


class _Abort(Exception):
    """Raised inside the search of a shared node's move when a helper process has cut the node
    off (``search_parallel``): the move no longer matters."""


class _Outbid(Exception):
    """Raised inside the search of a shared node's move when another process has found a
    better score than the bound the move is being searched against (``search_parallel``): the
    search starts again against the better one."""


@dataclass
class _Stats:
    nodes: int = 0
    seldepth: int = 0
    rep_hits: int = 0
    helper_nodes: int = 0  # of ``nodes``, those searched by helper processes


@dataclass
class Searcher:
    """A search engine with its own transposition table and ordering memory, reusable across
    moves of a game (the table and history carry over)."""

    tt_limit: int = 1 << 20
    tt: dict = field(default_factory=dict)
    history: tuple[dict, dict] = field(default_factory=lambda: ({}, {}))  # per colour
    _evals: dict = field(default_factory=dict, repr=False)  # static evaluations by hash
    # quiescence values by hash: (qdepth, bound flag, score), like ``tt``
    _qtt: dict = field(default_factory=dict, repr=False)
    _rules: Rules | None = field(default=None, repr=False)  # the rules the tables were filled under
    # score frontier children without playing them (``Frontier``) and read threats from the
    # flat tables (``ThreatReplies``); off only to test that both ways give the same search
    _fast_frontier: bool = field(default=True, repr=False)
    # helper processes that share a time-bound search's work (``engine.gobblet.search.parallel``); a
    # search bound by nodes, deterministic or with ``multipv`` > 1 runs alone
    helpers: int = 0
    _split: object = field(default=None, init=False, repr=False)  # the helpers during a search
    # the table shared with them (``shared_table``), during a search that has helpers
    _shared_tt: object = field(default=None, init=False, repr=False)

    def search(self, board: Board, limits: SearchLimits = SearchLimits(), multipv: int = 1,
               rescore: int = 0) -> SearchResult:
        """Search ``board`` (left unchanged) within ``limits``; the ``multipv`` best root
        moves get exact scores at every iteration, the others bounds.

        ``rescore`` (for time- or node-bound searches with ``multipv=1``) gives the best
        ``rescore`` moves exact scores more cheaply: the deepening stops after a share
        (``RESCORE_SHARE``) of the time and nodes, then the best moves by bound are searched
        again at the deepest completed depth until ``rescore`` of them are exact and no other
        move's bound is above the last of them (or the limits stop it: the rest keep their
        bounds).  Exact scores are ranked by value, so a re-searched move can overtake the
        best."""
        self._begin(board, limits)
        if (self.helpers > 0 and _SPLITTER and not limits.deterministic and limits.nodes is None
                and multipv <= 1):
            self._split = _SPLITTER[0](self, self.helpers)
        try:
            return self._deepen(limits, multipv, rescore)
        finally:
            if self._split is not None:
                self._split.release()
                self._split = None

    def _begin(self, board: Board, limits: SearchLimits) -> None:
        """Get ready to search ``board`` (copied) within ``limits``: fresh statistics, killers
        and frontier objects; tables kept unless too full or filled under other rules."""
        self._board = board.copy()
        # an iteration that skipped one: the limits it may go on to past those lowered for it,
        # whether it did, and when its root's first move was done (``_extend_skip``)
        self._skip_limits: tuple[float | None, int | None] | None = None
        self._extended = False
        self._rest_started: float | None = None
        self._rest_nodes = 0
        self._root_moves = 0
        # a shared node's move being searched against this bound starts again when another
        # process finds a better score (``search_parallel.search_moves``); INF: no such move
        self._outbid_above = INF
        self._limits = limits
        self._stats = _Stats()
        self._killers: list[list[Move | None]] = [[None, None] for _ in range(_MAX_PLY + QDEPTH + 2)]
        self._start = time.perf_counter()
        self._deadline = None if limits.deterministic or limits.time is None else self._start + limits.time
        self._node_limit = limits.nodes
        self._depth = 0
        self._root_len = self._board.history_length
        self._leaves = [Frontier(self, ply) for ply in range(_MAX_PLY + QDEPTH + 2)]
        self._threats = threat_replies(board.rules)
        if len(self.tt) > self.tt_limit or self._rules != board.rules:
            # (the table's moves are tried without a legality check, so a table filled under
            # other rules must go)
            self.tt.clear()
        if len(self._evals) > self.tt_limit or self._rules != board.rules:
            self._evals.clear()
        if len(self._qtt) > self.tt_limit or self._rules != board.rules:
            self._qtt.clear()
        self._rules = board.rules
        for h in self.history:
            if h and max(h.values()) > 1 << 24:
                for m in h:
                    h[m] >>= 4

    def _deepen(self, limits: SearchLimits, multipv: int, rescore: int) -> SearchResult:
        """The iterative deepening of ``search``, after ``_begin``."""
        rescore = rescore if multipv <= 1 and limits.depth is None else 0
        hard_deadline = self._deadline
        if rescore > 1:
            if self._deadline is not None:
                self._deadline = self._start + limits.time * RESCORE_SHARE
            if limits.nodes is not None:
                self._node_limit = int(limits.nodes * RESCORE_SHARE)
        moves = self._board.legal_moves()
        if not moves:
            return SearchResult(None, -MATE, 0, 0, 0.0)
        wins = winning_moves(self._board)
        if wins:
            others = tuple(ScoredMove(m, 0, False) for m in moves if m not in wins)
            ranked = tuple(ScoredMove(m, MATE - 1) for m in wins) + others
            return SearchResult(wins[0], MATE - 1, 1, 1, time.perf_counter() - self._start, (wins[0],), ranked, 1)
        ranked = [ScoredMove(Move(*m), -INF, False) for m in ordered_moves(self._board, (), [None, None], self.history[self._board.turn])]
        completed: list[ScoredMove] = ranked
        depth_done = 0
        pv: tuple[Move, ...] = ()
        max_depth = limits.depth if limits.depth is not None else _MAX_PLY
        took = before = 0.0  # seconds the last iteration took, and the one before it
        plies = 1  # how much deeper the last iteration was than the one before it
        took_nodes = 0  # nodes the last iteration searched
        fallback = False  # whether the next iteration is one skipped by an iteration that did not end
        while depth_done < max_depth:
            skip = not fallback and self._skip_next(depth_done, max_depth, took, took_nodes)
            depth = depth_done + (2 if skip else 1)
            self._partial: list[ScoredMove] = []
            self._depth = depth
            started = time.perf_counter()
            nodes_before = self._stats.nodes
            if rescore > 1 and self._deadline is not None and before > 0 and not (skip or fallback):
                # the rescoring throws away an unfinished iteration: an iteration that would not
                # end before the deadline is not started, and its time goes to the alternatives
                # (the growth per ply: the last iteration may have come two plies after the one
                # before it)
                growth = min(max((took / before) ** (1 / plies), 2.0), 8.0)
                if started + took * growth > self._deadline:
                    break
            fallback = False
            limits_now = self._deadline, self._node_limit
            self._rest_started = None
            self._skip_limits = limits_now if skip else None
            self._extended = False
            if skip:  # keep what the skipped iteration needs if this one does not end
                if self._deadline is not None:
                    self._deadline -= took * FALLBACK_GROWTH
                if self._node_limit is not None:
                    self._node_limit -= int(took_nodes * FALLBACK_GROWTH)
            try:
                ranked = self._root(ranked, depth, max(1, multipv))
            except _Stop:
                self._unwind()
                if skip and not self._extended:
                    fallback = True
                    continue
                # (when the alternatives get exact scores, all of them and the best must come
                # from one depth, so a move proved better by the unfinished iteration waits)
                merged = completed if rescore > 1 else self._merge_partial(completed)
                if merged is not completed:
                    completed = merged
                    pv = self._pv(completed[0].move, max(1, depth_done))
                break
            finally:
                self._deadline, self._node_limit, self._skip_limits = *limits_now, None
            completed = ranked
            plies, depth_done = depth - depth_done, depth
            took, before = time.perf_counter() - started, took
            took_nodes = self._stats.nodes - nodes_before
            pv = self._pv(ranked[0].move, depth)
            best = ranked[0].score
            if abs(best) > MATE_BOUND and MATE - abs(best) <= depth:
                break  # a forced result no deeper search can change
            if len(moves) == 1 and depth >= 2:
                break
        self._unwind()
        if rescore > 1 and depth_done >= 1 and abs(completed[0].score) < MATE_BOUND:
            self._deadline = hard_deadline
            self._node_limit = limits.nodes
            first = completed[0].move
            completed = self._rescore(completed, depth_done, rescore)
            if completed[0].move != first:
                pv = self._pv(completed[0].move, depth_done)
        seconds = time.perf_counter() - self._start
        best = completed[0]
        stats = self._stats
        return SearchResult(
            best.move, best.score, depth_done, stats.nodes, seconds, pv, tuple(completed), stats.seldepth,
            stats.helper_nodes,
        )

    def _skip_next(self, done: int, max_depth: int, took: float, took_nodes: int) -> bool:
        """Whether the deepening goes from the completed depth ``done`` straight to
        ``done + 2``.  The iteration just before the last one costs more than it saves (on the
        bench suite, depth 6 straight after depth 4 takes 29 % fewer nodes than depths 5 and 6),
        so a search to a depth limit skips it.  Under a time or node limit the last depth is
        not known: from depth 4 the deepening goes two plies at a time, to even depths, while
        the next one is expected to finish with time to spare for the one it skips
        (``TWO_PLY_GROWTH``, ``FALLBACK_GROWTH``): its limits are lowered by that spare, and
        if it reaches them the skipped one is searched after all (``_deepen``), unless the
        pace of its root's moves says it will end within the search's own limits
        (``_extend_skip``).  Otherwise it goes one ply.  (Skipping depth 3 as well costs
        depth 6 more nodes than it saves, and at short times, where depth 6 is out of reach,
        the deepening is the one-ply one.)  Iterations the clock may not stop
        (``SearchLimits.min_depth``) are never skipped."""
        if done < max(2, self._limits.min_depth) or done + 2 > max_depth:
            return False
        fits = self._fits(took, took_nodes, TWO_PLY_GROWTH + FALLBACK_GROWTH)
        if fits is None:  # a depth limit alone
            return done + 2 == max_depth
        return fits and (done + 2 == max_depth or (done >= 4 and done % 2 == 0))

    def _fits(self, took: float, took_nodes: int, factor: float) -> bool | None:
        """Whether ``factor`` times the last iteration's seconds and nodes fit in what the time
        and node limits leave; None when there are neither."""
        if self._deadline is None and self._node_limit is None:
            return None
        if self._deadline is not None and time.perf_counter() + took * factor > self._deadline:
            return False
        return self._node_limit is None or self._stats.nodes + took_nodes * factor <= self._node_limit

    # ------------------------------------------------------------------ root
    def _root(self, ranked: list[ScoredMove], depth: int, multipv: int) -> list[ScoredMove]:
        alpha = -INF
        results = self._partial  # filled as moves finish, for a stopped iteration to use
        split = self._split if depth >= SPLIT_DEPTH else None
        self._root_moves = len(ranked)
        for i, sm in enumerate(ranked):
            if i == 1:
                self._rest_started, self._rest_nodes = time.perf_counter(), self._stats.nodes
            if split is not None and i == 1:
                # the first move set the bound: the others are shared out (``search_parallel``)
                split.root(ranked[1:], depth, alpha)
                break
            floor = alpha if len(results) >= multipv else -INF
            score, exact = self._root_move(sm.move, depth, floor, sm.score if i == 0 and multipv == 1 else None)
            results.append(ScoredMove(sm.move, score, exact))
            results.sort(key=lambda r: (not r.exact, -r.score))
            if len(results) >= multipv:
                alpha = results[multipv - 1].score if results[multipv - 1].exact else alpha
        return results

    def _root_move(self, move: Move, depth: int, floor: int, prev: int | None = None) -> tuple[int, bool]:
        """The score of root ``move`` at ``depth`` and whether it is exact: a full window above
        ``floor`` (none at -INF), or a null window at ``floor`` first, searched again if the
        move beats it; with ``prev``, the previous iteration's score of the best move, an
        aspiration window around it first."""
        board = self._board
        me = board.turn
        board.push(move)
        res = board.decided
        if res is not None:
            score = 0 if res.winner is None else (MATE - 1 if res.winner == me else -(MATE - 1))
            exact = True
        elif board.seen[board.hash] < 2 and has_winning_move(board):
            score = -(MATE - 2)
            exact = True
        else:
            # along the first move the helper processes, if any, share the work
            split = self._split if depth > SPLIT_DEPTH else None
            if prev is not None and depth > 2 and abs(prev) < MATE_BOUND and ASPIRATION:
                # aspiration: most iterations end near the previous score
                lo, hi = prev - ASPIRATION, prev + ASPIRATION
                score = -self._negamax(depth - 1, -hi, -lo, 1, split)
                if score <= lo or score >= hi:
                    score = -self._negamax(depth - 1, -INF, INF, 1, split)
                exact = True
            elif prev is not None or floor == -INF:
                score = -self._negamax(depth - 1, -INF, -floor, 1, split)
                exact = score > floor or floor == -INF
            else:
                score = -self._negamax(depth - 1, -floor - 1, -floor, 1)
                exact = False
                if score > floor:
                    score = -self._negamax(depth - 1, -INF, -floor, 1)
                    exact = True
        board.pop()
        return score, exact

    def _rescore(self, ranked: list[ScoredMove], depth: int, count: int) -> list[ScoredMove]:
        """``ranked`` with exact scores at ``depth`` for the best ``count`` moves (see
        ``search``); a limit stops it, leaving bounds where it got to.

        The move with the highest bound ``b`` (an upper bound) is tested with a null window at
        ``b``: if it reaches ``b``, ``b`` is its exact score (positions often tie, so this is the
        usual case and costs no open window); if not, the search returns a lower bound, and the
        next highest bound is tested, until the best ``count`` are exact.  A move tested a
        second time gets its exact score below its bound at once (``_test_bound``).  With
        helper processes, the next highest bounds are tested at the same time, one per
        process."""
        self._depth = depth
        best, rest = ranked[0], list(ranked[1:])
        exact = [sm for sm in rest if sm.exact]
        bounds = [sm for sm in rest if not sm.exact]
        tested: set[Move] = set()  # moves tested once: the next test makes them exact
        stopped = False
        while bounds and not stopped:
            exact.sort(key=_score_of, reverse=True)
            bounds.sort(key=_score_of, reverse=True)
            if len(exact) >= count - 1 and exact[count - 2].score >= bounds[0].score:
                break  # no bound can reach the last exact score shown
            if self._split is None:
                batch = [bounds.pop(0)]
                try:
                    found: list[tuple[int, bool] | None] = [
                        self._test_bound(batch[0].move, batch[0].score, depth, batch[0].move in tested)]
                except _Stop:
                    self._unwind()
                    found = [None]
            else:
                # the helpers test the next highest bounds meanwhile
                width = self._split.width()
                batch, bounds = bounds[:width], bounds[width:]
                found = self._split.test(batch, depth, tested)
            for sm, result in zip(batch, found):
                if result is None:  # the time ran out first
                    stopped = True
                    bounds.append(sm)
                else:
                    tested.add(sm.move)
                    (exact if result[1] else bounds).append(ScoredMove(sm.move, *result))
        # the best goes first unless a re-search (whose table knows more by now) scored an
        # alternative higher: the ranking then follows the exact scores
        exact = sorted([best] + exact, key=_score_of, reverse=True)
        bounds.sort(key=_score_of, reverse=True)
        return exact + bounds

    def _test_bound(self, move: Move, bound: int, depth: int, below: bool) -> tuple[int, bool]:
        """Root ``move``, whose score at ``depth`` is at most ``bound``, searched with a null
        window at ``bound`` (see ``_rescore``): its score and whether it is exact (it is when it
        reaches ``bound``, the usual tie; else it is a lower bound).  With ``below``, a score
        under ``bound`` is then made exact with a window up to ``bound`` (testing lower and
        lower bounds would creep down a point at a time)."""
        board = self._board
        board.push(move)
        score = -self._negamax(depth - 1, -bound, -bound + 1, 1)
        exact = score >= bound
        if score > bound:  # a table entry from another depth moved it: search it fully
            score = -self._negamax(depth - 1, -INF, INF, 1)
        elif not exact and below:
            score = -self._negamax(depth - 1, -bound, INF, 1)
            if score >= bound:  # (as above)
                score = -self._negamax(depth - 1, -INF, INF, 1)
            exact = True
        board.pop()
        return score, exact

    def _merge_partial(self, completed: list[ScoredMove]) -> list[ScoredMove]:
        """The ranking after an iteration stopped by a limit: the moves the unfinished iteration
        searched first (the previous best, with a full window) keep the previous ranking unless
        one of them was proved better at the new depth, which then goes first."""
        partial = self._partial
        if not partial or not partial[0].exact or partial[0].move == completed[0].move:
            return completed
        first = partial[0]
        return [first] + [sm for sm in completed if sm.move != first.move]

    def _pv(self, first: Move, depth: int) -> tuple[Move, ...]:
        board = self._board
        line = [first]
        board.push(first)
        pushed = 1
        while len(line) < depth and board.decided is None:
            entry = self.tt.get(board.hash)
            if entry is None and self._shared_tt is not None:
                entry = self._shared_tt.probe(board.hash)  # a node a helper process searched
            if entry is None or entry[3] is None or not board.is_legal(entry[3]):
                break
            line.append(Move(*entry[3]))
            board.push(entry[3])
            pushed += 1
        for _ in range(pushed):
            board.pop()
        return tuple(line)

    def _unwind(self, length: int | None = None) -> None:
        """Take moves back until the board's history is ``length`` long (default: the root's)."""
        board = self._board
        length = self._root_len if length is None else length
        while board.history_length > length:
            board.pop()

    def _tick(self) -> None:
        stats = self._stats
        limits = self._limits
        if self._node_limit is not None and stats.nodes >= self._node_limit and not self._extend_skip():
            raise _Stop
        if (self._deadline is not None and stats.nodes & 255 == 0 and self._depth > limits.min_depth
                and time.perf_counter() > self._deadline and not self._extend_skip()):
            raise _Stop
        if self._split is not None:
            self._split.check()

    def _extend_skip(self) -> bool:
        """Called when an iteration that skipped one reaches the limits lowered for it
        (``_deepen``): whether it goes on to the search's own limits, being expected to end
        before them at the pace its root's moves after the first have gone so far (they are
        searched once the first is done; with helpers, the moves taken less one per process).
        If not, the skipped iteration gets what is left.  Decided once per iteration."""
        limits, self._skip_limits = self._skip_limits, None
        if limits is None or self._rest_started is None:
            return False
        if self._split is not None:
            done, total = self._split.progress()
        else:
            done, total = len(self._partial) - 1, self._root_moves - 1
        if done <= 0:
            return False
        deadline, node_limit = limits
        pace = total / done
        if deadline is not None and self._rest_started + (time.perf_counter() - self._rest_started) * pace > deadline:
            return False
        if node_limit is not None and self._rest_nodes + (self._stats.nodes - self._rest_nodes) * pace > node_limit:
            return False
        self._deadline, self._node_limit = limits
        self._extended = True
        return True

    # ------------------------------------------------------------------ search
    def _negamax(self, depth: int, alpha: int, beta: int, ply: int, split=None) -> int:
        """The node on the board searched to ``depth`` within ``(alpha, beta)``; with ``split``
        (``search_parallel.SplitSearch``), a node of the principal variation whose moves after
        the first are shared with the helper processes."""
        stats = self._stats
        stats.nodes += 1
        if self._limits.nodes is not None or stats.nodes & 255 == 0:
            self._tick()
        board = self._board
        key = board.hash
        if board.seen[key] >= 2:
            stats.rep_hits += 1
            return 0
        if depth <= 0:
            return self._qsearch(alpha, beta, ply, QDEPTH)
        if ply > stats.seldepth:
            stats.seldepth = ply
        # no win in one here: every caller checked before calling
        entry = self.tt.get(key)
        if entry is None and depth >= SHARED_DEPTH and self._shared_tt is not None:
            entry = self._shared_tt.probe(key)  # what a helper process found
        tt_move = None
        if entry is not None:
            edepth, flag, escore, tt_move = entry
            if edepth >= depth:
                s = _from_tt(escore, ply)
                if flag == _EXACT or (flag == _LOWER and s >= beta) or (flag == _UPPER and s <= alpha):
                    return s
        me = board.turn
        a0 = alpha
        rep0 = stats.rep_hits
        # the table's move is tried before any move is generated: it often cuts the node off;
        # so are the killers, when legal here (``staged_moves``).  Above the frontier the ply's
        # first killer goes before the table's move: it refuted a sibling in this iteration
        # (the table's move comes from a shallower one); see the module's docstring.
        first = [tt_move] if tt_move is not None else []
        if depth >= 2 and tt_move is not None:
            killer = self._killers[ply][0]
            if killer is not None and killer != tt_move and is_legal_now(board, killer):
                first = [killer, tt_move]
        moves = staged_moves(board, first, self._killers[ply], self.history[me], depth >= 2)
        if depth == 1 and self._fast_frontier:
            # the children are leaves, most of them scored without being played
            best, best_move = self._leaves[ply].scan(moves, alpha, beta, QDEPTH, False, -INF)
            if best is None:
                return -(MATE - ply)
        elif split is not None:
            best, best_move = split.pv_moves(moves, depth, alpha, beta, ply)
            if best is None:
                return -(MATE - ply)
        else:
            best = -INF
            best_move = None
            # a child the opponent wins at once is scored from the bitboards without a push
            # (here depth > 1: ``_probe_child`` has then ruled out a repetition, and no move
            # wins here, so a lost child is all ``_settled_score`` could find)
            refuted = self._leaves[ply].reset().refuted if self._fast_frontier else None
            for i, move in enumerate(moves):
                if move is None:
                    return -(MATE - ply)  # no legal move
                if refuted is None:  # every child played (``_fast_frontier`` off, for the tests)
                    score = self._move_score(move, depth, alpha, beta, ply, i == 0)
                else:
                    # ``_move_score`` with the shortcuts, written out: a child the table already
                    # settles for this window needs no push (the same result, node count
                    # included, as searching it), nor does a child lost at once
                    score = self._probe_child(move, depth, alpha, beta, ply, i == 0)
                    if score is None:
                        score = refuted(move)
                        if score is None:
                            board.push(move)
                            score = self._child_score(depth, alpha, beta, ply, i == 0)
                            board.pop()
                if score > best:
                    best = score
                    best_move = move
                    if score > alpha:
                        alpha = score
                        if alpha >= beta:
                            self._cutoff(move, depth, ply, me)
                            break
        if stats.rep_hits == rep0:
            flag = _UPPER if best <= a0 else _LOWER if best >= beta else _EXACT
            self.tt[key] = (depth, flag, _to_tt(best, ply), best_move)
            if depth >= SHARED_DEPTH and self._shared_tt is not None:
                self._shared_tt.store(key, depth, flag, _to_tt(best, ply), best_move)
        return best

    def _probe_child(self, move: tuple, depth: int, alpha: int, beta: int, ply: int, first: bool) -> int | None:
        """The score of ``move`` when the child is a repetition or its table entry settles it
        for the window ``_child_score`` would use, without playing the move; None otherwise.

        A child in the table went through ``_negamax`` before, so it is neither over nor a
        win in one for its side to move (both depend only on the position)."""
        board = self._board
        h = child_hash(board, move)
        stats = self._stats
        if h in board.seen:
            # a position of the history (never an ended one): drawn, as _settled_score says
            stats.rep_hits += 1
            return 0
        entry = self.tt.get(h)
        if entry is None and depth > SHARED_DEPTH and self._shared_tt is not None:
            entry = self._shared_tt.probe(h)
        if entry is None or entry[0] < depth - 1:
            return None
        flag = entry[1]
        s = _from_tt(entry[2], ply + 1)
        # the child's window is (-beta, -alpha), or first (-alpha - 1, -alpha) after the first move
        lo = -beta if first else -alpha - 1
        if not (flag == _EXACT or (flag == _LOWER and s >= -alpha) or (flag == _UPPER and s <= lo)):
            return None
        stats.nodes += 1
        if self._limits.nodes is not None or stats.nodes & 255 == 0:
            self._tick()
        if ply + 1 > stats.seldepth:
            stats.seldepth = ply + 1
        score = -s
        if first or not alpha < score < beta:
            return score
        # the null window failed high: _child_score searches again with the full window
        if flag == _EXACT or (flag == _UPPER and s <= -beta):
            stats.nodes += 1
            if self._limits.nodes is not None or stats.nodes & 255 == 0:
                self._tick()
            return score
        board.push(move)
        score = -self._negamax(depth - 1, -beta, -alpha, ply + 1)
        board.pop()
        return score

    def _cutoff(self, move: Move, depth: int, ply: int, colour: int) -> None:
        killers = self._killers[ply]
        if killers[0] != move:
            killers[1] = killers[0]
            killers[0] = move
        history = self.history[colour]
        history[move] = history.get(move, 0) + depth * depth

    def _move_score(self, move: tuple, depth: int, alpha: int, beta: int, ply: int, first: bool,
                    split=None) -> int:
        """The score of ``move`` at the node on the board, as ``_negamax``'s move loop scores
        it (which writes out a faster way for depth > 1); ``split`` goes to the child if it is
        the first move of a node of the principal variation."""
        score = self._probe_child(move, depth, alpha, beta, ply, first) if depth > 1 else None
        if score is None:
            board = self._board
            me = board.turn
            board.push(move)
            score = _settled_score(board, me, ply, self._stats)
            if score is None:
                if has_winning_move(board):
                    score = -(MATE - ply - 2)
                else:
                    score = self._child_score(depth, alpha, beta, ply, first, split)
            board.pop()
        return score

    def _child_score(self, depth: int, alpha: int, beta: int, ply: int, first: bool, split=None) -> int:
        """Search the child just pushed: a frontier child goes straight to the quiescence step;
        later siblings get a null window first (PVS)."""
        stats = self._stats
        if depth == 1:
            stats.nodes += 1
            if self._limits.nodes is not None or stats.nodes & 255 == 0:
                self._tick()
            return -self._qsearch(-beta, -alpha, ply + 1, QDEPTH)
        if first:
            return -self._negamax(depth - 1, -beta, -alpha, ply + 1, split)
        score = -self._negamax(depth - 1, -alpha - 1, -alpha, ply + 1)
        if alpha < score < beta:
            score = -self._negamax(depth - 1, -beta, -alpha, ply + 1)
        return score

    def _qsearch(self, alpha: int, beta: int, ply: int, qdepth: int) -> int:
        stats = self._stats
        if ply > stats.seldepth:
            stats.seldepth = ply
        board = self._board
        key = board.hash
        entry = self._qtt.get(key)
        if entry is not None:
            edepth, flag, escore = entry
            if edepth >= qdepth:
                s = _from_tt(escore, ply)
                if flag == _EXACT or (flag == _LOWER and s >= beta) or (flag == _UPPER and s <= alpha):
                    return s
        me = board.turn
        # the squares where a move can stop the opponent's wins in one, if it has any
        fast = self._fast_frontier
        if qdepth <= 0:
            targets = 0
        else:
            targets = self._threats.targets(board, 1 - me) if fast else threat_targets(board, 1 - me)
        if not targets:
            # iterative deepening meets the same leaves again and again
            evals = self._evals
            v = evals.get(key)
            if v is None:
                v = evaluate(board)
                evals[key] = v
            if qdepth > 0:
                self._qtt[key] = (_QSTATIC, _EXACT, v)  # no threat: the value at every qdepth
            return v
        rep0 = stats.rep_hits
        # The opponent wins next move unless we stop it: only moves onto the threatened lines
        # (blocking the hole or gobbling one of its pieces) or onto the square of the piece that
        # would complete it can; each is checked, most of them without playing it.
        a0 = alpha
        best = -(MATE - ply - 2)
        if fast:
            # most replies fail to stop the threat or leave a quiet position: they are scored
            # without being played (and made only as far as the scan gets)
            replies = self._threats.replies(board, targets)
            best = self._leaves[ply].scan(replies, alpha, beta, qdepth - 1, True, best)[0]
        else:
            for move in moves_to(board, targets):  # largest first
                stats.nodes += 1
                if self._limits.nodes is not None or stats.nodes & 255 == 0:
                    self._tick()
                board.push(move)
                score = _settled_score(board, me, ply, stats)
                if score is None:
                    if has_winning_move(board):
                        score = -(MATE - ply - 2)
                    else:
                        score = -self._qsearch(-beta, -alpha, ply + 1, qdepth - 1)
                board.pop()
                if score > best:
                    best = score
                    if score > alpha:
                        alpha = score
                        if alpha >= beta:
                            break
        if stats.rep_hits == rep0:
            flag = _UPPER if best <= a0 else _LOWER if best >= beta else _EXACT
            self._qtt[key] = (qdepth, flag, _to_tt(best, ply))
        return best


def _score_of(sm: ScoredMove) -> int:
    return sm.score


def search(board: Board, limits: SearchLimits = SearchLimits(), multipv: int = 1,
           rescore: int = 0) -> SearchResult:
    """Search ``board`` with a fresh engine (see ``Searcher.search``)."""
    return Searcher().search(board, limits, multipv, rescore)


def _settled_score(board: Board, me: int, ply: int, stats: "_Stats") -> int | None:
    """The score of a child that needs no search: a decided game, or a position seen before
    (counted as a draw, and never stored as the position's value)."""
    res = board.decided
    if res is not None:
        if res.winner is None:
            stats.rep_hits += 1
            return 0
        return MATE - ply - 1 if res.winner == me else -(MATE - ply - 1)
    if board.seen[board.hash] >= 2:
        stats.rep_hits += 1
        return 0
    return None
