"""The Raspberry Pi camera source, against the fake picamera2 in tests/fake_picamera2/ (the
one place a fake stands in: the real library needs a Pi and a camera module)."""

from __future__ import annotations

import importlib
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from hardware.frames import CameraLost, SourceUnavailable
from hardware.picamera import PiCameraSettings, PiCameraSource, attached_pi_cameras
from hardware.sources import Reconnecting, auto_source, open_source

FAKE_DIR = Path(__file__).parent / "fake_picamera2"
SMALL = PiCameraSettings(size=(64, 48))


@pytest.fixture
def fake(monkeypatch):
    """The fake picamera2 module, importable as ``picamera2`` for the duration of a test."""
    monkeypatch.syspath_prepend(str(FAKE_DIR))
    monkeypatch.delitem(sys.modules, "picamera2", raising=False)
    module = importlib.import_module("picamera2")
    monkeypatch.setitem(sys.modules, "picamera2", module)
    module.reset(module.FakeSensor())
    return module


def test_missing_picamera2_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)  # makes `import picamera2` fail
    with pytest.raises(SourceUnavailable, match="sudo apt install python3-picamera2"):
        PiCameraSource().open()
    assert attached_pi_cameras() == []


def test_no_camera_attached(fake):
    fake.reset()
    with pytest.raises(SourceUnavailable, match="no Raspberry Pi camera is attached"):
        PiCameraSource().open()


def test_camera_number_out_of_range_lists_what_is_there(fake):
    with pytest.raises(SourceUnavailable, match=r"no camera number 1: found 0: imx708"):
        PiCameraSource(1).open()


def test_busy_camera_is_unavailable_not_a_crash(fake):
    fake.reset(fake.FakeSensor(busy=True))
    with pytest.raises(SourceUnavailable, match="another program"):
        PiCameraSource().open()


def test_frames_are_bgr_uint8_at_the_requested_size(fake):
    with PiCameraSource(settings=SMALL) as cam:
        frames = [cam.read() for _ in range(3)]
    config = fake.opened[-1].camera_config
    assert config["use_case"] == "video"
    assert config["main"] == {"format": "RGB888", "size": (64, 48)}
    image = frames[0].image
    assert image.shape == (48, 64, 3) and image.dtype == np.uint8
    b, g, r = (int(v) for v in image[10, 10])
    assert r > 150 and r > g + 100 and r > b + 100  # the scene is red: red lands in channel 2
    assert [f.index for f in frames] == [0, 1, 2]
    assert frames[0].timestamp < frames[1].timestamp < frames[2].timestamp


def test_exposure_white_balance_and_focus_lock_once_settled(fake):
    sensor = fake.FakeSensor(lux=400.0, distance_mm=500.0)
    fake.reset(sensor)
    cam = PiCameraSource(settings=SMALL)
    cam.open()
    picam = fake.opened[-1]
    assert picam.control_log[0] == {"AfMode": 2}  # autofocus runs while settling
    locked = picam.control_log[-1]
    assert locked == cam.locked
    assert locked["AeEnable"] is False and locked["AwbEnable"] is False
    assert locked["ExposureTime"] == pytest.approx(20_000, rel=0.03)  # what AE settled on
    assert locked["ColourGains"] == pytest.approx((1.9, 1.5), rel=0.05)
    assert locked["AfMode"] == 0 and locked["LensPosition"] == pytest.approx(2.0, abs=0.05)
    before = cam.read().image.astype(int)

    sensor.lux = 200.0  # a cloud passes: a locked camera must not chase it
    for _ in range(10):
        after = cam.read().image.astype(int)
    assert picam.capture_metadata(wait=1.0)["ExposureTime"] == locked["ExposureTime"]
    assert after[0, 0, 2] == pytest.approx(before[0, 0, 2] / 2, abs=2)
    cam.close()


def test_default_size_keeps_the_sensors_whole_view(fake):
    v2 = fake.FakeSensor(model="imx219", id="/base/soc/i2c0mux/i2c@1/imx219@10",
                         pixel_array=(3280, 2464))
    fake.reset(fake.FakeSensor(), v2)
    with PiCameraSource(0) as module3, PiCameraSource(1) as module2:
        assert module3.read().image.shape == (720, 1280, 3)  # 16:9 sensor
        assert module2.read().image.shape == (960, 1280, 3)  # 4:3 sensor


def test_camera_without_autofocus_gets_no_focus_controls(fake):
    fake.reset(fake.FakeSensor(model="imx219", id="/base/soc/i2c0mux/i2c@1/imx219@10"))
    with PiCameraSource(settings=SMALL) as cam:
        cam.read()
    assert "AfMode" not in cam.locked and "LensPosition" not in cam.locked
    assert cam.locked["AeEnable"] is False


def test_fixed_focus_distance_sets_lens_position_in_dioptres(fake):
    with PiCameraSource(settings=PiCameraSettings(size=(64, 48), focus_mm=400.0)) as cam:
        cam.read()
    assert {"AfMode": 2} not in fake.opened[-1].control_log  # no autofocus run
    assert cam.locked["AfMode"] == 0 and cam.locked["LensPosition"] == pytest.approx(2.5)


def test_still_configuration_on_request(fake):
    with PiCameraSource(settings=PiCameraSettings(size=(64, 48), still=True)) as cam:
        assert cam.read().image.shape == (48, 64, 3)
    assert fake.opened[-1].camera_config["use_case"] == "still"


def test_close_releases_the_camera_and_is_idempotent(fake):
    cam = PiCameraSource(settings=SMALL)
    cam.open()
    cam.close()
    cam.close()
    assert not fake.opened[-1].is_open and not fake.opened[-1].started
    with pytest.raises(CameraLost):
        cam.read()


def test_unplugged_camera_is_lost_and_comes_back_through_reconnecting(fake):
    sensor = fake.FakeSensor()
    fake.reset(sensor)
    events = []
    cam = Reconnecting(PiCameraSource(settings=SMALL), first_delay_s=0.01, max_delay_s=0.02,
                       on_event=events.append)
    cam.open()
    cam.read()
    sensor.plugged = False
    with pytest.raises(CameraLost, match="stopped delivering frames"):
        cam.source.read()
    threading.Timer(0.1, lambda: setattr(sensor, "plugged", True)).start()
    started = time.monotonic()
    frame = cam.read()
    assert time.monotonic() - started >= 0.05
    assert frame.image.shape == (48, 64, 3) and frame.index == 1
    assert [e.kind for e in events] == ["lost", "back"] and cam.status == "live"
    assert cam.attempts >= 2  # the first reopen found no camera: it was still unplugged
    cam.close()


def test_usb_cameras_are_not_pi_cameras(fake):
    usb = fake.FakeSensor(model="uvcvideo", id="/base/axi/pcie@120000/rp1/usb@200000-1:1.0")
    fake.reset(usb)
    assert attached_pi_cameras() == []
    fake.reset(usb, fake.FakeSensor())
    assert [c["Num"] for c in attached_pi_cameras()] == [1]


def test_auto_source_prefers_the_pi_camera(fake):
    source = auto_source()
    assert isinstance(source, PiCameraSource) and source.name == "picamera:0"


def test_open_source_picamera_specs(fake):
    assert open_source("picamera").camera_num == 0
    assert open_source("picamera:1").camera_num == 1
    with pytest.raises(SourceUnavailable, match="expected a camera number"):
        open_source("picamera:left")
