"""The engine's verdict on a Gobblet move (``Family.judge``, used by ``engine.analysis``).

Gobblet Jr. is judged exactly, from the solver the hints use (``hints.jr_solver``: the exact
table when it is there): a move that turns a win into a draw or a loss, or a draw into a loss,
is a blunder; a move that keeps the result but not the fastest win (or the slowest loss) is
fine.  Every other variant is judged by a search to a fixed depth (``DEPTH`` plies, about a
tenth of a second a position on 4x4): the value of the best move against the value of the move
played, both searched as deep, and the drop graded by ``MISTAKE_DROP`` and ``BLUNDER_DROP``
(evaluation points: an open three-in-a-row threat is worth ``evaluation.THREAT``)."""

from __future__ import annotations

from ..game import BEST, BLUNDER, FINE, MISTAKE, AnalysisUnavailable, Judgement
from .board import Board
from .hints import jr_solver, value_words
from .jr import model as jr
from .jr.solve import DRAW, LOSS, WIN
from .search.searcher import MATE, MATE_BOUND, Searcher, SearchLimits, mate_distance
from .values import Move

DEPTH = 4
MISTAKE_DROP = 40
BLUNDER_DROP = 150
JR_SECONDS = 2.0  # per move, for the solver without its exact table (proves by search)
_RESULT_ORDER = {LOSS: 0, DRAW: 1, WIN: 2}


def judge(board: Board, move: Move, depth: int = DEPTH, searcher: Searcher | None = None,
          seconds: float = JR_SECONDS, memo: dict | None = None) -> Judgement:
    """The verdict on ``move`` played by the side to move of ``board`` (left unchanged):
    exact for Gobblet Jr., else from a search ``depth`` plies deep (``searcher``, or the one
    kept in ``memo``, keeps its tables from move to move of a game).  ``AnalysisUnavailable`` for a finished game or an
    illegal move."""
    if board.is_over():
        raise AnalysisUnavailable("the game is over: there is no move to judge")
    reason = board.illegal_reason(move)
    if reason is not None:
        raise AnalysisUnavailable(f"{move} cannot be judged: {reason}")
    if jr.is_jr(board.rules):
        return _judge_exact(board, move, seconds)
    if searcher is None:
        searcher = memo.setdefault("searcher", Searcher()) if memo is not None else Searcher()
    return _judge_searched(board, move, max(1, depth), searcher)


# ------------------------------------------------------------------ exact (Gobblet Jr.)
def _judge_exact(board: Board, move: Move, seconds: float) -> Judgement:
    solver = jr_solver()
    root, moves = solver.analyse(jr.from_board(board), seconds)
    best = jr.to_move(moves[0].move)
    played = next((mv for mv in moves if jr.to_move(mv.move) == move), None)
    if played is None or played.value is None:
        raise AnalysisUnavailable(f"{board.move_text(move)}: its value was not found in time")
    after = played.value
    exact = root.proven and after.proven
    drop_class = _RESULT_ORDER[root.result] - _RESULT_ORDER[after.result]
    if played.optimal or after == root:
        verdict, drop = BEST, 0.0
    elif drop_class > 0:
        verdict = BLUNDER if exact or after.result == LOSS else MISTAKE
        drop = float(drop_class)
    else:
        verdict, drop = FINE, 0.0
    how = "exact table" if solver.exact is not None else "proved by search"
    return Judgement(best, board.move_text(best), value_words(root), value_words(after), verdict, exact, drop,
                     "results", how)


# ------------------------------------------------------------------ searched
def _score_words(score: int) -> str:
    d = mate_distance(score)
    if d is not None:
        return f"wins in {d}" if d > 0 else f"loses in {-d}"
    return f"{score:+d}"


def _after_score(board: Board, move: Move, depth: int, searcher: Searcher) -> int:
    """The mover's score of ``move``, searched as deep as the root's moves are."""
    me = board.turn
    board.push(move)
    try:
        outcome = board.outcome()
        if outcome is not None:
            if outcome.winner is None:
                return 0
            return MATE - 1 if outcome.winner == me else -(MATE - 1)
        reply = searcher.search(board, SearchLimits(time=None, depth=max(1, depth - 1), deterministic=True)).score
    finally:
        board.pop()
    # a forced result one ply further from the mover than from the reply's side
    if reply > MATE_BOUND:
        return -reply + 1
    if reply < -MATE_BOUND:
        return -reply - 1
    return -reply


def _judge_searched(board: Board, move: Move, depth: int, searcher: Searcher) -> Judgement:
    result = searcher.search(board, SearchLimits(time=None, depth=depth, deterministic=True))
    best, before = result.move, result.score
    after = before if move == best else _after_score(board, move, depth, searcher)
    after = min(after, before)  # the best move's value bounds every other (a deeper look can differ)
    won_before, lost_after = before > MATE_BOUND, after < -MATE_BOUND
    drop = before - after
    if drop == 0:
        verdict = BEST
    elif (won_before and after <= MATE_BOUND) or (lost_after and before >= -MATE_BOUND):
        verdict = BLUNDER  # a forced win let go, or a forced loss walked into
    elif abs(before) > MATE_BOUND and abs(after) > MATE_BOUND:
        verdict = FINE  # the same forced result, sooner or later
    elif drop >= BLUNDER_DROP:
        verdict = BLUNDER
    elif drop >= MISTAKE_DROP:
        verdict = MISTAKE
    else:
        verdict = FINE
    exact = mate_distance(before) is not None and mate_distance(after) is not None
    shown = float(min(drop, 2 * MATE)) if abs(before) < MATE_BOUND and abs(after) < MATE_BOUND else 0.0
    return Judgement(best, board.move_text(best), _score_words(before), _score_words(after), verdict, exact,
                     shown, "points", f"searched {depth} plies")
