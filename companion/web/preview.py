"""The camera thread as the web app sees it: one thread owns the frame source, keeps the
latest frame's downscaled JPEG and the health figures; web requests only read them.

This is the preview half of the camera service.  Refereeing from frames (recognise each
frame, track stable states, explain them as moves, raise alerts) plugs in through
``on_frame``; until it does, ``board_found`` and ``last_stable`` stay unknown (None).
``overlay`` draws what the referee sees on the downscaled preview, only when a preview frame
is encoded (a few a second), so it never slows the referee.  A page may ask for the
preview without it (``preview_jpeg(overlay=False)``); that plain JPEG is encoded as well only
while someone has asked for it in the last few seconds.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np

from hardware.frames import EndOfStream, Frame, FrameSource, SourceError

log = logging.getLogger(__name__)

PREVIEW_WIDTH = 480
PREVIEW_EVERY = 0.25  # seconds between preview encodings: a few frames a second at most
PLAIN_WANTED_FOR = 5.0  # seconds the plain preview is kept up to date after it was last asked for
MAX_RETRY = 30.0  # seconds between attempts to open a camera that stays away


class PreviewCamera:
    """A ``CameraService`` over any ``FrameSource``: reads frames on its own thread."""

    def __init__(
        self,
        source: FrameSource,
        on_frame: Callable[[Frame], None] | None = None,
        retry_seconds: float = 2.0,
        max_fps: float = 10.0,
    ) -> None:
        self.source = source
        self.min_interval = 1.0 / max_fps
        self.on_frame = on_frame
        self.overlay: Callable[[np.ndarray, int], np.ndarray] | None = None  # (preview, frame width)
        self.show_overlay = True
        self.referee_figures: dict[str, Any] = {}
        self.retry_seconds = retry_seconds
        self.paused = False
        self.board_found: bool | None = None
        self.last_stable: float | None = None
        self.error: str | None = None
        self._jpeg: bytes | None = None
        self._plain_jpeg: bytes | None = None  # without the overlay, when a page asked for it
        self._plain_asked = float("-inf")
        self.plain_for = PLAIN_WANTED_FOR
        self._frame: Frame | None = None
        self._times: deque[float] = deque(maxlen=30)
        self._encoded_at = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        # told ("lost" or "back", a sentence) when the camera goes away and comes back
        self.on_status: Callable[[str, str], None] | None = None
        self._lost_since: float | None = None
        self._frame_problem: str | None = None  # the last error refereeing a frame (logged once)

    # ------------------------------------------------------------------ life cycle
    def start(self) -> PreviewCamera:
        """Start the camera thread."""
        self._thread = threading.Thread(target=self._run, name="cupboard-camera", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop the thread and release the camera."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.source.close()

    def _run(self) -> None:
        delay = self.retry_seconds
        while not self._stop.is_set():
            try:
                self.source.open()
                self.error = None
                while not self._stop.is_set():
                    started = time.monotonic()
                    self._handle(self.source.read())
                    if self._lost_since is not None:
                        self._back()
                    delay = self.retry_seconds
                    # a rendered or replayed source would otherwise run flat out
                    self._stop.wait(max(0.0, self.min_interval - (time.monotonic() - started)))
            except EndOfStream:
                self.error = "the camera's stream ended"
                return
            except Exception as e:  # the camera thread must not die silently
                self._lost(e if isinstance(e, SourceError) else f"camera failure: {e}",
                           unexpected=not isinstance(e, SourceError))
                try:
                    self.source.close()
                except Exception:
                    log.debug("closing the lost camera", exc_info=True)
                self._stop.wait(delay)
                delay = min(delay * 2, MAX_RETRY)  # a camera that stays away is tried less often

    def _lost(self, problem: object, unexpected: bool = False) -> None:
        """Say once that the camera is lost (the log, the journal through ``on_status``); the
        same problem again while it stays lost is only logged at debug level."""
        message = str(problem)
        if self._lost_since is not None and message == self.error:
            log.debug("camera still lost: %s", message)
            return
        self.error = message
        if unexpected:
            log.exception("camera thread")
        else:
            log.warning("camera: %s (trying again, less and less often)", message)
        if self._lost_since is None:
            self._lost_since = time.time()
            self._notify("lost", f"camera lost: {message}")

    def _back(self) -> None:
        away = time.time() - (self._lost_since or time.time())
        self._lost_since = None
        log.warning("camera: back after %.0f s", away)
        self._notify("back", f"camera back after {away:.0f} s")

    def _notify(self, kind: str, text: str) -> None:
        if self.on_status is None:
            return
        try:
            self.on_status(kind, text)
        except Exception:  # e.g. a full disk: the camera goes on
            log.exception("camera %s not recorded", kind)

    def _handle(self, frame: Frame) -> None:
        now = time.monotonic()
        self._times.append(now)
        self._frame = frame
        if not self.paused and self.on_frame is not None:
            try:
                self.on_frame(frame)
            except Exception as e:  # e.g. a full disk under the referee: the camera is not lost
                if str(e) != self._frame_problem:
                    self._frame_problem = str(e)
                    log.exception("refereeing a frame")
            else:
                self._frame_problem = None
        if now - self._encoded_at >= PREVIEW_EVERY:
            self._encoded_at = now
            self._encode_preview(frame.image, now)

    def _encode_preview(self, full: np.ndarray, now: float) -> None:
        h, w = full.shape[:2]
        if w > PREVIEW_WIDTH:
            image = cv2.resize(full, (PREVIEW_WIDTH, round(h * PREVIEW_WIDTH / w)), interpolation=cv2.INTER_AREA)
        else:
            image = full.copy()  # the overlay must not draw on the frame the referee reads
        drawing = self.overlay is not None and self.show_overlay
        plain = None
        if drawing and now - self._plain_asked < self.plain_for:
            plain = _encode(image)  # before the overlay draws on the image
        if drawing:
            try:
                image = self.overlay(image, w)  # type: ignore[misc]
            except Exception:  # a broken overlay must not stop the preview
                log.exception("preview overlay")
        jpeg = _encode(image)
        if jpeg is not None:
            self._jpeg = jpeg
        # with nothing drawn, the plain preview is the same picture
        self._plain_jpeg = plain if drawing else jpeg

    # ------------------------------------------------------------------ CameraService
    def health(self) -> dict[str, Any]:
        """Frames per second, board found, seconds since the last stable state, problems."""
        times = list(self._times)
        fps = (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 and times[-1] > times[0] else 0.0
        stale = time.monotonic() - times[-1] if times else None
        return {
            "source": getattr(self.source, "name", "camera"),
            "fps": round(fps, 1),
            "seconds_since_frame": None if stale is None else round(stale, 1),
            "board_found": self.board_found,
            "seconds_since_stable": None if self.last_stable is None else round(time.monotonic() - self.last_stable, 1),
            "referee": self.on_frame is not None,
            "overlay": self.overlay is not None and self.show_overlay,
            "error": self.error,
            **self.referee_figures,
        }

    def set_paused(self, paused: bool) -> None:
        """Stop or restart refereeing from frames (the preview goes on)."""
        self.paused = paused

    def latest_frame(self) -> Frame | None:
        """The last frame read (the calibration wizard captures from it), or None."""
        return self._frame

    def preview_jpeg(self, overlay: bool = True) -> bytes | None:
        """The latest downscaled frame as JPEG, with what the referee reads drawn on it unless
        ``overlay`` is False; None before the first frame (and, without the overlay, until
        the next preview is encoded after the first time it is asked for)."""
        if overlay:
            return self._jpeg
        self._plain_asked = time.monotonic()
        return self._plain_jpeg


def _encode(image: np.ndarray) -> bytes | None:
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 70])
    return jpeg.tobytes() if ok else None
