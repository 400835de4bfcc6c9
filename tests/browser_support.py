"""What the browser tests share: Debian's Chromium, started the way this machine allows."""

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
