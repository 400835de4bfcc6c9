"""The records page's features in a real browser (Debian's Chromium at 360x740) on real record
files: renaming the players, marking a game demo (hidden, with the filter remembered),
filtering by player and date, deleting one game after a confirm, sharing (the Web Share API
where the browser has it, instrumented; a Copy button with the clipboard otherwise) and the
picture of the final position."""

import cv2
import numpy as np
import pytest
from browser_support import TOKEN, needs_chromium, phone_page, shot

from companion.app import create_app
from companion.services import CompanionConfig
from companion.web.wsgi import start_server
from engine.record import load_records, read_records

pytestmark = needs_chromium

ANN_BOB = """[Variant "gobblet-jr"]
[White "Ann"]
[Black "Bob"]
[Date "2024.05.01"]
[Result "1-0"]

1. 3a1 {[%clk 0:04:58.0]} 3a2 {[%clk 1:00:03.5]}
2. 3b1 3b2
3. 2c1# 1-0
"""

CY_DEE = """[Variant "gobblet"]
[White "Cy"]
[Black "Dee"]
[Date "2024.06.15"]
[Result "0-1"]
[Termination "resignation"]

1. 4a1 0-1
"""

# A browser without the Web Share API, whose clipboard is recorded (as a LAN page's often is not
# there at all, writeText is replaced by a recorder).
NO_SHARE = """
delete Navigator.prototype.share;
delete Navigator.prototype.canShare;
window.__copied = [];
Object.defineProperty(Navigator.prototype, "clipboard", { configurable: true,
  get() { return { writeText: async (text) => { window.__copied.push(text); } }; } });
"""

# A phone with the Web Share API that shares files: what it is asked to share is recorded.
WITH_SHARE = """
window.__shared = [];
Object.defineProperty(Navigator.prototype, "canShare", { configurable: true, writable: true,
  value: function (data) { return Boolean(data && data.files); } });
Object.defineProperty(Navigator.prototype, "share", { configurable: true, writable: true,
  value: async function (data) {
    const files = await Promise.all((data.files || []).map(async (f) => ({ name: f.name, type: f.type, text: await f.text() })));
    window.__shared.push({ title: data.title, text: data.text || null, files });
  } });
"""


@pytest.fixture
def served(tmp_path):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, heartbeat=1.0))
    records = app.extensions["cupboard"].records_dir
    (records / "ann-bob.gbn").write_text(ANN_BOB, encoding="utf-8")
    (records / "cy-dee.gbn").write_text(CY_DEE, encoding="utf-8")
    running = start_server(app)
    yield records, running
    running.stop()


def open_records(page, running, count):
    page.goto(f"{running.url}records?token={TOKEN}")
    wait_games(page, count)


def wait_games(page, count):
    page.wait_for_function(f"() => document.querySelectorAll('#games li[data-file]').length === {count}")


def open_game(page, white):
    page.locator("#games li[data-file]", has_text=white).locator("button.replay").click()
    page.wait_for_selector("#viewer:not([hidden])")
    page.wait_for_function("() => document.getElementById('step-label').textContent.length > 0")


def test_rename_demo_filters_and_delete(browser, served):
    records, running = served
    with phone_page(browser) as page:
        page.on("dialog", lambda d: d.accept())
        open_records(page, running, 2)
        open_game(page, "Ann")
        page.fill("#rename-white", "Annie")
        page.click("#rename-form button[type=submit]")
        page.wait_for_function("() => document.getElementById('games').innerText.includes('Annie – Bob')")
        (record,) = load_records(records / "ann-bob.gbn")
        assert record.tags["White"] == "Annie" and len(record.moves) == 5
        assert record.moves[1].annotations == {"clk": "1:00:03.5"}  # kept through the rewrite
        # each move with its mover's clock after it, where the record has one
        moves = page.eval_on_selector_all("#replay-moves li", "items => items.map((li) => li.textContent)")
        assert moves[:3] == ["3a1 4:58", "3a2 1:00:03", "3b1"]
        assert page.inner_text("#viewer-title").startswith("Annie – Bob")

        # filters: part of a name, a date range
        page.fill("#filter-player", "dee")
        wait_games(page, 1)
        assert "Cy – Dee" in page.inner_text("#games")
        page.fill("#filter-player", "")
        wait_games(page, 2)
        page.fill("#filter-since", "2024-06-01")
        wait_games(page, 1)
        assert "Cy – Dee" in page.inner_text("#games")
        page.fill("#filter-since", "")
        wait_games(page, 2)

        # marked demo: hidden from "your games", shown with the demo games; the choice is remembered
        page.check("#mark-demo")
        wait_games(page, 1)
        assert load_records(records / "ann-bob.gbn")[0].tags["Demo"] == "yes"
        assert "1 demo game(s) kept apart" in page.inner_text("#demo-note")
        page.select_option("#filter-demo", "1")
        page.wait_for_function("() => document.querySelector('#games li[data-file]')?.dataset.demo === '1'")
        shot(page, "records-marked-demo")
        page.reload()
        wait_games(page, 1)
        assert page.input_value("#filter-demo") == "1" and "Annie" in page.inner_text("#games")
        page.select_option("#filter-demo", "all")
        wait_games(page, 2)

        # delete one game, after the confirm
        page.locator("#games li[data-file]", has_text="Cy").locator("button.delete").click()
        wait_games(page, 1)
    assert not (records / "cy-dee.gbn").exists() and (records / "ann-bob.gbn").exists()


