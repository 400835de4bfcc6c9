"""Records: the list of recorded games, download of each record file, a replay of any game
position by position, and import of a record file."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

from flask import Blueprint, jsonify, request, send_file

from engine.record import GameRecord, RecordError, read_records, save_records

from ..services import companion
from ..session import DEMO_FOLDER, status_text
from .errors import ApiError
from .security import require_control

bp = Blueprint("records_api", __name__, url_prefix="/api/records")

SUFFIX = ".gbn"
DEMO_PREFIX = "demo-"  # the demo camera's record files, in records/demo
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,120}\Z")
_cache: dict[Path, tuple[tuple[float, int], list[GameRecord] | RecordError]] = {}
_cache_lock = threading.Lock()


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
        except RecordError as e:
            value = e
        with _cache_lock:
            _cache[path] = (key, value)
        hit = (key, value)
    if isinstance(hit[1], RecordError):
        raise hit[1]
    return hit[1]


def _summary(name: str, index: int, record: GameRecord) -> dict[str, Any]:
    tags = record.tags
    return {
        "file": name, "index": index, "date": tags.get("Date", ""), "white": tags.get("White", "?"),
        "black": tags.get("Black", "?"), "variant": tags.get("Variant", "?"), "result": record.result,
        "termination": tags.get("Termination", ""), "moves": len(record.moves),
        "demo": tags.get("Demo") == "yes",
    }


@bp.get("")
def list_records():
    """Every game of every record file, newest file first; broken files with their error.

    ``?variant=gobblet-jr`` keeps that variant's games; ``?demo=1`` lists the demo camera's
    games (kept apart in ``records/demo``) instead of the real ones, ``?demo=all`` both.
    ``variants`` lists every variant found, for the page's filter."""
    demo = request.args.get("demo", "0")
    if demo not in ("0", "1", "all"):
        raise ApiError(400, "demo must be 0 (real games), 1 (demo games) or all")
    wanted = request.args.get("variant") or None
    folders = {"0": [False], "1": [True], "all": [False, True]}[demo]
    files = [p for d in folders if _folder(d).is_dir() for p in _folder(d).glob(f"*{SUFFIX}")]
    files.sort(key=lambda p: (p.stat().st_mtime, p.name), reverse=True)
    games, broken, variants = [], [], set()
    for path in files:
        try:
            for i, record in enumerate(_load(path)):
                summary = _summary(path.name, i, record)
                variants.add(summary["variant"])
                if wanted is None or summary["variant"] == wanted:
                    games.append(summary)
        except RecordError as e:
            broken.append({"file": path.name, "error": str(e)})
    demo_count = len(list(_folder(True).glob(f"*{SUFFIX}"))) if _folder(True).is_dir() else 0
    return jsonify(games=games, broken=broken, variants=sorted(variants), demo_files=demo_count)


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


@bp.get("/<name>")
def download(name: str):
    """The record file itself, as a download."""
    return send_file(_path(name), mimetype="text/plain", as_attachment=True, download_name=name)


def _game(name: str, index: int) -> GameRecord:
    try:
        records = _load(_path(name))
    except RecordError as e:
        raise ApiError(422, str(e)) from None
    if not 0 <= index < len(records):
        raise ApiError(404, f"{name} has {len(records)} game(s); there is no game {index}")
    return records[index]


@bp.get("/<name>/<int:index>")
def game(name: str, index: int):
    """One game: its tags, its moves and its result."""
    record = _game(name, index)
    return jsonify(
        tags=record.tags, result=record.result, moves=[m.text for m in record.moves],
        comments=[{"annotations": m.annotations, "comment": m.comment} for m in record.moves],
    )


@bp.get("/<name>/<int:index>/<int:ply>")
def position(name: str, index: int, ply: int):
    """The position after ``ply`` moves of a recorded game, drawn, for the replay viewer."""
    record = _game(name, index)
    total = len(record.moves)
    if not 0 <= ply <= total:
        raise ApiError(404, f"the game has {total} moves; there is no position after move {ply}")
    try:
        board = record.start_board()
        for recorded in record.moves[:ply]:
            board.push(board.parse_move(recorded.text))
        if ply == total:
            final = record.replay()  # applies a recorded resignation or agreed draw
            if final.outcome() is not None:
                board = final
    except (RecordError, ValueError) as e:
        raise ApiError(422, f"{name}: {e}") from None
    outcome = board.outcome()
    details = getattr(board, "page_details", None)  # Gobblet's drawing shows hidden pieces, the last move
    extra = details() if details is not None else {}
    svg = extra["svg"] if details is not None else board.svg(size_px=360)
    sides = extra.get("sides", {})
    return jsonify(
        ply=ply, total=total, move=record.moves[ply - 1].text if ply else None,
        status=status_text(board, outcome, [record.tags.get("White", ""), record.tags.get("Black", "")],
                           [sides.get("white", ""), sides.get("black", "")]),
        position=board.text(), svg=svg,
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
