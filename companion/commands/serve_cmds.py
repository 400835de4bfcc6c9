"""``cupboard serve``: the phone page on the LAN, with the link and its QR code in the terminal."""

from __future__ import annotations

import argparse
import errno
import signal
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlencode

from hardware.pieces import user_data_dir as default_data_dir  # where games, records and the token live

MIN_TOKEN = 8  # characters: a shorter control token could be guessed from the LAN


def add_keep_frames(p: argparse.ArgumentParser) -> None:
    """``--keep-frames N`` (``serve`` and ``watch``): labelled frames the referee keeps."""
    p.add_argument("--keep-frames", type=_frames_kept, default=0, metavar="N",
                   help="keep the last N committed positions as labelled frames in DATA/frames (for cupboard "
                        "vision-eval --frames and cupboard adapt; off by default)")


def _frames_kept(text: str) -> int:
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if count < 0:
        raise argparse.ArgumentTypeError("must be 0 (off) or more")
    return count


def port_number(text: str) -> int:
    """``--port``: a TCP port, 1 to 65535 (argparse reports anything else)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port: use 1 to 65535 (e.g. 8000)")
    return port


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``serve`` to the ``cupboard`` parser."""
    from hardware.pieces import shipped_piece_sets

    p = subparsers.add_parser("serve", help="serve the phone page on the local network")
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default: every interface)")
    p.add_argument("--port", type=port_number, default=8000, help="port, 1-65535 (default 8000)")
    p.add_argument("--data", type=Path, default=None, help=f"data folder (default {default_data_dir()})")
    p.add_argument("--variant", help="variant of the first game when none is in progress "
                                     "(default: the calibrated piece set's game, else gobblet)")
    p.add_argument("--token", default=None, help="control token (default: kept in the data folder)")
    p.add_argument("--max-pages", type=int, default=40, help="most pages open at once (each holds a thread)")
    add_keep_frames(p)
    p.add_argument("--no-adapt", action="store_true",
                   help="with --keep-frames: do not adapt to the table by itself when a game ends (cupboard "
                        "adapt still does it by hand)")
    p.add_argument("--demo", action="store_true", help="use the synthetic demo camera")
    p.add_argument("--source", default=None, help="camera source (see hardware.sources); default: auto")
    p.add_argument("--no-camera", action="store_true", help="no camera: moves are entered by tapping")
    p.add_argument("--calibration", default=None, help="calibration file for a real camera (cupboard calibrate)")
    p.add_argument("--set", default="gobblet-jr",
                   help=f"piece set the demo camera shows: {', '.join(shipped_piece_sets())} (default gobblet-jr)")
    p.add_argument("--game", choices=("gobblet", "cups"), default="gobblet",
                   help="the game the demo camera plays: gobblet (the --set's game, default) or cups")
    p.set_defaults(func=cmd_serve)


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses on the local network (no traffic is sent to find them)."""
    found: list[str] = []
    try:
        out = subprocess.run(
            ["ip", "-4", "-o", "addr", "show", "scope", "global"],
            capture_output=True, text=True, timeout=2, check=False,
        ).stdout
        for line in out.splitlines():
            parts = line.split()
            if "inet" in parts:
                found.append(parts[parts.index("inet") + 1].split("/")[0])
    except (OSError, subprocess.SubprocessError):
        pass
    if not found:
        try:
            for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
                addr = str(info[4][0])
                if not addr.startswith("127.") and addr not in found:
                    found.append(addr)
        except OSError:
            pass
    return found


def page_link(host: str, port: int, token: str) -> str:
    """The link that opens the live page with control of the game."""
    if host in ("0.0.0.0", "::", ""):
        addresses = lan_addresses()
        host = addresses[0] if addresses else "127.0.0.1"
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/?{urlencode({'token': token})}"


def print_qr(url: str) -> None:
    """The link as a QR code drawn in the terminal."""
    try:
        import segno
    except ImportError:
        print("(install segno to see a QR code here)")
        return
    segno.make(url, error="m").terminal(compact=True, border=2)


def _camera(args: argparse.Namespace):
    """The camera service for ``args`` and the live referee to wire to it (or Nones, with a
    line saying why)."""
    if args.no_camera:
        args.camera_note = "camera off (--no-camera)"
        print("camera: off (--no-camera): moves are entered by tapping the board")
        return None, None
    from hardware.frames import SourceError
    from hardware.sources import auto_source, open_source

    from ..web.preview import PreviewCamera

    try:
        source = None if args.demo else (open_source(args.source) if args.source else auto_source())
    except (SourceError, ImportError) as e:
        args.camera_note = f"camera: none ({e})"
        print(f"camera: none ({e}): moves are entered by tapping the board")
        return None, None
    if (source is None or getattr(source, "name", "") == "synthetic") and getattr(args, "game", "gobblet") == "cups":
        from ..cups_camera import CupsCamera, CupsDemoCamera, cups_setup

        cups = CupsDemoCamera()
        print(f"camera: the demo camera, playing games of {cups.rules.name} on the {cups.layout.name} table "
              "(their records are kept apart, in records/demo)")
        return PreviewCamera(cups), (None, cups.rules, cups.new_game_at, {"cups": CupsCamera(cups_setup(cups))}, None)
    if source is None or getattr(source, "name", "") == "synthetic":
        from ..demo import calibrate_demo, varied_demo_camera

        if args.calibration:
            print(f"camera: no camera found, so {args.calibration} is not used (the demo camera "
                  "calibrates itself); connect the camera and start again to referee with it")

        camera, rules = varied_demo_camera(args.set)
        calibration = calibrate_demo(camera)
        print(f"camera: the demo camera, playing games of {rules.name} with the {args.set} set "
              "(their records are kept apart, in records/demo)")
        return PreviewCamera(camera), (calibration, rules, camera.new_game_at, {}, None)
    from calibration import load_calibration
    from vision.adapt import ADAPTATION_FILE, read_through

    from ..cups_camera import CupsCamera, CupsSetupMissing, cups_setup

    data_dir = args.data or default_data_dir()
    try:  # a Cups table has a set-up of its own (read again when the wizard saves a new one)
        cups = CupsCamera(cups_setup(None, data_dir), data_dir=data_dir)
    except CupsSetupMissing as e:
        cups = CupsCamera(None, str(e), data_dir=data_dir)

    saved = data_dir / "calibration.json"
    adaptation = data_dir / ADAPTATION_FILE  # what `cupboard adapt` learnt, used if it belongs to the calibration
    path = args.calibration or (saved if saved.exists() else None)
    if path is None:
        print(f"camera: {getattr(source, 'name', 'camera')}, live preview only; calibrate it on the page's "
              "Calibrate screen (or give --calibration FILE) to referee from it")
        return PreviewCamera(source), (None, None, None, {"cups": cups}, adaptation)
    from calibration import CalibrationError

    from vision.square_model import calibrated_model

    try:
        calibration = load_calibration(path)
        calibrated_model(calibration)  # what it learnt of the set is checked now, not mid-game
    except CalibrationError as e:
        # the game must still be playable: start without the camera and say why
        problem = f"camera off: the calibration cannot be used ({e}); calibrate again, moves are entered by tapping"
        print(problem)
        args.camera_problem = problem
        source.close()
        return None, None
    print(f"camera: {getattr(source, 'name', 'camera')}, refereeing with {path}")
    status = read_through(calibration, adaptation).status  # the live referee reads through it again
    if status:
        print(f"camera: {status}")
    return PreviewCamera(source), (calibration, None, None, {"cups": cups}, adaptation)


def wire_camera(services, camera, live) -> None:
    """Wire the camera service to the app's services: its lost/back journalled, and the live
    referee (``live`` as ``_camera`` gives it: calibration, demo rules, where the demo's games
    start, the families' own cameras, the adaptation file) attached.  The camera is not started."""
    # journal the camera going away and coming back, as `cupboard watch` does
    camera.on_status = lambda kind, text: services.hub.alert(f"camera-{kind}", text)
    if live is not None:
        from ..live import LiveReferee

        calibration, demo_rules, starts, family_cameras, adaptation = live
        services.attach_live(LiveReferee(services.hub, calibration, demo_rules, new_game_at=starts or None,
                                         keep_frames=services.config.keep_frames, family_cameras=family_cameras,
                                         adaptation=adaptation, learn=services.config.adapt_in_play))


def camera_for(args: argparse.Namespace):
    """The camera service and the live referee's wiring for ``args`` (see ``_camera``)."""
    return _camera(args)


def _check_arguments(args: argparse.Namespace) -> None:
    """Refuse at once what would otherwise be ignored or fail later (an unknown variant while a
    game is in progress, a missing calibration file): ValueError naming the problem."""
    from engine import variant

    if args.variant is not None:
        variant(args.variant)  # ValueError: unknown variant, with the known ones
    if args.calibration is not None and not Path(args.calibration).is_file():
        raise ValueError(f"--calibration {args.calibration}: no such file; calibrate on the page's "
                         "Calibrate screen (it saves into the data folder, used at the next start) "
                         "or with 'cupboard calibrate'")


def _serve_socket(app, host: str, port: int, streams: int):
    """The server bound to ``host:port``, or a UserError saying what to do."""
    from .errors import UserError
    from ..web.wsgi import make_server

    try:
        return make_server(app, host, port, streams)
    except OSError as e:
        if e.errno == errno.EADDRINUSE:
            other = port + 1 if port < 65535 else 8000
            raise UserError(f"port {port} is already in use (another cupboard serve, or another "
                            f"program): stop it, or choose another port with --port {other}") from None
        if e.errno == errno.EACCES:
            raise UserError(f"port {port} needs administrator rights: use a port from 1024 up, "
                            "e.g. --port 8000") from None
        if e.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT) or isinstance(e, socket.gaierror):
            raise UserError(f"cannot listen on {host}: not an address of this machine "
                            "(leave --host out to listen on every interface)") from None
        raise


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the server until interrupted."""
    from engine import variant

    from ..app import create_app
    from ..services import CompanionConfig
    from ..datalock import DataDirBusy, lock_data_dir
    from .errors import UserError

    if args.token is not None and len(args.token.strip()) < MIN_TOKEN:
        print(f"cupboard serve: --token must be at least {MIN_TOKEN} characters (anyone on the network "
              "could guess a shorter one); leave it out to use the generated one", file=sys.stderr)
        return 2
    _check_arguments(args)
    data_dir = args.data or default_data_dir()
    try:
        data_lock = lock_data_dir(data_dir)
    except DataDirBusy as e:
        raise UserError(str(e)) from None
    camera, live = _camera(args)
    calibration = live[0] if live is not None else None
    demo_rules = live[1] if live is not None else None
    first_game = args.variant or (calibration.pieces.default_game if calibration is not None
                                  else demo_rules.token if demo_rules is not None else "gobblet")
    config = CompanionConfig(
        data_dir=data_dir, token=args.token, default_variant=first_game,
        max_streams=args.max_pages, camera=camera, prepare_tables=True, keep_frames=args.keep_frames,
        adapt_in_play=not args.no_adapt,
        extra={"camera_note": getattr(args, "camera_note", None)},
    )
    app = create_app(config)
    services = app.extensions["cupboard"]
    if getattr(args, "camera_problem", None):
        services.hub.camera_info = {"present": False, "problem": args.camera_problem}
        services.hub.refresh()
    hub = services.hub
    for problem in hub.problems(hub.session) if hub.session is not None else hub.notices:
        print(f"warning: {problem}")  # a read-only folder, a damaged journal set aside, ...
    session = services.hub.session
    if args.variant and session is not None and session.board.rules.token != variant(args.variant).token:
        print(f"game: resuming the game of {session.board.rules.name} in progress; --variant "
              f"{args.variant} applies to the next new game")
    if camera is not None:
        wire_camera(services, camera, live)
        if services.live is not None and services.live.learner is not None:
            print(f"camera: adapting to this table by itself when a game ends with {services.live.learner.after} "
                  "new frames kept (in the background; --no-adapt to turn it off)")
        camera.start()
    # the helper processes of full-strength hints start now, so the first hint has them
    from engine.gobblet.search.parallel import default_helpers, start_helpers

    helpers = default_helpers()
    start_helpers(helpers, timeout=0)
    try:
        running = _serve_socket(app, args.host, args.port, args.max_pages)
    except BaseException:
        if camera is not None:
            camera.stop()
        services.jr_table.stop()
        services.tables.stop()
        if services.live is not None:
            services.live.stop()
        raise
    link = page_link(args.host, running.port, services.token)
    base = link.split("?")[0]
    config.public_url = base
    print(f"cupboard is serving the game at {base}")
    print(f"players, open this link (it gives control of the game): {link}")
    print(f"spectators: {base}")
    print(f"data: {data_dir}")
    if helpers:
        print(f"hints: full strength searches on {helpers + 1} cores")
    table = services.jr_table
    if table.process is not None:
        print(f"hints: building the exact Gobblet Jr. table in the background (a few minutes, low priority) "
              f"into {table.path}")
    print_qr(link)
    sys.stdout.flush()

    def stop(*_: object) -> None:
        # end the streams first: waitress waits for its busy threads when it is interrupted
        services.hub.close()
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        running.server.run()  # type: ignore[attr-defined]
    except KeyboardInterrupt:
        pass
    finally:
        running.stop()
        services.jr_table.stop()  # an unfinished table is started again next time
        services.tables.stop()
        if camera is not None:
            camera.stop()
        if services.live is not None:
            services.live.stop()  # an adaptation not finished writes nothing; the next game's end starts it again
        data_lock.release()
        print("cupboard stopped; the game in progress is kept and resumes next time")
    return 0
