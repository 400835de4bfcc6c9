"""``cupboard set``: a user's own piece set (and board) from their measurements.

``cupboard set new my-cups --size 22,17,21 --size 30,24,29 ...`` takes each size's outer
diameter at the base, the diameter of its flat top and its height (mm, smallest first),
checks them, and writes ``sets/my-cups.json`` into the data folder, where ``--set my-cups``
and the calibration wizard find it.  Measuring is explained in docs/measuring.md."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .serve_cmds import default_data_dir

SANE_MM = (5.0, 200.0)  # a cup or square outside this is a typing slip (cm, inches)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``set`` to the ``cupboard`` parser."""
    from hardware.pieces import shipped_boards, shipped_piece_sets

    p = subparsers.add_parser("set", help="your own piece set and board from your measurements")
    sub = p.add_subparsers(dest="set_command", metavar="ACTION", required=True)
    n = sub.add_parser(
        "new", help="write a piece set (and board) from your measurements",
        description="Write your piece set from measurements in millimetres (see docs/measuring.md). "
                    "Example: cupboard set new my-gobblet --like gobblet --size 22,17,21 "
                    "--size 30,24,29 --size 38,31,37 --size 46,38,45 --square-mm 57 --border-mm 9")
    n.add_argument("name", help="name of the new set (letters, digits and dashes), used as --set NAME")
    n.add_argument("--like", default=None,
                   help=f"shipped set to copy colours and material from: {', '.join(shipped_piece_sets())} "
                        "(default: the one with as many sizes)")
    n.add_argument("--size", action="append", required=True, metavar="OUTER,TOP,HEIGHT",
                   help="one cup size in mm: outer diameter at the base, diameter of the flat top "
                        "(a clear cup's plug), height; once per size, smallest first")
    n.add_argument("--board", default=None,
                   help=f"board the set plays on: {', '.join(shipped_boards())} (default: the --like set's)")
    n.add_argument("--square-mm", type=float, default=None,
                   help="your board's square side, mm (writes your own board as well)")
    n.add_argument("--border-mm", type=float, default=None,
                   help="your board's wood border outside the grid, mm (with --square-mm)")
    n.add_argument("--data", type=Path, default=None, help=f"data folder (default {default_data_dir()})")
    n.add_argument("--force", action="store_true", help="replace a set of your own with that name")
    n.set_defaults(func=cmd_set_new)

    ls = sub.add_parser("list", help="list the piece sets and boards, yours and the shipped ones")
    ls.add_argument("--data", type=Path, default=None, help=f"data folder (default {default_data_dir()})")
    ls.set_defaults(func=cmd_set_list)


