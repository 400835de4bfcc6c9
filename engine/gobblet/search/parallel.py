"""A time-bound search shared with helper processes (``Searcher(helpers=N)``).

Python runs one thread's bytecode at a time, so a search that is to use more than one core needs
more processes.  Each helper holds a ``Searcher`` of its own, whose tables carry over from
search to search like the main one's, and works where every move of a node must be searched:
the root and the line of first moves below it, the principal variation (``SplitSearch.pv_moves``).
At such a node the main process searches the first move alone, since it sets the bound the
others are tested against.  Then the main process and the helpers take the other moves one at a
time from a shared counter, each searching its move against the best score found so far by any
of them (shared memory), until no move is left or one of them cuts the node off.  Below these
nodes each process searches alone, as ``Searcher`` does.

Each move is searched with the same code and to the same depth as in a search without helpers,
against the best score so far.  When another process finds a better score meanwhile, the move's
search starts again against it (the table keeps what it had found): searched on against the
older, lower bound, a move between the two would be searched again with the full window,
for nothing.  The best score is that of the same full-width search, but the tree is not node
for node the same, so a deterministic search, or one bound by nodes, runs alone.

The helpers are started in the background the first time a search asks for them (``spawn``:
forking a process that may hold threads, such as the web server's, is unsafe) and the search does
not wait for them: until one is ready it works alone.  One search at a time uses them; another
search meanwhile runs alone.  A helper that fails or vanishes is dropped, and the moves it held
are searched by the main process.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
import types
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait

from ..values import Move
from ..rules import Rules
from .searcher import (
    INF,
    SPLIT_DEPTH,
    ScoredMove,
    Searcher,
    SearchLimits,
    _Abort,
    _Outbid,
    _Stop,
    use_splitter,
)
from .shared_table import SharedTable

# the shared memory of a pool: the moves not yet taken (from NEXT up to END, excluded), the best
# score so far, and why to stop
NEXT, END, ALPHA, STOP = 0, 1, 2, 3
GO, CUT, TIME = 0, 1, 2  # values of STOP: search on; a move reached beta; the time is up
# what a shared job's moves are: the root's after the first, a node's after the first, or root
# moves each with a bound to test (``Searcher._rescore``: the moves are (move, bound, below))
ROOT, NODE, TEST = "root", "node", "test"
_HELPER_LIMITS = SearchLimits(time=None, depth=1 << 10)  # a helper stops when told to
_QUIT_TIMEOUT = 0.5  # seconds to wait for a helper to quit at exit
TABLE_BITS = 19  # the shared table's slots: 2**19, 8 MiB


@dataclass
class _Link:
    """The main process's end of one helper."""

    conn: Connection
    process: multiprocessing.process.BaseProcess
    ready: bool = False
    search_id: int = -1  # the search whose root position the helper holds
    alive: bool = True


class _Pool:
    """Helper processes with the memory they share with the main process."""

    def __init__(self, count: int) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.shared = ctx.RawArray("q", 4)
        self.table = SharedTable(ctx.RawArray("Q", 2 << TABLE_BITS), TABLE_BITS)
        self.rules: Rules | None = None  # the rules the table was filled under
        self.lock = ctx.Lock()
        self.busy = threading.Lock()  # held by the search using the helpers
        self.searches = 0
        self.links: list[_Link] = []
        for i in range(count):
            mine, theirs = ctx.Pipe()
            process = ctx.Process(target=_serve, args=(theirs, self.shared, self.lock, self.table.words), daemon=True,
                                  name=f"cupboard-search-helper-{i + 1}")
            with _no_main_module():
                process.start()
            theirs.close()
            self.links.append(_Link(mine, process))

    def ready_links(self) -> list[_Link]:
        """The helpers ready for work (reading, without waiting, whether new ones are)."""
        out = []
        for link in self.links:
            if link.alive and not link.ready:
                try:
                    while link.conn.poll():
                        if link.conn.recv()[0] == "ready":
                            link.ready = True
                except (EOFError, OSError):
                    link.alive = False
            if link.alive and link.ready:
                out.append(link)
        return out

    def close(self) -> None:
        """Ask the helpers to quit; end those that do not."""
        for link in self.links:
            try:
                link.conn.send(("quit",))
            except (OSError, ValueError):
                pass
        for link in self.links:
            link.process.join(_QUIT_TIMEOUT)
            if link.process.is_alive():
                link.process.terminate()
            link.alive = False


