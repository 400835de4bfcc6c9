"""Adapting to the table from play, by itself: when a game refereed from a real camera ends
(finished, or left for a new one) and enough labelled frames have been kept since the last
adaptation (``serve --keep-frames``), ``cupboard adapt`` runs on them in a separate process at
the lowest CPU priority (``background``, as the exact tables are built), so the camera thread
keeps the cores.  It writes ``DATA/adaptation.json`` only when what it learnt reads the frames
it held apart at least as well (``vision.adapt.adapt``); the live referee reads through it from
the next game (``LiveReferee``), never in the middle of one.  A failed adaptation (no board in
the frames, a full disk) is logged with its reason and changes nothing.

The frames are adapted on from a snapshot of the frames folder (hard links, or copies), because
the next game keeps adding frames and dropping the oldest while the adaptation reads them.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from vision.adapt import COLOUR_FRAMES, AdaptationFileError, load_adaptation
from vision.frames_folder import CALIBRATION, TRUTH, FramesWriter

from .background import end_child, start_child

log = logging.getLogger(__name__)

# New labelled frames (committed positions) kept since the last adaptation before adapting
# again: as many as the players' colours are measured on (``vision.adapt.COLOUR_FRAMES``), about
# one short game.  Fewer would hardly move what is measured (a quarter are held apart to check,
# so 8 new frames give 2 new checking frames), while adapting costs some seconds of a core.
ADAPT_AFTER = COLOUR_FRAMES

# ``cupboard adapt --data DATA --frames SNAPSHOT``: its checks (the adaptation in use of another
# calibration is not replaced), its rule (written only when kept), its one-line errors
RUN = "import sys; from companion.cli import main; sys.exit(main(sys.argv[1:]))"

SNAPSHOT = "frames-adapting"  # the snapshot's folder in the data folder, removed once adapted
LOG = "adaptation.log"  # the adaptation's output, kept in the data folder until the next one


@dataclass(frozen=True)
class AdaptOutcome:
    """How an adaptation in play ended: ``written`` when ``DATA/adaptation.json`` was replaced,
    and one line saying what was learnt, or why nothing changed."""

    written: bool
    text: str


class TableLearner:
    """Runs ``cupboard adapt`` on the kept frames of ``data_dir`` in the background after a
    game (``game_ended``), at most one at a time, into ``adaptation`` (the data folder's
    ``adaptation.json``); ``poll`` tells once how it ended."""

    def __init__(self, data_dir: Path, adaptation: Path, after: int = ADAPT_AFTER) -> None:
        self.data_dir = Path(data_dir)
        self.adaptation = Path(adaptation)
        self.after = after
        self.process: subprocess.Popen | None = None
        self.outcome: AdaptOutcome | None = None  # how the last adaptation ended
        self.fresh = False  # an adaptation was written that the referee has not read yet
        self._lock = threading.Lock()
        self._before: tuple[int, int] | None = None  # the adaptation file as it was when adapting began
        # frames kept after this time are new; before any adaptation in this run, those after
        # the adaptation file was written (all of them when there is none)
        self._since = self._stamp_time(self.adaptation)

    @property
    def snapshot(self) -> Path:
        """Where the frames adapted on are linked while adapting."""
        return self.data_dir / SNAPSHOT

    @property
    def log_path(self) -> Path:
        """Where the adaptation's output goes."""
        return self.data_dir / LOG

    @property
    def running(self) -> bool:
        """True while an adaptation is running (or has ended and not been polled)."""
        return self.process is not None

    def new_frames(self, writer: FramesWriter) -> int:
        """How many of the frames ``writer`` keeps were kept since the last adaptation."""
        return sum(self._stamp_time(writer.folder / item.file) > self._since for item in writer.items)

    def game_ended(self, writer: FramesWriter | None) -> bool:
        """A game refereed with ``writer`` keeping its frames has ended: start adapting on
        them if enough are new and none is running.  True when it started."""
        with self._lock:
            if writer is None or self.process is not None:
                return False
            new = self.new_frames(writer)
            if new < self.after:
                log.info("%d new labelled frames since the last adaptation: adapting to the table after %d",
                         new, self.after)
                return False
            self._since = time.time()
            try:
                self._take_snapshot(writer)
                self._before = self._stamp(self.adaptation)
                with open(self.log_path, "wb") as out:  # the child keeps its own copy of the file
                    self.process = start_child(RUN, ["adapt", "--data", str(self.data_dir),
                                                     "--frames", str(self.snapshot)], out)
            except OSError as e:  # a full disk, no process: play goes on as it was
                log.warning("adapting to this table could not start: %s; nothing changed", e)
                shutil.rmtree(self.snapshot, ignore_errors=True)
                return False
            log.info("adapting to this table in the background (low priority) from its %d labelled frames, "
                     "%d of them new", len(writer.items), new)
            return True

    def poll(self) -> AdaptOutcome | None:
        """How the running adaptation ended, once, when it has (logged); None while it runs or
        when none was started."""
        with self._lock:
            process = self.process
            if process is None or process.poll() is None:
                return None
            self.process = None
            outcome = self._outcome(process.returncode)
            self.outcome = outcome
            self.fresh = self.fresh or outcome.written
            shutil.rmtree(self.snapshot, ignore_errors=True)
        (log.info if outcome.written else log.warning)("%s", outcome.text)
        return outcome

    def wait(self, timeout: float | None = None) -> AdaptOutcome | None:
        """Wait for a running adaptation to end and poll it (tests; play never waits)."""
        process = self.process
        if process is not None:
            process.wait(timeout)
        return self.poll()

    def take_fresh(self) -> bool:
        """True once after an adaptation was written: the next game reads through it."""
        with self._lock:
            fresh, self.fresh = self.fresh, False
            return fresh

    def stop(self) -> None:
        """End an adaptation still running (the server is stopping): nothing is written."""
        with self._lock:
            process, self.process = self.process, None
        if process is not None:
            end_child(process)
            shutil.rmtree(self.snapshot, ignore_errors=True)

    # ------------------------------------------------------------------ inside
    def _take_snapshot(self, writer: FramesWriter) -> None:
        """The frames folder as it is now, in ``snapshot``: the pictures hard-linked (they are
        never changed, only removed), the truth and calibration copied."""
        shutil.rmtree(self.snapshot, ignore_errors=True)
        self.snapshot.mkdir(parents=True)
        for name in (CALIBRATION, TRUTH):
            shutil.copyfile(writer.folder / name, self.snapshot / name)
        for item in writer.items:
            try:
                os.link(writer.folder / item.file, self.snapshot / item.file)
            except OSError:  # a file system without hard links
                shutil.copyfile(writer.folder / item.file, self.snapshot / item.file)

    def _outcome(self, returncode: int) -> AdaptOutcome:
        """What the ended adaptation did, from its exit code, the adaptation file and its log."""
        lines = self._log_lines()
        if returncode == 0 and self._stamp(self.adaptation) != self._before:
            try:
                frames = load_adaptation(self.adaptation).frames
            except (AdaptationFileError, OSError) as e:
                return AdaptOutcome(False, f"adapting to this table wrote a file that does not read back: {e}")
            return AdaptOutcome(True, f"adapted to this table from {frames} frames ({self.adaptation}); "
                                      "the camera reads through it from the next game")
        if returncode == 0:
            said = "; ".join(lines) or "the adaptation did not read its kept-apart frames better"
            return AdaptOutcome(False, f"adapting to this table changed nothing: {said}")
        reason = lines[-1].removeprefix("cupboard adapt: ") if lines else f"it ended with code {returncode}"
        return AdaptOutcome(False, f"adapting to this table failed, nothing changed: {reason} (see {self.log_path})")

    def _log_lines(self) -> list[str]:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return []
        return [line.strip() for line in text.splitlines() if line.strip()]

    @staticmethod
    def _stamp(path: Path) -> tuple[int, int] | None:
        """When ``path`` was last written, and its size (None: no such file)."""
        try:
            st = path.stat()
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size

    @staticmethod
    def _stamp_time(path: Path) -> float:
        try:
            return path.stat().st_mtime
        except OSError:
            return 0.0
