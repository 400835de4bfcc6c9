"""Looking back and the analysis in a real browser: Debian's Chromium at 360x740 against the
real app served on loopback.  Tap a move: the board shows the position the server gives for
it; the arrows step; the board is not live meanwhile; back to the game; a spectator can look
back too; the analysis page lists the verdicts, from the live page and from the records."""

import json
import re
import urllib.request

import pytest
from browser_support import TOKEN, needs_chromium, phone_page, shot, start_jr_game, wait_ply

from companion.app import create_app
from companion.services import CompanionConfig
from companion.web.wsgi import start_server

pytestmark = needs_chromium

JR_MOVES = [{"size": 1, "from": None, "to": "b2"}, {"size": 3, "from": None, "to": "b2"},
            {"size": 3, "from": None, "to": "a1"}, {"size": 3, "from": "b2", "to": "c3"}]
QUICK_WIN = ["4a1", "4b2", "4a2", "4b3", "4a3", "4b4", "3a4"]


@pytest.fixture
def server(tmp_path):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, heartbeat=2.0))
    running = start_server(app)
    yield running
    running.stop()


@pytest.fixture
def phone(browser):
    with phone_page(browser) as page:
        yield page


def call(server, method, path, body=None, token=True):
    """The server's API, as another phone would call it."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["X-Cupboard-Token"] = TOKEN
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(server.url.rstrip("/") + path, data=data, headers=headers, method=method)
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def board_pieces(page):
    """(class, square, colour, size) of every piece the page's board draws."""
    return sorted(page.eval_on_selector_all(
        "#board g.piece, #board g.hidden",
        "els => els.map(e => [e.getAttribute('class'), e.dataset.square, e.dataset.colour, e.dataset.size])"))


def svg_pieces(svg):
    found = re.findall(r'<g class="(piece|hidden)" data-square="(\w+)"(?: data-depth="\d+")? '
                       r'data-colour="(\w+)" data-size="(\d)"', svg)
    return sorted(list(f) for f in found)


def same_text(page, svg):
    """Whether the page's board draws the text (counts, labels) of the drawing ``svg``."""
    return page.evaluate("""svg => {
        const drawn = new DOMParser().parseFromString(svg, "image/svg+xml").documentElement.textContent;
        return document.querySelector("#board svg").textContent === drawn;
    }""", svg)


def test_look_back_step_and_come_back(server, phone):
    page = phone
    page.goto(f"{server.url}?token={TOKEN}")
    start_jr_game(page)
    for move in JR_MOVES:
        call(server, "POST", "/api/game/move", move)
    wait_ply(page, 4)
    live_position = call(server, "GET", "/api/state")["position"]

    # tap Black's 3xb2: the board shows the position after it, as the server draws it
    page.click('#moves li[data-ply="2"]')
    page.wait_for_selector('#board[data-lookback="2"]')
    want = call(server, "GET", "/api/game/position?ply=2", token=False)
    assert page.get_attribute("#board", "data-position") == want["position"]
    assert board_pieces(page) == svg_pieces(want["svg"])
    assert ["hidden", "b2", "white", "1"] in board_pieces(page)  # White's 1 under Black's 3
    assert "Looking back: after 1… 3xb2 · Ann (light) to move" in page.inner_text("#look-label")
    assert "not the live board" in page.inner_text("#look-label")
    assert page.locator(".board-wrap.looking-back").count() == 1
    assert page.locator('#moves li.viewing[data-ply="2"]').count() == 1
    # hidden pieces on the toggle, and the board turned round when flipped
    assert not page.locator('#board g.hidden[data-square="b2"]').is_visible()
    page.check("#show-hidden")
    assert page.locator('#board g.hidden[data-square="b2"]').is_visible()
    page.check("#flip")
    page.wait_for_function("() => document.querySelector('#board').dataset.flipped === '1'")
    a1 = re.search(r'<rect class="square" data-square="a1" x="(\d+)" y="(\d+)"', want["svg_flipped"])
    rect = page.locator('#board rect.square[data-square="a1"]')
    assert (rect.get_attribute("x"), rect.get_attribute("y")) == a1.groups()
    assert page.get_attribute("#board", "data-lookback") == "2"
    shot(page, "lookback-01-after-move-2")
    page.uncheck("#flip")

    # a tap on the board plays nothing while looking back
    page.locator('#board rect.square[data-square="c1"]').click()
    page.wait_for_timeout(300)
    assert page.locator("#moves li").count() == 4
    assert "earlier position" in page.inner_text("#look-label")

    # the arrows step, the keys too; ◀ reaches the start
    page.click("#look-next")
    page.wait_for_selector('#board[data-lookback="3"]')
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector('#board[data-lookback="2"]')
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector('#board[data-lookback="1"]')
    page.click("#look-prev")
    page.wait_for_selector('#board[data-lookback="0"]')
    assert board_pieces(page) == []
    assert page.is_disabled("#look-prev")

    # a new move keeps the position shown and says the game moved on
    call(server, "POST", "/api/game/move", {"size": 2, "from": None, "to": "a2"})
    wait_ply(page, 5)
    assert page.get_attribute("#board", "data-lookback") == "0" and board_pieces(page) == []
    assert "the game has moved on" in page.inner_text("#look-label")
    shot(page, "lookback-02-moved-on")

    # back to the game: the live board, and taps play again
    page.click("#look-back")
    page.wait_for_function("() => !('lookback' in document.querySelector('#board').dataset)")
    live = call(server, "GET", "/api/state")
    assert live["position"] != live_position
    assert board_pieces(page) == svg_pieces(live["svg"])
    assert page.locator(".board-wrap.looking-back").count() == 0
    assert page.is_hidden("#look-back")


