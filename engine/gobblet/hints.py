"""Move suggestions for Gobblet players: the best move, its value, a reason in plain words and the
ranked alternatives, at a chosen strength.

Gobblet Jr. at full strength is answered from exact values (``engine.gobblet.jr.solve`` with
the cached table of ``engine.gobblet.jr.table``); every other case uses the search
(``engine.gobblet.search``).  The levels and the hint values are shared (``engine.game``).  Levels
run from ``beginner`` (one ply, with some randomness) to ``full`` (iterative deepening until
the time is up), so the hints of a weaker level can be shown to a beginner or used to grade
the moves played.
"""

from __future__ import annotations

import random
from dataclasses import replace

from ..game import Alternative, Hint, Level, level
from .board import Board
from .jr import model as jr
from .jr.solve import LOSS, WIN, JrSolver, JrValue
from .search.parallel import default_helpers
from .search.searcher import MATE_BOUND, ScoredMove, Searcher, SearchLimits, mate_distance
from .tactics import completing_squares, threat_lines, winning_moves
from .values import Move


_SOLVERS: dict[int, JrSolver] = {}


def jr_solver(build_if_missing: bool = False) -> JrSolver:
    """The shared Gobblet Jr. solver, using the cached table when it is there (with
    ``build_if_missing``, building it first: about a minute).  Without the table it proves
    wins and losses by search; ``use_jr_table`` switches it to a table built later."""
    if 0 not in _SOLVERS:
        from .jr.table import get_table

        table = get_table(build_if_missing=build_if_missing)
        _SOLVERS[0] = table.solver() if table else JrSolver()
    return _SOLVERS[0]


def use_jr_table(table) -> None:
    """Answer Gobblet Jr. hints with ``table`` (an ``engine.gobblet.jr.table.JrTable``) from now on."""
    _SOLVERS[0] = table.solver()


def hint(board: Board, strength: str | int = "full", seconds: float = 1.0,
         rng: random.Random | None = None, searcher: Searcher | None = None,
         multipv: int | None = None) -> Hint:
    """The suggested move for the side to move of ``board`` at ``strength``, thinking for about
    ``seconds``.  ``rng`` drives the randomness of weak levels (default: a fixed seed);
    ``multipv`` overrides how many of the best moves get exact scores (default: the level's,
    3; the others get bounds such as "at most -17").  Without a ``searcher``, the full level
    shares its search with helper processes on the other cores (``default_helpers``)."""
    if board.is_over():
        raise ValueError("the game is over: there is nothing to suggest")
    lvl = level(strength)
    if lvl.depth is None and jr.is_jr(board.rules):
        return _exact_hint(board, seconds)
    if multipv is not None:
        lvl = replace(lvl, multipv=max(1, multipv))
    if searcher is None:
        # full strength thinks for a time: the other cores help (``engine.gobblet.search.parallel``)
        searcher = Searcher(helpers=default_helpers() if lvl.depth is None else 0)
    return _search_hint(board, lvl, seconds, rng or random.Random(0), searcher)


# ------------------------------------------------------------------ exact (Gobblet Jr.)
def _exact_hint(board: Board, seconds: float) -> Hint:
    import time

    start = time.perf_counter()
    solver = jr_solver()
    nodes0 = solver.nodes
    root, moves = solver.analyse(jr.from_board(board), seconds)
    best = moves[0]
    move = jr.to_move(best.move)
    alternatives = tuple(
        Alternative(jr.to_move(mv.move), board.move_text(jr.to_move(mv.move)),
                    _value_words(mv.value) if mv.value else "not better")
        for mv in moves
    )
    optimal = [mv for mv in moves if mv.optimal]
    reason = _exact_reason(board, move, root, len(optimal), moves)
    return Hint(move, board.move_text(move), _value_words(root), reason, alternatives, "full",
                root.proven, None, root.plies or root.horizon, solver.nodes - nodes0,
                time.perf_counter() - start)


def _value_words(value: JrValue) -> str:
    if value.result == WIN:
        return f"wins in {value.plies}"
    if value.result == LOSS:
        return f"loses in {value.plies}"
    return "draw" if value.proven else f"no forced win within {value.horizon} plies"


def _exact_reason(board: Board, move: Move, root: JrValue, n_optimal: int, moves) -> str:
    if root.result == WIN:
        if root.plies == 1:
            return f"wins now with the line {_line_name(board, _line_after(board, move))}"
        block = _blocked_line(board, move)
        extra = f"; it blocks the line {block}" if block else ""
        only = "the only move that wins" if n_optimal == 1 else f"one of {n_optimal} moves that win as fast"
        return f"wins in {root.plies} plies ({only}){extra}"
    if root.result == LOSS:
        return f"every move loses against perfect play; this one holds out longest ({root.plies} plies)"
    losing = sum(1 for mv in moves if mv.value is not None and mv.value.result == LOSS)
    block = _blocked_line(board, move)
    if losing == len(moves) - 1:
        text = "the only move that does not lose" if root.proven else (
            "the only move not proved to lose (no forced result found for it in time)")
    else:
        text = "keeps the draw" if root.proven else "no forced win for either side found"
    return f"{text}; it blocks the line {block}" if block else text


