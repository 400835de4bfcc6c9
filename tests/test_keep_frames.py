"""Learning from play: with the user's consent the referee keeps every committed position as
a labelled frame (the picture, and what the game says stands on each square), bounded, in a
frames folder that recognition can be measured on and adapted to."""

import subprocess
import sys
from pathlib import Path

from engine import variant
from companion.demo import calibrate_demo
from companion.referee import Referee
from companion.session import GameSession
from tests.referee_streams import StagedCamera, game_steps, positions_of, recorded_moves, run
from vision.evaluate import evaluate_folder
from vision.frames_folder import FramesWriter, open_folder

SET = "gobblet-jr"
ROOT = Path(__file__).resolve().parent.parent


def test_the_referee_keeps_each_committed_position_as_a_labelled_frame(tmp_path):
    rules = variant(SET)
    moves = ["3b2", "2a1", "1c3", "3xa1", "2c1"]
    positions = positions_of(rules, SET, moves)
    camera = StagedCamera(game_steps(positions), seed=11, pieces=SET)
    calibration = calibrate_demo(camera)
    session = GameSession.new(tmp_path / "game", rules)
    referee = Referee(session, calibration, frames=FramesWriter(tmp_path / "frames", calibration, keep=3))
    camera.open()
    run(referee, camera)
    assert recorded_moves(session) == moves
    cal, truth = open_folder(tmp_path / "frames")
    assert len(truth) == 3  # the newest three of five, the oldest gone from the disk too
    assert len(list((tmp_path / "frames").glob("*.png"))) == 3
    # each frame's truth is the game's position after its move, top cups as size classes
    for item, position in zip(truth, positions[-3:]):
        assert item.tops == tuple(stack[-1] if stack else None for stack in position)
    res = evaluate_folder(tmp_path / "frames")
    assert res.boards == 3 and res.square_accuracy == 1.0


def test_keep_frames_must_not_be_negative(tmp_path):
    for command in ("serve", "watch"):
        out = subprocess.run([sys.executable, "-m", "companion.cli", command, "--keep-frames", "-1",
                              "--data", str(tmp_path), "--no-camera" if command == "serve" else "--source=demo"],
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert out.returncode != 0 and "argument --keep-frames: must be 0 (off) or more" in out.stderr, (command, out.stderr)
        assert "Traceback" not in out.stderr


def test_the_live_referee_keeps_frames_only_when_asked_in_the_data_folder(tmp_path):
    from companion.app import create_app
    from companion.services import CompanionConfig
    from companion.live import LiveReferee

    camera = StagedCamera(game_steps(positions_of(variant(SET), SET, ["3b2"])), seed=5, pieces=SET)
    calibration = calibrate_demo(camera)
    app = create_app(CompanionConfig(tmp_path, token="test-token-1", default_variant=SET, keep_frames=4))
    try:
        hub = app.extensions["cupboard"].hub
        assert LiveReferee(hub, calibration)._frames_writer() is None  # off unless asked
        live = LiveReferee(hub, calibration, keep_frames=app.extensions["cupboard"].config.keep_frames)
        writer = live._frames_writer()
        assert writer is not None and writer.folder == tmp_path / "frames" and writer.keep == 4
        assert (tmp_path / "frames" / "calibration.json").exists()
        assert live._frames_writer() is writer  # one folder per calibration
    finally:
        app.extensions["cupboard"].hub.close()
