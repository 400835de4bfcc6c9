"""The retrograde solve of Gobblet Jr. behind the exact table (needs numba; only the builder
imports this module, reading the table needs numpy alone).

Pieces never leave the board, so a position's pieces-on-board counts never decrease: an entry
goes to a layer with one more piece, a board move stays among the positions with the same
counts, seen from either side (a *layer pair*, one or two blocks of ``engine.gobblet.jr.index``).
Layer pairs are solved from the fullest down, so every entry leads to a solved position.

Inside a layer pair, values are found level by level (level ``d`` decides the positions that
are won or lost in exactly ``d`` plies):

* set-up: every position gets, from its entries and from the moves that end the game at once,
  ``wext`` (the fastest win they give, 0 for none) and ``lext`` (the slowest loss they give, or
  ``BLOCKED`` when one of them is a draw, so that the position can never be lost);
* level ``d``: a position is won in ``d`` when a board move leads to a position lost in
  ``d - 1`` (it was marked when that position was decided) or ``wext == d``; it is lost in
  ``d`` when it was marked by a child won in ``d - 1`` or ``lext == d``, ``lext <= d``, no
  entry wins (``wext == 0``) and every board move leads to a position won within ``d - 1``;
* then every position decided at level ``d`` marks its predecessors (board moves taken back),
  which is how the next level finds its candidates without scanning every move again.

What is undecided when no level decides anything more is a draw (code 0).  Codes are those of
``engine.gobblet.jr.solve.encode``: 1-127 win in that many plies, 128 + d loss in d, 0 draw; the
builder writes ``NOT_A_POSITION`` (128) in slots that are not game positions (someone already
shows a line, or the slot is a duplicate under symmetry).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numba
import numpy as np

from . import model as jr
from .exact import ExactStats
from .index import NCFG, NCLS, JrIndex, index

NOT_A_POSITION = 128
BLOCKED = 255
MAX_DIST = 127
WIN_MARK = 1
CHECK_MARK = 2
LOSES = -2  # a move that shows the opponent's line (possibly uncovered): the mover loses
WINS = -1  # a move that shows the mover's line and not the opponent's


def _kernel_options() -> dict:
    """numba options of the kernels.  They take no new arrays, so numba's reference counting is
    turned off: left on, it costs an atomic update of every table array on each lookup, twenty
    times the lookup itself.  ``_nrt`` is an internal option; a numba without it gets the
    default (correct, only slower)."""
    try:
        numba.njit(_nrt=False)(lambda x: x + 1)(1)
        return {"cache": True, "_nrt": False}
    except Exception:  # noqa: BLE001 - any refusal of the option means "not available"
        return {"cache": True}


_OPTS = _kernel_options()
njit = numba.njit


def _line_table() -> np.ndarray:
    table = np.zeros(512, dtype=np.bool_)
    for bb in range(512):
        table[bb] = any(bb & line == line for line in jr.LINES)
    return table


@njit(inline="always", **_OPTS)
def _slot(t, a1, a2, a3, b1, b2, b3):
    """The table slot of the position where the mover has ``a1..a3`` and the opponent
    ``b1..b3`` (see ``JrIndex.index``)."""
    cfg_of, cls, loc, sym, pair_g, pair_mask, pair_rank, base, cls_n = t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8]
    i1 = np.int64(cfg_of[a1 | b1 << 9])
    i2 = np.int64(cfg_of[a2 | b2 << 9])
    i3 = np.int64(cfg_of[a3 | b3 << 9])
    pk = i3 * NCFG + i2
    mask = pair_mask[pk]
    j1 = sym[pair_g[pk], i1]
    if mask & (mask - 1):
        for g in range(8):
            if mask >> g & 1:
                x = sym[g, i1]
                j1 = min(j1, x)
    k1 = np.int64(cls[i1])
    return base[(np.int64(cls[i3]) * NCLS + cls[i2]) * NCLS + k1] + np.int64(pair_rank[pk]) * cls_n[k1] + loc[j1]


@njit(inline="always", **_OPTS)
def _tops(a1, a2, a3, b1, b2, b3):
    """The squares where side ``a``'s piece is the visible top (``b`` is the other side)."""
    big = a3 | b3
    mid = (a2 | b2) & ~big
    return a3 | (a2 & ~big) | (a1 & ~big & ~mid)


