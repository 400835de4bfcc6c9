"""The game journal: an append-only file of events, each flushed to disk before it is announced.

Format (``cupboard-journal 1``): JSON Lines.  The first line is the header
``{"format": "cupboard-journal 1", "rules": TOKEN, "start": POSITION_TEXT, "tags": {...}}``;
every later line is one event ``{"seq": N, "time": UNIX_SECONDS, "kind": KIND, "text": SENTENCE,
"data": {...}}`` with ``seq`` counting from 1.  A process killed while writing leaves at most a
partial last line, which reading drops (that event was never announced).  Other damage after
the header is set aside into a side file when the journal is opened, so a game can always be
resumed; ``read_journal`` reports it as a ``JournalError`` naming the file and line.
"""

from __future__ import annotations

import errno
import json
import logging
import math
import os
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from engine import files
from engine.files import StorageError, describe_os_error, write_all, write_atomic

log = logging.getLogger(__name__)

FORMAT = "cupboard-journal 1"


class JournalError(ValueError):
    """A journal file that cannot be read; the message names the file, line and problem."""


@dataclass(frozen=True)
class Event:
    """Something that happened in a game: a move, a take-back, an alert, the end, ..."""

    seq: int
    time: float
    kind: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        """The event as one line of JSON."""
        return json.dumps(asdict(self), ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class JournalHeader:
    """What a journal starts with: the rules, the start position and the game's tags."""

    rules: str
    start: str
    tags: dict[str, str]


class Journal:
    """An open journal file, appended to event by event.

    Each event is written with ``os.write`` on an unbuffered descriptor and fsynced before
    ``append`` returns, so nothing is left in a buffer to land later.  When a write fails (a
    full disk) the file is cut back to its previous length: the file stays exactly as it was,
    ``events`` is unchanged, and ``append`` raises ``StorageError`` saying what was not
    recorded.  A journal opened from a read-only folder (``read_only`` says why) can be read
    but every append is refused."""

    def __init__(self, path: Path, header: JournalHeader, events: list[Event],
                 recovered: str | None = None) -> None:
        self.path = path
        self.header = header
        self.events = events
        self.recovered = recovered  # what was set aside when the journal was opened, if anything
        self.read_only: str | None = None
        self._fd: int | None = None
        try:
            self._fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        except OSError as e:
            if e.errno not in (errno.EROFS, errno.EACCES, errno.EPERM):
                raise
            self.read_only = describe_os_error(e)
        self._size = path.stat().st_size
        self._dirty = False  # a failed write may have left bytes that the cut-back could not remove

    @classmethod
    def create(cls, path: Path, header: JournalHeader) -> "Journal":
        """Start a new journal at ``path`` (atomically: a half-written header never exists)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(
            {"format": FORMAT, "rules": header.rules, "start": header.start, "tags": header.tags},
            ensure_ascii=False,
        )
        write_atomic(path, line + "\n", what="the new game's journal")
        return cls(path, header, [])

    @classmethod
    def open(cls, path: Path) -> "Journal":
        """Open an existing journal to continue it, dropping a torn last line.  Damage after the
        header (a line that is not an event, a wrong event number) does not stop it: the lines
        from there on are set aside into a side file (see ``recovered``) and the game goes on
        from the last good event.  A damaged header raises ``JournalError``."""
        scan = scan_journal(path)
        recovered, stuck = None, None
        try:
            if scan.problem is not None:
                side = set_aside(path, scan.good_bytes, scan.problem)
                recovered = f"{scan.problem}; the journal from there on was set aside in {side.name}"
                log.warning("%s", recovered)
            elif scan.good_bytes != path.stat().st_size:
                _truncate(path, scan.good_bytes)  # cut the torn tail so appends start on a fresh line
        except OSError as e:
            # the good part can still be shown; appending after the damage would bury it
            stuck = f"{describe_os_error(e)}: the journal's damaged end could not be cut off"
            recovered = f"{scan.problem or 'a torn last line'}; {stuck}"
            log.warning("%s: %s", path, recovered)
        journal = cls(path, scan.header, scan.events, recovered)
        if stuck is not None:
            journal.close()
            journal.read_only = stuck
        return journal

    def cut(self, keep: int, reason: str) -> str:
        """Set aside every event after the first ``keep`` (they cannot be replayed: ``reason``)
        into a side file; returns the sentence saying so."""
        offset = self._event_end(keep)
        side = set_aside(self.path, offset, reason)
        del self.events[keep:]
        self._size = offset
        message = f"{reason}; the journal from there on was set aside in {side.name}"
        log.warning("%s", message)
        self.recovered = message if self.recovered is None else f"{self.recovered}; {message}"
        return message

    def _event_end(self, count: int) -> int:
        with open(self.path, "rb") as f:
            f.readline()
            for _ in range(count):
                f.readline()
            return f.tell()

    def append(self, kind: str, text: str, data: dict[str, Any] | None = None, what: str = "the event") -> Event:
        """Write one event and flush it to disk; returns it once it is safe to announce.

        Raises ``StorageError`` ("the disk is full: WHAT was not recorded") with the file as it
        was before, or ``JournalError`` when the event holds text a journal cannot store."""
        event = Event(len(self.events) + 1, time.time(), kind, text, dict(data or {}))
        try:
            line = (event.to_json() + "\n").encode("utf-8")
        except (UnicodeEncodeError, TypeError, ValueError) as e:
            raise JournalError(f"{self.path}: {what} cannot be stored: {e}") from None
        if self._fd is None:
            reason = self.read_only or "the game's journal is closed"
            raise StorageError(errno.EROFS, f"{reason}: {what} was not recorded")
        try:
            if self._dirty:
                self._cut_back()
            write_all(self._fd, line)
            files.layer.fsync(self._fd)
        except OSError as e:
            self._cut_back()
            raise StorageError(e.errno or errno.EIO, f"{describe_os_error(e)}: {what} was not recorded") from None
        self._size += len(line)
        self.events.append(event)
        return event

    def _cut_back(self) -> None:
        """Remove whatever a failed write left after the last recorded event."""
        assert self._fd is not None
        try:
            os.ftruncate(self._fd, self._size)
            os.fsync(self._fd)
            self._dirty = False
        except OSError:
            self._dirty = True  # tried again before the next write; a restart trims it too
            log.exception("could not cut %s back after a failed write", self.path)

    def close(self) -> None:
        """Close the file (the journal stays on disk)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


@dataclass
class JournalScan:
    """What reading a journal found: the header, the events up to the first damage, the byte
    length of that intact part, and the damage after it (None when there is none; a torn last
    line is not damage, just a write that never finished)."""

    header: JournalHeader
    events: list[Event]
    good_bytes: int
    problem: str | None


def scan_journal(path: Path) -> JournalScan:
    """Read a journal as far as it is intact.  Raises ``JournalError`` only when the file
    cannot be read or its header is damaged."""
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise JournalError(f"{path}: cannot read the journal: {e.strerror}") from None
    lines = raw.split(b"\n")
    # A last piece without a newline is a write the process did not finish: drop it.
    complete = lines[:-1]
    if not complete:
        raise JournalError(f"{path} line 1: the journal has no header")
    header = _parse_header(path, complete[0])
    events: list[Event] = []
    offset = len(complete[0]) + 1
    for number, line in enumerate(complete[1:], start=2):
        try:
            event = _parse_event(line)
        except JournalError as e:
            return JournalScan(header, events, offset, f"{path} line {number}: {e}")
        if event.seq != len(events) + 1:
            return JournalScan(header, events, offset,
                               f"{path} line {number}: event number {event.seq}, expected {len(events) + 1}")
        events.append(event)
        offset += len(line) + 1
    return JournalScan(header, events, offset, None)


def read_journal(path: Path) -> tuple[JournalHeader, list[Event], int]:
    """The header, the events and the byte length of the intact part of a journal file;
    any damage but a torn last line is a ``JournalError`` naming the file and line."""
    scan = scan_journal(path)
    if scan.problem is not None:
        raise JournalError(scan.problem)
    return scan.header, scan.events, scan.good_bytes


def _parse_event(line: bytes) -> Event:
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError) as e:
        raise JournalError(f"not a journal event ({e})") from None
    if not isinstance(obj, dict):
        raise JournalError("not a journal event (not a JSON object)")
    try:
        seq, stamp, kind, text = obj["seq"], obj["time"], obj["kind"], obj["text"]
        data = obj.get("data", {})
    except KeyError as e:
        raise JournalError(f"not a journal event (no field {e})") from None
    if not isinstance(seq, int) or isinstance(seq, bool):
        raise JournalError("not a journal event (seq is not a whole number)")
    if not isinstance(stamp, (int, float)) or isinstance(stamp, bool) or not math.isfinite(stamp):
        raise JournalError("not a journal event (time is not a number)")
    if not isinstance(kind, str) or not isinstance(text, str) or not isinstance(data, dict):
        raise JournalError("not a journal event (kind, text or data has the wrong type)")
    return Event(seq, float(stamp), kind, text, data)


