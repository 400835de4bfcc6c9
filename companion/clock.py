"""The game clock: an optional time per player, set per game (the ``TimeControl`` tag, as in
PGN: ``"300+2"`` is 300 seconds a player and 2 seconds added after each of their moves).

Only the side to move's clock runs, and only while the game can go on: it stops while the
camera is paused, while the game waits for the players to answer the camera, and at the end.
The clocks start with the first move (setting up the board takes no one's time).  When the
side to move's time runs out, the game ends on time (``engine.game.TIME_FORFEIT``).

The server's clock is the one that counts; the pages only draw it.  Each move's notes in the
journal (and so in the record) keep the mover's time left after it (``clk``, ``H:MM:SS.s`` as
PGN's ``%clk``) and the time the move took (``emt``); a restarted server reads the clocks back
from them: each player has what they had after their last move.  Besides, whenever the clocks
stop or start within a turn (the camera paused, a question to the players) both times are saved
in ``clock.json`` beside the journal, and a restart in the same position takes them from there;
the running time since the last of those is not charged, so a restart never costs a player
time.  A take-back sets the clocks back to the position's (its moves' notes).

Time comes from a function passed in (``time.monotonic`` by default), so tests drive it.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.files import write_atomic
from engine.game import TIME_FORFEIT
from engine.inputs import InputError, read_json_file

log = logging.getLogger(__name__)

TIME_TAG = "TimeControl"
CLOCK_FILE = "clock.json"  # beside the journal: the clocks when they last stopped or started
MAX_MINUTES = 600  # ten hours a player
MAX_INCREMENT = 600  # seconds added after a move
CLOCK_NOTE = "clk"  # the mover's time left after the move
SPENT_NOTE = "emt"  # the time the move took
_CONTROL = re.compile(r"(\d+(?:\.\d+)?)(?:\+(\d+(?:\.\d+)?))?\Z")
_CLOCK = re.compile(r"(\d+):([0-5]\d):([0-5]\d(?:\.\d+)?)\Z")

Now = Callable[[], float]


class ClockError(ValueError):
    """A time control or clock text that cannot be read; the message says which and why."""


@dataclass(frozen=True)
class TimeControl:
    """Seconds each player has at the start, and seconds added after each of their moves."""

    seconds: float
    increment: float = 0.0

    @classmethod
    def from_minutes(cls, minutes: object, increment: object = 0) -> "TimeControl":
        """The control a New game dialog asks for: minutes per player (more than 0, at most
        ``MAX_MINUTES``) and an increment in seconds (0 to ``MAX_INCREMENT``); ``ClockError``
        naming the field otherwise."""
        for value, name, low, high in ((minutes, "clock_minutes", 0, MAX_MINUTES),
                                       (increment, "clock_increment", 0, MAX_INCREMENT)):
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value != value:
                raise ClockError(f"{name} must be a number")
            if not low <= value <= high:
                raise ClockError(f"{name} must be from {low} to {high}, not {value:g}")
        if minutes == 0:
            raise ClockError("clock_minutes must be more than 0 (leave the clock off for none)")
        return cls(round(float(minutes) * 60, 1), round(float(increment), 1))

    @classmethod
    def parse(cls, text: str) -> "TimeControl":
        """Read a ``TimeControl`` tag (``"300"`` or ``"300+2"``); ``ClockError`` otherwise."""
        m = _CONTROL.match(str(text).strip())
        if not m or float(m[1]) <= 0:
            raise ClockError(f"TimeControl {text!r} is not seconds a player, like 300 or 300+2")
        return cls(float(m[1]), float(m[2] or 0))

    @property
    def tag(self) -> str:
        """The ``TimeControl`` tag's value."""
        return f"{self.seconds:g}" + (f"+{self.increment:g}" if self.increment else "")

    @property
    def words(self) -> str:
        """For people: ``5 min + 2 s``."""
        minutes = self.seconds / 60
        text = f"{minutes:g} min" if minutes >= 1 else f"{self.seconds:g} s"
        return text + (f" + {self.increment:g} s" if self.increment else "")


def clock_text(seconds: float) -> str:
    """Seconds as PGN's clock text ``H:MM:SS.s`` (never below zero)."""
    tenths = max(0, round(seconds * 10))
    whole, tenth = divmod(tenths, 10)
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}.{tenth}"


