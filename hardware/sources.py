"""Real frame sources behind the one interface in ``hardware.frames``.

- ``WebcamSource``: an OpenCV camera (USB webcam by index or device path) or a network stream.
- ``ImageFolderSource`` / ``VideoFileSource``: replay of recorded pictures or a video file.
- ``Reconnecting``: wraps a live source, reports when it is lost and reopens it when it is back.
- ``open_source(spec)`` builds any of them (and the Pi camera and demo camera) from a string;
  ``auto_source()`` picks the best camera this machine has.
"""

from __future__ import annotations

import collections
import contextlib
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import cv2
import numpy as np

from .frames import CameraLost, EndOfStream, Frame, FrameSource, SourceError, SourceUnavailable
from .picamera import PiCameraSource, attached_pi_cameras

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})
STREAM_SCHEMES = ("rtsp://", "rtsps://", "http://", "https://", "rtmp://", "udp://", "tcp://")
SPEC_HELP = ("a source is one of: picamera, picamera:N, webcam, webcam:N, webcam:/dev/videoN, "
             "an rtsp:// or http:// stream URL, a folder of images, a video file, demo, auto")


@contextlib.contextmanager
def _quiet_opencv() -> Iterator[None]:
    """Silence OpenCV's own warnings while probing devices: we raise a clearer error."""
    log = cv2.utils.logging
    old = log.getLogLevel()
    log.setLogLevel(log.LOG_LEVEL_ERROR)
    try:
        yield
    finally:
        log.setLogLevel(old)


def _as_bgr(image: np.ndarray) -> np.ndarray:
    """Any 8-bit image OpenCV hands back, as 3-channel BGR."""
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    return image


class _Pacer:
    """Sleeps so that replayed frames come out at their recorded pace (when asked to)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._origin: tuple[float, float] | None = None  # (wall clock, frame time) of frame 0

    def reset(self) -> None:
        self._origin = None

    def wait_for(self, timestamp: float) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if self._origin is None:
            self._origin = (now, timestamp)
            return
        due = self._origin[0] + (timestamp - self._origin[1])
        if due > now:
            time.sleep(due - now)


# --------------------------------------------------------------------------- webcam / stream


class WebcamSource(FrameSource):
    """An OpenCV ``VideoCapture`` camera: a device index (0 = /dev/video0), a device path, or a
    stream URL (rtsp://, http:// MJPEG, ...).  Timestamps are ``time.monotonic()`` at capture."""

    def __init__(self, device: int | str = 0, *, size: tuple[int, int] | None = None,
                 timeout_s: float = 5.0, max_failed_reads: int = 5) -> None:
        self.device = device
        self.size = size
        self.timeout_s = timeout_s
        # Webcams often drop a frame or two while starting or adjusting; only a run of
        # failures means the camera is gone.
        self.max_failed_reads = max_failed_reads
        self.name = f"webcam:{device}" if isinstance(device, int) else str(device)
        self._cap: cv2.VideoCapture | None = None
        self._index = 0

    @property
    def is_stream(self) -> bool:
        """True when the device is a network stream URL rather than a local camera."""
        return isinstance(self.device, str) and self.device.lower().startswith(STREAM_SCHEMES)

    def open(self) -> None:
        """Open the device; raises ``SourceUnavailable`` naming it when nothing answers."""
        self.close()
        ms = int(self.timeout_s * 1000)
        params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, ms, cv2.CAP_PROP_READ_TIMEOUT_MSEC, ms]
        with _quiet_opencv():
            cap = cv2.VideoCapture(self.device, cv2.CAP_ANY, params)
        if not cap.isOpened():
            cap.release()
            raise SourceUnavailable(self._unavailable_message())
        if self.size is not None:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        self._cap = cap
        self._index = 0

    def _unavailable_message(self) -> str:
        if isinstance(self.device, int):
            return (f"no camera at index {self.device}: nothing answered at "
                    f"/dev/video{self.device}. Plug in a USB webcam (check with "
                    "`ls /dev/video*`), try another index (webcam:1), or use the Pi camera "
                    "(picamera) or the demo camera (demo)")
        if self.is_stream:
            return (f"cannot open the stream {self.device}: check the address, the network, "
                    "and that the camera is switched on and streaming")
        return f"no camera at {self.device}: the device does not exist or cannot be opened"

    def read(self) -> Frame:
        """The next frame; ``CameraLost`` after ``max_failed_reads`` failures in a row (one,
        for a stream)."""
        if self._cap is None:
            raise CameraLost(f"{self.name} is not open")
        # A stream read already waited timeout_s before failing: one failure is enough.
        tries = 1 if self.is_stream else max(1, self.max_failed_reads)
        for _ in range(tries):
            ok, image = self._cap.read()
            if ok and image is not None:
                frame = Frame(_as_bgr(image), time.monotonic(), self._index)
                self._index += 1
                return frame
        raise CameraLost(f"{self.name} stopped delivering frames")

    def close(self) -> None:
        """Release the device."""
        if self._cap is not None:
            self._cap.release()
            self._cap = None


