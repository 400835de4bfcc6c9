"""The live game as the web app sees it: the current ``GameSession``, its state as JSON, and
the Server-Sent Events that announce each journalled event to every page.

Each SSE message that comes from the journal has the id ``GAME.SEQ`` (the game's id and the
journal's sequence number), so a page that reconnects with ``Last-Event-ID`` is sent exactly
the events it missed, read back from the journal.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from engine import Game, GameRules
from engine.spoken import spoken_move
from engine.files import StorageError

from ..clock import CLOCK_FILE, ClockWatcher, Now, clock_for, save_clocks, saved_clocks, stop_reason
from ..events import Broadcaster, SseMessage
from ..journal import Event, JournalError
from ..session import GameSession, SessionError, outcome_text, status_text

log = logging.getLogger(__name__)

RETRY_MS = 2000
# Journal kinds after which no piece is held up any more.
PUT_DOWN_KINDS = ("move", "takeback", "start", "end", "restored")

PendingSource = Callable[[GameSession], "dict[str, Any] | None"]
RefereeSource = Callable[[GameSession], "dict[str, Any]"]


class NoGame(LookupError):
    """There is no game in progress."""


class GameChanged(LookupError):
    """A request named a game that is no longer the current one."""


@dataclass(frozen=True)
class Snapshot:
    """The latest state of the current game, ready to send."""

    game: str
    seq: int
    state: dict[str, Any]
    json: str


def game_id(session: GameSession) -> str:
    """A short id of a game, stable across restarts (it comes from the journal)."""
    return f"{int(session.started * 1000):x}"


# The pages name the two players by these keys (the API's ``colour`` values): player 0, who
# moves first in the standard rules, is "white" and player 1 "black", whatever the game calls
# them (``Game.player_name``: White/Black, South/North, ...), which the state gives as ``names``.
PLAYER_KEYS = ("white", "black")


def colour_name(colour: int) -> str:
    """The page's key of player ``colour`` (0 or 1): ``white`` or ``black``."""
    return PLAYER_KEYS[colour]


def parse_colour(value: object, game: Game | None = None) -> int:
    """0 or 1 for ``white``/``black`` (any case, or w/b, 0/1), or for the game's own names of
    its players (``south``/``north`` in Cups); ValueError otherwise."""
    text = str(value).strip().lower()
    if text in ("white", "w", "0", "light"):
        return 0
    if text in ("black", "b", "1", "dark"):
        return 1
    if game is not None:
        for player in (0, 1):
            if text == game.player_name(player).lower():
                return player
        names = f"{game.player_name(0).lower()} or {game.player_name(1).lower()}"
        raise ValueError(f"colour must be {names} (or white/black for the first/second player), not {value!r}")
    raise ValueError(f"colour must be white or black, not {value!r}")


def move_json(board: Game, move: Any) -> dict[str, Any]:
    """A move as the pages see it: its move text, and whatever the game adds (``move_details``:
    Gobblet's size, from and to)."""
    details = getattr(board, "move_details", None)
    return details(move) if details is not None else {"text": board.move_text(move)}


def lifted_square(session: GameSession) -> int | None:
    """The square whose piece the camera saw lifted since the last move, or None (only a game
    the camera referees has squares to lift pieces from)."""
    squares = getattr(session.board.rules, "squares", 0)
    for event in reversed(session.journal.events):
        if event.kind in PUT_DOWN_KINDS:
            return None
        if event.kind == "lifted":
            square = event.data.get("square")
            return square if isinstance(square, int) and 0 <= square < squares else None
    return None


def _taps(board: Game) -> list[dict[str, Any]] | None:
    """What tapping the drawing offers (``tap_choices``), as JSON; None when the game has no
    such capability (the page then lets the player pick a piece and a square)."""
    choices = getattr(board, "tap_choices", None)
    if choices is None:
        return None
    return [{"selector": c.selector, "note": c.note,
             "moves": [{"text": text, "label": label} for text, label in c.moves]} for c in choices()]


