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
from collections.abc import Sequence
from dataclasses import replace

from ..game import Alternative, Hint, Level, level
from .board import Board
from .jr import model as jr
from .jr.solve import LOSS, WIN, JrSolver, JrValue
from .search.parallel import default_helpers
from .explain import TEMPTING_MARGIN, explain, names_of, pick_tempting, score_words
from .explain import Alternative as Explained
from .search.searcher import MATE_BOUND, ScoredMove, Searcher, SearchLimits, mate_distance
from .values import Move


_SOLVERS: dict[int, JrSolver] = {}
# how far the search looks for the answer to the tempting alternative: a hint's reason names
# the answer's tactic, found within a few plies (``bench/hint_words.py``: tens of ms, a few
# hundred at most on 5x5 boards)
REFUTATION_DEPTH = 3
REFUTATION_NODES = 20_000


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
         multipv: int | None = None, names: Sequence[str] | None = None) -> Hint:
    """The suggested move for the side to move of ``board`` at ``strength``, thinking for about
    ``seconds``.  ``rng`` drives the randomness of weak levels (default: a fixed seed);
    ``multipv`` overrides how many of the best moves get exact scores (default: the level's,
    3; the others get bounds such as "at most -17").  Without a ``searcher``, the full level
    shares its search with helper processes on the other cores (``default_helpers``).
    ``names`` are the players' names for the reason's words (default: White and Black); the
    reason says why in the game's words (``engine.gobblet.explain``)."""
    if board.is_over():
        raise ValueError("the game is over: there is nothing to suggest")
    lvl = level(strength)
    if lvl.depth is None and jr.is_jr(board.rules):
        return _exact_hint(board, seconds, names)
    if multipv is not None:
        lvl = replace(lvl, multipv=max(1, multipv))
    if searcher is None:
        # full strength thinks for a time: the other cores help (``engine.gobblet.search.parallel``)
        searcher = Searcher(helpers=default_helpers() if lvl.depth is None else 0)
    return _search_hint(board, lvl, seconds, rng or random.Random(0), searcher, names)


# ------------------------------------------------------------------ exact (Gobblet Jr.)
def _exact_hint(board: Board, seconds: float, names: Sequence[str] | None) -> Hint:
    import time

    start = time.perf_counter()
    solver = jr_solver()
    nodes0 = solver.nodes
    root, moves = solver.analyse(jr.from_board(board), seconds)
    best = moves[0]
    move = jr.to_move(best.move)
    alternatives = tuple(
        Alternative(jr.to_move(mv.move), board.move_text(jr.to_move(mv.move)),
                    value_words(mv.value) if mv.value else "not better")
        for mv in moves
    )
    optimal = [mv for mv in moves if mv.optimal]
    lead = _exact_lead(board, move, root, len(optimal), moves, names_of(board, names))
    tempting = _exact_tempting(board, move, root, moves, solver)
    reason = explain(board, move, names, tempting, lead)
    return Hint(move, board.move_text(move), value_words(root), reason, alternatives, "full",
                root.proven, None, root.plies or root.horizon, solver.nodes - nodes0,
                time.perf_counter() - start)


def value_words(value: JrValue) -> str:
    """An exact 3x3 value in a player's words: "wins in 5", "loses in 4", "draw"."""
    if value.result == WIN:
        return f"wins in {value.plies}"
    if value.result == LOSS:
        return f"loses in {value.plies}"
    return "draw" if value.proven else f"no forced win within {value.horizon} plies"


def _exact_lead(board: Board, move: Move, root: JrValue, n_optimal: int, moves, names: tuple[str, str]) -> str:
    """What the exact value says of ``move``, before the tactics (``explain``) say why."""
    if root.result == WIN:
        if root.plies == 1:
            return ""  # the facts say it: "wins: 3 in row 2"
        only = "the only move that wins" if n_optimal == 1 else f"one of {n_optimal} moves that win as fast"
        return f"wins in {root.plies} plies ({only})"
    if root.result == LOSS:
        return f"every move loses against perfect play; this one holds out longest ({root.plies} plies)"
    losing = sum(1 for mv in moves if mv.value is not None and mv.value.result == LOSS)
    if losing == len(moves) - 1:
        return "the only move that does not lose" if root.proven else (
            "the only move not proved to lose (no forced result found for it in time)")
    return "keeps the draw" if root.proven else "no forced win for either side found"


