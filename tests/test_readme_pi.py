"""The README's Raspberry Pi section, checked as far as this machine allows: the apt package
it names is the one cupboard's own message asks for, the virtual environment it makes sees
the system's packages (where Raspberry Pi OS puts picamera2), the extra it installs exists and
asks for picamera2, and the start-at-boot commands are the ones ``cupboard service install``
prints.  (Installing picamera2 itself needs libcamera, so it only happens on a Pi.)"""

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def pi_section() -> str:
    start = README.index("## On a Raspberry Pi")
    return README[start:README.index("\n## ", start + 5)]


def blocks(text: str) -> list[list[str]]:
    return [[line.strip() for line in b.strip().splitlines()] for b in re.findall(r"```sh\n(.*?)```", text, re.S)]


def test_the_install_commands():
    install = blocks(pi_section())[0]
    assert install[0] == "sudo apt install -y python3-picamera2 python3-venv"
    from hardware.picamera import INSTALL_HINT  # the message a Pi without it shows

    assert "sudo apt install python3-picamera2" in INSTALL_HINT
    assert "--system-site-packages" in INSTALL_HINT
    assert install[1] == "python3 -m venv --system-site-packages .venv"
    assert install[2] == '.venv/bin/pip install -e ".[pi]"'
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(req.startswith("picamera2") for req in extras["pi"])
    assert install[3] == ".venv/bin/cupboard serve"
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["cupboard"] == "companion.cli:main"


def test_the_venv_sees_the_system_packages(tmp_path):
    """What --system-site-packages is for: the venv's Python finds the system's packages."""
    venv = tmp_path / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)],
                   check=True, timeout=120)
    assert "include-system-site-packages = true" in (venv / "pyvenv.cfg").read_text()
    base = subprocess.run([str(venv / "bin" / "python"), "-c",
                           "import sys; print(any(p.startswith(sys.base_prefix) and p.endswith('site-packages') "
                           "for p in sys.path))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    assert base == "True"


def test_the_start_at_boot_commands_are_what_service_install_prints(tmp_path):
    readme = blocks(pi_section())[1]
    assert readme[0] == ".venv/bin/cupboard service install"
    printed = subprocess.run([sys.executable, "-m", "companion.cli", "service", "install", "--dir", str(tmp_path)],
                             capture_output=True, text=True, cwd=ROOT, check=True).stdout
    user = os.environ.get("USER") or subprocess.run(["id", "-un"], capture_output=True, text=True).stdout.strip()
    steps = [line.strip().split("#")[0].strip() for line in printed.splitlines() if line.startswith("  ")]
    expected = [line.split("#")[0].strip().replace("$USER", user) for line in readme[1:]]
    assert steps == expected
    assert "~/.config/systemd/user/cupboard.service" in pi_section()