# --------------------------------------------------------------------------- replay


def _natural_key(path: Path) -> list[object]:
    """Sort key that compares runs of digits by value: frame2 before frame10."""
    return [int(part) if part.isdigit() else part.lower()
            for part in re.split(r"(\d+)", path.name)]


_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def time_from_name(path: Path, unit_s: float = 0.001) -> float:
    """The last number in a file's name times ``unit_s`` (default: the number is in
    milliseconds): ``frame_001500.png`` → 1.5.  Raises ``SourceUnavailable`` when the name
    has no number."""
    numbers = _NUMBER.findall(path.stem)
    if not numbers:
        raise SourceUnavailable(f"{path}: no number in the file name to take a timestamp from")
    return float(numbers[-1]) * unit_s


class ImageFolderSource(FrameSource):
    """Replay of the images in a folder (PNG, JPEG, BMP, TIFF, WebP), in name order with
    numbers compared by value.  Timestamps are ``index / fps``, or with ``times_from_names``
    the last number in each file name times ``name_time_unit_s`` (files are then ordered by
    that time).  With ``loop`` it starts over, timestamps carrying on; otherwise it raises
    ``EndOfStream``.  ``realtime`` paces frames at their timestamps instead of at once.
    ``path`` may also be a single image file, replayed as a one-frame folder."""

    def __init__(self, path: str | Path, *, fps: float = 10.0, times_from_names: bool = False,
                 name_time_unit_s: float = 0.001, loop: bool = False,
                 realtime: bool = False) -> None:
        if fps <= 0:
            raise ValueError("fps must be positive")
        self.path = Path(path)
        self.fps = fps
        self.times_from_names = times_from_names
        self.name_time_unit_s = name_time_unit_s
        self.loop = loop
        self.name = str(self.path)
        self._pacer = _Pacer(realtime)
        self._files: list[Path] = []
        self._times: list[float] = []
        self._pos = 0
        self._index = 0
        self._offset = 0.0
        self._open = False

    def _list(self) -> list[Path]:
        if self.path.is_file():
            return [self.path]
        if not self.path.is_dir():
            raise SourceUnavailable(f"no such folder: {self.path}")
        files = [p for p in self.path.iterdir()
                 if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES]
        if not files:
            raise SourceUnavailable(
                f"no images in {self.path}: expected {', '.join(sorted(IMAGE_SUFFIXES))} files")
        return sorted(files, key=_natural_key)

    def open(self) -> None:
        """List the folder; raises ``SourceUnavailable`` when it is missing or has no images."""
        files = self._list()
        if self.times_from_names:
            timed = sorted(((time_from_name(p, self.name_time_unit_s), _natural_key(p), p)
                            for p in files), key=lambda t: (t[0], t[1]))
            self._times = [t for t, _, _ in timed]
            self._files = [p for _, _, p in timed]
        else:
            self._files = files
            self._times = [i / self.fps for i in range(len(files))]
        self._pos = self._index = 0
        self._offset = 0.0
        self._pacer.reset()
        self._open = True

    @property
    def frame_count(self) -> int:
        """How many images one pass replays (0 before ``open``)."""
        return len(self._files)

    def read(self) -> Frame:
        """The next image; ``CameraLost`` if it cannot be read (deleted, corrupt)."""
        if not self._open:
            raise CameraLost(f"{self.name} is not open")
        if self._pos >= len(self._files):
            if not self.loop:
                raise EndOfStream(f"end of {self.name} after {self._index} frames")
            self._offset += self._times[-1] - self._times[0] + 1.0 / self.fps
            self._pos = 0
        path = self._files[self._pos]
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise CameraLost(f"cannot read image {path}: it was removed or is not a readable image")
        timestamp = self._times[self._pos] + self._offset
        self._pacer.wait_for(timestamp)
        frame = Frame(image, timestamp, self._index)
        self._pos += 1
        self._index += 1
        return frame

    def close(self) -> None:
        """Forget the listing; ``open`` lists the folder again."""
        self._open = False
        self._files, self._times = [], []


