"""The game in progress: an engine board, its journal on disk, and whoever listens for events.

Every change (a move, a take-back, an ending, a referee alert) is journalled and flushed to disk
before listeners hear of it, so a crash loses nothing that was announced.  On start,
``GameSession.resume`` rebuilds the exact game from the journal.  When a game ends its record
is written atomically into the records folder and the journal is moved to ``journals/``.
"""

from __future__ import annotations

import errno
import logging
import re
import threading
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from engine import Game, GameRules, IllegalMove, Outcome, parse_position
from engine.game import AGREEMENT, RESIGNATION, TIME_FORFEIT
from engine.files import (
    TMP_SUFFIX,
    StorageError,
    describe_os_error,
    fsync_directory,
    remove_stale_temporaries,
)
from engine.record import TOUCH_MOVE, GameRecord, RecordError, save_records

from .clock import GameClock, left_after
from .journal import Event, Journal, JournalError, JournalHeader

CURRENT = "current.journal"
# What an event is, in the sentence that says it was not recorded ("the disk is full: ...").
WHAT = {"move": "the move", "takeback": "the take-back", "end": "the end of the game",
        "start": "the new game", "hint": "the hint"}
DEMO_FOLDER = "demo"  # under records/: the demo camera's games
DEMO_RECORDS_KEPT = 10  # a demo left running all day keeps only its latest games
log = logging.getLogger(__name__)

Listener = Callable[[Event], None]


class SessionError(ValueError):
    """A request the current game cannot take (no game, game over, nothing to take back)."""


