"""What recognition says about one frame."""

from __future__ import annotations

from dataclasses import dataclass

EMPTY = "empty"
CUP = "cup"
OCCLUDED = "occluded"


@dataclass(frozen=True)
class SquareReading:
    """One square: ``state`` is ``empty``, ``cup`` (then ``colour`` 0 light / 1 dark and
    ``size`` the size class, 0 the smallest) or ``occluded`` (hidden, e.g. by a hand).
    ``confidence`` in [0, 1] is how sure the reading is; the referee should not act on a
    reading below its own threshold."""

    state: str
    colour: int | None = None
    size: int | None = None
    confidence: float = 0.0

    @property
    def top(self) -> tuple[int, int] | None:
        """(colour, size) of the top cup, or None when empty or occluded."""
        return (self.colour, self.size) if self.state == CUP else None


@dataclass(frozen=True)
class Observation:
    """Recognition of one frame: a reading per square (square ``i`` is file ``i % cols``,
    rank ``i // cols``), whether the board was found, which markers were seen, whether a hand
    is over the board, the camera height measured in this frame and the time it took."""

    squares: tuple[SquareReading, ...]
    board_found: bool
    markers_seen: tuple[int, ...]
    hand: bool = False
    camera_height_mm: float = 0.0
    board_moved_mm: float = 0.0
    elapsed_ms: float = 0.0

    def tops(self) -> tuple[tuple[int, int] | None | str, ...]:
        """Per square: (colour, size), None for empty, or ``"occluded"``."""
        return tuple(r.top if r.state != OCCLUDED else OCCLUDED for r in self.squares)
