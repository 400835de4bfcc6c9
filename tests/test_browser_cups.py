"""Cups on the phone page in a real browser (Chromium at 360x740, driven by Playwright) against
the real app: a new game with its options from the dialog, a whole game played by tapping the
stocks (a menu of drops) and the cups (sowing), an illegal sow answered with the rule, a hint,
a take-back, a spectator following live, the score at the end and the record downloaded."""

from pathlib import Path

import pytest
from browser_support import TOKEN, needs_chromium, phone_page, shot, wait_ply

from companion.app import create_app
from companion.services import CompanionConfig
from companion.web.wsgi import start_server
from engine.record import read_records

pytestmark = needs_chromium

TOKEN_TEXT = "cups[cups=3,beans=6]"


@pytest.fixture
def server(tmp_path):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, heartbeat=2.0))
    running = start_server(app)
    yield running
    running.stop()


def page_state(page) -> dict:
    """The game's state as the server gives it to the page."""
    return page.evaluate("async () => (await fetch('/api/state')).json()")


def start_small_cups(page) -> None:
    page.click("#btn-new")
    page.select_option("#new-variant", "cups")
    page.wait_for_selector("#new-options:not([hidden]) input[data-option=cups]")
    assert page.inner_text("#label-white") == "South's name"
    assert not page.locator("#new-set-label").is_visible()  # no piece set for beans
    page.fill("#new-options input[data-option=cups]", "3")
    page.fill("#new-options input[data-option=beans]", "6")
    page.fill("#new-form input[name=white]", "Ann")
    page.fill("#new-form input[name=black]", "Bob")
    page.click("#new-start")
    page.wait_for_function(f"() => document.querySelector('#board svg')?.dataset.variant === '{TOKEN_TEXT}'")


def play_one_move(page, ply: int, spectator=None) -> str:
    """The player to move taps: the offered pass, else a cup that can be sown, else their stock
    and the largest legal drop in its menu.  Waits until the move is in the move list; returns
    what was played ("pass", "sow" or "drop")."""
    state = page_state(page)
    mover = state["names"][state["turn"]].lower()
    legal = [m["text"] for m in state["legal"]]
    played = "drop"
    if legal == ["pass"]:
        page.wait_for_selector('#offer:not([hidden]) button[data-move="pass"]')
        assert "must pass" in page.inner_text("#offer")
        if spectator is not None:  # announced to a spectator too, with nothing to tap
            spectator.wait_for_selector("#offer:not([hidden])")
            assert "must pass" in spectator.inner_text("#offer")
            assert spectator.locator("#offer button").count() == 0
        page.click('#offer button[data-move="pass"]')
        played = "pass"
    else:
        sow = page.locator(f'#board .cup.tappable[data-player="{mover}"][data-sow]')
        if sow.count():
            sow.first.click()
            played = "sow"
        else:
            page.locator(f'#board [data-stock="{mover}"]').click()
            best = max((t for t in legal if t.startswith("d")), key=lambda t: int(t[1:].rstrip("x")))
            page.click(f'#offer button[data-move="{best}"]')
    wait_ply(page, ply)
    if spectator is not None:
        spectator.wait_for_function(f"() => document.querySelectorAll('#moves li').length === {ply}")
    return played


def test_play_a_whole_cups_game_by_tapping(server, browser):
    with phone_page(browser, downloads=True) as page:
        page.goto(f"{server.url}?token={TOKEN}")
        page.wait_for_function("() => document.body.classList.contains('control')")
        start_small_cups(page)
        assert page.inner_text("#status") == "Ann (south) to move"
        assert "Ann (south) vs Bob (north)" in page.inner_text("#players")

        # a spectator's page follows the game live
        context = browser.new_context(viewport={"width": 360, "height": 740})
        spectator = context.new_page()
        spectator.goto(server.url)
        spectator.wait_for_function(f"() => document.querySelector('#board svg')?.dataset.variant === '{TOKEN_TEXT}'")

        # South taps the stock: a menu of drops 1..3; the drop of 2 is played
        page.locator('#board [data-stock="south"]').click()
        page.wait_for_selector('#offer:not([hidden]) button[data-move="d3"]')
        assert page.locator("#offer button[data-move]").all_inner_texts() == ["drop 1", "drop 2", "drop 3"]
        shot(page, "cups-01-drop-menu", keep_as="cups-drop-menu.png")
        page.click('#offer button[data-move="d2"]')
        wait_ply(page, 1)
        spectator.wait_for_function("() => document.querySelectorAll('#moves li').length === 1")
        assert spectator.locator("#offer button").count() == 0  # a spectator is offered no move

        # North taps an empty cup: a sow needs exactly the distance to the bowl -> the rule
        page.locator('#board .cup[data-player="north"][data-cup="1"]').click()
        page.wait_for_selector("#banner:not([hidden]).alert")
        assert "cup 1 can be sown only with exactly 3 beans" in page.inner_text("#banner-text")
        page.click("#banner-close")

        # a hint for North, drawn on the board
        page.select_option("#hint-level", "5")
        page.click("#hint-black")
        page.wait_for_selector("#hint-panel:not([hidden]) .best")
        assert "with perfect play" in page.inner_text("#hint-panel")
        page.wait_for_selector("#board .hint-overlay")

        play_one_move(page, 2)
        page.click("#btn-takeback")  # North thinks again
        wait_ply(page, 1)

        ply = 1
        played = []
        while not page_state(page)["over"]:
            ply += 1
            played.append(play_one_move(page, ply, spectator))
            assert ply < 60, "the game should have ended"
        # this line of play (sow when a cup can, else the biggest drop) has drops, sows and a pass
        assert {"pass", "sow", "drop"} <= set(played)
        page.wait_for_selector("#banner:not([hidden])")
        state = page_state(page)
        status = page.inner_text("#status")
        assert status == state["status"] and ("wins" in status or "Draw" in status)
        assert "on bowls" in status or "equal bowls" in status
        shot(page, "cups-02-end", keep_as="cups-end.png")
        spectator.wait_for_function(f"() => document.querySelectorAll('#moves li').length === {ply}")
        assert spectator.inner_text("#status") == status
        context.close()

        page.locator("#export").scroll_into_view_if_needed()
        with page.expect_download() as info:
            page.click("#export")
        text = Path(info.value.path()).read_text(encoding="utf-8")
        (record,) = read_records(text)
        assert record.tags["Variant"] == TOKEN_TEXT and record.tags["White"] == "Ann"
        assert record.result == state["outcome"]["result"] and record.tags["Termination"] == "score"
        assert [m.text for m in record.moves] == [m["text"] for m in state["moves"]]
        assert record.replay().text() == state["position"]


def test_records_page_replays_a_cups_game(server, browser):
    with phone_page(browser) as page:
        page.goto(f"{server.url}?token={TOKEN}")
        page.wait_for_function("() => document.body.classList.contains('control')")
        start_small_cups(page)
        ply = 0
        while not page_state(page)["over"]:
            ply += 1
            play_one_move(page, ply)
        page.goto(f"{server.url}/records")
        page.wait_for_selector("#games li[data-file] button.replay")
        assert TOKEN_TEXT in page.inner_text("#games")
        page.click("#games li[data-file] button.replay")
        page.wait_for_selector("#replay-board svg.cups-board")
        assert page.inner_text("#step-label") == f"{ply} / {ply}"
        page.click("#step-first")
        page.wait_for_function("() => document.querySelector('#step-label').textContent.startsWith('0 /')")
        assert page.inner_text("#replay-status") == "Ann (south) to move"
        shot(page, "cups-03-replay", keep_as="cups-replay.png")
