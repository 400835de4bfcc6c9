"""``cupboard serve`` for real: it prints the link and a QR code, serves the page and the
stream, and stops cleanly on SIGTERM keeping the game."""

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time

from companion.commands.serve_cmds import page_link


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_page_link():
    assert page_link("127.0.0.1", 8000, "abc") == "http://127.0.0.1:8000/?token=abc"
    assert page_link("::1", 8000, "a b") == "http://[::1]:8000/?token=a+b"
    assert page_link("0.0.0.0", 80, "t").startswith("http://")


def test_serve_runs_and_stops(tmp_path):
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
         "--data", str(tmp_path), "--token", "tok-tok-tok", "--no-camera", "--variant", "gobblet-jr"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=os.getcwd(),
    )
    try:
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if "▀" in line or "█" in line:
                break
        out = "".join(lines)
        assert f"http://127.0.0.1:{port}/?token=tok-tok-tok" in out
        deadline = time.monotonic() + 20
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                conn.request("GET", "/api/state")
                state = json.loads(conn.getresponse().read())
                break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        assert state["variant"] == "gobblet-jr"
        helpers = _children(proc.pid, "multiprocessing.spawn")
        if (os.cpu_count() or 1) > 1:  # full-strength hints get helper processes, started at once
            assert "hints: full strength searches on" in out
            assert helpers, "no search helper process"
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("POST", "/api/game/move", body=json.dumps({"move": "3b2"}),
                     headers={"X-Cupboard-Token": "tok-tok-tok", "Content-Type": "application/json"})
        assert conn.getresponse().status == 200
        stream = socket.create_connection(("127.0.0.1", port), timeout=5)
        stream.sendall(b"GET /api/stream HTTP/1.0\r\nHost: x\r\n\r\n")
        received = b""
        while b"event: state" not in received:
            chunk = stream.recv(65536)
            assert chunk, "the stream closed before the state"
            received += chunk
        proc.send_signal(signal.SIGTERM)
        rest = proc.communicate(timeout=20)[0]
        assert proc.returncode == 0
        assert "stopped" in rest
        for pid in helpers:  # the helpers end with the server
            assert not os.path.exists(f"/proc/{pid}"), f"helper {pid} outlived the server"
        stream.close()
    finally:
        if proc.poll() is None:
            proc.kill()
    # the game is kept and resumes
    from companion.session import GameSession

    session = GameSession.resume(tmp_path)
    assert session.board.ply == 1
    session.close()


def _children(pid: int, marker: str) -> list[int]:
    """The processes whose parent is ``pid`` and whose command line contains ``marker``."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read().decode(errors="replace")
        except OSError:
            continue
        if parent == pid and marker in cmdline:
            out.append(int(entry))
    return out
