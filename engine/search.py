"""Game-tree search for every variant: negamax with alpha-beta (principal-variation search),
iterative deepening, a transposition table, move ordering and a quiescence step.

Scores are from the side to move's point of view.  A win reached by the move at ply ``p``
(the root move is ply 1) scores ``MATE - p``, a loss ``-(MATE - p)``; everything else is an
evaluation (``engine.evaluation``), far below ``MATE_BOUND``.

Repetition: the search treats a position that already occurred (in the game or on the search
path) as a draw, which is where a repetition draw would lead.  The board detects threefold
repetition as the rules define it; a score that depends on either is never stored in the
transposition table, which is keyed on the board's exact Zobrist hash.

Move ordering: the table's move, then moves that stop the opponent's line, killer moves and
the history heuristic.  Wins in one are found before any move is tried.  The quiescence step
at the horizon checks for a win in one and, when the opponent threatens a line, searches the
replies (a few plies deep) instead of trusting the static evaluation.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from .board import Board, Move
from .evaluation import evaluate
from .tactics import threat_lines, winning_moves

MATE = 1_000_000
MATE_BOUND = MATE - 10_000
INF = MATE + 1
QDEPTH = 4  # plies of forced replies to threats at the horizon

_EXACT, _LOWER, _UPPER = 0, 1, 2
_MAX_PLY = 128


@dataclass(frozen=True)
class SearchLimits:
    """When a search stops: after ``time`` seconds, ``nodes`` nodes or ``depth`` full-width
    plies, whichever comes first (None: no such limit).  ``deterministic`` ignores the clock,
    so the same position and limits always give the same result."""

    time: float | None = 1.0
    nodes: int | None = None
    depth: int | None = None
    deterministic: bool = False

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

    @property
    def mate(self) -> int | None:
        """Plies to a forced win (positive) or loss (negative), None when not forced."""
        return mate_distance(self.score)

    @property
    def nps(self) -> float:
        """Nodes per second."""
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


def mate_distance(score: int) -> int | None:
    """Plies to the end for a forced-win (positive) or forced-loss (negative) score."""
    if score > MATE_BOUND:
        return MATE - score
    if score < -MATE_BOUND:
        return -(MATE + score)
    return None


class _Stop(Exception):
    """Raised inside the search when a limit is reached."""


@dataclass
class _Stats:
    nodes: int = 0
    seldepth: int = 0
    rep_hits: int = 0


@dataclass
class Searcher:
    """A search engine with its own transposition table and ordering memory, reusable across
    moves of a game (the table and history carry over)."""

    tt_limit: int = 1 << 20
    tt: dict = field(default_factory=dict)
    history: dict = field(default_factory=dict)

    def search(self, board: Board, limits: SearchLimits = SearchLimits(), multipv: int = 1) -> SearchResult:
        """Search ``board`` (left unchanged) within ``limits``; the ``multipv`` best root
        moves get exact scores, the others bounds."""
        self._board = board.copy()
        self._limits = limits
        self._stats = _Stats()
        self._killers: list[list[Move | None]] = [[None, None] for _ in range(_MAX_PLY + QDEPTH + 2)]
        self._start = time.perf_counter()
        self._deadline = None if limits.deterministic or limits.time is None else self._start + limits.time
        self._root_len = len(self._board._undo)
        if len(self.tt) > self.tt_limit:
            self.tt.clear()
        if self.history and max(self.history.values()) > 1 << 24:
            self.history = {m: v >> 4 for m, v in self.history.items()}
        moves = self._board.legal_moves()
        if not moves:
            return SearchResult(None, -MATE, 0, 0, 0.0)
        wins = winning_moves(self._board)
        if wins:
            others = tuple(ScoredMove(m, 0, False) for m in moves if m not in wins)
            ranked = tuple(ScoredMove(m, MATE - 1) for m in wins) + others
            return SearchResult(wins[0], MATE - 1, 1, 1, time.perf_counter() - self._start, (wins[0],), ranked, 1)
        ranked = [ScoredMove(m, -INF, False) for m in self._order(moves, None, 0)]
        completed: list[ScoredMove] = ranked
        depth_done = 0
        pv: tuple[Move, ...] = ()
        max_depth = limits.depth if limits.depth is not None else _MAX_PLY
        for depth in range(1, max_depth + 1):
            try:
                ranked = self._root(ranked, depth, max(1, multipv))
            except _Stop:
                break
            completed = ranked
            depth_done = depth
            pv = self._pv(ranked[0].move, depth)
            best = ranked[0].score
            if abs(best) > MATE_BOUND and MATE - abs(best) <= depth:
                break  # a forced result no deeper search can change
            if len(moves) == 1 and depth >= 2:
                break
            if self._deadline is not None and time.perf_counter() > self._start + 0.55 * limits.time:
                break  # the next iteration would not finish in time
        self._unwind()
        seconds = time.perf_counter() - self._start
        best = completed[0]
        return SearchResult(
            best.move, best.score, depth_done, self._stats.nodes, seconds, pv, tuple(completed), self._stats.seldepth
        )

    # ------------------------------------------------------------------ root
    def _root(self, ranked: list[ScoredMove], depth: int, multipv: int) -> list[ScoredMove]:
        board = self._board
        me = board.turn
        alpha = -INF
        results: list[ScoredMove] = []
        for i, sm in enumerate(ranked):
            move = sm.move
            board.push(move)
            res = board._result
            if res is not None:
                score = 0 if res.winner is None else (MATE - 1 if res.winner == me else -(MATE - 1))
                exact = True
            else:
                floor = alpha if len(results) >= multipv else -INF
                if i == 0 or floor == -INF:
                    score = -self._negamax(depth - 1, -INF, -floor, 1)
                    exact = score > floor or floor == -INF
                else:
                    score = -self._negamax(depth - 1, -floor - 1, -floor, 1)
                    exact = False
                    if score > floor:
                        score = -self._negamax(depth - 1, -INF, -floor, 1)
                        exact = True
            board.pop()
            results.append(ScoredMove(move, score, exact))
            results.sort(key=lambda r: (not r.exact, -r.score))
            if len(results) >= multipv:
                alpha = results[multipv - 1].score if results[multipv - 1].exact else alpha
        return results

    def _pv(self, first: Move, depth: int) -> tuple[Move, ...]:
        board = self._board
        line = [first]
        board.push(first)
        pushed = 1
        while len(line) < depth and board._result is None:
            entry = self.tt.get(board.hash)
            if entry is None or entry[3] is None or not board.is_legal(entry[3]):
                break
            line.append(entry[3])
            board.push(entry[3])
            pushed += 1
        for _ in range(pushed):
            board.pop()
        return tuple(line)

    def _unwind(self) -> None:
        board = self._board
        while len(board._undo) > self._root_len:
            board.pop()

    def _tick(self) -> None:
        stats = self._stats
        limits = self._limits
        if limits.nodes is not None and stats.nodes >= limits.nodes:
            raise _Stop
        if self._deadline is not None and stats.nodes & 255 == 0 and time.perf_counter() > self._deadline:
            raise _Stop

    # ------------------------------------------------------------------ ordering
    def _order(self, moves: list[Move], tt_move: Move | None, ply: int) -> list[Move]:
        board = self._board
        opp = 1 - board.turn
        block = 0
        for line in threat_lines(board, opp):
            block |= line
        killers = self._killers[ply] if ply < len(self._killers) else (None, None)
        history = self.history
        scored = []
        for m in moves:
            if m == tt_move:
                s = 1 << 40
            else:
                s = history.get(m, 0)
                if block >> m.to & 1:
                    s += 1 << 32
                if m == killers[0] or m == killers[1]:
                    s += 1 << 30
                s += m.size
            scored.append((s, m))
        scored.sort(key=lambda t: t[0], reverse=True)
        return [m for _, m in scored]

    # ------------------------------------------------------------------ search
    def _negamax(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        stats = self._stats
        stats.nodes += 1
        self._tick()
        board = self._board
        if board._seen[board.hash] >= 2:
            stats.rep_hits += 1
            return 0
        if depth <= 0:
            return self._qsearch(alpha, beta, ply, QDEPTH)
        if ply > stats.seldepth:
            stats.seldepth = ply
        key = board.hash
        entry = self.tt.get(key)
        tt_move = None
        if entry is not None:
            edepth, flag, escore, tt_move = entry
            if edepth >= depth:
                s = _from_tt(escore, ply)
                if flag == _EXACT or (flag == _LOWER and s >= beta) or (flag == _UPPER and s <= alpha):
                    return s
        if winning_moves(board):
            return MATE - ply - 1
        moves = board.legal_moves()
        if not moves:
            return -(MATE - ply)
        me = board.turn
        a0 = alpha
        rep0 = stats.rep_hits
        best = -INF
        best_move = None
        for i, move in enumerate(self._order(moves, tt_move, ply)):
            board.push(move)
            res = board._result
            if res is not None:
                if res.winner is None:
                    stats.rep_hits += 1
                    score = 0
                else:
                    score = MATE - ply - 1 if res.winner == me else -(MATE - ply - 1)
            elif i == 0:
                score = -self._negamax(depth - 1, -beta, -alpha, ply + 1)
            else:
                score = -self._negamax(depth - 1, -alpha - 1, -alpha, ply + 1)
                if alpha < score < beta:
                    score = -self._negamax(depth - 1, -beta, -alpha, ply + 1)
            board.pop()
            if score > best:
                best = score
                best_move = move
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        self._cutoff(move, depth, ply)
                        break
        if stats.rep_hits == rep0:
            flag = _UPPER if best <= a0 else _LOWER if best >= beta else _EXACT
            self.tt[key] = (depth, flag, _to_tt(best, ply), best_move)
        return best

    def _cutoff(self, move: Move, depth: int, ply: int) -> None:
        killers = self._killers[ply]
        if killers[0] != move:
            killers[1] = killers[0]
            killers[0] = move
        self.history[move] = self.history.get(move, 0) + depth * depth

    def _qsearch(self, alpha: int, beta: int, ply: int, qdepth: int) -> int:
        stats = self._stats
        if ply > stats.seldepth:
            stats.seldepth = ply
        board = self._board
        if winning_moves(board):
            return MATE - ply - 1
        me = board.turn
        threats = winning_moves(board, 1 - me)
        stand = evaluate(board)
        if not threats or qdepth <= 0:
            return stand
        # The opponent wins next move unless we stop it: search the replies that can.
        lines = 0
        for m in threats:
            for line in board.geo.lines_through[m.to]:
                lines |= line
            if m.frm is not None:
                lines |= 1 << m.frm
        replies = [m for m in board.legal_moves() if lines >> m.to & 1]
        best = -(MATE - ply - 2)
        for move in replies:
            stats.nodes += 1
            self._tick()
            board.push(move)
            res = board._result
            if res is not None:
                if res.winner is None:
                    stats.rep_hits += 1
                    score = 0
                else:
                    score = MATE - ply - 1 if res.winner == me else -(MATE - ply - 1)
            elif board._seen[board.hash] >= 2:
                stats.rep_hits += 1
                score = 0
            else:
                score = -self._qsearch(-beta, -alpha, ply + 1, qdepth - 1)
            board.pop()
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best


def _to_tt(score: int, ply: int) -> int:
    if score > MATE_BOUND:
        return score + ply
    if score < -MATE_BOUND:
        return score - ply
    return score


def _from_tt(score: int, ply: int) -> int:
    if score > MATE_BOUND:
        return score - ply
    if score < -MATE_BOUND:
        return score + ply
    return score


def search(board: Board, limits: SearchLimits = SearchLimits(), multipv: int = 1) -> SearchResult:
    """Search ``board`` with a fresh engine (see ``Searcher.search``)."""
    return Searcher().search(board, limits, multipv)
