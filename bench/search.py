"""Benchmark of the search and the Gobblet Jr. solver.

    python bench/search.py [--positions 12] [--time 1.0] [--helpers N] [--nodes 150000]
                           [--cpu-depth 6] [--jr 200] [--jr-time 10]

4x4: a fixed suite of middle-game positions (seeded random play that neither wins nor allows a
win in one, 14 plies) searched for ``--time`` seconds each, as a full-strength hint searches
(with ``--helpers`` helper processes, by default one per core beyond the first): the median
full-width depth completed (the lower middle value; a forced result, which ends the deepening,
counts above any depth) and nodes per second; and the wall-clock seconds to complete depth
``--cpu-depth`` with the helpers.  Then, in one process: at a fixed budget of
``--nodes`` nodes, the depth reached; then by CPU time (load-independent, unlike the wall clock
the search obeys), the depth completed within ``--time`` CPU seconds and the CPU seconds to
complete depth ``--cpu-depth``.  3x3: ``--jr`` positions from seeded random play of 2 to 30
plies, the time to the exact value of each with the cached table (built first if missing).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.gobblet import GOBBLET, GOBBLET_JR, Board, Rules  # noqa: E402
from engine.gobblet.search.searcher import Searcher, SearchLimits  # noqa: E402
from engine.gobblet.search.parallel import default_helpers, forget_helpers, start_helpers  # noqa: E402
from engine.gobblet.tactics import play_safe_random  # noqa: E402


def quiet_position(rules: Rules, seed: int, plies: int) -> Board | None:
    """The position after ``plies`` random moves that never win and never allow a win in one
    (None when such play gets stuck)."""
    board = Board(rules)
    if not play_safe_random(board, random.Random(seed), plies):
        return None
    return Board.from_text(board.text())


def suite(rules: Rules, count: int, plies: int, first_seed: int = 0) -> list[Board]:
    """``count`` quiet positions from consecutive seeds."""
    out = []
    seed = first_seed
    while len(out) < count:
        b = quiet_position(rules, seed, plies)
        seed += 1
        if b is not None:
            out.append(b)
    return out


def bench_4x4(count: int, seconds: float, helpers: int) -> None:
    """The suite by the wall clock, which the search obeys, as a full-strength hint searches:
    with ``helpers`` helper processes (started and ready before the first position)."""
    if helpers:
        ready = start_helpers(helpers)
        print(f"gobblet: {ready} of {helpers} helper processes ready")
    depths, rates, cpu_rates = [], [], []
    for board in suite(GOBBLET, count, 14):
        forget_helpers(helpers)  # each position starts from empty tables, like the search alone
        cpu = time.process_time()
        r = Searcher(helpers=helpers).search(board, SearchLimits(time=seconds))
        cpu = time.process_time() - cpu
        # a forced result ends the deepening: no deeper search could change it (as in the CPU
        # figure, it counts above any depth)
        forced = r.mate is not None and abs(r.mate) <= r.depth
        depths.append(_MAX_DEPTH if forced else r.depth)
        rates.append(r.nps)
        own = r.nodes - r.helper_nodes  # this process's CPU time says nothing of the helpers'
        cpu_rates.append(own / cpu if cpu > 0 else 0.0)
        shown = f"forced result at depth {r.depth}" if forced else f"depth {r.depth}"
        print(f"  {board.text()}: {shown} (sel {r.seldepth}), {r.nodes} nodes "
              f"({r.helper_nodes} by helpers), {r.nps:,.0f} n/s (main process: {cpu_rates[-1]:,.0f} per CPU second)")
    # on a shared machine the wall clock (which the search obeys) runs ahead of this process's
    # CPU time; the CPU figures below (one process) are the ones to compare between versions
    shown = [d if d != _MAX_DEPTH else "forced" for d in sorted(depths)]
    print(f"gobblet: median depth {_depth_text(statistics.median_low(depths))} in {seconds} s with {helpers} "
          f"helpers ({shown}); median {statistics.median(rates):,.0f} nodes/s, "
          f"main process {statistics.median(cpu_rates):,.0f} per CPU second")


def bench_4x4_wall(count: int, target: int, helpers: int) -> None:
    """The wall-clock seconds to complete depth ``target`` on the suite, with ``helpers`` helper
    processes: unlike the depth within a time, it shows how far each position is from it."""
    times = []
    for board in suite(GOBBLET, count, 14):
        forget_helpers(helpers)  # (the first figure searched the same positions)
        start = time.perf_counter()
        Searcher(helpers=helpers).search(board, SearchLimits(time=None, depth=target))
        times.append(time.perf_counter() - start)
    print(f"gobblet: median {statistics.median(times):.2f} s to depth {target} with {helpers} helpers "
          f"({' '.join(f'{t:.2f}' for t in sorted(times))})")


def _depth_text(depth: float) -> str:
    return "forced" if depth == _MAX_DEPTH else f"{depth:g}"


def bench_4x4_nodes(count: int, nodes: int) -> None:
    """The same suite at a fixed node budget (deterministic): the depth reached does not depend
    on the machine's load, so it compares versions where the wall clock cannot."""
    depths, cpus = [], []
    for board in suite(GOBBLET, count, 14):
        cpu = time.process_time()
        r = Searcher().search(board, SearchLimits(time=None, nodes=nodes, deterministic=True))
        cpus.append(time.process_time() - cpu)
        depths.append(r.depth)
    print(f"gobblet: median depth {statistics.median(depths)} at {nodes:,} nodes "
          f"(min {min(depths)}, max {max(depths)}); median {statistics.median(cpus):.2f} CPU seconds")


