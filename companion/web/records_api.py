"""Records: the list of recorded games (filtered by variant, player, date and demo flag),
download of each record file or of one game's text, a replay of any game position by position,
renaming its players, marking it a demo game or not, deleting it, and import of a record file.

Every change to a record file is checked first (the file must read whole) and written
atomically (``engine.record.save_records``): a failure leaves the old file as it was."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, jsonify, request, send_file

from engine import Game
from engine.files import describe_os_error
from engine.inputs import InputError, check_text
from engine.record import GameRecord, RecordError, read_records, save_records, write_record

from ..clock import control_of
from ..services import companion
from ..session import DEMO_FOLDER
from .errors import ApiError
from .game_api import json_body
from .security import require_control

bp = Blueprint("records_api", __name__, url_prefix="/api/records")

SUFFIX = ".gbn"
DEMO_PREFIX = "demo-"  # the demo camera's record files, in records/demo
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,120}\Z")
_DATE = re.compile(r"(\d{4})[-.](\d{2})[-.](\d{2})\Z")  # 2024-05-01 (a date input) or 2024.05.01 (a tag)
MAX_PLAYER = 40  # as a new game's names (game_api.MAX_NAME)
_cache: dict[Path, tuple[tuple[float, int], list[GameRecord] | RecordError]] = {}
_cache_lock = threading.Lock()
_change_lock = threading.Lock()  # one change to the record files at a time: no lost update


def _folder(demo: bool) -> Path:
    folder = companion().records_dir
    return folder / DEMO_FOLDER if demo else folder


def _path(name: str) -> Path:
    """The record file called ``name`` in the records folder (``demo-…`` names: in its demo
    folder); 404 for anything else."""
    if not _NAME.match(name) or not name.endswith(SUFFIX) or ".." in name:
        raise ApiError(404, f"no record file {name!r}")
    path = _folder(name.startswith(DEMO_PREFIX)) / name
    if not path.is_file():
        raise ApiError(404, f"no record file {name!r}")
    return path


def _load(path: Path) -> list[GameRecord]:
    """The games of a record file, cached until the file changes; RecordError if broken."""
    stat = path.stat()
    key = (stat.st_mtime, stat.st_size)
    with _cache_lock:
        hit = _cache.get(path)
    if hit is None or hit[0] != key:
        try:
            value: list[GameRecord] | RecordError = read_records(path.read_text(encoding="utf-8-sig"), path.name)
        except UnicodeDecodeError:
            value = RecordError("the file is not UTF-8 text", path.name)
        except OSError as e:  # unreadable (permissions, an I/O error): named, never a traceback
            value = RecordError(f"the file cannot be read: {describe_os_error(e)}", path.name)
        except RecordError as e:
            value = e
        with _cache_lock:
            _cache[path] = (key, value)
        hit = (key, value)
    if isinstance(hit[1], RecordError):
        raise hit[1]
    return hit[1]


def _summary(path: Path, index: int, record: GameRecord) -> dict[str, Any]:
    tags = record.tags
    return {
        "file": path.name, "index": index, "date": tags.get("Date", ""), "white": tags.get("White", "?"),
        "black": tags.get("Black", "?"), "variant": tags.get("Variant", "?"), "result": record.result,
        "termination": tags.get("Termination", ""), "moves": len(record.moves),
        "demo": _is_demo(path, record), "clock": _clock_words(tags),
    }


def _clock_words(tags: dict[str, str]) -> str:
    """The game clock in words (``5 min + 2 s``), or empty for a game without one."""
    control = control_of(tags)
    return control.words if control is not None else ""


def _is_demo(path: Path, record: GameRecord) -> bool:
    """A demo game: the demo camera's (kept in ``records/demo``) or one a player marked so."""
    return record.tags.get("Demo") == "yes" or path.parent.name == DEMO_FOLDER


def _day(text: str, what: str) -> str | None:
    """A date as ``YYYY.MM.DD`` (the Date tag's form); None for an empty text.  ``what`` names
    the query parameter in the error for anything else."""
    if not text:
        return None
    m = _DATE.match(text.strip())
    if not m:
        raise ApiError(400, f"{what} must be a date like 2024-05-01, not {text!r}")
    return f"{m[1]}.{m[2]}.{m[3]}"


@dataclass(frozen=True)
class _Filter:
    """What the list keeps: a variant, a player's name (part of it, any case), a date range,
    and which games by their demo flag (``0``: not demo, ``1``: demo only, ``all``)."""

    variant: str | None
    player: str
    since: str | None
    until: str | None
    demo: str

    def keeps(self, game: dict[str, Any]) -> bool:
        """True when the summary ``game`` passes every filter."""
        if self.variant is not None and game["variant"] != self.variant:
            return False
        if self.player and not any(self.player in game[side].casefold() for side in ("white", "black")):
            return False
        if self.since is not None and not (_DATE.match(game["date"]) and game["date"] >= self.since):
            return False
        if self.until is not None and not (_DATE.match(game["date"]) and game["date"] <= self.until):
            return False
        return self.demo == "all" or game["demo"] == (self.demo == "1")


