"""Frame differencing on rendered frames: what counts as motion, and on which squares."""

from dataclasses import replace

import cv2
import pytest

from calibration import calibrate
from hardware.pieces import load_board, load_piece_set
from hardware.synthetic import centred_offsets, empty_scene, random_scene, render_scene
from vision.motion import MotionDetector, square_masks, squares_changed


@pytest.fixture(scope="module")
def table():
    """An empty gobblet-jr board under a random camera, and its calibration."""
    pieces = load_piece_set("gobblet-jr")
    board = load_board(pieces.default_board)
    scene = empty_scene(random_scene(pieces, board, 11))
    image, _ = render_scene(scene, 5)
    cal = calibrate([image], pieces, board, intrinsics=scene.intrinsics, intrinsics_source="nominal")
    return scene, cal


def with_cup(scene, square: int, size: int = 2):
    position = tuple(((1, size),) if sq == square else () for sq in range(len(scene.position)))
    return replace(scene, position=position, offsets=centred_offsets(position))


def changed_squares(cal, first, second):
    motion = MotionDetector()
    motion.update(first)
    moving = motion.update(second)
    masks = square_masks(cal, cal.pose, (second.shape[1], second.shape[0]))
    return moving, squares_changed(motion.changed, masks)


def test_a_cup_put_down_changes_its_square_only(table):
    scene, cal = table
    before, _ = render_scene(scene, 5)
    after, _ = render_scene(with_cup(scene, 4), 5)
    assert changed_squares(cal, before, after) == (True, [4])


def test_the_same_picture_again_changes_nothing(table):
    """Sensor noise and a change of the light's level are not motion, anywhere."""
    scene, cal = table
    first, _ = render_scene(with_cup(scene, 0), 5)
    again, _ = render_scene(with_cup(scene, 0), 6)  # other noise
    brighter = cv2.convertScaleAbs(again, alpha=1.15, beta=0)
    assert changed_squares(cal, first, again) == (False, [])
    assert changed_squares(cal, first, brighter) == (False, [])
