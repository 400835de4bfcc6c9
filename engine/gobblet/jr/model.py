"""A compact, fast model of Gobblet Jr. (3x3, sizes 1-3, two loose pieces of each size) for
exact solving.

A position is one int of 54 bits, seen from the side to move ("mover"): six 9-bit bitboards,
``mover size 1, 2, 3`` then ``opponent size 1, 2, 3``; bit ``9*k + sq`` says that piece kind
``k`` stands on square ``sq`` (square numbering as ``engine.gobblet.geometry``).  Since sizes strictly
increase up a stack, the six bitboards determine every stack; reserves are what is not on the
board.  Swapping the two 27-bit halves gives the position with the other side to move, so a
child position is always written from its own mover's side and values are negamax values.

Symmetry: the 8 symmetries of the square act on each 9-bit bitboard; ``canonical`` is the
smallest image, so positions equal up to rotation or reflection (and colour, since positions
are mover-relative) share one key.

Repetition is not modelled here: the solver's values are those of the game graph, see
``engine.gobblet.jr.table``.
"""

from __future__ import annotations

from array import array

from ..board import Board
from ..values import Move
from ..geometry import geometry, squares_of
from ..rules import GOBBLET_JR, Rules

N = 3
SQUARES = 9
FULL = (1 << SQUARES) - 1
HALF = 27
HALF_MASK = (1 << HALF) - 1
PER_SIZE = 2
LINES: tuple[int, ...] = geometry(3, 3).lines


def swap(state: int) -> int:
    """The same position with the other side to move (halves swapped)."""
    return (state >> HALF) | ((state & HALF_MASK) << HALF)


def fields(state: int) -> tuple[int, int, int, int, int, int]:
    """The six bitboards: mover sizes 1-3, then opponent sizes 1-3."""
    return (
        state & FULL,
        state >> 9 & FULL,
        state >> 18 & FULL,
        state >> 27 & FULL,
        state >> 36 & FULL,
        state >> 45 & FULL,
    )


def pack(m1: int, m2: int, m3: int, o1: int, o2: int, o3: int) -> int:
    """The state int of six bitboards (mover sizes 1-3, opponent sizes 1-3)."""
    return m1 | m2 << 9 | m3 << 18 | o1 << 27 | o2 << 36 | o3 << 45


def tops(state: int) -> tuple[int, int]:
    """Bitboards of the squares whose visible top is the mover's, and the opponent's."""
    m1, m2, m3, o1, o2, o3 = fields(state)
    big = m3 | o3
    mid = (m2 | o2) & ~big
    return (m3 | (m2 & ~big) | (m1 & ~big & ~mid)), (o3 | (o2 & ~big) | (o1 & ~big & ~mid))


def has_line(bb: int) -> bool:
    """True when the bitboard covers a whole line."""
    for line in LINES:
        if bb & line == line:
            return True
    return False


# Result of a move, from the mover's point of view.
ONGOING = 0
WINS = 1  # the mover shows a line and the opponent does not
LOSES = 2  # the opponent shows a line (possibly uncovered by the move)


def children(state: int) -> list[tuple[tuple[int, int, int | None], int, int]]:
    """Every legal move of the mover as ``(move, child, result)``.

    ``move`` is ``(size, to, frm)`` (``frm`` None for an entry), ``child`` the position after
    the move from the new mover's side, ``result`` ONGOING, WINS or LOSES for the player who
    moved.  Equal pieces are interchangeable, so each move appears once.
    """
    m = [0, state & FULL, state >> 9 & FULL, state >> 18 & FULL]
    o = [0, state >> 27 & FULL, state >> 36 & FULL, state >> 45 & FULL]
    occ = [0, m[1] | o[1], m[2] | o[2], m[3] | o[3]]
    # ge[s]: squares holding a piece of size s or larger (a size s cannot go there)
    ge3 = occ[3]
    ge2 = ge3 | occ[2]
    ge = [0, ge2 | occ[1], ge2, ge3]
    out = []
    for s in (3, 2, 1):
        if m[s].bit_count() < PER_SIZE:
            for to in squares_of(FULL & ~ge[s]):
                new = list(m)
                new[s] |= 1 << to
                out.append(((s, to, None), *_finish(new, o)))
    my_tops, _ = tops(state)
    for frm in squares_of(my_tops):
        fbit = 1 << frm
        s = 3 if m[3] & fbit else 2 if m[2] & fbit else 1
        for to in squares_of(FULL & ~ge[s] & ~fbit):
            new = list(m)
            new[s] ^= fbit | 1 << to
            out.append(((s, to, frm), *_finish(new, o)))
    return out