class GameSession:
    """One game, journalled.  Thread-safe: the camera thread and web requests may both act."""

    def __init__(self, data_dir: Path, journal: Journal, board: Game) -> None:
        self.data_dir = data_dir
        self.journal = journal
        self.board = board
        self._lock = threading.RLock()
        self._listeners: list[Listener] = []
        self._move_notes: list[dict[str, str]] = []
        self._started = journal.events[0].time if journal.events else time.time()
        self.record_error: str | None = None  # why the finished game's record is not written yet
        self.clock: GameClock | None = None  # the players' clocks, when the game has them (set by the hub)

    # ------------------------------------------------------------------ life cycle
    @classmethod
    def new(
        cls,
        data_dir: Path,
        rules: GameRules,
        tags: dict[str, str] | None = None,
        start: str | None = None,
    ) -> "GameSession":
        """Start a new game in ``data_dir`` (replacing any unfinished one, which is archived).

        The new game is built whole first, in a temporary journal; only then is the old one
        moved to ``journals/`` and the new one put in its place.  If anything fails (a full
        disk, text a journal cannot store) the old game is still the current one."""
        data_dir = Path(data_dir)
        current = data_dir / CURRENT
        board = parse_position(start) if start else rules.new_game()
        all_tags = {
            "Variant": board.rules.token,
            "Date": datetime.now().strftime("%Y.%m.%d"),
            "White": "White",
            "Black": "Black",
        }
        all_tags.update(tags or {})
        data_dir.mkdir(parents=True, exist_ok=True)
        building = data_dir / f".{CURRENT}.new{TMP_SUFFIX}"
        journal = Journal.create(building, JournalHeader(board.rules.token, board.text(), all_tags))
        session = cls(data_dir, journal, board)
        try:
            event = session._record(
                "start",
                f"New game of {board.rules.name}: {all_tags['White']} ({board.player_name(0)}) against "
                f"{all_tags['Black']} ({board.player_name(1)})",
                {"position": board.text()},
            )
            session._started = event.time  # as ``resume`` will read it, so record paths agree
            archived = _archive(data_dir, current) if current.exists() else None
            try:
                building.replace(current)
            except BaseException:
                if archived is not None:  # put the old game back: it is still the current one
                    archived.replace(current)
                raise
            fsync_directory(data_dir)
        except BaseException as e:
            journal.close()
            building.unlink(missing_ok=True)
            if isinstance(e, OSError) and not isinstance(e, StorageError):
                raise StorageError(e.errno or errno.EIO,
                                   f"{describe_os_error(e)}: the new game was not started") from None
            raise
        journal.path = current
        return session

    @classmethod
    def resume(cls, data_dir: Path, notes: list[str] | None = None) -> "GameSession | None":
        """The unfinished game in ``data_dir``, exactly as its journal left it; None if none.

        A damaged journal never stops a start: events that cannot be read or replayed are set
        aside into a side file and the game resumes from the last good one; a journal whose
        header is damaged is moved to ``journals/`` whole and None is returned.  What was set
        aside is logged and added to ``notes``."""
        data_dir = Path(data_dir)
        current = data_dir / CURRENT
        for stale in remove_stale_temporaries(data_dir) + remove_stale_temporaries(data_dir / "records"):
            log.info("removed %s, left by a write that was interrupted", stale)
        if not current.exists():
            return None
        journal = None
        try:
            journal = Journal.open(current)
            board = parse_position(journal.header.start)
        except ValueError as e:  # a JournalError, NotationError or RulesError among them
            if journal is not None:
                journal.close()
            message = str(e) if str(current) in str(e) else f"{current}: {e}"
            try:
                _archive(data_dir, current, "-damaged")
                message += "; the journal was moved to journals/ and a new game starts"
            except OSError as err:
                message += f"; it could not be moved aside ({describe_os_error(err)})"
                raise StorageError(err.errno or errno.EIO, message) from None
            finally:
                log.warning("%s", message)
                if notes is not None:
                    notes.append(message)
            return None
        while True:  # at most twice: after a cut, every event left replays
            session = cls(data_dir, journal, parse_position(journal.header.start))
            for index, event in enumerate(journal.events):
                try:
                    session._redo(event)
                except (ValueError, KeyError, TypeError, IndexError) as e:
                    # set aside from there on (added to ``journal.recovered``), then replay again
                    journal.cut(index, f"{current}: event {event.seq} ({event.kind}) cannot be replayed: {e}")
                    break
            else:
                break
        board = session.board
        if journal.recovered and notes is not None and journal.recovered not in notes:
            notes.append(journal.recovered)
        if board.outcome() is not None:
            if journal.events and journal.events[-1].kind != "end" and journal.read_only is None:
                try:  # the process stopped (or the disk filled) between the last move and its end
                    session._journal_end(board.outcome())
                except (StorageError, JournalError) as e:
                    log.warning("%s", e)
            session._write_record()  # the process may have stopped before writing it
        return session

    def _redo(self, event: Event) -> None:
        if event.kind == "move":
            self.board.push(self.board.parse_move(event.data["move"]))
            self._move_notes.append(_notes(event.data.get("notes")))
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
        event = self.journal.append(kind, text, data, what=WHAT.get(kind, f"the {kind} event"))
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # a broken listener must not undo or hide a journalled event
                log.exception("listener %r failed on event %d", listener, event.seq)
        return event

    def _names(self) -> list[str]:
        """The players' names by player index, from the game's tags (the side's name if none)."""
        tags = self.journal.header.tags
        return [tags.get(key) or self.board.player_name(i) for i, key in enumerate(("White", "Black"))]

    @property
    def lock(self) -> threading.RLock:
        """The lock every change takes; hold it to read the board while nothing moves."""
        return self._lock

    @property
    def move_notes(self) -> list[dict[str, str]]:
        """The notes kept with each move played so far, in order (a copy)."""
        return list(self._move_notes)

    @property
    def started(self) -> float:
        """When the game started (UNIX seconds): the time of its first journal event."""
        return self._started

    # ------------------------------------------------------------------ actions
    @property
    def over(self) -> bool:
        """True when the game has ended."""
        return self.board.outcome() is not None

    def play(self, move: Any, source: str = "hand", notes: dict[str, str] | None = None) -> Event:
        """Play a move (Move or move text) after checking it; journals it and any ending.

        ``notes`` are kept with the move in the record (e.g. camera confidence)."""
        with self._lock:
            if self.over:
                raise SessionError("the game is over")
            if self.clock is not None and self.clock.fallen() == self.board.turn:
                self.lose_on_time(self.board.turn)  # the flag fell before the move was made
                raise SessionError(f"the game is over: {self.board.player_name(self.board.turn)}'s time ran out")
            if isinstance(move, str):
                move = self.board.parse_move(move)
            reason = self.board.illegal_reason(move)
            if reason is not None:
                raise IllegalMove(reason)
            text = self.board.move_text(move)
            mover = self._names()[self.board.turn]  # the log speaks of the players by name
            number = self.board.ply + 1
            all_notes = {"time": f"{time.time() - self._started:.1f}", "source": source}
            clock_before = self.clock.checkpoint() if self.clock is not None else None
            if self.clock is not None:
                all_notes.update(self.clock.moved(self.board.turn))
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
                if self.clock is not None and clock_before is not None:
                    self.clock.rollback(clock_before)
                raise
            self._check_end()
            return event

    def take_back(self) -> Event:
        """Undo the last move, or the last ending (a resignation, an agreed draw, ...).
        Nothing changes unless the take-back reached the journal."""
        with self._lock:
            if not self.board.can_pop:
                raise SessionError("there is no move to take back")
            was_over = self.over
            record = self.record_path
            move = self.board.pop()
            try:
                if move is None:
                    event = self._record("takeback", "Took back the end of the game", {"position": self.board.text()})
                else:
                    text = self.board.move_text(move)
                    event = self._record("takeback", f"Took back {text}",
                                         {"move": text, "position": self.board.text()})
            except BaseException:
                self._undo_pop(move)
                raise
            if move is not None:
                self._move_notes.pop()
            if self.clock is not None:  # the clocks go back to the position's (its moves' notes)
                self.clock.set_left(left_after(self.clock.control, self._move_notes, self._first_mover()))
            if was_over:  # the ending no longer stands: neither does the record written for it
                self.record_error = None
                try:
                    record.unlink(missing_ok=True)
                except OSError as e:
                    log.warning("could not remove %s: %s", record, e)
            return event

    def _undo_pop(self, move: Any) -> None:
        """Put back what ``board.pop()`` took: a move, or the ending (replayed from the journal)."""
        if move is not None:
            self.board.push(move)
            return
        for event in reversed(self.journal.events):
            if event.kind == "end" and event.data.get("action"):
                self._apply_action(event.data["action"], event.data.get("square"), event.data.get("colour"))
                return

    def resign(self, colour: int | None = None) -> Event:
        """The given player (default: the player to move) resigns."""
        return self._action(RESIGNATION, colour=self.board.turn if colour is None else colour)

    def agree_draw(self) -> Event:
        """Both players agree to a draw."""
        return self._action(AGREEMENT)

    def lose_on_time(self, colour: int) -> Event:
        """Player ``colour``'s clock ran out: they lose."""
        return self._action(TIME_FORFEIT, colour=colour)

    def _first_mover(self) -> int:
        """The player who made the game's first move (players alternate)."""
        return self.board.turn if len(self._move_notes) % 2 == 0 else 1 - self.board.turn

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
            try:
                event = self._record("end", status_text(self.board, outcome, self._names()), data)
            except BaseException:  # not on disk: the game is not over
                self.board.pop()
                raise
            self._write_record()
            return event

    def _apply_action(self, action: str, square: int | None, colour: int | None) -> Outcome:
        # each ending is a capability of the game (``engine.game``): asked for, not assumed
        board = self.board
        if action == RESIGNATION and hasattr(board, "resign"):
            return board.resign(colour)
        if action == AGREEMENT and hasattr(board, "agree_draw"):
            return board.agree_draw()
        if action == TIME_FORFEIT and colour is not None and hasattr(board, "lose_on_time"):
            return board.lose_on_time(int(colour))
        if action == TOUCH_MOVE and square is not None and hasattr(board, "forfeit_touch"):
            return board.forfeit_touch(int(square))
        raise SessionError(f"{board.rules.name} has no ending {action!r}")

    def _check_end(self) -> None:
        outcome = self.board.outcome()
        if outcome is None:
            return
        try:
            self._journal_end(outcome)
        except (StorageError, JournalError) as e:
            # the winning move is on disk, and replaying it ends the game again: ``resume``
            # journals the end then; the move's answer must not say it failed
            log.warning("the end of the game was not journalled: %s", e)
        self._write_record()

    def _journal_end(self, outcome: Outcome) -> Event:
        data: dict[str, Any] = {"result": outcome.result, "reason": outcome.reason}
        if outcome.line:  # a family that ends on a line names its squares
            data["line"] = self.board.square_names(outcome.line)
        return self._record("end", status_text(self.board, outcome, self._names()), data)

    # ------------------------------------------------------------------ records
    def to_record(self) -> GameRecord:
        """The game so far as a record (the live game can be exported at any time)."""
        with self._lock:
            tags = dict(self.journal.header.tags)
            if self.clock is not None:
                tags.update(self.clock.record_tags())
            return GameRecord.from_board(self.board, tags=tags, annotations=list(self._move_notes))

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

    def _write_record(self) -> Path | None:
        """Write (or rewrite, after a take-back and a new ending) the ended game's record.
        A failure (a full disk) is logged and kept in ``record_error``; ``retry_record``
        tries again (the hub does before each request that changes the game)."""
        path = self.record_path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            save_records(path, [self.to_record()])
        except OSError as e:
            self.record_error = f"{describe_os_error(e)}: the finished game's record ({path.name}) was not written yet"
            log.warning("%s", self.record_error)
            return None
        except RecordError as e:  # tags or notes from a damaged journal
            self.record_error = f"the finished game's record cannot be written: {e}"
            log.warning("%s", self.record_error)
            return None
        if self.demo:
            _keep_newest(path.parent, DEMO_RECORDS_KEPT)
        if self.record_error is not None:
            log.info("the finished game's record was written after all: %s", path)
        self.record_error = None
        return path

    def retry_record(self) -> bool:
        """Write the finished game's record if an earlier attempt failed; True once written."""
        with self._lock:
            if self.record_error is None or not self.over:
                return self.record_error is None
            return self._write_record() is not None

    def close(self) -> None:
        """Close the journal file (the game stays resumable)."""
        self.journal.close()


