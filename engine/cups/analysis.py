"""The engine's verdict on a Cups move (``Family.judge``, used by ``engine.analysis``), from the
exact solver the hints use (``hints.solver_for``) where it applies.

A position's value is the final bowl difference under perfect play, for the player to move.
A move that turns a win into a level game or a loss (or a level game into a loss) is a blunder;
one that keeps the result but gives away ``MISTAKE_BEANS`` or more is a mistake; less, fine.
Where the solver does not apply (rules whose positions do not fit its key) or cannot settle the
position within ``SECONDS``, the move is not judged (``AnalysisUnavailable`` says why): a
guess from a shallow search would not be a verdict."""

from __future__ import annotations

from ..game import BEST, BLUNDER, FINE, MISTAKE, AnalysisUnavailable, Judgement
from .game import CupsGame
from .hints import solver_for, value_words
from .moves import CupsMove
from .solve import PROVE_RATE

MISTAKE_BEANS = 3
SECONDS = 2.0  # the most the solver may spend on one position


def _sign(v: float) -> int:
    return (v > 0) - (v < 0)


def judge(game: CupsGame, move: CupsMove, seconds: float = SECONDS, **_: object) -> Judgement:
    """The verdict on ``move`` played by the side to move of ``game`` (left unchanged), exact;
    ``AnalysisUnavailable`` when the exact solver does not apply or takes longer than
    ``seconds``, for a finished game or an illegal move."""
    if game.is_over():
        raise AnalysisUnavailable("the game is over: there is no move to judge")
    reason = game.illegal_reason(move)
    if reason is not None:
        raise AnalysisUnavailable(f"{game.move_text(move)} cannot be judged: {reason}")
    solver = solver_for(game.rules)
    if solver is None:
        raise AnalysisUnavailable(f"{game.rules.token}: positions this large do not fit the exact solver, "
                                  "so there is no analysis")
    ranked = solver.move_values(game.copy(), budget=max(10_000, int(seconds * PROVE_RATE)))
    if ranked is None:
        raise AnalysisUnavailable("the exact solver could not settle this position in time "
                                  "(too many beans still in play)")
    best = ranked[0]
    played = next(mv for mv in ranked if mv.move == move)
    before, after = float(best.value), float(played.value)
    drop = before - after
    if drop <= 0:
        verdict = BEST
    elif _sign(after) < _sign(before):
        verdict = BLUNDER
    elif drop >= MISTAKE_BEANS:
        verdict = MISTAKE
    else:
        verdict = FINE
    return Judgement(best.move, game.move_text(best.move), value_words(best), value_words(played), verdict,
                     True, max(0.0, drop), "beans", "exact solver")