@contextmanager
def _no_main_module() -> Iterator[None]:
    """Start processes as if the main program had no module: ``spawn`` would otherwise run the
    main script again in the helper (all of the companion's imports, OpenCV included, or the
    whole of a script written without an ``if __name__ == "__main__"`` guard), and the helper
    needs nothing but this package."""
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is not None:
            sys.modules["__main__"] = main


_POOLS: dict[int, _Pool | None] = {}  # by number of helpers; None: could not be started here
_POOLS_LOCK = threading.Lock()


def _pool(count: int) -> _Pool | None:
    with _POOLS_LOCK:
        pool = _POOLS.get(count)
        if count not in _POOLS or (pool is not None and not any(link.alive for link in pool.links)):
            if pool is not None:  # every helper of it has gone: start afresh
                pool.close()
            try:
                _POOLS[count] = _Pool(count)
            except OSError:  # no processes or shared memory here: search alone
                _POOLS[count] = None
        return _POOLS[count]


def start_helpers(count: int, timeout: float = 5.0) -> int:
    """Start the pool of ``count`` helpers (if not yet started) and wait up to ``timeout``
    seconds for them to be ready, so that the first search gets them: the number ready."""
    pool = _pool(count)
    if pool is None:
        return 0
    end = time.perf_counter() + timeout
    while len(pool.ready_links()) < sum(link.alive for link in pool.links) and time.perf_counter() < end:
        wait([link.conn for link in pool.links if link.alive and not link.ready], max(0.0, end - time.perf_counter()))
    return len(pool.ready_links())


def forget_helpers(count: int) -> None:
    """Empty the tables of the ``count`` helpers and the shared one, as if they had never
    searched (for benchmarks: the tables otherwise carry over from search to search)."""
    pool = _POOLS.get(count)
    if pool is None:
        return
    pool.table.clear()
    for link in pool.ready_links():
        try:
            link.conn.send(("forget",))
        except (OSError, ValueError):
            link.alive = False


def default_helpers() -> int:
    """The helpers a full-strength hint uses: one per core beyond the first, at most 3."""
    return max(0, min((os.cpu_count() or 1) - 1, 3))


@atexit.register
def _close_pools() -> None:
    for pool in _POOLS.values():
        if pool is not None:
            pool.close()


