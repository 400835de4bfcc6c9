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


# ------------------------------------------------------------------ page configurations (issue 24)
# The live page is checked as a phone shows it to different people: the default phone, the
# user's 200 % text setting, dark mode, and a phone turned sideways.  200 % text is Chromium's own
# font-size setting (the one a user changes), set through the DevTools protocol's
# ``Page.setFontSizes``: the default font becomes 32 px instead of 16, so every rem/em grows and
# px sizes do not, as on the user's phone.
PAGE_CONFIGS = {
    "phone": {"viewport": {"width": 360, "height": 740}},
    "text200": {"viewport": {"width": 360, "height": 740}, "font_px": 32},
    "dark": {"viewport": {"width": 360, "height": 740}, "color_scheme": "dark"},
    "landscape": {"viewport": {"width": 740, "height": 360}},
}


@contextmanager
def configured_page(browser, config: str, init_script: str | None = None) -> Iterator:
    """A touch phone page in ``browser`` set up as ``PAGE_CONFIGS[config]``; on leaving,
    asserts that no script on the page failed."""
    setup = PAGE_CONFIGS[config]
    errors: list[str] = []
    context = browser.new_context(viewport=setup["viewport"], device_scale_factor=2, is_mobile=True,
                                  has_touch=True, color_scheme=setup.get("color_scheme", "light"))
    try:
        if init_script:
            context.add_init_script(init_script)
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        if setup.get("font_px"):
            cdp = context.new_cdp_session(page)
            cdp.send("Page.setFontSizes", {"fontSizes": {"standard": setup["font_px"],
                                                         "fixed": round(setup["font_px"] * 13 / 16)}})
        yield page
    finally:
        context.close()
    assert errors == [], errors


