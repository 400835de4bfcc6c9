"""The game in progress: an engine board, its journal on disk, and whoever listens for events.

Every change (a move, a take-back, an ending, a referee alert) is journalled and flushed to disk
before listeners hear of it, so a crash loses nothing that was announced.  On start,
``GameSession.resume`` rebuilds the exact game from the journal.  When a game ends its record
is written atomically into the records folder and the journal is moved to ``journals/``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from engine import Board, IllegalMove, Move, Outcome
from engine.board import AGREEMENT, RESIGNATION, TOUCH_MOVE
from engine.notation import describe_outcome, parse_position
from engine.record import GameRecord, save_records
from engine.rules import COLOUR_NAMES, Rules

from .journal import Event, Journal, JournalError, JournalHeader

CURRENT = "current.journal"
DEMO_FOLDER = "demo"  # under records/: the demo camera's games
DEMO_RECORDS_KEPT = 10  # a demo left running all day keeps only its latest games
log = logging.getLogger(__name__)

Listener = Callable[[Event], None]


class SessionError(ValueError):
    """A request the current game cannot take (no game, game over, nothing to take back)."""


class GameSession:
    """One game, journalled.  Thread-safe: the camera thread and web requests may both act."""

    def __init__(self, data_dir: Path, journal: Journal, board: Board) -> None:
        self.data_dir = data_dir
        self.journal = journal
        self.board = board
        self._lock = threading.RLock()
        self._listeners: list[Listener] = []
        self._move_notes: list[dict[str, str]] = []
        self._started = journal.events[0].time if journal.events else time.time()

    # ------------------------------------------------------------------ life cycle
    @classmethod
    def new(
        cls,
        data_dir: Path,
        rules: Rules,
        tags: dict[str, str] | None = None,
        start: str | None = None,
    ) -> "GameSession":
        """Start a new game in ``data_dir`` (replacing any unfinished one, which is archived)."""
        data_dir = Path(data_dir)
        current = data_dir / CURRENT
        if current.exists():
            _archive(data_dir, current)
        board = parse_position(start) if start else Board(rules)
        all_tags = {
            "Variant": board.rules.token,
            "Date": datetime.now().strftime("%Y.%m.%d"),
            "White": "White",
            "Black": "Black",
        }
        all_tags.update(tags or {})
        journal = Journal.create(current, JournalHeader(board.rules.token, board.text(), all_tags))
        session = cls(data_dir, journal, board)
        event = session._record(
            "start",
            f"New game of {board.rules.name}: {all_tags['White']} (White) against "
            f"{all_tags['Black']} (Black)",
            {"position": board.text()},
        )
        session._started = event.time  # as ``resume`` will read it, so record paths agree
        return session

    @classmethod
    def resume(cls, data_dir: Path) -> "GameSession | None":
        """The unfinished game in ``data_dir``, exactly as its journal left it; None if none."""
        current = Path(data_dir) / CURRENT
        if not current.exists():
            return None
        journal = Journal.open(current)
        board = parse_position(journal.header.start)
        session = cls(Path(data_dir), journal, board)
        for event in journal.events:
            try:
                session._redo(event)
            except (ValueError, KeyError, TypeError) as e:
                journal.close()
                raise JournalError(
                    f"{current}: event {event.seq} ({event.kind}) cannot be replayed: {e}"
                ) from None
        if board.outcome() is not None:
            session._write_record()  # the process may have stopped before writing it
        return session

    def _redo(self, event: Event) -> None:
        if event.kind == "move":
            self.board.push(self.board.parse_move(event.data["move"]))
            self._move_notes.append(dict(event.data.get("notes", {})))
        elif event.kind == "takeback":
            if self.board.pop() is not None:
                self._move_notes.pop()
        elif event.kind == "end" and event.data.get("action"):
            self._apply_action(event.data["action"], event.data.get("square"), event.data.get("colour"))

    # ------------------------------------------------------------------ listeners
    def subscribe(self, listener: Listener) -> None:
        """Call ``listener(event)`` after each event has reached the disk."""
        with self._lock:
            self._listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        """Stop calling ``listener``."""
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def _record(self, kind: str, text: str, data: dict[str, Any] | None = None) -> Event:
        event = self.journal.append(kind, text, data)
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # a broken listener must not undo or hide a journalled event
                log.exception("listener %r failed on event %d", listener, event.seq)
        return event

    @property
    def lock(self) -> threading.RLock:
        """The lock every change takes; hold it to read the board while nothing moves."""
        return self._lock

    @property
    def started(self) -> float:
        """When the game started (UNIX seconds): the time of its first journal event."""
        return self._started

    # ------------------------------------------------------------------ actions
    @property
    def over(self) -> bool:
        """True when the game has ended."""
        return self.board.outcome() is not None

    def play(self, move: Move | str, source: str = "hand", notes: dict[str, str] | None = None) -> Event:
        """Play a move (Move or move text) after checking it; journals it and any ending.

        ``notes`` are kept with the move in the record (e.g. camera confidence)."""
        with self._lock:
            if self.over:
                raise SessionError("the game is over")
            if isinstance(move, str):
                move = self.board.parse_move(move)
            reason = self.board.illegal_reason(move)
            if reason is not None:
                raise IllegalMove(reason)
            text = self.board.move_text(move)
            mover = COLOUR_NAMES[self.board.turn]
            number = self.board.ply + 1
            all_notes = {"time": f"{time.time() - self._started:.1f}", "source": source}
            all_notes.update(notes or {})
            self.board.push(move)
            self._move_notes.append(all_notes)
            try:
                event = self._record(
                    "move",
                    f"{mover} played {text}",
                    {"move": text, "ply": number, "position": self.board.text(), "notes": all_notes},
                )
            except BaseException:  # not on disk, so it did not happen: keep board and journal equal
                self.board.pop()
                self._move_notes.pop()
                raise
            self._check_end()
            return event

    def take_back(self) -> Event:
        """Undo the last move, or the last ending (a resignation, an agreed draw, ...)."""
        with self._lock:
            if not self.board.can_pop:
                raise SessionError("there is no move to take back")
            if self.over:  # the ending no longer stands: neither does the record written for it
                self.record_path.unlink(missing_ok=True)
            move = self.board.pop()
            if move is None:
                return self._record("takeback", "Took back the end of the game", {"position": self.board.text()})
            text = self.board.move_text(move)
            self._move_notes.pop()
            return self._record("takeback", f"Took back {text}", {"move": text, "position": self.board.text()})

    def resign(self, colour: int | None = None) -> Event:
        """The given player (default: the player to move) resigns."""
        return self._action(RESIGNATION, colour=self.board.turn if colour is None else colour)

    def agree_draw(self) -> Event:
        """Both players agree to a draw."""
        return self._action(AGREEMENT)

    def forfeit_touch(self, square: int) -> Event:
        """The player to move lifted the piece on ``square`` and it cannot move: they lose."""
        return self._action(TOUCH_MOVE, square=square)

    def alert(self, kind: str, text: str, data: dict[str, Any] | None = None) -> Event:
        """Journal and announce a referee alert that does not change the position."""
        with self._lock:
            return self._record(kind, text, data)

    def _action(self, action: str, square: int | None = None, colour: int | None = None) -> Event:
        with self._lock:
            if self.over:
                raise SessionError("the game is over")
            outcome = self._apply_action(action, square, colour)
            data = {"action": action, "result": outcome.result, "reason": outcome.reason}
            if square is not None:
                data["square"] = square
            if colour is not None:
                data["colour"] = colour
            event = self._record("end", describe_outcome(self.board, outcome), data)
            self._write_record()
            return event

    def _apply_action(self, action: str, square: int | None, colour: int | None) -> Outcome:
        if action == RESIGNATION:
            return self.board.resign(colour)
        if action == AGREEMENT:
            return self.board.agree_draw()
        if action == TOUCH_MOVE and square is not None:
            return self.board.forfeit_touch(int(square))
        raise SessionError(f"unknown ending {action!r}")

    def _check_end(self) -> None:
        outcome = self.board.outcome()
        if outcome is None:
            return
        data = {"result": outcome.result, "reason": outcome.reason}
        if outcome.line:
            data["line"] = [self.board.geo.names[s] for s in outcome.line]
        self._record("end", describe_outcome(self.board, outcome), data)
        self._write_record()

    # ------------------------------------------------------------------ records
    def to_record(self) -> GameRecord:
        """The game so far as a record (the live game can be exported at any time)."""
        with self._lock:
            return GameRecord.from_board(
                self.board, tags=dict(self.journal.header.tags), annotations=list(self._move_notes)
            )

    @property
    def demo(self) -> bool:
        """True for a demo camera's game (tag ``Demo``): its record is kept apart."""
        return self.journal.header.tags.get("Demo") == "yes"

    @property
    def record_path(self) -> Path:
        """Where this game's record is written when it ends: ``records/``, or for a demo game
        ``records/demo/`` (so the demo's games do not bury the real ones)."""
        tags = self.journal.header.tags
        stamp = datetime.fromtimestamp(self._started).strftime("%Y%m%d-%H%M%S")
        if self.demo:
            return self.data_dir / "records" / DEMO_FOLDER / f"demo-{stamp}.gbn"
        name = _safe(f"{stamp}-{tags.get('White', 'White')}-{tags.get('Black', 'Black')}")
        return self.data_dir / "records" / f"{name}.gbn"

    def _write_record(self) -> Path:
        """Write (or rewrite, after a take-back and a new ending) the ended game's record."""
        path = self.record_path
        path.parent.mkdir(parents=True, exist_ok=True)
        save_records(path, [self.to_record()])
        if self.demo:
            _keep_newest(path.parent, DEMO_RECORDS_KEPT)
        return path

    def close(self) -> None:
        """Close the journal file (the game stays resumable)."""
        self.journal.close()


def _archive(data_dir: Path, journal_path: Path) -> None:
    """Move a finished or abandoned journal out of the way, keeping it."""
    archive = data_dir / "journals"
    archive.mkdir(parents=True, exist_ok=True)
    stamp = datetime.fromtimestamp(journal_path.stat().st_mtime).strftime("%Y%m%d-%H%M%S")
    target = archive / f"{stamp}.journal"
    n = 1
    while target.exists():
        n += 1
        target = archive / f"{stamp}-{n}.journal"
    journal_path.replace(target)


def _keep_newest(folder: Path, keep: int) -> None:
    """Delete all but the ``keep`` newest record files in ``folder``."""
    files = sorted(folder.glob("*.gbn"), key=lambda p: p.name, reverse=True)  # names start with the time
    for old in files[keep:]:
        old.unlink(missing_ok=True)


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name)[:80]
