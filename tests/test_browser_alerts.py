"""Alerts' sound and vibration in a real browser (Debian's Chromium via Playwright at phone
size).  The page is instrumented before it loads: every ``navigator.vibrate`` call and every
Web Audio oscillator started is recorded, so the test sees what a phone would buzz and play
when an illegal move is tapped, a game is won or the referee raises an alert, and that
nothing buzzes or sounds with the options off."""

import pytest
from browser_support import (
    TOKEN,
    needs_chromium,
    phone_page,
    shot,
    start_jr_game,
    tap_reserve,
    tap_square,
    wait_ply,
)

from companion.app import create_app
from companion.services import CompanionConfig
from companion.web.wsgi import start_server

pytestmark = needs_chromium

# Runs in the page before its own scripts: records the calls, still makes them.
RECORD_ALERTS = """
window.__alerts = { vibrate: [], tones: [] };
Object.defineProperty(Navigator.prototype, "vibrate", {
  configurable: true, writable: true,
  value: function (pattern) { window.__alerts.vibrate.push(pattern); return true; },
});
const startOscillator = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...args) {
  window.__alerts.tones.push(this.frequency.value);
  return startOscillator.apply(this, args);
};
"""

ALERT_TONES = [880, 440]  # what common.js plays for an alert
WIN_TONES = [523, 659, 784]
DRAW_TONES = [440, 440]


@pytest.fixture
def served(tmp_path):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, heartbeat=2.0))
    running = start_server(app)
    yield app.extensions["cupboard"], running
    running.stop()


@pytest.fixture
def phone():
    with phone_page(init_script=RECORD_ALERTS) as page:
        yield page


def recorded(page) -> dict:
    """The vibrations and tones since the last ``forget``."""
    return page.evaluate("() => window.__alerts")


def forget(page) -> None:
    page.evaluate("() => { window.__alerts.vibrate = []; window.__alerts.tones = []; }")


def set_alert_options(page, sound: bool, vibrate: bool) -> None:
    page.locator("#opt-sound").scroll_into_view_if_needed()
    page.click("details:has(#opt-sound) > summary")
    page.set_checked("#opt-sound", sound)
    page.set_checked("#opt-vibrate", vibrate)
    page.click("details:has(#opt-sound) > summary")  # folded again


def tap_illegal_move(page) -> None:
    """White tries to cover Black's 3 on a2 with a 1: refused, with an alert."""
    tap_reserve(page, "white", 1)
    tap_square(page, "a2")
    page.wait_for_selector("#banner:not([hidden]).alert")
    assert "illegal move" in page.inner_text("#banner-text").lower()


def test_alerts_buzz_and_sound_when_switched_on_and_not_when_off(served, phone):
    services, running = served
    page = phone
    page.goto(f"{running.url}?token={TOKEN}")
    page.wait_for_function("() => document.body.classList.contains('control')")
    # sound is off and vibration on until a player chooses
    assert not page.is_checked("#opt-sound") and page.is_checked("#opt-vibrate")
    start_jr_game(page)
    set_alert_options(page, sound=True, vibrate=True)
    assert recorded(page)["tones"], "switching the sound on plays a tone (which unlocks audio on phones)"
    page.reload()  # the choice is kept on this phone
    page.wait_for_selector("#board svg")
    assert page.is_checked("#opt-sound") and page.is_checked("#opt-vibrate")
    for colour, size, square, ply in [("white", 3, "a1", 1), ("black", 3, "a2", 2)]:
        tap_reserve(page, colour, size)
        tap_square(page, square)
        wait_ply(page, ply)
    forget(page)

    tap_illegal_move(page)
    page.wait_for_function("() => window.__alerts.tones.length >= 2 && window.__alerts.vibrate.length >= 1")
    calls = recorded(page)
    assert calls["vibrate"][0] == [250, 120, 250]
    assert calls["tones"][:2] == ALERT_TONES
    shot(page, "alerts-illegal-with-sound")
    page.click("#banner-close")

    # a referee alert pushed by the stream (the camera's board disagreeing with the game)
    forget(page)
    services.hub.session.alert("disagrees", "the board disagrees: b2: expected empty, sees a dark 3", {"squares": ["b2"]})
    page.wait_for_function("() => document.getElementById('banner-text').textContent.includes('disagrees')")
    page.wait_for_function("() => window.__alerts.tones.length >= 2 && window.__alerts.vibrate.length >= 1")
    calls = recorded(page)
    assert calls["vibrate"] == [[250, 120, 250]] and calls["tones"] == ALERT_TONES
    page.click("#banner-close")

    # a quiet notice (a piece lifted) neither buzzes nor sounds
    forget(page)
    services.hub.session.alert("lifted", "a1 lifted", {"square": 0})
    page.wait_for_function("() => document.getElementById('banner-text').textContent === 'a1 lifted'")
    page.wait_for_timeout(300)
    assert recorded(page) == {"vibrate": [], "tones": []}

    # a win: the win's three rising notes and a short buzz
    for colour, size, square, ply in [("white", 3, "b1", 3), ("black", 3, "b2", 4)]:
        tap_reserve(page, colour, size)
        tap_square(page, square)
        wait_ply(page, ply)
    forget(page)
    tap_reserve(page, "white", 2)
    tap_square(page, "c1")
    page.wait_for_selector("#banner:not([hidden]).win")
    page.wait_for_function("() => window.__alerts.tones.length >= 3")
    calls = recorded(page)
    assert calls["tones"][:3] == WIN_TONES and [120] in calls["vibrate"]


def test_no_sound_and_no_vibration_when_switched_off(served, phone):
    _, running = served
    page = phone
    page.goto(f"{running.url}?token={TOKEN}")
    page.wait_for_function("() => document.body.classList.contains('control')")
    start_jr_game(page)
    set_alert_options(page, sound=False, vibrate=False)
    for colour, size, square, ply in [("white", 3, "a1", 1), ("black", 3, "a2", 2)]:
        tap_reserve(page, colour, size)
        tap_square(page, square)
        wait_ply(page, ply)
    forget(page)
    tap_illegal_move(page)  # the banner still shows ...
    page.wait_for_function("() => document.querySelector('#log li.alert') !== null")  # ... and the stream's copy came
    page.wait_for_timeout(300)
    assert recorded(page) == {"vibrate": [], "tones": []}  # ... but nothing buzzes or sounds
    page.click("#banner-close")

    # switched on again: a draw by agreement has its own two notes and a short buzz
    set_alert_options(page, sound=True, vibrate=True)
    forget(page)
    page.click("#btn-draw")
    page.click("#confirm-buttons button[value=yes]")
    page.wait_for_selector("#banner:not([hidden]).draw")
    page.wait_for_function("() => window.__alerts.tones.length >= 2")
    calls = recorded(page)
    assert calls["tones"] == DRAW_TONES and calls["vibrate"] == [[120]]
