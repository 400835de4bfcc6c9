"""Calibration from rendered empty-board frames, its file, and the file's validation."""

import json

import numpy as np
import pytest

from calibration import CalibrationError, calibrate, load_calibration, save_calibration
from calibration.locate import detect_markers
from hardware.camera_model import project
from hardware.markers import marker_corners_world
from hardware.pieces import load_board, load_piece_set
from hardware.synthetic import empty_scene, random_scene, render_scene


@pytest.fixture(scope="module")
def made():
    ps = load_piece_set("storer-clear")
    b = load_board(ps.default_board)
    scene = empty_scene(random_scene(ps, b, 21))
    cal = calibrate([render_scene(scene, 1)[0], render_scene(scene, 2)[0]], ps, b)
    return scene, cal


def test_calibration_finds_camera(made):
    scene, cal = made
    assert cal.markers_seen == (0, 1, 2, 3)
    assert cal.camera_height_mm == pytest.approx(scene.pose.height, rel=0.03)
    assert cal.reprojection_error_px < 2.0
    assert [s.scale for s in cal.sizes] == sorted(s.scale for s in cal.sizes)


def test_round_trip(made, tmp_path):
    _, cal = made
    p = tmp_path / "cal.json"
    save_calibration(cal, p)
    back = load_calibration(p)
    assert back.pose == cal.pose and back.canvas == cal.canvas and back.colour == cal.colour
    assert back.pieces == cal.pieces and back.board == cal.board
    assert back.intrinsics == cal.intrinsics and back.intrinsics.model == "pi3"
    assert (back.reference == cal.reference).all()


def _broken(tmp_path, cal, change):
    p = tmp_path / "cal.json"
    save_calibration(cal, p)
    data = json.loads(p.read_text())
    change(data)
    p.write_text(json.dumps(data))
    return p


def test_validation_errors_name_file_and_problem(made, tmp_path):
    _, cal = made
    with pytest.raises(CalibrationError, match=r"cal\.json: unsupported version 99"):
        load_calibration(_broken(tmp_path, cal, lambda d: d.update(version=99)))
    with pytest.raises(CalibrationError, match=r"cal\.json: missing field 'pose'"):
        load_calibration(_broken(tmp_path, cal, lambda d: d.pop("pose")))
    with pytest.raises(CalibrationError, match=r"pose\.tvec: expected a list of 3 numbers"):
        load_calibration(_broken(tmp_path, cal, lambda d: d["pose"].update(tvec=[1, 2])))
    with pytest.raises(CalibrationError, match="reference_png"):
        load_calibration(_broken(tmp_path, cal, lambda d: d.update(reference_png="AAAA")))
    with pytest.raises(CalibrationError, match=r"piece_set: missing field 'sizes'"):
        load_calibration(_broken(tmp_path, cal, lambda d: d["piece_set"].pop("sizes")))
    p = tmp_path / "junk.json"
    p.write_text("[1, 2")
    with pytest.raises(CalibrationError, match=r"junk\.json: not valid JSON"):
        load_calibration(p)
    with pytest.raises(CalibrationError, match="no such file"):
        load_calibration(tmp_path / "missing.json")


def test_no_markers_is_a_clear_error():
    import numpy as np
    ps = load_piece_set("gobblet")
    with pytest.raises(CalibrationError, match="no board markers"):
        calibrate([np.full((720, 1280, 3), 128, np.uint8)], ps, load_board("gobblet-4x4"))


@pytest.mark.parametrize("seed", [4, 9, 30, 41])
def test_markers_of_known_size_are_found_with_fewer_thresholds(seed):
    """Re-locating the board looks near the last markers, at their known size, without
    OpenCV's largest threshold window: it finds the same markers as all three over the whole
    frame, with the same corners."""
    ps = load_piece_set("gobblet")
    b = load_board(ps.default_board)
    scene = random_scene(ps, b, seed)
    image, _ = render_scene(scene, seed)
    expected = {i: project(c, scene.intrinsics, scene.pose) for i, c in marker_corners_world(b).items()}
    rois = []
    for c in expected.values():
        (x0, y0), (x1, y1) = c.min(axis=0), c.max(axis=0)
        rois.append((int(x0 - 30), int(y0 - 30), int(x1 - x0 + 60), int(y1 - y0 + 60)))
    side = float(np.median([np.linalg.norm(c[1] - c[0]) for c in expected.values()]))
    everywhere = detect_markers(image, b)
    near = detect_markers(image, b, rois, marker_px=side)
    assert sorted(near) == sorted(everywhere) == [0, 1, 2, 3]
    for i in near:
        assert np.abs(near[i] - everywhere[i]).max() < 0.05
    # the regions are searched together: the same marker in two overlapping regions is taken
    # once, and regions cut by the frame's edge or left wholly outside it do no harm
    h, w = image.shape[:2]
    twice = detect_markers(image, b, rois + rois[:2] + [(-40, -40, 30, 30), (w - 20, h - 20, 200, 200)],
                           marker_px=side)
    assert sorted(twice) == [0, 1, 2, 3]
    for i in near:
        assert np.abs(twice[i] - near[i]).max() < 1e-3
