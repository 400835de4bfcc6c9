"""Play adapts the table by itself: with frames kept (``serve --keep-frames``), a game refereed
from a real camera that ends starts ``cupboard adapt`` in the background on the frames kept;
``DATA/adaptation.json`` is written only when adapt keeps what it learnt, the live referee reads
through it from the next game (not in the game being played), and a failed adaptation is logged
and changes nothing.  A real game rendered by the synthetic camera, refereed by the real serve
wiring (``wire_camera``, ``LiveReferee``) with a real calibration, into a real data folder; the
adaptation runs in a real low-priority child process."""

import json
import logging
import shutil

import numpy as np
import pytest
from conftest import TOKEN

from companion.app import create_app
from companion.cli import build_parser
from companion.commands.serve_cmds import wire_camera
from companion.demo import calibrate_demo, demo_game
from companion.services import CompanionConfig
from companion.table_adapt import ADAPT_AFTER, TableLearner
from companion.web.preview import PreviewCamera
from engine import variant
from hardware.frames import EndOfStream
from tests.referee_streams import StagedCamera, game_steps, positions_of
from vision.adapt import ADAPTATION_FILE, load_adaptation
from vision.frames_folder import FramesWriter

SET = "gobblet-jr"
WAIT = 240  # seconds an adaptation may take on a busy machine


def _game_camera(seed: int = 3) -> StagedCamera:
    """The synthetic camera over a whole game of Gobblet Jr. (a win after 8 or 9 plies)."""
    rules = variant(SET)
    moves = demo_game(rules, seed, shortest=8, longest=9)
    return StagedCamera(game_steps(positions_of(rules, SET, moves), still=8, move=6), seed=seed, pieces=SET)


def _served(data, camera, keep_frames: int = 40, learn: bool = True):
    """The app and its services as ``cupboard serve`` wires them for a real camera calibrated in
    ``data`` (the adaptation file beside the calibration), frames kept, not started."""
    calibration = calibrate_demo(camera)
    app = create_app(CompanionConfig(data, token=TOKEN, default_variant=SET, keep_frames=keep_frames,
                                     adapt_in_play=learn, camera=PreviewCamera(camera)))
    services = app.extensions["cupboard"]
    wire_camera(services, services.camera, (calibration, None, None, {}, data / ADAPTATION_FILE))
    return app, services, calibration


def _play(services, camera):
    """Hand every frame of the camera's game to the live referee; the last frame."""
    last = None
    while True:
        try:
            last = camera.read()
        except EndOfStream:
            return last
        services.live.on_frame(last)


def _reads_through(rec, path) -> bool:
    table = load_adaptation(path)
    return ([sc.edge_scale for sc in rec.cal.sizes] == list(table.edge_scales) and rec.cal.colour == table.colour
            and np.allclose(rec.model.linear, table.weights.linear))


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A data folder after one whole game refereed with frames kept and the adaptation it
    started, waited for: the app, services, calibration, the referee of that game, how the
    adaptation ended and the game's last frame."""
    data = tmp_path_factory.mktemp("data")
    camera = _game_camera()
    app, services, calibration = _served(data, camera)
    live = services.live
    assert live.learner is not None and live.learner.after == ADAPT_AFTER
    last = _play(services, camera)
    session = services.hub.session
    assert session.over  # the game was refereed to its end from the pictures
    referee = live.referee
    assert live.learner.running  # started by the end of the game, in the background
    live.learner.process.wait(WAIT)
    live.on_frame(last)  # the camera thread hears how it ended with its next frame
    outcome = live.learner.outcome
    assert not live.learner.running
    yield app, services, calibration, referee, outcome, last
    services.hub.close()


