"""The camera's doubts on a phone, in a real browser (Debian's Chromium via Playwright at
360x740): a pending detection appears on every page with its candidates, a player confirms
it by tapping; a lifted piece and the flipped board are drawn."""


import pytest
from browser_support import (
    ARTIFACTS,
    TOKEN,
    needs_chromium,
    phone_page,
    shot,
)

from companion.app import CompanionConfig, create_app
from companion.demo import calibrate_demo, demo_camera
from companion.live import LiveReferee
from companion.referee import Referee
from companion.web.wsgi import start_server
from vision.tracking import Explained, TrackEvent

pytestmark = needs_chromium


@pytest.fixture
def served(tmp_path):
    camera, _ = demo_camera("gobblet-jr", seed=2)
    calibration = calibrate_demo(camera)
    camera.close()
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, heartbeat=2.0, default_variant="gobblet-jr"))
    services = app.extensions["cupboard"]
    services.attach_live(LiveReferee(services.hub, calibration))
    running = start_server(app)
    yield services, running
    running.stop()


def raise_pending(services, text):
    """The live referee acting on the tracker's low-confidence move, as for camera frames."""
    live, session = services.live, services.hub.session
    if live.referee is None or live.referee.session is not session:
        live.referee = Referee(session, live.calibration)
    move = session.board.parse_move(text)
    with session.lock:
        live.referee._act(TrackEvent("pending", 1.0, text, Explained((move,), 0.4), (move.to,), 0.4))


def test_confirm_a_pending_detection_by_tapping(served):
    services, running = served
    with phone_page() as page:
        page.goto(f"{running.url}?token={TOKEN}")
        page.wait_for_selector("#board svg")
        page.wait_for_function("() => document.body.classList.contains('control')")
        assert page.locator("#pending").is_hidden()

        raise_pending(services, "3b2")
        page.wait_for_selector("#pending:not([hidden])")
        assert page.locator("#pending-reason").inner_text() == "not sure: 3b2?"
        assert page.locator("#banner").is_visible() and "3b2" in page.locator("#banner-text").inner_text()
        shot(page, "phone-pending", keep_as="phone-pending.png")
        page.locator('#pending-candidates button[data-index="0"]').tap()
        page.wait_for_function("() => document.querySelectorAll('#moves li').length === 1")
        page.wait_for_selector("#pending", state="hidden")
        assert page.locator("#moves li").inner_text().endswith("3b2")
        assert page.locator("#banner").is_hidden()
        assert services.hub.session.board.ply == 1

        # a lifted piece is drawn, on the board turned for the player opposite
        services.hub.session.alert("lifted", "b2 lifted", {"square": 4})
        page.wait_for_selector('#board circle.lifted[data-square="b2"]')
        page.locator("#flip").check()
        page.wait_for_function("() => document.querySelector('#board').dataset.flipped === '1'")
        page.wait_for_selector('#board circle.lifted[data-square="b2"]')
        page.screenshot(path=str(ARTIFACTS / "lifted-flipped.png"))
        page.reload()
        page.wait_for_selector("#board svg")
        assert page.locator("#flip").is_checked()  # the choice is kept on this phone