def outcome_text(game: Game, outcome: Outcome) -> str:
    """A sentence saying how ``game`` ended: the game's own words when it has them."""
    words = getattr(game, "outcome_text", None)
    return words(outcome) if words is not None else f"{outcome.result}: {outcome.reason}"


def status_text(
    game: Game, outcome: Outcome | None, names: Sequence[str] = (), sides: Sequence[str] = ()
) -> str:
    """The line saying whose move it is or how ``game`` ended, in the players' ``names`` (by
    player index), the side as a second word where it tells more than the name: "Ann (light)
    to move", "Ann wins with the line a1-c3".  Without names, the game's own words."""
    roles = [game.player_name(i) for i in range(2)]
    names = [n or r for n, r in zip(list(names) + ["", ""], roles)]
    sides = [s or r.lower() for s, r in zip(list(sides) + ["", ""], roles)]
    if outcome is None:
        i = game.turn
        extra = "" if names[i].lower() in (sides[i].lower(), roles[i].lower()) else f" ({sides[i]})"
        return f"{names[i]}{extra} to move"
    text = outcome_text(game, outcome)
    swap = {r: n for r, n in zip(roles, names) if n != r}
    if not swap:
        return text
    # one pass, so that a player named as the other side ("Black" playing White) stays right
    pattern = re.compile(r"\b(" + "|".join(re.escape(r) for r in swap) + r")\b")
    return pattern.sub(lambda m: swap[m.group(1)], text)


