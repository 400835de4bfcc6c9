"""The camera routes with a real (synthetic) camera: health, the MJPEG preview, pausing."""

import json
import time

import cv2
import numpy as np
import pytest
from conftest import started_camera

from companion.app import create_app
from companion.services import CompanionConfig
from companion.web.camera_api import BOUNDARY
from hardware.synthetic import SyntheticCamera

TOKEN = "cam-token"
AUTH = {"X-Cupboard-Token": TOKEN}


@pytest.fixture(scope="module")
def camera():
    cam = started_camera(SyntheticCamera(loop=True), ready=lambda c: c.preview_jpeg() is not None and c.health()["fps"] > 0)
    yield cam
    cam.stop()


@pytest.fixture
def app(tmp_path, camera):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, camera=camera, health_every=0.1, heartbeat=0.2))
    yield app
    app.extensions["cupboard"].hub.close()


def test_health(app):
    client = app.test_client()
    body = client.get("/api/camera").get_json()
    assert body["source"] == "synthetic" and body["fps"] > 0 and body["paused"] is False
    assert body["referee"] is False and body["error"] is None
    assert client.get("/api/whoami").get_json()["camera"] is True
    assert client.get("/api/state").get_json()["camera"] == {"present": True, "paused": False}


def test_mjpeg_preview_is_downscaled_jpeg_parts(app):
    r = app.test_client().get("/camera.mjpg", buffered=False)
    assert r.status_code == 200 and r.mimetype == "multipart/x-mixed-replace"
    assert r.headers["Content-Type"].endswith(f"boundary={BOUNDARY}")
    chunks = iter(r.response)
    for _ in range(2):
        part = next(chunks)
        head, _, rest = part.partition(b"\r\n\r\n")
        assert head.startswith(f"--{BOUNDARY}\r\nContent-Type: image/jpeg".encode())
        length = int(head.decode().split("Content-Length: ")[1])
        image = cv2.imdecode(np.frombuffer(rest[:length], np.uint8), cv2.IMREAD_COLOR)
        assert image is not None and image.shape[1] <= 480
    r.close()


def test_pause_is_announced_to_every_page(app):
    client = app.test_client()
    stream = client.get("/api/stream", buffered=False)
    chunks = iter(stream.response)
    r = client.post("/api/camera/pause", json={"paused": True}, headers=AUTH)
    assert r.status_code == 200 and r.get_json() == {"paused": True}
    seen_state = seen_health = False
    deadline = time.monotonic() + 5
    while not (seen_state and seen_health):
        assert time.monotonic() < deadline
        text = next(chunks).decode()
        if "event: state" in text and '"paused":true' in text:
            seen_state = True
        if "event: camera" in text:
            health = json.loads(text.split("data: ", 1)[1])
            seen_health = seen_health or health["paused"] is True
    stream.close()
    assert client.post("/api/camera/pause", json={"paused": "yes"}, headers=AUTH).status_code == 400
    client.post("/api/camera/pause", json={"paused": False}, headers=AUTH)
