"""The phone page in a real browser: Debian's Chromium driven by Playwright at phone size,
against the real app served by waitress on loopback.

Screenshots go to ``test-artifacts/browser/``; the two that show the page best are copied to
``docs/screenshots/`` for the README.
"""

from pathlib import Path

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
from engine.record import read_records

pytestmark = needs_chromium


@pytest.fixture
def server(tmp_path):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, heartbeat=2.0))
    running = start_server(app)
    yield running
    running.stop()


@pytest.fixture
def phone(browser):
    with phone_page(browser, downloads=True) as page:
        yield page


def test_play_a_short_game_by_tapping(server, phone):
    page = phone
    page.goto(f"{server.url}?token={TOKEN}")
    page.wait_for_selector("#board svg")
    page.wait_for_function("() => document.body.classList.contains('control')")
    assert "token" not in page.url  # taken out of the address bar, kept by the page
    assert page.inner_text("#role") == "referee"
    start_jr_game(page)
    assert page.inner_text("#status") == "Ann (light) to move"
    assert "Ann (light) vs Bob (dark)" in page.inner_text("#players")

    tap_reserve(page, "white", 3)
    assert page.locator("#board .tap-target").count() == 9  # every square of the empty board
    tap_square(page, "a1")
    wait_ply(page, 1)
    tap_reserve(page, "black", 3)
    tap_square(page, "a2")
    wait_ply(page, 2)
    shot(page, "01-after-two-moves")

    # an illegal move: White tries to put a small piece over Black's big one
    tap_reserve(page, "white", 1)
    tap_square(page, "a2")
    page.wait_for_selector("#banner:not([hidden]).alert")
    banner = page.inner_text("#banner-text")
    assert "illegal move" in banner.lower() and "a2" in banner
    page.wait_for_function("() => document.querySelector('#log li.alert') !== null")
    shot(page, "02-illegal-move-alert", keep_as="phone-illegal-move.png")
    page.click("#banner-close")

    for colour, size, square, ply in [("white", 3, "b1", 3), ("black", 3, "b2", 4)]:
        tap_reserve(page, colour, size)
        tap_square(page, square)
        wait_ply(page, ply)
    # White completes the bottom row
    tap_reserve(page, "white", 2)
    tap_square(page, "c1")
    wait_ply(page, 5)
    page.wait_for_selector("#banner:not([hidden]).win")
    assert page.inner_text("#banner-text") == "Ann wins with the line a1-b1-c1"
    assert "Ann wins with the line a1-b1-c1" in page.inner_text("#status")
    assert page.locator("#board .win-line").count() == 1
    assert [t.strip() for t in page.locator("#moves li").all_inner_texts()] == ["1.3a1", "3a2", "2.3b1", "3b2", "3.2c1#"]
    shot(page, "03-white-wins", keep_as="phone-win.png")

    # the record of the game, downloaded from the page
    page.locator("#export").scroll_into_view_if_needed()
    with page.expect_download() as info:
        page.click("#export")
    text = Path(info.value.path()).read_text(encoding="utf-8")
    (record,) = read_records(text)
    assert record.result == "1-0" and record.tags["White"] == "Ann"
    assert [m.text for m in record.moves] == ["3a1", "3a2", "3b1", "3b2", "2c1#"]


def test_a_board_move_take_back_and_hidden_pieces(server, phone):
    page = phone
    page.goto(f"{server.url}?token={TOKEN}")
    start_jr_game(page)
    for colour, size, square, ply in [("white", 1, "b2", 1), ("black", 3, "b2", 2)]:
        tap_reserve(page, colour, size)
        tap_square(page, square)
        wait_ply(page, ply)
    # Black's 3 hides White's 1 on b2
    assert not page.locator('#board g.hidden[data-square="b2"]').is_visible()
    page.check("#show-hidden")
    assert page.locator('#board g.hidden[data-square="b2"]').is_visible()
    tap_reserve(page, "white", 3)
    tap_square(page, "a1")
    wait_ply(page, 3)
    tap_square(page, "b2")  # Black lifts the 3 from b2 ...
    assert page.locator("#board g.selected").count() == 1
    tap_square(page, "c3")  # ... and moves it to c3
    wait_ply(page, 4)
    assert page.locator('#board g.piece[data-square="b2"]').get_attribute("data-colour") == "white"
    page.click("#btn-takeback")
    wait_ply(page, 3)
    assert page.locator('#board g.piece[data-square="b2"]').get_attribute("data-colour") == "black"


def test_a_spectator_sees_moves_live_but_cannot_move(server, browser, phone):
    player = phone
    player.goto(f"{server.url}?token={TOKEN}")
    player.wait_for_function("() => document.body.classList.contains('control')")
    context = browser.new_context(viewport={"width": 360, "height": 740})
    spectator = context.new_page()
    spectator.goto(server.url)
    spectator.wait_for_selector("#board svg")
    assert spectator.inner_text("#role") == "spectator"
    assert not spectator.locator("#btn-takeback").is_visible()
    tap_reserve(player, "white", 4)
    tap_square(player, "c3")
    wait_ply(spectator, 1)  # pushed by the stream, no reload
    spectator.locator('#board g.reserve-piece[data-reserve="black"]').first.click()
    spectator.locator('#board rect.square[data-square="a1"]').click()
    spectator.wait_for_timeout(300)
    assert spectator.locator("#moves li").count() == 1
    context.close()


def test_ask_for_a_hint_and_see_it_drawn(server, phone):
    page = phone
    page.goto(f"{server.url}?token={TOKEN}")
    start_jr_game(page)
    page.click("#hint-white")
    page.wait_for_selector("#hint-panel:not([hidden]) .best")
    assert page.locator("#board .hint-overlay").count() == 1
    assert "Ann" in page.inner_text("#hint-panel .best")
    shot(page, "04-hint", keep_as="phone-hint.png")


def test_records_page_replays_a_game(server, phone):
    page = phone
    page.goto(f"{server.url}?token={TOKEN}")
    start_jr_game(page)
    for colour, size, square, ply in [("white", 3, "a1", 1), ("black", 3, "a2", 2), ("white", 3, "b1", 3),
                                      ("black", 3, "b2", 4), ("white", 2, "c1", 5)]:
        tap_reserve(page, colour, size)
        tap_square(page, square)
        wait_ply(page, ply)
    page.goto(f"{server.url}records")
    page.wait_for_selector("#games li[data-file] button.replay")
    assert "Ann – Bob" in page.inner_text("#games")
    page.click("#games li[data-file] button.replay")
    page.wait_for_selector("#replay-board svg")
    assert page.inner_text("#step-label") == "5 / 5"
    page.click("#step-first")
    page.wait_for_function("() => document.getElementById('step-label').textContent === '0 / 5'")
    page.click("#step-next")
    page.click("#step-next")
    page.wait_for_function("() => document.getElementById('step-label').textContent === '2 / 5'")
    assert page.locator("#replay-board g.piece").count() == 2
    shot(page, "05-replay")
    with page.expect_download() as info:
        page.click("#games li[data-file] a")
    assert read_records(Path(info.value.path()).read_text(encoding="utf-8"))[0].result == "1-0"


def test_desktop_layout(server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(f"{server.url}?token={TOKEN}")
    page.wait_for_selector("#board svg")
    page.wait_for_function("() => document.body.classList.contains('control')")
    width = page.evaluate("document.querySelector('#board svg').getBoundingClientRect().width")
    assert 400 < width < 600
    shot(page, "06-desktop")
    context.close()
