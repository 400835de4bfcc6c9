"""The cached tables of Gobblet Jr. values: the exact table, and the horizon-limited table it
replaced (still built when numba, the exact builder's dependency, is missing).

    python -m engine.gobblet.jr.table build [--out FILE] [--min-pieces N]
    python -m engine.gobblet.jr.table build --plies 2 --horizon 25 [--out FILE]   (horizon-limited)
    python -m engine.gobblet.jr.table info [--file FILE]

The exact table (``engine.gobblet.jr.exact``) holds the value of every position, draws included,
solved backwards by ``engine.gobblet.jr.build`` in about a minute of CPU and under 1 GB of memory;
``--min-pieces`` solves only the layers with at least that many pieces on the board (a quick
partial table, for tests).  The file lives in ``$CUPBOARD_CACHE`` or ``~/.cache/cupboard``, is
built on first use when missing (``cupboard prepare``, or ``cupboard serve`` in the
background) and is never committed: this script makes it.

The horizon-limited table holds every canonical position (``engine.gobblet.jr.model``) reachable in at most
``plies`` plies from the start, each with its value as one byte (``engine.gobblet.jr.solve.encode``):
win or loss with the distance in plies, or 0 when neither side can force a line within
``horizon`` plies; deeper positions are searched when asked (``JrSolver``).  Its file format
(little-endian): the magic ``b"CUPJR1\\n"``, then four uint32 (plies, horizon, entry count,
build seconds x 1000), then the sorted uint64 keys, then one byte per key.

``load`` reads either kind (by its magic); ``get_table`` loads the cached one, and rebuilds a
damaged file, saying so.
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

from . import exact as jr_exact
from . import model as jr
from ..board import Board
from .exact import ExactTable, TableError
from .solve import JrSolver, encode
from ..rules import GOBBLET_JR

MAGIC = b"CUPJR1\n"
DEFAULT_PLIES = 2
DEFAULT_HORIZON = 25
FILE_NAME = "gobblet-jr-exact-v1.bin"
NO_BUILDER = ("numba is not installed, so the exact Gobblet Jr. table cannot be built "
              "(pip install numba, then `cupboard prepare --force`)")


class BuilderMissing(ImportError):
    """The exact table's builder cannot run here (numba is missing)."""


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


def load(path: Path, verify: bool = True) -> JrTable | ExactTable:
    """Read a table file of either kind (``verify``: check the exact table's checksum); raises
    ValueError (``TableError``) naming the file when it is not a valid table."""
    if jr_exact.is_exact_file(path):
        return jr_exact.load(path, verify)
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise TableError(f"{path}: cannot read the table ({e.strerror})") from None
    if not raw.startswith(MAGIC) or len(raw) < len(MAGIC) + 16:
        raise TableError(f"{path}: not a cupboard Gobblet Jr. table")
    plies, horizon, n, ms = struct.unpack_from("<4I", raw, len(MAGIC))
    off = len(MAGIC) + 16
    if len(raw) != off + 9 * n:
        raise TableError(f"{path}: truncated table ({len(raw)} bytes, expected {off + 9 * n})")
    keys = array("Q")
    keys.frombytes(raw[off : off + 8 * n])
    if sys.byteorder != "little":
        keys.byteswap()
    codes = raw[off + 8 * n :]
    return JrTable(dict(zip(keys, codes)), plies, horizon, ms / 1000)


def build_exact(path: Path, min_pieces: int = 0, progress: bool = False) -> ExactTable:
    """Solve the game (the layers with at least ``min_pieces`` pieces on the board) and save
    the exact table at ``path``.  Raises ``BuilderMissing`` without numba."""
    try:
        from . import build as jr_build
    except ImportError as e:
        raise BuilderMissing(f"{NO_BUILDER}: {e}") from None
    report = (lambda line: print(f"  {line}", file=sys.stderr, flush=True)) if progress else None
    codes, stats = jr_build.solve(min_pieces, progress=report)
    jr_exact.save(codes, path, min_pieces, stats)
    del codes
    return jr_exact.load(path, verify=False)


