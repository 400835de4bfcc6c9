"""A page for every hand and eye (issue 24), in a real browser (Debian's Chromium via Playwright)
against the real app: the live page with a Gobblet, a Gobblet Jr., a Cups and a 5x5 game in four
configurations (a 360x740 phone, 200 % text, dark mode, landscape 740x360), each kept as a
screenshot under pytest's temporary folder, must pass an accessibility check (names, contrast,
44 px tap targets, no sideways scrolling) and keep its board still while a piece is picked, an
alert comes and a hint is shown.  Then the board read and played with the keyboard, and the
small bugs of the issue: the hint after resigning, ``.note`` breaking words, the header's
links, the Calibrate link for spectators."""

import pytest
from browser_support import (
    TOKEN,
    access_problems,
    board_box,
    configured_page,
    needs_chromium,
    phone_page,
    tap_reserve,
    wait_ply,
)

pytestmark = needs_chromium

GAMES = {"gobblet": "gobblet", "jr": "gobblet-jr", "cups": "cups", "goblet5": "goblet-5"}


def open_game(page, url: str, variant: str, control: bool = True) -> None:
    """Open the live page (as a player when ``control``) and start ``variant`` for Ann and Bob."""
    page.goto(f"{url}?token={TOKEN}" if control else url)
    page.wait_for_function("() => document.body.classList.contains('control')")
    status = page.evaluate(
        "async (v) => (await Cupboard.api('POST', '/api/game/new', {variant: v, white: 'Ann', black: 'Bob'})).status",
        variant)
    assert status == 201 or status == 200, status
    page.wait_for_function("(v) => document.querySelector('#board svg')?.dataset.variant === v", arg=variant)
    page.wait_for_selector("#board svg [role=button][tabindex='0']")  # board_access.js has been through it
    if page.locator("#banner").is_visible():  # the new game's notice, out of the way
        page.click("#banner-close")


def focused(page) -> str | None:
    """The name of what the keyboard is on."""
    return page.evaluate("() => document.activeElement.getAttribute('aria-label')")


def said(page, words: str) -> None:
    """Wait until the board's live region says ``words``."""
    page.wait_for_function("(w) => document.getElementById('board-announce').textContent.includes(w)", arg=words)


def same_box(a: dict, b: dict) -> bool:
    return all(abs(a[k] - b[k]) <= 0.5 for k in ("x", "y", "width", "height"))


