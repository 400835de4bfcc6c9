"""Low-priority child processes for the slow jobs the server must not wait for (building the
exact tables of Gobblet Jr. and of Cups): started from the project root so that ``engine``
imports in the child, niced by the child itself, and ended cleanly when the server stops."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import IO

# the build's working directory: the project root, so ``engine`` is importable from it
PROJECT_ROOT = Path(__file__).resolve().parent.parent

# the child lowers its own priority, because a preexec_fn is unsafe in a process that already
# runs threads (the camera's)
_NICE = "import os; os.nice(19) if hasattr(os, 'nice') else None; "


def child_command(code: str, args: list[str]) -> list[str]:
    """``python -c code args…``, the child's priority lowered to the lowest before ``code`` runs."""
    return [sys.executable, "-c", _NICE + code, *args]


def start_child(code: str, args: list[str], output: IO[bytes] | int = subprocess.DEVNULL) -> subprocess.Popen:
    """Start ``code`` with ``args`` in a low-priority child (``child_command``), from the
    project root, ``engine`` importable whether or not the project is installed; its output
    goes to ``output`` (a file opened for writing, or discarded).  ``OSError`` if no process
    can be started."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(PROJECT_ROOT), os.environ.get("PYTHONPATH", "")) if p)}
    return subprocess.Popen(child_command(code, args), cwd=PROJECT_ROOT, env=env,
                            stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT)


def end_child(process: subprocess.Popen, grace: float = 5.0) -> None:
    """End a child still running: asked to stop, killed if it has not within ``grace`` seconds."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