def test_a_finished_game_adapts_to_the_table_and_the_next_game_reads_through_it(played):
    app, services, calibration, referee, outcome, last = played
    live, data = services.live, services.config.data_dir
    path = data / ADAPTATION_FILE
    assert outcome is not None and outcome.written, outcome
    table = load_adaptation(path)
    kept = len(list((data / "frames").glob("*.png")))
    assert table.frames == kept >= ADAPT_AFTER  # every frame the game kept
    assert outcome.text.startswith(f"adapted to this table from {kept} frames")
    assert not (data / "frames-adapting").exists()  # the snapshot adapted on is gone
    # the health panel says so at once; the game that ended still reads as it did
    health = app.test_client().get("/api/camera").get_json()
    assert health["adaptation"] == {"used": True, "text": outcome.text}
    # (by the calibration's own square model: the adaptation may keep every part of the
    # calibration, as on this table, where Jr.'s solid tops keep the calibration's weights)
    assert live.referee is referee and referee.recogniser.cal.square_model == calibration.square_model
    assert referee.recogniser.cal.colour == calibration.colour
    # the next game reads through it; the frames are still kept through the calibration itself
    services.hub.new_game(variant(SET), {})
    live.on_frame(last)
    assert live.referee is not referee and _reads_through(live.referee.recogniser, path)
    assert live.referee.recogniser.last_evidence is not None
    assert live.referee.frames.cal is calibration
    assert app.test_client().get("/api/camera").get_json()["adaptation"] == {
        "used": True, "text": f"adapted to this table from {kept} frames ({path})"}


def test_no_adaptation_without_enough_new_frames_since_the_last(played):
    services = played[1]
    learner, writer = services.live.learner, services.live.referee.frames
    assert learner.new_frames(writer) == 0  # all adapted on already
    assert not learner.game_ended(writer) and not learner.running


def _blank_frames(data, calibration, count: int) -> FramesWriter:
    """A frames folder of ``count`` pictures showing no board (the camera was knocked away)."""
    writer = FramesWriter(data / "frames", calibration, keep=40)
    for _ in range(count):
        writer.add(np.full((720, 1280, 3), 90, np.uint8), (None,) * calibration.board.squares)
    return writer


def test_a_failed_adaptation_is_logged_with_its_reason_and_changes_nothing(tmp_path, caplog):
    camera = StagedCamera(game_steps(positions_of(variant(SET), SET, [])), seed=5, pieces=SET)
    calibration = calibrate_demo(camera)
    learner = TableLearner(tmp_path, tmp_path / ADAPTATION_FILE)
    writer = _blank_frames(tmp_path, calibration, ADAPT_AFTER - 1)
    assert not learner.game_ended(writer)  # too few new frames: nothing started
    writer.add(np.full((720, 1280, 3), 90, np.uint8), (None,) * calibration.board.squares)
    with caplog.at_level(logging.INFO, logger="companion.table_adapt"):
        assert learner.game_ended(writer)
        outcome = learner.wait(WAIT)
    assert outcome is not None and not outcome.written
    assert "adapting to this table failed, nothing changed" in outcome.text
    assert "the board was found in none of the frames to adapt on" in outcome.text
    assert any(r.levelno == logging.WARNING and r.getMessage() == outcome.text for r in caplog.records)
    assert not (tmp_path / ADAPTATION_FILE).exists() and not learner.take_fresh()


def test_an_adaptation_that_cannot_be_written_is_logged_and_changes_nothing(played, tmp_path):
    """Frames adapt keeps what it learnt from (the game's), but the adaptation cannot be
    written where it goes (here a folder stands in its place, as a full disk would refuse it)."""
    services, calibration = played[1], played[2]
    shutil.copytree(services.config.data_dir / "frames", tmp_path / "frames")
    learner = TableLearner(tmp_path, tmp_path / ADAPTATION_FILE)
    (tmp_path / ADAPTATION_FILE).mkdir()
    assert learner.game_ended(FramesWriter(tmp_path / "frames", calibration, keep=40))
    outcome = learner.wait(WAIT)
    assert outcome is not None and not outcome.written and "failed, nothing changed" in outcome.text
    assert str(tmp_path / ADAPTATION_FILE) in outcome.text and "Traceback" not in outcome.text
    assert (tmp_path / ADAPTATION_FILE).is_dir() and not learner.take_fresh()