# ------------------------------------------------------------------ search
def _search_hint(board: Board, lvl: Level, seconds: float, rng: random.Random, searcher: Searcher) -> Hint:
    # a time-bound level always looks at least as deep as "casual", however busy the machine
    limits = SearchLimits(time=seconds, depth=lvl.depth, min_depth=2 if lvl.depth is None else 1)
    if lvl.depth is None:
        result = searcher.search(board, limits, multipv=1, rescore=lvl.multipv)
    else:
        result = searcher.search(board, limits, multipv=lvl.multipv)
    ranked = list(result.ranked)
    chosen = ranked[0]
    if lvl.noise:
        near = [r for r in ranked if r.exact and r.score >= chosen.score - lvl.noise and abs(r.score) < MATE_BOUND]
        if near and abs(chosen.score) < MATE_BOUND:
            chosen = rng.choice(near)
    move = chosen.move
    alternatives = tuple(Alternative(r.move, board.move_text(r.move), _score_words(r), r.score) for r in ranked)
    if chosen is not ranked[0]:
        alternatives = tuple(a for a in alternatives if a.move == move) + tuple(a for a in alternatives if a.move != move)
    reason = _search_reason(board, move, chosen, ranked, result.depth)
    exact = mate_distance(chosen.score) is not None and chosen.exact
    return Hint(move, board.move_text(move), _score_words(chosen), reason, alternatives, lvl.name, exact,
                chosen.score, result.depth, result.nodes, result.seconds)


def _score_words(r: ScoredMove) -> str:
    d = mate_distance(r.score)
    if d is not None:
        return f"wins in {d}" if d > 0 else f"loses in {-d}"
    if not r.exact:
        return f"at most {r.score:+d}"
    return f"{r.score:+d}"


def _search_reason(board: Board, move: Move, chosen: ScoredMove, ranked: list[ScoredMove], depth: int) -> str:
    d = mate_distance(chosen.score)
    if d == 1:
        return f"wins now with the line {_line_name(board, _line_after(board, move))}"
    if d is not None and d > 0:
        return f"wins in {d} plies whatever the opponent does"
    if d is not None:
        return f"every move loses against best play; this one holds out longest ({-d} plies)"
    block = _blocked_line(board, move)
    not_losing = [r for r in ranked if not (r.exact and r.score < -MATE_BOUND) and r.score > -MATE_BOUND]
    if block:
        if len(not_losing) == 1:
            return f"the only move that does not lose: it blocks the line {block}"
        return f"blocks the line {block}"
    if len(not_losing) == 1:
        return "the only move that does not lose"
    threat = _threat_made(board, move)
    if threat:
        return f"threatens to complete the line {threat}"
    return f"best move found looking {depth} plies ahead"


# ------------------------------------------------------------------ words
def _line_name(board: Board, line: int) -> str:
    squares = board.geo.line_squares(line)
    return f"{board.geo.names[squares[0]]}\u2013{board.geo.names[squares[-1]]}" if squares else "?"


def _line_after(board: Board, move: Move) -> int:
    me = board.turn
    board.push(move)
    try:
        squares = board.showing_line(me)
    finally:
        board.pop()
    line = 0
    for sq in squares:
        line |= 1 << sq
    return line


def _blocked_line(board: Board, move: Move) -> str | None:
    """The opponent's line that ``move`` stops, when the opponent threatened to win at once."""
    opp = 1 - board.turn
    if not winning_moves(board, opp):
        return None
    board.push(move)
    try:
        still = board.decided is None and bool(winning_moves(board))
    finally:
        board.pop()
    if still:
        return None
    for line in threat_lines(board, opp):
        if line >> move.to & 1 or (move.frm is not None and line >> move.frm & 1):
            return _line_name(board, line)
    lines = threat_lines(board, opp)
    return _line_name(board, lines[0]) if lines else None


def _threat_made(board: Board, move: Move) -> str | None:
    me = board.turn
    before = completing_squares(board, me)
    board.push(move)
    try:
        if board.decided is not None:
            return None
        new = threat_lines(board, me)
        hot = completing_squares(board, me) & ~before
        for line in new:
            if line & hot:
                return _line_name(board, line)
    finally:
        board.pop()
    return None


def engine_player(strength: str | int):
    """A self-play player at ``strength``: ``(board, seconds, rng) -> move``, keeping its own
    search (and tables) from move to move.  An engine move needs only the best move: exact
    scores for the alternatives are for players reading a hint, and cost the full level part
    of its time."""
    searcher = Searcher()
    lvl = level(strength)

    def move(board: Board, seconds: float, rng: random.Random):
        return hint(board, lvl.name, seconds, rng, searcher, multipv=1 if lvl.depth is None else None).move

    return move
