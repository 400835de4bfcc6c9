"""Geometry a user can state in the data files: the markers' height relative to the playing
surface (cards beside a thick board), and a top's real profile (rounded, chamfered)."""

import json

import numpy as np
import pytest

from calibration.locate import estimate_pose
from hardware.camera_model import CameraPose, nominal_intrinsics, project
from hardware.markers import marker_corners_world
from hardware.pieces import DataFileError, board_from_dict, load_piece_set, piece_set_from_dict



def _board_dict(**markers) -> dict:
    data = json.loads(json.dumps({"name": "b", "rows": 4, "cols": 4, "square_mm": 60.0, "border_mm": 10.0,
                                  "line_mm": 2.0, "wood_bgr": [90, 140, 190], "line_bgr": [40, 60, 80],
                                  "markers": {"dictionary": "DICT_4X4_50", "ids": [0, 1, 2, 3], "size_mm": 30.0,
                                              "quiet_mm": 5.0}}))
    data["markers"].update(markers)
    return data


def test_markers_below_a_thick_board_give_the_right_pose_only_when_the_file_says_so():
    """Markers on cards on the table beside a board 12 mm thick lie 12 mm below the playing
    surface.  Seen by a tilted camera, the pose from their corners is right when the board file
    says ``height_mm: -12`` and off (camera height, fit) when it does not."""
    low = board_from_dict(_board_dict(height_mm=-12.0))
    flat = board_from_dict(_board_dict())
    assert low.markers.height_mm == -12.0 and flat.markers.height_mm == 0.0
    assert all(np.allclose(c[:, 2], -12.0) for c in marker_corners_world(low).values())
    intr = nominal_intrinsics("pi3")
    centre = np.array([120.0, 120.0, 0.0])
    tilt = np.radians(25)
    R = np.array([[1, 0, 0], [0, -np.cos(tilt), -np.sin(tilt)], [0, np.sin(tilt), -np.cos(tilt)]])
    cam = centre + np.array([0.0, -np.sin(tilt), np.cos(tilt)]) * 520.0
    pose = CameraPose.from_matrices(R, -R @ cam)
    image = {i: project(c, intr, pose) for i, c in marker_corners_world(low).items()}
    right = estimate_pose(image, low, intr)
    wrong = estimate_pose(image, flat, intr)
    assert abs(right.pose.height - pose.height) < 1.0 and right.error_px < 0.1
    assert abs(wrong.pose.height - pose.height) > 5.0 or wrong.error_px > 1.0


@pytest.mark.parametrize("bad, says", [(101, "from -100 to 100"), ("low", "must be a number"), (True, "must be a number")])
def test_a_bad_marker_height_is_named(bad, says):
    with pytest.raises(DataFileError, match=rf"markers\.height_mm: .*{says}"):
        board_from_dict(_board_dict(height_mm=bad))


def _set_dict(**size) -> dict:
    pieces = load_piece_set("gobblet")
    data = json.loads(json.dumps({"name": "mine", "description": "", "material": "opaque",
                                  "colours": [{"name": c.name, "top_bgr": list(c.top_bgr), "wall_bgr": list(c.wall_bgr)}
                                              for c in pieces.colours],
                                  "sizes": [{"name": s.name, "outer_diameter_mm": s.outer_diameter_mm,
                                             "top_diameter_mm": s.top_diameter_mm, "height_mm": s.height_mm}
                                            for s in pieces.sizes],
                                  "logical_sizes": [1, 2, 3, 4], "default_board": "gobblet-4x4"}))
    data["sizes"][3].update(size)
    return data


def test_a_rounded_top_edge_shows_inside_the_outer_diameter():
    square = piece_set_from_dict(_set_dict())
    rounded = piece_set_from_dict(_set_dict(top_edge="rounded", edge_mm=4.0))
    assert square.sizes[3].seen_edge_diameter_mm == square.sizes[3].outer_diameter_mm
    assert rounded.sizes[3].top_edge == "rounded"
    assert rounded.sizes[3].seen_edge_diameter_mm == rounded.sizes[3].outer_diameter_mm - 4.0


@pytest.mark.parametrize("size, says", [
    ({"top_edge": "bevelled"}, "not one of square, rounded, chamfered"),
    ({"top_edge": "rounded", "edge_mm": 30.0}, "quarter of the outer diameter"),
    ({"edge_mm": 2.0}, "a square top edge has no rounding"),
])
def test_a_bad_top_profile_is_named(size, says):
    with pytest.raises(DataFileError, match=rf"sizes\[3\]\.edge|sizes\[3\]\.top_edge|{says}") as e:
        piece_set_from_dict(_set_dict(**size))
    assert says in str(e.value)
