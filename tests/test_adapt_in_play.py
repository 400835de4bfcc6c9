"""What ``cupboard adapt`` learnt of a table is used in play: ``cupboard serve`` and ``cupboard
watch`` read through ``DATA/adaptation.json`` while it belongs to the calibration they referee
with (``vision.adapt.read_through``), say so, and say why not when it belongs to another
calibration (a recalibration since) or the file is damaged, without stopping.  Real rendered
frames, a real calibration and adaptation file, the real serve wiring and Flask test client,
the real calibration wizard and the real ``cupboard`` command line."""

import dataclasses
import shutil
import time
from pathlib import Path

import cv2
import numpy as np
import pytest
from conftest import AUTH, TOKEN, started_camera

from calibration.model import ColourModel, load_calibration
from companion.app import create_app
from companion.cli import build_parser, main
from companion.commands.serve_cmds import camera_for, wire_camera
from companion.services import CompanionConfig
from hardware.frames import Frame
from hardware.synthetic import SyntheticCamera
from tests.test_adapt import _folder
from vision.adapt import (ADAPTATION_FILE, TableAdaptation, calibration_id, load_adaptation, read_through,
                          save_adaptation)
from vision.frames_folder import open_folder
from vision.square_model import calibrated_model, load_model

SET = "gobblet-jr"


def _distinct_table(cal) -> TableAdaptation:
    """An adaptation of ``cal`` whose every value differs from the calibration's, so that a
    recogniser reading through it can be told from one reading the calibration alone."""
    shipped = load_model().for_material("opaque")
    weights = dataclasses.replace(shipped, linear=shipped.linear * 0.9, out=shipped.out * 1.1)
    return TableAdaptation(calibration_id(cal), "opaque", (0.95, 0.96, 0.97),
                           ColourModel(cal.colour.board_bgr, (60.0, 150.0, 230.0), (200.0, 90.0, 40.0), "adapted"),
                           weights, "a test's", frames=12)


def _reads_through(rec, table: TableAdaptation) -> bool:
    """Whether the recogniser ``rec`` reads with ``table``'s edges, colours and weights."""
    return ([sc.edge_scale for sc in rec.cal.sizes] == list(table.edge_scales) and rec.cal.colour == table.colour
            and np.allclose(rec.model.linear, table.weights.linear) and np.allclose(rec.model.out, table.weights.out))


@pytest.fixture(scope="module")
def table_data(tmp_path_factory) -> Path:
    """A data folder as a user's is after playing with ``--keep-frames``: the wizard's
    calibration, and the labelled frames kept through it (rendered, one table)."""
    data = tmp_path_factory.mktemp("data")
    frames = _folder(data / "frames", SET, "polygon", 4, seed=34)
    shutil.copy(frames / "calibration.json", data / "calibration.json")
    return data


def _camera_folder(data: Path, tmp: Path) -> Path:
    """The frames' pictures alone, as a replayed camera source."""
    cam = tmp / "camera"
    cam.mkdir()
    for png in sorted((data / "frames").glob("*.png")):
        shutil.copy(png, cam / png.name)
    return cam


def _serve(data: Path, tmp: Path, capsys):
    """``cupboard serve`` as the command wires it over a replay of the table's pictures, each
    picture handed to the live referee; the app, its services and what was printed."""
    args = build_parser().parse_args(["serve", "--source", str(_camera_folder(data, tmp)), "--data", str(data),
                                      "--token", TOKEN])
    camera, live = camera_for(args)
    app = create_app(CompanionConfig(data, token=TOKEN, default_variant=SET, camera=camera))
    services = app.extensions["cupboard"]
    wire_camera(services, camera, live)
    for k, png in enumerate(sorted((data / "frames").glob("*.png"))):
        services.live.on_frame(Frame(cv2.imread(str(png)), float(k), k))
    return app, services, capsys.readouterr().out


