"""The camera preview's overlay switch in a real browser (Debian's Chromium via Playwright at
phone size) over the demo camera, calibrated and refereeing: switching it off changes the
preview's address and the picture the page shows loses the overlay's grid; the choice is
kept on the phone, on the live page and the calibration wizard alike.  The preview streams
only while it is on screen."""

import time

import pytest
from browser_support import (
    TOKEN,
    needs_chromium,
    phone_page,
    shot,
)

from companion.app import create_app
from companion.services import CompanionConfig
from companion.demo import calibrate_demo, demo_camera
from companion.live import LiveReferee
from companion.web.preview import PreviewCamera
from companion.web.wsgi import start_server

pytestmark = needs_chromium

# The preview as the page shows it, drawn on a canvas: how many pixels have the grid's amber
# (overlay.GRID, as RGB).
AMBER_PIXELS = """
() => {
  const img = document.getElementById("preview");
  const canvas = document.createElement("canvas");
  canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
  if (!canvas.width) return -1;
  const ctx = canvas.getContext("2d");
  ctx.drawImage(img, 0, 0);
  const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
  let n = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (Math.abs(data[i] - 255) <= 50 && Math.abs(data[i + 1] - 220) <= 50 && Math.abs(data[i + 2] - 60) <= 50) n++;
  }
  return n;
}
"""


@pytest.fixture
def served(tmp_path):
    source, rules = demo_camera("gobblet-jr", seed=5, loop=True)
    calibration = calibrate_demo(source)
    source.close()
    camera = PreviewCamera(source, max_fps=8)
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, camera=camera, default_variant="gobblet-jr",
                                     heartbeat=2.0))
    services = app.extensions["cupboard"]
    services.attach_live(LiveReferee(services.hub, calibration, rules, 0))
    camera.start()
    running = start_server(app)
    yield running
    running.stop()
    camera.stop()


def previews(page) -> int:
    """How many camera previews the server is streaming, as its health says."""
    return page.evaluate("async () => (await (await fetch('/api/camera')).json()).previews")


def wait_previews(page, count: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while previews(page) != count:
        assert time.monotonic() < deadline, f"{previews(page)} previews open, not {count}"
        page.wait_for_timeout(100)


def amber_when_settled(page, drawn: bool, timeout: float = 15.0) -> int:
    """The amber pixel count once the shown picture has (``drawn``) or lacks the grid."""
    deadline = time.monotonic() + timeout
    while True:
        amber = page.evaluate(AMBER_PIXELS)
        if (amber > 500) if drawn else (0 <= amber < 50):
            return amber
        assert time.monotonic() < deadline, f"the preview shows {amber} amber pixels"
        page.wait_for_timeout(250)


def test_the_overlay_switch_changes_the_preview_and_is_kept(served):
    with phone_page() as page:
        page.goto(f"{served.url}?token={TOKEN}")
        page.wait_for_selector("#camera-card:not([hidden])")
        preview = page.locator("#preview")
        assert page.is_checked("#opt-overlay")
        preview.scroll_into_view_if_needed()
        page.wait_for_function("() => document.getElementById('preview').getAttribute('src') === '/camera.mjpg'")
        amber_when_settled(page, drawn=True)
        assert previews(page) == 1
        shot(page, "camera-overlay-on")

        page.uncheck("#opt-overlay")
        assert preview.get_attribute("src") == "/camera.mjpg?overlay=0"
        assert preview.get_attribute("data-overlay") == "0"
        amber_when_settled(page, drawn=False)
        shot(page, "camera-overlay-off")
        wait_previews(page, 1)  # the stream with the overlay was ended, not left open

        # scrolled out of sight (a long page, as with a long move list): the stream ends
        page.evaluate("() => { document.querySelector('main').style.paddingBottom = '3000px';"
                      " window.scrollTo(0, document.body.scrollHeight); }")
        page.wait_for_function("() => !document.getElementById('preview').hasAttribute('src')")
        wait_previews(page, 0)
        preview.scroll_into_view_if_needed()  # and starts again when it is back
        page.wait_for_function("() => document.getElementById('preview').getAttribute('src') === '/camera.mjpg?overlay=0'")
        wait_previews(page, 1)

        page.reload()  # the choice is kept on this phone
        page.wait_for_selector("#camera-card:not([hidden])")
        assert not page.is_checked("#opt-overlay")
        preview.scroll_into_view_if_needed()
        page.wait_for_function("() => document.getElementById('preview').getAttribute('src') === '/camera.mjpg?overlay=0'")
        page.goto(f"{served.url}calibrate")  # and the wizard shows the same
        page.wait_for_function("() => document.getElementById('preview').getAttribute('src') === '/camera.mjpg?overlay=0'")
        assert not page.is_checked("#opt-overlay")
        page.check("#opt-overlay")
        assert preview.get_attribute("src") == "/camera.mjpg"
        amber_when_settled(page, drawn=True)
