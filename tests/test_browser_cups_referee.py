"""The Cups referee's question on a phone, in a real browser (Debian's Chromium via Playwright
at 360x740): rendered frames of a drop of three with the hand also over the fourth cup (most of its floor
under the near rim) go through the live referee of a served app; the page asks "which move was
it: d3 or d4?", a player taps d3, and the camera reads the next move from that table (North's
d1, whose bean lands unseen, offered alone)."""

import pytest
from browser_support import TOKEN, needs_chromium, phone_page, shot

from companion.app import create_app
from companion.cups_camera import CupsCamera
from companion.live import LiveReferee
from companion.services import CompanionConfig
from companion.web.wsgi import start_server
from tests.test_cups_referee import hand_over_the_next_cup

pytestmark = needs_chromium


@pytest.fixture
def served(tmp_path):
    setup, frames, second = hand_over_the_next_cup(5021)
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, heartbeat=2.0, default_variant="cups"))
    services = app.extensions["cupboard"]
    live = LiveReferee(services.hub, None, family_cameras={"cups": CupsCamera(setup)})
    services.attach_live(live)
    running = start_server(app)
    yield services, live, frames, second, running
    running.stop()


def test_which_cups_move_was_it_is_answered_by_tapping(served, browser):
    services, live, frames, second, running = served
    with phone_page(browser) as page:
        page.goto(f"{running.url}?token={TOKEN}")
        page.wait_for_selector("#board svg")
        page.wait_for_function("() => document.body.classList.contains('control')")
        assert page.locator("#pending").is_hidden()
        for frame in frames[:second]:
            live.on_frame(frame)
        page.wait_for_selector("#pending:not([hidden])")
        assert page.locator("#pending-reason").inner_text() == "which move was it: d3 or d4?"
        buttons = page.locator("#pending-candidates button")
        assert buttons.all_inner_texts() == ["Confirm d3", "Confirm d4"]
        shot(page, "phone-cups-pending")
        page.locator('#pending-candidates button[data-index="0"]').tap()
        page.wait_for_function("() => document.querySelectorAll('#moves li').length === 1")
        page.wait_for_selector("#pending", state="hidden")
        assert page.locator("#moves li").inner_text().endswith("d3")
        for frame in frames[second:]:  # North's d1, its bean unseen: offered alone
            live.on_frame(frame)
        page.wait_for_selector("#pending:not([hidden])")
        assert page.locator("#pending-reason").inner_text() == "not sure: d1?"
        page.locator('#pending-candidates button[data-index="0"]').tap()
        page.wait_for_function("() => document.querySelectorAll('#moves li').length === 2")
        assert page.locator("#moves li").nth(1).inner_text().endswith("d1")
        assert services.hub.session.board.ply == 2