def _archive(data_dir: Path, journal_path: Path, suffix: str = "") -> Path:
    """Move a finished or abandoned journal out of the way, keeping it."""
    archive = data_dir / "journals"
    archive.mkdir(parents=True, exist_ok=True)
    stamp = datetime.fromtimestamp(journal_path.stat().st_mtime).strftime("%Y%m%d-%H%M%S") + suffix
    target = archive / f"{stamp}.journal"
    n = 1
    while target.exists():
        n += 1
        target = archive / f"{stamp}-{n}.journal"
    journal_path.replace(target)
    return target


_NOTE_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z")


def _notes(raw: object) -> dict[str, str]:
    """A move's notes as read back from the journal: only what a record can hold (a damaged
    journal may have anything there; notes are remarks, so the rest is dropped)."""
    if not isinstance(raw, dict):
        return {}
    return {k: v for k, v in raw.items() if isinstance(k, str) and _NOTE_KEY.match(k) and isinstance(v, str)}


def _keep_newest(folder: Path, keep: int) -> None:
    """Delete all but the ``keep`` newest record files in ``folder``."""
    files = sorted(folder.glob("*.gbn"), key=lambda p: p.name, reverse=True)  # names start with the time
    for old in files[keep:]:
        old.unlink(missing_ok=True)


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name)[:80]