@bp.get("")
def list_records():
    """Every game of every record file, newest file first; broken files with their error.

    Filters: ``?variant=gobblet-jr``; ``?player=ann`` (part of either player's name, any case);
    ``?since=2024-05-01&until=2024-05-31`` (the Date tag, either bound optional); ``?demo=0``
    (the default) hides demo games (the demo camera's, kept apart in ``records/demo``, and
    those marked demo), ``?demo=1`` lists only them, ``?demo=all`` both.  ``variants`` lists
    every variant found, for the page's filter; ``demo_games`` counts the demo games the
    other filters keep."""
    demo = request.args.get("demo", "0")
    if demo not in ("0", "1", "all"):
        raise ApiError(400, "demo must be 0 (real games), 1 (demo games) or all")
    since = _day(request.args.get("since", ""), "since")
    until = _day(request.args.get("until", ""), "until")
    player = request.args.get("player", "").strip().casefold()
    wanted = _Filter(request.args.get("variant") or None, player, since, until, demo)
    others = _Filter(wanted.variant, player, since, until, "1")
    files = [p for d in (False, True) if _folder(d).is_dir() for p in _folder(d).glob(f"*{SUFFIX}")]
    files.sort(key=lambda p: (p.stat().st_mtime, p.name), reverse=True)
    games, broken, variants, demo_games = [], [], set(), 0
    for path in files:
        try:
            records = _load(path)
        except RecordError as e:
            broken.append({"file": path.name, "error": str(e)})
            continue
        for i, record in enumerate(records):
            summary = _summary(path, i, record)
            variants.add(summary["variant"])
            demo_games += others.keeps(summary)
            if wanted.keeps(summary):
                games.append(summary)
    demo_count = len(list(_folder(True).glob(f"*{SUFFIX}"))) if _folder(True).is_dir() else 0
    return jsonify(games=games, broken=broken, variants=sorted(variants), demo_files=demo_count,
                   demo_games=demo_games)


@bp.delete("/<name>")
@require_control
def delete(name: str):
    """Delete a record file (every game in it)."""
    path = _path(name)
    try:
        path.unlink()
    except OSError as e:
        raise ApiError(500, f"could not delete {name}: {e.strerror or e}") from None
    with _cache_lock:
        _cache.pop(path, None)
    return jsonify(deleted=name)


@bp.delete("/<name>/<int:index>")
@require_control
def delete_game(name: str, index: int):
    """Delete one game of a record file: the file itself when it is its only game, else the
    file is rewritten without it (atomically)."""
    with _change_lock:
        path = _path(name)
        records = _readable(path)
        _check_index(name, records, index)
        if len(records) == 1:
            return delete(name)
        _save(path, records[:index] + records[index + 1:])
    return jsonify(deleted=name, index=index, left=len(records) - 1)


@bp.patch("/<name>/<int:index>")
@require_control
def change_game(name: str, index: int):
    """Rename the players of a game and/or mark it a demo game or not:
    ``{"white": "Ann", "black": "Bob", "demo": false}`` (each field optional).  The file is
    read whole first (a broken file is refused, 422, naming it and the line) and written
    atomically.  A demo camera's game marked not demo moves out of ``records/demo`` (whose
    oldest games are deleted) into the records folder; the answer names its file."""
    data = json_body()
    unknown = sorted(set(data) - {"white", "black", "demo", "game"})
    if unknown:
        raise ApiError(400, f"unknown field(s) {', '.join(unknown)}: send white, black and/or demo")
    if not any(key in data for key in ("white", "black", "demo")):
        raise ApiError(400, "send a new name (white, black) or the demo flag to change")
    with _change_lock:
        return _change(name, index, data)


def _change(name: str, index: int, data: dict[str, Any]):
    path = _path(name)
    records = _readable(path)
    _check_index(name, records, index)
    record = records[index]
    tags = dict(record.tags)
    for key, tag in (("white", "White"), ("black", "Black")):
        if key in data:
            tags[tag] = _player_name(data[key], key)
    if "demo" in data:
        if not isinstance(data["demo"], bool):
            raise ApiError(400, "demo must be true or false")
        if data["demo"]:
            tags["Demo"] = "yes"
        else:
            tags.pop("Demo", None)
    try:
        records[index] = GameRecord(tags, record.moves, record.result)
    except RecordError as e:
        raise ApiError(422, f"{name}: {e}") from None
    target = path
    if "demo" in data and not data["demo"] and path.parent.name == DEMO_FOLDER:
        target = _free_name(companion().records_dir, path.stem[len(DEMO_PREFIX):] or "game")
        _save(target, records)
        path.unlink(missing_ok=True)
    else:
        _save(path, records)
    return jsonify(_summary(target, index, records[index]))


