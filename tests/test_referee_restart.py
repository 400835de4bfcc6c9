"""``cupboard watch`` killed with SIGKILL mid-game and started again on the same data folder:
the game resumes where the journal left it and no move is lost or recorded twice, although
the demo camera replays the game from its start after each restart."""

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from companion.demo import DEMO_GAMES
from engine.record import load_records

ROOT = Path(__file__).resolve().parent.parent
MOVES = DEMO_GAMES["gobblet-jr"][1]


def journal_events(data: Path) -> list[dict]:
    """The complete events of the data folder's current journal (a torn last line dropped)."""
    path = data / "current.journal"
    if not path.exists():
        return []
    lines = path.read_bytes().split(b"\n")[1:-1]
    return [json.loads(line) for line in lines]


def moves_in(data: Path) -> list[str]:
    return [e["data"]["move"] for e in journal_events(data) if e["kind"] == "move"]


def watch(data: Path) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "companion.cli", "watch", "--source", "demo", "--set", "gobblet-jr",
           "--still-frames", "8", "--data", str(data)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def test_sigkill_at_random_points_loses_and_repeats_no_move(tmp_path):
    rng = random.Random(7)
    kills = 0
    for target in (rng.randint(2, 4), rng.randint(5, 7)):
        proc = watch(tmp_path)
        deadline = time.monotonic() + 120
        while len(moves_in(tmp_path)) < target and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(rng.uniform(0.0, 1.2))  # somewhere in the next hand visit or still period
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait()
        assert moves_in(tmp_path) == MOVES[: len(moves_in(tmp_path))]
    assert kills == 2
    proc = watch(tmp_path)
    out, _ = proc.communicate(timeout=240)
    assert proc.returncode == 0, out.decode()
    assert b"resuming the game" in out

    events = journal_events(tmp_path)
    moves = [e["data"] for e in events if e["kind"] == "move"]
    assert [m["move"] for m in moves] == MOVES
    assert [m["ply"] for m in moves] == list(range(1, len(MOVES) + 1))  # none twice, none lost
    kinds = {e["kind"] for e in events}
    assert "behind" in kinds  # the replayed start was recognised as the past, not as moves
    assert not kinds & {"illegal", "disagrees", "hidden-mismatch", "ambiguous", "pending"}
    (record_path,) = (tmp_path / "records" / "demo").glob("*.gbn")  # the demo's games are kept apart
    (record,) = load_records(record_path)
    assert record.tags["Demo"] == "yes"
    assert [m.text for m in record.moves] == MOVES
    assert all("conf" in m.annotations and m.annotations["source"] == "camera" for m in record.moves)
