"""Benchmark of the live page's push: with N pages connected to the event stream, how long an
event takes to reach all of them; and how many kilobytes a page's first load costs.

Runs ``cupboard serve`` (waitress) in a child process on loopback with a throw-away data
folder, opens the streams from one thread with non-blocking sockets (so the measuring side
adds as little delay as it can), plays moves and take-backs through the API, and times each
event from the moment the server journalled it (the event's own timestamp, same clock) to its
arrival on each stream.  Target: p95 under 100 ms with 30 pages.

    python bench/sse.py [--clients 30] [--events 40]
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import json
import os
import re
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "bench-token"


def free_port() -> int:
    """A port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(data: Path, port: int, pages: int) -> subprocess.Popen:
    """``cupboard serve`` on loopback, once it answers."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
         "--data", str(data), "--token", TOKEN, "--no-camera", "--max-pages", str(pages + 4)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start")


class Page:
    """One stream, read without blocking."""

    def __init__(self, port: int, number: int = 0) -> None:
        # each page from its own loopback address, as phones on a LAN: the server limits
        # the streams one address may hold
        self.sock = socket.create_connection(("127.0.0.1", port), source_address=(f"127.0.0.{10 + number}", 0))
        self.sock.sendall(b"GET /api/stream HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        self.sock.setblocking(False)
        self.buf = b""
        self.arrivals: dict[str, tuple[float, bytes]] = {}

    def feed(self, now: float) -> None:
        """Read what arrived; note each complete message by id with its arrival time."""
        try:
            data = self.sock.recv(1 << 20)
        except BlockingIOError:
            return
        self.buf += data
        while b"\n\n" in self.buf:
            block, self.buf = self.buf.split(b"\n\n", 1)
            m = re.search(rb"^id: (\S+)$", block, re.M)
            if m:
                self.arrivals[m.group(1).decode()] = (now, block)


def api(port: int, method: str, path: str, body: dict | None = None) -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request(method, path, body=json.dumps(body or {}) if method == "POST" else None,
                 headers={"X-Cupboard-Token": TOKEN, "Content-Type": "application/json"})
    r = conn.getresponse()
    data = json.loads(r.read() or b"{}")
    conn.close()
    if r.status >= 400:
        raise SystemExit(f"{method} {path}: {r.status} {data}")
    return data


def wait_all(pages: list[Page], sel: selectors.BaseSelector, key: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while any(key not in p.arrivals for p in pages):
        if time.monotonic() > deadline:
            missing = sum(key not in p.arrivals for p in pages)
            raise SystemExit(f"{missing} page(s) never received {key}")
        for sk, _ in sel.select(timeout=0.5):
            sk.data.feed(time.time())


def first_load(port: int) -> dict[str, int]:
    """Bytes of the live page's first load: the HTML, every asset it names, what its script
    fetches."""
    sizes: dict[str, int] = {}

    def get(path: str) -> bytes:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", path)
        body = conn.getresponse().read()
        conn.close()
        return body

    html = get("/")
    sizes["/"] = len(html)
    gz = len(gzip.compress(html))
    for asset in re.findall(rb'(?:src|href)="(/static/[^"]+)"', html):
        body = get(asset.decode())
        sizes[asset.decode()] = len(body)
        gz += len(gzip.compress(body))
    # what the page's script fetches: the state (it comes as the stream's first message, the
    # same JSON as /api/state), who it is, and the invitation's QR code
    for path in ("/api/state", "/api/whoami", "/qr.svg"):
        body = get(path)
        sizes[path] = len(body)
        gz += len(gzip.compress(body))
    sizes["gzip-equivalent total"] = gz
    return sizes


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=30)
    parser.add_argument("--events", type=int, default=40)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="cupboard-bench-") as tmp:
        port = free_port()
        proc = start_server(Path(tmp), port, args.clients)
        try:
            sel = selectors.DefaultSelector()
            pages = [Page(port, i) for i in range(args.clients)]
            for p in pages:
                sel.register(p.sock, selectors.EVENT_READ, p)
            state = api(port, "GET", "/api/state")
            wait_all(pages, sel, f"{state['game']}.{state['seq']}")

            latencies, from_post = [], []
            for i in range(args.events):
                sent = time.time()
                if i % 2 == 0:
                    body = api(port, "POST", "/api/game/move", {"move": "4a1" if i % 4 == 0 else "4b2"})
                else:
                    body = api(port, "POST", "/api/game/takeback")
                game, seq = body["state"]["game"], body["state"]["seq"]
                key = f"{game}.{seq}"
                wait_all(pages, sel, key)
                for p in pages:
                    arrived, block = p.arrivals[key]
                    data = json.loads(b"\n".join(line[6:] for line in block.split(b"\n") if line.startswith(b"data: ")))
                    latencies.append((arrived - data["event"]["time"]) * 1000)
                    from_post.append((arrived - sent) * 1000)
            sizes = first_load(port)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()

    p95 = percentile(latencies, 0.95)
    print(f"SSE fan-out: {args.clients} pages, {args.events} events, {len(latencies)} deliveries")
    print(f"  journalled -> received: p50 {statistics.median(latencies):.1f} ms, "
          f"p95 {p95:.1f} ms, max {max(latencies):.1f} ms")
    print(f"  request sent -> received: p50 {statistics.median(from_post):.1f} ms, "
          f"p95 {percentile(from_post, 0.95):.1f} ms (includes the request and the fsync)")
    print(f"  target p95 < 100 ms: {'met' if p95 < 100 else 'NOT met'}")
    total = sum(v for k, v in sizes.items() if not k.startswith("gzip"))
    print(f"First load of the live page: {total / 1024:.1f} KB "
          f"({sizes['gzip-equivalent total'] / 1024:.1f} KB if gzipped)")
    for name, size in sizes.items():
        if not name.startswith("gzip"):
            print(f"  {name}: {size / 1024:.1f} KB")
    return 0 if p95 < 100 else 1


if __name__ == "__main__":
    sys.exit(main())
