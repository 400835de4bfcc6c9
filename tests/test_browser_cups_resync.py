"""After an alert that the Cups table is wrong, the players tell the camera "the table is set as
the game shows it" on a phone, in a real browser (Debian's Chromium via Playwright at 360x740):
rendered frames of South's d3 and then North's beans put into South's cups go through the live
referee of a served app; the page shows the alert in a card with the button, a player taps it,
the alert goes and the page says the camera watches again; the table put back and North's d2x
are read from there.  The same word is in the camera card's menu at any time.

The frames are fed to the live referee as the camera thread feeds them; the app is told a
camera is present (what ``create_app`` sets for one) so that the page shows its camera card."""

import pytest
from browser_support import TOKEN, access_problems, needs_chromium, phone_page, shot

from companion.app import create_app
from companion.cups_camera import RESYNC_TEXT, CupsCamera
from companion.live import LiveReferee
from companion.services import CompanionConfig
from companion.web.wsgi import start_server
from tests.cups_streams import cups_layout, stream
from tests.test_cups_referee import illegal_tables

pytestmark = needs_chromium

SEED = 5011  # the illegal-change stream of tests/test_cups_referee.py


@pytest.fixture
def served(tmp_path):
    s = stream(cups_layout(), illegal_tables()[:5], SEED)
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, heartbeat=2.0, default_variant="cups"))
    services = app.extensions["cupboard"]
    services.hub.camera_info = {"present": True, "paused": False}
    live = LiveReferee(services.hub, None, family_cameras={"cups": CupsCamera(s.setup)})
    services.attach_live(live)
    running = start_server(app)
    yield services, live, s, running
    running.stop()


def test_the_table_is_set_as_the_game_shows_go_on(served, browser):
    services, live, s, running = served
    journal = services.hub.session.journal
    with phone_page(browser) as page:
        page.goto(f"{running.url}?token={TOKEN}")
        page.wait_for_selector("#board svg")
        page.wait_for_function("() => document.body.classList.contains('control')")
        assert page.locator("#table-wait").is_hidden()
        live.on_frame(s.frames[0])  # the camera takes up the game: its menu is offered
        page.wait_for_selector("#resync-menu:not([hidden])")

        put_back = s.steps.index(3)
        for frame in s.frames[1:put_back]:  # South's d3, then North's beans into South's cups
            live.on_frame(frame)
        (alert,) = [e.text for e in journal.events if e.kind == "illegal"]
        page.wait_for_selector("#table-wait:not([hidden])")
        # the card, the banner and the log follow the state and the journal's events, which
        # reach the page one after the other: wait for all of them before looking
        page.wait_for_function("(t) => document.getElementById('table-wait-reason').textContent === t && "
                               "document.getElementById('banner-text').textContent === t && "
                               "document.getElementById('banner').className === 'banner alert'", arg=alert)
        assert page.locator("#table-wait-reason").inner_text() == alert
        assert page.locator("#banner").get_attribute("class") == "banner alert"
        assert page.locator("#banner-text").inner_text() == alert
        button = page.locator("#table-wait-resync")
        assert button.inner_text() == "The table is set as the game shows — go on"
        page.locator("#table-wait").scroll_into_view_if_needed()
        # the banner rises in, fading from 0.3: its contrast is judged once it has risen
        page.evaluate("() => Promise.all(document.getAnimations().map((a) => a.finished))")
        shot(page, "phone-cups-resync", keep_as="phone-cups-resync.png")
        assert access_problems(page) == []

        button.tap()
        page.wait_for_selector("#table-wait", state="hidden")
        page.wait_for_function("(t) => document.getElementById('banner-text').textContent === t && "
                               "document.getElementById('banner').className === 'banner info' && "
                               "document.querySelector('#log li') !== null && "
                               "document.querySelector('#log li').textContent === t", arg=RESYNC_TEXT)
        assert page.locator("#banner").get_attribute("class") == "banner info"  # the red alert is gone
        assert page.locator("#log li").first.inner_text() == RESYNC_TEXT
        assert [e.kind for e in journal.events][-1] == "resync"

        for frame in s.frames[put_back:]:  # the table put back, taken as the game's; North's d2x
            live.on_frame(frame)
        page.wait_for_function("() => document.querySelectorAll('#moves li').length === 2")
        assert page.locator("#moves li").nth(1).inner_text().endswith("d2x")
        assert page.locator("#table-wait").is_hidden()
        assert not [e for e in journal.events if e.kind in ("restored", "illegal")][1:]

        # at any time: the camera card's menu
        page.locator("#resync-menu summary").tap()
        page.locator("#resync-any").tap()
        page.wait_for_function("() => !document.getElementById('resync-menu').open")
        page.wait_for_function("(t) => document.querySelectorAll('#log li').length > 0 && "
                               "[...document.querySelectorAll('#log li')].filter((li) => li.textContent === t)"
                               ".length === 2", arg=RESYNC_TEXT)
        assert [e.kind for e in journal.events].count("resync") == 2
