"""Benchmark of hints' explanations (``engine.gobblet.explain``): what saying why costs on top
of the search.

    python bench/hint_words.py [--positions 20] [--plies 4,10,16]

For each variant (Gobblet 4x4, Goblet 5, Gobblet Jr.), positions from seeded quiet play
(``play_safe_random``, the plies given): the time of ``facts`` for every legal move (the
median and the slowest), and for the suggested move of a depth-3 search the whole reason with
the plan the search found, the tempting alternative and the short search against it
(``hints._search_tempting`` plus ``explain``); and the short search that finds the answer to
an alternative (``hints.REFUTATION_DEPTH``/``REFUTATION_NODES``) after each of the three first
legal moves: median and slowest, in milliseconds.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import variant  # noqa: E402
from engine.gobblet import hints  # noqa: E402
from engine.gobblet.explain import explain, facts  # noqa: E402
from engine.gobblet.search.searcher import Searcher, SearchLimits  # noqa: E402
from engine.gobblet.tactics import play_safe_random  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Print the costs per variant."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--plies", default="4,10,16")
    args = parser.parse_args(argv)
    plies = [int(p) for p in args.plies.split(",")]
    for token in ("gobblet", "goblet-5", "gobblet-jr"):
        per_move: list[float] = []
        reasons: list[float] = []
        answers: list[float] = []
        for seed in range(args.positions):
            board = variant(token).new_game()
            if not play_safe_random(board, random.Random(seed), plies[seed % len(plies)]) or board.is_over():
                continue
            for move in board.legal_moves():
                start = time.perf_counter()
                facts(board, move)
                per_move.append(time.perf_counter() - start)
            result = Searcher().search(board, SearchLimits(time=None, depth=3, deterministic=True), multipv=3)
            ranked = list(result.ranked)
            start = time.perf_counter()
            tempting = hints._search_tempting(board, ranked[0], ranked)
            explain(board, ranked[0].move, None, tempting, line=result.pv)
            reasons.append(time.perf_counter() - start)
            limits = SearchLimits(time=None, nodes=hints.REFUTATION_NODES, depth=hints.REFUTATION_DEPTH,
                                  deterministic=True)
            for move in board.legal_moves()[:3]:
                board.push(move)
                if board.decided is None:
                    start = time.perf_counter()
                    Searcher().search(board, limits)
                    answers.append(time.perf_counter() - start)
                board.pop()
        ms = lambda xs: f"median {1000 * statistics.median(xs):.1f} ms, slowest {1000 * max(xs):.1f} ms"  # noqa: E731
        print(f"{token:11} facts of one move ({len(per_move)} moves): {ms(per_move)}; "
              f"whole reason ({len(reasons)} hints): {ms(reasons)}; "
              f"answer to an alternative ({len(answers)}): {ms(answers)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
