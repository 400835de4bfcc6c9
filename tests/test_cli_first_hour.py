"""The command line's answers to the slips a new user makes in the first hour (issue 21), run
as the user runs them: one clear line naming the problem and what to do, never a traceback or
a raw ``[Errno N]``; and the commands added for that hour (``set new``, ``set list``,
``service install``)."""

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main
from hardware.pieces import load_board, load_piece_set, shipped_boards, shipped_piece_sets

ROOT = Path(__file__).resolve().parent.parent


def cupboard(*args, env=None, timeout=120, **kw):
    return subprocess.run([sys.executable, "-m", "companion.cli", *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=timeout, **kw)


def clean(result):
    assert "Traceback" not in result.stderr and "[Errno" not in result.stderr, result.stderr
    return result.stderr.strip()


def test_help_lists_the_sets_and_boards():
    from engine.gobblet.rules import VARIANTS

    out = cupboard("--help").stdout
    for name in shipped_piece_sets() + shipped_boards() + list(VARIANTS):
        assert name in out
    for sub in (["serve", "--help"], ["calibrate", "--help"], ["marker-sheet", "--help"]):
        text = " ".join(cupboard(*sub).stdout.split())
        assert "gobblet-jr" in text and ("gobblet-4x4" in text or sub[0] == "serve")


def test_port_out_of_range_is_refused(tmp_path):
    r = cupboard("serve", "--port", "99999", "--no-camera", "--data", str(tmp_path))
    assert r.returncode == 2 and "99999 is not a port: use 1 to 65535" in r.stderr


def _serve(data, port, *extra):
    return subprocess.Popen([sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1", "--port",
                             str(port), "--data", str(data), "--no-camera", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)


def _wait_serving(proc):
    for line in proc.stdout:
        if "cupboard is serving" in line:
            return
    raise AssertionError("the server did not start")


def test_a_port_in_use_and_a_busy_data_folder_are_explained(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = cupboard("serve", "--host", "127.0.0.1", "--port", str(port), "--data", str(tmp_path / "a"), "--no-camera")
        assert r.returncode == 1
        assert f"port {port} is already in use" in clean(r) and "--port" in r.stderr

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    first = _serve(tmp_path / "shared", port)
    try:
        _wait_serving(first)
        r = cupboard("serve", "--host", "127.0.0.1", "--port", str(port + 1), "--data", str(tmp_path / "shared"),
                     "--no-camera")
        assert r.returncode == 1
        err = clean(r)
        assert f"the data folder {tmp_path / 'shared'} is in use by cupboard serve (process {first.pid})" in err
        assert "--data DIR" in err
    finally:
        first.terminate()
        first.wait(timeout=20)
    # once the first has stopped, the folder is free again
    second = _serve(tmp_path / "shared", port)
    try:
        _wait_serving(second)
    finally:
        second.terminate()
        second.wait(timeout=20)


def test_unknown_variant_is_refused_even_with_a_game_in_progress(tmp_path):
    from companion.session import GameSession
    from engine import variant

    GameSession.new(tmp_path, variant("gobblet")).close()  # a game in progress in the folder
    r = cupboard("serve", "--variant", "nope", "--data", str(tmp_path), "--no-camera")
    assert r.returncode == 1 and "unknown variant 'nope'" in clean(r)


def test_missing_calibration_file_is_named(tmp_path):
    r = cupboard("serve", "--calibration", str(tmp_path / "cal.json"), "--data", str(tmp_path), "--demo")
    assert r.returncode == 1
    err = clean(r)
    assert f"--calibration {tmp_path / 'cal.json'}: no such file" in err and "Calibrate" in err


def test_a_calibration_the_demo_camera_does_not_use_is_named(tmp_path):
    cal = tmp_path / "cal.json"
    cal.write_text("{}", encoding="utf-8")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
                             "--data", str(tmp_path / "data"), "--demo", "--calibration", str(cal)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
    try:
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if "cupboard is serving" in line:
                break
        out = "".join(lines)
        assert f"so {cal} is not used (the demo camera calibrates itself)" in out
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_missing_record_file(capsys):
    assert main(["record", "validate", "/nonexistent/games.gbn"]) == 1
    err = capsys.readouterr().err
    assert err.strip() == "cupboard record: /nonexistent/games.gbn: no such file or folder"


def test_calibrate_missing_image_has_no_opencv_warning(tmp_path):
    r = cupboard("calibrate", "--source", "/nonexistent.jpg", "--set", "gobblet", "--out", str(tmp_path / "c.json"))
    assert r.returncode == 1
    assert clean(r).splitlines() == [
        "cupboard calibrate: /nonexistent.jpg: no such image file (give photos of the empty board, "
        "comma-separated, or 'synthetic' for the built-in camera)"]


def test_empty_position_is_refused(capsys):
    assert main(["moves", "--position", ""]) == 1
    assert "--position is empty" in capsys.readouterr().err
    assert main(["hint", "--position", "  ", "--level", "1"]) == 1
    assert "--position is empty" in capsys.readouterr().err


def test_hint_into_a_closed_pipe_is_quiet():
    """``cupboard hint | head -1``: the reader goes away before the hint is printed."""
    proc = subprocess.Popen([sys.executable, "-m", "companion.cli", "hint", "--variant", "gobblet-jr", "--level", "2"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0 and err == ""
    if shutil.which("sh") and shutil.which("head"):
        r = subprocess.run(f"'{sys.executable}' -m companion.cli hint --variant gobblet-jr --level 2 | head -1",
                           shell=True, cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert r.stderr == "" and len(r.stdout.splitlines()) == 1


def test_gitignore_and_licence():
    assert ".venv-ci/" in (ROOT / ".gitignore").read_text().splitlines()
    text = (ROOT / "pyproject.toml").read_text()
    assert 'license = "MIT"' in text and "license-files" in text


# ---------------------------------------------------------------- cupboard set new / list
SIZES = ["--size", "22,17,21", "--size", "30,24,29", "--size", "38,31,37", "--size", "46,38,45"]


def test_set_new_writes_a_set_the_tools_find(tmp_path):
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    r = cupboard("set", "new", "my-gobblet", *SIZES, "--square-mm", "57", "--border-mm", "9", env=env)
    assert r.returncode == 0, r.stderr
    data = tmp_path / "cupboard"
    assert f"wrote {data / 'sets' / 'my-gobblet.json'}" in r.stdout
    assert "cupboard marker-sheet --board my-gobblet" in r.stdout
    pieces = load_piece_set("my-gobblet", data)
    assert [s.outer_diameter_mm for s in pieces.sizes] == [22, 30, 38, 46]
    assert pieces.material == "opaque" and pieces.default_game == "gobblet"
    board = load_board(pieces.default_board, data)
    assert board.square_mm == 57 and board.border_mm == 9 and board.rows == 4
    listing = cupboard("set", "list", env=env).stdout
    assert "my-gobblet  (yours)" in listing and "gobblet-jr" in listing
    assert "my-gobblet (yours)" in cupboard("--help", env=env).stdout
    # the set is usable: calibrate the synthetic camera with it
    r = cupboard("calibrate", "--source", "synthetic", "--set", "my-gobblet", "--out", str(tmp_path / "c.json"),
                 env=env, timeout=300)
    assert r.returncode == 0 and "calibrated my-gobblet on my-gobblet" in r.stdout, r.stderr
    again = cupboard("set", "new", "my-gobblet", *SIZES, env=env)
    assert again.returncode == 1 and "exists" in clean(again) and "--force" in again.stderr


@pytest.mark.parametrize("sizes,message", [
    (["--size", "22,17"], "give three numbers"),
    (["--size", "22,30,21", "--size", "30,24,29"], "the top (30 mm) is wider than the base"),
    (["--size", "30,24,29", "--size", "22,17,21"], "not wider than size 1"),
    (["--size", "2.2,1.7,2.1", "--size", "3,2.4,2.9"], "outside 5-200 mm"),
    (["--size", "22,17,21", "--size", "60,50,60"], "wider than a square of gobblet-4x4"),
    (["--size", "22,x,21", "--size", "30,24,29"], "'x' is not a number"),
    (["--size", "22,17,21"], "2 to 6 sizes"),
])
def test_set_new_refuses_bad_measurements(tmp_path, sizes, message):
    r = cupboard("set", "new", "bad", "--like", "gobblet", *sizes, "--data", str(tmp_path))
    assert r.returncode == 1 and message in clean(r)
    assert not (tmp_path / "sets" / "bad.json").exists()


# ---------------------------------------------------------------- cupboard service install
@pytest.mark.parametrize("system", [False, True])
def test_service_install_writes_a_unit_systemd_accepts(tmp_path, system):
    args = ["service", "install", "--dir", str(tmp_path)] + (["--system", "--run-as", "root"] if system else [])
    r = cupboard(*args, "--", "--set", "gobblet", "--port", "8080")
    assert r.returncode == 0, r.stderr
    unit = tmp_path / "cupboard.service"
    text = unit.read_text()
    exec_line = next(line for line in text.splitlines() if line.startswith("ExecStart="))
    assert exec_line.endswith("serve --set gobblet --port 8080")
    assert exec_line.split("=", 1)[1].startswith("/")  # systemd wants an absolute path
    assert "Restart=on-failure" in text and "PYTHONUNBUFFERED=1" in text
    if system:
        assert "User=root" in text and "WantedBy=multi-user.target" in text
        assert "journalctl -u cupboard -f" in r.stdout and "sudo systemctl enable --now cupboard" in r.stdout
    else:
        assert "WantedBy=default.target" in text and "User=" not in text
        assert "journalctl --user -u cupboard -f" in r.stdout and "loginctl enable-linger" in r.stdout
    analyze = shutil.which("systemd-analyze")
    if analyze:
        # verified as a system unit: a user unit's checks need a user manager running
        check = subprocess.run([analyze, "verify", str(unit)],
                               capture_output=True, text=True, timeout=60)
        problems = [line for line in check.stderr.splitlines() if "cupboard.service" in line]
        assert check.returncode == 0 and problems == [], check.stderr


def test_service_install_refuses_serve_options_serve_refuses(tmp_path):
    r = cupboard("service", "install", "--dir", str(tmp_path), "--", "--port", "99999")
    assert r.returncode == 1 and "cupboard serve does not take" in clean(r)
    assert not (tmp_path / "cupboard.service").exists()