class SplitSearch:
    """The helpers as one search of ``searcher`` uses them (``Searcher.search`` makes it)."""

    def __init__(self, searcher: Searcher, pool: _Pool) -> None:
        self.searcher = searcher
        self.pool = pool
        pool.searches += 1
        self.search_id = pool.searches
        self.job = 0
        self.active = False  # a shared node's moves are being searched
        self.count = 0  # how many moves the job being shared has
        board = searcher._board
        self.root_moves = len(board.move_stack)
        self.root_bytes = pickle.dumps(board)
        if pool.rules != board.rules:  # (the table's moves are tried without a legality check)
            pool.table.clear()
            pool.rules = board.rules
        searcher._shared_tt = pool.table

    @classmethod
    def acquire(cls, searcher: Searcher, count: int) -> SplitSearch | None:
        """The ``count`` helpers for the search ``searcher`` is starting (its ``_begin`` done),
        or None when they are in use by another search or cannot run here."""
        pool = _pool(count)
        if pool is None or not pool.busy.acquire(blocking=False):
            return None
        return cls(searcher, pool)

    def release(self) -> None:
        """Give the helpers back at the end of the search."""
        self.searcher._shared_tt = None
        self.pool.busy.release()

    def width(self) -> int:
        """How many moves can be searched at once: one per process."""
        return 1 + len(self.pool.ready_links())

    def progress(self) -> tuple[int, int]:
        """The moves of the job being shared that are surely done (those taken less one per
        process) and its number of moves."""
        shared = self.pool.shared
        taken = shared[NEXT] + (self.count - shared[END])
        return taken - self.width(), self.count

    def check(self) -> None:
        """Raise ``_Abort`` when a helper has cut off the node being shared, ``_Outbid`` when
        one has found a better score than the main process's move is searched against
        (``Searcher._tick`` calls it)."""
        if self.active:
            shared = self.pool.shared
            if shared[STOP] == CUT:
                raise _Abort
            if shared[ALPHA] > self.searcher._outbid_above:
                raise _Outbid

    # ------------------------------------------------------------------ the main process's side
    def root(self, moves: list[ScoredMove], depth: int, alpha: int) -> None:
        """Search the root moves after the first (whose score is ``alpha``), adding their scores
        to the iteration's results (``Searcher._partial``)."""
        if self._share([sm.move for sm in moves], depth, alpha, INF, 0, ROOT)[1]:
            raise _Stop

    def test(self, moves: list[ScoredMove], depth: int, tested: set[Move]) -> list[tuple[int, bool] | None]:
        """``Searcher._test_bound`` of each of ``moves`` (root moves with their bounds; those in
        ``tested`` made exact below it) at ``depth``, the helpers taking some: (score, exact)
        of each, None where the time ran out first (``_Stop`` is not raised)."""
        found: list[tuple[int, bool] | None] = [None] * len(moves)
        results, _ = self._share([(sm.move, sm.score, sm.move in tested) for sm in moves], depth, -INF, INF, 0, TEST)
        for i, score, exact in results:
            found[i] = (score, exact)
        return found

    def pv_moves(self, moves: Iterator, depth: int, alpha: int, beta: int, ply: int) -> tuple[int | None, Move | None]:
        """The move loop of ``Searcher._negamax`` at a node of the principal variation: the
        first move searched here (its child a node of the principal variation too), the others
        shared with the helpers; the best score and move, ``(None, None)`` with no legal move."""
        s = self.searcher
        moves = list(moves)
        if moves[0] is None:
            return None, None
        best_move = moves[0]
        best = s._move_score(best_move, depth, alpha, beta, ply, True, self if depth > SPLIT_DEPTH else None)
        alpha = max(alpha, best)
        if alpha < beta and len(moves) > 1:
            results, stopped = self._share(moves[1:], depth, alpha, beta, ply, NODE)
            if stopped:
                raise _Stop
            for i, score, _ in results:
                if score > best:
                    best, best_move = score, moves[1 + i]
        if best >= beta:
            s._cutoff(best_move, depth, ply, s._board.turn)
        return best, best_move

    def _share(self, moves: list, depth: int, alpha: int, beta: int, ply: int,
               kind: str) -> tuple[list[tuple[int, int, bool]], bool]:
        """Search ``moves`` of the node on the board, of ``kind`` (``ROOT``, ``NODE`` or
        ``TEST``), together with the ready helpers: the results, each (index in ``moves``,
        score, exact), and whether the time ran out first (the helpers have stopped then too;
        at the root, what was found is added to the iteration's results either way)."""
        s = self.searcher
        board = s._board
        pool = self.pool
        links = pool.ready_links()
        self.job += 1
        self._open(len(moves), alpha)
        path = board.move_stack[self.root_moves:]
        sent = []
        for link in links:
            try:
                if link.search_id != self.search_id:
                    link.conn.send(("begin", self.root_bytes, s.history))
                    link.search_id = self.search_id
                link.conn.send(("job", self.job, kind, path, depth, beta, ply, moves, s._killers[ply + 1:ply + depth + 1]))
                sent.append(link)
            except (OSError, ValueError):
                link.alive = False
        results: list[tuple[int, int, bool]] = []
        stopped = self._search_here(moves, depth, beta, ply, kind, results)
        timed_out, lost = self._collect(sent, results, stopped)
        if lost and not (stopped or timed_out) and pool.shared[STOP] != CUT:
            # a helper vanished with moves it had taken: search what nobody finished
            done = {r[0] for r in results}
            rest = [i for i in range(len(moves)) if i not in done]
            self._open(len(rest), max([alpha] + [r[1] for r in results]))
            more: list[tuple[int, int, bool]] = []
            stopped = self._search_here([moves[i] for i in rest], depth, beta, ply, kind, more)
            results += [(rest[i], score, exact) for i, score, exact in more]
        if kind == ROOT:
            s._partial += [ScoredMove(moves[i], score, exact) for i, score, exact in results]
            s._partial.sort(key=lambda r: (not r.exact, -r.score))
        return results, stopped or timed_out

    def _search_here(self, moves: list, depth: int, beta: int, ply: int, kind: str,
                     results: list[tuple[int, int, bool]]) -> bool:
        """The main process's part of a job (``search_moves``), the board left at the node:
        whether the time ran out (the helpers are then told to stop)."""
        pool = self.pool
        node = self.searcher._board.history_length
        self.active = True
        try:
            search_moves(self.searcher, pool.shared, pool.lock, moves, depth, beta, ply, kind, True, results)
        except _Abort:  # a helper cut the node off
            pass
        except _Stop:
            with pool.lock:
                pool.shared[STOP] = TIME
            return True
        finally:
            self.active = False
            self.searcher._unwind(node)
        return False

    def _open(self, count: int, alpha: int) -> None:
        """Ready the shared memory for a job of ``count`` moves, ``alpha`` the best score so far."""
        self.count = count
        pool = self.pool
        with pool.lock:
            pool.shared[NEXT], pool.shared[END], pool.shared[ALPHA], pool.shared[STOP] = 0, count, alpha, GO

    def _collect(self, links: list[_Link], results: list, stopped: bool) -> tuple[bool, bool]:
        """Wait for the helpers' results of this job, telling them to stop if the search's time
        runs out meanwhile: (whether it did, whether a helper was lost)."""
        s = self.searcher
        stats = s._stats
        pool = self.pool
        pending = {link.conn: link for link in links}
        timed_out = lost = False
        while pending:
            timeout = None
            if not (stopped or timed_out) and s._deadline is not None and s._depth > s._limits.min_depth:
                timeout = max(0.0, s._deadline - time.perf_counter())
            ready = wait(list(pending), timeout)
            if not ready:
                if s._extend_skip():  # (the deadline was one lowered for this iteration)
                    continue
                timed_out = True
                with pool.lock:
                    pool.shared[STOP] = TIME
                continue
            for conn in ready:
                link = pending[conn]
                try:
                    message = conn.recv()
                except (EOFError, OSError):
                    message = ("failed", self.job)
                if message[0] == "done" and message[1] == self.job:
                    _, _, found, nodes, seldepth, rep_hits = message
                    results += found
                    stats.nodes += nodes
                    stats.helper_nodes += nodes
                    stats.seldepth = max(stats.seldepth, seldepth)
                    stats.rep_hits += rep_hits
                    del pending[conn]
                elif message[0] == "failed":
                    link.alive = False
                    lost = True
                    del pending[conn]
        return timed_out, lost


