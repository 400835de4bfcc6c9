"""The exact table of Gobblet Jr.: the value of every position, read from the cached file.

The file holds one byte per slot of ``engine.gobblet.jr.index`` (every position once up to symmetry;
a partial table, of the layers with at least ``min_pieces`` pieces on the board, holds the
prefix of the slots that they fill),
the codes of ``engine.gobblet.jr.solve.encode`` with 0 meaning an exact draw: the game-graph value,
where neither side can force a line (``engine.gobblet.jr.build`` computes it by a retrograde solve).
Reading it needs numpy only: the file is mapped, not loaded, so a lookup touches a page or so.

File format (little-endian), ``HEADER_SIZE`` bytes of header then the codes:

* ``MAGIC`` (8 bytes), then uint32 ``LAYOUT`` (the numbering of ``engine.gobblet.jr.index``) and
  ``min_pieces`` (the layers solved: at least that many pieces on the board; 0 for all);
* uint64 slots, positions, wins, losses, draws;
* uint32 longest win, longest loss, build milliseconds (wall, CPU) and the CRC-32 of the codes.

``load`` checks all of it and raises ``TableError`` naming the file when anything is wrong.
"""

from __future__ import annotations

import os
import struct
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import model as jr
from .index import index, popcount9
from .solve import DRAW, LOSS, WIN, JrValue

MAGIC = b"CUPJRX1\n"
LAYOUT = 2
HEADER_SIZE = 128
_HEAD = struct.Struct("<8sII5Q5I")
NOT_A_POSITION = 128


class TableError(ValueError):
    """A table file that cannot be used (missing, truncated, damaged or of another version)."""


@dataclass(frozen=True)
class ExactStats:
    """What a table holds: positions (up to symmetry) by value, the longest win and loss in
    plies, and how long the build took."""

    positions: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    longest_win: int = 0
    longest_loss: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0

    @classmethod
    def of_codes(cls, codes: np.ndarray, seconds: float = 0.0, cpu_seconds: float = 0.0) -> ExactStats:
        """The counts of an array of codes."""
        hist = np.zeros(256, dtype=np.int64)
        for lo in range(0, len(codes), 1 << 24):  # in chunks: bincount widens to 8 bytes a slot
            hist += np.bincount(codes[lo : lo + (1 << 24)], minlength=256)
        wins, losses = np.nonzero(hist[1:128])[0], np.nonzero(hist[129:])[0]
        return cls(int(len(codes) - hist[NOT_A_POSITION]), int(hist[1:128].sum()), int(hist[129:].sum()),
                   int(hist[0]), int(wins[-1] + 1) if len(wins) else 0,
                   int(losses[-1] + 1) if len(losses) else 0, seconds, cpu_seconds)


def decode_exact(code: int) -> JrValue:
    """The value of a code of the exact table (0 is a proven draw)."""
    if code == 0:
        return JrValue(DRAW, None, True)
    if code == NOT_A_POSITION:
        raise ValueError("not a game position")
    if code < 128:
        return JrValue(WIN, code)
    return JrValue(LOSS, code - 128)


def pieces(state: int) -> int:
    """How many pieces are on the board."""
    return sum(popcount9(bb) for bb in jr.fields(state))


@dataclass(frozen=True, eq=False)
class ExactTable:
    """The exact values, read from ``path`` (``codes`` is mapped from the file)."""

    codes: np.ndarray
    min_pieces: int
    stats: ExactStats
    path: Path | None = None

    def covers(self, state: int) -> bool:
        """True when the table has the value of ``state`` (its layer was solved)."""
        return pieces(state) >= self.min_pieces

    def code(self, state: int) -> int | None:
        """The code of a position where nobody shows a line, None when not covered."""
        if not self.covers(state):
            return None
        return int(self.codes[index().index(state)])

    def value(self, state: int) -> JrValue | None:
        """The exact value of ``state`` for its side to move (a win or loss in 0 when a line
        already shows), None when the table does not cover it."""
        mine, theirs = jr.tops(state)
        if jr.has_line(theirs):
            return JrValue(LOSS, 0)
        if jr.has_line(mine):
            return JrValue(WIN, 0)
        code = self.code(state)
        return None if code is None else decode_exact(code)

    def solver(self):
        """A ``JrSolver`` answering from this table (searching what it does not cover)."""
        from .solve import JrSolver

        return JrSolver(exact=self)


def save(codes: np.ndarray, path: Path, min_pieces: int = 0, stats: ExactStats | None = None) -> ExactStats:
    """Write a table atomically (a temporary file renamed into place); returns its stats."""
    if len(codes) != index().prefix(min_pieces):
        raise ValueError(f"{len(codes)} codes for {index().prefix(min_pieces)} slots")
    stats = stats or ExactStats.of_codes(codes)
    crc = zlib.crc32(memoryview(np.ascontiguousarray(codes, dtype=np.uint8)))
    head = _HEAD.pack(MAGIC, LAYOUT, min_pieces, len(codes), stats.positions, stats.wins, stats.losses,
                      stats.draws, stats.longest_win, stats.longest_loss, int(stats.seconds * 1000),
                      int(stats.cpu_seconds * 1000), crc)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".jr-exact-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(head.ljust(HEADER_SIZE, b"\0"))
            codes.tofile(f)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return stats


def is_exact_file(path: Path) -> bool:
    """True when ``path`` starts like an exact table (its contents are not checked)."""
    try:
        with open(path, "rb") as f:
            return f.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def load(path: Path, verify: bool = True) -> ExactTable:
    """Map a table file; ``verify`` also checks the codes' CRC (reading the whole file once,
    about 0.2 s).  Raises ``TableError`` naming the file and the problem."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
            raw = f.read(HEADER_SIZE)
    except OSError as e:
        raise TableError(f"{path}: cannot read the table ({e.strerror})") from None
    if len(raw) < _HEAD.size or not raw.startswith(MAGIC):
        raise TableError(f"{path}: not a cupboard exact Gobblet Jr. table")
    (_, layout, min_pieces, slots, positions, wins, losses, draws, lw, ll, ms, cpu_ms,
     crc) = _HEAD.unpack_from(raw)
    if layout != LAYOUT or min_pieces > 12 or slots != index().prefix(min_pieces):
        raise TableError(f"{path}: a table of another version (layout {layout}); build it again")
    if size != HEADER_SIZE + slots:
        raise TableError(f"{path}: truncated or damaged ({size} bytes, expected {HEADER_SIZE + slots})")
    codes = np.memmap(path, dtype=np.uint8, mode="r", offset=HEADER_SIZE, shape=(slots,))
    if verify and zlib.crc32(memoryview(codes)) != crc:
        raise TableError(f"{path}: damaged (checksum mismatch); build it again")
    stats = ExactStats(positions, wins, losses, draws, lw, ll, ms / 1000, cpu_ms / 1000)
    return ExactTable(codes, min_pieces, stats, path)
