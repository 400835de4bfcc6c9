"""Preparing the exact Gobblet Jr. table (``engine.gobblet.jr.table``) without holding anyone up.

The table takes a minute or two to build (a retrograde solve, ``engine.gobblet.jr.build``), so
``cupboard serve`` starts ``python -m engine.gobblet.jr.table build`` in a separate process at the
lowest CPU priority (the camera thread keeps the cores) when the table is missing or damaged
(a damaged file is moved aside as ``*.damaged``); hints say "exact table being prepared" until
it is there, then switch to it.  ``cupboard prepare`` builds it in the foreground.  Without
numba the build makes the horizon-limited table instead, and the note says so.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

from engine.gobblet.jr.exact import ExactTable, TableError
from engine.gobblet.jr.table import default_path, get_table, load

from .background import end_child, start_child

MISSING, BUILDING, READY, FAILED = "missing", "building", "ready", "failed"
STATUS_WORDS = {
    MISSING: "the exact Gobblet Jr. table is not built (run `cupboard prepare`): hints are searched",
    BUILDING: "exact table being prepared: until it is ready, hints are searched within the time limit",
    READY: "exact table ready",
    # the horizon-limited table (numba was missing when it was built)
    "partial": "the table near the start is ready, not the exact one (it needs numba): hints are searched beyond it",
    FAILED: "the exact table could not be built (see the log): hints are searched",
}


# ``python -m engine.gobblet.jr.table``, run at the lowest CPU priority (``background``)
BUILD = "import sys; from engine.gobblet.jr.table import main; sys.exit(main(sys.argv[1:]))"


def build_args(path: Path, plies: int | None = None, horizon: int | None = None,
               min_pieces: int | None = None) -> list[str]:
    """The arguments of the command that builds the table into ``path`` (the
    engine's ``python -m engine.gobblet.jr.table build``, with its defaults unless given: ``plies`` or
    ``horizon`` ask for the horizon-limited table, ``min_pieces`` for a partial exact one)."""
    args = ["build", "--out", str(path)]
    if min_pieces is not None:
        args += ["--min-pieces", str(min_pieces)]
    if plies is not None:
        args += ["--plies", str(plies)]
    if horizon is not None:
        args += ["--horizon", str(horizon)]
    return args


def is_jr_game(game: object) -> bool:
    """True when the exact Gobblet Jr. table answers ``game``: its rules are Gobblet rules that
    play exactly like Gobblet Jr."""
    from engine.gobblet import Rules
    from engine.gobblet.jr.model import is_jr

    rules = getattr(game, "rules", None)
    return isinstance(rules, Rules) and is_jr(rules)


@dataclass
class JrTablePreparer:
    """Builds the table at ``path`` (default: the cache's) in a low-priority subprocess, at most
    once per preparer, and tells how far it got.  ``plies``/``horizon``/``min_pieces`` are
    passed to the engine's ``build`` command when given (its defaults otherwise)."""

    path: Path = field(default_factory=default_path)
    plies: int | None = None
    horizon: int | None = None
    min_pieces: int | None = None
    process: subprocess.Popen | None = None
    returncode: int | None = None
    used: bool = False  # the finished table has been handed to the hints
    exact: bool = False  # that table is the exact one (not the horizon-limited fallback)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def log_path(self) -> Path:
        """Where the build's output goes."""
        return self.path.with_name(self.path.name + ".log")

    def start(self) -> bool:
        """Start the build unless a valid table exists or a build was already started; True
        when this call started it.  A damaged table is moved aside (``*.damaged``) first."""
        with self._lock:
            if self.process is not None:
                return False
            if self.path.exists():
                try:
                    load(self.path)
                    return False
                except TableError as e:
                    print(f"cupboard: {e}; building it again", file=sys.stderr, flush=True)
                    os.replace(self.path, self.path.with_name(self.path.name + ".damaged"))
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.log_path, "wb") as log:  # the child keeps its own copy of the file
                self.process = start_child(BUILD, build_args(self.path, self.plies, self.horizon, self.min_pieces), log)
            return True

    def status(self) -> str:
        """``ready`` (the file is there), ``building``, ``failed`` or ``missing``."""
        with self._lock:
            if self.process is not None and self.returncode is None:
                self.returncode = self.process.poll()
            if self.path.exists() and (self.process is None or self.returncode is not None):
                return READY
            if self.process is None:
                return MISSING
            if self.returncode is None:
                return BUILDING
            return FAILED

    def wait(self, timeout: float | None = None) -> str:
        """Wait for a started build to end (``subprocess.TimeoutExpired`` after ``timeout``)."""
        if self.process is not None:
            self.process.wait(timeout)
        return self.status()

    def stop(self) -> None:
        """End a build still running (the server is stopping); a later ``start`` begins again."""
        with self._lock:
            if self.process is not None and self.process.poll() is None:
                end_child(self.process)
                self.process = None

    def use_when_ready(self) -> str:
        """The status; the first time the table is ready, load it and answer Gobblet Jr. hints
        from it (a solver made before the table existed would otherwise never see it)."""
        state = self.status()
        if state == READY and not self.used:
            table = get_table(self.path, build_if_missing=False)
            if table is None:  # a damaged file: say so rather than claim exact answers
                return FAILED
            from engine.gobblet.hints import use_jr_table

            use_jr_table(table)
            self.used = True
            self.exact = isinstance(table, ExactTable)
        return state

    def covers(self, game: object) -> bool:
        """True when the table answers ``game``: a Gobblet game under Gobblet Jr. rules."""
        return is_jr_game(game)

    def answer(self) -> dict[str, str]:
        """What the hint answer says about the table."""
        state = self.use_when_ready()
        note = STATUS_WORDS["partial" if state == READY and not self.exact else state]
        return {"table": state, "table_note": note}