def parse_clock(text: str) -> float:
    """Seconds from a clock text ``H:MM:SS(.s)``; ``ClockError`` otherwise."""
    m = _CLOCK.match(str(text).strip())
    if not m:
        raise ClockError(f"{text!r} is not a clock time like 0:04:58.2")
    return int(m[1]) * 3600 + int(m[2]) * 60 + float(m[3])


class GameClock:
    """Two players' clocks.  ``run(side)`` says whose runs (None: none does); ``moved(side)``
    charges the mover, adds the increment and says what the move's notes keep.  Thread-safe."""

    def __init__(self, control: TimeControl, now: Now = time.monotonic,
                 remaining: Iterable[float] | None = None, started: bool = False) -> None:
        self.control = control
        self._now = now
        self._left = list(remaining) if remaining is not None else [control.seconds, control.seconds]
        self._spent = [0.0, 0.0]  # this turn's time so far, per player
        self._running: int | None = None
        self._since = 0.0
        self.started = started  # the first move was made: from then on the side to move's clock may run
        self.why_stopped: str | None = None
        self._lock = threading.Lock()

    def _charge(self, at: float) -> None:
        if self._running is not None:
            used = max(0.0, at - self._since)
            self._left[self._running] -= used
            self._spent[self._running] += used
        self._since = at

    def run(self, side: int | None, why: str | None = None) -> bool:
        """Let ``side``'s clock run (None: stop both, ``why`` says why in words), charging the
        time so far.  Before the first move nothing runs.  True when that changed whose runs."""
        with self._lock:
            self._charge(self._now())
            before = self._running
            self._running = side if self.started else None
            self.why_stopped = why
            return before != self._running

    def times(self) -> list[float]:
        """Each player's seconds left now."""
        return [self.left(0), self.left(1)]

    @property
    def running(self) -> int | None:
        """The side whose clock runs, or None."""
        return self._running

    def left(self, side: int) -> float:
        """Seconds ``side`` has left now (below zero once the flag has fallen)."""
        with self._lock:
            left = self._left[side]
            if self._running == side:
                left -= max(0.0, self._now() - self._since)
            return left

    def fallen(self) -> int | None:
        """The side whose time has run out while their clock ran, or None."""
        side = self._running
        return side if side is not None and self.left(side) <= 0 else None

    def moved(self, side: int) -> dict[str, str]:
        """``side`` has moved: charge their time, add the increment, start the other's turn.
        Returns the move's notes: time left after the move and the time it took."""
        with self._lock:
            self._charge(self._now())
            spent = self._spent[side]
            self._left[side] += self.control.increment
            self._spent = [0.0, 0.0]
            self.started = True
            self._running = 1 - side
            return {CLOCK_NOTE: clock_text(self._left[side]), SPENT_NOTE: clock_text(spent)}

    def checkpoint(self) -> tuple:
        """Everything ``moved`` changes, for ``rollback`` when the move is not journalled after all."""
        with self._lock:
            return (list(self._left), list(self._spent), self._running, self._since, self.started)

    def rollback(self, saved: tuple) -> None:
        """Put the clocks back as ``checkpoint`` found them."""
        with self._lock:
            left, spent, self._running, self._since, self.started = saved
            self._left, self._spent = list(left), list(spent)

    def set_left(self, remaining: Iterable[float]) -> None:
        """Put the clocks at ``remaining`` (a take-back), the turn's time starting afresh."""
        with self._lock:
            self._charge(self._now())
            self._left = list(remaining)
            self._spent = [0.0, 0.0]

    def json(self, keys: tuple[str, str] = ("white", "black")) -> dict[str, Any]:
        """The clocks as the pages draw them: seconds left per player (``keys`` name them),
        whose runs, and why none does."""
        return {
            "control": self.control.tag,
            "words": self.control.words,
            "increment": self.control.increment,
            keys[0]: round(max(0.0, self.left(0)), 2),
            keys[1]: round(max(0.0, self.left(1)), 2),
            "running": None if self._running is None else keys[self._running],
            "stopped": None if self._running is not None else (self.why_stopped or "starts with the first move"),
        }

    def record_tags(self) -> dict[str, str]:
        """The tags a record keeps of the clocks: each player's time left now."""
        return {"WhiteClock": clock_text(self.left(0)), "BlackClock": clock_text(self.left(1))}


