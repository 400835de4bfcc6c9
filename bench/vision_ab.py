"""Paired timing of two versions of the recogniser on the same rendered frames, and a check
that both read them alike.

    python bench/vision_ab.py OTHER_TREE [--this .] [--set storer-clear] [--boards 80] [--rounds 3]
                              [--style polygon|shaded] [--measure-set] [--seed 0] [--hands 0]
                              [--tolerance 1e-6]

Each tree (a checkout of this project, e.g. ``git worktree add /tmp/old HEAD~3``) reads the
frames of ``cupboard vision-eval`` (same seed, look, calibration and boards) in its own
process, one thread; the two take turns frame by frame, so a slow spell of a shared machine
falls on both.  Prints each one's median CPU milliseconds per frame and the median of the
per-frame ratios (this / other): on a noisy machine, the ratio is the figure to trust.  The
process's CPU per frame is printed beside it: more than the thread's means a library (BLAS,
OpenCV) spread the frame's work over threads of its own.

Every frame's readings (state, colour, size per square) must be the same in both trees, and
their confidences and the square model's evidence (``Recogniser.last_evidence``) the same
within ``--tolerance``: a change made for speed must not change what is read.  The script
prints the largest differences and exits 1 on any reading that differs.  Both trees must have
``vision.evaluate.bench_cameras`` (with ``measure`` and ``style``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

# run in each tree's own interpreter process: prepares the frames, then, per request, reads
# one and answers with its CPU time and what it read
WORKER = r"""
import dataclasses, json, sys, time
sys.path.insert(0, sys.argv[1])
import cv2
import numpy as np
cv2.setNumThreads(1)
from hardware.pieces import load_board, load_piece_set
from vision.evaluate import bench_cameras
from vision.recognise import Recogniser
pieces = load_piece_set(sys.argv[2])
board = load_board(pieces.default_board)
cameras = bench_cameras(pieces, board, int(sys.argv[3]), int(sys.argv[4]), hands=int(sys.argv[7]),
                        measure=sys.argv[5] == "1", style=sys.argv[6])
frames = [(camera.calibration, image) for camera in cameras
          if camera.calibration is not None for image, _ in camera.frames]
print(len(frames), flush=True)
for line in sys.stdin:
    i = int(line)
    cal, image = frames[i]
    if i == 0 or frames[i - 1][0] is not cal:
        rec = Recogniser(cal)  # a camera's first frame, as in the evaluation
    t0, p0 = time.thread_time(), time.process_time()
    obs = rec.recognise(image)
    ms = (time.thread_time() - t0) * 1000
    process_ms = (time.process_time() - p0) * 1000
    ev = rec.last_evidence
    evidence = {} if ev is None else {f.name: np.asarray(getattr(ev, f.name), np.float64).ravel().tolist()
                                      for f in dataclasses.fields(ev)}
    print(json.dumps({"ms": ms, "process_ms": process_ms, "read": [[r.state, r.colour, r.size] for r in obs.squares],
                      "conf": [r.confidence for r in obs.squares], "evidence": evidence}), flush=True)
"""


def _largest_gap(a: dict[str, list[float]], b: dict[str, list[float]]) -> tuple[float, str]:
    """The largest absolute difference between two frames' evidence, and the field it is in
    (infinite where the fields or their sizes differ)."""
    if a.keys() != b.keys():
        return float("inf"), "fields"
    worst, where = 0.0, ""
    for name in a:
        if len(a[name]) != len(b[name]):
            return float("inf"), name
        for x, y in zip(a[name], b[name]):
            gap = abs(x - y)
            if gap > worst:
                worst, where = gap, name
    return worst, where


def main() -> int:
    """Time the two trees, compare their readings and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("other", type=Path)
    ap.add_argument("--this", type=Path, default=Path(__file__).resolve().parents[1])
    ap.add_argument("--set", default="storer-clear")
    ap.add_argument("--boards", type=int, default=80)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hands", type=int, default=0, help="hands over the board in every frame, as vision-eval's")
    ap.add_argument("--style", default="polygon", choices=("polygon", "shaded"))
    ap.add_argument("--measure-set", action="store_true", help="calibrate with the set measured, as the wizard does")
    ap.add_argument("--tolerance", type=float, default=1e-6,
                    help="the largest difference of a confidence or of the evidence taken as the same")
    args = ap.parse_args()
    trees = [args.this.resolve(), args.other.resolve()]
    for tree in trees:
        if not (tree / "vision" / "recognise.py").is_file():
            print(f"{tree}: not a checkout of this project (no vision/recognise.py)", file=sys.stderr)
            return 2
    workers = [subprocess.Popen([sys.executable, "-c", WORKER, str(t), args.set, str(args.boards), str(args.seed),
                                 "1" if args.measure_set else "0", args.style, str(args.hands)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for t in trees]
    counts = [int(w.stdout.readline()) for w in workers]
    if counts[0] != counts[1]:
        print(f"the trees render different frames ({counts[0]} against {counts[1]})", file=sys.stderr)
        return 1
    times: list[list[float]] = [[], []]
    process: list[list[float]] = [[], []]
    readings_differ = 0
    worst_conf = worst_evidence = 0.0
    worst_field = ""
    for r in range(args.rounds):
        for i in range(counts[0]):
            answers: list[dict] = [{}, {}]
            for k in ((0, 1) if (i + r) % 2 == 0 else (1, 0)):  # who goes first alternates
                workers[k].stdin.write(f"{i}\n")
                workers[k].stdin.flush()
                answers[k] = json.loads(workers[k].stdout.readline())
                times[k].append(answers[k]["ms"])
                process[k].append(answers[k]["process_ms"])
            a, b = answers
            if a["read"] != b["read"]:
                readings_differ += 1
                if r == 0:
                    print(f"frame {i}: the readings differ", file=sys.stderr)
            worst_conf = max([worst_conf] + [abs(x - y) for x, y in zip(a["conf"], b["conf"])])
            gap, field = _largest_gap(a["evidence"], b["evidence"])
            if gap > worst_evidence:
                worst_evidence, worst_field = gap, field
    for w in workers:
        w.stdin.close()
        w.wait()
    ratio = statistics.median(a / b for a, b in zip(*times))
    look = (f"{args.style} look{', set measured' if args.measure_set else ''}, seed {args.seed}"
            f"{f', {args.hands} hand(s)' if args.hands else ''}")
    print(f"{args.set}, {look}, {counts[0]} frames x {args.rounds} rounds, CPU ms per frame (one thread):")
    for tree, t, p in zip(trees, times, process):
        print(f"  {tree}: median {statistics.median(t):.2f} (the process's CPU, threads a library started "
              f"included: {statistics.median(p):.2f})")
    print(f"  median per-frame ratio this / other: {ratio:.3f}")
    same = readings_differ == 0 and worst_conf <= args.tolerance and worst_evidence <= args.tolerance
    print(f"  readings that differ: {readings_differ} of {counts[0] * args.rounds} frames; largest difference "
          f"of a confidence {worst_conf:.3g}, of the evidence {worst_evidence:.3g}"
          f"{f' ({worst_field})' if worst_field else ''}: {'the same' if same else 'NOT the same'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