def _finish(m: list[int], o: list[int]) -> tuple[int, int]:
    child = o[1] | o[2] << 9 | o[3] << 18 | m[1] << 27 | m[2] << 36 | m[3] << 45
    big = m[3] | o[3]
    mid = (m[2] | o[2]) & ~big
    opp_tops = o[3] | (o[2] & ~big) | (o[1] & ~big & ~mid)
    for line in LINES:
        if opp_tops & line == line:
            return child, LOSES
    my_tops = m[3] | (m[2] & ~big) | (m[1] & ~big & ~mid)
    for line in LINES:
        if my_tops & line == line:
            return child, WINS
    return child, ONGOING


def terminal(state: int) -> bool:
    """True when someone shows a line (a position the game never continues from)."""
    mine, theirs = tops(state)
    return has_line(mine) or has_line(theirs)


# ------------------------------------------------------------------ symmetry
def _square_maps() -> list[tuple[int, ...]]:
    maps = []
    for k in range(8):
        perm = []
        for sq in range(SQUARES):
            x, y = sq % N, sq // N
            for _ in range(k % 4):
                x, y = N - 1 - y, x
            if k >= 4:
                x = N - 1 - x
            perm.append(y * N + x)
        maps.append(tuple(perm))
    return maps


SQUARE_MAPS: list[tuple[int, ...]] = _square_maps()


def _chunk_tables() -> tuple[array, ...]:
    """Per symmetry, a table mapping an 18-bit chunk (two bitboards) to its image."""
    tables = []
    for perm in SQUARE_MAPS:
        nine = [0] * 512
        for bb in range(512):
            img = 0
            for sq in squares_of(bb):
                img |= 1 << perm[sq]
            nine[bb] = img
        tables.append(array("L", [hi << 9 | lo for hi in nine for lo in nine]))
    return tuple(tables)


_TABLES: tuple[array, ...] = ()


def _tables() -> tuple[array, ...]:
    global _TABLES
    if not _TABLES:
        _TABLES = _chunk_tables()
    return _TABLES


def canonical(state: int) -> int:
    """The smallest of the 8 symmetric images of ``state`` (a key shared by symmetric
    positions)."""
    a = state & 0x3FFFF
    b = state >> 18 & 0x3FFFF
    c = state >> 36
    best = state
    for t in _TABLES or _tables():
        img = t[a] | t[b] << 18 | t[c] << 36
        if img < best:
            best = img
    return best


def symmetry_of(state: int, k: int) -> int:
    """The image of ``state`` under symmetry ``k`` (0-7; 0 is the identity)."""
    t = _tables()[k]
    return t[state & 0x3FFFF] | t[state >> 18 & 0x3FFFF] << 18 | t[state >> 36] << 36


# ------------------------------------------------------------------ conversion
def is_jr(rules: Rules) -> bool:
    """True when ``rules`` play exactly like Gobblet Jr. (the model here applies)."""
    return (
        rules.board == GOBBLET_JR.board
        and rules.sizes == GOBBLET_JR.sizes
        and rules.per_size == GOBBLET_JR.per_size
        and rules.line == GOBBLET_JR.line
        and rules.reserve == GOBBLET_JR.reserve
        and rules.entry == GOBBLET_JR.entry
    )


def from_board(board: Board) -> int:
    """The state of a Gobblet Jr. board, seen from its side to move."""
    if not is_jr(board.rules):
        raise ValueError(f"{board.rules.token} is not Gobblet Jr.")
    bbs = [[0] * 4, [0] * 4]
    for sq, stack in enumerate(board.stacks):
        for p in stack:
            bbs[p & 1][p >> 1] |= 1 << sq
    me, them = bbs[board.turn], bbs[1 - board.turn]
    return pack(me[1], me[2], me[3], them[1], them[2], them[3])


def to_move(move: tuple[int, int, int | None]) -> Move:
    """The engine ``Move`` of a compact move ``(size, to, frm)``."""
    return Move(*move)
