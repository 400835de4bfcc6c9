"""The game clocks on the live page in a real browser (Debian's Chromium at 360x740): set in the
New game dialog, drawn for both players with the side to move's running, taken from the
server's clocks (driven here by a time function the test moves on), and stopped at a flag
fall with the game's end announced."""

import pytest
from browser_support import TOKEN, needs_chromium, phone_page, shot

from companion.app import create_app
from companion.services import CompanionConfig
from companion.web.wsgi import start_server

pytestmark = needs_chromium
AUTH = {"X-Cupboard-Token": TOKEN}


class Time:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def served(tmp_path):
    ticking = Time()
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, heartbeat=1.0, clock_time=ticking))
    running = start_server(app)
    yield app, running, ticking
    running.stop()


def clock_text(page, side):
    return page.inner_text(f'#clocks .clock[data-side="{side}"] .clock-time')


def test_the_clocks_are_set_drawn_and_fall(browser, served):
    app, running, ticking = served
    client = app.test_client()
    with phone_page(browser) as page:
        page.goto(f"{running.url}?token={TOKEN}")
        page.wait_for_selector("#board svg")
        assert page.is_hidden("#clocks")  # a game without clocks shows none
        page.click("#btn-new")
        page.select_option("#new-variant", "gobblet")
        page.fill("#new-form input[name=white]", "Ann")
        page.fill("#new-form input[name=black]", "Bob")
        page.fill("#new-form input[name=clock_minutes]", "1")
        page.fill("#new-form input[name=clock_increment]", "2")
        page.click("#new-start")
        page.wait_for_selector("#clocks:not([hidden])")
        assert client.get("/api/state").get_json()["tags"]["TimeControl"] == "60+2"
        assert page.inner_text('#clocks .clock[data-side="white"] .clock-name') == "Ann"
        assert (clock_text(page, "white"), clock_text(page, "black")) == ("1:00", "1:00")
        assert "starts with the first move" in page.inner_text("#clock-note")

        assert client.post("/api/game/move", json={"move": "4c3"}, headers=AUTH).status_code == 200
        page.wait_for_selector('#clocks .clock[data-side="black"].running')
        assert page.locator('#clocks .clock[data-side="white"].running').count() == 0
        assert clock_text(page, "white") == "1:02"  # the increment
        ticking.now += 30  # the server's clock: Black thought 30 s
        page.reload()  # a page opening now is drawn from the server's clocks
        page.wait_for_function("""() => document.querySelector('#clocks .clock[data-side="black"] .clock-time')
                                  ?.textContent === '0:30'""")
        assert clock_text(page, "white") == "1:02"
        shot(page, "clock-running")

        ticking.now += 31  # Black's flag falls; the server's watcher ends the game on time
        page.wait_for_function("() => document.getElementById('status').textContent.includes('wins on time')")
        assert page.inner_text("#status") == "Ann wins on time: Bob's clock ran out"
        assert "Ann wins on time" in page.inner_text("#banner-text")
        assert clock_text(page, "black") == "0.0" and page.locator("#clocks .clock.running").count() == 0
        assert "the game is over" in page.inner_text("#clock-note")
        assert page.locator('#clocks .clock[data-side="black"].out').count() == 1
        shot(page, "clock-flag-fell")
        page.click("#btn-new")  # the next game is offered the same clock
        assert page.input_value("#new-form input[name=clock_minutes]") == "1"
        assert page.input_value("#new-form input[name=clock_increment]") == "2"
        page.click("#new-form button[value=cancel]")
    (game,) = client.get("/api/records").get_json()["games"]
    assert game["termination"] == "time" and game["result"] == "1-0"
