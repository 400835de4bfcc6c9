"""Benchmark of the move generator: perft(5) from the start of gobblet and gobblet-jr.

    python bench/perft.py [--repeat N]

Prints each run's time and the median, with moves per second (leaf move sequences counted per
second of wall time).  RULES.md's counts are checked on every run.  perft counts the last ply
in bulk (``count_legal_moves``); the last line measures plain make/unmake speed too, pushing and
popping every leaf of gobblet perft(4).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.gobblet import Board, perft  # noqa: E402
from engine import variant  # noqa: E402

EXPECTED = {"gobblet": 19_024_320, "gobblet-jr": 16_635_384}


def main() -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per variant (median reported)")
    args = parser.parse_args()
    for name, expected in EXPECTED.items():
        times = []
        for _ in range(args.repeat):
            board = Board(variant(name))
            start = time.perf_counter()
            count = perft(board, 5)
            times.append(time.perf_counter() - start)
            if count != expected:
                print(f"{name}: perft(5) = {count}, expected {expected}", file=sys.stderr)
                return 1
        median = statistics.median(times)
        runs = ", ".join(f"{t:.2f}" for t in times)
        print(
            f"{name}: perft(5) = {expected:,} in {median:.2f} s median (runs: {runs} s); "
            f"{expected / median / 1e6:.2f} M moves/s"
        )
    board = Board(variant("gobblet"))
    start = time.perf_counter()
    leaves = perft(board, 4, bulk=False)
    seconds = time.perf_counter() - start
    print(f"gobblet: perft(4) = {leaves:,} with every leaf pushed and popped in {seconds:.2f} s; "
          f"{leaves / seconds / 1e3:.0f} k push+pop/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