def build_state(
    session: GameSession, camera: dict[str, Any] | None, pending: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Everything a page shows about the game, as JSON-ready values; ``pending`` is the
    detected move waiting for a person, if any.  Call it while nothing moves (under the
    session's lock).  Only the contract is used, plus what the game offers besides
    (``page_details``, ``tap_choices``, ``outcome_text``: see ``engine.game``)."""
    board = session.board.copy()
    start = board.copy()
    played = []
    while start.can_pop:
        played.append(start.pop())
    played = [m for m in reversed(played) if m is not None]  # not the endings
    tags = dict(session.journal.header.tags)
    names = (tags.get("White", ""), tags.get("Black", ""))
    moves = []
    for move in played:
        moves.append({"ply": start.ply + 1, "colour": colour_name(start.turn), "text": start.move_text(move),
                      "spoken": spoken_move(start, move, names)})  # read aloud by the page (speech.js)
        start.push(move)
    outcome = board.outcome()
    events = session.journal.events
    hints_used = _hints_this_turn(events)
    rules = board.rules
    legal = board.legal_moves()
    state: dict[str, Any] = {
        "game": game_id(session),
        "seq": events[-1].seq if events else 0,
        "variant": rules.token,
        "family": board.family,
        "rules": {"name": rules.name, "first": colour_name(getattr(rules, "first", 0))},
        "tags": tags,
        "players": {"white": tags.get("White", "White"), "black": tags.get("Black", "Black")},
        "names": {key: board.player_name(i) for i, key in enumerate(PLAYER_KEYS)},
        "sides": {key: board.player_name(i).lower() for i, key in enumerate(PLAYER_KEYS)},
        "position": board.text(),
        "turn": colour_name(board.turn),
        "ply": board.ply,
        "over": outcome is not None,
        "status": outcome_text(board, outcome) if outcome else f"{board.player_name(board.turn)} to move",
        "outcome": None if outcome is None else {
            "winner": None if outcome.winner is None else colour_name(outcome.winner),
            "reason": outcome.reason,
            "result": outcome.result,
            "line": [],
        },
        "moves": moves,
        "last_move": None if not played else {"text": moves[-1]["text"]},
        "legal": [move_json(board, m) for m in legal],
        "taps": _taps(board),
        "can_take_back": board.can_pop,
        "can_resign": hasattr(board, "resign"),
        "can_draw": hasattr(board, "agree_draw"),
        "hint_limit": int(tags.get("HintLimit", "0") or 0),
        "hints_used": hints_used,
        "camera": camera or {"present": False},
        "pending": pending,
        "lifted": None,
        "svg": board.svg(size_px=360),
        "svg_flipped": None,
    }
    details = getattr(board, "page_details", None)
    if details is not None:
        extra = details(lifted=lifted_square(session), highlight=pending["squares"] if pending else ())
        if state["outcome"] is not None:
            state["outcome"]["line"] = extra.pop("line", [])
        else:
            extra.pop("line", None)
        state["rules"].update(extra.pop("rules", {}))
        extra.pop("input", None)
        state.update(extra)
    # in the players' names, after the game's details have said how it tells the sides apart
    state["status"] = status_text(board, outcome, [state["players"][k] for k in PLAYER_KEYS],
                                  [state["sides"][k] for k in PLAYER_KEYS])
    return state


def _hints_this_turn(events: list[Event]) -> dict[str, int]:
    """The hints each player asked in the current position's turn.  A turn is known by its ply:
    a hint asked there still counts after the move is taken back and the turn comes again (a
    take-back must not give a free hint); a new game starts afresh."""
    ply = 0  # counted from the game's start: only equality matters
    asked: list[tuple[int, str]] = []
    for event in events:
        if event.kind == "start":
            ply, asked = 0, []
        elif event.kind == "move":
            ply += 1
        elif event.kind == "takeback" and "move" in event.data:  # not the taking back of an ending
            ply -= 1
        elif event.kind == "hint":
            asked.append((ply, str(event.data.get("colour", "white"))))
    used = {"white": 0, "black": 0}
    for at, colour in asked:
        if at == ply:
            used[colour] = used.get(colour, 0) + 1
    return used


class GameHub:
    """Owns the current game session and announces its events to every page."""

    def __init__(self, data_dir: Path, broadcaster: Broadcaster, clock_time: Now = time.monotonic) -> None:
        self.data_dir = Path(data_dir)
        self.clock_time = clock_time  # what the game clocks read the time from (tests drive it)
        self._clock_watcher: ClockWatcher | None = None
        self._clock_problem: str | None = None  # why the last flag fall could not end the game
        self.broadcaster = broadcaster
        self.session: GameSession | None = None
        self.camera_info: dict[str, Any] = {"present": False}
        self.pending_source: PendingSource | None = None  # set when a live referee is wired
        # ... and what the pages offer of that referee besides its questions (``state["referee"]``)
        self.referee_source: RefereeSource | None = None
        self.notices: list[str] = []  # what went wrong at start (a damaged journal set aside, ...)
        self._lock = threading.RLock()
        self._snapshot: Snapshot | None = None

    # ------------------------------------------------------------------ the game
    def resume(self) -> GameSession | None:
        """Take up the unfinished game of the data folder, if there is one.  What had to be
        set aside from a damaged journal is kept in ``notices`` (shown in the state)."""
        with self._lock:
            notes: list[str] = []
            try:
                session = GameSession.resume(self.data_dir, notes)
            finally:
                self.notices.extend(notes)
            if session is not None:
                self._adopt(session)
            return session

    def new_game(self, rules: GameRules, tags: dict[str, str]) -> GameSession:
        """Start a new game (the previous one stays in the journals folder).  The new game is
        built whole before it replaces the old one: a reader sees either, never none, and if
        it cannot be built (``StorageError``: a full disk) the old game goes on."""
        with self._lock:
            session = GameSession.new(self.data_dir, rules, tags)
            old = self.session
            if old is not None:
                old.unsubscribe(self._on_event)
            self._adopt(session)
            if old is not None:
                old.close()
            return session

    def _adopt(self, session: GameSession) -> None:
        with session.lock:
            self.session = session
            session.clock = clock_for(session.journal.header.tags, session.move_notes, session.board, self.clock_time)
            if session.clock is not None and not session.over:  # stopped or started within the turn
                saved = saved_clocks(self.data_dir / CLOCK_FILE, game_id(session), session.board.ply)
                if saved is not None:
                    session.clock.set_left(saved)
            if session.clock is not None and self._clock_watcher is None:
                self._clock_watcher = ClockWatcher(self.check_clock)
                self._clock_watcher.start()
            session.subscribe(self._on_event)
            snap = self._make_snapshot(session)
            message = SseMessage("state", snap.json, id=f"{snap.game}.{snap.seq}")
            self.broadcaster.publish(message, before=lambda: self._set_snapshot(snap))

    @contextmanager
    def acting(self, game: str | None = None) -> Iterator[GameSession]:
        """The current session, held so that no new game replaces it meanwhile.

        ``game``, when given, must be the current game's id (a page that has not yet heard of
        a new game must not move in it).  A finished game's record that could not be written
        earlier (a full disk) is tried again first."""
        with self._lock:
            session = self.session
            if session is None:
                raise NoGame("there is no game in progress: start a new game")
            if game is not None and game != game_id(session):
                raise GameChanged(f"game {game} is over or was replaced; the current game is {game_id(session)}")
            if session.record_error is not None and session.retry_record():
                self.refresh()
            yield session
            if session.record_error is not None:  # the pages must hear that the record is missing
                self.refresh()

    def alert(self, kind: str, text: str, data: dict[str, Any] | None = None) -> bool:
        """Journal and announce an alert in the current game (the camera lost, ...); False
        when there is no game or it could not be journalled (that is logged)."""
        try:
            with self.acting() as session:
                session.alert(kind, text, data)
                return True
        except (NoGame, StorageError, JournalError) as e:
            log.warning("%s not journalled: %s", kind, e)
            return False

    def check_clock(self) -> bool:
        """End the game on time when the side to move's clock has run out; True when it did
        (the end is journalled, announced and recorded like any other)."""
        quick = self.session  # a look without the locks first: the watcher asks five times a second
        if quick is None or quick.clock is None or quick.clock.fallen() is None:
            return False
        with self._lock:
            session = self.session
            if session is None or session.clock is None:
                return False
            with session.lock:
                side = session.clock.fallen()
                if side is None or session.over:
                    return False
                try:
                    session.lose_on_time(side)
                except (SessionError, StorageError, JournalError) as e:
                    if str(e) != self._clock_problem:  # said once, not five times a second
                        log.warning("the game could not end on time: %s", e)
                    self._clock_problem = str(e)
                    return False
                self._clock_problem = None
                return True

    def close(self) -> None:
        """Close the journal (the game stays resumable) and end every stream."""
        if self._clock_watcher is not None:
            self._clock_watcher.stop()
        with self._lock:
            if self.session is not None:
                self.session.unsubscribe(self._on_event)
                self.session.close()
                self.session = None
        self.broadcaster.close()

    # ------------------------------------------------------------------ state
    def snapshot(self) -> Snapshot:
        """The latest state of the current game."""
        snap = self._snapshot  # replaced whole, never cleared while a game is running
        if snap is None:
            raise NoGame("there is no game in progress: start a new game")
        return snap

    def refresh(self) -> None:
        """Rebuild the state after a change that is not a journal event (camera paused, ...)
        and send it to every page."""
        with self._lock:
            session = self.session
            if session is None:
                return
            with session.lock:
                snap = self._make_snapshot(session)
                self.broadcaster.publish(SseMessage("state", snap.json), before=lambda: self._set_snapshot(snap))

    def problems(self, session: GameSession) -> list[str]:
        """What the pages should say is wrong: start-up notices, a read-only journal, a
        record not yet written, a camera that could not be used."""
        out = list(self.notices)
        if session.journal.read_only:
            out.append(f"read-only: {session.journal.read_only}; the game is shown but cannot be changed")
        if session.record_error:
            out.append(session.record_error)
        camera_problem = self.camera_info.get("problem")
        if camera_problem:
            out.append(str(camera_problem))
        return out

    def _make_snapshot(self, session: GameSession) -> Snapshot:
        pending = self.pending_source(session) if self.pending_source is not None else None
        state = build_state(session, self.camera_info, pending)
        state["problems"] = self.problems(session)
        # the camera referee's offer: {"resync": bool, "waiting": alert text or None}; None without one
        state["referee"] = self.referee_source(session) if self.referee_source is not None else None
        clock = session.clock
        if clock is not None:  # each change of the game may start or stop the clocks
            why = stop_reason(session.over, bool(self.camera_info.get("paused")), pending is not None, clock.started)
            if clock.run(None if why else session.board.turn, why) and not session.over:
                save_clocks(self.data_dir / CLOCK_FILE, game_id(session), session.board.ply, clock)
            state["clock"] = clock.json(PLAYER_KEYS)
        else:
            state["clock"] = None
        return Snapshot(state["game"], state["seq"], state, json.dumps(state, separators=(",", ":")))

    def _set_snapshot(self, snap: Snapshot) -> None:
        self._snapshot = snap

    def _on_event(self, event: Event) -> None:
        """Session listener: runs under the session's lock, right after ``event`` reached disk."""
        session = self.session
        if session is None:
            return
        snap = self._make_snapshot(session)
        payload = json.dumps({"event": asdict(event), "state": snap.state}, separators=(",", ":"))
        message = SseMessage("game", payload, id=f"{snap.game}.{event.seq}")
        self.broadcaster.publish(message, before=lambda: self._set_snapshot(snap))

    # ------------------------------------------------------------------ catching up
    def catch_up(self, last_event_id: str | None) -> list[bytes]:
        """What a page that (re)connects is sent first: the journal events after
        ``last_event_id`` when it names the current game, else the whole current state.
        Runs under the broadcaster's lock (see ``Broadcaster.connect``)."""
        out = [f"retry: {RETRY_MS}\n\n".encode()]
        snap = self._snapshot
        session = self.session
        if snap is None or session is None:
            out.append(SseMessage("nogame", "{}").encode())
            return out
        game, _, seq_text = (last_event_id or "").partition(".")
        if game == snap.game and seq_text.isdigit() and int(seq_text) <= snap.seq:
            missed = session.journal.events[int(seq_text):snap.seq]
            for i, event in enumerate(missed):
                state = snap.state if i == len(missed) - 1 else None
                payload = json.dumps({"event": asdict(event), "state": state}, separators=(",", ":"))
                out.append(SseMessage("game", payload, id=f"{snap.game}.{event.seq}").encode())
            return out
        out.append(SseMessage("state", snap.json, id=f"{snap.game}.{snap.seq}").encode())
        return out