def search_moves(s: Searcher, shared, lock, moves: list, depth: int, beta: int, ply: int, kind: str,
                 front: bool, results: list[tuple[int, int, bool]]) -> None:
    """Take moves of the shared node until none is left or the node is cut off, searching
    each against the best score so far and adding (index, score, exact) to ``results``; the
    same in the main process and in the helpers.

    The main process takes moves from the front of the list, the helpers from the back: the
    order changes little from one iteration to the next, so each process tends to search again
    the moves whose subtrees its own tables hold."""
    node = s._board.history_length
    while True:
        with lock:
            if shared[STOP] != GO or shared[NEXT] >= shared[END]:
                return
            if front:
                i = shared[NEXT]
                shared[NEXT] = i + 1
            else:
                i = shared[END] - 1
                shared[END] = i
            alpha = shared[ALPHA]
        if kind == TEST:
            move, bound, below = moves[i]
            results.append((i, *s._test_bound(move, bound, depth, below)))
            continue  # (each move has its own bound: nothing to share)
        move = moves[i]
        while True:
            s._outbid_above = alpha
            try:
                if kind == ROOT:
                    score, exact = s._root_move(move, depth, alpha)
                else:
                    score = s._move_score(move, depth, alpha, beta, ply, False)
                    exact = alpha < score < beta
                break
            except _Outbid:  # another process found a better score: search against it
                s._unwind(node)
                alpha = shared[ALPHA]
                if shared[STOP] != GO:
                    return
            finally:
                s._outbid_above = INF
        results.append((i, score, exact))
        if score > alpha:
            with lock:
                if score > shared[ALPHA]:
                    shared[ALPHA] = score
                    if score >= beta:
                        shared[STOP] = CUT


