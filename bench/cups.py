"""Cups figures: reachable positions, the X = 3 proof and prepared table, exact query times of
4-cup positions whose stocks hold at most 20 beans, and the search depth reached in 1 s (X = 6).

    python bench/cups.py [--quick] [--positions N]

``--quick`` skips the X = 3 start (a proof of ~15-20 s and a prepared table of ~0.4 GB).
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.cups import kernel, variant  # noqa: E402
from engine.cups.hints import prepare  # noqa: E402
from engine.cups.solve import ExactSolver, key_width, pack, search_moves  # noqa: E402


def reachable(token: str) -> tuple[int, float]:
    """Positions reachable from the start of ``token`` (side to move included) and the time."""
    game = variant(token).new_game()
    w = key_width(game.rules)
    keys = np.zeros(1 << 24, dtype=np.int64)
    stats = np.zeros(1, dtype=np.int64)
    start = time.perf_counter()
    n = kernel.count_reachable(pack(game, w), game.rules.cups, w, keys, stats)
    return n, time.perf_counter() - start


def twenty_bean_positions(n: int, seed: int = 7) -> list:
    """``n`` 4-cup positions with 20 beans in the stocks together: stocks split at random,
    cups at random up to their sowing count (the hard case: many sows and captures left)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        game = variant("cups").new_game()
        s = rng.randint(0, 20)
        game.stocks = [s, 20 - s]
        for p in (0, 1):
            game.cups[p] = [rng.randint(0, 4 - i) for i in range(4)]
        rest = 80 - 20 - sum(map(sum, game.cups))
        game.bowls = [rest // 2, rest - rest // 2]
        game.turn = rng.randint(0, 1)
        if not game.is_over():
            out.append(game)
    return out


def main() -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the X = 3 start")
    parser.add_argument("--positions", type=int, default=40, help="20-bean positions to time")
    args = parser.parse_args()

    # compile (or load the cached compilation) before timing anything
    warm = variant("cups[beans=4]").new_game()
    ExactSolver(warm.rules).move_values(warm)
    search_moves(warm, fixed_depth=3)
    reachable("cups[beans=4]")

    print("reachable positions from the start (side to move counted):")
    for token in ("cups[cups=3,beans=6]", "cups[cups=3,beans=9]", "cups[cups=3,beans=12]", "cups[cups=3,beans=15]",
                  "cups[beans=6]", "cups[beans=8]", "cups[beans=10]", "cups[beans=12]"):
        n, seconds = reachable(token)
        print(f"  {token:24s} {n:>12,d}  ({seconds:.2f} s)")

    print(f"exact values of every move, {args.positions} 4-cup positions with 20 beans in the stocks "
          "(fresh table each):")
    times, entries = [], []
    for game in twenty_bean_positions(args.positions):
        solver = ExactSolver(game.rules)
        start = time.perf_counter()
        solver.move_values(game)
        times.append(time.perf_counter() - start)
        entries.append(solver.entries)
    times.sort()
    print(f"  median {statistics.median(times) * 1000:.0f} ms, 90th percentile "
          f"{times[int(0.9 * len(times))] * 1000:.0f} ms, max {times[-1] * 1000:.0f} ms; "
          f"{sum(t <= 1.0 for t in times)}/{len(times)} within 1 s; table entries max {max(entries):,d}")
    start_game = variant("cups[beans=10]").new_game()
    solver = ExactSolver(start_game.rules)
    t0 = time.perf_counter()
    value = solver.value(start_game)
    print(f"  start of cups[beans=10] (20 beans): value {value:+d} in {(time.perf_counter() - t0) * 1000:.0f} ms")

    print("search depth in 1 s, cups[cups=6] from the start and after 10 random moves:")
    rng = random.Random(1)
    for plies in (0, 10):
        game = variant("cups[cups=6]").new_game()
        for _ in range(plies):
            game.push(rng.choice(game.legal_moves()))
        result = search_moves(game, 1.0)
        print(f"  after {plies:2d} moves: depth {result.depth}, proven {result.exact}, {result.nodes:,d} nodes, "
              f"{result.seconds:.2f} s")

    if not args.quick:
        rules = variant("cups[cups=3]")
        game = rules.new_game()
        solver = ExactSolver(rules, 22)
        t0 = time.perf_counter()
        value = solver.value(game)
        proof = time.perf_counter() - t0
        print(f"cups[cups=3] start (30 beans each): value {value:+d} with perfect play, proved in {proof:.1f} s, "
              f"{int(solver.stats[kernel.STATS_NODES]):,d} nodes, {solver.entries:,d} table entries, "
              f"table {solver.nbytes / 2**20:.0f} MiB")
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "cups3.npz"
            t0 = time.perf_counter()
            prepared = prepare(rules, path)
            build = time.perf_counter() - t0
            print(f"  prepared table (start and every first move exact): {build:.1f} s, "
                  f"{prepared.entries:,d} entries, {prepared.nbytes / 2**20:.0f} MiB in memory, "
                  f"file {path.stat().st_size / 2**20:.0f} MiB")
            t0 = time.perf_counter()
            loaded = ExactSolver.load(path, rules)
            load = time.perf_counter() - t0
            queries = []
            line = rules.new_game()
            for _ in range(6):
                t0 = time.perf_counter()
                ranked = loaded.move_values(line)
                queries.append(time.perf_counter() - t0)
                line.push(ranked[0].move)
            print(f"  load {load:.1f} s; exact hints along the best line, first 6 moves: "
                  + ", ".join(f"{q * 1000:.0f} ms" for q in queries)
                  + f" (median {statistics.median(queries) * 1000:.0f} ms)")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of this run: {rss:.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