def _measure(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{where}: {text!r} is not a number of millimetres") from None
    if not SANE_MM[0] <= value <= SANE_MM[1]:
        raise ValueError(f"{where}: {value:g} mm is outside {SANE_MM[0]:g}-{SANE_MM[1]:g} mm "
                         "(measure in millimetres)")
    return value


def parse_sizes(texts: list[str]) -> list[dict]:
    """``OUTER,TOP,HEIGHT`` per size, smallest first, as the set file's ``sizes``; ValueError
    naming the size and the problem."""
    sizes = []
    for i, text in enumerate(texts, 1):
        parts = [p.strip() for p in text.split(",")]
        if len(parts) != 3:
            raise ValueError(f"--size {text!r}: give three numbers, OUTER,TOP,HEIGHT in mm (e.g. 46,38,45)")
        outer, top, height = (_measure(p, f"size {i} {what}") for p, what in zip(parts, ("outer diameter", "top", "height")))
        if top > outer:
            raise ValueError(f"size {i}: the top ({top:g} mm) is wider than the base ({outer:g} mm): "
                             "is the order OUTER,TOP,HEIGHT?")
        if sizes and outer <= sizes[-1]["outer_diameter_mm"]:
            raise ValueError(f"size {i} ({outer:g} mm) is not wider than size {i - 1}: list the sizes smallest first")
        if sizes and height < sizes[-1]["height_mm"]:
            raise ValueError(f"size {i} is lower ({height:g} mm) than size {i - 1}: list the sizes smallest first")
        sizes.append({"name": str(i), "outer_diameter_mm": outer, "top_diameter_mm": top, "height_mm": height})
    if not 2 <= len(sizes) <= 6:
        raise ValueError(f"a set has 2 to 6 sizes; {len(sizes)} --size given")
    return sizes


def new_set(args: argparse.Namespace) -> tuple[Path, Path | None]:
    """Build, validate and write the set (and board) files; the paths written."""
    from hardware.pieces import (
        DATA_DIR,
        board_from_dict,
        data_file,
        load_board,
        piece_set_from_dict,
        shipped_piece_sets,
    )

    from .errors import UserError

    data_dir = args.data or default_data_dir()
    name = args.name
    if not name.replace("-", "").replace("_", "").isalnum() or name[0] in "-_":
        raise UserError(f"{name!r}: a set name is letters, digits and dashes (e.g. my-gobblet)")
    sizes = parse_sizes(args.size)
    like = args.like
    if like is None:
        by_count = {len(json.loads((DATA_DIR / "sets" / f"{s}.json").read_text())["sizes"]): s
                    for s in shipped_piece_sets()}
        like = by_count.get(len(sizes), "gobblet")
    if like not in shipped_piece_sets():
        raise UserError(f"--like {like}: no shipped set of that name; shipped: {', '.join(shipped_piece_sets())}")
    template = json.loads((DATA_DIR / "sets" / f"{like}.json").read_text(encoding="utf-8"))
    set_path = data_dir / "sets" / f"{name}.json"
    if set_path.exists() and not args.force:
        raise UserError(f"{set_path} exists: give another name, or --force to replace it")

    board_name = args.board or template["default_board"]
    board = load_board(board_name, data_dir)
    board_data = None
    if args.square_mm is not None or args.border_mm is not None:
        if args.square_mm is None:
            raise UserError("--border-mm needs --square-mm too (your board's square side)")
        board_data = json.loads(data_file(board_name, "boards", data_dir).read_text(encoding="utf-8"))
        board_name = name
        board_data.update(
            name=name, description=f"{board.description.split(' (')[0]}, measured by its owner",
            square_mm=_measure(str(args.square_mm), "--square-mm"),
            border_mm=board.border_mm if args.border_mm is None else args.border_mm,
            source="measured with cupboard set new")
        if not 0 <= board_data["border_mm"] <= 100:
            raise UserError(f"--border-mm {args.border_mm:g}: give the wood outside the grid, 0-100 mm")
        board = board_from_dict(board_data, f"board {name}")
    if sizes[-1]["outer_diameter_mm"] > board.square_mm:
        raise UserError(f"the largest cup ({sizes[-1]['outer_diameter_mm']:g} mm) is wider than a square "
                        f"of {board.name} ({board.square_mm:g} mm): measure the board's square "
                        "(--square-mm) or check the cup")
    same_count = len(template["sizes"]) == len(sizes)
    logical = template["logical_sizes"] if same_count else list(range(1, len(sizes) + 1))
    if same_count:  # Storer's smallest cup is solid wood: a measured copy of it is too
        for size, shipped in zip(sizes, template["sizes"]):
            if shipped.get("solid"):
                size["solid"] = True
    data = {
        "format": "cupboard-piece-set", "version": 1, "name": name,
        "description": f"{name}: measured by its owner (colours from {like}; the calibration "
                       "wizard's colour step measures yours)",
        "source": "measured with cupboard set new",
        "material": template["material"], "colours": template["colours"], "sizes": sizes,
        "logical_sizes": logical, "default_board": board_name,
    }
    piece_set_from_dict(data, f"set {name}")  # the same checks as loading it
    set_path.parent.mkdir(parents=True, exist_ok=True)
    board_path = None
    if board_data is not None:
        board_path = data_dir / "boards" / f"{name}.json"
        board_path.parent.mkdir(parents=True, exist_ok=True)
        board_path.write_text(json.dumps(board_data, indent=2) + "\n", encoding="utf-8")
    set_path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return set_path, board_path


def cmd_set_new(args: argparse.Namespace) -> int:
    """Write the user's set from their measurements and say how to use it."""
    set_path, board_path = new_set(args)
    print(f"wrote {set_path}")
    if board_path is not None:
        print(f"wrote {board_path}")
    print(f"use it: choose '{args.name}' in the calibration wizard (Calibrate page, step 2), "
          f"or cupboard calibrate --set {args.name} ...; print its markers with "
          f"cupboard marker-sheet --board {board_path.stem if board_path else 'BOARD'} --out markers.svg"
          if board_path else
          f"use it: choose '{args.name}' in the calibration wizard (Calibrate page, step 2), "
          f"or cupboard calibrate --set {args.name} ...")
    return 0


def cmd_set_list(args: argparse.Namespace) -> int:
    """Print the piece sets and boards a user can name, theirs marked."""
    from hardware.pieces import board_names, piece_set_names

    data_dir = args.data or default_data_dir()
    for title, names in (("piece sets", piece_set_names(data_dir)), ("boards", board_names(data_dir))):
        print(f"{title}:")
        for name, where in names.items():
            print(f"  {name}{'  (yours)' if where == 'user' else ''}")
    return 0
