"""Facts about a bitboard read by subscription, for the search's innermost loops.

Each table answers ``table[bb]`` for any bitboard ``bb`` of one geometry: the set squares of
``bb``, the squares completing a line of tops ``bb``, the lines ``bb`` nearly owns.  The two
the search reads most are, up to 16 squares (3x3 and 4x4 boards), flat lists over every
bitboard, filled once (about 25 ms for 4x4); otherwise a table is a dict that fills itself on
a miss and starts afresh when it grows too large.  Either way ``table[bb]`` costs an index,
not a call: the search makes millions of these look-ups a second.  These tables are the
project's one source of completing squares and hot lines (``tactics.completing_squares``,
``tactics.hot_lines_of`` and ``Board._hot_lines`` read them); the threat-lines table is the
union of ``tactics.threat_lines``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

from .geometry import Geometry, geometry

FLAT_LIMIT = 16  # squares up to which a table is a flat list
_MEMO_LIMIT = 1 << 18


class _Memo(dict):
    """A dict that computes and keeps the value of a missing bitboard."""

    __slots__ = ("fill",)

    def __init__(self, fill: Callable[[int], object]) -> None:
        super().__init__()
        self.fill = fill

    def __missing__(self, bb: int) -> object:
        if len(self) > _MEMO_LIMIT:
            self.clear()
        value = self[bb] = self.fill(bb)
        return value


def _set_squares(bb: int) -> tuple[int, ...]:
    out = []
    while bb:
        low = bb & -bb
        out.append(low.bit_length() - 1)
        bb ^= low
    return tuple(out)


@cache
def square_table(squares: int) -> Sequence[tuple[int, ...]]:
    """``[bb]``: the set squares of ``bb``, lowest first, on a board of ``squares`` squares."""
    if squares > FLAT_LIMIT:
        return _Memo(_set_squares)
    table: list[tuple[int, ...]] = [()] * (1 << squares)
    for bb in range(1, 1 << squares):
        low = bb & -bb
        table[bb] = (low.bit_length() - 1,) + table[bb ^ low]
    return table


def _short_lines(geo: Geometry) -> list[tuple[int, int]]:
    """Every ``(line, square)``: a line and one of its squares."""
    return [(line, 1 << sq) for line in geo.lines for sq in geo.line_squares(line)]


@cache
def completing_table(size: int, line_length: int) -> Sequence[int]:
    """``[bb]``: the squares that would complete a line of tops ``bb`` (the one square missing
    from each line ``bb`` shows all but one of), on a ``size`` x ``size`` board."""
    geo = geometry(size, line_length)
    if geo.size * geo.size > FLAT_LIMIT:
        pairs = _short_lines(geo)
        # the hole of each line short by one is that line less the tops
        return _Memo(lambda bb: _threat_lines(pairs, bb) & ~bb)
    table = [0] * (1 << geo.size * geo.size)
    for line, hole in _short_lines(geo):
        rest = line ^ hole
        for bb in _supersets(geo, rest, line):
            table[bb] |= hole
    return table


@cache
def hot_lines_table(size: int, line_length: int) -> Sequence[int]:
    """``[bb]``: the squares of every line in which tops ``bb`` show all squares but one, or
    all of them (a memo at every size: it is read far less often)."""
    geo = geometry(size, line_length)
    return _Memo(lambda bb: _hot_lines(geo, bb))


@cache
def threat_lines_table(size: int, line_length: int) -> Sequence[int]:
    """``[bb]``: the squares of every line in which tops ``bb`` show all squares but one (the
    union of ``tactics.threat_lines``; a memo at every size)."""
    pairs = _short_lines(geometry(size, line_length))
    return _Memo(lambda bb: _threat_lines(pairs, bb))


@cache
def first_line_table(size: int, line_length: int) -> Sequence[int]:
    """``[bb]``: the first line (in the order of ``Geometry.lines``) that tops ``bb`` show
    completely, 0 when they show none (flat up to 16 squares, as the completing table)."""
    geo = geometry(size, line_length)
    if geo.size * geo.size > FLAT_LIMIT:
        return _Memo(lambda bb: _first_line(geo, bb))
    table = [0] * (1 << geo.size * geo.size)
    for line in reversed(geo.lines):  # the first line in order written last
        for bb in _supersets(geo, line, line):
            table[bb] = line
    return table


def _first_line(geo: Geometry, bb: int) -> int:
    for line in geo.lines:
        if bb & line == line:
            return line
    return 0


def _supersets(geo: Geometry, required: int, fixed: int) -> list[int]:
    """The bitboards holding ``required`` that agree with it on the squares of ``fixed``."""
    free = [1 << sq for sq in range(geo.size * geo.size) if not fixed >> sq & 1]
    out = [required]
    for bit in free:
        out += [bb | bit for bb in out]
    return out


def _threat_lines(pairs: list[tuple[int, int]], bb: int) -> int:
    out = 0
    for line, hole in pairs:
        if bb & line == line ^ hole:
            out |= line
    return out


def _hot_lines(geo: Geometry, bb: int) -> int:
    need = geo.line_length - 1
    out = 0
    for line in geo.lines:
        if (bb & line).bit_count() >= need:
            out |= line
    return out
