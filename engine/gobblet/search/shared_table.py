"""A transposition table in shared memory, for a search shared between processes
(``engine.gobblet.search.parallel``).

Each process keeps its own table (a dict: far faster to read); this one holds the entries of
nodes at least ``SHARED_DEPTH`` deep, the ones whose subtrees are worth not searching twice, so
that a position one process has searched is known to the others when they meet it by another
move order.  Entries are one 64-bit word of data and one of the key XOR the data, written
without a lock: a read whose two words do not belong together (two processes wrote the slot at
once) fails the key check and counts as a miss.
"""

from __future__ import annotations

import ctypes

SHARED_DEPTH = 2  # the shallowest nodes whose entries are shared
_SCORE_OFFSET = 1 << 21  # table scores are within about +-MATE (10**6) < 2**20
_MASK64 = (1 << 64) - 1


def pack_move(move: tuple | None) -> int:
    """A move ``(size, to, frm)`` (or None) as an int below ``1 << 14``."""
    if move is None:
        return 0
    size, to, frm = move
    return 1 + (size | to << 3 | (0 if frm is None else frm + 1) << 8)


def unpack_move(code: int) -> tuple | None:
    """The move ``pack_move`` made ``code`` of."""
    if code == 0:
        return None
    code -= 1
    frm = code >> 8
    return (code & 7, code >> 3 & 31, None if frm == 0 else frm - 1)


class SharedTable:
    """A table of ``1 << bits`` slots over a shared ``ctypes`` array of ``2 << bits`` unsigned
    64-bit words (``multiprocessing``'s ``RawArray("Q", ...)``), made in the main process and
    handed to the helpers."""

    def __init__(self, words, bits: int) -> None:
        self.words = words
        self.mask = (1 << bits) - 1

    def probe(self, key: int) -> tuple | None:
        """The entry ``(depth, flag, score, move)`` stored for ``key``, or None."""
        i = (key & self.mask) << 1
        words = self.words
        data = words[i + 1]
        if words[i] ^ data != key or data == 0:
            return None
        return (data >> 14 & 255, data >> 22 & 3, (data >> 24) - _SCORE_OFFSET, unpack_move(data & 16383))

    def store(self, key: int, depth: int, flag: int, score: int, move: tuple | None) -> None:
        """Store an entry for ``key`` (replacing whatever the slot held)."""
        data = pack_move(move) | min(depth, 255) << 14 | flag << 22 | (score + _SCORE_OFFSET) << 24
        i = (key & self.mask) << 1
        words = self.words
        words[i] = (key ^ data) & _MASK64
        words[i + 1] = data

    def clear(self) -> None:
        """Empty every slot."""
        ctypes.memset(ctypes.addressof(self.words), 0, ctypes.sizeof(self.words))
