"""Adaptation benchmark: how much a few games' frames of a user's own table teach the square
model, shown from the renderer the model was fitted on to the held-out one.

For each of ``--tables`` random tables in the ``--style`` look (camera, wood, finishes,
lamps): calibrate as the wizard does (the empty board, then the set measured), keep
``--adapt-frames`` labelled frames as the referee would (``vision.frames_folder``), adapt the
shipped square model to them (``vision.adapt``), and read ``--test-frames`` other frames of the
same table with the shipped and the adapted model.

    python bench/adapt.py [--sets gobblet,gobblet-jr,storer-clear] [--tables 3] [--style shaded]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from calibration import calibrate  # noqa: E402
from hardware.pieces import load_board, load_piece_set  # noqa: E402
from hardware.synthetic import empty_scene, random_scene, render_scene  # noqa: E402
from vision.adapt import adapt  # noqa: E402
from vision.evaluate import EvalResult, evaluate_folder, layout_scene  # noqa: E402
from vision.frames_folder import FramesWriter  # noqa: E402
from vision.set_measure import measure_set  # noqa: E402
from vision.square_model import load_model  # noqa: E402

SEED = 4_000_037  # tables apart from vision-eval's, the tests' and the fit's


def table_folders(name: str, table: int, style: str, n_adapt: int, n_test: int, root: Path) -> tuple[Path, Path] | None:
    """Two frames folders of one random table: frames to adapt on and frames to test on."""
    pieces = load_piece_set(name)
    board = load_board(pieces.default_board)
    seed = SEED + 7919 * table
    base = random_scene(pieces, board, seed, style=style)
    try:
        cal = calibrate([render_scene(empty_scene(base), seed + 1)[0]], pieces, board, intrinsics=base.intrinsics)
        cal = measure_set(cal, render_scene(layout_scene(base, 1), seed + 2)[0]).calibration
    except ValueError as e:
        print(f"  table {table}: calibration failed ({e})", flush=True)
        return None
    out = []
    for part, count, offset in (("adapt", n_adapt, 100), ("test", n_test, 5000)):
        writer = FramesWriter(root / f"{name}-{table}-{part}", cal, keep=count)
        for j in range(count):
            sc = random_scene(pieces, board, seed + offset + j, intrinsics=base.intrinsics, pose=base.pose, style=style)
            image, truth = render_scene(replace(sc, look=base.look), seed + offset + j)
            writer.add(image, truth.tops)
        out.append(writer.folder)
    return out[0], out[1]


def _merge(into: EvalResult, res: EvalResult) -> None:
    for f in ("boards", "boards_right", "occupied", "occupied_right", "empty", "empty_right", "wrong_labels"):
        setattr(into, f, getattr(into, f) + getattr(res, f))
    into.conf_right += res.conf_right


def _line(label: str, res: EvalResult) -> str:
    sure_wrong = sum(1 for c, ok in res.conf_right if c >= 0.8 and not ok)
    return (f"  {label:<8} per square {100 * res.square_accuracy:7.3f} %   whole boards {100 * res.board_accuracy:7.3f} %   "
            f"confidently wrong {sure_wrong} of {res.occupied + res.empty} squares")


def main() -> int:
    """Build the folders, adapt, and print before and after per piece set."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sets", default="gobblet,gobblet-jr,storer-clear")
    ap.add_argument("--tables", type=int, default=3)
    ap.add_argument("--style", default="shaded", choices=("polygon", "shaded"))
    ap.add_argument("--adapt-frames", type=int, default=30, help="frames per table to adapt on (a few games' worth)")
    ap.add_argument("--test-frames", type=int, default=20)
    args = ap.parse_args()
    base_model = load_model()
    with tempfile.TemporaryDirectory(prefix="cupboard-adapt-") as tmp:
        for name in args.sets.split(","):
            before, after = EvalResult(name, ""), EvalResult(name, "")
            print(f"== {name}, {args.style} look: {args.tables} tables, {args.adapt_frames} frames to adapt on, "
                  f"{args.test_frames} to test on each", flush=True)
            for table in range(args.tables):
                folders = table_folders(name, table, args.style, args.adapt_frames, args.test_frames, Path(tmp))
                if folders is None:
                    continue
                learn, test = folders
                result = adapt(learn, base_model)
                print(f"  table {table}: adapted={result.adapted} (kept-apart squares {100 * result.before:.2f} -> "
                      f"{100 * result.after:.2f} %)", flush=True)
                _merge(before, evaluate_folder(test, base_model))
                _merge(after, evaluate_folder(test, result.model))
            print(_line("shipped", before))
            print(_line("adapted", after), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
