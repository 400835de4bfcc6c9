"""One server per data folder: ``lock_data_dir`` takes an exclusive ``fcntl.flock`` on
``DATA/lock`` for as long as the process runs.

Two servers on one folder would share and overwrite one game file; the second one is refused
with a message naming the folder and the first server's process id.  The kernel drops the lock
when the process ends, however it ends, so a crash leaves no stale lock behind (the file itself
stays, harmless)."""

from __future__ import annotations

import fcntl
import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO

LOCK_NAME = "lock"


class DataDirBusy(RuntimeError):
    """Another process holds the data folder."""


@dataclass
class DataDirLock:
    """A held lock on a data folder; ``release`` (or the process ending) lets it go."""

    path: Path
    handle: IO[str]

    def release(self) -> None:
        """Let another server use the folder."""
        if not self.handle.closed:
            fcntl.flock(self.handle, fcntl.LOCK_UN)
            self.handle.close()


def lock_data_dir(data_dir: Path, what: str = "cupboard serve") -> DataDirLock:
    """Lock ``data_dir`` for this process (creating the folder); DataDirBusy when another
    process holds it, with what to do instead."""
    data_dir = Path(data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / LOCK_NAME
    handle = open(path, "a+", encoding="utf-8")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise DataDirBusy(
            f"the data folder {data_dir} is in use by {holder}: stop that one first (Ctrl-C in "
            f"its terminal, or 'systemctl --user stop cupboard' if it runs as a service), or give "
            f"this one its own folder with --data DIR") from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"{what} (process {os.getpid()})\n")
    handle.flush()
    return DataDirLock(path, handle)
