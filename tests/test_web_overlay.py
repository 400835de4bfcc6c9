"""The preview's overlays drawn on a real rendered frame with a real calibration: the grid
where the board is, the markers found, each cup read with its size, hidden squares; and the
camera thread drawing them only into the preview."""

import dataclasses
import time

import cv2
import numpy as np
import pytest

from companion.app import create_app
from companion.services import CompanionConfig
from companion.demo import DEMO_GAMES, calibrate_demo, demo_camera, script_of
from companion.live import LiveReferee
from companion.web.overlay import (
    GRID,
    HIDDEN,
    MARKER_SEEN,
    draw_overlay,
    square_centres,
)
from companion.web.preview import PREVIEW_WIDTH, PreviewCamera
from engine import variant
from hardware.camera_model import project
from hardware.pieces import load_piece_set
from hardware.synthetic import SyntheticCamera
from vision.observation import OCCLUDED, SquareReading
from vision.recognise import Recogniser


@pytest.fixture(scope="module")
def scene():
    rules = variant("gobblet-jr")
    # the demo game after four moves: cups of every size on the board, no hand over it
    position = script_of(rules, load_piece_set("gobblet-jr"), DEMO_GAMES["gobblet-jr"][1][:4])[-1]
    camera = SyntheticCamera(script=[position], seed=3, pieces="gobblet-jr", still_frames=2)
    calibration = calibrate_demo(camera)
    frame = camera.read()
    camera.close()
    obs = Recogniser(calibration).recognise(frame.image)
    return calibration, frame.image, obs


def near(image, xy, colour, radius=4, tol=40):
    """Whether a pixel within ``radius`` of ``xy`` has ``colour`` (BGR, within ``tol``)."""
    x, y = int(round(xy[0])), int(round(xy[1]))
    patch = image[max(0, y - radius):y + radius + 1, max(0, x - radius):x + radius + 1].astype(int)
    return bool((np.abs(patch - np.array(colour)).max(axis=2) <= tol).any())


def test_overlay_draws_grid_markers_and_cups(scene):
    calibration, image, obs = scene
    assert obs.board_found and sorted(obs.markers_seen) == [0, 1, 2, 3]
    cups = [i for i, r in enumerate(obs.squares) if r.state == "cup"]
    assert len(cups) >= 2
    h, w = image.shape[:2]
    scale = PREVIEW_WIDTH / w
    small = cv2.resize(image, (PREVIEW_WIDTH, round(h * scale)), interpolation=cv2.INTER_AREA)
    plain = small.copy()
    out = draw_overlay(small, calibration, obs, scale)
    assert out is small and out.shape == plain.shape
    board = calibration.board
    corner = project(np.array([[0.0, 0.0, 0.0], [board.width_mm, board.depth_mm, 0.0]]),
                     calibration.intrinsics, calibration.pose) * scale
    for xy in corner:  # grid corners drawn in the grid's colour, where the board is
        assert near(out, xy, GRID) and not near(plain, xy, GRID, tol=20)
    # each marker found is outlined in green
    assert (np.abs(out.astype(int) - MARKER_SEEN).max(axis=2) <= 10).sum() > 40
    # each cup: a ring of its colour around its projected top (drawn pixels changed there)
    for i in cups:
        reading = obs.squares[i]
        size = calibration.sizes[reading.size]
        top = project(square_centres(calibration, size.height_mm)[i:i + 1], calibration.intrinsics, calibration.pose)[0] * scale
        x, y = np.round(top).astype(int)
        changed = np.abs(out[y - 12:y + 13, x - 12:x + 13].astype(int) - plain[y - 12:y + 13, x - 12:x + 13]).sum()
        assert changed > 0, f"nothing drawn for the cup on square {i}"


def test_overlay_marks_hidden_squares(scene):
    calibration, image, obs = scene
    squares = list(obs.squares)
    squares[4] = SquareReading(OCCLUDED)
    hidden = dataclasses.replace(obs, squares=tuple(squares))
    scale = 0.5
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    out = draw_overlay(small, calibration, hidden, scale)
    centre = project(square_centres(calibration)[4:5], calibration.intrinsics, calibration.pose)[0] * scale
    assert near(out, centre, HIDDEN, radius=3, tol=10)


def test_camera_thread_draws_overlays_into_the_preview_only(tmp_path):
    source, rules = demo_camera("gobblet-jr", seed=5, loop=True)
    calibration = calibrate_demo(source)
    source.close()
    camera = PreviewCamera(source, max_fps=20)
    app = create_app(CompanionConfig(tmp_path, token="t", camera=camera, default_variant="gobblet-jr"))
    services = app.extensions["cupboard"]
    services.attach_live(LiveReferee(services.hub, calibration, rules, 0))
    assert camera.on_frame is not None and camera.overlay is not None
    camera.start()
    try:
        deadline = time.monotonic() + 30
        while services.live.referee is None or services.live.referee.last_observation is None or camera.preview_jpeg() is None:
            assert time.monotonic() < deadline, camera.error
            time.sleep(0.05)
        time.sleep(0.6)  # a preview encoded after an observation exists
        preview = cv2.imdecode(np.frombuffer(camera.preview_jpeg(), np.uint8), cv2.IMREAD_COLOR)
        assert preview.shape[1] == PREVIEW_WIDTH
        cv2.imwrite(str(tmp_path / "preview.png"), preview)
        assert (np.abs(preview.astype(int) - GRID).max(axis=2) <= 50).sum() > 100
        frame = camera.latest_frame().image  # the referee's frame is untouched
        assert (np.abs(frame.astype(int) - GRID).max(axis=2) <= 5).sum() < 50
        health = camera.health()
        assert health["referee"] and health["overlay"] and health["board_found"] is True
        assert health["fps"] > 0 and "frame_ms" in health
    finally:
        camera.stop()
        services.hub.close()
