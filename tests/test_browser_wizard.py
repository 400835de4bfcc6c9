"""The calibration wizard in a real browser (Debian's Chromium at phone size) over a rendered
table: choose the camera module, capture the empty board, put the set where the page lists
it, measure it, check and save.  The screenshots are the ones docs/calibration.md shows."""

import pytest
from browser_support import TOKEN, needs_chromium, phone_page, shot
from conftest import started_camera
from test_wizard import Table, show

from companion.app import create_app
from companion.services import CompanionConfig
from companion.web.wsgi import start_server

pytestmark = needs_chromium


@pytest.fixture
def served(tmp_path):
    table = Table("gobblet", seed=11)
    camera = started_camera(table)
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, camera=camera, default_variant="gobblet"))
    running = start_server(app)
    yield running, camera, table
    running.stop()
    camera.stop()
    app.extensions["cupboard"].hub.close()


def test_the_wizard_measures_the_users_set(served):
    running, camera, table = served
    with phone_page() as page:
        page.goto(f"{running.url}calibrate?token={TOKEN}")
        page.wait_for_function("() => document.querySelectorAll('#camera option').length >= 4")
        assert page.locator("#camera").input_value() == "auto"
        page.select_option("#camera", "pi3")
        page.click("#btn-empty")
        page.wait_for_selector("#empty-result.good")
        assert "nominal pi3" in page.text_content("#empty-result")
        # the page lists where each cup goes: one of every size in both colours
        items = page.locator("#layout li").all_text_contents()
        assert items[0] == "a1: light size 1" and items[-1] == "a4: dark size 4" and len(items) == 8
        cups = []
        for text in items:
            square, what = text.split(": ")
            colour, _, size = what.split()
            cups.append((square, colour, int(size)))
        show(camera, table, cups)
        page.locator("#step-set").scroll_into_view_if_needed()
        page.click("#btn-set")
        page.wait_for_selector("#set-result.good")
        assert "Your set is measured" in page.text_content("#set-result")
        assert "done" in page.get_attribute("#step-set", "class")
        shot(page, "wizard-set-measured", keep_as="wizard-set-measured.png")

        page.click("#btn-check")  # the set as it stands: every size read
        page.wait_for_selector("#check-result.good")
        assert "Every size was read" in page.text_content("#check-result")
        shot(page, "wizard-check", keep_as="wizard-check.png")
