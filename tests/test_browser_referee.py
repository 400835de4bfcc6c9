"""The camera's doubts on a phone, in a real browser (Debian's Chromium via Playwright at
360x740): a pending detection appears on every page with its candidates, a player confirms
it by tapping; a lifted piece and the flipped board are drawn."""


import pytest
from browser_support import (
    ARTIFACTS,
    TOKEN,
    needs_chromium,
    phone_page,
    shot,
)

from companion.app import create_app
from companion.services import CompanionConfig
from companion.demo import calibrate_demo, demo_camera
from companion.live import LiveReferee
from companion.referee import Referee
from companion.web.wsgi import start_server
from vision.tracking import Explained, TrackEvent

pytestmark = needs_chromium


@pytest.fixture
def served(tmp_path):
    camera, _ = demo_camera("gobblet-jr", seed=2)
    calibration = calibrate_demo(camera)
    camera.close()
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, heartbeat=2.0, default_variant="gobblet-jr"))
    services = app.extensions["cupboard"]
    services.attach_live(LiveReferee(services.hub, calibration))
    running = start_server(app)
    yield services, running
    running.stop()


def raise_pending(services, text):
    """The live referee acting on the tracker's low-confidence move, as for camera frames."""
    live, session = services.live, services.hub.session
    if live.referee is None or live.referee.session is not session:
        live.referee = Referee(session, live.reading)
    move = session.board.parse_move(text)
    with session.lock:
        live.referee._act(TrackEvent("pending", 1.0, text, Explained((move,), 0.4), (move.to,), 0.4))


def test_confirm_a_pending_detection_by_tapping(served):
    services, running = served
    with phone_page() as page:
        page.goto(f"{running.url}?token={TOKEN}")
        page.wait_for_selector("#board svg")
        page.wait_for_function("() => document.body.classList.contains('control')")
        assert page.locator("#pending").is_hidden()

        raise_pending(services, "3b2")
        page.wait_for_selector("#pending:not([hidden])")
        assert page.locator("#pending-reason").inner_text() == "not sure: 3b2?"
        assert page.locator("#banner").is_visible() and "3b2" in page.locator("#banner-text").inner_text()
        shot(page, "phone-pending", keep_as="phone-pending.png")
        page.locator('#pending-candidates button[data-index="0"]').tap()
        page.wait_for_function("() => document.querySelectorAll('#moves li').length === 1")
        page.wait_for_selector("#pending", state="hidden")
        assert page.locator("#moves li").inner_text().endswith("3b2")
        assert page.locator("#banner").is_hidden()
        assert services.hub.session.board.ply == 1

        # a lifted piece is drawn, on the board turned for the player opposite
        services.hub.session.alert("lifted", "b2 lifted", {"square": 4})
        page.wait_for_selector('#board circle.lifted[data-square="b2"]')
        page.locator("#flip").check()
        page.wait_for_function("() => document.querySelector('#board').dataset.flipped === '1'")
        page.wait_for_selector('#board circle.lifted[data-square="b2"]')
        page.screenshot(path=str(ARTIFACTS / "lifted-flipped.png"))
        page.reload()
        page.wait_for_selector("#board svg")
        assert page.locator("#flip").is_checked()  # the choice is kept on this phone


def test_a_doubted_square_is_asked_about_and_answered_by_tapping(served):
    """A light cup the camera reads as dark after its move (rendered frames through the real
    recogniser, the misread put in as ``referee_streams.DarkForLight`` does): the game goes on,
    the phone asks whether the game is right on that square; "No" says what to do, "The game
    is right after all" ends the question."""
    from engine import variant
    from tests.referee_streams import StagedCamera, game_steps, misread_light, positions_of

    services, running = served
    live, session = services.live, services.hub.session
    moves = ["3b2", "2a1"]
    camera = StagedCamera(game_steps(positions_of(variant("gobblet-jr"), "gobblet-jr", moves)), seed=5,
                          pieces="gobblet-jr")
    live.use_calibration(calibrate_demo(camera))
    live.referee = Referee(session, live.reading)  # the calibration it reads with (no adaptation here)
    misread_light(live.referee, 4, lambda: session.board.ply >= 1)  # b2
    with phone_page() as page:
        page.goto(f"{running.url}?token={TOKEN}")
        page.wait_for_selector("#board svg")
        page.wait_for_function("() => document.body.classList.contains('control')")
        assert page.locator("#doubt").is_hidden()
        camera.open()
        for _ in range(camera.frame_count):
            live.on_frame(camera.read())  # as the camera thread does
        camera.close()
        assert [m.text for m in session.to_record().moves] == moves

        page.wait_for_selector("#doubt:not([hidden])")
        item = page.locator('#doubt .doubt-item[data-square="b2"]')
        assert item.locator(".reason").inner_text() == "The game says W3 on b2: is that right?"
        assert item.locator(".seen").inner_text() == "The camera sees a dark size 3 there."
        assert page.locator("#pending").is_hidden()  # no move to confirm
        assert "b2 looks like a dark size 3" in page.locator("#banner-text").inner_text()
        page.wait_for_function("() => document.querySelectorAll('#moves li').length === 2")
        shot(page, "phone-doubt", keep_as="phone-doubt.png")

        item.locator('button[data-answer="no"]').tap()
        page.wait_for_function(
            "() => document.querySelector('#doubt .seen').textContent.includes('Put the board back')")
        assert page.locator('#doubt button[data-answer="no"]').count() == 0
        assert page.locator('#doubt button[data-answer="yes"]').inner_text() == "The game is right after all"
        page.locator('#doubt button[data-answer="yes"]').tap()
        page.wait_for_selector("#doubt", state="hidden")
    answers = [e.data["game_is_right"] for e in session.journal.events if e.kind == "doubt-answered"]
    assert answers == [False, True]
    assert live.referee.tracker.doubts[4].confirmed
