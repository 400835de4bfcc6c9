"""Where a frame's recognition time goes: CPU milliseconds per frame of each stage of
``Recogniser.recognise`` on the frames of ``cupboard vision-eval``, one thread.

    python bench/vision_profile.py [--set storer-clear] [--style shaded] [--measure-set]
                                   [--boards 20] [--seed 5] [--rounds 3] [--cprofile]

Each stage (a method or function the frame calls) is wrapped in a timer of the thread's CPU
time; a stage called inside another counts in both, so the lines do not add up to the total.
The process's CPU time per frame is printed beside the thread's: more means some library
(BLAS, OpenCV) spread the frame's work over other threads, which the thread's time hides.
``CUPBOARD_SQUARE_NET=on`` switches the square net on (its stages are then timed too).
The frames are read ``--rounds`` times after one round that is not counted (numba loads its
compiled kernels then).  ``--cprofile`` also prints Python's profile of one round, by own time.
On a shared machine compare two trees' stages run back to back; for the time of a change
against main, ``bench/vision_ab.py`` (paired frames) is the figure to trust.
"""

from __future__ import annotations

import argparse
import cProfile
import collections
import functools
import importlib
import pstats
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402

from hardware.pieces import load_board, load_piece_set  # noqa: E402
from vision.evaluate import bench_cameras  # noqa: E402

# (module, class or None, name) of the stages timed
STAGES = [
    ("vision.recognise", "Recogniser", name) for name in (
        "locate", "_view", "_hypotheses", "_rim_search", "_profiles", "_polar", "size_scores", "candidate_crops",
        "sure_colour_of", "_colour", "_lighter_outline", "_explain", "grain_kept", "_board_shift_mm")
] + [("vision.recognise", None, name) for name in ("_log_gradients", "log_changes", "median_at", "channel_medians_at")] + [
    ("vision.hands", "HandDetector", "changed"), ("vision.hands", "HandDetector", "from_changed"),
    ("vision.size_check", "SizeCheck", "scores"), ("vision.square_model", None, "alternatives"),
    ("vision.square_net", "SquareNet", "read"), ("vision.square_net", "SquareNet", "scores"),
    ("vision.square_net", None, "square_crops"), ("calibration.locate", None, "detect_markers"),
    ("calibration.canvas", None, "rectify"),
]


def _wrap(totals: dict[str, float], owner, name: str, label: str) -> None:
    """Replace ``owner.name`` (if it has one) by a wrapper adding its thread CPU time to
    ``totals[label]``."""
    fn = getattr(owner, name, None)
    if fn is None:
        return

    @functools.wraps(fn)
    def timed(*args, **kwargs):
        t0 = time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            totals[label] += time.thread_time() - t0

    setattr(owner, name, timed)


def main() -> int:
    """Render the frames, time the stages and print them."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", default="storer-clear")
    ap.add_argument("--style", default="shaded", choices=("polygon", "shaded"))
    ap.add_argument("--measure-set", action="store_true")
    ap.add_argument("--boards", type=int, default=20)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cprofile", action="store_true")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    pieces = load_piece_set(args.set)
    board = load_board(pieces.default_board)
    frames = [(camera.calibration, image)
              for camera in bench_cameras(pieces, board, args.boards, args.seed, measure=args.measure_set,
                                          style=args.style)
              if camera.calibration is not None for image, _ in camera.frames]
    totals: dict[str, float] = collections.defaultdict(float)
    recognise_mod = importlib.import_module("vision.recognise")
    for module, cls, name in STAGES:
        mod = importlib.import_module(module)
        owner = getattr(mod, cls) if cls else mod
        # a name two classes share (SizeCheck.scores, SquareNet.scores) is told apart by its class
        label = f"{cls}.{name}" if cls and any(n == name and c != cls for _, c, n in STAGES) else name
        _wrap(totals, owner, name, label)
        for user in ("vision.recognise", "vision.square_net"):  # the names the modules call
            user_mod = importlib.import_module(user)
            if cls is None and module != user and getattr(user_mod, name, None) is not None:
                setattr(user_mod, name, getattr(mod, name))
    per_frame: list[float] = []
    process: list[float] = []

    def one_round(record: bool) -> None:
        rec, cal_seen = None, None
        for cal, image in frames:
            if cal is not cal_seen:  # a camera's first frame, as in the evaluation
                rec, cal_seen = recognise_mod.Recogniser(cal), cal
            t0, p0 = time.thread_time(), time.process_time()
            rec.recognise(image)
            if record:
                per_frame.append(time.thread_time() - t0)
                process.append(time.process_time() - p0)

    one_round(False)
    totals.clear()
    for _ in range(args.rounds):
        one_round(True)
    n = len(per_frame)
    print(f"{args.set}, {args.style} look{', set measured' if args.measure_set else ''}, seed {args.seed}: "
          f"{len(frames)} frames x {args.rounds} rounds, CPU ms per frame (one thread): "
          f"median {1000 * statistics.median(per_frame):.2f}, mean {1000 * sum(per_frame) / n:.2f}; "
          f"the process's: median {1000 * statistics.median(process):.2f}, mean {1000 * sum(process) / n:.2f}"
          f"{'; square net on' if recognise_mod.default_net() is not None else ''}")
    for name, total in sorted(totals.items(), key=lambda kv: -kv[1]):
        print(f"  {name:22s} {1000 * total / n:6.2f}")
    if args.cprofile:
        prof = cProfile.Profile(time.thread_time)
        prof.enable()
        one_round(False)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
