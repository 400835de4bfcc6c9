"""The analysis of a finished game: every move with the engine's verdict (``engine.analysis``).

An analysis runs in one background thread per app, one game at a time, so the server goes on
answering while it thinks; a page starts it (``POST /api/analysis``: the live game once it is
over, or a recorded game), then reads its progress and the verdicts found so far
(``GET /api/analysis/ID``) and the positions of the game it analyses (``.../position/PLY``).
Read-only, so spectators may ask too; the same game asked twice shares one analysis."""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, current_app, jsonify

from engine import Game
from engine.analysis import MoveAnalysis, analyse_game, summary
from engine.game import moves_played

from ..services import companion
from .errors import ApiError
from .game_api import game_errors, json_body
from .history_api import position_json
from .hub import GameChanged, NoGame, colour_name
from .records_api import replayed_game

log = logging.getLogger(__name__)
bp = Blueprint("analysis_api", __name__, url_prefix="/api/analysis")

KEPT = 16  # analyses kept (the oldest finished ones are forgotten first)
WAITING = 4  # analyses that may wait for the thread; more are refused until it catches up
QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"


@dataclass
class Analysis:
    """One game's analysis: the game, its title, and the verdicts found so far."""

    id: str
    game: Game
    title: str
    players: dict[str, str]
    total: int
    first: int  # the ply the game started from (a game set up mid-way starts later)
    status: str = QUEUED
    moves: list[MoveAnalysis] = field(default_factory=list)
    error: str = ""
    note: str = ""  # what the page should know (an exact table still being prepared, ...)
    started: float = 0.0
    seconds: float = 0.0
    cancelled: bool = False

    def to_json(self) -> dict[str, Any]:
        """Progress and verdicts as the page reads them."""
        moves = list(self.moves)
        counts = summary(moves)
        return {
            "id": self.id, "status": self.status, "title": self.title, "players": self.players,
            "variant": self.game.rules.token, "total": self.total, "done": len(moves),
            "error": self.error, "note": self.note, "seconds": round(self.seconds, 2),
            "first": self.first,
            "names": {colour_name(p): self.game.player_name(p) for p in (0, 1)},
            "summary": {colour_name(p): counts[p] for p in (0, 1)},
            "moves": [_move_json(m) for m in moves],
        }


def _move_json(m: MoveAnalysis) -> dict[str, Any]:
    j = m.judgement
    out: dict[str, Any] = {"ply": m.ply, "colour": colour_name(m.player), "text": m.text,
                           "verdict": m.verdict, "problem": m.problem}
    if j is not None:
        out.update(before=j.before, after=j.after, best=j.best_text, exact=j.exact, drop=j.drop,
                   units=j.units, how=j.how)
    return out


