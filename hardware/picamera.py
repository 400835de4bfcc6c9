"""The Raspberry Pi camera through Picamera2, as a ``FrameSource``.

``picamera2`` only exists on a Raspberry Pi (it needs libcamera), so it is imported when a
camera is opened, never at module import.  After starting, the camera's automatic exposure,
white balance and (on modules that have it) autofocus are left to settle for a moment and
then locked, so the colours and brightness of the pieces stay put for the whole game.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from .frames import CameraLost, Frame, FrameSource, SourceUnavailable

INSTALL_HINT = (
    "picamera2 is not installed: on a Raspberry Pi run `sudo apt install python3-picamera2` "
    "(in a virtualenv, create it with `python3 -m venv --system-site-packages`); on other "
    "machines use a webcam (webcam:0), a recording (a folder or video file) or the demo camera")

# Picamera2's "RGB888" arrays hold each pixel as [B, G, R] (the manual's table of formats),
# which is OpenCV's order: frames need no conversion.
PIXEL_FORMAT = "RGB888"

# libcamera's AfModeEnum values.
AF_MODE_MANUAL = 0
AF_MODE_CONTINUOUS = 2
AF_STATE_FOCUSED = 2
AE_STATE_CONVERGED = 2  # newer libcamera reports AeState instead of AeLocked


@dataclass(frozen=True)
class PiCameraSettings:
    """How to run the Pi camera.  ``size`` is (width, height) of the frames (default: 1280
    wide with the sensor's own aspect ratio, so no field of view is cropped away); ``still`` uses
    Picamera2's still configuration instead of the video one; the camera is given up to
    ``settle_frames`` frames (at least ``min_settle_frames``) for auto exposure, white
    balance and focus to settle before they are locked.  ``focus_mm``, when set, focuses at
    that distance instead of trusting autofocus.  ``timeout_s`` is how long a frame may take
    before the camera counts as lost."""

    size: tuple[int, int] | None = None
    still: bool = False
    settle_frames: int = 30
    min_settle_frames: int = 5
    lock_exposure: bool = True
    lock_white_balance: bool = True
    lock_focus: bool = True
    focus_mm: float | None = None
    timeout_s: float = 2.0


def load_picamera2() -> Any:
    """The ``Picamera2`` class; ``SourceUnavailable`` with install advice when missing."""
    try:
        from picamera2 import Picamera2
    except (ImportError, OSError) as exc:
        raise SourceUnavailable(INSTALL_HINT) from exc
    return Picamera2


def attached_pi_cameras() -> list[dict[str, Any]]:
    """The camera modules on the Pi's camera connectors (USB cameras left out: they are
    webcams), as Picamera2 describes them; empty when picamera2 is missing."""
    try:
        picamera2 = load_picamera2()
        cameras = picamera2.global_camera_info()
    except Exception:  # no library, no libcamera daemon...: simply no Pi camera here
        return []
    return [c for c in cameras if "/usb" not in str(c.get("Id", ""))]


def _full_view_size(cam: Any, width: int = 1280) -> tuple[int, int]:
    """1280 wide at the sensor's aspect ratio, height a multiple of 16 (Module 3: 1280x720,
    Module 2 and HQ: 1280x960)."""
    sensor = cam.camera_properties.get("PixelArraySize") or (16, 9)
    return width, max(16, round(width * sensor[1] / sensor[0] / 16) * 16)


def _exposure_settled(metadata: dict[str, Any]) -> bool:
    return bool(metadata.get("AeLocked")) or metadata.get("AeState") == AE_STATE_CONVERGED


class PiCameraSource(FrameSource):
    """Raspberry Pi camera ``camera_num`` (as numbered by ``Picamera2.global_camera_info``).
    Timestamps are ``time.monotonic()`` at capture.  ``locked`` holds the controls that were
    fixed after settling (exposure time, gains, colour gains, lens position)."""

    def __init__(self, camera_num: int = 0, settings: PiCameraSettings | None = None) -> None:
        self.camera_num = camera_num
        self.settings = settings or PiCameraSettings()
        self.name = f"picamera:{camera_num}"
        self.model = ""
        self.size: tuple[int, ...] = ()
        self.locked: dict[str, Any] = {}
        self._cam: Any = None
        self._index = 0

    def open(self) -> None:
        """Start the camera and lock its automatic controls once they have settled."""
        self.close()
        picamera2 = load_picamera2()
        cameras = picamera2.global_camera_info()
        if not cameras:
            raise SourceUnavailable(
                "no Raspberry Pi camera is attached: check the ribbon cable (contacts facing "
                "the right way, latch closed) and that `rpicam-hello --list-cameras` lists it")
        if not 0 <= self.camera_num < len(cameras):
            found = ", ".join(f"{i}: {c.get('Model', '?')}" for i, c in enumerate(cameras))
            raise SourceUnavailable(f"no camera number {self.camera_num}: found {found}")
        self.model = str(cameras[self.camera_num].get("Model", ""))
        try:
            cam = picamera2(self.camera_num)
        except (RuntimeError, IndexError, OSError) as exc:
            raise SourceUnavailable(
                f"camera {self.camera_num} ({self.model}) could not be opened ({exc}): is "
                "another program (rpicam-*, another cupboard) using it?") from exc
        try:
            self._start(cam)
        except (RuntimeError, TimeoutError, ValueError) as exc:
            with contextlib.suppress(Exception):
                cam.close()
            reason = str(exc) or "no frames arrived"
            raise SourceUnavailable(
                f"camera {self.camera_num} ({self.model}) failed to start: {reason}") from exc
        self._cam = cam
        self._index = 0

    def _start(self, cam: Any) -> None:
        s = self.settings
        self.size = tuple(s.size) if s.size else _full_view_size(cam)
        main = {"size": self.size, "format": PIXEL_FORMAT}
        make = cam.create_still_configuration if s.still else cam.create_video_configuration
        cam.configure(make(main=main))
        cam.start()
        self.locked = self._settle_and_lock(cam)

    def _settle_and_lock(self, cam: Any) -> dict[str, Any]:
        s = self.settings
        available = cam.camera_controls
        has_af = "AfMode" in available and "LensPosition" in available
        autofocus = has_af and s.lock_focus and s.focus_mm is None
        if autofocus:
            cam.set_controls({"AfMode": AF_MODE_CONTINUOUS})
        metadata: dict[str, Any] = {}
        for n in range(1, max(1, s.settle_frames) + 1):
            metadata = cam.capture_metadata(wait=s.timeout_s)
            focused = not autofocus or metadata.get("AfState") == AF_STATE_FOCUSED
            if n >= s.min_settle_frames and _exposure_settled(metadata) and focused:
                break
        lock: dict[str, Any] = {}
        if s.lock_exposure and "AeEnable" in available:
            lock["AeEnable"] = False
            lock.update({k: metadata[k] for k in ("ExposureTime", "AnalogueGain")
                         if k in metadata and k in available})
        if s.lock_white_balance and "AwbEnable" in available:
            lock["AwbEnable"] = False
            if "ColourGains" in metadata and "ColourGains" in available:
                lock["ColourGains"] = tuple(metadata["ColourGains"])
        if has_af and s.lock_focus:
            lock["AfMode"] = AF_MODE_MANUAL
            if s.focus_mm is not None:
                lock["LensPosition"] = 1000.0 / s.focus_mm  # dioptres: 1 / distance in metres
            elif "LensPosition" in metadata:
                lock["LensPosition"] = metadata["LensPosition"]
        if lock:
            cam.set_controls(lock)
        return lock

    def read(self) -> Frame:
        """The next frame; ``CameraLost`` when none arrives within ``timeout_s``."""
        if self._cam is None:
            raise CameraLost(f"{self.name} is not open")
        try:
            image = self._cam.capture_array("main", wait=self.settings.timeout_s)
        except (TimeoutError, RuntimeError) as exc:
            reason = str(exc) or "timed out"
            raise CameraLost(f"{self.name} stopped delivering frames ({reason})") from exc
        if image.ndim == 3 and image.shape[2] == 4:  # an XRGB8888 stream: drop the padding
            image = image[:, :, :3]
        frame = Frame(np.ascontiguousarray(image), time.monotonic(), self._index)
        self._index += 1
        return frame

    def close(self) -> None:
        """Stop and release the camera."""
        cam, self._cam = self._cam, None
        if cam is None:
            return
        # A camera that vanished may fail to stop; closing it still matters.
        with contextlib.suppress(Exception):
            cam.stop()
        with contextlib.suppress(Exception):
            cam.close()