def test_an_adaptation_adapt_does_not_keep_is_not_written(played, tmp_path):
    """The game's frames with the players' colours swapped in the truth of those adapted on
    (every 4th is held apart, truly labelled): what adapt learns reads those worse, so it is
    not kept, the log says so, and no adaptation file is written."""
    services, calibration = played[1], played[2]
    shutil.copytree(services.config.data_dir / "frames", tmp_path / "frames")
    truth = json.loads((tmp_path / "frames" / "truth.json").read_text())
    for k, row in enumerate(truth["frames"]):
        if k % 4:
            row["tops"] = [{"L": "D", "D": "L"}.get(t[0], t[0]) + t[1:] for t in row["tops"]]
    (tmp_path / "frames" / "truth.json").write_text(json.dumps(truth))
    learner = TableLearner(tmp_path, tmp_path / ADAPTATION_FILE)
    assert learner.game_ended(FramesWriter(tmp_path / "frames", calibration, keep=40))
    outcome = learner.wait(WAIT)
    assert outcome is not None and not outcome.written
    assert outcome.text.startswith("adapting to this table changed nothing: adapted on ")
    assert "read the kept-apart frames worse: nothing written" in outcome.text
    assert not (tmp_path / ADAPTATION_FILE).exists() and not learner.take_fresh()


def test_a_game_left_for_a_new_one_adapts_too_and_a_failure_keeps_the_calibration(tmp_path):
    """A game abandoned for a new one (not finished) ends as well; an adaptation that fails
    leaves the live referee reading with the calibration alone, refereeing on."""
    camera = StagedCamera(game_steps(positions_of(variant(SET), SET, [])), seed=5, pieces=SET)
    app, services, calibration = _served(tmp_path, camera)
    try:
        live = services.live
        first = camera.read()
        live.on_frame(first)
        referee = live.referee
        assert referee is not None and referee.frames is not None
        # the frames kept show no board: adapting on them fails
        for _ in range(ADAPT_AFTER):
            referee.frames.add(np.full((720, 1280, 3), 90, np.uint8), (None,) * calibration.board.squares)
        services.hub.new_game(variant(SET), {})
        live.on_frame(first)
        assert live.referee is not referee and live.learner.running
        outcome = live.learner.wait(WAIT)
        assert outcome is not None and not outcome.written and "board was found in none" in outcome.text
        services.hub.new_game(variant(SET), {})
        live.on_frame(first)
        rec = live.referee.recogniser
        assert rec.cal.colour == calibration.colour and not (tmp_path / ADAPTATION_FILE).exists()
        assert "adaptation" not in app.test_client().get("/api/camera").get_json()
    finally:
        services.hub.close()


def test_it_stays_off_for_the_demo_camera_without_frames_kept_or_with_no_adapt(tmp_path):
    camera = StagedCamera(game_steps(positions_of(variant(SET), SET, [])), seed=5, pieces=SET)
    for keep, learn in ((0, True), (10, False)):
        app, services, _ = _served(tmp_path / f"{keep}-{learn}", camera, keep_frames=keep, learn=learn)
        assert services.live.learner is None
        services.hub.close()
    # the demo camera: no adaptation file to write
    calibration = calibrate_demo(camera)
    app = create_app(CompanionConfig(tmp_path / "demo", token=TOKEN, default_variant=SET, keep_frames=10,
                                     adapt_in_play=True, camera=PreviewCamera(camera)))
    services = app.extensions["cupboard"]
    wire_camera(services, services.camera, (calibration, variant(SET), None, {}, None))
    assert services.live.learner is None
    services.hub.close()
    args = build_parser().parse_args(["serve", "--keep-frames", "10", "--no-adapt"])
    assert args.no_adapt and not build_parser().parse_args(["serve"]).no_adapt