def build_any(path: Path, min_pieces: int = 0, plies: int = DEFAULT_PLIES, horizon: int = DEFAULT_HORIZON,
              progress: bool = False) -> JrTable | ExactTable:
    """The exact table at ``path``; without numba, says so on stderr and builds the
    horizon-limited table (``plies`` deep, ``horizon`` far) instead."""
    try:
        return build_exact(path, min_pieces, progress)
    except BuilderMissing as e:
        print(f"{e}; building the horizon-limited table instead (hints search the rest)",
              file=sys.stderr, flush=True)
    table = build(plies, horizon, progress=progress)
    save(table, path)
    return table


_LOADED: dict[Path, JrTable | ExactTable] = {}


def get_table(path: Path | None = None, build_if_missing: bool = True,
              plies: int = DEFAULT_PLIES) -> JrTable | ExactTable | None:
    """The cached table, loaded once per process; built and saved first when missing (or
    damaged) and ``build_if_missing``.  None when there is none and building is not allowed.
    A damaged file is reported on stderr.  Without numba the horizon-limited table (``plies``
    deep) is built instead of the exact one."""
    path = path or default_path()
    if path in _LOADED:
        return _LOADED[path]
    if path.exists():
        try:
            table = load(path)
        except TableError as e:
            print(f"cupboard: {e}", file=sys.stderr, flush=True)
            table = None
        if table is not None:
            _LOADED[path] = table
            return table
    if not build_if_missing:
        return None
    table = build_any(path, plies=plies)
    _LOADED[path] = table
    return table


def describe(table: JrTable | ExactTable, path: Path) -> str:
    """One line about a table: its kind, what it holds and how it was built."""
    if isinstance(table, ExactTable):
        st = table.stats
        part = "every position" if table.min_pieces == 0 else f"the positions with at least {table.min_pieces} pieces on the board"
        return (f"{path}: exact table of {part}: {st.positions} positions up to symmetry, wins {st.wins}, "
                f"losses {st.losses}, draws {st.draws}; longest win {st.longest_win} plies, longest loss "
                f"{st.longest_loss}; built in {st.seconds:.1f} s ({st.cpu_seconds:.1f} s CPU); "
                f"{path.stat().st_size} bytes")
    counts = {"win": 0, "loss": 0, "none": 0}
    for code in table.values.values():
        counts["none" if code == 0 else "win" if code < 128 else "loss"] += 1
    return (f"{path}: horizon-limited table, {len(table.values)} positions within {table.plies} plies, "
            f"horizon {table.horizon}, built in {table.build_seconds:.1f} s; wins {counts['win']}, "
            f"losses {counts['loss']}, no forced result {counts['none']}")


def main(argv: list[str] | None = None) -> int:
    """Command line: build a table or describe it."""
    parser = argparse.ArgumentParser(prog="python -m engine.gobblet.jr.table", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="action", required=True)
    b = sub.add_parser("build", help="solve Gobblet Jr. and cache the table")
    b.add_argument("--out", type=Path, default=None)
    b.add_argument("--min-pieces", type=int, default=0,
                   help="exact table of the positions with at least this many pieces on the board only")
    b.add_argument("--plies", type=int, default=None, help="build the horizon-limited table, this deep")
    b.add_argument("--horizon", type=int, default=None, help="build the horizon-limited table, this far")
    i = sub.add_parser("info", help="describe the cached table")
    i.add_argument("--file", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.action == "build":
        path = args.out or default_path()
        if args.plies is not None or args.horizon is not None:
            table: JrTable | ExactTable = build(DEFAULT_PLIES if args.plies is None else args.plies,
                                                DEFAULT_HORIZON if args.horizon is None else args.horizon,
                                                progress=True)
            save(table, path)
        else:
            table = build_any(path, args.min_pieces, progress=True)
        print(describe(table, path))
        return 0
    path = args.file or default_path()
    try:
        table = load(path)
    except TableError as e:
        print(f"cupboard: {e}", file=sys.stderr)
        return 1
    print(describe(table, path))
    if isinstance(table, JrTable) and not _numba_available():
        print(NO_BUILDER)
    return 0


def _numba_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("numba") is not None


if __name__ == "__main__":
    sys.exit(main())