@njit(inline="always", **_OPTS)
def _free(m1, m2, m3, o1, o2, o3):
    """Per size (0-based), the squares a piece of that size may go to: none as large there."""
    occ3 = m3 | o3
    occ2 = occ3 | m2 | o2
    return 511 & ~(occ2 | m1 | o1), 511 & ~occ2, 511 & ~occ3


@njit(inline="always", **_OPTS)
def _after(t, lines, n1, n2, n3, o1, o2, o3):
    """The result of a move that leaves the mover with ``n1..n3`` (the opponent with
    ``o1..o3``): ``LOSES``, ``WINS`` or the slot of the position after it."""
    # straight-line on purpose: early returns here keep numba from pruning the reference
    # counting of the table arrays, which made every call some 20 times slower
    slot = _slot(t, o1, o2, o3, n1, n2, n3)
    if lines[_tops(n1, n2, n3, o1, o2, o3)]:
        slot = WINS
    if lines[_tops(o1, o2, o3, n1, n2, n3)]:
        slot = LOSES
    return slot


@njit(inline="always", **_OPTS)
def _terminal(lines, m1, m2, m3, o1, o2, o3):
    return lines[_tops(m1, m2, m3, o1, o2, o3)] or lines[_tops(o1, o2, o3, m1, m2, m3)]


@njit(inline="always", **_OPTS)
def _canonical_in_pair(sym, mask, i1):
    """True when configuration ``i1`` is the smallest of its images under the symmetries of
    ``mask`` (the stabiliser of a canonical pair)."""
    if mask & (mask - 1):
        for g in range(8):
            if mask >> g & 1 and sym[g, i1] < i1:
                return False
    return True


@njit(**_OPTS)
def _setup(t, lines, cfg_a, cfg_b, canon_pk, cls_start, vals, base, k1, p0, p1, wext, lext):
    """Mark non-positions and compute ``wext``/``lext`` for the block (pairs ``p0:p1`` of its
    class pair, class ``k1``).  Returns the largest distance seen (to detect overflow)."""
    sym, pair_mask, cls_n = t[3], t[5], t[8]
    n1 = cls_n[k1]
    s1 = cls_start[k1]
    far = 0
    for r in range(p1 - p0):
        pk = np.int64(canon_pk[p0 + r])
        i3 = pk // NCFG
        i2 = pk % NCFG
        mask = pair_mask[pk]
        m2, o2, m3, o3 = np.int64(cfg_a[i2]), np.int64(cfg_b[i2]), np.int64(cfg_a[i3]), np.int64(cfg_b[i3])
        for l1 in range(n1):
            i = r * n1 + l1
            i1 = s1 + l1
            m1, o1 = np.int64(cfg_a[i1]), np.int64(cfg_b[i1])
            if not _canonical_in_pair(sym, mask, i1) or _terminal(lines, m1, m2, m3, o1, o2, o3):
                vals[base + i] = NOT_A_POSITION
                continue
            w = 0
            lo = 0
            blocked = False
            m = (m1, m2, m3)
            free = _free(m1, m2, m3, o1, o2, o3)
            # entries: to a fuller layer, already solved
            for s in range(3):
                if m[s] & (m[s] - 1):
                    continue  # both pieces of this size are on the board (at most two)
                bits = free[s]
                while bits:
                    to = bits & -bits
                    bits ^= to
                    n = (m1 | to if s == 0 else m1, m2 | to if s == 1 else m2, m3 | to if s == 2 else m3)
                    c = _after(t, lines, n[0], n[1], n[2], o1, o2, o3)
                    if c == WINS:
                        w = 1
                    elif c == LOSES:
                        lo = max(lo, 1)
                    else:
                        v = vals[c]
                        if v == 0:
                            blocked = True
                        elif v < 128:
                            lo = max(lo, v + 1)
                        else:
                            d = v - 127
                            if w == 0 or d < w:
                                w = d
            # board moves: only the ones that end the game count here
            tops = _tops(m1, m2, m3, o1, o2, o3)
            while tops:
                fb = tops & -tops
                tops ^= fb
                s = 2 if m3 & fb else 1 if m2 & fb else 0
                bits = free[s] & ~fb
                while bits:
                    to = bits & -bits
                    bits ^= to
                    mv = fb | to
                    c = _after(t, lines, m1 ^ mv if s == 0 else m1, m2 ^ mv if s == 1 else m2,
                               m3 ^ mv if s == 2 else m3, o1, o2, o3)
                    if c == WINS:
                        w = 1
                    elif c == LOSES:
                        lo = max(lo, 1)
            far = max(far, w, lo)
            wext[i] = min(w, 255)
            lext[i] = BLOCKED if blocked else min(lo, 254)
    return far