def _exact_tempting(board: Board, move: Move, root: JrValue, moves, solver: JrSolver) -> Explained | None:
    """The tempting alternative of an exact hint and the table's best answer to it: a move
    that throws away a win or a draw the suggested move keeps."""
    if root.result == WIN and root.plies == 1:
        return None
    ranked = []
    for mv in moves:
        worse = mv.value is not None and mv.value.rank()[0] > root.rank()[0]
        ranked.append((jr.to_move(mv.move), None, worse))
    alt = pick_tempting(board, move, ranked)
    if alt is None:
        return None
    value = next(mv.value for mv in moves if jr.to_move(mv.move) == alt)
    board.push(alt)
    try:
        if board.decided is not None:
            return Explained(alt, (alt,), value_words(value))
        _, replies = solver.analyse(jr.from_board(board), 0.2)
        line = (alt, jr.to_move(replies[0].move)) if replies else (alt,)
    finally:
        board.pop()
    return Explained(alt, line, value_words(value))


# ------------------------------------------------------------------ search
def _search_hint(board: Board, lvl: Level, seconds: float, rng: random.Random, searcher: Searcher,
                 names: Sequence[str] | None) -> Hint:
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
    lead = _search_lead(chosen, ranked, names_of(board, names)[1 - board.turn])
    tempting = _search_tempting(board, chosen, ranked)
    line = result.pv if chosen is ranked[0] else ()
    reason = explain(board, move, names, tempting, lead, line)
    if not reason:
        reason = f"no tactic to point at: the best move found looking {result.depth} plies ahead"
    exact = mate_distance(chosen.score) is not None and chosen.exact
    return Hint(move, board.move_text(move), _score_words(chosen), reason, alternatives, lvl.name, exact,
                chosen.score, result.depth, result.nodes, result.seconds)


def _score_words(r: ScoredMove) -> str:
    """A move's value as a player reads it: ``wins in 3``, ``loses in 4``, ``clearly better``,
    ``about even``; a bound (the search only proved the move no better) ``at best a bit worse``."""
    d = mate_distance(r.score)
    if d is not None:
        return f"wins in {d}" if d > 0 else f"loses in {-d}"
    if not r.exact:
        return f"at best {score_words(r.score)}"
    return score_words(r.score)


def _search_lead(chosen: ScoredMove, ranked: list[ScoredMove], opponent: str) -> str:
    """What the search's value says of ``chosen``, before the tactics (``explain``) say why."""
    d = mate_distance(chosen.score)
    if d == 1:
        return ""  # the facts say it: "wins: 4 in row 2"
    if d is not None and d > 0:
        return f"wins in {d} plies whatever {opponent} does"
    if d is not None:
        return f"every move loses against best play; this one holds out longest ({-d} plies)"
    not_losing = [r for r in ranked if r.score > -MATE_BOUND]
    if len(not_losing) == 1:
        return "the only move that does not lose"
    return ""


def _search_tempting(board: Board, chosen: ScoredMove, ranked: list[ScoredMove]) -> Explained | None:
    """The tempting alternative of a searched hint (clearly worse than ``chosen``: a forced
    loss, or a score or bound ``TEMPTING_MARGIN`` below) with the line a short search finds
    against it."""
    def worse(r: ScoredMove) -> bool:
        if r.score < -MATE_BOUND:
            return chosen.score > -MATE_BOUND or r.score < chosen.score
        return r.score <= chosen.score - TEMPTING_MARGIN

    if mate_distance(chosen.score) == 1:
        return None  # it wins at once: nothing else is worth a word
    alt = pick_tempting(board, chosen.move, [(r.move, r.score, worse(r)) for r in ranked])
    if alt is None:
        return None
    scored = next(r for r in ranked if r.move == alt)
    value = _score_words(scored)
    won = mate_distance(chosen.score)
    if won is not None and won > 0 and scored.score < MATE_BOUND:
        # what the alternative throws away
        value = f"{value}, with no forced win" if value.startswith("at best") else f"only {value}, with no forced win"
    board.push(alt)
    try:
        if board.decided is not None:
            return Explained(alt, (alt,), value)
        answer = Searcher().search(board, SearchLimits(time=None, nodes=REFUTATION_NODES, depth=REFUTATION_DEPTH,
                                                 deterministic=True))
    finally:
        board.pop()
    return Explained(alt, (alt, *answer.pv), value)


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