class AnalysisRunner:
    """The app's analyses and the one thread that works them out, oldest request first."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._jobs: OrderedDict[str, Analysis] = OrderedDict()
        self._thread: threading.Thread | None = None

    def get(self, job_id: str) -> Analysis | None:
        """The analysis called ``job_id``, if it is still kept."""
        with self._lock:
            return self._jobs.get(job_id)

    def submit(self, key: str, game: Game, title: str, players: dict[str, str], note: str = "") -> Analysis:
        """The analysis of ``game`` (``key`` names it: the same key shares one analysis),
        started if new.  ``RuntimeError`` when too many wait already."""
        job_id = hashlib.sha1(key.encode()).hexdigest()[:12]
        with self._lock:
            job = self._jobs.get(job_id)
            if job is not None and job.status != FAILED:
                self._jobs.move_to_end(job_id)
                return job
            waiting = sum(1 for j in self._jobs.values() if j.status == QUEUED)
            if waiting >= WAITING:
                raise RuntimeError("the analysis is busy with other games: ask again in a minute")
            start, played = moves_played(game)
            job = Analysis(job_id, game.copy(), title, players, len(played), start.ply, note=note)
            self._jobs[job_id] = job
            while len(self._jobs) > KEPT:
                old_id = next((k for k, j in self._jobs.items() if j.status in (DONE, FAILED)), None)
                if old_id is None:
                    break
                del self._jobs[old_id]
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="cupboard-analysis", daemon=True)
                self._thread.start()
            self._wake.notify_all()
            return job

    def _next(self) -> Analysis | None:
        with self._lock:
            while True:
                job = next((j for j in self._jobs.values() if j.status == QUEUED), None)
                if job is not None:
                    job.status = RUNNING
                    job.started = time.perf_counter()
                    return job
                if not self._wake.wait(timeout=60.0):
                    self._thread = None  # idle: a later request starts a new thread
                    return None

    def _run(self) -> None:
        while True:
            job = self._next()
            if job is None:
                return
            try:
                for move in analyse_game(job.game, stop=lambda: job.cancelled):
                    job.moves.append(move)  # appending is atomic: readers copy the list
                    job.seconds = time.perf_counter() - job.started
                    time.sleep(0)  # let the request threads in between two moves
                job.status = DONE
            except Exception as e:  # noqa: BLE001 - the page must hear why, the thread must go on
                log.exception("analysis %s failed", job.id)
                job.error = f"the analysis failed: {e}"
                job.status = FAILED
            job.seconds = time.perf_counter() - job.started


def _runner() -> AnalysisRunner:
    return current_app.extensions["cupboard-analysis"]


@bp.record_once
def _attach(state) -> None:
    state.app.extensions["cupboard-analysis"] = AnalysisRunner()


def _table_note(game: Game) -> str:
    """Gobblet Jr. is judged from the exact table when it is there (switching to it once built)."""
    table = companion().jr_table
    if not table.covers(game):
        return ""
    answer = table.answer()
    if answer["table"] == "ready":
        return ""
    return (f"{answer['table_note']}. Until it is there, this analysis proves values by search: slower, "
            "and a draw it cannot prove is not called a blunder")


@bp.post("")
def start():
    """Analyse ``{"game": ID}`` (the live game, once it is over) or ``{"file": NAME, "index": N}``
    (a recorded game).  Answers the analysis as it stands (202 while it runs)."""
    data = json_body()
    if "file" in data:
        name, index = data.get("file"), data.get("index", 0)
        if not isinstance(name, str) or not isinstance(index, int) or isinstance(index, bool):
            raise ApiError(400, 'send {"file": "name.gbn", "index": 0} for a recorded game')
        record, game, players = replayed_game(name, index)
        key = f"record:{name}:{index}:{game.text()}:{len(record.moves)}"
        title = f"{players['white']} – {players['black']} · {record.result}"
    elif "game" in data:
        try:
            with companion().hub.acting(data["game"] if isinstance(data["game"], str) else "?") as session:
                with session.lock:
                    game = session.board.copy()
                state = companion().hub.snapshot().state
        except (NoGame, GameChanged) as e:
            raise game_errors(e) from None
        if game.outcome() is None:
            raise ApiError(409, "the game is not over: its analysis comes when it has ended")
        players = dict(state["players"])
        key = f"game:{state['game']}:{game.text()}:{game.ply}"
        title = f"{players['white']} – {players['black']} · {game.outcome().result}"
    else:
        raise ApiError(400, 'send {"game": ID} for the live game or {"file": NAME, "index": N} for a record')
    try:
        job = _runner().submit(key, game, title, players, _table_note(game))
    except RuntimeError as e:
        raise ApiError(503, str(e)) from None
    body = job.to_json()
    return jsonify(body), 200 if body["status"] == DONE else 202


def _job(job_id: str) -> Analysis:
    job = _runner().get(job_id)
    if job is None:
        raise ApiError(404, f"no analysis {job_id!r} (it may have been forgotten: start it again)")
    return job


@bp.get("/<job_id>")
def progress(job_id: str):
    """An analysis: its status, how many moves are judged of how many, and the verdicts."""
    return jsonify(_job(job_id).to_json())


@bp.get("/<job_id>/position/<int:ply>")
def position(job_id: str, ply: int):
    """The position after ``ply`` of the analysed game, drawn as the live page draws it."""
    job = _job(job_id)
    try:
        return jsonify(position_json(job.game, ply, [job.players["white"], job.players["black"]]))
    except ValueError as e:
        raise ApiError(404, str(e)) from None