@pytest.mark.parametrize("game", list(GAMES))
def test_live_page_in_every_configuration(served, browser, configured, game, screenshots):
    services, running = served
    config, page = configured
    open_game(page, running.url, GAMES[game])
    assert access_problems(page) == []
    start = board_box(page)
    view = page.evaluate("() => ({w: innerWidth, h: innerHeight})")

    # the header fits; the board fits the screen's width, and in landscape its height too
    bar = page.evaluate("() => { const b = document.querySelector('.bar'); return [b.scrollWidth, b.clientWidth]; }")
    assert bar[0] <= bar[1]
    assert start["x"] >= 0 and start["x"] + start["width"] <= view["w"]
    if config == "landscape":
        top = page.evaluate("() => document.querySelector('#board svg').getBoundingClientRect().top")
        assert top + start["height"] <= view["h"], (start, view)
        side = page.evaluate("() => document.querySelector('.controls').getBoundingClientRect().left")
        assert side >= start["x"] + start["width"]  # the controls beside the board
        # and its targets a finger's size: a 5x5 board's squares too
        smallest = page.evaluate("""() => Math.min(...[...document.querySelectorAll('#board [role=button]')]
                                    .map((n) => { const r = n.getBoundingClientRect(); return Math.min(r.width, r.height); }))""")
        assert smallest >= 43.5, smallest
    if config == "text200":
        # the board's labels grow with the text (22 drawing units at 100 %)
        label = ".board svg .label" if game != "cups" else ".board svg .label:not(.stock-label)"
        grown = page.evaluate(f"() => parseFloat(getComputedStyle(document.querySelector('{label}')).fontSize)")
        drawn = page.evaluate(f"() => parseFloat(document.querySelector('{label}').getAttribute('font-size'))")
        assert grown >= 1.4 * drawn
        # and so do the numbers drawn on the pieces and cups, and the reserves' and stocks' counts
        numbers = page.evaluate("""() => [...document.querySelectorAll('#board svg text:not(.label):not(.status)')]
            .map((t) => parseFloat(getComputedStyle(t).fontSize) / parseFloat(t.getAttribute('font-size')))""")
        assert numbers and min(numbers) >= 1.4, numbers
    if config == "dark":  # the page and the board's surroundings are dark (their text: the check)
        page_bg = page.evaluate("() => getComputedStyle(document.documentElement).backgroundColor")
        board_bg = page.evaluate("() => getComputedStyle(document.querySelector('#board svg > rect')).fill")
        for colour in (page_bg, board_bg):
            rgb = [int(v) for v in colour[colour.index("(") + 1:colour.index(")")].split(",")[:3]]
            assert max(rgb) < 80, colour

    # picking a piece (a stock's menu for Cups) moves nothing: not the board, nor (Gobblet) the
    # hint buttons under its message
    hints_at = board_box(page, "#hint-white")
    if game == "cups":
        page.locator('#board [data-stock="south"]').click()
        page.wait_for_selector("#offer:not([hidden]) button")
    else:
        tap_reserve(page, "white", {"gobblet": 4, "goblet5": 5}.get(game, 3))
        page.wait_for_function("() => document.getElementById('selection').textContent !== ''")
        assert same_box(board_box(page, "#hint-white"), hints_at)
    assert same_box(board_box(page), start)
    assert access_problems(page) == []

    # an alert from the referee: impossible to miss, and the board stays where it is
    services.hub.session.alert("disagrees", "the board disagrees: b2: expected empty, sees a dark 3",
                               {"squares": ["b2"]})
    page.wait_for_selector("#banner:not([hidden]).alert")
    page.evaluate("() => Promise.all(document.getAnimations().map((a) => a.finished))")  # it has risen
    banner = page.evaluate("() => { const r = document.getElementById('banner').getBoundingClientRect();"
                           " return [r.top, r.bottom, r.width]; }")
    assert banner[0] >= 0 and banner[1] <= view["h"] and banner[2] >= view["w"] * 0.45  # on screen, wide
    assert same_box(board_box(page), start)
    screenshots.take(page, f"{game}-{config}-alert")
    page.click("#banner-close")

    # a hint, drawn and explained: the board stays where it is
    page.select_option("#hint-level", "1")
    page.click("#hint-white")
    page.wait_for_selector("#hint-panel:not([hidden])")
    assert same_box(board_box(page), start)
    assert access_problems(page) == []
    assert screenshots.take(page, f"{game}-{config}").stat().st_size > 0


def test_the_check_finds_what_it_is_for(served, browser):
    """The accessibility check is no rubber stamp: a small button, a nameless one, grey text
    on white and a page too wide are each reported."""
    _, running = served
    with configured_page(browser, "phone") as page:
        open_game(page, running.url, "gobblet-jr")
        page.evaluate("""() => {
          const box = document.createElement('section');
          box.innerHTML = '<button id="tiny" style="min-height:0;padding:0;font-size:10px">x</button>' +
            '<button id="nameless" aria-label=""></button><p id="grey" style="color:#aaa;background:#fff">faint</p>' +
            '<div style="width:900px;height:4px"></div>';
          document.querySelector('main').prepend(box);
        }""")
        problems = "\n".join(access_problems(page))
    assert "tap target" in problems and "#tiny" in problems
    assert "no accessible name: button#nameless" in problems
    assert 'contrast' in problems and '#grey' in problems
    assert "scrolls sideways" in problems