# ---------------------------------------------------------------------- the helper's side
class _HelperSearcher(Searcher):
    """A helper's engine: it stops when the main process says so, through the shared memory."""

    def _tick(self) -> None:
        shared = self._shared
        if shared[STOP] != GO:
            raise _Stop
        if shared[ALPHA] > self._outbid_above:
            raise _Outbid

    def job(self, kind: str, path: list[Move], depth: int, beta: int, ply: int,
            moves: list[Move], killers: list) -> tuple[list, int, int, int]:
        """Search the moves it takes of the node after ``path`` (from the root) at ``depth``
        within ``beta``, ``killers`` being the main process's for the plies below: the results,
        nodes, deepest ply and repetitions met."""
        board = self._board
        stats = self._stats
        nodes, reps = stats.nodes, stats.rep_hits
        base = board.history_length
        results: list[tuple[int, int, bool]] = []
        try:
            for move in path:
                board.push(move)
            # the main process's killers below the node: they refuted its siblings' moves
            self._killers[ply + 1:ply + 1 + len(killers)] = killers
            search_moves(self, self._shared, self._lock, moves, depth, beta, ply, kind, False, results)
        except _Stop:
            pass
        finally:
            self._unwind(base)
        return results, stats.nodes - nodes, stats.seldepth, stats.rep_hits - reps


def _serve(conn: Connection, shared, lock, table_words) -> None:
    """A helper process's loop: a root position for each search, then jobs, until told to
    quit or the main process goes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the main process to handle

    def fresh() -> _HelperSearcher:
        searcher = _HelperSearcher()
        searcher._shared, searcher._lock = shared, lock
        searcher._shared_tt = SharedTable(table_words, TABLE_BITS)
        return searcher

    searcher = fresh()
    conn.send(("ready",))
    begun = False  # holds the root position of the current search
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        kind = message[0]
        if kind == "quit":
            return
        try:
            if kind == "forget":
                searcher = fresh()
                begun = False
            elif kind == "begin":
                begun = False
                searcher.history = message[2]  # the main process's move-ordering memory
                searcher._begin(pickle.loads(message[1]), _HELPER_LIMITS)
                begun = True
            elif kind == "job":
                if not begun:
                    raise RuntimeError("a job without the search's position")
                conn.send(("done", message[1], *searcher.job(*message[2:])))
        except Exception as exc:  # report and carry on: the main process searches alone
            conn.send(("failed", message[1] if kind == "job" else None, f"{type(exc).__name__}: {exc}"))


use_splitter(SplitSearch.acquire)
