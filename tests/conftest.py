"""Shared fixtures for cupboard's tests: a real companion app on a temporary data folder, and
a cache folder of the tests' own (never the user's ~/.cache/cupboard) holding the exact Gobblet
Jr. table."""

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from companion.app import create_app
from companion.services import CompanionConfig
from engine.gobblet.jr import table as jr_table

# the user's cache, looked at (read-only) before the tests get their own, removed at exit (a
# table built there is 364 MB)
USER_JR_TABLE = jr_table.default_path()
os.environ["CUPBOARD_CACHE"] = tempfile.mkdtemp(prefix="cupboard-test-cache-")
atexit.register(shutil.rmtree, os.environ["CUPBOARD_CACHE"], ignore_errors=True)

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


@pytest.fixture(scope="session")
def exact_jr_table():
    """The exact Gobblet Jr. table at the tests' cache path: the user's own when it is a valid
    full table (linked, not copied: 364 MB), else built once per session (about a minute of
    CPU)."""
    from engine.gobblet.jr.exact import ExactTable, TableError

    path = jr_table.default_path()
    if not path.exists():
        try:
            mine = jr_table.load(USER_JR_TABLE)
            if isinstance(mine, ExactTable) and mine.min_pieces == 0:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.symlink_to(USER_JR_TABLE)
        except (TableError, OSError):
            pass
    if not path.exists():
        jr_table.build_exact(path)
    return jr_table.load(Path(path))


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium (Debian's, through Playwright) for a module's browser tests."""
    from browser_support import ARGS, CHROMIUM
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


@pytest.fixture(params=["phone", "text200", "dark", "landscape"])
def configured(request, browser):
    """A phone page in each of the configurations the live page is checked in (browser_support.
    PAGE_CONFIGS: 360x740, 200 % text, dark mode, landscape 740x360): ``(name, page)``."""
    from browser_support import configured_page

    with configured_page(browser, request.param) as page:
        yield request.param, page


@pytest.fixture
def camera_served(tmp_path):
    """The real app served on loopback with the demo camera (a rendered Gobblet Jr. board) for
    the browser tests of the pages a camera brings (the calibrate page, its link)."""
    from browser_support import TOKEN

    from companion.demo import demo_camera
    from companion.web.preview import PreviewCamera
    from companion.web.wsgi import start_server

    source, _ = demo_camera("gobblet-jr", seed=5, loop=True)
    camera = PreviewCamera(source, max_fps=4)
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, camera=camera, default_variant="gobblet-jr",
                                     heartbeat=2.0))
    camera.start()
    running = start_server(app)
    yield running
    running.stop()
    camera.stop()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The real app served on loopback for a module of browser tests: ``(services, running)``."""
    from browser_support import TOKEN

    from companion.web.wsgi import start_server

    app = create_app(CompanionConfig(tmp_path_factory.mktemp("browser-data"), token=TOKEN, heartbeat=2.0))
    running = start_server(app)
    yield app.extensions["cupboard"], running
    running.stop()


@pytest.fixture(scope="module")
def screenshots(request, tmp_path_factory):
    """Where a module of browser tests keeps its screenshots (browser_support.Screenshots)."""
    from browser_support import Screenshots

    return Screenshots(tmp_path_factory.mktemp(f"screenshots-{request.module.__name__}", numbered=False))
