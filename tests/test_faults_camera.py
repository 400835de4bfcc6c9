"""The camera and its calibration going wrong under ``cupboard serve`` and ``cupboard watch``,
for real (child processes, a replayed folder of rendered frames as the camera): a damaged
calibration leaves ``serve`` running without the camera and saying why, and makes ``watch``
exit with a clear message; a camera that goes away is journalled once (lost, then back) and
``watch`` can be stopped meanwhile."""

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import cv2
import pytest

from calibration import calibrate, save_calibration
from companion.cli import main as cli
from companion.journal import read_journal
from companion.session import CURRENT
from hardware.pieces import load_board, load_piece_set
from hardware.synthetic import empty_scene, random_scene, render_scene

TOKEN = "camera-faults-token"


@pytest.fixture(scope="module")
def rig(tmp_path_factory):
    """A folder of 600 rendered frames of an empty Gobblet Jr. board (hard links of one
    picture) and a calibration made from it."""
    root = tmp_path_factory.mktemp("rig")
    ps = load_piece_set("gobblet-jr")
    board = load_board(ps.default_board)
    image = render_scene(empty_scene(random_scene(ps, board, 5)), 1)[0]
    cal = root / "calibration.json"
    save_calibration(calibrate([image], ps, board), cal)
    frames = root / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "frame0000.png"), image)
    for i in range(1, 600):
        os.link(frames / "frame0000.png", frames / f"frame{i:04d}.png")
    return frames, cal


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_state(port: int, deadline: float) -> dict:
    while True:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/api/state")
            return json.loads(conn.getresponse().read())
        except OSError:
            assert time.monotonic() < deadline, "the server did not answer"
            time.sleep(0.1)


def serve(tmp_path, *extra: str) -> tuple[subprocess.Popen, int]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
         "--data", str(tmp_path / "data"), "--token", TOKEN, "--variant", "gobblet-jr", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=os.getcwd())
    return proc, port


def stop(proc: subprocess.Popen) -> tuple[str, str]:
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_serve_with_a_damaged_calibration_runs_without_the_camera_and_says_why(rig, tmp_path):
    frames, good = rig
    bad = tmp_path / "damaged.json"
    data = json.loads(good.read_text())
    data["canvas"]["width"] = {}
    bad.write_text(json.dumps(data))
    proc, port = serve(tmp_path, "--source", str(frames), "--calibration", str(bad))
    try:
        state = get_state(port, time.monotonic() + 60)
        assert state["camera"]["present"] is False
        assert any("calibration cannot be used" in p and "damaged.json" in p and "canvas.width" in p
                   for p in state["problems"]), state["problems"]
    finally:
        out, err = stop(proc)
    assert proc.returncode == 0
    assert "camera off: the calibration cannot be used" in out and "damaged.json" in out
    assert "Traceback" not in err


def test_watch_with_a_damaged_calibration_exits_with_a_clear_message(rig, tmp_path, capsys):
    frames, _ = rig
    bad = tmp_path / "damaged.json"
    bad.write_bytes(b'{"format": "cupboard-calibration", "version": 1, "piece_set": \xff}')
    code = cli(["watch", "--source", str(frames), "--calibration", str(bad), "--data", str(tmp_path / "d")])
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("cupboard watch: ") and "damaged.json: not UTF-8 text" in err


def test_serve_journals_the_camera_lost_and_back_once_each(rig, tmp_path):
    frames, cal = rig
    proc, port = serve(tmp_path, "--source", str(frames), "--calibration", str(cal))
    aside = tmp_path / "aside"
    try:
        deadline = time.monotonic() + 60
        state = get_state(port, deadline)
        assert state["camera"]["present"] is True
        time.sleep(1.0)  # some frames are read
        shutil.move(frames, aside)  # the camera goes away
        time.sleep(7.0)  # several retries, each failing
        shutil.move(aside, frames)
        journal = tmp_path / "data" / CURRENT
        while not any(e.kind == "camera-back" for e in read_journal(journal)[1]):
            assert time.monotonic() < deadline + 30, "the camera's return was not journalled"
            time.sleep(0.2)
    finally:
        if aside.exists():
            shutil.move(aside, frames)
        out, err = stop(proc)
    kinds = [e.kind for e in read_journal(tmp_path / "data" / CURRENT)[1]]
    assert kinds.count("camera-lost") == 1 and kinds.count("camera-back") == 1
    assert kinds.index("camera-lost") < kinds.index("camera-back")
    # each problem said once (the frame that could not be read, then the missing folder at
    # every retry), not every two seconds
    lost_lines = [line for line in err.splitlines() if "trying again" in line]
    assert 1 <= len(lost_lines) <= 2 and len(set(lost_lines)) == len(lost_lines), err
    assert "no such folder" in lost_lines[-1]


def test_watch_stops_on_ctrl_c_while_the_camera_is_lost(rig, tmp_path):
    frames, cal = rig
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "watch", "--source", str(frames), "--calibration", str(cal),
         "--data", str(tmp_path / "data"), "--variant", "gobblet-jr"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=os.getcwd())
    aside = tmp_path / "aside"
    try:
        journal = tmp_path / "data" / CURRENT
        deadline = time.monotonic() + 60
        while not journal.exists() or not read_journal(journal)[1]:
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.1)
        time.sleep(2.0)  # the game is started before the camera is opened: let it read frames
        assert proc.poll() is None
        shutil.move(frames, aside)
        while not any(e.kind == "camera-lost" for e in read_journal(journal)[1]):
            assert time.monotonic() < deadline and proc.poll() is None, "the loss was not journalled"
            time.sleep(0.1)
        time.sleep(1.0)  # waiting for the camera now
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
        if aside.exists():
            shutil.move(aside, frames)
    assert proc.returncode == 0, err
    assert "stopped while the camera was lost" in out
