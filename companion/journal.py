"""The game journal: an append-only file of events, each flushed to disk before it is announced.

Format (``cupboard-journal 1``): JSON Lines.  The first line is the header
``{"format": "cupboard-journal 1", "rules": TOKEN, "start": POSITION_TEXT, "tags": {...}}``;
every later line is one event ``{"seq": N, "time": UNIX_SECONDS, "kind": KIND, "text": SENTENCE,
"data": {...}}`` with ``seq`` counting from 1.  A process killed while writing leaves at most a
partial last line, which reading drops (that event was never announced).  Any other damage is
a ``JournalError`` naming the file and line.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from engine.files import write_atomic

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
    """An open journal file, appended to event by event."""

    def __init__(self, path: Path, header: JournalHeader, events: list[Event]) -> None:
        self.path = path
        self.header = header
        self.events = events
        self._file = open(path, "a", encoding="utf-8")

    @classmethod
    def create(cls, path: Path, header: JournalHeader) -> "Journal":
        """Start a new journal at ``path`` (atomically: a half-written header never exists)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(
            {"format": FORMAT, "rules": header.rules, "start": header.start, "tags": header.tags},
            ensure_ascii=False,
        )
        write_atomic(path, line + "\n")
        return cls(path, header, [])

    @classmethod
    def open(cls, path: Path) -> "Journal":
        """Open an existing journal to continue it, dropping a torn last line."""
        header, events, good_bytes = read_journal(path)
        if good_bytes != path.stat().st_size:
            with open(path, "r+b") as f:  # cut the torn tail so appends start on a fresh line
                f.truncate(good_bytes)
                f.flush()
                os.fsync(f.fileno())
        return cls(path, header, events)

    def append(self, kind: str, text: str, data: dict[str, Any] | None = None) -> Event:
        """Write one event and flush it to disk; returns it once it is safe to announce."""
        event = Event(len(self.events) + 1, time.time(), kind, text, dict(data or {}))
        self._file.write(event.to_json() + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())
        self.events.append(event)
        return event

    def close(self) -> None:
        """Close the file (the journal stays on disk)."""
        self._file.close()


def read_journal(path: Path) -> tuple[JournalHeader, list[Event], int]:
    """The header, the events and the byte length of the intact part of a journal file."""
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise JournalError(f"{path}: cannot read the journal: {e.strerror}") from None
    lines = raw.split(b"\n")
    # A last piece without a newline is a write the process did not finish: drop it.
    complete, good_bytes = lines[:-1], len(raw) - len(lines[-1])
    if not complete:
        raise JournalError(f"{path} line 1: the journal has no header")
    header = _parse_header(path, complete[0])
    events = []
    for number, line in enumerate(complete[1:], start=2):
        try:
            obj = json.loads(line)
            event = Event(
                int(obj["seq"]), float(obj["time"]), str(obj["kind"]), str(obj["text"]),
                dict(obj.get("data", {})),
            )
        except (ValueError, KeyError, TypeError) as e:
            raise JournalError(f"{path} line {number}: not a journal event ({e})") from None
        if event.seq != len(events) + 1:
            raise JournalError(
                f"{path} line {number}: event number {event.seq}, expected {len(events) + 1}"
            )
        events.append(event)
    return header, events, good_bytes


def _parse_header(path: Path, line: bytes) -> JournalHeader:
    try:
        obj = json.loads(line)
    except ValueError as e:
        raise JournalError(f"{path} line 1: the header is not JSON ({e})") from None
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        raise JournalError(f"{path} line 1: not a {FORMAT!r} journal")
    try:
        tags = {str(k): str(v) for k, v in dict(obj.get("tags", {})).items()}
        return JournalHeader(str(obj["rules"]), str(obj["start"]), tags)
    except (KeyError, TypeError, ValueError) as e:
        raise JournalError(f"{path} line 1: the header lacks {e}") from None