# Evaluated in a page: what an accessibility check finds wrong there, as sentences.  Every
# visible interactive element (links, buttons, fields, summaries, the board's named targets)
# must have an accessible name and a tap target of at least 44 x 44 CSS px (a field's label
# counts as its target); every visible text must contrast at least 4.5:1 with what is behind it
# (HTML: the colours composited up the page; SVG: the shape under the text); and the page must
# not scroll sideways.  Disabled controls are exempt from contrast, as WCAG has it; with a modal
# dialog open only the dialog is checked (the page behind it is inert).
ACCESS_CHECK = r"""
() => {
  const problems = [];
  // behind an open modal dialog the page is inert: neither read nor touched
  const modal = [...document.querySelectorAll("dialog[open]")].find((d) => d.matches(":modal"));
  const shown = (e) => {
    if (modal && !modal.contains(e)) return false;
    const r = e.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) return false;
    for (let n = e; n && n.nodeType === 1; n = n.parentElement) {
      const s = getComputedStyle(n);
      if (s.display === "none" || s.visibility === "hidden" || Number(s.opacity) === 0) return false;
      // a folded <details> shows only its summary (Chromium still gives the rest a box)
      if (n !== e && n.tagName === "DETAILS" && !n.open && !n.querySelector(":scope > summary")?.contains(e)) return false;
    }
    return true;
  };
  const describe = (e) => {
    const id = e.id ? "#" + e.id : "";
    const cls = e.getAttribute("class") ? "." + e.getAttribute("class").trim().split(/\s+/).join(".") : "";
    const data = e.dataset && (e.dataset.square || e.dataset.reserve || e.dataset.cup || e.dataset.stock || "");
    return `${e.tagName.toLowerCase()}${id}${cls}${data ? "[" + data + "]" : ""}`;
  };
  const name = (e) => {
    if (e.getAttribute("aria-label")) return e.getAttribute("aria-label").trim();
    const by = e.getAttribute("aria-labelledby");
    if (by) return by.split(/\s+/).map((id) => document.getElementById(id)?.textContent || "").join(" ").trim();
    if (e.labels && e.labels.length) return [...e.labels].map((l) => l.textContent).join(" ").trim();
    if (e.alt) return e.alt;
    if (e.title) return e.title;
    return (e.textContent || "").trim();
  };
  // ---- names and tap targets
  const interactive = document.querySelectorAll(
    "a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [tabindex]:not([tabindex='-1'])");
  for (const e of interactive) {
    if (!shown(e)) continue;
    if (!name(e)) problems.push(`no accessible name: ${describe(e)}`);
    let target = e;
    if (e.labels && e.labels.length && e.labels[0].contains(e)) target = e.labels[0];
    const r = target.getBoundingClientRect();
    if (r.width < 43.5 || r.height < 43.5) problems.push(`tap target ${Math.round(r.width)}x${Math.round(r.height)} px: ${describe(e)}`);
  }
  // ---- contrast
  const parse = (c) => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const over = (top, under) => ({
    r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a),
    b: top.b * top.a + under.b * (1 - top.a), a: 1 });
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const backdrop = (e) => {
    const layers = [];
    for (let n = e; n && n.nodeType === 1; n = n.parentElement) {
      const c = parse(getComputedStyle(n).backgroundColor);
      if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; }
    }
    let colour = { r: 255, g: 255, b: 255, a: 1 };
    const canvas = parse(getComputedStyle(document.documentElement).backgroundColor);
    if (canvas && canvas.a > 0) colour = over(canvas, colour);
    for (const layer of layers.reverse()) colour = over(layer, colour);
    return colour;
  };
  const opacityOf = (e) => { let o = 1; for (let n = e; n && n.nodeType === 1; n = n.parentElement) o *= Number(getComputedStyle(n).opacity); return o; };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    const e = t.parentElement;
    if (!t.textContent.trim() || seen.has(e) || e.closest("svg, script, style, option")) continue;
    seen.add(e);
    if (!shown(e) || e.closest(":disabled")) continue;
    const r = e.getBoundingClientRect();
    if (r.width <= 2 && r.height <= 2) continue;  // visually hidden: for screen readers only
    const s = getComputedStyle(e);
    const fg = parse(s.color);
    const bg = backdrop(e);
    fg.a *= opacityOf(e);
    const value = ratio(over(fg, bg), bg);
    if (value < 4.5) problems.push(`contrast ${value.toFixed(2)}: ${describe(e)} "${t.textContent.trim().slice(0, 30)}"`);
  }
  for (const e of document.querySelectorAll("svg text")) {
    if (!shown(e) || !e.textContent.trim()) continue;
    let r = e.getBoundingClientRect();
    // off the window, or clipped by a board that scrolls inside its card: brought into view
    const onTop = () => document.elementsFromPoint(r.left + r.width / 2, r.top + r.height / 2).includes(e.closest("svg"));
    if (r.top < 0 || r.bottom > innerHeight || r.left < 0 || r.right > innerWidth || !onTop()) {
      e.scrollIntoView({ block: "center", inline: "center" });  // what lies under it is found on screen
      r = e.getBoundingClientRect();
    }
    const fg = parse(getComputedStyle(e).fill);
    if (!fg) continue;
    fg.a *= Number(getComputedStyle(e).fillOpacity) * opacityOf(e);
    let bg = null;
    // a halo (a wide stroke painted under the fill) is the text's own backdrop
    const ts = getComputedStyle(e);
    const halo = parse(ts.stroke);
    if (halo && halo.a > 0 && parseFloat(ts.strokeWidth) >= 3 && ts.paintOrder.startsWith("stroke")) bg = { ...halo, a: 1 };
    for (const under of bg ? [] : document.elementsFromPoint(r.left + r.width / 2, r.top + r.height / 2)) {
      if (under === e || under.tagName === "text" || !under.closest("svg")) continue;
      if (!["rect", "circle", "ellipse", "path", "polygon"].includes(under.tagName)) continue;
      const s = getComputedStyle(under);
      const fill = parse(s.fill);
      if (!fill || Number(s.fillOpacity) === 0 || fill.a === 0) continue;
      bg = over({ ...fill, a: fill.a * Number(s.fillOpacity) }, backdrop(under.closest("svg").parentElement));
      break;
    }
    if (!bg) bg = backdrop(e.closest("svg").parentElement);
    const value = ratio(over(fg, bg), bg);
    if (value < 4.5) problems.push(`contrast ${value.toFixed(2)}: svg ${describe(e)} "${e.textContent.trim()}"`);
  }
  // ---- no sideways scrolling
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth + 1)
    problems.push(`the page scrolls sideways: ${root.scrollWidth} px in ${root.clientWidth}`);
  return problems;
}
"""


def access_problems(page) -> list[str]:
    """What ``ACCESS_CHECK`` finds wrong on ``page`` (an empty list when nothing is)."""
    return page.evaluate(ACCESS_CHECK)


def board_box(page, selector: str = "#board svg") -> dict:
    """The board's box in the document (not the window: scrolling does not move it)."""
    return page.evaluate(
        """(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
        return {x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height}; }""",
        selector,
    )


class Screenshots:
    """Screenshots taken into pytest's temporary folder, and kept as well with the other browser
    tests' in test-artifacts/browser/access (pytest removes its older temporary folders)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def take(self, page, name: str) -> Path:
        """Screenshot ``page`` as ``name``.png; its path in pytest's folder."""
        path = self.folder / f"{name}.png"
        page.screenshot(path=str(path))
        kept = ARTIFACTS / "access"
        kept.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, kept / path.name)
        return path