@njit(**_OPTS)
def _decide(t, lines, cfg_a, cfg_b, canon_pk, cls_start, vals, base, k1, p0, p1, wext, lext, marks, d, out):
    """Level ``d`` of one block: decide the positions won or lost in ``d`` plies; their block
    offsets go to ``out``.  Returns how many."""
    cls_n = t[8]
    n1 = cls_n[k1]
    s1 = cls_start[k1]
    count = 0
    for r in range(p1 - p0):
        pk = np.int64(canon_pk[p0 + r])
        i3 = pk // NCFG
        i2 = pk % NCFG
        m2, o2, m3, o3 = np.int64(cfg_a[i2]), np.int64(cfg_b[i2]), np.int64(cfg_a[i3]), np.int64(cfg_b[i3])
        for l1 in range(n1):
            i = r * n1 + l1
            if vals[base + i] != 0:
                continue
            mark = marks[i]
            marks[i] = 0
            if mark & WIN_MARK or wext[i] == d:
                vals[base + i] = d
                out[count] = i
                count += 1
                continue
            lx = lext[i]
            if wext[i] or lx == BLOCKED or lx > d or not (mark & CHECK_MARK or lx == d):
                continue
            m1, o1 = np.int64(cfg_a[s1 + l1]), np.int64(cfg_b[s1 + l1])
            free = _free(m1, m2, m3, o1, o2, o3)
            tops = _tops(m1, m2, m3, o1, o2, o3)
            lost = True
            while tops and lost:
                fb = tops & -tops
                tops ^= fb
                s = 2 if m3 & fb else 1 if m2 & fb else 0
                bits = free[s] & ~fb
                while bits:
                    to = bits & -bits
                    bits ^= to
                    mv = fb | to
                    c = _after(t, lines, m1 ^ mv if s == 0 else m1, m2 ^ mv if s == 1 else m2,
                               m3 ^ mv if s == 2 else m3, o1, o2, o3)
                    if c >= 0:
                        v = vals[c]
                        if v == 0 or v >= d:  # not (yet) a win of the opponent within d - 1
                            lost = False
                            break
            if lost:
                vals[base + i] = 128 + d
                out[count] = i
                count += 1
    return count


@njit(**_OPTS)
def _mark_predecessors(t, lines, cfg_a, cfg_b, canon_pk, cls_start, vals, base, k1, p0, p1, decided, count,
                       pbase, pmarks):
    """Mark the predecessors (by a board move) of the positions just decided in a block: in the
    partner block (offset ``pbase``), WIN_MARK before a loss, CHECK_MARK before a win."""
    cls_n = t[8]
    n1 = cls_n[k1]
    s1 = cls_start[k1]
    for j in range(count):
        i = np.int64(decided[j])
        r = i // n1
        l1 = i % n1
        pk = np.int64(canon_pk[p0 + r])
        i3 = pk // NCFG
        i2 = pk % NCFG
        m1, o1 = np.int64(cfg_a[s1 + l1]), np.int64(cfg_b[s1 + l1])
        m2, o2, m3, o3 = np.int64(cfg_a[i2]), np.int64(cfg_b[i2]), np.int64(cfg_a[i3]), np.int64(cfg_b[i3])
        mark = WIN_MARK if vals[base + i] > 128 else CHECK_MARK
        # the opponent's last move brought one of its visible pieces to its square from a
        # square holding nothing as large (it was the top there)
        free = _free(m1, m2, m3, o1, o2, o3)
        tops = _tops(o1, o2, o3, m1, m2, m3)
        while tops:
            tb = tops & -tops
            tops ^= tb
            s = 2 if o3 & tb else 1 if o2 & tb else 0
            bits = free[s] & ~tb
            while bits:
                fb = bits & -bits
                bits ^= fb
                mv = fb | tb
                p1_, p2_, p3_ = o1 ^ mv if s == 0 else o1, o2 ^ mv if s == 1 else o2, o3 ^ mv if s == 2 else o3
                p = _slot(t, p1_, p2_, p3_, m1, m2, m3)
                if vals[p] == 0 and not _terminal(lines, p1_, p2_, p3_, m1, m2, m3):
                    pmarks[p - pbase] |= mark


