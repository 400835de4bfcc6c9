"""Spoken moves, alerts, results and hints in a real browser (Debian's Chromium via Playwright
at phone size, 360x740).  The page is instrumented before it loads, as the sound tests
instrument audio: ``speechSynthesis.speak`` records what it is asked to say (an empty
utterance, the silent one that wakes speech on phones, is left out), so the tests hear what a
phone would say: each move in the players' words, an alert, the result, the hint on request,
and nothing with the option off.  The hint panel shows the hint's explanation."""

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

# Runs in the page before its own scripts: records each utterance instead of speaking it.
RECORD_SPEECH = """
window.__spoken = [];
if (!window.SpeechSynthesisUtterance) {
  window.SpeechSynthesisUtterance = class { constructor(text) { this.text = text; } };
}
if (!window.speechSynthesis) {
  Object.defineProperty(window, "speechSynthesis", { configurable: true, value: {} });
}
window.speechSynthesis.speak = (utterance) => { if (utterance.text) window.__spoken.push(utterance.text); };
window.speechSynthesis.cancel = () => {};
"""


@pytest.fixture
def served(tmp_path):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, heartbeat=2.0, hint_seconds=0.5))
    running = start_server(app)
    yield app.extensions["cupboard"], running
    running.stop()


@pytest.fixture
def phone():
    with phone_page(init_script=RECORD_SPEECH) as page:
        yield page


def spoken(page) -> list[str]:
    return page.evaluate("() => window.__spoken")


def forget(page) -> None:
    page.evaluate("() => { window.__spoken = []; }")


def wait_spoken(page, count: int) -> list[str]:
    page.wait_for_function(f"() => window.__spoken.length >= {count}")
    return spoken(page)


def set_speech(page, on: bool) -> None:
    page.locator("#opt-speech").scroll_into_view_if_needed()
    page.click("details:has(#opt-speech) > summary")
    page.set_checked("#opt-speech", on)
    page.click("details:has(#opt-speech) > summary")  # folded again


def play(page, moves) -> None:
    for colour, size, square, ply in moves:
        tap_reserve(page, colour, size)
        tap_square(page, square)
        wait_ply(page, ply)


def open_page(page, running) -> None:
    page.goto(f"{running.url}?token={TOKEN}")
    page.wait_for_function("() => document.body.classList.contains('control')")


def test_moves_alerts_and_the_result_are_spoken(served, phone):
    services, running = served
    page = phone
    open_page(page, running)
    assert not page.is_checked("#opt-speech")  # off until a player chooses
    start_jr_game(page)
    set_speech(page, True)
    assert spoken(page) == ["Speech on"]  # said at once: this also wakes speech on phones
    page.reload()  # the choice is kept on this phone
    page.wait_for_selector("#board svg")
    assert page.is_checked("#opt-speech")
    forget(page)

    play(page, [("white", 3, "a1", 1)])
    assert wait_spoken(page, 1) == ["Ann, large to a1"]
    play(page, [("black", 3, "a2", 2)])
    assert wait_spoken(page, 2) == ["Ann, large to a1", "Bob, large to a2"]

    # an illegal move tapped: the referee's alert is said as the banner shows it
    forget(page)
    tap_reserve(page, "white", 1)
    tap_square(page, "a2")
    page.wait_for_selector("#log li.alert")
    said = wait_spoken(page, 1)
    assert said == [page.inner_text("#log li.alert")] and "illegal" in said[0].lower()
    page.click("#banner-close")

    # an alert from the camera referee, pushed by the stream
    forget(page)
    services.hub.session.alert("disagrees", "the board disagrees: b2: expected empty, sees a dark 3", {"squares": ["b2"]})
    assert wait_spoken(page, 1) == ["the board disagrees: b2: expected empty, sees a dark 3"]
    page.click("#banner-close")

    # a quiet notice is not said
    forget(page)
    services.hub.session.alert("lifted", "a1 lifted", {"square": 0})
    page.wait_for_function("() => document.getElementById('banner-text').textContent === 'a1 lifted'")
    page.wait_for_timeout(300)
    assert spoken(page) == []

    # the winning move, then the result
    play(page, [("white", 3, "b1", 3), ("black", 3, "b2", 4)])
    forget(page)
    tap_reserve(page, "white", 2)
    tap_square(page, "c1")
    page.wait_for_selector("#banner:not([hidden]).win")
    said = wait_spoken(page, 2)
    assert said[0] == "Ann, medium to c1"
    assert said[1] == page.inner_text("#log li.end") and "wins" in said[1]
    shot(page, "speech-result-spoken")

    # taking the winning move back is said too
    forget(page)
    page.click("#banner-close")
    page.click("#btn-takeback")
    assert wait_spoken(page, 1) == ["Took back 2c1"]


def test_nothing_is_spoken_with_the_option_off(served, phone):
    _, running = served
    page = phone
    open_page(page, running)
    start_jr_game(page)
    set_speech(page, True)
    set_speech(page, False)
    forget(page)
    play(page, [("white", 3, "a1", 1), ("black", 3, "a2", 2)])
    tap_reserve(page, "white", 1)
    tap_square(page, "a2")
    page.wait_for_selector("#log li.alert")
    page.click("#banner-close")
    page.click("#btn-draw")
    page.click("#confirm-buttons button[value=yes]")
    page.wait_for_selector("#banner:not([hidden]).draw")
    page.wait_for_timeout(400)
    assert spoken(page) == []


def test_the_hint_panel_explains_and_speaks_the_hint_on_request(served, phone):
    _, running = served
    page = phone
    open_page(page, running)
    start_jr_game(page)
    # Ann shows a1 and a2: Bob's hint gobbles the 2 that Ann needs (speech stays off: a hint
    # is said only when asked)
    play(page, [("white", 3, "a1", 1), ("black", 3, "c3", 2), ("white", 2, "a2", 3)])
    page.select_option("#hint-level", "2")
    page.click("#hint-black")
    page.wait_for_selector("#hint-panel:not([hidden]) #speak-hint")
    why = page.inner_text("#hint-panel .why")
    assert why.startswith("about even · gobbles the 2 on a2 that Ann needs for the a-file"), why
    assert "Not " in why  # and what goes wrong after the tempting alternative
    assert page.inner_text("#hint-panel .hint-detail").startswith("Search: ")
    assert spoken(page) == []
    page.click("#speak-hint")
    said = wait_spoken(page, 1)
    assert said[0].startswith("Bob, large to a2, gobbles Ann's medium. about even. gobbles the 2 on a2 that Ann needs")
    shot(page, "speech-hint-explained")


def test_cups_moves_are_spoken_in_cups_words(served, phone):
    from test_browser_cups import start_small_cups

    _, running = served
    page = phone
    open_page(page, running)
    start_small_cups(page)  # Ann (South) against Bob (North), 3 cups, 6 beans each
    set_speech(page, True)
    forget(page)
    for player, move, ply in (("south", "d2", 1), ("north", "d2x", 2)):
        page.locator(f'#board [data-stock="{player}"]').click()
        page.click(f'#offer button[data-move="{move}"]')
        wait_ply(page, ply)
    assert wait_spoken(page, 2) == ["Ann drops 2", "Bob drops 2 and takes 1 bean"]
