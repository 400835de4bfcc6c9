"""The event stream: the state on connect, every journal event in order, resume with
Last-Event-ID, heartbeats, slow pages dropped, and the same over a real socket (waitress)."""

import http.client
import json
import socket
import threading
import time

import pytest

from companion.app import create_app
from companion.services import CompanionConfig
from companion.events import HEARTBEAT, Broadcaster, SseMessage, TooManyClients
from companion.web.wsgi import start_server

TOKEN = "sse-token"
AUTH = {"X-Cupboard-Token": TOKEN}


def parse(chunks):
    """SSE messages (dicts of field -> value) from raw chunks; comments as {"comment": ...}."""
    text = b"".join(chunks).decode()
    out = []
    for block in text.split("\n\n"):
        if not block:
            continue
        msg = {}
        for line in block.split("\n"):
            field, _, value = line.partition(": ")
            if field == "":
                msg["comment"] = value
            else:
                msg[field] = msg[field] + "\n" + value if field in msg else value
        out.append(msg)
    return out


class Stream:
    """A stream opened through the test client, read chunk by chunk."""

    def __init__(self, client, headers=None):
        self.response = client.get("/api/stream", headers=headers or {}, buffered=False)
        self.chunks = iter(self.response.response)

    def read(self, n):
        """The next ``n`` messages (heartbeats skipped, retry-only blocks skipped)."""
        out = []
        while len(out) < n:
            for msg in parse([next(self.chunks)]):
                if "event" in msg:
                    out.append(msg)
        return out

    def close(self):
        self.response.close()


@pytest.fixture
def app(tmp_path):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, heartbeat=0.2))
    yield app
    app.extensions["cupboard"].hub.close()


def test_message_framing():
    raw = SseMessage("game", "line one\nline two", id="g.3", retry_ms=1500).encode()
    assert raw == b"retry: 1500\nid: g.3\nevent: game\ndata: line one\ndata: line two\n\n"
    assert HEARTBEAT.startswith(b":") and HEARTBEAT.endswith(b"\n\n")


def test_state_first_then_events_in_order(app):
    client = app.test_client()
    stream = Stream(client)
    assert stream.response.mimetype == "text/event-stream"
    assert stream.response.headers["Cache-Control"] == "no-store"
    first = next(stream.chunks)
    assert first == b"retry: 2000\n\n"
    (hello,) = stream.read(1)
    state = json.loads(hello["data"])
    assert hello["event"] == "state" and hello["id"] == f"{state['game']}.1"
    for text in ["4c3", "4b2", "3a1"]:
        assert client.post("/api/game/move", json={"move": text}, headers=AUTH).status_code == 200
    client.post("/api/game/takeback", json={}, headers=AUTH)
    messages = stream.read(4)
    assert [m["id"] for m in messages] == [f"{state['game']}.{n}" for n in (2, 3, 4, 5)]
    events = [json.loads(m["data"])["event"] for m in messages]
    assert [(e["kind"], e["text"]) for e in events] == [
        ("move", "White played 4c3"), ("move", "Black played 4b2"), ("move", "White played 3a1"),
        ("takeback", "Took back 3a1"),
    ]
    last = json.loads(messages[-1]["data"])["state"]
    assert last["ply"] == 2 and last["seq"] == 5
    stream.close()
    assert app.extensions["cupboard"].broadcaster.count == 0


def test_heartbeats_keep_an_idle_stream_alive(app):
    stream = Stream(app.test_client())
    stream.read(1)
    assert next(stream.chunks) == HEARTBEAT
    stream.close()


def test_resume_with_last_event_id_sends_only_what_was_missed(app):
    client = app.test_client()
    game = client.get("/api/state").get_json()["game"]
    for text in ["4c3", "4b2", "3a1"]:
        client.post("/api/game/move", json={"move": text}, headers=AUTH)
    stream = Stream(client, {"Last-Event-ID": f"{game}.2"})
    missed = stream.read(2)
    assert [m["id"] for m in missed] == [f"{game}.3", f"{game}.4"]
    first, last = (json.loads(m["data"]) for m in missed)
    assert first["event"]["data"]["move"] == "4b2" and first["state"] is None
    assert last["event"]["data"]["move"] == "3a1" and last["state"]["ply"] == 3
    client.post("/api/game/move", json={"move": "3b1"}, headers=AUTH)
    (live,) = stream.read(1)
    assert live["id"] == f"{game}.5"
    stream.close()


def test_resume_up_to_date_sends_nothing_but_what_comes_next(app):
    client = app.test_client()
    game = client.get("/api/state").get_json()["game"]
    stream = Stream(client, {"Last-Event-ID": f"{game}.1"})
    client.post("/api/game/move", json={"move": "4a1"}, headers=AUTH)
    (msg,) = stream.read(1)
    assert msg["event"] == "game" and msg["id"] == f"{game}.2"
    stream.close()


