"""``cupboard service install``: a systemd unit that starts ``cupboard serve`` at boot.

A *user* unit (the default) runs as the user who installs it, with their data folder; on a Pi
``loginctl enable-linger`` lets it start at boot before anyone logs in.  A *system* unit
(``--system``) is written for ``/etc/systemd/system`` and names the user to run as.  Either
way the server's output goes to the systemd journal, read with ``journalctl``."""

from __future__ import annotations

import argparse
import getpass
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

UNIT_NAME = "cupboard.service"
PROJECT_ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class ServicePlan:
    """What ``service install`` writes and the commands the user runs next."""

    path: Path
    text: str
    system: bool

    @property
    def next_steps(self) -> list[str]:
        """The commands that enable and start the unit, then show its log."""
        if self.system:
            return ["sudo systemctl daemon-reload",
                    "sudo systemctl enable --now cupboard",
                    "journalctl -u cupboard -f          # its log (the link and QR code are at the start)"]
        return ["systemctl --user daemon-reload",
                "systemctl --user enable --now cupboard",
                f"sudo loginctl enable-linger {getpass.getuser()}   # start at boot, before anyone logs in",
                "journalctl --user -u cupboard -f   # its log (the link and QR code are at the start)"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``service`` to the ``cupboard`` parser."""
    p = subparsers.add_parser("service", help="start cupboard serve at boot (a systemd unit)")
    sub = p.add_subparsers(dest="service_command", metavar="ACTION", required=True)
    i = sub.add_parser("install", help="write the systemd unit and print how to enable it",
                       description="Write a systemd unit running 'cupboard serve'. Options after -- "
                                   "go to serve, e.g.: cupboard service install -- --set gobblet --port 8080")
    i.add_argument("--system", action="store_true",
                   help="a system unit in /etc/systemd/system (needs root) instead of a user unit")
    i.add_argument("--dir", type=Path, default=None,
                   help="write the unit into this folder instead (to look at it first)")
    i.add_argument("--run-as", dest="run_as", default=None, metavar="USER",
                   help="with --system: the user to run as (default: the one running this command, "
                        "or $SUDO_USER)")
    i.add_argument("serve_args", nargs=argparse.REMAINDER, help="options for cupboard serve, after --")
    i.set_defaults(func=cmd_service_install)


def _command() -> list[str]:
    """How systemd starts cupboard: the installed ``cupboard`` script beside this Python, else
    this Python running the package from its folder (a checkout that is not installed)."""
    script = Path(sys.executable).parent / "cupboard"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "companion.cli"]


def unit_text(serve_args: list[str], system: bool, run_as: str, home: Path) -> str:
    """The unit file running ``cupboard serve`` with ``serve_args``."""
    command = _command()
    lines = [
        "# written by 'cupboard service install'; run it again to rewrite",
        "[Unit]",
        "Description=cupboard: camera referee and phone page for cup games",
        # a user's service manager has no network-online.target: there serve starts at once
        # and listens on every interface as they come up
        *(["After=network-online.target", "Wants=network-online.target"] if system else []),
        "",
        "[Service]",
        "Type=simple",
        f"ExecStart={shlex.join([*command, 'serve', *serve_args])}",
    ]
    if command[0] == sys.executable:
        lines.append(f"WorkingDirectory={PROJECT_ROOT}")
    else:
        lines.append(f"WorkingDirectory={home}")
    if system:
        lines += [f"User={run_as}", f"Environment=HOME={home}"]
    lines += [
        # print each line as it happens, so the journal shows the link at once
        "Environment=PYTHONUNBUFFERED=1",
        "Restart=on-failure",
        "RestartSec=5",
        "",
        "[Install]",
        f"WantedBy={'multi-user.target' if system else 'default.target'}",
    ]
    return "\n".join(lines) + "\n"


def plan(args: argparse.Namespace) -> ServicePlan:
    """The unit for ``args`` and where it goes; ValueError for serve options serve refuses."""
    from . import serve_cmds
    from .errors import UserError

    serve_args = list(args.serve_args)
    if serve_args[:1] == ["--"]:
        serve_args = serve_args[1:]
    try:
        # serve's own parser (the whole command line's would import this module back)
        parser = argparse.ArgumentParser(prog="cupboard")
        serve_cmds.register(parser.add_subparsers(dest="command", metavar="COMMAND"))
        parser.parse_args(["serve", *serve_args])
    except SystemExit:
        raise UserError(f"cupboard serve does not take {shlex.join(serve_args)!r} (see cupboard serve --help)") from None
    run_as = args.run_as or os.environ.get("SUDO_USER") or getpass.getuser()
    home = Path(os.path.expanduser(f"~{run_as}")) if args.system else Path.home()
    if args.dir is not None:
        folder = args.dir
    elif args.system:
        folder = Path("/etc/systemd/system")
    else:
        config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
        folder = Path(config) / "systemd" / "user"
    return ServicePlan(folder / UNIT_NAME, unit_text(serve_args, args.system, run_as, home), args.system)


def cmd_service_install(args: argparse.Namespace) -> int:
    """Write the unit file and print the commands to enable it and read its log."""
    p = plan(args)
    p.path.parent.mkdir(parents=True, exist_ok=True)
    p.path.write_text(p.text, encoding="utf-8")
    print(f"wrote {p.path}")
    print("to start cupboard now and at every boot, run:")
    for line in p.next_steps:
        print(f"  {line}")
    return 0
