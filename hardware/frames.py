"""The one interface every frame source offers: open, read timestamped BGR frames, close.

A source that stops delivering raises ``CameraLost`` from ``read``; the caller may call
``open`` again later to reconnect (``hardware.sources.Reconnecting`` does that for it).  A
source that cannot start at all (no device, missing library) raises ``SourceUnavailable``
with a message a user can act on.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass

import numpy as np


class SourceError(Exception):
    """Base class of frame-source problems; the message is meant for the user."""


class SourceUnavailable(SourceError):
    """The source cannot be opened (no such device or file, library missing, ...)."""


class CameraLost(SourceError):
    """An open source stopped delivering frames (unplugged, stream ended, timed out)."""


class EndOfStream(SourceError):
    """A finite source (replay, scripted demo) has no more frames."""


@dataclass(frozen=True)
class Frame:
    """One picture: ``image`` is BGR uint8 of shape (height, width, 3); ``timestamp`` is in
    seconds (monotonic for live cameras, the recorded or scripted time for replays);
    ``index`` counts frames from 0 since the source was opened."""

    image: np.ndarray
    timestamp: float
    index: int


class FrameSource(abc.ABC):
    """A camera or something that behaves like one.  Use as a context manager or call
    ``open``/``close`` yourself."""

    name: str = "source"

    @abc.abstractmethod
    def open(self) -> None:
        """Start delivering frames; raises ``SourceUnavailable`` when it cannot."""

    @abc.abstractmethod
    def read(self) -> Frame:
        """The next frame; raises ``CameraLost`` or ``EndOfStream`` when there is none."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release the device or file; safe to call more than once."""

    def __enter__(self) -> "FrameSource":
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