def test_serve_reads_through_the_adaptation_of_its_calibration(table_data, tmp_path, capsys):
    cal = load_calibration(table_data / "calibration.json")
    table = _distinct_table(cal)
    path = table_data / ADAPTATION_FILE
    save_adaptation(table, path)
    try:
        app, services, out = _serve(table_data, tmp_path, capsys)
        try:
            assert f"camera: adapted to this table from 12 frames ({path})" in out
            rec = services.live.referee.recogniser
            assert _reads_through(rec, table)
            assert rec.last_evidence is not None  # it read the pictures through them
            health = app.test_client().get("/api/camera").get_json()
            assert health["adaptation"] == {"used": True, "text": f"adapted to this table from 12 frames ({path})"}
            # the frames kept go on through the calibration itself: adapting on them again applies to it
            services.live.keep_frames = 3
            assert calibration_id(services.live._frames_writer().cal) == table.calibration_id
        finally:
            services.hub.close()
    finally:
        path.unlink()


@pytest.mark.parametrize("damage, says", [
    (lambda path, cal: save_adaptation(dataclasses.replace(_distinct_table(cal), calibration_id="0123456789abcdef"),
                                       path),
     "the adaptation was made through another calibration"),
    (lambda path, cal: path.write_text("{not json"), "adaptation.json: not valid JSON"),
    (lambda path, cal: path.write_text('{"format": "cupboard-adaptation", "version": 9}'), "unsupported version 9"),
])
def test_serve_says_why_an_adaptation_is_not_used_and_referees_on(table_data, tmp_path, capsys, damage, says):
    cal = load_calibration(table_data / "calibration.json")
    path = table_data / ADAPTATION_FILE
    damage(path, cal)
    try:
        app, services, out = _serve(table_data, tmp_path, capsys)
        try:
            line = next(x for x in out.splitlines() if x.startswith("camera: adaptation not used"))
            assert str(path) in line and says in line and "reading with the calibration alone" in line
            rec = services.live.referee.recogniser
            assert rec.cal.sizes == cal.sizes and rec.cal.colour == cal.colour
            assert np.allclose(rec.model.linear, calibrated_model(cal).for_material("opaque").linear)
            assert rec.last_evidence is not None  # the referee reads on
            health = app.test_client().get("/api/camera").get_json()
            assert health["adaptation"]["used"] is False and says in health["adaptation"]["text"]
        finally:
            services.hub.close()
    finally:
        path.unlink()


def test_read_through_without_a_file_is_the_calibration_and_says_nothing(table_data):
    cal = load_calibration(table_data / "calibration.json")
    use = read_through(cal, table_data / "no-such-adaptation.json")
    assert use.calibration is cal and not use.used and use.status == ""


@pytest.fixture(scope="module")
def wizard_camera():
    empty = tuple(() for _ in range(9))
    cam = started_camera(SyntheticCamera(script=[empty], pieces=SET, loop=True, seed=7))
    yield cam
    cam.stop()