class VideoFileSource(FrameSource):
    """Replay of a video file through OpenCV (FFmpeg): timestamps are the file's own
    (``CAP_PROP_POS_MSEC``).  With ``loop`` it starts over, timestamps carrying on; otherwise
    it raises ``EndOfStream``.  ``realtime`` paces frames at their timestamps."""

    def __init__(self, path: str | Path, *, loop: bool = False, realtime: bool = False) -> None:
        self.path = Path(path)
        self.loop = loop
        self.name = str(self.path)
        self._pacer = _Pacer(realtime)
        self._cap: cv2.VideoCapture | None = None
        self._pending: np.ndarray | None = None  # first frame, read by open() as a check
        self._index = 0
        self._pass_frames = 0
        self._offset = 0.0
        self._last = 0.0
        self._period = 1 / 30

    def _start(self) -> None:
        with _quiet_opencv():
            cap = cv2.VideoCapture(str(self.path))
        if not cap.isOpened():
            cap.release()
            raise SourceUnavailable(f"cannot read the video {self.path}: not a format OpenCV "
                                    "can decode (MJPG .avi and H.264 .mp4 work)")
        ok, image = cap.read()
        if not ok or image is None:
            cap.release()
            raise SourceUnavailable(f"the video {self.path} has no frames OpenCV can decode")
        fps = cap.get(cv2.CAP_PROP_FPS)
        self._period = 1.0 / fps if fps and fps > 0 else 1 / 30
        self._cap, self._pending, self._pass_frames = cap, image, 0

    def open(self) -> None:
        """Open the file; raises ``SourceUnavailable`` when missing or undecodable."""
        self.close()
        if not self.path.is_file():
            raise SourceUnavailable(f"no such video file: {self.path}")
        self._start()
        self._index, self._offset, self._last = 0, 0.0, 0.0
        self._pacer.reset()

    def _next_image(self) -> np.ndarray | None:
        assert self._cap is not None
        if self._pending is not None:
            image, self._pending = self._pending, None
            return image
        ok, image = self._cap.read()
        return image if ok else None

    def read(self) -> Frame:
        """The next frame of the file."""
        if self._cap is None:
            raise CameraLost(f"{self.name} is not open")
        image = self._next_image()
        if image is None:
            if not (self.loop and self._pass_frames):
                raise EndOfStream(f"end of {self.name} after {self._index} frames")
            self._cap.release()
            self._offset = self._last + self._period
            try:
                self._start()
            except SourceUnavailable as exc:
                raise CameraLost(str(exc)) from exc
            image = self._next_image()
            assert image is not None
        pos = self._cap.get(cv2.CAP_PROP_POS_MSEC) / 1000.0 + self._offset
        # Some containers report no position; fall back to the nominal frame rate.
        timestamp = pos if self._index == 0 or pos > self._last else self._last + self._period
        self._pacer.wait_for(timestamp)
        frame = Frame(_as_bgr(image), timestamp, self._index)
        self._last = timestamp
        self._index += 1
        self._pass_frames += 1
        return frame

    def close(self) -> None:
        """Release the file."""
        if self._cap is not None:
            self._cap.release()
            self._cap = None
        self._pending = None


