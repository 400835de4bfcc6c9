"""Shared fixtures for cupboard's tests: a real companion app on a temporary data folder."""

import pytest

from companion.app import CompanionConfig, create_app

TOKEN = "test-token"
AUTH = {"X-Cupboard-Token": TOKEN}


@pytest.fixture
def app(tmp_path):
    """The companion app with its data in ``tmp_path`` and a known control token."""
    app = create_app(CompanionConfig(tmp_path, token=TOKEN))
    yield app
    app.extensions["cupboard"].hub.close()


@pytest.fixture
def client(app):
    """Flask's test client on ``app``."""
    return app.test_client()


def started_camera(source, ready=lambda cam: cam.latest_frame() is not None, timeout=60.0):
    """A running PreviewCamera over ``source``, once ``ready(camera)`` holds (a real camera
    thread rendering real frames)."""
    import time

    from companion.web.preview import PreviewCamera

    cam = PreviewCamera(source, max_fps=20).start()
    deadline = time.monotonic() + timeout
    while not ready(cam):
        assert time.monotonic() < deadline and cam.error is None, cam.error
        time.sleep(0.05)
    return cam


@pytest.fixture
def camera_app(tmp_path, camera):
    """The companion app (Gobblet Jr. by default) over a test module's ``camera`` fixture."""
    camera.on_frame = None
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, camera=camera, default_variant="gobblet-jr"))
    yield app
    camera.on_frame = None
    app.extensions["cupboard"].hub.close()
