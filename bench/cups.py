"""Cups figures: reachable positions, the X = 3 proof and prepared table, exact query times of
4-cup positions whose stocks hold at most 20 beans, and the search depth reached in 1 s (X = 6).

    python bench/cups.py [--quick] [--positions N] [--agreement N] [--fit]

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
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.cups import kernel, parse_position, variant  # noqa: E402
from engine.cups.hints import prepare  # noqa: E402
from engine.cups.solve import WEIGHTS, ExactSolver, key_width, pack, search_moves  # noqa: E402


def reachable(token: str) -> tuple[int, float]:
    """Positions reachable from the start of ``token`` (side to move included) and the time."""
    game = variant(token).new_game()
    w = key_width(game.rules)
    keys = np.zeros(1 << 24, dtype=np.int64)
    stats = np.zeros(1, dtype=np.int64)
    start = time.perf_counter()
    n = kernel.count_reachable(pack(game, w), game.rules.cups, w, keys, stats)
    return n, time.perf_counter() - start


def played_positions(n: int, seed: int) -> list:
    """``n`` 4-cup positions reached by random play from the start, stopped once the stocks hold
    together at most 20 beans (and sometimes a few random moves later)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        game = variant("cups").new_game()
        while sum(game.stocks) > 20 and not game.is_over():
            game.push(rng.choice(game.legal_moves()))
        for _ in range(rng.choice((0, 0, 0, 1, 2, 4, 8))):
            if game.is_over():
                break
            game.push(rng.choice(game.legal_moves()))
        if not game.is_over():
            out.append(game)
    return out


