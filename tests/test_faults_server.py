"""The server under races and under a LAN client that tries to exhaust it (real waitress on
loopback, bounded loops): no 500 for a move that was journalled, no 404 for a spectator while
games start, and a controller still answered within a second while one address holds 200
streams and 200 idle sockets."""

import http.client
import json
import random
import socket
import threading
import time

import pytest

from companion.app import create_app
from companion.services import CompanionConfig
from companion.journal import read_journal
from companion.session import CURRENT
from companion.web.wsgi import start_server

from conftest import TOKEN

HEADERS = {"X-Cupboard-Token": TOKEN, "Content-Type": "application/json"}


def request(port: int, method: str, path: str, body: dict | None = None, timeout: float = 10.0,
            source: str = "127.0.0.1") -> tuple[int, dict | bytes, float]:
    """One request on a new connection: status, JSON (or bytes), seconds taken."""
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


@pytest.fixture
def server(tmp_path):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, default_variant="gobblet-jr"))
    running = start_server(app)
    yield running, tmp_path
    running.stop()


def journals_by_game(data) -> dict[str, list]:
    """Every journal in the data folder (current and archived) by game id."""
    out = {}
    for path in [data / CURRENT, *sorted((data / "journals").glob("*.journal"))]:
        events = read_journal(path)[1]
        out[f"{int(events[0].time * 1000):x}"] = events
    return out


def test_new_games_and_moves_at_once_never_500_and_spectators_never_404(server):
    running, data = server
    port = running.port
    answers: list[tuple[str, int]] = []
    acknowledged: list[tuple[str, int, str]] = []
    lock = threading.Lock()

    starters_done = threading.Event()
    started_games = []

    def starter(n: int) -> None:
        for i in range(12):
            status, _, _ = request(port, "POST", "/api/game/new",
                                   {"variant": "gobblet-jr", "white": f"W{n}.{i}", "black": "B"})
            with lock:
                answers.append(("new", status))
                started_games.append(n)
                if len(started_games) == 4 * 12:
                    starters_done.set()
            time.sleep(0.03)  # room for moves in each game

    def mover(n: int) -> None:
        # Under a loaded machine the starters can replace nearly every game before a move
        # lands, so the movers go on (bounded) after the starters until each has had moves
        # answered: the journal check below needs acknowledged moves to mean anything.
        rng = random.Random(n)
        mine = 0
        for attempt in range(400):
            if attempt >= 80 and starters_done.is_set() and mine >= 5:
                break
            status, state, _ = request(port, "GET", "/api/state")
            if status == 200 and state["over"] and starters_done.is_set():
                status, _, _ = request(port, "POST", "/api/game/new",
                                       {"variant": "gobblet-jr", "white": f"M{n}", "black": "B"})
                with lock:
                    answers.append(("new", status))
                continue
            if status != 200 or not state["legal"] or state["over"]:
                continue
            move = rng.choice(state["legal"])["text"]
            status, body, _ = request(port, "POST", "/api/game/move", {"move": move, "game": state["game"]})
            with lock:
                answers.append(("move", status))
                if status == 200:
                    acknowledged.append((body["state"]["game"], body["event"], move))
                    mine += 1

    def spectator() -> None:
        for _ in range(150):
            status, _, _ = request(port, "GET", "/api/state")
            with lock:
                answers.append(("state", status))

    threads = [threading.Thread(target=starter, args=(n,)) for n in range(4)]
    threads += [threading.Thread(target=mover, args=(n,)) for n in range(2)]
    threads.append(threading.Thread(target=spectator))
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)

    statuses = {(kind, status) for kind, status in answers}
    assert not [a for a in answers if a[1] >= 500], statuses
    assert [a for a in answers if a[0] == "state" and a[1] != 200] == []
    assert [a for a in answers if a[0] == "new" and a[1] != 201] == []
    assert {s for k, s in answers if k == "move"} <= {200, 409, 422}  # a move in a replaced game: 409
    assert len(acknowledged) >= 10
    journals = journals_by_game(data)
    def bare(text: str) -> str:  # the other mover may have made it a capture, or a win, meanwhile
        return text.replace("x", "").rstrip("#?=")

    for game, seq, move in acknowledged:  # every answered move is in its game's journal, once
        event = journals[game][seq - 1]
        assert (event.seq, event.kind, bare(event.data["move"])) == (seq, "move", bare(move))


def _hold(port: int, source: str, streams: int, idle: int) -> list[socket.socket]:
    held = []
    for i in range(streams + idle):
        s = socket.socket()
        s.settimeout(2)
        try:
            s.bind((source, 0))
            s.connect(("127.0.0.1", port))
            if i < streams:
                s.sendall(b"GET /api/stream HTTP/1.1\r\nHost: cupboard\r\n\r\n")
        except OSError:
            pass  # refused or reset: the server protecting itself
        held.append(s)
    return held


@pytest.mark.parametrize("attacker", ["127.0.0.2", "127.0.0.1"], ids=["another-address", "the-same-address"])
def test_one_address_holding_200_streams_and_200_idle_sockets_cannot_stall_the_controller(server, attacker):
    running, _ = server
    port = running.port
    held = _hold(port, attacker, 200, 200)
    try:
        time.sleep(0.5)  # let the server take them all in
        times = []
        for move in ["3a1", "3b2", "2c3", "2a3"]:
            status, body, taken = request(port, "POST", "/api/game/move", {"move": move}, timeout=5)
            assert status == 200, body
            times.append(taken)
            status, page, taken = request(port, "GET", "/", timeout=5)
            assert status == 200 and b"<html" in page.lower()
            times.append(taken)
        assert max(times) < 1.0, times
        # and a page from another address still gets its live stream
        stream = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=("127.0.0.3", 0))
        stream.sendall(b"GET /api/stream HTTP/1.1\r\nHost: cupboard\r\n\r\n")
        got = b""
        while b"event: state" not in got:
            chunk = stream.recv(65536)
            assert chunk, got[:200]
            got += chunk
        assert got.startswith(b"HTTP/1.1 200")
        stream.close()
        # the server closed what the attacker held beyond its share of connections
        closed = 0
        for s in held:
            s.settimeout(0.01)
            try:
                data = s.recv(1 << 16)
                closed += data == b"" or b"503" in data.split(b"\r\n", 1)[0]
            except (TimeoutError, BlockingIOError):
                pass
            except OSError:
                closed += 1
        assert closed >= 400 - 32 - 10, closed
    finally:
        for s in held:
            s.close()


def test_one_address_may_hold_only_its_share_of_the_streams(tmp_path):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, max_streams=40, max_streams_per_address=3))
    client = app.test_client()
    opened = [client.get("/api/stream", buffered=False) for _ in range(3)]
    assert [r.status_code for r in opened] == [200, 200, 200]
    refused = client.get("/api/stream")
    assert refused.status_code == 503
    assert refused.get_json()["error"] == "too many open pages: 127.0.0.1 already has 3 pages open"
    other = client.get("/api/stream", buffered=False, environ_base={"REMOTE_ADDR": "192.168.1.20"})
    assert other.status_code == 200  # another phone is not held back
    for r in opened + [other]:
        r.close()
    app.extensions["cupboard"].hub.close()
