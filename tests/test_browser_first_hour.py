"""The pages a new user meets in the first hour, in a real browser (Debian's Chromium via
Playwright, phone size) against the real app: the calibrate page without a camera, the win's
banner cleared when the next game starts, and the records page's filters and delete.  The
screenshots taken here illustrate docs/calibration.md."""

import time

import pytest
from browser_support import TOKEN, needs_chromium, phone_page, shot

from companion.app import create_app
from companion.services import CompanionConfig
from companion.live import DEMO_TAGS
from companion.web.wsgi import start_server
from engine import variant

pytestmark = needs_chromium


@pytest.fixture
def server(tmp_path):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, heartbeat=2.0, default_variant="gobblet-jr",
                                     extra={"camera_note": "camera: none (no Pi camera and no webcam found)"}))
    running = start_server(app)
    running.hub = app.extensions["cupboard"].hub
    yield running
    running.stop()


def test_calibrate_without_a_camera_says_so(server, browser):
    with phone_page(browser) as page:
        page.goto(f"{server.url}calibrate?token={TOKEN}")
        page.wait_for_selector("#no-camera")
        text = page.inner_text("#no-camera")
        assert "No camera" in text and "no Pi camera and no webcam found" in text
        assert "cupboard serve --demo" in text and "restart" in text.lower()
        assert page.locator("#preview").count() == 0  # no broken picture
        assert page.locator("section.step").count() == 0  # none of the five steps
        page.wait_for_function("() => document.getElementById('role').textContent === 'referee'")
        shot(page, "calibrate-no-camera", keep_as="calibrate-no-camera.png")


def test_a_wins_banner_goes_when_the_next_game_starts(server, browser):
    hub = server.hub
    with phone_page(browser) as page:
        page.goto(f"{server.url}?token={TOKEN}")
        page.wait_for_selector("#board svg")
        for text in ["3a1", "3a2", "3b1", "3b2", "2c1"]:
            hub.session.play(text)
        page.wait_for_selector("#banner:not([hidden]).win")
        hub.new_game(variant("gobblet-jr"), dict(DEMO_TAGS))
        page.wait_for_function("() => document.getElementById('board').dataset.seq === '0' "
                               "|| document.querySelectorAll('#moves li').length === 0")
        page.wait_for_selector("#banner", state="hidden")


def test_records_page_filters_and_deletes(server, browser):
    hub = server.hub
    for name, tags in (("gobblet-jr", {"White": "Ann", "Black": "Bob"}), ("gobblet", {"White": "Cy", "Black": "Di"}),
                       ("gobblet-jr", dict(DEMO_TAGS))):
        session = hub.new_game(variant(name), tags)
        session.play(session.board.move_text(session.board.legal_moves()[0]))
        session.resign()
        time.sleep(1.05)  # record names carry the second the game began
    with phone_page(browser) as page:
        page.on("dialog", lambda d: d.accept())
        page.goto(f"{server.url}records?token={TOKEN}")
        page.wait_for_function("() => document.querySelectorAll('#games li[data-file]').length === 2")
        assert "1 demo game(s) kept apart" in page.inner_text("#demo-note")
        page.select_option("#filter-variant", "gobblet")
        page.wait_for_function("() => document.querySelectorAll('#games li[data-file]').length === 1")
        assert "Cy" in page.inner_text("#games")
        page.select_option("#filter-variant", "")
        page.wait_for_function("() => document.querySelectorAll('#games li[data-file]').length === 2")
        page.select_option("#filter-demo", "1")
        # (the list showed one game before too: wait for the demo game, not for a count)
        page.wait_for_function("() => document.querySelector('#games').innerText.includes('demo ·')")
        assert len(page.query_selector_all("#games li[data-file]")) == 1
        shot(page, "records-demo-filter")
        page.select_option("#filter-demo", "0")
        page.wait_for_function("() => document.querySelectorAll('#games li[data-file]').length === 2")
        page.locator("#games li[data-file]", has_text="Cy").locator("button.delete").click()
        page.wait_for_function("() => document.querySelectorAll('#games li[data-file]').length === 1")
        assert "Cy" not in page.inner_text("#games")
    assert len(list((hub.data_dir / "records").glob("*.gbn"))) == 1


@pytest.fixture
def camera_server(tmp_path):
    """The app with the demo camera, not yet calibrated: what a user with a camera first sees."""
    from companion.demo import demo_camera
    from companion.web.preview import PreviewCamera

    source, _ = demo_camera("gobblet-jr", seed=5, loop=True, still_frames=400)  # the empty board a while
    camera = PreviewCamera(source, max_fps=8)
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, camera=camera, default_variant="gobblet-jr",
                                     heartbeat=2.0))
    camera.start()
    running = start_server(app)
    running.services = app.extensions["cupboard"]
    yield running
    running.stop()
    camera.stop()


def test_the_wizard_step_by_step(camera_server, browser):
    """docs/calibration.md walks through these screens: the markers found, the empty board
    captured, then saved; the camera referees from then on."""
    with phone_page(browser) as page:
        page.goto(f"{camera_server.url}calibrate?token={TOKEN}")
        page.wait_for_function("() => document.getElementById('markers').textContent.includes('All four markers found')",
                               timeout=30000)
        page.wait_for_function("() => document.getElementById('preview').naturalWidth > 0", timeout=30000)
        shot(page, "wizard-1-markers", keep_as="calibrate-1-markers.png")
        assert [o for o in page.eval_on_selector_all("#set option", "os => os.map(o => o.value)")] \
            == ["gobblet", "gobblet-jr", "storer-clear"]
        page.select_option("#set", "gobblet-jr")
        page.click("#btn-empty")
        page.wait_for_function("() => document.getElementById('empty-result').textContent.startsWith('Calibrated')",
                               timeout=60000)
        text = page.inner_text("#empty-result")
        assert "gobblet-jr set on the gobblet-jr-3x3 board" in text and "markers 0, 1, 2, 3" in text
        page.locator("#step-empty").scroll_into_view_if_needed()
        shot(page, "wizard-2-empty", keep_as="calibrate-2-empty-board.png")
        page.click("#btn-save")
        page.wait_for_function("() => document.getElementById('save-result').textContent.startsWith('Saved')",
                               timeout=30000)
        page.locator("#step-save").scroll_into_view_if_needed()
        shot(page, "wizard-5-saved", keep_as="calibrate-5-saved.png")
    services = camera_server.services
    assert services.calibration_path.exists() and services.live is not None
