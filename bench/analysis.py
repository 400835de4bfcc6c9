"""Benchmark of the analysis of finished games: how long a game takes to analyse per family,
and how fast the server answers the live page meanwhile.

Plays games by self-play (4x4 Gobblet at the casual level, Gobblet Jr., Cups with 3 cups and 6
beans each), imports them as records into a throw-away data folder served on loopback
(waitress, as ``cupboard serve``), asks for each game's analysis through the API and polls it,
and times ``GET /api/state`` while the analyses run against the same requests on an idle
server.  Targets: a 4x4 game analysed in seconds; /api/state p95 under 100 ms while analysing.
Gobblet Jr. is exact when the table is in the cache (``cupboard prepare``), else proved by
search and slower.

    python bench/analysis.py [--games 3]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.app import create_app  # noqa: E402
from companion.services import CompanionConfig  # noqa: E402
from companion.web.wsgi import start_server  # noqa: E402
from engine import engine_player, play_opening, variant  # noqa: E402
from engine.game import moves_played  # noqa: E402
from engine.record import GameRecord, write_record  # noqa: E402

TOKEN = "bench-token"
VARIANTS = ("gobblet", "gobblet-jr", "cups[cups=3,beans=6]")


def self_play(token: str, seed: int, plies: int = 120):
    """A game of ``token`` played by the engine at the casual level after varied openings."""
    rng = random.Random(seed)
    game = variant(token).new_game()
    play_opening(game, rng, 4)
    player = engine_player(game, "casual")
    while game.outcome() is None and game.ply < plies:
        game.push(player(game, 0.05, rng))
    if game.outcome() is None:
        game.agree_draw()
    return game


def call(url: str, method: str = "GET", body: bytes | None = None, content: str = "application/json") -> tuple[dict, float]:
    """The JSON answer of one request and how long it took, in seconds."""
    request = urllib.request.Request(url, data=body, method=method,
                                     headers={"X-Cupboard-Token": TOKEN, "Content-Type": content})
    start = time.perf_counter()
    with urllib.request.urlopen(request, timeout=60) as answer:
        data = json.loads(answer.read())
    return data, time.perf_counter() - start


def state_latencies(base: str, stop: threading.Event, out: list[float]) -> None:
    """Time ``GET /api/state`` every 50 ms until ``stop``."""
    while not stop.is_set():
        out.append(call(base + "/api/state")[1])
        time.sleep(0.05)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3, help="games per variant")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cupboard-bench-analysis-") as data:
        app = create_app(CompanionConfig(Path(data), token=TOKEN, start_game=True))
        server = start_server(app)
        base = server.url.rstrip("/")
        try:
            idle: list[float] = []
            stop = threading.Event()
            watcher = threading.Thread(target=state_latencies, args=(base, stop, idle))
            watcher.start()
            time.sleep(2.0)
            stop.set()
            watcher.join()
            files = []
            for token in VARIANTS:
                for seed in range(args.games):
                    game = self_play(token, seed)
                    text = write_record(GameRecord.from_board(game)).encode()
                    answer, _ = call(f"{base}/api/records?name=bench", "POST", text, "text/plain")
                    files.append((token, answer["file"], len(moves_played(game)[1])))
            busy: list[float] = []
            stop = threading.Event()
            watcher = threading.Thread(target=state_latencies, args=(base, stop, busy))
            watcher.start()
            for token, name, plies in files:
                start = time.perf_counter()
                job, _ = call(f"{base}/api/analysis", "POST", json.dumps({"file": name, "index": 0}).encode())
                while job["status"] in ("queued", "running"):
                    time.sleep(0.1)
                    job, _ = call(f"{base}/api/analysis/{job['id']}")
                took = time.perf_counter() - start
                verdicts = [m["verdict"] or "unjudged" for m in job["moves"]]
                how = sorted({m.get("how", "") for m in job["moves"] if m["verdict"]}) or ["-"]
                counts = {v: verdicts.count(v) for v in ("best", "fine", "mistake", "blunder", "unjudged") if v in verdicts}
                print(f"{token:22s} {plies:3d} plies  {took:6.2f} s  ({took / max(1, plies) * 1000:5.0f} ms a move)  "
                      f"{', '.join(how)}  {counts}")
            stop.set()
            watcher.join()
            for name, values in (("idle", idle), ("while analysing", busy)):
                print(f"/api/state {name:16s} n={len(values):4d}  p50 {statistics.median(values) * 1000:6.1f} ms  "
                      f"p95 {percentile(values, 0.95) * 1000:6.1f} ms  max {max(values) * 1000:6.1f} ms")
        finally:
            app.extensions["cupboard"].hub.close()
            server.stop()


if __name__ == "__main__":
    main()
