"""The referee's log in a real browser (Debian's Chromium at 360x740): after a reload the page
shows the same entries, and after the server restarts on the same data folder the open page
reconnects without showing any entry twice, and a new page shows them all."""

from browser_support import TOKEN, needs_chromium, phone_page, shot

from companion.app import create_app
from companion.services import CompanionConfig
from companion.web.wsgi import start_server
from playwright.sync_api import TimeoutError as PlaywrightTimeout

pytestmark = needs_chromium
AUTH = {"X-Cupboard-Token": TOKEN}


def log_texts(page) -> list[str]:
    return page.eval_on_selector_all("#log li", "items => items.map((li) => li.textContent)")


def wait_log(page, count: int) -> list[str]:
    try:
        page.wait_for_function(f"() => document.querySelectorAll('#log li').length === {count}")
    except PlaywrightTimeout:  # say what the log shows instead
        shown = page.eval_on_selector_all(
            "#log li", "items => items.map((li) => [li.dataset.game, li.dataset.seq, li.textContent])")
        raise AssertionError(f"the log never showed {count} entries; it shows {shown}") from None
    page.wait_for_timeout(300)  # a late duplicate would show up by now
    return log_texts(page)


def test_the_log_survives_a_reload_and_a_restart(browser, tmp_path):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, heartbeat=1.0))
    running = start_server(app)
    port = running.port
    client = app.test_client()
    try:
        with phone_page(browser) as page:
            page.goto(f"{running.url}?token={TOKEN}")
            for move in ("4c3", "4b2"):
                assert client.post("/api/game/move", json={"move": move}, headers=AUTH).status_code == 200
            client.post("/api/game/move", json={"move": "4d4-a1"}, headers=AUTH)  # illegal: an alert
            before = wait_log(page, 4)
            assert before[0].startswith("Illegal move by White") and before[-1].startswith("New game of")
            assert before[1:3] == ["Black played 4b2", "White played 4c3"]

            page.reload()
            assert wait_log(page, 4) == before
            assert page.is_hidden("#banner")  # past entries raise no alert again

            running.stop()
            app = create_app(CompanionConfig(tmp_path, token=TOKEN, heartbeat=1.0))
            running = start_server(app, port=port)
            client = app.test_client()
            # the open page reconnects by itself (Last-Event-ID) and is sent only what is new
            page.wait_for_function("() => document.getElementById('conn').classList.contains('on')", timeout=15000)
            assert client.post("/api/game/move", json={"move": "3a1"}, headers=AUTH).status_code == 200
            after = wait_log(page, 5)
            assert after == ["White played 3a1", *before]
            shot(page, "log-after-restart")

        with phone_page(browser) as fresh:  # a page opened after the restart
            fresh.goto(f"{running.url}?token={TOKEN}")
            assert wait_log(fresh, 5) == after
    finally:
        running.stop()


def test_a_new_games_first_entry_is_logged(browser, tmp_path):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, heartbeat=1.0))
    running = start_server(app)
    try:
        with phone_page(browser) as page:
            page.goto(f"{running.url}?token={TOKEN}")
            wait_log(page, 1)
            client = app.test_client()
            client.post("/api/game/new", json={"variant": "gobblet-jr", "white": "Ann", "black": "Bob"}, headers=AUTH)
            texts = wait_log(page, 2)
            assert texts[0].startswith("New game of gobblet-jr") and "Ann" in texts[0]
    finally:
        running.stop()
