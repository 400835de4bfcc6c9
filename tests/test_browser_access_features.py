"""Issue 24's features together on the page, in a real browser (Debian's Chromium via Playwright)
against the real app, in each of the four configurations the page is checked in (a 360x740
phone, 200 % text, dark mode, landscape 740x360): looking back, an explained hint with its
"Speak hint" button, the game clock, a finished game's "Analyse" link, the analysis page, a
record open in the records viewer, the speech option and the calibrate page's Gobblet and Cups
cards.  Each must pass the accessibility check of ``browser_support.ACCESS_CHECK`` (names,
contrast, 44 px targets, no sideways scrolling) and is kept as a screenshot; the board must not
move when looking back starts or ends, when the hint panel opens, or when the clock ticks."""

import pytest
from browser_support import TOKEN, access_problems, board_box, configured_page, needs_chromium
from test_browser_access import open_game, same_box

pytestmark = needs_chromium

# Gobblet (4x4): White wins on the a-file at the seventh move, Black's sixth a blunder
QUICK_WIN = ["4a1", "4b2", "4a2", "4b3", "4a3", "4b4", "3a4"]
JR_MOVES = ["3a1", "3b2", "2a2"]


def play(page, moves: list[str]) -> None:
    """Play ``moves`` through the API as the page's player, and wait until the page shows them."""
    for move in moves:
        sent = "async (m) => (await Cupboard.api('POST', '/api/game/move', {move: m})).status"
        assert page.evaluate(sent, move) == 200, move
    page.wait_for_function("(n) => document.querySelectorAll('#moves li').length === n", arg=len(moves))


def checked(page, screenshots, name: str) -> None:
    """The access check finds nothing on ``page``; kept as the screenshot ``name``."""
    problems = access_problems(page)
    screenshots.take(page, name)
    assert problems == [], "\n".join(problems)


def test_looking_back(served, configured, screenshots):
    _, running = served
    config, page = configured
    open_game(page, running.url, "gobblet-jr")
    play(page, JR_MOVES)
    start = board_box(page)
    page.click('#moves li[data-ply="1"]')
    page.wait_for_function("() => document.getElementById('board').dataset.lookback === '1'")
    assert same_box(board_box(page), start)
    assert page.locator("#look-back").is_visible()
    checked(page, screenshots, f"lookback-{config}")
    page.click("#look-next")
    page.wait_for_function("() => document.getElementById('board').dataset.lookback === '2'")
    assert same_box(board_box(page), start)
    page.click("#look-back")
    page.wait_for_function("() => document.getElementById('board').dataset.lookback === undefined")
    assert same_box(board_box(page), start)
    checked(page, screenshots, f"lookback-back-{config}")


def test_an_explained_hint_and_its_speak_button(served, configured, screenshots):
    _, running = served
    config, page = configured
    open_game(page, running.url, "gobblet-jr")
    play(page, JR_MOVES)
    start = board_box(page)
    page.select_option("#hint-level", "2")
    page.click("#hint-black")
    page.wait_for_selector("#hint-panel:not([hidden]) #speak-hint")
    assert page.inner_text("#hint-panel .why").strip()
    assert same_box(board_box(page), start)
    page.locator("#speak-hint").scroll_into_view_if_needed()
    checked(page, screenshots, f"hint-explained-{config}")


def test_the_clock_ticks_and_the_board_stays(served, configured, screenshots):
    _, running = served
    config, page = configured
    page.goto(f"{running.url}?token={TOKEN}")
    page.wait_for_function("() => document.body.classList.contains('control')")
    status = page.evaluate("async () => (await Cupboard.api('POST', '/api/game/new', {variant: 'gobblet-jr', "
                           "white: 'Annabel', black: 'Bob', clock_minutes: 5, clock_increment: 3})).status")
    assert status in (200, 201)
    page.wait_for_selector("#clocks:not([hidden])")
    page.wait_for_selector("#board svg [role=button][tabindex='0']")
    if page.locator("#banner").is_visible():
        page.click("#banner-close")
    play(page, ["3a1"])
    page.wait_for_selector('#clocks .clock[data-side="black"].running')
    start = board_box(page)
    shown = page.inner_text('#clocks .clock[data-side="black"] .clock-time')
    page.wait_for_function("(t) => document.querySelector('#clocks .clock[data-side=\"black\"] .clock-time')"
                           ".textContent !== t", arg=shown)
    assert same_box(board_box(page), start)
    checked(page, screenshots, f"clock-{config}")


def test_a_finished_game_and_its_analysis(served, configured, screenshots):
    _, running = served
    config, page = configured
    open_game(page, running.url, "gobblet")
    play(page, QUICK_WIN)
    page.wait_for_selector("#analyse-link:not([hidden])")
    if page.locator("#banner").is_visible():  # the result's banner, read and closed
        page.click("#banner-close")
    page.locator("#analyse-link").scroll_into_view_if_needed()
    checked(page, screenshots, f"finished-{config}")
    page.click("#analyse-link")
    page.wait_for_url("**/analysis?game=*")
    page.wait_for_function("() => document.querySelector('#an-count').textContent.includes('analysed')")
    page.click('#an-moves li[data-ply="6"]')
    page.wait_for_function("() => document.getElementById('an-board').dataset.ply === '6'")
    assert "blunder" in page.inner_text("#an-verdict")
    checked(page, screenshots, f"analysis-{config}")


def test_a_record_open_in_the_viewer(served, configured, screenshots):
    _, running = served
    config, page = configured
    open_game(page, running.url, "gobblet")
    play(page, QUICK_WIN)
    page.goto(f"{running.url}records?token={TOKEN}")
    page.locator("#games li .acts button.replay").first.click()
    page.wait_for_selector("#viewer:not([hidden]) #replay-board svg")
    for button in ("#btn-picture", "#rename-form button"):
        assert page.locator(button).is_visible(), button
    assert page.locator("#btn-copy").is_visible() or page.locator("#btn-share").is_visible()
    checked(page, screenshots, f"record-viewer-{config}")
    page.locator("#btn-picture").scroll_into_view_if_needed()
    screenshots.take(page, f"record-viewer-buttons-{config}")


def test_the_speech_option(served, configured, screenshots):
    _, running = served
    config, page = configured
    open_game(page, running.url, "gobblet-jr")
    page.click("details:has(#opt-speech) > summary")
    page.locator("#opt-speech").scroll_into_view_if_needed()
    assert page.locator("#opt-speech").is_visible()
    checked(page, screenshots, f"speech-option-{config}")


@pytest.mark.parametrize("config", ["phone", "text200", "dark", "landscape"])
def test_the_calibrate_page_cards(camera_served, browser, config, screenshots):
    with configured_page(browser, config) as page:
        page.goto(f"{camera_served.url}calibrate?token={TOKEN}")
        page.wait_for_function("() => document.body.classList.contains('control')")
        page.wait_for_selector("#step-markers", state="visible")
        checked(page, screenshots, f"calibrate-gobblet-{config}")
        page.click("#game-cups")
        page.wait_for_selector("#cups-step-area", state="visible")
        checked(page, screenshots, f"calibrate-cups-{config}")
