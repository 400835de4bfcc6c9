"""The pages and what they load, the QR code, the camera routes without a camera, MJPEG
framing and the hint route's checks."""

import re

import cv2
import numpy as np
import pytest
from conftest import AUTH, TOKEN  # the app and client fixtures live there too

from companion.web.camera_api import BOUNDARY, mjpeg_parts


@pytest.mark.parametrize("path", ["/", "/records"])
def test_pages_load_everything_from_the_app(client, path):
    r = client.get(path)
    assert r.status_code == 200 and r.mimetype == "text/html"
    html = r.get_data(as_text=True)
    assert '<meta name="viewport"' in html
    assets = re.findall(r'(?:src|href)="(/[^"]*)"', html)
    assert any(a.endswith(".js") for a in assets) and any(a.endswith(".css") for a in assets)
    assert "http://" not in html and "https://" not in html  # no CDN: a LAN without internet works
    for asset in assets:
        if asset.startswith("/static/"):
            assert client.get(asset).status_code == 200, asset


def test_the_live_page_has_its_parts(client):
    html = client.get("/").get_data(as_text=True)
    for part in ('id="board"', 'id="banner"', 'id="moves"', 'id="show-hidden"', 'id="hint-white"',
                 'id="hint-black"', 'id="btn-takeback"', 'id="btn-new"', 'id="export"', 'id="qr"'):
        assert part in html, part


def test_the_token_is_never_in_the_page(client):
    assert TOKEN not in client.get("/").get_data(as_text=True)
    assert TOKEN not in client.get(f"/?token={TOKEN}").get_data(as_text=True)


def test_qr_code_with_and_without_control(client):
    spectator = client.get("/qr.svg")
    assert spectator.status_code == 200 and spectator.mimetype == "image/svg+xml"
    assert b"<svg" in spectator.data
    control = client.get(f"/qr.svg?token={TOKEN}")
    assert control.status_code == 200 and control.data != spectator.data
    assert client.get("/qr.svg?token=wrong").data == spectator.data


def test_camera_routes_without_a_camera(client):
    r = client.get("/api/camera")
    assert r.status_code == 404 and "no camera" in r.get_json()["error"]
    assert client.get("/camera.mjpg").status_code == 404
    r = client.post("/api/camera/pause", json={"paused": True}, headers=AUTH)
    assert r.status_code == 404 and "no camera" in r.get_json()["error"]
    assert client.get("/api/whoami").get_json()["camera"] is False


def test_mjpeg_framing():
    frames = []
    for shade in (0, 128, 255):
        ok, jpeg = cv2.imencode(".jpg", np.full((24, 32, 3), shade, np.uint8))
        assert ok
        frames.append(jpeg.tobytes())
    parts = list(mjpeg_parts(iter([frames[0], None, frames[1], frames[2]]), fps=1000))
    assert len(parts) == 3  # no frame yet: nothing sent
    for part, jpeg in zip(parts, frames):
        head, _, rest = part.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        assert lines[0] == f"--{BOUNDARY}"
        assert "Content-Type: image/jpeg" in lines
        assert f"Content-Length: {len(jpeg)}" in lines
        assert rest == jpeg + b"\r\n"
        decoded = cv2.imdecode(np.frombuffer(rest[:-2], np.uint8), cv2.IMREAD_COLOR)
        assert decoded.shape == (24, 32, 3)


def test_hint_checks(client):
    assert client.post("/api/hint", json={"colour": "white"}).status_code == 401
    r = client.post("/api/hint", json={"level": 9}, headers=AUTH)
    assert r.status_code == 422 and "level" in r.get_json()["error"]
    r = client.post("/api/hint", data="nope", headers={**AUTH, "Content-Type": "application/json"})
    assert r.status_code == 400
    r = client.post("/api/hint", json={"colour": "black"}, headers=AUTH)
    assert r.status_code == 409 and "White's turn" in r.get_json()["error"]
    r = client.post("/api/hint", json={"colour": "mauve"}, headers=AUTH)
    assert r.status_code == 422
