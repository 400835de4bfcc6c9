"""The analysis of a game: every move replayed with the engine's verdict on it.

``judge_move`` asks the game's family (``Family.judge``: exact for Gobblet Jr. and for Cups
where its exact solver applies, a fixed-depth search for the other Gobblet variants);
``analyse_game`` walks a game's moves (a finished ``Game`` or a ``GameRecord``) and yields one
``MoveAnalysis`` per move, so a caller can show progress and stop early."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .families import family
from .game import VERDICTS, AnalysisUnavailable, Game, Judgement, moves_played
from .record import GameRecord

__all__ = ["AnalysisUnavailable", "MoveAnalysis", "analyse_game", "judge_move", "summary"]


@dataclass(frozen=True)
class MoveAnalysis:
    """One move of a game with its verdict: ``ply`` (the position after it, ``Game.ply``
    numbering), its ``player`` (0 or 1) and move ``text``; ``judgement`` None with ``problem``
    saying why when the move could not be judged."""

    ply: int
    player: int
    text: str
    judgement: Judgement | None
    problem: str = ""

    @property
    def verdict(self) -> str | None:
        """``best``, ``fine``, ``mistake``, ``blunder``, or None when not judged."""
        return self.judgement.verdict if self.judgement else None


def judge_move(game: Game, move: Any, **options: Any) -> Judgement:
    """The engine's verdict on ``move`` played in ``game`` (unchanged), by the game's family;
    ``options`` are the family's (``depth`` for Gobblet, ``seconds``; ``memo``, a dict the
    family may keep things in between the moves of one game).
    Raises ``AnalysisUnavailable`` when the family has no analysis or cannot judge it."""
    judge = family(game.family).judge
    if judge is None:
        raise AnalysisUnavailable(f"there is no analysis of {game.rules.name} games")
    return judge(game, move, **options)


def analyse_game(game: Game | GameRecord, stop: Callable[[], bool] | None = None,
                 **options: Any) -> Iterator[MoveAnalysis]:
    """One ``MoveAnalysis`` per move of ``game`` (a game, or a record, which is replayed and
    checked first: ``RecordError``), in order.  A move the family cannot judge carries the
    reason instead of a verdict.  ``stop`` is asked before each move; True ends the walk."""
    board = game.replay() if isinstance(game, GameRecord) else game
    position, played = moves_played(board)
    # what a family keeps from move to move of one game (Gobblet: its search's tables)
    options = {"memo": {}, **options}
    for move in played:
        if stop is not None and stop():
            return
        ply, player, text = position.ply + 1, position.turn, position.move_text(move)
        try:
            judgement: Judgement | None = judge_move(position, move, **options)
            problem = ""
        except AnalysisUnavailable as e:
            judgement, problem = None, str(e)
        yield MoveAnalysis(ply, player, text, judgement, problem)
        position.push(move)


def summary(moves: list[MoveAnalysis]) -> dict[int, dict[str, int]]:
    """For each player, how many of their moves got each verdict (and ``unjudged``)."""
    out = {p: {**{v: 0 for v in VERDICTS}, "unjudged": 0} for p in (0, 1)}
    for m in moves:
        out[m.player][m.verdict or "unjudged"] += 1
    return out