def test_a_spectator_can_look_back(server, browser):
    call(server, "POST", "/api/game/new", {"variant": "gobblet-jr"})
    for move in JR_MOVES[:3]:
        call(server, "POST", "/api/game/move", move)
    with phone_page(browser) as spectator:
        spectator.goto(server.url)
        wait_ply(spectator, 3)
        assert spectator.inner_text("#role") == "spectator"
        spectator.click('#moves li[data-ply="1"]')
        spectator.wait_for_selector('#board[data-lookback="1"]')
        want = call(server, "GET", "/api/game/position?ply=1", token=False)
        assert spectator.get_attribute("#board", "data-position") == want["position"]
        assert board_pieces(spectator) == svg_pieces(want["svg"])
        spectator.keyboard.press("ArrowRight")
        spectator.wait_for_selector('#board[data-lookback="2"]')
        spectator.click("#look-back")
        spectator.wait_for_function("() => !('lookback' in document.querySelector('#board').dataset)")


def test_the_analysis_of_a_finished_game(server, phone):
    page = phone
    page.goto(f"{server.url}?token={TOKEN}")
    page.wait_for_selector("#board svg")
    call(server, "POST", "/api/game/new", {"variant": "gobblet", "white": "Ann", "black": "Bob"})
    for text in QUICK_WIN:
        call(server, "POST", "/api/game/move", {"move": text})
    wait_ply(page, 7)
    # the game is over: the page offers its analysis
    page.wait_for_selector("#analyse-link:not([hidden])")
    page.click("#analyse-link")
    page.wait_for_url("**/analysis?game=*")
    page.wait_for_function("() => document.querySelectorAll('#an-moves li').length === 7")
    page.wait_for_function("() => document.querySelector('#an-count').textContent.includes('analysed')")
    verdicts = page.eval_on_selector_all("#an-moves li", "els => els.map(e => e.dataset.verdict)")
    assert verdicts[5] == "blunder" and verdicts[6] == "best"
    assert "Ann (White):" in page.inner_text("#an-summary") and "1 blunder" in page.inner_text("#an-summary")
    # tap the blunder: its position and what the engine says of it
    page.click('#an-moves li[data-ply="6"]')
    page.wait_for_selector('#an-board[data-ply="6"]')
    assert "4b4 is a blunder" in page.inner_text("#an-verdict") and "loses in 2" in page.inner_text("#an-verdict")
    job = page.evaluate("() => fetch('/api/analysis', {method: 'POST', headers: {'Content-Type': 'application/json'},"
                        " body: JSON.stringify({game: new URLSearchParams(location.search).get('game')})})"
                        ".then(r => r.json())")
    want = call(server, "GET", f"/api/analysis/{job['id']}/position/6", token=False)
    assert page.get_attribute("#an-board", "data-position") == want["position"]
    page.keyboard.press("ArrowRight")
    page.wait_for_selector('#an-board[data-ply="7"]')
    assert "Ann wins" in page.inner_text("#an-status")
    shot(page, "analysis-01-blunder")

    # the same game from the records page
    page.goto(f"{server.url}records")
    page.wait_for_selector("#games a.analyse")
    shot(page, "analysis-02-records-page")
    page.click("#games a.analyse")
    page.wait_for_url("**/analysis?file=*")
    page.wait_for_function("() => document.querySelectorAll('#an-moves li').length === 7")
    assert page.get_attribute('#an-moves li[data-ply="6"]', "data-verdict") == "blunder"


def test_looking_back_in_cups(server, phone):
    page = phone
    page.goto(f"{server.url}?token={TOKEN}")
    page.wait_for_selector("#board svg")
    call(server, "POST", "/api/game/new", {"variant": "cups", "options": {"cups": 3, "beans": 6}})
    for _ in range(2):
        state = call(server, "GET", "/api/state")
        call(server, "POST", "/api/game/move", {"move": state["legal"][0]["text"]})
    wait_ply(page, 2)
    live = call(server, "GET", "/api/state")
    page.click('#moves li[data-ply="1"]')
    page.wait_for_selector('#board[data-lookback="1"]')
    want = call(server, "GET", "/api/game/position?ply=1", token=False)
    assert page.get_attribute("#board", "data-position") == want["position"]
    assert same_text(page, want["svg"]) and not same_text(page, live["svg"])
    assert page.is_hidden("#flip")  # a Cups drawing does not turn round
    # a tap on a part of the drawing offers no move while looking back
    part = next(c["selector"] for c in live["taps"] if c["selector"])
    page.locator(f"#board {part}").first.click()
    page.wait_for_timeout(300)
    assert page.is_hidden("#offer") or not page.locator("#offer button").count()
    assert page.locator("#moves li").count() == 2
    page.click("#look-back")
    page.wait_for_function("() => !('lookback' in document.querySelector('#board').dataset)")
    assert same_text(page, live["svg"])


def test_the_analysis_of_a_replaced_game_points_to_the_records(server, phone):
    page = phone
    page.goto(f"{server.url}analysis?game=0123abc")
    page.wait_for_selector("#an-note:not([hidden]) a[href='/records']")
    assert page.inner_text("#an-title") == "Analysis not available"
    assert "was replaced" in page.inner_text("#an-note")
