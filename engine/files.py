"""Writing files that users must not lose: all or nothing, and durable once written.

Every byte the project writes to keep (journals, records, calibrations, the token) goes
through ``layer``, a thin ``FileLayer`` over ``os.write`` and ``os.fsync``.  Tests swap it for
one that fails like a full disk (``FaultyLayer``) to check that a failed write leaves every
file as it was.  Errors are ``StorageError``: an ``OSError`` whose message says in words what
went wrong and what was not saved.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

TMP_SUFFIX = ".tmp"


class StorageError(OSError):
    """A write that did not happen; ``str()`` says why in words ("the disk is full")."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(code, message)
        self.message = message

    def __str__(self) -> str:
        return self.message


def describe_os_error(e: OSError) -> str:
    """A short sentence for an operating-system error: what the user can act on."""
    code = e.errno
    if code in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)):
        return "the disk is full"
    if code == errno.EROFS:
        return "the data folder is on a read-only disk"
    if code in (errno.EACCES, errno.EPERM):
        return "the data folder may not be written to (permission denied)"
    if code == errno.EIO:
        return "the disk reported an input/output error"
    return e.strerror or str(e)


class FileLayer:
    """The system calls that write data: the real ones."""

    def write(self, fd: int, data: bytes) -> int:
        """Write some of ``data`` to ``fd``; returns how many bytes were written."""
        return os.write(fd, data)

    def fsync(self, fd: int) -> None:
        """Flush ``fd``'s data to the disk."""
        os.fsync(fd)


class FaultyLayer(FileLayer):
    """A file layer that fails like a full disk while ``full`` is set: a write first lands
    ``partial`` bytes (as a real disk filling mid-write may), then raises ENOSPC."""

    def __init__(self, partial: int = 0) -> None:
        self.full = False
        self.partial = partial
        self.failures = 0
        self.writes_left: int | None = None  # the disk fills after this many more writes

    def write(self, fd: int, data: bytes) -> int:
        """Write, or fail with ENOSPC after ``partial`` bytes while the disk is "full"."""
        if self.writes_left is not None:
            if self.writes_left <= 0:
                self.full, self.writes_left = True, None
            else:
                self.writes_left -= 1
        if self.full:
            self.failures += 1
            if self.partial:
                os.write(fd, data[: self.partial])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return os.write(fd, data)

    def fsync(self, fd: int) -> None:
        """Flush, or fail with ENOSPC while the disk is "full" (as delayed allocation may)."""
        if self.full:
            self.failures += 1
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        os.fsync(fd)


layer: FileLayer = FileLayer()


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd`` (``os.write`` may take only part of it)."""
    done = 0
    while done < len(data):
        done += layer.write(fd, data[done:])


def write_atomic(path: str | os.PathLike[str], text: str | bytes, what: str = "the file") -> None:
    """Replace ``path`` with ``text`` so that a crash leaves either the old file or the new one,
    never a mix; the new content and the rename are flushed to disk before returning.

    A failure raises ``StorageError`` naming ``what`` was not saved; the old file stays."""
    path = Path(path)
    directory = path.parent
    data = text.encode("utf-8") if isinstance(text, str) else text
    tmp: Path | None = None
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TMP_SUFFIX, dir=directory)
        tmp = Path(name)
        try:
            write_all(fd, data)
            layer.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as e:
        _unlink_quietly(tmp)
        raise StorageError(e.errno or errno.EIO, f"{describe_os_error(e)}: {what} ({path}) was not saved") from None
    except BaseException:
        _unlink_quietly(tmp)
        raise
    fsync_directory(directory)


def _unlink_quietly(path: Path | None) -> None:
    if path is None:
        return
    try:
        os.unlink(path)
    except OSError:
        pass


def remove_stale_temporaries(directory: str | os.PathLike[str]) -> list[Path]:
    """Delete the ``.NAME.*.tmp`` files an interrupted ``write_atomic`` left in ``directory``
    (call it at start, when no write is under way); returns what was removed."""
    removed = []
    try:
        candidates = list(Path(directory).glob(f".*{TMP_SUFFIX}"))
    except OSError:
        return removed
    for tmp in candidates:
        try:
            tmp.unlink()
            removed.append(tmp)
        except OSError:
            pass
    return removed


def fsync_directory(directory: str | os.PathLike[str]) -> None:
    """Make renames and new files in ``directory`` durable (where the platform allows it)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