def test_the_position_in_words_and_moves_by_keyboard(served, browser):
    _, running = served
    with configured_page(browser, "phone") as page:
        open_game(page, running.url, "gobblet-jr")
        words = page.locator("#board-description li").all_text_contents()
        assert words[0] == "Ann (light) to move"
        assert "The board is empty" in words
        assert "Ann (light)'s reserve: 3, 3, 2, 2, 1, 1" in words
        # each square and reserve slot is named; the board is one tab stop
        assert page.get_attribute('#board rect.square[data-square="b2"]', "aria-label") == "b2: empty"
        assert page.locator("#board [role=button][tabindex='0']").count() == 1
        page.focus("#board [role=button][tabindex='0']")
        assert focused(page) == "a1: empty"

        # to White's reserve with the arrows: right past c1 are the reserves, White's the far column
        for key in ["ArrowRight", "ArrowRight", "ArrowRight", "ArrowRight", "ArrowUp", "ArrowUp"]:
            page.keyboard.press(key)
        assert focused(page) == "Ann's reserve: size 3, 2 left"
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.getElementById('board-announce').textContent.startsWith('Picked')")
        assert "Ann's 3 from the reserve" in page.inner_text("#board-announce")
        page.keyboard.press("Escape")  # let go, and pick again
        page.wait_for_function("() => document.getElementById('board-announce').textContent.startsWith('Cancelled')")
        page.keyboard.press("Enter")
        for key in ["ArrowLeft", "ArrowLeft", "ArrowLeft"]:  # past Black's reserve onto the board
            page.keyboard.press(key)
        target = focused(page)
        square = target.split(":")[0]
        page.keyboard.press("Enter")
        wait_ply(page, 1)
        page.wait_for_function("() => document.getElementById('board-announce').textContent.startsWith('Last move')")
        assert page.inner_text("#board-announce") == f"Last move: Ann 3{square}. Bob (dark) to move"
        # the description follows, and the keyboard is still on the square it dropped on
        words = page.locator("#board-description li").all_text_contents()
        assert f"On the board: {square}: Ann's 3" in words and "Ann (light)'s reserve: 3, 2, 2, 1, 1" in words
        assert focused(page) == f"{square}: Ann's 3"

        # Bob's turn: Ann's piece cannot be picked
        page.keyboard.press("Enter")
        said(page, "Bob (dark)'s turn")
        # a move over it with Bob's 3 is refused by the referee, with its rule, as a tap would be
        assert page.locator("#moves li").count() == 1


def test_cups_counts_in_words_and_a_sow_by_keyboard(served, browser):
    _, running = served
    with configured_page(browser, "phone") as page:
        open_game(page, running.url, "cups")
        words = page.locator("#board-description li").all_text_contents()
        assert words[0] == "Ann (south) to move"
        south = next(w for w in words if w.startswith("Ann's cup 1"))
        state = page.evaluate("async () => (await fetch('/api/state')).json()")
        assert "Ann's stock: " in south and "Ann's bowl: 0 beans" in south
        stock = page.get_attribute('#board [data-stock="south"]', "aria-label")
        assert stock.startswith("Ann's stock") and "drops beans" in stock
        # the stock offers several drops: Enter opens the menu and the keyboard is on its first
        page.focus('#board [data-stock="south"]')
        page.keyboard.press("Enter")
        page.wait_for_selector("#offer:not([hidden]) button")
        page.wait_for_function("() => document.activeElement.closest('#offer') !== null")
        page.keyboard.press("Enter")
        wait_ply(page, 1)
        after = page.evaluate("async () => (await fetch('/api/state')).json()")
        assert after["ply"] == state["ply"] + 1
        words = page.locator("#board-description li").all_text_contents()
        assert words[0] == "Bob (north) to move"


def test_a_spectator_reads_the_board_but_cannot_move_it(served, browser):
    _, running = served
    with configured_page(browser, "phone") as player, configured_page(browser, "phone") as spectator:
        open_game(player, running.url, "gobblet-jr")
        spectator.goto(running.url)
        spectator.wait_for_selector("#board svg [role=button][tabindex='0']")
        spectator.focus("#board [role=button][tabindex='0']")
        spectator.keyboard.press("Enter")
        said(spectator, 'Only the players')
        assert spectator.locator("#moves li").count() == 0