# --------------------------------------------------------------------------- reconnecting


@dataclass(frozen=True)
class SourceEvent:
    """Something that happened to a watched source: ``kind`` is "lost" or "back", ``at`` is
    wall-clock time (``time.time()``), ``message`` is for the user."""

    kind: str
    at: float
    message: str


def _clock(at: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(at))


class Reconnecting(FrameSource):
    """Keeps a live source going.  When ``read`` meets ``CameraLost`` it records a "lost"
    event, sets ``status`` to "lost" and keeps calling the source's ``open`` with back-off
    (``first_delay_s`` doubling up to ``max_delay_s``) until it works, then records "back"
    and carries on reading — the caller just sees a pause.  ``read`` raises ``CameraLost``
    only after ``give_up_after_s`` (if set) or when ``stop``/``close`` is called from another
    thread.  ``EndOfStream`` passes through: a finished replay is not a lost camera.

    ``status`` is "closed", "live" or "lost"; ``events`` keeps the latest events;
    ``last_error`` is the most recent failure message; ``on_event`` is called for each event.
    Frame indices count on across reconnections; timestamps are the source's."""

    def __init__(self, source: FrameSource, *, first_delay_s: float = 0.5,
                 max_delay_s: float = 10.0, give_up_after_s: float | None = None,
                 on_event: Callable[[SourceEvent], None] | None = None,
                 history: int = 100) -> None:
        self.source = source
        self.name = source.name
        self.first_delay_s = first_delay_s
        self.max_delay_s = max_delay_s
        self.give_up_after_s = give_up_after_s
        self.on_event = on_event
        self.status = "closed"
        self.events: collections.deque[SourceEvent] = collections.deque(maxlen=history)
        self.last_error = ""
        self.attempts = 0
        self._stop = threading.Event()
        self._lost_since = 0.0
        self._index = 0

    def open(self) -> None:
        """Open the wrapped source (``SourceUnavailable`` passes through: at start the user
        should hear that there is no camera)."""
        self._stop.clear()
        self.source.open()
        self.status = "live"
        self._index = 0

    def read(self) -> Frame:
        """The next frame, waiting through disconnections."""
        while True:
            if self._stop.is_set():
                raise CameraLost(f"{self.name} was stopped")
            if self.status == "lost":
                self._reconnect()
            try:
                frame = self.source.read()
            except CameraLost as exc:
                self._record_lost(str(exc))
                continue
            out = Frame(frame.image, frame.timestamp, self._index)
            self._index += 1
            return out

    def _emit(self, kind: str, detail: str) -> None:
        at = time.time()
        event = SourceEvent(kind, at, f"camera {kind} at {_clock(at)}{detail}")
        self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)

    def _record_lost(self, reason: str) -> None:
        self.status = "lost"
        self.last_error = reason
        self.attempts = 0
        self._lost_since = time.monotonic()
        with contextlib.suppress(SourceError):
            self.source.close()
        self._emit("lost", f": {reason}")

    def _reconnect(self) -> None:
        delay = 0.0  # the first attempt is immediate: many drop-outs are a brief glitch
        while True:
            if self._stop.wait(delay):
                raise CameraLost(f"{self.name} was stopped while waiting for the camera")
            self.attempts += 1
            try:
                self.source.open()
            except SourceError as exc:
                self.last_error = str(exc)
            else:
                self.status = "live"
                away = time.monotonic() - self._lost_since
                self._emit("back", f" after {away:.1f} s")
                return
            waited = time.monotonic() - self._lost_since
            if self.give_up_after_s is not None and waited >= self.give_up_after_s:
                raise CameraLost(f"{self.name} did not come back within "
                                 f"{self.give_up_after_s:g} s: {self.last_error}")
            delay = min(self.max_delay_s, max(self.first_delay_s, delay * 2))

    def stop(self) -> None:
        """Make a waiting or later ``read`` raise ``CameraLost``.  Safe from any thread (a
        server shutting down); the thread that reads then calls ``close``."""
        self._stop.set()

    def close(self) -> None:
        """Stop waiting and close the wrapped source."""
        self._stop.set()
        self.source.close()
        self.status = "closed"