def _parse_header(path: Path, line: bytes) -> JournalHeader:
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError) as e:
        raise JournalError(f"{path} line 1: the header is not JSON ({e})") from None
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        raise JournalError(f"{path} line 1: not a {FORMAT!r} journal")
    rules, start, tags = obj.get("rules"), obj.get("start"), obj.get("tags", {})
    if not isinstance(rules, str) or not isinstance(start, str):
        raise JournalError(f"{path} line 1: the header lacks its rules or start position")
    if not isinstance(tags, dict) or not all(isinstance(v, str) for v in tags.values()):
        raise JournalError(f"{path} line 1: the header's tags must be texts")
    return JournalHeader(rules, start, dict(tags))


def set_aside(path: Path, offset: int, reason: str) -> Path:
    """Copy the bytes of ``path`` from ``offset`` on into a side file next to it (named
    ``NAME.damaged-STAMP``), then cut ``path`` there; returns the side file."""
    raw = path.read_bytes()
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    side = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while side.exists():
        n += 1
        side = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    write_atomic(side, f"# {reason}\n".encode("utf-8", "replace") + raw[offset:], what="the damaged part of the journal")
    _truncate(path, offset)
    return side


def _truncate(path: Path, size: int) -> None:
    with open(path, "r+b") as f:
        f.truncate(size)
        f.flush()
        os.fsync(f.fileno())