def test_no_hint_left_after_resigning(served, browser):
    _, running = served
    with configured_page(browser, "phone") as page:
        open_game(page, running.url, "gobblet-jr")
        page.select_option("#hint-level", "1")
        page.click("#hint-white")
        page.wait_for_selector("#hint-panel:not([hidden]) .best")
        assert page.locator("#board .hint-overlay").count() == 1
        page.click("#btn-resign")
        page.click("#confirm-buttons button[value=white]")
        page.wait_for_function("() => document.getElementById('status').textContent.includes('resigned')")
        assert page.inner_text("#status") == "Bob wins: Ann resigned"
        assert page.locator("#hint-panel").is_hidden()
        assert page.locator("#board .hint-overlay").count() == 0


def test_notes_break_between_words_and_the_header_reads_as_links(served, browser):
    _, running = served
    with configured_page(browser, "text200") as page:
        open_game(page, running.url, "gobblet-jr")
        page.click("#invite > summary")
        # every word of the note on one line: none is split across two
        split = page.evaluate("""() => {
          const node = document.getElementById('invite-note').firstChild;
          const out = [];
          for (const m of node.textContent.matchAll(/\\S+/g)) {
            const r = document.createRange();
            r.setStart(node, m.index); r.setEnd(node, m.index + m[0].length);
            const tops = new Set([...r.getClientRects()].map((x) => Math.round(x.top)));
            if (tops.size > 1) out.push(m[0]);
          }
          return out;
        }""")
        assert page.inner_text("#invite-note").startswith("This code gives control")
        assert split == []
        # the header's links are a labelled list of separate links
        assert page.get_attribute(".bar nav", "aria-label") == "Pages"
        assert page.locator(".bar nav li a").count() == 2


def test_only_a_player_sees_the_calibrate_link(camera_served, browser):
    with phone_page(browser) as player, phone_page(browser) as spectator:
        player.goto(f"{camera_served.url}?token={TOKEN}")
        player.wait_for_function("() => document.body.classList.contains('control')")
        player.wait_for_selector("#nav-calibrate", state="visible")
        spectator.goto(camera_served.url)
        spectator.wait_for_selector("#board svg")
        spectator.wait_for_function("() => document.getElementById('camera-card').hidden === false")
        assert spectator.locator("#nav-calibrate").is_hidden()
        assert spectator.locator(".bar nav a", has_text="Records").is_visible()


def test_dialogs_in_every_configuration(served, configured, screenshots):
    _, running = served
    config, page = configured
    open_game(page, running.url, "gobblet-jr")
    page.click("#btn-new")
    page.wait_for_selector("#new-dialog[open]")
    assert access_problems(page) == []
    page.select_option("#new-variant", "cups")  # its options shown too
    page.wait_for_selector("#new-options:not([hidden]) input[data-option=cups]")
    assert access_problems(page) == []
    screenshots.take(page, f"new-game-{config}")
    page.click("#new-dialog button[value=cancel]")
    page.click("#btn-resign")
    page.wait_for_selector("#confirm-dialog[open]")
    assert access_problems(page) == []
    page.click("#confirm-buttons button[value='']")


@pytest.mark.parametrize("cups", [6, 10])
def test_many_cups_a_row_scroll_inside_their_card(served, configured, cups, screenshots):
    """Cups with six or more cups a row: the board is drawn wide enough for 44 px cups and
    scrolls sideways inside its card, never the page."""
    _, running = served
    config, page = configured
    open_game(page, running.url, "cups")
    status = page.evaluate("async (n) => (await Cupboard.api('POST', '/api/game/new', {variant: 'cups', "
                           "white: 'Ann', black: 'Bob', options: {cups: n}})).status", cups)
    assert status == 201
    page.wait_for_function("(n) => document.querySelectorAll('#board svg .cup').length === 2 * n", arg=cups)
    page.wait_for_selector("#board svg [role=button][tabindex='0']")
    if page.locator("#banner").is_visible():
        page.click("#banner-close")
    assert access_problems(page) == []
    scroll = page.evaluate("() => { const b = document.getElementById('board'); return [b.scrollWidth, b.clientWidth]; }")
    view = page.evaluate("() => innerWidth")
    if config != "landscape" or cups == 10:
        assert scroll[0] > scroll[1]  # too wide for the card at this width: it scrolls inside it
    assert page.evaluate("() => document.documentElement.scrollWidth") <= view
    screenshots.take(page, f"cups{cups}-{config}")
