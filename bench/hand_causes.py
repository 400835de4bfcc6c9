"""What causes the squares said occluded that no hand hid, and the wrong labels under a hand:
one line per such square, and counts by cause, on the frames ``bench/vision.py --hands``
reads (the same cameras and frames, ``vision.evaluate.bench_cameras``).

    python bench/hand_causes.py [--style shaded] [--measure-set] [--boards 20] [--seed 149]
                                [--sets storer-clear,gobblet,gobblet-jr] [--hands 1]

A square said occluded is put down to what hid it (``Recogniser._hide_covered``): the hand's
solid part (``solid``), half an arm's width round it (``reach``) or a pale palm's unexplained
change (``palm``), each with its share of the square; and to the frame: hand-free (a hand
reported where none is), the board nudged (the view rebuilt since calibration), whether a
hidden square lies beside it.  A wrong label under a hand is put down to the hand missed, the
square grazed (doubted), in the hand's shadow (doubted), or not covered enough, with its
confidence (``*``: at or above the referee's commit).  Then the bench's report for the set
(``vision.evaluate.format_result``).  Tuning seeds only.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hardware.pieces import load_board, load_piece_set  # noqa: E402
from vision.evaluate import (COMMIT, EvalResult, _hidden_beside, bench_cameras, format_result,  # noqa: E402
                             top_label)
from vision.observation import OCCLUDED  # noqa: E402
from vision.recognise import OCCLUDED_COVER, REACH_COVER, Recogniser  # noqa: E402


def causes(set_name: str, boards: int, seed: int, hands: int, measure: bool, style: str,
           lines: list[str]) -> Counter:
    """Count the causes on one set's frames, appending one line per square to ``lines``."""
    pieces = load_piece_set(set_name)
    board = load_board(pieces.default_board)
    counts: Counter = Counter()
    res = EvalResult(pieces.name, board.name)
    frame = 0
    for cam_i, camera in enumerate(bench_cameras(pieces, board, boards, seed, 2, hands, 1.0, True, 0, measure,
                                                 style)):
        if camera.calibration is None:
            continue
        rec = Recogniser(camera.calibration)
        res.heights.append(camera.base.pose.height)
        res.models[camera.base.intrinsics.model] += 1
        seen: dict = {}
        hide = rec._hide_covered

        def spy(readings, covering, hide=hide, seen=seen):
            seen["solid"] = rec._coverage(covering.solid)
            seen["reach"] = rec._coverage(covering.core)
            seen["palm"] = rec._coverage(covering.palm)
            return hide(readings, covering)

        rec._hide_covered = spy
        for j, (image, truth) in enumerate(camera.frames):
            seen.clear()
            obs = rec.recognise(image)
            res.count(obs, truth.tops, truth.occluded, board.cols)
            frame += 1
            shift = obs.board_moved_mm or 0.0
            hand_frame = any(truth.occluded)
            where = f"{set_name} cam {cam_i} frame {j}"
            for sq, (r, top, occl) in enumerate(zip(obs.squares, truth.tops, truth.occluded)):
                got = OCCLUDED if r.state == OCCLUDED else r.top
                if got == OCCLUDED and not occl:
                    s, a, p = (seen[k][sq] for k in ("solid", "reach", "palm"))
                    by = ("solid" if s > OCCLUDED_COVER else "reach" if a > REACH_COVER else "palm")
                    kind = ("hand-free" if not hand_frame else
                            "beside" if _hidden_beside(truth.occluded, sq, board.cols) else "far")
                    moved = "nudged" if shift > 1.0 else "still"
                    counts[f"false occl by {by}"] += 1
                    counts[f"false occl {kind}"] += 1
                    counts[f"false occl {moved}"] += 1
                    lines.append(f"FO {where} sq {sq} {kind} {moved} {shift:.1f}mm by {by}: "
                                 f"solid {s:.2f} reach {a:.2f} palm {p:.2f}")
                elif got != OCCLUDED and occl and got != top:
                    if not obs.hand:
                        why = "hand missed"
                    elif sq in rec.last_grazed:
                        why = "grazed"
                    elif sq in rec.last_shadowed:
                        why = "shadowed"
                    else:
                        why = "not covered"
                    cov = (" ".join(f"{k} {seen[k][sq]:.2f}" for k in ("solid", "reach", "palm"))
                           if seen else "")
                    star = "*" if r.confidence >= COMMIT else " "
                    counts[f"wrong under hand: {why}"] += 1
                    counts["wrong under hand, confident"] += r.confidence >= COMMIT
                    lines.append(f"WU{star}{where} sq {sq} {top_label(top)}->{top_label(got)} "
                                 f"{r.confidence:.2f} {why} {cov}")
    counts["frames"] = frame
    lines.append(format_result(res))
    return counts


def main() -> int:
    """Print the squares and the counts."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--boards", type=int, default=20)
    ap.add_argument("--sets", default="storer-clear,gobblet,gobblet-jr")
    ap.add_argument("--seed", type=int, default=149)
    ap.add_argument("--hands", type=int, default=1)
    ap.add_argument("--style", default="shaded", choices=("polygon", "shaded"))
    ap.add_argument("--measure-set", action="store_true")
    args = ap.parse_args()
    for name in args.sets.split(","):
        lines: list[str] = []
        counts = causes(name, args.boards, args.seed, args.hands, args.measure_set, args.style, lines)
        print("\n".join(lines))
        print(f"== {name} seed {args.seed}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())),
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
