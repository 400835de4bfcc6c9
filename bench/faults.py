"""Fault bench: what cupboard loses, and how slow it gets, when things go wrong.

Prints four figures (targets: 0 lost, 0 non-4xx, p95 <= 1 s):

* kills survived / acknowledged moves lost: ``cupboard serve`` (in its own process group, so
  its helpers die with it, as at a power cut) is SIGKILLed at random moments while a
  controller plays moves; each restart must resume, and every move answered 200 must be in
  the journals, once.
* disk-full cycles / moves lost: the data folder on a 256 KB tmpfs (as root; otherwise the
  fault-injecting file layer) is filled until three moves are refused (507), then freed and
  played on; at the end the journals must hold exactly the acknowledged moves.
* fuzz cases / non-4xx answers: seeded mutations of a calibration, the piece sets, boards,
  records, journals and every JSON route's body; a case counts against when a reader raises
  anything but its documented error, or a route answers something not 2xx/4xx.
* the controller's p95 answer time (moves and page loads) while one address holds 200 event
  streams and 200 idle sockets, on loopback.

    python bench/faults.py [--kills 20] [--cycles 5] [--fuzz 3000] [--requests 40]
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import http.client
import json
import logging
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from companion.journal import read_journal  # noqa: E402
from companion.session import CURRENT, GameSession  # noqa: E402
from engine.gobblet import GOBBLET  # noqa: E402
from engine.gobblet.board import parse_position  # noqa: E402
from sse import free_port, percentile  # noqa: E402  (bench/sse.py, beside this file)

TOKEN = "bench-faults-token"
HEADERS = {"X-Cupboard-Token": TOKEN, "Content-Type": "application/json"}


def call(port: int, method: str, path: str, body: dict | None = None, timeout: float = 10.0,
         source: str = "127.0.0.1") -> tuple[int, object, float]:
    """One request on a new connection: status, JSON or bytes, seconds."""
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))
    try:
        conn.request(method, path, body=None if body is None else json.dumps(body), headers=HEADERS)
        response = conn.getresponse()
        raw = response.read()
    finally:
        conn.close()
    taken = time.monotonic() - started
    try:
        return response.status, json.loads(raw), taken
    except ValueError:
        return response.status, raw, taken


def quiet_move(position: str, rng: random.Random) -> str | None:
    """A random legal move that does not end the game (None when there is none)."""
    board = parse_position(position)
    moves = list(board.legal_moves())
    rng.shuffle(moves)
    for move in moves:
        after = board.copy()
        after.push(move)
        if after.outcome() is None:
            return board.move_text(move)
    return None


def journals(data: Path) -> dict[str, list]:
    """Every journal of a data folder (current and archived) by game id; read strictly, so a
    duplicated or missing event number fails here."""
    out = {}
    paths = [data / CURRENT] if (data / CURRENT).exists() else []
    for path in paths + sorted((data / "journals").glob("*.journal")):
        events = read_journal(path)[1]
        out[f"{int(events[0].time * 1000):x}"] = events
    return out


def lost(data: Path, acknowledged: list[tuple[str, int, str]]) -> tuple[int, int]:
    """(acknowledged moves not in the journals, moves in the journals nobody acknowledged
    beyond the one a kill may cut off before its answer)."""
    games = journals(data)
    missing = 0
    for game, seq, move in acknowledged:
        events = games.get(game, [])
        event = events[seq - 1] if seq <= len(events) else None
        if event is None or event.kind != "move" or event.data.get("move") != move:
            missing += 1
    journalled = sum(1 for events in games.values() for e in events if e.kind == "move")
    return missing, max(0, journalled - len(acknowledged))


# ---------------------------------------------------------------------------- kills


def start_serve(data: Path, port: int, cache: Path) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
         "--data", str(data), "--token", TOKEN, "--no-camera"],
        cwd=ROOT, env={**os.environ, "CUPBOARD_CACHE": str(cache)}, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            status, _, _ = call(port, "GET", "/api/state", timeout=1)
            if status == 200:
                return proc
        except OSError:
            pass
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    raise SystemExit("cupboard serve did not start")


def bench_kills(kills: int, seed: int) -> tuple[int, int, int, int]:
    """(kills, restarts that resumed the game as journalled, acknowledged moves, of which lost)."""
    rng = random.Random(seed)
    acknowledged: list[tuple[str, int, str]] = []
    survived = 0
    with tempfile.TemporaryDirectory(prefix="cupboard-faults-") as tmp:
        data, cache = Path(tmp) / "data", Path(tmp) / "cache"
        port = free_port()
        proc = start_serve(data, port, cache)
        for _ in range(kills):
            stop = threading.Event()

            def play() -> None:
                while not stop.is_set():
                    try:
                        status, state, _ = call(port, "GET", "/api/state", timeout=2)
                        if status != 200:
                            continue
                        move = None if state["over"] else quiet_move(state["position"], rng)
                        if move is None:
                            call(port, "POST", "/api/game/new", {"variant": "gobblet"}, timeout=2)
                            continue
                        status, body, _ = call(port, "POST", "/api/game/move",
                                               {"move": move, "game": state["game"]}, timeout=2)
                        if status == 200:
                            acknowledged.append((body["state"]["game"], body["event"], move))
                    except (OSError, http.client.HTTPException):
                        return  # the server was killed under the request: not acknowledged

            player = threading.Thread(target=play)
            player.start()
            time.sleep(rng.uniform(0.05, 0.6))
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            stop.set()
            player.join()
            proc = start_serve(data, port, cache)
            status, state, _ = call(port, "GET", "/api/state")
            games = journals(data)
            current = games.get(state["game"], [])
            if status == 200 and state["seq"] == (current[-1].seq if current else -1):
                survived += 1
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        missing, _ = lost(data, acknowledged)
    return kills, survived, len(acknowledged), missing


# ---------------------------------------------------------------------------- full disk


def _mount_tmpfs(path: Path) -> bool:
    if os.geteuid() != 0:
        return False
    path.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(path)],
                          capture_output=True, check=False)
    return done.returncode == 0


def _fill(disk: Path) -> Path:
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 1024)
    except OSError as e:
        if e.errno != errno.ENOSPC:
            raise
    finally:
        os.close(fd)
    return filler


def bench_disk_full(cycles: int, seed: int) -> tuple[int, str, int, int]:
    """(cycles, how the disk was filled, moves refused, moves lost or landed late)."""
    from companion.app import create_app
    from companion.services import CompanionConfig
    from engine import files

    rng = random.Random(seed)
    tmp = Path(tempfile.mkdtemp(prefix="cupboard-faults-disk-"))
    disk = tmp / "disk"
    real = _mount_tmpfs(disk)
    layer = None
    if not real:
        disk.mkdir()
        layer = files.FaultyLayer(partial=7)
        files.layer = layer
    data = disk / "data"
    acknowledged: list[tuple[str, int, str]] = []
    refused = 0
    try:
        app = create_app(CompanionConfig(data, token=TOKEN, default_variant="gobblet"))
        client = app.test_client()

        def move_once() -> int:
            state = client.get("/api/state").get_json()
            move = None if state["over"] else quiet_move(state["position"], rng)
            if move is None:
                return client.post("/api/game/new", json={"variant": "gobblet"}, headers=HEADERS).status_code
            r = client.post("/api/game/move", json={"move": move, "game": state["game"]}, headers=HEADERS)
            if r.status_code == 200:
                acknowledged.append((r.get_json()["state"]["game"], r.get_json()["event"], move))
            return r.status_code

        for _ in range(cycles):
            filler = _fill(disk) if real else None
            if layer is not None:
                layer.full = True
            failures = 0
            for _ in range(200):  # tmpfs fills by pages: the journal's last page takes a few more
                if move_once() == 507:
                    failures += 1
                    if failures == 3:
                        break
            refused += failures
            if filler is not None:
                filler.unlink()
            if layer is not None:
                layer.full = False
            for _ in range(6):
                move_once()
        app.extensions["cupboard"].hub.close()
        missing, extra = lost(data, acknowledged)
        resumed = GameSession.resume(data)  # the next start resumes
        if resumed is not None:
            resumed.close()
    finally:
        if layer is not None:
            files.layer = files.FileLayer()
        if real:
            subprocess.run(["umount", "-l", str(disk)], capture_output=True, check=False)
        shutil.rmtree(tmp, ignore_errors=True)
    return cycles, "a real 256 KB tmpfs" if real else "the fault-injecting file layer", refused, missing + extra


# ---------------------------------------------------------------------------- fuzz


def bench_fuzz(count: int, seed: int) -> tuple[int, int]:
    """(cases, cases answered with something but the documented error or a 2xx/4xx)."""
    from calibration import CalibrationError, calibrate, load_calibration, save_calibration
    from companion.app import create_app
    from companion.services import CompanionConfig
    from engine.record import RecordError, read_records
    from fuzzing import mutate_bytes, mutations
    from hardware.pieces import DATA_DIR, DataFileError, load_board, load_piece_set
    from hardware.synthetic import empty_scene, random_scene, render_scene

    cases = bad = 0
    rng = random.Random(seed)
    # thousands of short-lived files: in memory where there is room for them
    scratch = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    with tempfile.TemporaryDirectory(prefix="cupboard-faults-fuzz-", dir=scratch) as tmp:
        tmp_path = Path(tmp)
        ps = load_piece_set("gobblet-jr")
        board = load_board(ps.default_board)
        cal_path = tmp_path / "calibration.json"
        save_calibration(calibrate([render_scene(empty_scene(random_scene(ps, board, 21)), 1)[0]], ps, board), cal_path)
        readers = [(json.loads(cal_path.read_text()), load_calibration, CalibrationError, count)]
        for kind, loader in (("sets", load_piece_set), ("boards", load_board)):
            for original in sorted((DATA_DIR / kind).glob("*.json")):
                readers.append((json.loads(original.read_text()), loader, DataFileError, count // 10))
        path = tmp_path / "fuzzed.json"
        for data, loader, error, n in readers:
            for raw in mutations(data, n, seed):
                cases += 1
                path.write_bytes(raw)
                try:
                    loader(path)
                except error:
                    pass
                except Exception:  # noqa: BLE001 - counting what escapes is the point
                    bad += 1
        records = (ROOT / "examples" / "sample-games.gbn").read_bytes()
        for _ in range(count // 3):
            cases += 1
            try:
                for record in read_records(mutate_bytes(records, rng).decode("utf-8", "replace"), "fuzzed.gbn"):
                    record.replay()
            except RecordError:
                pass
            except Exception:  # noqa: BLE001
                bad += 1
        app = create_app(CompanionConfig(tmp_path / "app", token=TOKEN, default_variant="gobblet-jr", hint_seconds=0.02))
        client = app.test_client()
        from test_faults_inputs import GAME_ROUTES

        for n, (route, body) in enumerate(GAME_ROUTES.items()):
            for raw in mutations(body, max(20, count // 20), seed + n):
                cases += 1
                status = client.post(route, data=raw, headers=HEADERS).status_code
                if not (200 <= status < 300 or 400 <= status < 500):
                    bad += 1
        app.extensions["cupboard"].hub.close()
        source = tmp_path / "journal-source"
        session = GameSession.new(source, GOBBLET)
        for text in ["4a1", "4b2", "4c3", "4d4", "3a2"]:
            session.play(text)
        session.close()
        original = (source / CURRENT).read_bytes()
        for i in range(count // 5):
            cases += 1
            data = tmp_path / f"journal-{i % 2}"
            shutil.rmtree(data, ignore_errors=True)
            data.mkdir()
            (data / CURRENT).write_bytes(mutate_bytes(original, rng))
            try:
                resumed = GameSession.resume(data)
                if resumed is not None:
                    resumed.close()
            except Exception:  # noqa: BLE001 - a start must never refuse
                bad += 1
    return cases, bad


# ---------------------------------------------------------------------------- connection load


def bench_load(requests: int) -> tuple[list[float], int]:
    """The controller's answer times (moves and page loads) while 127.0.0.2 holds 200 streams
    and 200 idle sockets; and how many of its requests failed."""
    with tempfile.TemporaryDirectory(prefix="cupboard-faults-load-") as tmp:
        port = free_port()
        proc = start_serve(Path(tmp) / "data", port, Path(tmp) / "cache")
        held = []
        times: list[float] = []
        failed = 0
        try:
            for i in range(400):
                s = socket.socket()
                s.settimeout(2)
                try:
                    s.bind(("127.0.0.2", 0))
                    s.connect(("127.0.0.1", port))
                    if i < 200:
                        s.sendall(b"GET /api/stream HTTP/1.1\r\nHost: cupboard\r\n\r\n")
                except OSError:
                    pass
                held.append(s)
            time.sleep(0.5)
            rng = random.Random(1)
            for _ in range(requests):
                try:
                    status, state, taken = call(port, "GET", "/api/state", timeout=5)
                    move = None if state["over"] else quiet_move(state["position"], rng)
                    if move is None:
                        status, _, taken = call(port, "POST", "/api/game/new", {"variant": "gobblet"}, timeout=5)
                    else:
                        status, _, taken = call(port, "POST", "/api/game/move", {"move": move}, timeout=5)
                    times.append(taken)
                    failed += status >= 300
                    status, _, taken = call(port, "GET", "/", timeout=5)
                    times.append(taken)
                    failed += status != 200
                except (OSError, http.client.HTTPException):
                    failed += 1
                    times.append(5.0)
        finally:
            for s in held:
                s.close()
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
    return times, failed


@contextlib.contextmanager
def quiet_stderr():
    """Send the process's standard error (C libraries' too) to /dev/null meanwhile."""
    sys.stderr.flush()
    saved = os.dup(2)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--cycles", type=int, default=5)
    parser.add_argument("--fuzz", type=int, default=3000)
    parser.add_argument("--requests", type=int, default=40, help="controller moves under the connection load")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # the damage the bench does is reported, as it should be: not here
    os.environ["OPENCV_LOG_LEVEL"] = "OFF"

    kills, survived, acked, kill_lost = bench_kills(args.kills, args.seed)
    print(f"kills: {survived}/{kills} restarts resumed the journalled game; acknowledged moves lost: "
          f"{kill_lost} of {acked}")
    cycles, how, refused, disk_lost = bench_disk_full(args.cycles, args.seed)
    print(f"disk full: {cycles} cycles on {how}, {refused} moves refused (507); moves lost or landed late: {disk_lost}")
    with quiet_stderr():  # libpng reports each damaged picture it is given
        cases, bad = bench_fuzz(args.fuzz, args.seed)
    print(f"fuzz: {cases} cases; non-4xx answers or undocumented errors: {bad}")
    times, failed = bench_load(args.requests)
    p95 = percentile(times, 0.95)
    print(f"connection load (one address: 200 streams + 200 idle sockets): controller p95 {p95 * 1000:.0f} ms, "
          f"max {max(times) * 1000:.0f} ms over {len(times)} requests, {failed} failed")
    met = kill_lost == 0 and survived == kills and disk_lost == 0 and bad == 0 and p95 <= 1.0 and failed == 0
    print(f"targets (0 lost, 0 non-4xx, p95 <= 1 s): {'met' if met else 'NOT met'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