@pytest.mark.parametrize("last_id", ["nonsense", "othergame.3", "{game}.99", "{game}.x"])
def test_resume_from_an_unknown_point_sends_the_whole_state(app, last_id):
    client = app.test_client()
    game = client.get("/api/state").get_json()["game"]
    stream = Stream(client, {"Last-Event-ID": last_id.format(game=game)})
    (msg,) = stream.read(1)
    assert msg["event"] == "state" and msg["id"] == f"{game}.1"
    stream.close()


def test_a_new_game_is_announced_as_a_whole_state(app):
    client = app.test_client()
    stream = Stream(client)
    stream.read(1)
    client.post("/api/game/new", json={"variant": "gobblet-jr"}, headers=AUTH)
    (msg,) = stream.read(1)
    state = json.loads(msg["data"])
    assert msg["event"] == "state" and state["variant"] == "gobblet-jr" and msg["id"] == f"{state['game']}.1"
    stream.close()


def test_too_many_streams_is_a_503(tmp_path):
    app = create_app(CompanionConfig(tmp_path, token=TOKEN, max_streams=2))
    client = app.test_client()
    streams = [Stream(client), Stream(client)]
    r = client.get("/api/stream")
    assert r.status_code == 503 and "too many open pages" in r.get_json()["error"]
    streams[0].close()
    again = Stream(client)
    assert again.read(1)[0]["event"] == "state"
    for s in (again, streams[1]):
        s.close()
    app.extensions["cupboard"].hub.close()


def test_a_page_that_falls_behind_is_dropped_not_waited_for():
    broadcaster = Broadcaster(max_clients=4, queue_size=3)
    slow, _ = broadcaster.connect(lambda: [])
    fast, _ = broadcaster.connect(lambda: [])
    fast_stream = fast.stream([], heartbeat=0.1)
    got = []
    for n in range(5):
        assert broadcaster.publish(SseMessage("x", str(n))) >= 1
        got.append(next(fast_stream))
    assert [parse([g])[0]["data"] for g in got] == ["0", "1", "2", "3", "4"]
    assert slow.dropped and broadcaster.count == 1
    assert list(slow.stream([], heartbeat=0.1)) == []  # its stream ends; the browser reconnects
    broadcaster.close()
    with pytest.raises(TooManyClients):
        broadcaster.connect(lambda: [])


# ---------------------------------------------------------------------- over a real socket
def read_events(sock_file, n, timeout=5.0):
    """The next ``n`` SSE messages with an event field, read from a socket file."""
    out, block = [], []
    deadline = time.monotonic() + timeout
    while len(out) < n:
        assert time.monotonic() < deadline, "timed out waiting for events"
        line = sock_file.readline().decode()
        if line in ("\n", "\r\n"):
            msg = parse([("\n".join(block) + "\n\n").encode()])
            block = []
            if msg and "event" in msg[0]:
                out.append(msg[0])
        else:
            block.append(line.rstrip("\r\n"))
    return out


def open_stream(port, last_id=None):
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    extra = f"Last-Event-ID: {last_id}\r\n" if last_id else ""
    sock.sendall(f"GET /api/stream HTTP/1.0\r\nHost: 127.0.0.1\r\n{extra}\r\n".encode())
    f = sock.makefile("rb")
    status = f.readline().decode()
    assert " 200 " in status
    while f.readline() not in (b"\r\n", b"\n"):
        pass
    return sock, f


def test_events_reach_every_page_promptly_over_waitress(app):
    server = start_server(app)
    try:
        pages = [open_stream(server.port) for _ in range(5)]
        for _, f in pages:
            assert read_events(f, 1)[0]["event"] == "state"
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        sent = time.monotonic()
        conn.request("POST", "/api/game/move", body=json.dumps({"move": "4c3"}),
                     headers={**AUTH, "Content-Type": "application/json"})
        assert conn.getresponse().status == 200
        for _, f in pages:
            (msg,) = read_events(f, 1)
            assert json.loads(msg["data"])["event"]["data"]["move"] == "4c3"
        assert time.monotonic() - sent < 2.0
        for sock, f in pages:
            f.close()
            sock.close()
        # the server notices the pages have gone and frees their threads
        deadline = time.monotonic() + 5
        while app.extensions["cupboard"].broadcaster.count and time.monotonic() < deadline:
            time.sleep(0.05)
        assert app.extensions["cupboard"].broadcaster.count == 0
    finally:
        server.stop()


def test_stopping_the_server_ends_open_streams(app):
    server = start_server(app)
    sock, f = open_stream(server.port)
    read_events(f, 1)
    done = threading.Event()

    def drain():
        while f.readline():
            pass
        done.set()

    threading.Thread(target=drain, daemon=True).start()
    server.stop()
    assert done.wait(5)
    sock.close()
