"""A fake ``picamera2`` for tests: the subset of Picamera2's API cupboard uses, over a
simulated sensor.

Mirrored from the real library: ``Picamera2(camera_num)``, the static
``global_camera_info()`` (dicts with Model, Location, Rotation, Id, Num),
``create_video_configuration`` / ``create_still_configuration(main={"size", "format"})``,
``configure``, ``start``, ``stop``, ``close``, ``capture_array(name, wait)``,
``capture_metadata(wait)``, ``set_controls`` (which rejects controls the camera does not
advertise, as the real one does) and ``camera_controls`` (name → (min, max, default)).
Pixel formats follow the Picamera2 manual: "RGB888" arrays are [B, G, R] per pixel,
"BGR888" are [R, G, B], "XBGR8888" are [R, G, B, 255], "XRGB8888" are [B, G, R, 255].
A numeric ``wait`` is a timeout: an unplugged camera raises ``TimeoutError``.

Test controls (not part of the real API): ``reset(*sensors)`` sets which cameras are
attached, ``FakeSensor`` describes one (what it sees, how bright, plugged in or not: an
unplugged camera stops delivering and vanishes from ``global_camera_info``), and
``opened`` lists every ``Picamera2`` made since the last reset.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Picamera2", "FakeSensor", "reset", "opened"]

# Exposure time x analogue gain (in microseconds) that exposes a scene of 1 lux "correctly";
# a scene of L lux needs EXPOSURE_AT_1_LUX / L.
EXPOSURE_AT_1_LUX = 8_000_000.0
MAX_EXPOSURE_US = 33_000
AWB_TARGET = (1.9, 1.5)
AUTOFOCUS_MODELS = {"imx708", "imx708_wide", "imx708_noir", "imx708_wide_noir"}
FORMATS = {"RGB888": (2, 1, 0, None), "BGR888": (0, 1, 2, None),
           "XRGB8888": (2, 1, 0, 255), "XBGR8888": (0, 1, 2, 255)}  # indices into (R, G, B)


@dataclass
class FakeSensor:
    """One attached camera module and the scene in front of it."""

    model: str = "imx708"
    id: str = "/base/axi/pcie@120000/rp1/i2c@88000/imx708@1a"
    scene_rgb: tuple[int, int, int] = (200, 40, 30)
    lux: float = 400.0
    distance_mm: float = 500.0
    plugged: bool = True
    busy: bool = False
    pixel_array: tuple[int, int] = (4608, 2592)

    @property
    def has_autofocus(self) -> bool:
        return self.model in AUTOFOCUS_MODELS


_sensors: list[FakeSensor] = []
opened: list["Picamera2"] = []


def reset(*sensors: FakeSensor) -> None:
    """Attach exactly these cameras (none: no camera) and forget cameras made so far."""
    _sensors[:] = list(sensors)
    opened.clear()


def _present() -> list[FakeSensor]:
    """The cameras libcamera can see: an unplugged one disappears from the list."""
    return [s for s in _sensors if s.plugged]


def _controls_for(sensor: FakeSensor) -> dict[str, tuple[Any, Any, Any]]:
    controls: dict[str, tuple[Any, Any, Any]] = {
        "AeEnable": (False, True, True),
        "AwbEnable": (False, True, True),
        "ExposureTime": (26, 220_000_000, 20_000),
        "AnalogueGain": (1.0, 16.0, 1.0),
        "ColourGains": (0.0, 32.0, None),
        "Brightness": (-1.0, 1.0, 0.0),
        "FrameDurationLimits": (33_333, 120_000_000, 33_333),
    }
    if sensor.has_autofocus:
        controls.update({"AfMode": (0, 2, 0), "AfTrigger": (0, 1, 0),
                         "LensPosition": (0.0, 15.0, 1.0)})
    return controls


class Picamera2:
    """The fake camera object."""

    @staticmethod
    def global_camera_info() -> list[dict[str, Any]]:
        """Id, Model, Location, Rotation and Num of every attached camera."""
        return [{"Model": s.model, "Location": 2, "Rotation": 180, "Id": s.id, "Num": i}
                for i, s in enumerate(_present())]

    def __init__(self, camera_num: int = 0, verbose_console: Any = None, tuning: Any = None,
                 allocator: Any = None) -> None:
        present = _present()
        if camera_num >= len(present):
            raise IndexError("list index out of range")
        sensor = present[camera_num]
        if sensor.busy:
            raise RuntimeError("Failed to acquire camera: Device or resource busy")
        self.sensor = sensor
        self.camera_idx = camera_num
        self.camera_controls = _controls_for(sensor)
        self.camera_properties = {"Model": sensor.model, "PixelArraySize": sensor.pixel_array}
        self.camera_config: dict[str, Any] | None = None
        self.started = False
        self.is_open = True
        self.controls: dict[str, Any] = {"AeEnable": True, "AwbEnable": True, "AfMode": 0}
        self.control_log: list[dict[str, Any]] = []
        self.frames = 0
        self._exposure, self._gain = 5_000.0, 1.0  # far from settled: AE has work to do
        self._colour_gains = (1.0, 1.0)
        self._lens = 1.0
        opened.append(self)

    # -- configuration -------------------------------------------------------------------

    def create_video_configuration(self, main: dict | None = None, lores: dict | None = None,
                                   raw: dict | None = None, transform: Any = None,
                                   colour_space: Any = None, buffer_count: int = 6,
                                   controls: dict | None = None, display: str | None = "main",
                                   encode: str | None = "main", queue: bool = True,
                                   sensor: dict | None = None,
                                   use_case: str = "video") -> dict[str, Any]:
        """A video configuration: 1280x720 XBGR8888 unless ``main`` says otherwise."""
        return self._config(use_case, {"format": "XBGR8888", "size": (1280, 720)}, main,
                            buffer_count, controls)

    def create_still_configuration(self, main: dict | None = None, lores: dict | None = None,
                                   raw: dict | None = None, transform: Any = None,
                                   colour_space: Any = None, buffer_count: int = 1,
                                   controls: dict | None = None, display: str | None = None,
                                   encode: str | None = None, queue: bool = True,
                                   sensor: dict | None = None,
                                   use_case: str = "still") -> dict[str, Any]:
        """A still configuration: full sensor size BGR888 unless ``main`` says otherwise."""
        return self._config(use_case, {"format": "BGR888", "size": self.sensor.pixel_array},
                            main, buffer_count, controls)

    def _config(self, use_case: str, default_main: dict, main: dict | None, buffer_count: int,
                controls: dict | None) -> dict[str, Any]:
        return {"use_case": use_case, "main": {**default_main, **(main or {})},
                "buffer_count": buffer_count, "controls": dict(controls or {})}

    def configure(self, camera_config: dict[str, Any] | None = None) -> None:
        """Apply a configuration (the camera must be open and stopped)."""
        self._check_open()
        if self.started:
            raise RuntimeError("Camera must be stopped before configuring")
        if camera_config is None:
            camera_config = self.create_video_configuration()
        fmt = camera_config["main"]["format"]
        if fmt not in FORMATS:
            raise ValueError(f"fake picamera2 does not render format {fmt}")
        self.camera_config = camera_config
        if camera_config.get("controls"):
            self.set_controls(camera_config["controls"])

    def start(self, config: dict[str, Any] | None = None, show_preview: bool = False) -> None:
        """Start streaming."""
        self._check_open()
        if config is not None:
            self.configure(config)
        if self.camera_config is None:
            raise RuntimeError("Camera has not been configured")
        self.started = True

    def stop(self) -> None:
        """Stop streaming."""
        self.started = False

    def close(self) -> None:
        """Release the camera."""
        self.stop()
        self.is_open = False

    def _check_open(self) -> None:
        if not self.is_open:
            raise RuntimeError("Camera is not open")

    # -- controls ------------------------------------------------------------------------

    def set_controls(self, controls: dict[str, Any]) -> None:
        """Set controls; unknown names raise as in the real library."""
        for name in controls:
            if name not in self.camera_controls:
                raise RuntimeError(f"Control {name} is not advertised by libcamera")
        self.controls.update(controls)
        self.control_log.append(dict(controls))

    # -- capture -------------------------------------------------------------------------

    def capture_metadata(self, wait: Any = None, signal_function: Any = None) -> dict[str, Any]:
        """Metadata of the next frame."""
        self._next_frame(wait)
        return self._metadata()

    def capture_array(self, name: str = "main", wait: Any = None,
                      signal_function: Any = None) -> np.ndarray:
        """The next frame of stream ``name`` as an array in the configured format."""
        if name != "main":
            raise RuntimeError(f"fake picamera2 has no {name!r} stream")
        self._next_frame(wait)
        return self._image()

    def _next_frame(self, wait: Any) -> None:
        self._check_open()
        if not self.started:
            raise RuntimeError("fake picamera2: camera not started (the real one would hang)")
        if not self.sensor.plugged:
            if isinstance(wait, (int, float)) and not isinstance(wait, bool):
                raise TimeoutError()
            raise RuntimeError("fake picamera2: an unplugged camera would block forever")
        self.frames += 1
        self._run_3a()

    def _run_3a(self) -> None:
        c = self.controls
        target = EXPOSURE_AT_1_LUX / self.sensor.lux
        if c.get("AeEnable", True):
            total = self._exposure * self._gain
            total += 0.5 * (target - total)
            self._exposure = min(total, MAX_EXPOSURE_US)
            self._gain = total / self._exposure
        else:
            self._exposure = float(c.get("ExposureTime", self._exposure))
            self._gain = float(c.get("AnalogueGain", self._gain))
        if c.get("AwbEnable", True):
            r, b = self._colour_gains
            self._colour_gains = (r + 0.5 * (AWB_TARGET[0] - r), b + 0.5 * (AWB_TARGET[1] - b))
        elif "ColourGains" in c:
            self._colour_gains = tuple(c["ColourGains"])
        if self.sensor.has_autofocus:
            if c.get("AfMode") == 2:
                self._lens += 0.5 * (1000.0 / self.sensor.distance_mm - self._lens)
            elif "LensPosition" in c:
                self._lens = float(c["LensPosition"])

    def _metadata(self) -> dict[str, Any]:
        target = EXPOSURE_AT_1_LUX / self.sensor.lux
        total = self._exposure * self._gain
        md: dict[str, Any] = {
            "SensorTimestamp": self.frames * 33_333_000,
            "FrameDuration": 33_333,
            "ExposureTime": int(round(self._exposure)),
            "AnalogueGain": self._gain,
            "DigitalGain": 1.0,
            "ColourGains": self._colour_gains,
            "Lux": self.sensor.lux,
            "AeLocked": abs(total - target) / target < 0.02,
        }
        if self.sensor.has_autofocus:
            md["LensPosition"] = self._lens
            in_focus = abs(self._lens - 1000.0 / self.sensor.distance_mm) < 0.05
            md["AfState"] = 2 if in_focus else 1
        return md

    def _image(self) -> np.ndarray:
        assert self.camera_config is not None
        width, height = self.camera_config["main"]["size"]
        order = FORMATS[self.camera_config["main"]["format"]]
        brightness = self._exposure * self._gain * self.sensor.lux / EXPOSURE_AT_1_LUX
        rgb = np.clip(np.array(self.sensor.scene_rgb, dtype=np.float64) * brightness, 0, 255)
        pixel = [rgb[i] for i in order[:3]] + ([order[3]] if order[3] is not None else [])
        return np.full((height, width, len(pixel)), np.round(pixel), dtype=np.uint8)
