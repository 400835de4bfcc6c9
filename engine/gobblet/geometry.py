"""Squares, names and winning lines of square boards, as bitboards.

Square ``i`` is file ``i % n`` (a, b, c, ...) and rank ``i // n + 1``, so ``a1`` is 0 and is the
bottom-left square as White sees the board.  A bitboard is an int whose bit ``i`` is square ``i``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

FILES = "abcde"


@dataclass(frozen=True)
class Geometry:
    """Everything about a board that depends only on its size and the winning line length."""

    size: int
    line_length: int
    names: tuple[str, ...]
    lines: tuple[int, ...]  # bitboards of every winning line
    lines_through: tuple[tuple[int, ...], ...]  # per square, the lines that contain it
    full: int

    def square(self, name: str) -> int:
        """The index of a square name like ``b3``; raises ValueError naming the problem."""
        name = name.strip().lower()
        try:
            return self.names.index(name)
        except ValueError:
            last = self.names[-1]
            raise ValueError(f"unknown square {name!r}: squares run from a1 to {last}") from None

    def line_squares(self, line: int) -> tuple[int, ...]:
        """The squares of a line bitboard, in increasing order."""
        return tuple(squares_of(line))


def squares_of(bb: int) -> list[int]:
    """The indices of the set bits of a bitboard, lowest first."""
    out = []
    while bb:
        low = bb & -bb
        out.append(low.bit_length() - 1)
        bb ^= low
    return out


@cache
def geometry(size: int, line_length: int) -> Geometry:
    """The geometry of a ``size`` x ``size`` board where ``line_length`` tops in a row win."""
    names = tuple(f"{FILES[i % size]}{i // size + 1}" for i in range(size * size))
    lines = []
    for file in range(size):
        for rank in range(size):
            for df, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                end_f = file + df * (line_length - 1)
                end_r = rank + dr * (line_length - 1)
                if not (0 <= end_f < size and 0 <= end_r < size):
                    continue
                bb = 0
                for k in range(line_length):
                    bb |= 1 << ((rank + dr * k) * size + file + df * k)
                lines.append(bb)
    lines.sort()
    through = tuple(tuple(bb for bb in lines if bb >> sq & 1) for sq in range(size * size))
    return Geometry(size, line_length, names, tuple(lines), through, (1 << size * size) - 1)
