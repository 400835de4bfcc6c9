"""Subcommands for the camera side: calibrate, vision-eval, marker-sheet."""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the vision subcommands to the ``cupboard`` parser."""
    from hardware.pieces import board_names, piece_set_names, user_data_dir

    p = subparsers.add_parser("calibrate", help="calibrate the camera over the empty board")
    p.add_argument("--source", required=True,
                   help="image files (comma-separated) of the empty board, or 'synthetic[:SEED]'")
    p.add_argument("--set", dest="piece_set", default="storer-clear",
                   help=f"piece set: {', '.join(piece_set_names())} or a JSON file (default storer-clear)")
    p.add_argument("--board", help=f"board: {', '.join(board_names())} or a JSON file (default: the set's board)")
    p.add_argument("--cups", help="optional image with a light largest cup on a1 and a dark one on the last square")
    p.add_argument("--camera", default="pi3", choices=["pi3", "pi3-wide", "pi2"],
                   help="camera module whose nominal intrinsics to use (default pi3; pi3-wide for low mounts)")
    p.add_argument("--frames", type=int, default=3, help="frames to use from a live source (default 3)")
    p.add_argument("--out", required=True, help="calibration file to write")
    p.set_defaults(func=cmd_calibrate)

    p = subparsers.add_parser("vision-eval", help="measure recognition on rendered boards")
    p.add_argument("--sets", default="storer-clear,gobblet,gobblet-jr", help="comma-separated piece sets")
    p.add_argument("--boards", type=int, default=500, help="boards per set (default 500)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--per-camera", type=int, default=2, help="positions per random camera (default 2)")
    p.add_argument("--hands", type=int, default=0, help="hands over the board in every frame (default 0)")
    p.add_argument("--style", default="polygon", choices=["polygon", "shaded"],
                   help="the renderer's look: polygon (what the models were fitted on) or shaded (held out)")
    p.add_argument("--measure-set", action="store_true",
                   help="calibrate as the wizard does, with the set measured on a frame of its layout")
    p.add_argument("--frames", metavar="DIR",
                   help="measure on a folder of labelled frames instead (your photos or the referee's; "
                        "docs/geometry.md, 'Frames folders')")
    p.add_argument("--model", metavar="FILE", help="a square model to read with (default: the shipped one)")
    p.add_argument("--adapted", metavar="FILE",
                   help="with --frames: read through the folder's calibration adapted by 'cupboard adapt' (its file)")
    p.set_defaults(func=cmd_vision_eval)

    p = subparsers.add_parser("adapt", help="adapt recognition to your own table from a folder of labelled frames")
    p.add_argument("--data", type=Path, default=None, help=f"data folder (default {user_data_dir()})")
    p.add_argument("--frames", metavar="DIR", type=Path, default=None,
                   help="the frames folder (calibration, truth, pictures); default DATA/frames, where "
                        "serve and watch --keep-frames keep them")
    p.add_argument("--out", metavar="FILE", type=Path, default=None,
                   help="where to write the adaptation (default DATA/adaptation.json, which serve and watch "
                        "read through while it belongs to their calibration)")
    p.set_defaults(func=cmd_adapt)

    p = subparsers.add_parser("marker-sheet", help="write the printable ArUco marker sheet for a board")
    p.add_argument("--board", default="storer-lid-4x4",
                   help=f"board: {', '.join(board_names())} or a JSON file (default storer-lid-4x4)")
    p.add_argument("--paper", default="a4", choices=["a4", "letter"], help="paper size (default a4)")
    p.add_argument("--out", required=True, help="output file: .svg (true scale) or .png (300 dpi)")
    p.set_defaults(func=cmd_marker_sheet)


def _frames_from(source: str, piece_set, board, count: int, camera: str = "pi3") -> list:
    if source.startswith("synthetic"):
        from hardware.camera_model import nominal_intrinsics
        from hardware.synthetic import empty_scene, random_scene, render_scene

        seed = int(source.split(":", 1)[1]) if ":" in source else 0
        scene = empty_scene(random_scene(piece_set, board, seed, intrinsics=nominal_intrinsics(camera)))
        return [render_scene(scene, seed + k)[0] for k in range(count)]
    return [read_image(name.strip()) for name in source.split(",")]


def read_image(name: str) -> "cv2.typing.MatLike":
    """The image file ``name``; ValueError naming it when it is missing or not an image.

    The file is checked first: OpenCV prints its own warning for a missing file."""
    path = Path(name)
    if not path.is_file():
        raise ValueError(f"{name}: no such image file (give photos of the empty board, "
                         "comma-separated, or 'synthetic' for the built-in camera)")
    img = cv2.imread(str(path))
    if img is None:
        raise ValueError(f"{name}: not an image file cupboard can read")
    return img


def cmd_calibrate(args: argparse.Namespace) -> int:
    """Calibrate from frames of the empty board and write the calibration file."""
    from calibration import calibrate, save_calibration
    from hardware.pieces import load_board, load_piece_set

    pieces = load_piece_set(args.piece_set)
    board = load_board(args.board or pieces.default_board)
    frames = _frames_from(args.source, pieces, board, args.frames, args.camera)
    cup = None
    if args.cups:
        cup = read_image(args.cups)
    cal = calibrate(frames, pieces, board, cup_frame=cup, camera_model=args.camera)
    save_calibration(cal, args.out)
    print(f"calibrated {pieces.name} on {board.name}: camera {cal.camera_height_mm:.0f} mm above the board, "
          f"{cal.intrinsics.model or cal.intrinsics_source}, markers {list(cal.markers_seen)}, reprojection error {cal.reprojection_error_px:.2f} px, "
          f"colours {cal.colour.source}; written to {args.out}")
    return 0


def cmd_vision_eval(args: argparse.Namespace) -> int:
    """Print recognition accuracy and speed on rendered boards."""
    from vision.evaluate import evaluate, format_result

    from vision.evaluate import evaluate_folder
    from vision.square_model import load_model

    model = load_model(Path(args.model)) if args.model else "shipped"
    if args.adapted and not args.frames:
        raise ValueError("--adapted reads a frames folder through its adapted calibration: give --frames DIR too")
    if args.frames:
        calibration = None
        if args.adapted:
            from vision.adapt import adapted_calibration, load_adaptation
            from vision.frames_folder import open_folder

            calibration = adapted_calibration(open_folder(args.frames)[0], load_adaptation(args.adapted))
        print(format_result(evaluate_folder(args.frames, model, calibration)), flush=True)
        return 0
    if args.boards < 1:
        raise ValueError("--boards must be at least 1")
    for name in [s.strip() for s in args.sets.split(",") if s.strip()]:
        res = evaluate(name, args.boards, seed=args.seed, per_camera=args.per_camera, hands=args.hands,
                       model=model, measure=args.measure_set, style=args.style)
        print(format_result(res), flush=True)
    return 0


def cmd_adapt(args: argparse.Namespace) -> int:
    """Adapt recognition to a frames folder (edge radii, players' colours on the table and square
    by square, square model); write
    the adaptation only if it reads the frames kept apart at least as well.  By default from
    and into the data folder: ``DATA/frames`` in, ``DATA/adaptation.json`` out, which serve and
    watch read through while it belongs to the calibration they referee with."""
    from calibration import CalibrationError, load_calibration
    from hardware.pieces import user_data_dir
    from vision.adapt import ADAPTATION_FILE, AdaptationFileError, adapt, calibration_id, load_adaptation, save_adaptation
    from vision.frames_folder import open_folder
    from vision.square_model import load_model

    data_dir = args.data or user_data_dir()
    folder = args.frames or data_dir / "frames"
    if args.frames is None and not folder.is_dir():
        raise ValueError(f"{folder}: no frames kept yet; play with 'cupboard serve --keep-frames 300' (or watch) "
                         "to keep them, or give --frames DIR")
    out = args.out or data_dir / ADAPTATION_FILE
    ident = calibration_id(open_folder(folder)[0])
    saved = data_dir / "calibration.json"
    if args.out is None and out.exists() and saved.exists():
        # one adaptation file per data folder: do not put one that serve cannot use in place of one it uses
        try:
            in_use: str | None = calibration_id(load_calibration(saved))
            replaces = load_adaptation(out).calibration_id
        except (CalibrationError, AdaptationFileError):  # a damaged file is no adaptation in use
            in_use = replaces = None
        if in_use is not None and replaces == in_use and ident != in_use:
            raise ValueError(f"{folder} was taken through another calibration than {saved}, and {out} adapts that "
                             f"one: give --out FILE to write this adaptation elsewhere")
    result = adapt(folder, load_model())
    print(f"adapted on {result.frames_used} frames; the {result.frames_checked} kept apart read "
          f"{100 * result.before:.2f} % right before, {100 * result.after:.2f} % after")
    if not result.adapted or result.table is None:
        print("the adaptation read the kept-apart frames worse: nothing written")
        return 0
    save_adaptation(result.table, out)
    t = result.table
    print(f"edge radii {', '.join(f'{f:.3f}' for f in t.edge_scales)} of the set file's; players' colours "
          f"(BGR) light {', '.join(f'{v:.0f}' for v in t.colour.light_bgr)}, dark {', '.join(f'{v:.0f}' for v in t.colour.dark_bgr)}")
    if t.square_colours is not None:
        print("the players' colours also square by square: they read the labelled tops' colours better than the "
              "table's alone (a lamp mirrored in the tops of some squares)")
    print(f"adaptation written to {out}; measure it with: cupboard vision-eval --frames {folder} --adapted {out}")
    if out.resolve() == (data_dir / ADAPTATION_FILE).resolve():
        print("cupboard serve and watch read through it from their next start, while they referee with the "
              "calibration the frames were taken through (recalibrating means adapting again)")
    return 0


def cmd_marker_sheet(args: argparse.Namespace) -> int:
    """Write the marker sheet as SVG (true scale) or PNG (300 dpi, recorded in the file)."""
    from hardware.markers import SCALE_BAR_MM, marker_sheet_png, marker_sheet_svg, png_bytes
    from hardware.pieces import load_board

    board = load_board(args.board)
    out = Path(args.out)
    if out.suffix.lower() == ".svg":
        out.write_text(marker_sheet_svg(board, args.paper), encoding="utf-8")
    elif out.suffix.lower() == ".png":
        out.write_bytes(png_bytes(marker_sheet_png(board, args.paper, dpi=300), dpi=300))
    else:
        raise ValueError(f"{out}: the marker sheet is written as .svg or .png")
    m = board.markers
    paper = "A4" if args.paper == "a4" else "Letter"
    print(f"marker sheet for {board.name} on {paper}: {m.dictionary} ids {list(m.ids)}, {m.size_mm:g} mm markers; "
          f"written to {out}")
    print(f"print it at 100 % (actual size), check its scale bar measures {SCALE_BAR_MM:g} mm, cut the tiles out "
          "and place them as the sheet shows (docs/markers.md)")
    return 0
