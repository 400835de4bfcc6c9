"""The first hour's machine time, as a new user meets it (issue 21):

    python bench/first_hour.py [--python python3] [--keep]

1. ``git clone`` of this checkout's branch, a fresh virtual environment and the README's
   ``pip install -e .``, then ``cupboard serve`` until its page answers: *clone to page*;
2. on that page, the calibration wizard's routes (markers, empty board, save) over a camera
   that is not calibrated yet (a folder replay of rendered frames stands in for the Pi
   camera, as in tests/test_first_hour.py): *page to calibrated*;
3. a new game, and the first move made on the table refereed: *calibrated to first move*,
   also given from the moment the hand left the board (the replay is read at the camera
   thread's 10 frames a second, so the move's frames start at a known time).

Everything runs in a temporary folder with its own HOME; nothing of the user's is touched.
The clone is new, so numba compiles the recogniser on its first refereed frame, as after a
user's install.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402

from companion.demo import script_of  # noqa: E402
from engine import variant  # noqa: E402
from hardware.pieces import load_piece_set  # noqa: E402
from hardware.synthetic import SyntheticCamera  # noqa: E402

MOVES = ["4b2", "4c3", "3a1"]
EMPTY_FRAMES = 300  # 30 s of the empty board: the wizard runs meanwhile
FPS = 10.0


def render_table(folder: Path) -> int:
    """Frames of the board: empty, then MOVES made by hand; returns the index of the first
    frame after the first move's hand has gone."""
    camera = SyntheticCamera(script=script_of(variant("gobblet"), load_piece_set("gobblet"), MOVES), seed=11,
                             pieces="gobblet", still_frames=20, move_frames=6)
    camera.open()
    frames = []
    while len(frames) < len(camera._timeline):
        frames.append(camera.read().image)
    folder.mkdir(parents=True)
    empty = cv2.imencode(".jpg", frames[0], [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes()
    for k in range(EMPTY_FRAMES):
        (folder / f"frame-{k:05d}.jpg").write_bytes(empty)
    for k, image in enumerate(frames, EMPTY_FRAMES):
        cv2.imwrite(str(folder / f"frame-{k:05d}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return EMPTY_FRAMES + camera.still_frames + camera.move_frames


def call(url: str, method: str = "GET", body=None, token: str | None = None):
    request = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(), method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("X-Cupboard-Token", token)
    with urllib.request.urlopen(request, timeout=120) as response:
        raw = response.read()
        return json.loads(raw) if "json" in response.headers.get("Content-Type", "") else raw


def run(step: str, argv: list[str], **kw) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, **kw)
    seconds = time.perf_counter() - start
    print(f"  {step}: {seconds:.1f} s", flush=True)
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default="python3", help="the Python a user has (default python3)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    branch = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--abbrev-ref", "HEAD"], capture_output=True,
                            text=True, check=True).stdout.strip()
    tmp = Path(tempfile.mkdtemp(prefix="cupboard-first-hour-"))
    home = tmp / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "VIRTUAL_ENV", "PYTHONPATH", "CUPBOARD_"))}
    env["HOME"] = str(home)
    clone = tmp / "cupboard"
    table = tmp / "camera"
    move_frame = render_table(table)
    print(f"first hour on branch {branch} in {tmp}")
    proc = None
    try:
        start = time.perf_counter()
        run("git clone", ["git", "clone", "--quiet", "--branch", branch, str(ROOT), str(clone)])
        run("python3 -m venv .venv", [args.python, "-m", "venv", ".venv"], cwd=clone, env=env)
        run("pip install -q -e .", [str(clone / ".venv/bin/pip"), "install", "-q", "-e", "."], cwd=clone, env=env)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        serve_start = time.perf_counter()
        proc = subprocess.Popen([str(clone / ".venv/bin/cupboard"), "serve", "--source", str(table), "--host",
                                 "127.0.0.1", "--port", str(port)], cwd=clone, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        token = None
        for line in proc.stdout:
            if "players, open this link" in line:
                token = line.rsplit("?token=", 1)[1].strip()
                break
        base = f"http://127.0.0.1:{port}/"
        while True:
            try:
                call(base)
                break
            except OSError:
                time.sleep(0.05)
        page = time.perf_counter()
        print(f"  cupboard serve until its page answers: {page - serve_start:.1f} s")
        print(f"clone to page: {page - start:.1f} s", flush=True)

        status = call(base + "api/calibration")
        deadline = time.monotonic() + 30
        while status["frame"] is None and time.monotonic() < deadline:  # the page's "Look again"
            time.sleep(0.2)
            status = call(base + "api/calibration")
        assert status["markers"]["found"], status
        call(base + "api/calibration/empty", "POST", {"frames": 3, "set": "gobblet"}, token)
        call(base + "api/calibration/save", "POST", {}, token)
        calibrated = time.perf_counter()
        call(base + "api/game/new", "POST", {"variant": "gobblet"}, token)
        print(f"page to calibrated (wizard: markers, empty board, save): {calibrated - page:.1f} s", flush=True)
        while not call(base + "api/state")["moves"]:
            time.sleep(0.1)
            if time.perf_counter() - calibrated > 180:
                raise SystemExit("no move refereed in 3 minutes")
        moved = time.perf_counter()
        hand_gone = serve_start + move_frame / FPS  # at the latest: the camera starts before the page
        print(f"calibrated to the first move refereed: {moved - calibrated:.1f} s "
              f"(the replay showed the empty board until about {hand_gone - calibrated:.1f} s after calibration; "
              f"the move was refereed at most {moved - hand_gone:.1f} s after the hand left the board)")
        print(f"page to a calibrated, refereed first move: {moved - page:.1f} s of which the scripted empty board "
              f"{max(0.0, hand_gone - page):.1f} s")
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
