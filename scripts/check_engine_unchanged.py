"""Print figures that must not change when the engine is reorganised: perft counts of every
variant (through the ``cupboard perft`` command), node counts of fixed-depth single-thread
searches from fixed positions, and a checksum of the exact Gobblet Jr. table built into a
temporary file.  Run it before and after a refactoring and compare the output:

    python scripts/check_engine_unchanged.py [--skip-table] [--min-pieces N]
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine import Game, variant  # noqa: E402
from engine.gobblet.jr.exact import HEADER_SIZE  # noqa: E402
from engine.gobblet.jr.table import build_exact  # noqa: E402
from engine.gobblet.search import Searcher, SearchLimits  # noqa: E402

VARIANTS = ("gobblet", "gobblet-jr", "storer", "goblet-5")
PERFT_DEPTHS = (1, 2, 3, 4)
SEARCH_DEPTHS = {"gobblet": 5, "gobblet-jr": 6, "storer": 5, "goblet-5": 4}


def perft_figures() -> list[str]:
    """The perft counts, each read from the command line's output."""
    lines = []
    for name in VARIANTS:
        for depth in PERFT_DEPTHS:
            out = subprocess.run([sys.executable, "-m", "companion.cli", "perft", name, str(depth)],
                                 cwd=ROOT, capture_output=True, text=True, check=True).stdout
            lines.append(f"perft {name} {depth}: {out.split()[0]}")
    return lines


def fixed_positions() -> list[tuple[str, str, Game]]:
    """The start of every variant, and the position after four moves chosen by a fixed rule
    (the legal moves' texts sorted, the middle one played)."""
    out = []
    for name in VARIANTS:
        board = variant(name).new_game()
        out.append((name, "start", board.copy()))
        for _ in range(4):
            moves = sorted(board.legal_moves(), key=board.move_text)
            board.push(moves[len(moves) // 2])
        out.append((name, "+4", board))
    return out


def search_figures() -> list[str]:
    """Nodes, score and best move of deterministic fixed-depth searches (fresh searcher each,
    no helper processes)."""
    lines = []
    for name, label, board in fixed_positions():
        depth = SEARCH_DEPTHS[name]
        result = Searcher(helpers=0).search(board, SearchLimits(time=None, depth=depth, deterministic=True))
        move = board.move_text(result.move) if result.move is not None else "-"
        lines.append(f"search {name} {label} d{depth}: nodes {result.nodes} score {result.score} "
                     f"move {move} seldepth {result.seldepth}")
    return lines


def table_figures(min_pieces: int) -> list[str]:
    """The sha256 of the exact table's codes (the header holds build times, so it is left out)
    and its position counts."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "jr.bin"
        table = build_exact(path, min_pieces)
        raw = path.read_bytes()
    stats = table.stats
    return [f"jr table min_pieces={min_pieces}: {len(raw) - HEADER_SIZE} codes, sha256 "
            f"{hashlib.sha256(raw[HEADER_SIZE:]).hexdigest()}",
            f"jr table positions {stats.positions} wins {stats.wins} losses {stats.losses} "
            f"draws {stats.draws} longest win {stats.longest_win} longest loss {stats.longest_loss}"]


def main() -> int:
    """Print every figure, one a line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-table", action="store_true", help="leave out the exact table (a minute of CPU)")
    parser.add_argument("--min-pieces", type=int, default=0, help="build only the layers with this many pieces")
    args = parser.parse_args()
    for line in perft_figures() + search_figures() + ([] if args.skip_table else table_figures(args.min_pieces)):
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
