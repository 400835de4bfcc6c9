"""What the browser tests share: Debian's Chromium, started the way this machine allows."""

import os
import shutil
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
# no sandbox as root; no background networking: the machine has no internet to reach
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts" / "browser"
DOCS = ROOT / "docs" / "screenshots"
TOKEN = "browser-token"

needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's Chromium (/usr/bin/chromium) is not installed"
)


@contextmanager
def phone_page(browser=None, init_script: str | None = None, downloads: bool = False) -> Iterator:
    """A phone-sized touch page (360x740) in ``browser``, or in a Chromium started for it;
    ``init_script`` runs before every page script.  On leaving, asserts that no script on the
    page failed."""
    errors: list[str] = []
    with ExitStack() as stack:
        if browser is None:
            playwright = stack.enter_context(sync_playwright())
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            stack.callback(browser.close)
        context = browser.new_context(viewport={"width": 360, "height": 740}, device_scale_factor=2,
                                      is_mobile=True, has_touch=True, accept_downloads=downloads)
        stack.callback(context.close)
        if init_script:
            context.add_init_script(init_script)
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        yield page
    assert errors == [], errors


def shot(page, name: str, keep_as: str | None = None) -> Path:
    """Screenshot ``page`` into the test artifacts; with CUPBOARD_UPDATE_SCREENSHOTS=1 also
    copy it to docs/screenshots as ``keep_as`` (so a plain test run changes no tracked file)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    if keep_as and os.environ.get("CUPBOARD_UPDATE_SCREENSHOTS") == "1":
        DOCS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS / keep_as)
    return path


def tap_reserve(page, colour, size):
    """Tap a reserve piece of ``colour`` and ``size`` on the live page's board."""
    page.locator(f'#board g.reserve-piece[data-reserve="{colour}"][data-size="{size}"]').first.click()


def tap_square(page, square):
    """Tap ``square``: its top piece, or the square itself when it is empty."""
    piece = page.locator(f'#board g.piece[data-square="{square}"]')
    if piece.count():
        piece.click()
    else:
        page.locator(f'#board rect.square[data-square="{square}"]').click()


def wait_ply(page, ply):
    """Wait until the move list shows ``ply`` moves."""
    page.wait_for_function(f"() => document.querySelectorAll('#moves li').length === {ply}")


def start_jr_game(page):
    """Start a Gobblet Jr. game of Ann (light) against Bob from the New game dialog."""
    page.click("#btn-new")
    page.select_option("#new-variant", "gobblet-jr")
    page.fill("#new-form input[name=white]", "Ann")
    page.fill("#new-form input[name=black]", "Bob")
    page.click("#new-start")
    page.wait_for_function("() => document.querySelector('#board svg')?.dataset.variant === 'gobblet-jr'")