def hard_positions(n: int, seed: int) -> list:
    """``n`` 4-cup positions built to be hard: 20 beans in the stocks split at random, every cup
    at or below its sowing count (many sows and captures left), now and then one blocked cup,
    the rest of the beans in the bowls."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        game = variant("cups").new_game()
        s = rng.randint(0, 20)
        game.stocks = [s, 20 - s]
        for p in (0, 1):
            game.cups[p] = [rng.randint(0, 4 - i) for i in range(4)]
        if rng.random() < 0.3:
            p, i = rng.randint(0, 1), rng.randint(0, 3)
            game.cups[p][i] = 4 - i + rng.randint(1, 3)
        rest = 80 - 20 - sum(map(sum, game.cups))
        game.bowls = [rest // 2, rest - rest // 2]
        game.turn = rng.randint(0, 1)
        if not game.is_over():
            out.append(game)
    return out


# the slowest position known before issue 22 (1.4 s then)
SLOW = "cups S 4 1 2 1 | 23 | 2 / N 2 3 0 1 | 23 | 18 ; S to move"


def sampled_set(n_played: int, n_hard: int) -> list:
    """The exact-query benchmark set: played and hard positions and the known slow one."""
    return played_positions(n_played, seed=11) + hard_positions(n_hard, seed=5) + [parse_position(SLOW)]


def exact_futures(games: list) -> list[int]:
    """The exact value of each position from now on (bowls left out), for its mover."""
    out = []
    for game in games:
        solver = ExactSolver(game.rules)
        out.append(solver.value(game) - (game.bowls[game.turn] - game.bowls[1 - game.turn]))
    return out


def _features(game) -> np.ndarray:
    f = np.empty(kernel.FEATURES)
    kernel.features(np.array(game.cups, dtype=np.int64), np.array(game.stocks, dtype=np.int64),
                    game.turn, game.rules.cups, f)
    return f


def fit_weights(games: list, shrink: float = 0.5) -> np.ndarray:
    """Weights of ``kernel.features`` fitted to exact values so that they rank sibling
    positions: for each position, its children's exact futures (for the parent's mover) against
    their terms, both less the mean over the siblings (least squares); the move-in-hand term is
    then the mean of what is left over all children.  ``shrink`` scales the fit down: at the
    horizon of a search the terms are seen again deeper, and a half weight ranked moves better
    on a separate validation set (seeds 201/202) than 0.35 or 0.65."""
    xs, ys, all_x, all_y = [], [], [], []
    for game in games:
        fs, vs = [], []
        for move in game.legal_moves():
            child = game.copy()
            child.push(move)
            if child.is_over():
                continue
            f = _features(child)
            (future,) = exact_futures([child])
            sign = 1 if child.turn == game.turn else -1
            fs.append(sign * f)
            vs.append(sign * future)
            all_x.append(f)
            all_y.append(future)
        if len(fs) >= 2:
            fa, va = np.array(fs), np.array(vs, dtype=float)
            xs.extend(fa - fa.mean(axis=0))
            ys.extend(va - va.mean())
    ranking, *_ = np.linalg.lstsq(np.array(xs)[:, :kernel.F_TEMPO], np.array(ys), rcond=None)
    tempo = float(np.mean(np.array(all_y) - np.array(all_x)[:, :kernel.F_TEMPO] @ ranking))
    return np.round(shrink * np.append(ranking, tempo), 2)


def _ranks(values: list[float]) -> np.ndarray:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = np.empty(len(values))
    i = 0
    while i < len(order):  # ties share their mean rank
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2
        i = j + 1
    return ranks


@dataclass
class Agreement:
    """How a depth-limited search agrees with the exact values over a set of positions."""

    best_found: float  # share of positions whose searched best move is an exact best move
    rank_correlation: float  # mean Spearman correlation of the moves' scores with their values
    value_error: float  # mean |searched value - exact value| of the position, beans


def agreement(games: list, depth: int, weights) -> Agreement:
    """Compare ``search_moves`` at ``depth`` with the exact move values on ``games`` (positions
    with at least two moves whose values differ)."""
    found, corr, err, n = 0, 0.0, 0.0, 0
    for game in games:
        exact = {mv.move: mv.value for mv in ExactSolver(game.rules).move_values(game)}
        if len(set(exact.values())) < 2:
            continue
        searched = search_moves(game, fixed_depth=depth, weights=weights)
        scores = {mv.move: mv.value for mv in searched.moves}
        moves = list(exact)
        top = max(exact.values())
        found += exact[searched.moves[0].move] == top
        a, b = _ranks([exact[m] for m in moves]), _ranks([scores[m] for m in moves])
        if a.std() > 0 and b.std() > 0:
            corr += float(np.corrcoef(a, b)[0, 1])
        err += abs(searched.moves[0].value - top)
        n += 1
    return Agreement(found / n, corr / n, err / n)


def main() -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the X = 3 start")
    parser.add_argument("--positions", type=int, default=300,
                        help="positions of each kind (played, built hard) to time")
    parser.add_argument("--agreement", type=int, default=120,
                        help="played positions to compare the search with (and half as many hard ones)")
    parser.add_argument("--fit", action="store_true", help="fit the evaluation's weights again and print them")
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

    games = sampled_set(args.positions, args.positions)
    print(f"exact values of every move, {len(games)} 4-cup positions with at most 20 beans in the stocks "
          f"({args.positions} from random play, {args.positions} built hard, the old slowest; fresh table each):")
    times, entries, nodes = [], [], []
    for game in games:
        solver = ExactSolver(game.rules)
        start = time.perf_counter()
        solver.move_values(game)
        times.append((time.perf_counter() - start, game.text()))
        entries.append(solver.entries)
        nodes.append(int(solver.stats[kernel.STATS_NODES]))
    times.sort()
    secs = [t for t, _ in times]
    print(f"  median {statistics.median(secs) * 1000:.0f} ms, "
          f"90th percentile {secs[int(0.9 * len(secs))] * 1000:.0f} ms, "
          f"99th {secs[int(0.99 * len(secs))] * 1000:.0f} ms, max {secs[-1] * 1000:.0f} ms; "
          f"{sum(t > 1.0 for t in secs)} over 1 s (target 0); nodes max {max(nodes):,d}, "
          f"table entries max {max(entries):,d}")
    print(f"  slowest: {times[-1][1]}")
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

    if args.fit:
        print("fitted weights (train: seeds 101/102):", fit_weights(
            played_positions(200, seed=101) + hard_positions(100, seed=102)).tolist())
    held_out = played_positions(args.agreement, seed=301) + hard_positions(args.agreement // 2, seed=302)
    print(f"depth-limited search against the exact values, {len(held_out)} held-out positions "
          "(best move found / mean rank correlation of the moves / mean error of the value, beans):")
    for depth in (2, 4, 8):
        before = agreement(held_out, depth, kernel.SIMPLE_WEIGHTS)
        after = agreement(held_out, depth, WEIGHTS)
        print(f"  depth {depth}: before {before.best_found:.1%} / {before.rank_correlation:.3f} / "
              f"{before.value_error:.2f}; after {after.best_found:.1%} / {after.rank_correlation:.3f} / "
              f"{after.value_error:.2f}")

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