def test_a_recalibration_in_the_wizard_does_not_keep_the_old_calibrations_adaptation(tmp_path, wizard_camera):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, camera=wizard_camera, default_variant=SET))
    services = app.extensions["cupboard"]
    client = app.test_client()

    def calibrate() -> dict:
        r = client.post("/api/calibration/empty", json={"frames": 2, "set": SET}, headers=AUTH)
        assert r.status_code == 200, r.get_json()
        r = client.post("/api/calibration/save", json={}, headers=AUTH)
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    def reading():
        """The recogniser of the live referee once it has read a frame through the calibration saved."""
        deadline = time.monotonic() + 30
        while True:
            referee = services.live.referee
            if referee is not None and referee.calibration is services.live.reading and referee.last_observation:
                return referee.recogniser
            assert time.monotonic() < deadline
            time.sleep(0.05)

    try:
        assert calibrate()["adaptation"] is None  # nothing adapted yet
        first = load_calibration(tmp_path / "calibration.json")
        table = _distinct_table(first)
        save_adaptation(table, tmp_path / ADAPTATION_FILE)
        # saving the same calibration again reads the adaptation made through it
        assert client.post("/api/calibration/save", json={}, headers=AUTH).get_json()["adaptation"].startswith(
            "adapted to this table from 12 frames")
        assert _reads_through(reading(), table)
        # a new calibration: the adaptation of the old one is not used, and the answer says so
        said = calibrate()["adaptation"]
        second = load_calibration(tmp_path / "calibration.json")
        assert calibration_id(second) != calibration_id(first)
        assert said.startswith("adaptation not used") and "made through another calibration" in said
        rec = reading()
        assert not _reads_through(rec, table) and rec.cal.colour == second.colour
        assert [sc.edge_scale for sc in rec.cal.sizes] == [sc.edge_scale for sc in second.sizes]
        assert client.get("/api/camera").get_json()["adaptation"] == {"used": False, "text": said}
    finally:
        wizard_camera.on_frame = None
        services.hub.close()


def test_adapt_writes_beside_the_calibration_and_watch_reads_through_it(tmp_path, capsys):
    """The user's steps: play with ``--keep-frames`` (here: the frames folder the referee keeps,
    rendered), ``cupboard adapt`` with no paths, then ``cupboard watch`` reads through what it
    learnt; a damaged file is named and the game is refereed without it."""
    data = tmp_path / "data"
    _folder(data / "frames", SET, "polygon", 4, seed=34)
    shutil.copy(data / "frames" / "calibration.json", data / "calibration.json")
    assert main(["adapt", "--data", str(data)]) == 0
    out = capsys.readouterr().out
    path = data / ADAPTATION_FILE
    assert f"adaptation written to {path}" in out and "serve and watch read through it" in out
    table = load_adaptation(path)
    assert table.frames == 4 and table.calibration_id == calibration_id(open_folder(data / "frames")[0])
    cam = _camera_folder(data, tmp_path)
    watch = ["watch", "--source", str(cam), "--calibration", str(data / "calibration.json"), "--data", str(data),
             "--new"]
    assert main(watch) == 0
    assert f"camera: adapted to this table from 4 frames ({path})" in capsys.readouterr().out
    path.write_text("{not json")
    assert main(watch) == 0
    captured = capsys.readouterr()
    assert f"camera: adaptation not used: {path}: not valid JSON" in captured.out
    assert "Traceback" not in captured.out + captured.err


def test_adapt_will_not_replace_the_adaptation_in_use_by_one_of_another_calibration(table_data, tmp_path, capsys):
    """``DATA/adaptation.json`` adapts the data folder's calibration: a folder of frames taken
    through another calibration is not adapted into its place unless ``--out`` says where."""
    cal = load_calibration(table_data / "calibration.json")
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(table_data / "calibration.json", data / "calibration.json")
    save_adaptation(_distinct_table(cal), data / ADAPTATION_FILE)
    other = _folder(tmp_path / "other", SET, "polygon", 1, seed=36)
    assert main(["adapt", "--data", str(data), "--frames", str(other)]) == 1
    err = capsys.readouterr().err
    assert "was taken through another calibration than" in err and "give --out FILE" in err
    assert load_adaptation(data / ADAPTATION_FILE).calibration_id == calibration_id(cal)  # untouched
    # a damaged file adapts nothing in use: adapting goes ahead (and here finds too few frames)
    (data / ADAPTATION_FILE).write_text("{not json")
    assert main(["adapt", "--data", str(data), "--frames", str(other)]) == 1
    err = capsys.readouterr().err
    assert "another calibration" not in err and "1 usable frames (nothing hidden); adapting needs at least 4" in err
    assert main(["adapt", "--data", str(tmp_path / "empty")]) == 1
    assert "no frames kept yet" in capsys.readouterr().err
