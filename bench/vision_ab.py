"""Paired timing of two versions of the recogniser on the same rendered frames.

    python bench/vision_ab.py OTHER_TREE [--this .] [--set storer-clear] [--boards 80] [--rounds 3]

Each tree (a checkout of this project, e.g. ``git worktree add /tmp/old HEAD~3``) reads the
frames of ``cupboard vision-eval`` (same seed, cameras and boards) in its own process, one
thread; the two take turns frame by frame, so a slow spell of a shared machine falls on both.
Prints each one's median CPU milliseconds per frame and the median of the per-frame ratios
(this / other): on a noisy machine, the ratio is the figure to trust.  Both trees must have
``vision.evaluate.bench_cameras``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

# run in each tree's own interpreter process: prepares the frames, then times one per request
WORKER = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
import cv2
cv2.setNumThreads(1)
from hardware.pieces import load_board, load_piece_set
from vision.evaluate import bench_cameras
from vision.recognise import Recogniser
pieces = load_piece_set(sys.argv[2])
board = load_board(pieces.default_board)
frames = [(camera.calibration, image) for camera in bench_cameras(pieces, board, int(sys.argv[3]))
          if camera.calibration is not None for image, _ in camera.frames]
print(len(frames), flush=True)
for line in sys.stdin:
    i = int(line)
    cal, image = frames[i]
    if i == 0 or frames[i - 1][0] is not cal:
        rec = Recogniser(cal)  # a camera's first frame, as in the evaluation
    t0 = time.thread_time()
    rec.recognise(image)
    print((time.thread_time() - t0) * 1000, flush=True)
"""


def main() -> int:
    """Time the two trees and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("other", type=Path)
    ap.add_argument("--this", type=Path, default=Path(__file__).resolve().parents[1])
    ap.add_argument("--set", default="storer-clear")
    ap.add_argument("--boards", type=int, default=80)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    trees = [args.this.resolve(), args.other.resolve()]
    workers = [subprocess.Popen([sys.executable, "-c", WORKER, str(t), args.set, str(args.boards)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for t in trees]
    counts = [int(w.stdout.readline()) for w in workers]
    if counts[0] != counts[1]:
        print(f"the trees render different frames ({counts[0]} against {counts[1]})", file=sys.stderr)
        return 1
    times: list[list[float]] = [[], []]
    for r in range(args.rounds):
        for i in range(counts[0]):
            for k in ((0, 1) if (i + r) % 2 == 0 else (1, 0)):  # who goes first alternates
                workers[k].stdin.write(f"{i}\n")
                workers[k].stdin.flush()
                times[k].append(float(workers[k].stdout.readline()))
    for w in workers:
        w.stdin.close()
        w.wait()
    ratio = statistics.median(a / b for a, b in zip(*times))
    print(f"{args.set}, {counts[0]} frames x {args.rounds} rounds, CPU ms per frame (one thread):")
    for tree, t in zip(trees, times):
        print(f"  {tree}: median {statistics.median(t):.2f}")
    print(f"  median per-frame ratio this / other: {ratio:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