def bench_4x4_cpu(count: int, seconds: float, target: int) -> None:
    """The same suite by CPU time, which a shared machine disturbs far less than the wall
    clock: for each position, fixed-depth searches (each an iterative deepening from depth 1)
    up to depth ``target``; the deepest completed within ``seconds`` of CPU, and the CPU time
    to complete depth ``target``."""
    depths, to_target = [], []
    for board in suite(GOBBLET, count, 14):
        reached, cpu_target = 0, 0.0
        for depth in range(1, target + 1):
            cpu = time.process_time()
            r = Searcher().search(board, SearchLimits(time=None, depth=depth))
            cpu = time.process_time() - cpu
            if r.depth < depth:  # a forced result ended the deepening early
                reached, cpu_target = _MAX_DEPTH, cpu
                break
            if cpu <= seconds:
                reached = depth
            if depth == target:
                cpu_target = cpu
        depths.append(reached)
        to_target.append(cpu_target)
        shown = "forced" if reached == _MAX_DEPTH else f"depth {reached}"
        print(f"  {board.text()}: {shown} within {seconds} CPU s; "
              f"depth {target} in {cpu_target:.2f} CPU s")
    shown = [d if d != _MAX_DEPTH else "forced" for d in sorted(depths)]
    print(f"gobblet: median depth {_depth_text(statistics.median_low(depths))} within {seconds} CPU s ({shown}); "
          f"median {statistics.median(to_target):.2f} CPU s to depth {target}")


_MAX_DEPTH = 99  # stands for a forced result found before the target depth


def bench_jr(count: int, seconds: float) -> None:
    from engine.gobblet.jr import model as jr
    from engine.gobblet.hints import jr_solver

    start = time.perf_counter()
    solver = jr_solver(build_if_missing=True)
    print(f"gobblet-jr: table ready in {time.perf_counter() - start:.1f} s")
    rng = random.Random(2024)
    times, unresolved = [], 0
    kinds: dict[str, int] = {}
    while len(times) < count:
        board = quiet_position(GOBBLET_JR, rng.getrandbits(32), rng.randint(2, 30))
        if board is None:
            continue
        t = time.perf_counter()
        v = solver.value(jr.from_board(board), seconds)
        times.append(time.perf_counter() - t)
        kinds[v.text().split()[0]] = kinds.get(v.text().split()[0], 0) + 1
        if not v.proven:
            unresolved += 1
    times.sort()
    within = sum(1 for t in times if t <= 1.0)
    print(f"gobblet-jr: {count} positions: median {statistics.median(times) * 1000:.0f} ms, "
          f"90th percentile {times[int(0.9 * count) - 1] * 1000:.0f} ms, max {times[-1]:.2f} s; "
          f"{within} within 1 s; values {kinds}; {unresolved} without a proof in {seconds} s")


def main() -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=12)
    parser.add_argument("--time", type=float, default=1.0)
    parser.add_argument("--nodes", type=int, default=150_000, help="node budget of the load-free figure")
    parser.add_argument("--cpu-depth", type=int, default=6,
                        help="target depth of the CPU-time figure (0: skip it)")
    parser.add_argument("--helpers", type=int, default=default_helpers(),
                        help="helper processes of the wall-clock figure (default: as a full-strength hint)")
    parser.add_argument("--jr", type=int, default=200)
    parser.add_argument("--jr-time", type=float, default=10.0)
    args = parser.parse_args()
    if args.positions:
        bench_4x4(args.positions, args.time, args.helpers)
        if args.cpu_depth:
            bench_4x4_wall(args.positions, args.cpu_depth, args.helpers)
        if args.nodes:
            bench_4x4_nodes(args.positions, args.nodes)
        if args.cpu_depth:
            bench_4x4_cpu(args.positions, args.time, args.cpu_depth)
    if args.jr:
        bench_jr(args.jr, args.jr_time)
    return 0


if __name__ == "__main__":
    sys.exit(main())
