"""The live referee inside the app: demo camera frames go to the hub's game, moves appear in
the state every page reads, and the demo starts a new game when its script starts again."""

from companion.app import create_app
from companion.services import CompanionConfig
from companion.demo import DEMO_GAMES, calibrate_demo, cycle_frames, demo_camera
from companion.live import LiveReferee
from engine import variant as rules_of


def test_demo_frames_become_moves_in_the_app(tmp_path):
    camera, rules = demo_camera("gobblet-jr", seed=4, loop=True)
    calibration = calibrate_demo(camera)
    app = create_app(CompanionConfig(tmp_path, token="t"))
    hub = app.extensions["cupboard"].hub
    cycle = cycle_frames(camera)
    live = LiveReferee(hub, calibration, rules, cycle)
    try:
        camera.open()
        first_game = None
        for _ in range(cycle):
            live.on_frame(camera.read())
            first_game = first_game or hub.session
        moves = [e.data["move"] for e in first_game.journal.events if e.kind == "move"]
        assert moves == DEMO_GAMES["gobblet-jr"][1]
        assert first_game.over
        state = app.test_client().get("/api/state").get_json()
        assert state["tags"]["White"] == "Demo White"
        live.on_frame(camera.read())  # the script starts again: so does the game
        assert hub.session is not first_game and not hub.session.board.move_stack
    finally:
        hub.close()


def test_a_game_the_calibrated_set_cannot_play_is_reported_once(tmp_path, caplog):
    """A resumed or default 4-size game with Jr. cups calibrated: no traceback per frame, one
    clear log line, and no move is made up; a Jr. game is then refereed as usual."""
    camera, _ = demo_camera("gobblet-jr", seed=4, loop=True)
    calibration = calibrate_demo(camera)
    app = create_app(CompanionConfig(tmp_path, token="t", default_variant="gobblet"))
    hub = app.extensions["cupboard"].hub
    live = LiveReferee(hub, calibration)
    try:
        camera.open()
        with caplog.at_level("ERROR"):
            for _ in range(5):
                live.on_frame(camera.read())
        errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
        assert errors == ["the camera cannot referee this game: the piece set 'gobblet-jr' has 3 sizes; "
                          "this game needs 4"]
        assert live.referee is None and not hub.session.board.move_stack
        hub.new_game(rules_of("gobblet-jr"), {})
        live.on_frame(camera.read())
        assert live.referee is not None and live.problem is None
    finally:
        hub.close()