def control_of(tags: dict[str, str]) -> TimeControl | None:
    """The game's time control from its tags, or None for a game without clocks (or with a
    tag that cannot be read: such a game is played without them)."""
    text = tags.get(TIME_TAG)
    if not text:
        return None
    try:
        return TimeControl.parse(text)
    except ClockError:
        return None


def left_after(control: TimeControl, move_notes: Iterable[dict[str, str]], first: int, time_loser: int | None = None
               ) -> list[float]:
    """Each player's time left after the moves whose notes are ``move_notes`` (in order; the
    player ``first`` made the first): what their last move's ``clk`` note says, else their
    whole time.  ``time_loser``, when the game was lost on time, has none left."""
    left = [control.seconds, control.seconds]
    side = first
    for notes in move_notes:
        try:
            left[side] = parse_clock(notes[CLOCK_NOTE])
        except (KeyError, ClockError):
            pass  # a move made without clocks, or a damaged note: the last good value stands
        side = 1 - side
    if time_loser is not None:
        left[time_loser] = 0.0
    return left


def clock_for(tags: dict[str, str], move_notes: list[dict[str, str]], board: Any, now: Now = time.monotonic
              ) -> GameClock | None:
    """The clocks of a game (None when it has none) from its tags, its moves' notes and its
    board as the journal left them: each player's time after their last move, none for the
    loser of a game lost on time, and started once a move was made."""
    control = control_of(tags)
    if control is None:
        return None
    outcome = board.outcome()
    loser = None
    if outcome is not None and outcome.reason == TIME_FORFEIT and outcome.winner is not None:
        loser = 1 - outcome.winner
    first = board.turn if len(move_notes) % 2 == 0 else 1 - board.turn
    return GameClock(control, now, left_after(control, move_notes, first, loser), started=bool(move_notes))


def stop_reason(over: bool, camera_paused: bool, waiting: bool, started: bool) -> str | None:
    """Why no clock runs, in words for the page, or None when the side to move's runs."""
    if over:
        return "the game is over"
    if camera_paused:
        return "paused with the camera"
    if waiting:
        return "paused: the camera waits for your answer"
    if not started:
        return "starts with the first move"
    return None


def save_clocks(path: Path, game: str, ply: int, clock: GameClock) -> None:
    """Keep the clocks of ``game`` at ``ply`` in ``path`` (atomically); a failure is logged
    and the game goes on (the moves' notes still hold the clocks)."""
    data = {"game": game, "ply": ply, "left": [round(t, 2) for t in clock.times()]}
    try:
        write_atomic(path, json.dumps(data) + "\n", what="the game clocks")
    except OSError as e:
        log.warning("%s", e)


def saved_clocks(path: Path, game: str, ply: int) -> list[float] | None:
    """The clocks kept in ``path`` for ``game`` at ``ply``, or None (no file, another game or
    position, or a file that cannot be read: the moves' notes then give the clocks)."""
    if not path.exists():
        return None
    try:
        data = read_json_file(path)
    except InputError as e:
        log.warning("%s: the moves' notes give the clocks", e)
        return None
    if not isinstance(data, dict) or data.get("game") != game or data.get("ply") != ply:
        return None
    left = data.get("left")
    if (not isinstance(left, list) or len(left) != 2
            or not all(isinstance(t, (int, float)) and not isinstance(t, bool) and 0 <= t < 1e7 for t in left)):
        log.warning("%s: the clocks in it cannot be read; the moves' notes give them", path)
        return None
    return [float(t) for t in left]


class ClockWatcher:
    """A thread that asks ``check()`` every ``every`` seconds whether a flag has fell, until
    ``stop()``: the game ends on time even when no request comes."""

    def __init__(self, check: Callable[[], object], every: float = 0.2) -> None:
        self._check = check
        self._every = every
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start watching (once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="cupboard-clock", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        import logging

        while not self._stop.wait(self._every):
            try:
                self._check()
            except Exception:  # a failed check must not end the watching
                logging.getLogger(__name__).exception("clock check")

    def stop(self) -> None:
        """Stop watching."""
        self._stop.set()
