"""A dense numbering of Gobblet Jr. positions up to symmetry: the layout of the exact table.

A position (``engine.gobblet.jr.model``: mover-relative bitboards) is, per size ``s``, a *configuration*: the
mover's squares ``A_s`` and the opponent's ``B_s`` (disjoint, at most two each).  There are
1423 configurations, numbered by *class* ``3 * |A_s| + |B_s|`` (nine classes) and inside a
class in increasing ``A | B << 9``.  The pieces-on-board counts of a position are its three
classes ``(k1, k2, k3)``; the table is a sequence of *blocks*, one per class triple, so that
one layer of the game graph is one contiguous block; blocks with more pieces on the board come
first.

Symmetry: the eight symmetries of the square act on configurations.  A position's key is the
smallest image of its (size 3, size 2) configuration pair, and among the symmetries that give
that pair, the smallest image of its size 1 configuration.  That key is unique per orbit, so
the table stores each position once up to symmetry (plus a few unused slots: the size-1
configurations that are not the smallest under a pair's stabiliser).

    index = base[k3, k2, k1] + pair_rank * n[k1] + rank of the size-1 configuration in k1

Only numpy is needed (the table's reader uses this too; the builder adds numba).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from . import model as jr

NCFG = 1423
NCLS = 9
NPAIR = NCFG * NCFG


def popcount9(bb: int) -> int:
    """The number of squares of a 9-bit bitboard."""
    return bb.bit_count()


@dataclass(frozen=True, eq=False)
class JrIndex:
    """Tables numbering positions up to symmetry (see the module text)."""

    cfg_of: np.ndarray  # int16[2**18]: configuration number of ``A | B << 9``, -1 if invalid
    cfg_a: np.ndarray  # uint16[NCFG]: the mover's squares
    cfg_b: np.ndarray  # uint16[NCFG]: the opponent's squares
    cfg_cls: np.ndarray  # uint8[NCFG]: class 3 * |A| + |B|
    cfg_loc: np.ndarray  # int32[NCFG]: rank inside the class
    cls_start: np.ndarray  # int32[NCLS]: first configuration of each class
    cls_n: np.ndarray  # int32[NCLS]: configurations in each class
    sym: np.ndarray  # int16[8, NCFG]: image of a configuration under each symmetry
    pair_g: np.ndarray  # uint8[NPAIR]: a symmetry taking the pair to its smallest image
    pair_mask: np.ndarray  # uint8[NPAIR]: every symmetry doing so (bit g)
    pair_rank: np.ndarray  # int32[NPAIR]: rank of the smallest image among its class pair's
    canon_pk: np.ndarray  # int32[]: the smallest images, grouped by class pair, in rank order
    cp_start: np.ndarray  # int64[82]: where each class pair (k3 * 9 + k2) starts in canon_pk
    base: np.ndarray  # int64[729]: offset of block (k3 * 9 + k2) * 9 + k1
    ends: np.ndarray  # int64[13]: end of the blocks with ``n`` pieces on the board
    size: int  # number of slots

    def prefix(self, min_pieces: int) -> int:
        """The number of slots of the layers with at least ``min_pieces`` pieces on the board
        (they come first)."""
        return int(self.ends[max(0, min(12, min_pieces))])

    def block(self, k1: int, k2: int, k3: int) -> tuple[int, int]:
        """Offset and length of the block of classes ``(k1, k2, k3)``."""
        cp = k3 * NCLS + k2
        pairs = int(self.cp_start[cp + 1] - self.cp_start[cp])
        return int(self.base[cp * NCLS + k1]), pairs * int(self.cls_n[k1])

    def index(self, state: int) -> int:
        """The slot of a position (its symmetry key)."""
        m1, m2, m3, o1, o2, o3 = jr.fields(state)
        c = _py_tables(self)
        cfg_of, sym, cls, loc = c.cfg_of, c.sym, c.cls, c.loc
        i1, i2, i3 = cfg_of[m1 | o1 << 9], cfg_of[m2 | o2 << 9], cfg_of[m3 | o3 << 9]
        pk = i3 * NCFG + i2
        mask = int(self.pair_mask[pk])
        j1 = min(sym[g][i1] for g in range(8) if mask >> g & 1)
        k1 = cls[i1]
        return c.base[(cls[i3] * NCLS + cls[i2]) * NCLS + k1] + int(self.pair_rank[pk]) * c.n[k1] + loc[j1]


    def position(self, slot: int) -> int:
        """The position stored in ``slot`` (``index(position(slot)) == slot`` for the slots of
        game positions)."""
        if not 0 <= slot < self.size:
            raise IndexError(f"slot {slot} is outside the table")
        block = next(b for b in range(NCLS ** 3)
                     if self.base[b] <= slot < self.base[b] + self.block_size(b))
        cp, k1 = divmod(block, NCLS)
        r, l1 = divmod(slot - int(self.base[block]), int(self.cls_n[k1]))
        pk = int(self.canon_pk[int(self.cp_start[cp]) + r])
        i3, i2 = divmod(pk, NCFG)
        i1 = int(self.cls_start[k1]) + l1
        a = [int(self.cfg_a[i]) for i in (i1, i2, i3)]
        b = [int(self.cfg_b[i]) for i in (i1, i2, i3)]
        return jr.pack(a[0], a[1], a[2], b[0], b[1], b[2])

    def block_size(self, block: int) -> int:
        """The number of slots of block ``(k3 * 9 + k2) * 9 + k1``."""
        cp, k1 = divmod(block, NCLS)
        return int(self.cp_start[cp + 1] - self.cp_start[cp]) * int(self.cls_n[k1])


@dataclass(frozen=True)
class _PyTables:
    """The small tables as Python lists (item access on lists is faster than on arrays)."""

    cfg_of: list[int]
    sym: list[list[int]]
    cls: list[int]
    loc: list[int]
    base: list[int]
    n: list[int]


_PY: dict[int, _PyTables] = {}


def _py_tables(ix: JrIndex) -> _PyTables:
    t = _PY.get(id(ix))
    if t is None:
        t = _PyTables(ix.cfg_of.tolist(), ix.sym.tolist(), ix.cfg_cls.tolist(), ix.cfg_loc.tolist(),
                      ix.base.tolist(), ix.cls_n.tolist())
        _PY[id(ix)] = t
    return t


def _image(bb: int, perm: tuple[int, ...]) -> int:
    out = 0
    for sq in range(9):
        if bb >> sq & 1:
            out |= 1 << perm[sq]
    return out


@cache
def index() -> JrIndex:
    """The numbering (built once per process, in about a quarter of a second)."""
    small = [bb for bb in range(512) if popcount9(bb) <= jr.PER_SIZE]
    configs = sorted(((3 * popcount9(a) + popcount9(b), a, b) for a in small for b in small if not a & b),
                     key=lambda c: (c[0], c[1] | c[2] << 9))  # (class, A, B)
    assert len(configs) == NCFG
    cfg_of = np.full(1 << 18, -1, dtype=np.int16)
    cfg_a = np.array([a for _, a, _ in configs], dtype=np.uint16)
    cfg_b = np.array([b for _, _, b in configs], dtype=np.uint16)
    cfg_cls = np.array([k for k, _, _ in configs], dtype=np.uint8)
    for i, (_, a, b) in enumerate(configs):
        cfg_of[a | b << 9] = i
    cls_n = np.bincount(cfg_cls, minlength=NCLS).astype(np.int32)
    cls_start = np.concatenate([[0], np.cumsum(cls_n)[:-1]]).astype(np.int32)
    cfg_loc = (np.arange(NCFG) - cls_start[cfg_cls]).astype(np.int32)

    sym = np.empty((8, NCFG), dtype=np.int16)
    for g, perm in enumerate(jr.SQUARE_MAPS):
        img = [_image(x, perm) for x in range(512)]
        for i, (_, a, b) in enumerate(configs):
            sym[g, i] = cfg_of[img[a] | img[b] << 9]

    # pairs (size 3, size 2) as pk = i3 * NCFG + i2; their images under the 8 symmetries
    i3 = np.repeat(np.arange(NCFG, dtype=np.int32), NCFG)
    i2 = np.tile(np.arange(NCFG, dtype=np.int32), NCFG)
    images = np.empty((8, NPAIR), dtype=np.int32)
    for g in range(8):
        images[g] = sym[g].astype(np.int32)[i3] * NCFG + sym[g].astype(np.int32)[i2]
    smallest = images.min(axis=0)
    pair_g = np.zeros(NPAIR, dtype=np.uint8)
    pair_mask = np.zeros(NPAIR, dtype=np.uint8)
    for g in range(7, -1, -1):  # downwards, so that pair_g ends as the first symmetry found
        hit = images[g] == smallest
        pair_g[hit] = g
        pair_mask[hit] |= np.uint8(1 << g)
    del images

    pk = np.arange(NPAIR, dtype=np.int32)
    canon = pk[smallest == pk]
    group = cfg_cls[canon // NCFG].astype(np.int64) * NCLS + cfg_cls[canon % NCFG]
    order = np.argsort(group, kind="stable")  # canon is increasing, so ranks follow pk
    canon_pk = canon[order]
    counts = np.bincount(group, minlength=NCLS * NCLS)
    cp_start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    rank_of = np.zeros(NPAIR, dtype=np.int32)
    rank_of[canon_pk] = np.arange(len(canon_pk), dtype=np.int32) - cp_start[group[order]].astype(np.int32)
    pair_rank = rank_of[smallest]

    # blocks with more pieces on the board first: the layers solved down to some count are a
    # prefix of the table
    base = np.zeros(NCLS ** 3, dtype=np.int64)
    ends = np.zeros(13, dtype=np.int64)
    offset = 0
    for total in range(12, -1, -1):
        for k3 in range(NCLS):
            for k2 in range(NCLS):
                for k1 in range(NCLS):
                    if sum(k // 3 + k % 3 for k in (k1, k2, k3)) == total:
                        base[(k3 * NCLS + k2) * NCLS + k1] = offset
                        offset += int(counts[k3 * NCLS + k2]) * int(cls_n[k1])
        ends[total] = offset
    return JrIndex(cfg_of, cfg_a, cfg_b, cfg_cls, cfg_loc, cls_start, cls_n, sym, pair_g, pair_mask,
                   pair_rank, canon_pk, cp_start, base, ends, offset)


def classes(state: int) -> tuple[int, int, int]:
    """The classes ``(k1, k2, k3)`` of a position: ``3 * mover's + opponent's`` pieces of each
    size on the board."""
    f = jr.fields(state)
    return tuple(3 * popcount9(f[s]) + popcount9(f[s + 3]) for s in range(3))  # type: ignore[return-value]
