"""A folder of labelled frames: pictures of a real board with what stands on each square.

Such a folder is what recognition is measured on (``cupboard vision-eval --frames DIR``) and
adapted to (``cupboard adapt --frames DIR``).  The referee fills one as it plays when asked to
(every committed stable position is a labelled frame: the game knows what stands where), and
a user can make one from their own photos.  The layout::

    DIR/calibration.json      the calibration the frames were taken through (cupboard-calibration)
    DIR/truth.json            what each frame shows (below)
    DIR/0001.png ...          the frames (PNG or JPEG, any names)

``truth.json``::

    {"format": "cupboard-frames", "version": 1,
     "frames": [{"file": "0001.png", "tops": ["L4", ".", "D2", ...], "hidden": []}, ...]}

``tops`` lists every square in the board's order (a1, b1, ... along the first rank, then the
second rank ...): ``.`` for an empty square, else ``L`` (light) or ``D`` (dark) and the piece
set's size number, 1 for its smallest (the top cup only: what the camera sees).  ``hidden``
(optional) lists squares, by name, that something covers in that frame (a hand).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.model import Calibration, CalibrationError, load_calibration, save_calibration, to_json
from hardware.pieces import check_header

FORMAT = "cupboard-frames"
VERSION = 1
TRUTH = "truth.json"
CALIBRATION = "calibration.json"
_TOP = re.compile(r"^([LD])([1-9][0-9]?)$")


class FramesFolderError(ValueError):
    """A frames folder is missing a part or holds a malformed one; the message names it."""


@dataclass(frozen=True)
class LabelledFrame:
    """One frame's file name and truth: per square its top (colour, size class from 0) or
    None, and whether something hides it."""

    file: str
    tops: tuple[tuple[int, int] | None, ...]
    hidden: tuple[bool, ...]


def format_top(top: tuple[int, int] | None) -> str:
    """A square's top as ``truth.json`` writes it."""
    return "." if top is None else f"{'LD'[top[0]]}{top[1] + 1}"


def _parse_top(text: object, sizes: int, where: str) -> tuple[int, int] | None:
    if text == ".":
        return None
    m = _TOP.match(text) if isinstance(text, str) else None
    if m is None or not 1 <= int(m.group(2)) <= sizes:
        raise FramesFolderError(f"{where}: {text!r} is not '.' or L/D and a size from 1 to {sizes}")
    return ("LD".index(m.group(1)), int(m.group(2)) - 1)


def read_truth(folder: Path, cal: Calibration) -> list[LabelledFrame]:
    """The frames ``truth.json`` lists, checked against the calibration's board and set."""
    path = folder / TRUTH
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FramesFolderError(f"{path}: no such file (a frames folder needs {TRUTH})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise FramesFolderError(f"{path}: not valid JSON ({e})") from None
    check_header(data, FORMAT, VERSION, str(path), FramesFolderError)
    rows = data.get("frames")
    if not isinstance(rows, list):
        raise FramesFolderError(f"{path}: 'frames' must be a list")
    board, sizes = cal.board, len(cal.pieces.sizes)
    names = {board.square_name(i): i for i in range(board.squares)}
    out = []
    for k, row in enumerate(rows):
        where = f"{path}: frames[{k}]"
        if not isinstance(row, dict) or not isinstance(row.get("file"), str) or not row["file"]:
            raise FramesFolderError(f"{where}: needs a 'file' name")
        if "/" in row["file"] or "\\" in row["file"] or row["file"].startswith("."):
            raise FramesFolderError(f"{where}: 'file' must name a file in the folder, got {row['file']!r}")
        tops = row.get("tops")
        if not isinstance(tops, list) or len(tops) != board.squares:
            raise FramesFolderError(f"{where}: 'tops' must list the {board.squares} squares of the {board.name} board")
        hidden = row.get("hidden", [])
        if not isinstance(hidden, list) or not all(h in names for h in hidden):
            raise FramesFolderError(f"{where}: 'hidden' must list square names of the {board.name} board")
        out.append(LabelledFrame(row["file"], tuple(_parse_top(t, sizes, f"{where}.tops[{i}]") for i, t in enumerate(tops)),
                                 tuple(board.square_name(i) in hidden for i in range(board.squares))))
    return out


def open_folder(folder: str | Path) -> tuple[Calibration, list[LabelledFrame]]:
    """The calibration and truth of a frames folder; errors name the file and the problem."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FramesFolderError(f"{folder}: no such folder")
    try:
        cal = load_calibration(folder / CALIBRATION)
    except CalibrationError as e:
        raise FramesFolderError(str(e)) from None
    return cal, read_truth(folder, cal)


def frames(folder: str | Path) -> Iterator[tuple[np.ndarray, LabelledFrame]]:
    """Every frame of the folder with its truth (open_folder's checks first)."""
    folder = Path(folder)
    _, truth = open_folder(folder)
    for item in truth:
        image = cv2.imread(str(folder / item.file), cv2.IMREAD_COLOR)
        if image is None:
            raise FramesFolderError(f"{folder / item.file}: missing, or not a picture OpenCV can read")
        yield image, item


class FramesWriter:
    """Adds labelled frames to a folder, keeping at most ``keep`` (the oldest go first), with
    ``truth.json`` rewritten atomically after each one so a crash loses at most that frame.
    A folder holding frames of the same calibration is added to; one of another calibration
    (the camera moved since) is emptied first: its frames say nothing of this camera."""

    def __init__(self, folder: str | Path, cal: Calibration, keep: int = 200):
        if keep < 1:
            raise ValueError("keep must be at least 1")
        self.folder = Path(folder)
        self.cal = cal
        self.keep = keep
        self.folder.mkdir(parents=True, exist_ok=True)
        cal_path = self.folder / CALIBRATION
        existing: list[LabelledFrame] = []
        try:
            if to_json(load_calibration(cal_path)) == to_json(cal):
                existing = read_truth(self.folder, cal)
        except (CalibrationError, FramesFolderError):
            pass
        if not existing:
            # frames of another calibration (the camera moved) say nothing of this one
            for old in self.folder.iterdir():
                if old.is_file() and (old.suffix in (".png", ".jpg") or old.name == TRUTH):
                    old.unlink()
            save_calibration(cal, cal_path)
        self.items = existing
        self._next = 1 + max((int(re.sub(r"\D", "", f.file) or 0) for f in existing), default=0)

    def add(self, image: np.ndarray, tops: tuple[tuple[int, int] | None, ...],
            hidden: tuple[bool, ...] | None = None) -> str:
        """Save ``image`` with its truth; returns its file name."""
        if len(tops) != self.cal.board.squares:
            raise ValueError(f"tops must list the board's {self.cal.board.squares} squares")
        name = f"{self._next:05d}.png"
        self._next += 1
        if not cv2.imwrite(str(self.folder / name), image):
            raise OSError(f"could not write {self.folder / name}")
        self.items.append(LabelledFrame(name, tuple(tops), tuple(hidden or (False,) * len(tops))))
        while len(self.items) > self.keep:
            old = self.items.pop(0)
            (self.folder / old.file).unlink(missing_ok=True)
        self._write_truth()
        return name

    def _write_truth(self) -> None:
        board = self.cal.board
        data = {"format": FORMAT, "version": VERSION,
                "frames": [{"file": f.file, "tops": [format_top(t) for t in f.tops],
                            "hidden": [board.square_name(i) for i, h in enumerate(f.hidden) if h]} for f in self.items]}
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=TRUTH, suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(data, out, indent=1)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, self.folder / TRUTH)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
