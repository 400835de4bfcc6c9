"""What the browser tests share: Debian's Chromium, started the way this machine allows."""

import os
import shutil
from pathlib import Path

import pytest

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
