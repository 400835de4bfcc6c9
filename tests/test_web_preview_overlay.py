"""The preview's overlay switched off and on through ``/camera.mjpg?overlay=``: a real demo
camera thread with a real calibration serves both pictures, and the overlay's pixels are in
one and not in the other."""

import time

import cv2
import numpy as np
import pytest
from conftest import TOKEN

from companion.app import create_app
from companion.services import CompanionConfig
from companion.demo import calibrate_demo, demo_camera
from companion.live import LiveReferee
from companion.web.camera_api import BOUNDARY
from companion.web.overlay import GRID
from companion.web.preview import PreviewCamera


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    source, rules = demo_camera("gobblet-jr", seed=5, loop=True)
    calibration = calibrate_demo(source)
    source.close()
    camera = PreviewCamera(source, max_fps=10)
    app = create_app(CompanionConfig(tmp_path_factory.mktemp("data"), token=TOKEN, camera=camera,
                                     default_variant="gobblet-jr"))
    services = app.extensions["cupboard"]
    services.attach_live(LiveReferee(services.hub, calibration, rules, 0))
    camera.start()
    deadline = time.monotonic() + 30
    while camera.preview_jpeg() is None:
        assert time.monotonic() < deadline, camera.error
        time.sleep(0.05)
    yield app
    camera.stop()
    services.hub.close()


def frames(client, url: str, count: int) -> list[np.ndarray]:
    """The first ``count`` JPEG parts of the MJPEG stream at ``url``, decoded."""
    r = client.get(url, buffered=False)
    assert r.status_code == 200 and r.headers["Content-Type"].endswith(f"boundary={BOUNDARY}")
    parts = iter(r.response)
    images = []
    try:
        for _ in range(count):
            head, _, rest = next(parts).partition(b"\r\n\r\n")
            length = int(head.decode().split("Content-Length: ")[1])
            image = cv2.imdecode(np.frombuffer(rest[:length], np.uint8), cv2.IMREAD_COLOR)
            assert image is not None
            images.append(image)
    finally:
        r.close()
    return images


def grid_pixels(image: np.ndarray) -> int:
    """How many pixels have the overlay grid's amber."""
    return int((np.abs(image.astype(int) - GRID).max(axis=2) <= 50).sum())


def test_the_overlay_query_switches_what_is_drawn(served):
    client = served.test_client()
    for url, drawn in [("/camera.mjpg", True), ("/camera.mjpg?overlay=0", False), ("/camera.mjpg?overlay=off", False),
                       ("/camera.mjpg?overlay=1", True)]:
        for image in frames(client, url, 2):
            amber = grid_pixels(image)
            # the grid is a few thousand amber pixels; the rendered table and board have none
            assert (amber > 500) if drawn else (amber < 50), (url, amber)
    # the camera keeps drawing for the other viewers (the switch is per page, not global)
    assert served.extensions["cupboard"].camera.health()["overlay"] is True


def test_the_plain_preview_stops_being_encoded_when_nobody_asks(served):
    camera = served.extensions["cupboard"].camera
    camera.plain_for = 1.0
    try:
        frames(served.test_client(), "/camera.mjpg?overlay=0", 1)
        assert camera._plain_jpeg is not None
        deadline = time.monotonic() + 5
        while camera._plain_jpeg is not None:  # once nobody asks, the camera stops encoding it
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert camera.preview_jpeg() is not None
    finally:
        camera.plain_for = 5.0


def test_a_wrong_overlay_value_is_a_clear_400(served):
    r = served.test_client().get("/camera.mjpg?overlay=maybe")
    assert r.status_code == 400 and "overlay must be" in r.get_json()["error"]
