"""Preparing a family's exact tables in the background when a game needs one (Cups: the table
of a 3-cup game's values, ``engine.cups.hints.prepare``), never inside a web request.

A new game whose family says a table would serve it and is missing (``Family.wants_table``)
starts ``Family.prepare`` in a separate process at the lowest CPU priority, one build per
variant at a time; hints search until the table is on disk, then load it.  (The Gobblet Jr.
table has its own preparer, ``jr_prepare``, which builds it at start-up.)
"""

from __future__ import annotations

import logging
import subprocess
import threading
from typing import Any

from engine.families import family_of

from .background import end_child, start_child

log = logging.getLogger(__name__)

# the family's prepare for one variant token, run at the lowest priority (the camera keeps the cores)
BUILD = ("import sys; from engine.families import family_of, variant; "
         "print(family_of(sys.argv[1]).prepare(variant(sys.argv[1])))")


class TablePreparer:
    """Builds missing tables in the background, one process per variant token."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._builds: dict[str, subprocess.Popen] = {}

    def ensure(self, rules: Any) -> bool:
        """Start building the table ``rules``' games want, if their family wants one and it is
        missing and not already being built; True when a build is running for them."""
        fam = family_of(rules.token)
        if fam.prepare is None or fam.wants_table is None:
            return False
        with self._lock:
            running = self._builds.get(rules.token)
            if running is not None and running.poll() is None:
                return True
            if not fam.wants_table(rules):
                return False
            try:
                self._builds[rules.token] = start_child(BUILD, [rules.token])
            except OSError as e:  # no process can be started: hints keep searching
                log.warning("could not start preparing the table of %s: %s", rules.token, e)
                return False
            log.info("preparing the exact table of %s in the background", rules.token)
            return True

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the running builds (tests; the server never waits)."""
        with self._lock:
            builds = list(self._builds.values())
        for proc in builds:
            proc.wait(timeout)

    def stop(self) -> None:
        """Stop the running builds (the server is shutting down)."""
        with self._lock:
            builds, self._builds = list(self._builds.values()), {}
        for proc in builds:
            end_child(proc)