# --------------------------------------------------------------------------- factory


def demo_source() -> FrameSource:
    """The synthetic demo camera (``hardware.synthetic.SyntheticCamera``)."""
    try:
        from .synthetic import SyntheticCamera
    except ImportError as exc:
        raise SourceUnavailable(
            f"the demo camera is not available: hardware.synthetic.SyntheticCamera "
            f"could not be imported ({exc})") from exc
    return SyntheticCamera()


def open_source(spec: str, *, loop: bool = False, fps: float = 10.0,
                realtime: bool = False) -> FrameSource:
    """Build a frame source from a spec string (not yet opened):

    ``picamera`` / ``picamera:N`` — Raspberry Pi camera N (default 0);
    ``webcam`` / ``webcam:N`` / ``webcam:/dev/videoN`` — an OpenCV camera;
    ``rtsp://…``, ``http(s)://…``, ``rtmp://``, ``udp://``, ``tcp://`` — a network stream;
    a folder — replay of its images at ``fps``; an image file — that one picture;
    any other file — replay of a video; ``demo`` / ``synthetic`` — the synthetic camera;
    ``auto`` — ``auto_source()``.  ``loop`` and ``realtime`` apply to replays.
    Raises ``SourceUnavailable`` for a spec that names nothing usable."""
    text = spec.strip()
    if not text:
        raise SourceUnavailable(f"empty source: {SPEC_HELP}")
    kind, _, arg = text.partition(":")
    kind = kind.lower()
    if kind == "picamera":
        return PiCameraSource(_number(arg, spec) if arg else 0)
    if kind == "webcam":
        if not arg:
            return WebcamSource(0)
        return WebcamSource(_number(arg, spec) if arg.isdigit() else arg)
    if text.lower().startswith(STREAM_SCHEMES):
        return WebcamSource(text)
    if text.lower() in ("demo", "synthetic"):
        return demo_source()
    if text.lower() == "auto":
        return auto_source()
    path = Path(text).expanduser()
    if path.is_dir() or (path.is_file() and path.suffix.lower() in IMAGE_SUFFIXES):
        return ImageFolderSource(path, fps=fps, loop=loop, realtime=realtime)
    if path.is_file():
        return VideoFileSource(path, loop=loop, realtime=realtime)
    raise SourceUnavailable(f"no such file or folder: {text} ({SPEC_HELP})")


def _number(arg: str, spec: str) -> int:
    if not arg.isdigit():
        raise SourceUnavailable(f"bad source {spec!r}: expected a camera number after ':'")
    return int(arg)


def auto_source() -> FrameSource:
    """The best camera here, not yet opened: the first Raspberry Pi camera if one is
    attached, else webcam 0 if it opens, else the demo camera."""
    cameras = attached_pi_cameras()
    if cameras:
        return PiCameraSource(int(cameras[0].get("Num", 0)))
    webcam = WebcamSource(0)
    try:
        webcam.open()
    except SourceUnavailable:
        return demo_source()
    webcam.close()
    return webcam