@dataclass(frozen=True)
class _Block:
    k1: int
    p0: int
    p1: int
    base: int
    size: int


def _block(ix: JrIndex, k: tuple[int, int, int]) -> _Block:
    k1, k2, k3 = k
    cp = k3 * NCLS + k2
    base, size = ix.block(k1, k2, k3)
    return _Block(k1, int(ix.cp_start[cp]), int(ix.cp_start[cp + 1]), base, size)


def layer_pairs(min_pieces: int = 0) -> list[tuple[tuple[int, int, int], tuple[int, int, int]]]:
    """The layer pairs as class triples ``(layer, partner)`` (the partner is the same layer seen
    from the other side; equal when the counts are symmetric), fullest first, down to the
    layers with ``min_pieces`` pieces on the board."""
    out = []
    seen = set()
    for total in range(12, min_pieces - 1, -1):
        for k in np.ndindex(NCLS, NCLS, NCLS):
            if k in seen or sum(x // 3 + x % 3 for x in k) != total:
                continue
            partner = tuple(3 * (x % 3) + x // 3 for x in k)
            seen.add(k)
            seen.add(partner)
            out.append((tuple(int(x) for x in k), tuple(int(x) for x in partner)))
    return out


def solve(min_pieces: int = 0, progress: Callable[[str], None] | None = None,
          ix: JrIndex | None = None) -> tuple[np.ndarray, ExactStats]:
    """Solve every layer with at least ``min_pieces`` pieces on the board (0: the whole game).
    Returns the value codes of the slots of those layers (``engine.gobblet.jr.index``: a prefix of the
    table) and their statistics."""
    ix = ix or index()
    start, cpu0 = time.perf_counter(), time.process_time()
    t = (ix.cfg_of, ix.cfg_cls, ix.cfg_loc, ix.sym, ix.pair_g, ix.pair_mask, ix.pair_rank, ix.base,
         ix.cls_n.astype(np.int64))
    lines = _line_table()
    vals = np.zeros(ix.prefix(min_pieces), dtype=np.uint8)  # layers with fewer pieces come after
    pairs = layer_pairs(min_pieces)
    common = (t, lines, ix.cfg_a, ix.cfg_b, ix.canon_pk, ix.cls_start)
    for n, (k, kp) in enumerate(pairs):
        blocks = [_block(ix, k)] if k == kp else [_block(ix, k), _block(ix, kp)]
        work = []
        last = 0
        for b in blocks:
            wext = np.empty(b.size, dtype=np.uint8)
            lext = np.empty(b.size, dtype=np.uint8)
            far = _setup(*common, vals, b.base, b.k1, b.p0, b.p1, wext, lext)
            if far > MAX_DIST:
                raise OverflowError(f"a distance of {far} plies does not fit the one-byte codes")
            work.append((b, wext, lext, np.zeros(b.size, dtype=np.uint8)))
            last = max(last, far)
        outs = [np.empty(b.size, dtype=np.int32) for b in blocks]
        d = 0
        while True:
            d += 1
            if d > MAX_DIST:
                raise OverflowError("a distance over 127 plies does not fit the one-byte codes")
            # every block decides level d before any marks for level d + 1 are made
            counts = [_decide(*common, vals, b.base, b.k1, b.p0, b.p1, wext, lext, marks, d, out)
                      for (b, wext, lext, marks), out in zip(work, outs)]
            for j, ((b, _, _, _), out) in enumerate(zip(work, outs)):
                pb, _, _, pmarks = work[1 - j] if len(work) == 2 else work[0]
                _mark_predecessors(*common, vals, b.base, b.k1, b.p0, b.p1, out, counts[j], pb.base, pmarks)
            if sum(counts) == 0 and d >= last:
                break
        if progress:
            progress(f"layers {k} / {kp}: {sum(b.size for b in blocks)} slots, {d - 1} levels, "
                     f"{time.perf_counter() - start:.1f} s ({n + 1}/{len(pairs)})")
    stats = ExactStats.of_codes(vals, time.perf_counter() - start, time.process_time() - cpu0)
    return vals, stats