def _player_name(value: object, key: str) -> str:
    """A player's new name: storable text, one line, 1 to ``MAX_PLAYER`` characters."""
    try:
        check_text(value, key, 1000)
    except InputError as e:
        raise ApiError(400, str(e)) from None
    text = " ".join(str(value).split())
    if not text:
        raise ApiError(400, f"{key} must not be empty")
    if len(text) > MAX_PLAYER:
        raise ApiError(400, f"{key} is too long ({len(text)} characters; at most {MAX_PLAYER})")
    return text


def _readable(path: Path) -> list[GameRecord]:
    """The games of ``path`` for a change: a broken file is a 422 naming it and the line."""
    try:
        return list(_load(path))
    except RecordError as e:
        raise ApiError(422, f"{e}; fix or delete the file first") from None


def _check_index(name: str, records: list[GameRecord], index: int) -> None:
    if not 0 <= index < len(records):
        raise ApiError(404, f"{name} has {len(records)} game(s); there is no game {index}")


def _save(path: Path, records: list[GameRecord]) -> None:
    """Write ``records`` to ``path`` atomically: a full or read-only disk raises
    ``StorageError`` naming the file (a 507), and the old file stays as it was."""
    save_records(path, records)
    with _cache_lock:
        _cache.pop(path, None)


@bp.get("/<name>")
def download(name: str):
    """The record file itself, as a download."""
    return send_file(_path(name), mimetype="text/plain", as_attachment=True, download_name=name)


def _game(name: str, index: int) -> GameRecord:
    try:
        records = _load(_path(name))
    except RecordError as e:
        raise ApiError(422, str(e)) from None
    _check_index(name, records, index)
    return records[index]


@bp.get("/<name>/<int:index>/text")
def game_text(name: str, index: int):
    """One game alone as record text (what the page shares or copies)."""
    return Response(write_record(_game(name, index)), mimetype="text/plain; charset=utf-8",
                    headers={"Cache-Control": "no-store"})


@bp.get("/<name>/<int:index>")
def game(name: str, index: int):
    """One game: its tags, its moves and its result; ``first``, the ply it starts from (not 0
    for a game set up mid-way), which numbers its positions (``.../position/<ply>``)."""
    record = _game(name, index)
    try:
        first = record.start_board().ply
    except RecordError as e:
        raise ApiError(422, str(e)) from None
    return jsonify(
        first=first, tags=record.tags, result=record.result, moves=[m.text for m in record.moves],
        comments=[{"annotations": m.annotations, "comment": m.comment} for m in record.moves],
    )


def _free_name(folder: Path, stem: str) -> Path:
    stem = re.sub(r"[^A-Za-z0-9._-]", "_", stem).strip("._-")[:80] or "imported"
    if stem.startswith(DEMO_PREFIX):  # that prefix names the demo folder's files
        stem = f"imported-{stem}"
    path = folder / f"{stem}{SUFFIX}"
    n = 1
    while path.exists():
        n += 1
        path = folder / f"{stem}-{n}{SUFFIX}"
    return path


@bp.post("")
@require_control
def import_records():
    """Import a record file (a form upload named ``file``, or the text as the body).  Every
    game is read and replayed first; a broken file is refused with the line and problem."""
    upload = request.files.get("file")
    if upload is not None:
        raw, filename = upload.read(), upload.filename or "imported"
    elif request.files:
        raise ApiError(400, "upload the record file in a form field named 'file'")
    else:
        raw, filename = request.get_data(), request.args.get("name", "imported")
    if not raw.strip():
        raise ApiError(400, "the record file is empty")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ApiError(422, f"{filename}: the file is not UTF-8 text") from None
    try:
        records = read_records(text, filename)
        for record in records:
            record.replay()
    except RecordError as e:
        raise ApiError(422, str(e)) from None
    if not records:
        raise ApiError(422, f"{filename}: no game in the file")
    path = _free_name(companion().records_dir, Path(filename).stem)
    save_records(path, records)
    return jsonify(file=path.name, games=len(records)), 201


def replayed_game(name: str, index: int) -> tuple[GameRecord, Game, dict[str, str]]:
    """Game ``index`` of the record file ``name`` (for the other read-only views of records:
    looking back, analysis), the board after all its moves with its recorded ending, and its
    players' names by colour (the sides' names where the record has none); ``ApiError``
    404/422 naming what is missing or broken."""
    record = _game(name, index)
    try:
        board = record.replay()
    except RecordError as e:
        raise ApiError(422, str(e)) from None
    players = {colour: record.tags.get(tag) or board.player_name(i)
               for i, (colour, tag) in enumerate((("white", "White"), ("black", "Black")))}
    return record, board, players
