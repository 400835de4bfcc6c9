"""Benchmark of the synthetic camera's two rendering styles.

    python bench/render.py [--frames 8] [--hands 1] [--style polygon shaded]

For each shipped piece set: ``--frames`` random scenes (half of them with ``--hands`` hands),
each rendered after a first untimed frame through the same lens (so one-off caches such as
the lens's per-pixel rays are not counted, as in a game), timed by process CPU time with
OpenCV limited to one thread (the target: well under a second per 1280x720 frame on one
core), with the median and the slowest frame.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402

from hardware.pieces import load_board, load_piece_set, shipped_piece_sets  # noqa: E402
from hardware.synthetic import STYLES, random_scene, render_scene  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    """Print the CPU milliseconds per frame of each style and piece set."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=8)
    ap.add_argument("--hands", type=int, default=1)
    ap.add_argument("--style", nargs="+", default=list(STYLES), choices=STYLES)
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    print(f"{'style':8} {'set':14} {'median ms':>10} {'max ms':>8}")
    for style in args.style:
        for name in shipped_piece_sets():
            pieces = load_piece_set(name)
            board = load_board(pieces.default_board)
            times = []
            for k in range(args.frames):
                scene = random_scene(pieces, board, 7000 + k, hands=args.hands * (k % 2), style=style)
                render_scene(scene, k)  # the lens's caches, once per camera
                t = time.process_time()
                render_scene(scene, k + 1)
                times.append((time.process_time() - t) * 1000)
            print(f"{style:8} {name:14} {statistics.median(times):10.0f} {max(times):8.0f}")


if __name__ == "__main__":
    main()
