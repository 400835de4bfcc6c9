"""Adaptation benchmark: how much a few games' frames of a user's own table teach recognition,
shown from the renderer the models were fitted on to the held-out one.

For each of ``--tables`` random tables in the ``--style`` look (camera, wood, finishes,
lamps) from ``--first-table`` on: calibrate as the wizard does (the empty board, then the set
measured), keep ``--adapt-frames`` labelled frames as the referee would
(``vision.frames_folder``), adapt to them (``vision.adapt``: the edge radii, the players'
colours and the square model's weights, each kept only where it reads better), and read
``--test-frames`` other frames of the same table through the shipped calibration and model and through the adapted ones (and, with
``--weights-only``, with the square model's weights alone adapted, as before the table was
measured).  Per table and over all tables: squares and whole boards read right, readings
wrong at or above the referee's commit confidence, median milliseconds per frame.

``--edge-colours`` also prints, per table and size, where the edge radius peaks on the light
tops, on the dark tops and on both of the frames adapted on (``vision.adapt.edge_sums``): how
far a radius per player would move from the one radius per size adapting keeps.

Each table is read once held out, then kept for tuning: tables 0-38 have been read so far,
so a check held out starts at ``--first-table 39``.
``--keep DIR`` keeps the rendered folders there and reuses them.

    python bench/adapt.py [--sets gobblet,gobblet-jr,storer-clear] [--tables 3] [--style shaded]
                          [--edge-colours]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from calibration import calibrate  # noqa: E402
from hardware.pieces import load_board, load_piece_set  # noqa: E402
from hardware.synthetic import empty_scene, random_scene, render_scene  # noqa: E402
from vision.adapt import HOLD_OUT, adapt, edge_sums  # noqa: E402
from vision.evaluate import EvalResult, evaluate_folder, layout_scene  # noqa: E402
from vision.frames_folder import FramesFolderError, FramesWriter, frames, open_folder  # noqa: E402
from vision.set_measure import measure_set  # noqa: E402
from vision.square_model import load_model  # noqa: E402

SEED = 4_000_037  # tables apart from vision-eval's, the tests' and the fit's


def _complete(folder: Path, count: int) -> bool:
    """Whether ``folder`` is a frames folder already holding ``count`` frames (``--keep``)."""
    try:
        return len(open_folder(folder)[1]) == count
    except FramesFolderError:
        return False


def table_folders(name: str, table: int, style: str, n_adapt: int, n_test: int, root: Path) -> tuple[Path, Path] | None:
    """Two frames folders of one random table: frames to adapt on and frames to test on.
    Folders ``root`` already holds complete (a kept run's) are used as they are."""
    learn, test = (root / f"{name}-{style}-{table}-{part}" for part in ("adapt", "test"))
    if _complete(learn, n_adapt) and _complete(test, n_test):
        return learn, test
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
        writer = FramesWriter(root / f"{name}-{style}-{table}-{part}", cal, keep=count)
        for j in range(count):
            sc = random_scene(pieces, board, seed + offset + j, intrinsics=base.intrinsics, pose=base.pose, style=style)
            # the table's own furniture in every frame (the shaded look carries it; polygon
            # scenes draw each frame's table and board texture from its seed otherwise)
            image, truth = render_scene(replace(sc, look=base.look, table_bgr=base.table_bgr,
                                                texture_variant=base.texture_variant), seed + offset + j)
            writer.add(image, truth.tops)
        out.append(writer.folder)
    return out[0], out[1]


def edge_colours_line(folder: Path) -> str:
    """Per size, where the edge radius peaks on the light tops, the dark tops and both, of the
    frames ``adapt`` learns on in ``folder`` (those with nothing hidden, less every
    ``1 / HOLD_OUT``-th), and how many tops of each player."""
    cal, _ = open_folder(folder)
    usable = [(image, item) for image, item in frames(folder) if not any(item.hidden)]
    every = int(round(1 / HOLD_OUT))
    sums = edge_sums(cal, [f for k, f in enumerate(usable) if k % every])

    def text(f: float | None) -> str:
        return "-" if f is None else f"{f:.3f}"
    return "; ".join(f"size {s + 1}: light {text(sums.peak(0, s))} ({sums.counts[0, s]}), dark "
                     f"{text(sums.peak(1, s))} ({sums.counts[1, s]}), both {text(sums.peak(None, s))}"
                     for s in range(len(cal.sizes)))


def _merge(into: EvalResult, res: EvalResult) -> None:
    for f in ("boards", "boards_right", "occupied", "occupied_right", "empty", "empty_right", "wrong_labels"):
        setattr(into, f, getattr(into, f) + getattr(res, f))
    into.conf_right += res.conf_right
    into.ms += res.ms


def _line(label: str, res: EvalResult) -> str:
    return (f"  {label:<16} per square {100 * res.square_accuracy:7.3f} %   whole boards {100 * res.board_accuracy:7.3f} %   "
            f"confidently wrong {res.confidently_wrong} of {res.occupied + res.empty} squares   "
            f"median {np.median(res.ms) if res.ms else 0:.1f} ms")


def main() -> int:
    """Build the folders, adapt, and print before and after per piece set."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", default="gobblet,gobblet-jr,storer-clear")
    ap.add_argument("--tables", type=int, default=3)
    ap.add_argument("--first-table", type=int, default=0,
                    help="index of the first table (tables 0-38 have been read and are for tuning; 39 on are held out)")
    ap.add_argument("--keep", metavar="DIR", help="keep the frames folders there (and reuse those it holds)")
    ap.add_argument("--style", default="shaded", choices=("polygon", "shaded"))
    ap.add_argument("--adapt-frames", type=int, default=30, help="frames per table to adapt on (a few games' worth)")
    ap.add_argument("--test-frames", type=int, default=20)
    ap.add_argument("--edge-colours", action="store_true",
                    help="also print where the edge radius peaks on each player's tops (vision.adapt.edge_sums)")
    ap.add_argument("--weights-only", action="store_true",
                    help="also adapt the square model's weights alone (the adaptation before the table was measured)")
    args = ap.parse_args()
    base_model = load_model()
    with tempfile.TemporaryDirectory(prefix="cupboard-adapt-") as tmp:
        root = Path(args.keep) if args.keep else Path(tmp)
        for name in args.sets.split(","):
            kinds = ["shipped"] + (["weights only"] if args.weights_only else []) + ["adapted"]
            totals = {k: EvalResult(name, "") for k in kinds}
            print(f"== {name}, {args.style} look: tables {args.first_table}-{args.first_table + args.tables - 1}, "
                  f"{args.adapt_frames} frames to adapt on, {args.test_frames} to test on each", flush=True)
            for table in range(args.first_table, args.first_table + args.tables):
                folders = table_folders(name, table, args.style, args.adapt_frames, args.test_frames, root)
                if folders is None:
                    continue
                learn, test = folders
                if args.edge_colours:
                    print(f"  table {table} edge radii by player: {edge_colours_line(learn)}", flush=True)
                results = {"shipped": evaluate_folder(test, base_model)}
                if args.weights_only:
                    weights = adapt(learn, base_model, table=False)
                    results["weights only"] = evaluate_folder(test, weights.model)
                full = adapt(learn, base_model)
                results["adapted"] = evaluate_folder(test, full.model, full.calibration)
                t = full.table
                print(f"  table {table}: adapted={full.adapted} (kept-apart squares {100 * full.before:.2f} -> "
                      f"{100 * full.after:.2f} %)" + (f"; edge radii {', '.join(f'{f:.3f}' for f in t.edge_scales)}, "
                                                     f"colours {'measured' if t.colour.source == 'adapted' else 'kept'}"
                                                     f"{', per square' if t.square_colours else ''}, weights "
                                                     f"{'trained' if full.weights_trained else 'kept'}"
                                                     if t else ""), flush=True)
                for k in kinds:
                    print(_line(k, results[k]))
                    _merge(totals[k], results[k])
            print(f"  all tables of {name}:")
            for k in kinds:
                print(_line(k, totals[k]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