def test_without_the_share_api_the_record_is_copied(browser, served):
    records, running = served
    with phone_page(browser, init_script=NO_SHARE) as page:
        open_records(page, running, 2)
        open_game(page, "Cy")
        assert page.is_hidden("#btn-share") and page.is_visible("#btn-copy")
        page.click("#btn-copy")
        page.wait_for_function("() => window.__copied.length === 1")
        (record,) = read_records(page.evaluate("() => window.__copied[0]"))
        assert (record.tags["White"], record.result, [m.text for m in record.moves]) == ("Cy", "0-1", ["4a1"])
        assert "copied" in page.inner_text("#banner-text")


def test_without_any_clipboard_the_text_is_shown_to_copy(browser, served):
    records, running = served
    bare = "delete Navigator.prototype.share; Object.defineProperty(Navigator.prototype, 'clipboard', {get() { return undefined; }});"
    with phone_page(browser, init_script=bare) as page:
        open_records(page, running, 2)
        open_game(page, "Cy")
        page.click("#btn-copy")
        page.wait_for_selector("#copy-text:not([hidden])")
        (record,) = read_records(page.input_value("#copy-text"))
        assert record.tags["Black"] == "Dee"


def test_the_share_api_gets_the_record_file(browser, served):
    records, running = served
    with phone_page(browser, init_script=WITH_SHARE) as page:
        open_records(page, running, 2)
        open_game(page, "Ann")
        assert page.is_visible("#btn-share") and page.is_hidden("#btn-copy")
        page.click("#btn-share")
        page.wait_for_function("() => window.__shared.length === 1")
        shared = page.evaluate("() => window.__shared[0]")
        assert shared["title"] == "Ann – Bob · 1-0"
        (file,) = shared["files"]
        assert file["name"] == "ann-bob.gbn" and file["type"] == "text/plain"
        (record,) = read_records(file["text"])
        assert record.tags["White"] == "Ann" and record.moves[-1].text == "2c1#"


def test_the_picture_of_the_final_position(browser, served, tmp_path):
    records, running = served
    with phone_page(browser, downloads=True) as page:
        open_records(page, running, 2)
        open_game(page, "Ann")
        with page.expect_download() as waiting:
            page.click("#btn-picture")
        download = waiting.value
        assert download.suggested_filename == "ann-bob.png"
        path = tmp_path / "final.png"
        download.save_as(path)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    height, width = image.shape[:2]
    assert (width, height) == (360 * 3, (242 + 56) * 3)  # the drawing, 3 times, and the caption under it
    # the final position is drawn: the light 3 on a1 and the dark 3 on a2 (above a1), c2 empty
    scale = 360 / 572 * 3  # the drawing's viewBox is 572 wide, shown 360 px wide, drawn 3 times
    def colour(x, y):
        return image[int(y * scale), int(x * scale)].astype(int)
    assert colour(86, 270).min() > 180  # a1, beside its number: the light piece
    assert colour(86, 175).max() < 100  # a2: the dark piece
    assert 140 < colour(286, 198).mean() < 220  # c2: the bare board
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 50  # a drawing, not a blank canvas
