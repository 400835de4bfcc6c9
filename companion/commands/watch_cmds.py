"""``cupboard watch``: the referee without the web page — prints events, writes records."""

from __future__ import annotations

import argparse
import signal
import threading
import time
from pathlib import Path

from .serve_cmds import add_keep_frames, default_data_dir


def frames_writer(data_dir: Path, calibration, args: argparse.Namespace):
    """The labelled-frames folder the user asked for with ``--keep-frames N`` (None without)."""
    if not args.keep_frames:
        return None
    from vision.frames_folder import FramesWriter

    return FramesWriter(Path(data_dir) / "frames", calibration, keep=args.keep_frames)


def adapted_for(calibration, data_dir: Path):
    """``calibration`` as the adaptation in ``data_dir`` adapted it, when it was made through
    this calibration (``vision.adapt.read_through``); a line says which, or why not."""
    from vision.adapt import ADAPTATION_FILE, read_through

    use = read_through(calibration, Path(data_dir) / ADAPTATION_FILE)
    if use.status:
        print(f"camera: {use.status}", flush=True)
    return use.calibration


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``watch`` to the ``cupboard`` parser."""
    p = subparsers.add_parser("watch", help="referee a game from the camera and print what happens")
    p.add_argument("--source", default="auto", help="camera source: picamera, webcam:N, a video or folder, demo (default auto)")
    p.add_argument("--calibration", help="calibration file (cupboard calibrate); 'demo' sources calibrate themselves")
    p.add_argument("--variant", default=None, help="variant of a new game (default: the piece set's game)")
    p.add_argument("--data", type=Path, default=None, help=f"data folder (default {default_data_dir()})")
    p.add_argument("--new", action="store_true", help="start a new game instead of resuming the unfinished one")
    p.add_argument("--set", dest="piece_set", default="gobblet",
                   help="piece set the demo camera shows (gobblet, gobblet-jr, storer-clear)")
    p.add_argument("--still-frames", type=int, default=15,
                   help="demo camera: frames each position is held (default 15)")
    p.add_argument("--snapshots", action="store_true",
                   help="save a small picture of the board for each move (in DATA/snapshots)")
    add_keep_frames(p)
    p.add_argument("--game", choices=("gobblet", "cups"), default="gobblet",
                   help="what is on the table: gobblet (a board of pieces, default) or cups")
    p.add_argument("--white", default="White", help="White player's name")
    p.add_argument("--black", default="Black", help="Black player's name")
    p.set_defaults(func=cmd_watch)


def cmd_watch(args: argparse.Namespace) -> int:
    """Run the referee until the source ends or Ctrl-C; every event is printed as it happens."""
    from companion.referee import Referee
    from companion.session import GameSession
    from engine import variant
    from hardware.frames import CameraLost
    from hardware.sources import Reconnecting

    from companion.datalock import DataDirBusy, lock_data_dir

    from .errors import UserError

    if args.game == "cups":
        return _watch_cups(args)
    source, calibration, demo_rules = _source_and_calibration(args)
    if demo_rules is not None and args.variant is None:
        args.variant = demo_rules.token
    if args.variant:  # a set too small for the game asked for: say so before touching the data
        calibration.pieces.logical_sizes_for(variant(args.variant).sizes)
    data_dir = args.data or default_data_dir()
    try:  # one referee per data folder: a serve or another watch would share its game file
        data_lock = lock_data_dir(data_dir, "cupboard watch")
    except DataDirBusy as e:
        raise UserError(str(e)) from None
    session = None if args.new else GameSession.resume(data_dir)
    if session is not None and args.variant and session.board.rules.token != variant(args.variant).token:
        session = None  # a different game was asked for
    if session is None or session.over:
        rules = variant(args.variant or calibration.pieces.default_game)
        calibration.pieces.logical_sizes_for(rules.sizes)  # a set too small for the game: say so first
        tags = {"White": args.white, "Black": args.black}
        if demo_rules is not None:  # the demo camera's game: its record goes to records/demo
            tags["Demo"] = "yes"
        session = GameSession.new(data_dir, rules, tags)
    else:
        print(f"resuming the game in {data_dir} after {len(session.board.move_stack)} moves")
    session.subscribe(lambda e: print(f"{time.strftime('%H:%M:%S', time.localtime(e.time))}  {e.kind:<16} {e.text}", flush=True))
    # the referee reads through what `cupboard adapt` learnt of this table; the labelled frames
    # are kept through the calibration itself, so that adapting on them applies to it again
    reading = calibration if demo_rules is not None else adapted_for(calibration, data_dir)
    referee = Referee(session, reading, snapshots=args.snapshots, frames=frames_writer(data_dir, calibration, args))
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    # a camera that is lost keeps the reading thread waiting for it: Ctrl-C must end that wait
    camera = Reconnecting(source, on_event=referee.camera_event)
    threading.Thread(target=lambda: (stop.wait(), camera.stop()), name="cupboard-watch-stop", daemon=True).start()
    try:
        referee.run(camera, stop)
    except CameraLost:
        if not stop.is_set():
            raise
        print("stopped while the camera was lost")
    if session.over:
        print(f"record: {session.record_path}")
    session.close()
    data_lock.release()
    return 0


def _source_and_calibration(args: argparse.Namespace):
    """The frame source, its calibration, and for the demo camera the rules of its game."""
    from calibration import load_calibration
    from companion.demo import calibrate_demo, demo_camera
    from hardware.sources import open_source

    if args.source in ("demo", "synthetic"):
        camera, rules = demo_camera(args.piece_set, loop=False, still_frames=args.still_frames)
        return camera, calibrate_demo(camera), rules
    if not args.calibration:
        raise ValueError("--calibration FILE is needed (make one with `cupboard calibrate`)")
    return open_source(args.source), load_calibration(args.calibration), None


def _watch_cups(args: argparse.Namespace) -> int:
    """``cupboard watch --game cups``: a Cups table from the camera (the demo camera plays one
    game and ends)."""
    from companion.cups_camera import CupsDemoCamera, CupsReferee, CupsSetupMissing, cups_setup
    from companion.datalock import DataDirBusy, lock_data_dir
    from companion.session import GameSession
    from engine import family_of, variant

    from .errors import UserError

    data_dir = args.data or default_data_dir()
    demo = args.source in ("demo", "synthetic")
    rules = variant(args.variant or "cups")
    if family_of(rules.token).name != "cups":
        raise UserError(f"--game cups plays Cups; {args.variant} is not a Cups variant")
    if demo:
        source = CupsDemoCamera(rules, still_frames=args.still_frames, games=1)
    try:
        setup = cups_setup(source if demo else None, data_dir)
    except CupsSetupMissing as e:
        raise UserError(str(e)) from None
    try:
        data_lock = lock_data_dir(data_dir, "cupboard watch")
    except DataDirBusy as e:
        raise UserError(str(e)) from None
    session = None if args.new or demo else GameSession.resume(data_dir)
    if session is not None and session.board.rules.token != rules.token:
        session = None  # a different game was asked for
    if session is None or session.over:
        tags = {"White": args.white, "Black": args.black}
        if demo:
            tags["Demo"] = "yes"
        session = GameSession.new(data_dir, rules, tags)
    else:
        print(f"resuming the game in {data_dir} after {session.board.ply} moves")
    session.subscribe(lambda e: print(f"{time.strftime('%H:%M:%S', time.localtime(e.time))}  {e.kind:<16} {e.text}",
                                      flush=True))
    try:
        referee = CupsReferee(session, setup)
    except ValueError as e:
        data_lock.release()
        raise UserError(f"the camera cannot referee this game: {e}") from None
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    if not demo:
        from hardware.sources import open_source

        source = open_source(args.source)
    referee.run(source, stop)
    if session.over:
        print(f"record: {session.record_path}")
    session.close()
    data_lock.release()
    return 0
