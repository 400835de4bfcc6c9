"""The cached table of exact Gobblet Jr. values near the start of the game.

    python -m engine.jr_table build [--plies 2] [--horizon 25] [--out FILE]
    python -m engine.jr_table info

The table holds every canonical position (``engine.jr``) reachable in at most ``plies`` plies
from the start, each with its value as one byte (``engine.jr_solve.encode``): win or loss with
the distance in plies, or 0 when neither side can force a line within ``horizon`` plies.  The
positions deeper in the game are solved by search when asked (``JrSolver``), which the table's
entries also speed up.

File format (little-endian): the magic ``b"CUPJR1\\n"``, then four uint32 (plies, horizon,
entry count, build seconds x 1000), then the sorted uint64 keys, then one byte per key.  The
file lives in ``$CUPBOARD_CACHE`` or ``~/.cache/cupboard`` and is built on first use when
missing (a few minutes); nothing generated is committed.
"""

from __future__ import annotations

import argparse
import os
import struct
import sys
import tempfile
import time
from array import array
from dataclasses import dataclass
from pathlib import Path

from . import jr
from .board import Board
from .jr_solve import JrSolver, encode
from .rules import GOBBLET_JR

MAGIC = b"CUPJR1\n"
DEFAULT_PLIES = 2
DEFAULT_HORIZON = 25
FILE_NAME = "gobblet-jr-table-v1.bin"


@dataclass
class JrTable:
    """Exact values of canonical positions: ``values[key]`` is an ``encode`` byte."""

    values: dict[int, int]
    plies: int
    horizon: int
    build_seconds: float = 0.0

    def solver(self) -> JrSolver:
        """A solver that uses this table."""
        return JrSolver(self.values, self.horizon)


def cache_dir() -> Path:
    """Where cupboard caches generated data: ``$CUPBOARD_CACHE`` or ``~/.cache/cupboard``."""
    env = os.environ.get("CUPBOARD_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "cupboard"


def default_path() -> Path:
    """The table file in the cache directory."""
    return cache_dir() / FILE_NAME


def positions_within(plies: int) -> list[int]:
    """Canonical keys of every position reachable from the start in at most ``plies`` plies
    without the game having ended, in order of first appearance."""
    start = jr.canonical(jr.from_board(Board(GOBBLET_JR)))
    seen = {start}
    order = [start]
    layer = [start]
    for _ in range(plies):
        nxt = []
        for s in layer:
            for _, child, result in jr.children(s):
                if result == jr.ONGOING:
                    k = jr.canonical(child)
                    if k not in seen:
                        seen.add(k)
                        nxt.append(k)
        order.extend(nxt)
        layer = nxt
    return order


def build(plies: int = DEFAULT_PLIES, horizon: int = DEFAULT_HORIZON, per_position: float = 20.0,
          progress: bool = False) -> JrTable:
    """Solve every position within ``plies`` of the start (deepest first, so that shallower
    positions reuse their results), each up to ``horizon`` plies or ``per_position`` seconds."""
    start = time.perf_counter()
    keys = positions_within(plies)
    solver = JrSolver()
    values: dict[int, int] = {}
    unresolved = 0
    for i, k in enumerate(reversed(keys)):
        v = solver.value(k, per_position, horizon)
        if not v.proven and v.horizon < horizon:
            unresolved += 1  # ran out of time: stored as "no result within the horizon" is wrong
            continue
        values[k] = encode(v)
        solver.clear_if_larger(3_000_000)
        if progress and (i + 1) % 100 == 0:
            print(f"  {i + 1}/{len(keys)} positions, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    if progress and unresolved:
        print(f"  {unresolved} positions not resolved in time (left out)", file=sys.stderr)
    return JrTable(values, plies, horizon, time.perf_counter() - start)


def save(table: JrTable, path: Path) -> None:
    """Write ``table`` to ``path`` atomically."""
    keys = sorted(table.values)
    data = array("Q", keys)
    if sys.byteorder != "little":
        data.byteswap()
    codes = bytes(table.values[k] for k in keys)
    header = MAGIC + struct.pack("<4I", table.plies, table.horizon, len(keys), int(table.build_seconds * 1000))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".jr-table-")
    with os.fdopen(fd, "wb") as f:
        f.write(header)
        f.write(data.tobytes())
        f.write(codes)
    os.replace(tmp, path)


def load(path: Path) -> JrTable:
    """Read a table file; raises ValueError naming the file when it is not a valid table."""
    raw = path.read_bytes()
    if not raw.startswith(MAGIC) or len(raw) < len(MAGIC) + 16:
        raise ValueError(f"{path}: not a cupboard Gobblet Jr. table")
    plies, horizon, n, ms = struct.unpack_from("<4I", raw, len(MAGIC))
    off = len(MAGIC) + 16
    if len(raw) != off + 9 * n:
        raise ValueError(f"{path}: truncated table ({len(raw)} bytes, expected {off + 9 * n})")
    keys = array("Q")
    keys.frombytes(raw[off : off + 8 * n])
    if sys.byteorder != "little":
        keys.byteswap()
    codes = raw[off + 8 * n :]
    return JrTable(dict(zip(keys, codes)), plies, horizon, ms / 1000)


_LOADED: dict[Path, JrTable] = {}


def get_table(path: Path | None = None, build_if_missing: bool = True,
              plies: int = DEFAULT_PLIES) -> JrTable | None:
    """The cached table, loaded once per process; built (``plies`` deep) and saved first when
    missing and ``build_if_missing``.  None when there is none and building is not allowed."""
    path = path or default_path()
    if path in _LOADED:
        return _LOADED[path]
    if path.exists():
        try:
            table = load(path)
        except ValueError:
            table = None
        if table is not None:
            _LOADED[path] = table
            return table
    if not build_if_missing:
        return None
    table = build(plies)
    save(table, path)
    _LOADED[path] = table
    return table


def main(argv: list[str] | None = None) -> int:
    """Command line: build the table or describe it."""
    parser = argparse.ArgumentParser(prog="python -m engine.jr_table", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="action", required=True)
    b = sub.add_parser("build", help="solve the positions near the start and cache them")
    b.add_argument("--plies", type=int, default=DEFAULT_PLIES)
    b.add_argument("--horizon", type=int, default=DEFAULT_HORIZON)
    b.add_argument("--out", type=Path, default=None)
    i = sub.add_parser("info", help="describe the cached table")
    i.add_argument("--file", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.action == "build":
        path = args.out or default_path()
        table = build(args.plies, args.horizon, progress=True)
        save(table, path)
        print(f"{path}: {len(table.values)} positions within {table.plies} plies, "
              f"horizon {table.horizon}, built in {table.build_seconds:.1f} s, "
              f"{path.stat().st_size} bytes")
        return 0
    path = args.file or default_path()
    table = load(path)
    counts = {"win": 0, "loss": 0, "none": 0}
    for code in table.values.values():
        counts["none" if code == 0 else "win" if code < 128 else "loss"] += 1
    print(f"{path}: {len(table.values)} positions within {table.plies} plies, horizon {table.horizon}, "
          f"built in {table.build_seconds:.1f} s; wins {counts['win']}, losses {counts['loss']}, "
          f"no forced result {counts['none']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
