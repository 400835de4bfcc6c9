"""Compiled exact values of Cups positions (numba), on a packed position key.

A position is seen from the side to move ("mover"): the mover's cups a1..aX (cup 1 first), the
opponent's cups b1..bX, the mover's stock and the opponent's stock, each in ``w`` bits:

    key = a1 | a2 << w | ... | b1 << (X w) | ... | stock_a << (2X w) | stock_b << ((2X+1) w)

Bowls are left out: what a position is worth from here on does not depend on them.  The value is
the difference the rest of the game makes to the bowls (mover minus opponent) under perfect
play, plus, with ``count_left``, the beans left in the cups at the end.  The game has no cycles
(a drop takes beans out of a stock, a sow puts one into a bowl, a pass is followed by a move or
ends the game), so a memoised negamax over the reachable positions is exact.

The memo is an open-addressing hash table (``keys``: key + 1, 0 for empty; ``vals``: int16).
When it is 7/8 full no new entries are stored: ``value`` stays exact, only slower (the caller
sees it in ``stats[2]``), while ``prove`` gives up (``stats[4] = 2``) so that the caller grows
the table and asks again.
"""

from __future__ import annotations

import numpy as np
from numba import int16, int32, int64, njit

STATS_FILLED, STATS_NODES, STATS_DROPPED, STATS_BUDGET, STATS_ABORTED = 0, 1, 2, 3, 4
STATS_SIZE = 5


@njit(cache=True, inline="always")
def _field(key, i, w):
    return (key >> (i * w)) & ((1 << w) - 1)


@njit(cache=True, inline="always")
def _swap(key, x, w):
    """The same arrangement seen from the other player."""
    half = x * w
    mask = (1 << half) - 1
    a = key & mask
    b = (key >> half) & mask
    fw = (1 << w) - 1
    sa = (key >> (2 * half)) & fw
    sb = (key >> (2 * half + w)) & fw
    return b | (a << half) | (sb << (2 * half)) | (sa << (2 * half + w))


@njit(cache=True)
def has_move(key, x, w):
    """Whether the mover of ``key`` has a drop or a sow."""
    if _field(key, 2 * x, w) > 0:
        return True
    for i in range(x):
        if _field(key, i, w) == x - i:
            return True
    return False


@njit(cache=True, inline="always")
def _lookup(key, keys, vals):
    mask = keys.shape[0] - 1
    h = ((key + 1) * 0x9E3779B97F4A7C15) >> 20
    slot = h & mask
    while True:
        k = keys[slot]
        if k == key + 1:
            return slot, True
        if k == 0:
            return slot, False
        slot = (slot + 1) & mask


@njit(int64(int64, int64, int64, int64, int64[:], int16[:], int64[:]), cache=True)
def value(key, x, w, count_left, keys, vals, stats):
    """The exact value of ``key`` for its mover (see the module docstring)."""
    slot, found = _lookup(key, keys, vals)
    if found:
        return vals[slot]
    stats[STATS_NODES] += 1
    fw = (1 << w) - 1
    half = x * w
    sa = (key >> (2 * half)) & fw
    best = -(1 << 30)
    moved = False
    # drops: one bean into each of cups 1..k, capture when the last lands in an empty cup
    inc = 0
    kmax = x if sa > x else sa
    for k in range(1, kmax + 1):
        inc |= 1 << ((k - 1) * w)
        child = key + inc - (k << (2 * half))
        gain = 0
        if _field(key, k - 1, w) == 0:
            pos = x + (x - k)
            gain = _field(key, pos, w)
            child &= ~(fw << (pos * w))
        v = gain - value(_swap(child, x, w), x, w, count_left, keys, vals, stats)
        moved = True
        if v > best:
            best = v
    # sows: a cup holding exactly its distance to the bowl, the last bean into the bowl
    for i in range(x):
        if _field(key, i, w) == x - i:
            child = key & ~(fw << (i * w))
            for j in range(i + 1, x):
                child += 1 << (j * w)
            v = 1 - value(_swap(child, x, w), x, w, count_left, keys, vals, stats)
            moved = True
            if v > best:
                best = v
    if not moved:
        other = _swap(key, x, w)
        if has_move(other, x, w):
            best = -value(other, x, w, count_left, keys, vals, stats)
        else:
            best = 0
            if count_left:
                for i in range(x):
                    best += _field(key, i, w) - _field(key, x + i, w)
    if stats[STATS_FILLED] * 8 < keys.shape[0] * 7:
        slot, found = _lookup(key, keys, vals)
        keys[slot] = key + 1
        vals[slot] = best
        stats[STATS_FILLED] += 1
    else:
        stats[STATS_DROPPED] += 1
    return best


@njit(cache=True)
def rehash(old_keys, old_vals, keys, vals):
    """Copy every entry of a table into a larger one."""
    n = 0
    for i in range(old_keys.shape[0]):
        k = old_keys[i]
        if k != 0:
            slot, found = _lookup(k - 1, keys, vals)
            keys[slot] = k
            vals[slot] = old_vals[i]
            n += 1
    return n


@njit(cache=True)
def count_reachable(key, x, w, keys, stats):
    """Count the positions reachable from ``key`` (incl. itself) into the set ``keys``."""
    dummy = np.zeros(1, dtype=np.int16)
    stack = np.empty(1 << 16, dtype=np.int64)
    top = 0
    stack[top] = key
    top += 1
    slot, found = _lookup(key, keys, dummy)
    keys[slot] = key + 1
    n = 1
    fw = (1 << w) - 1
    half = x * w
    while top > 0:
        top -= 1
        s = stack[top]
        sa = (s >> (2 * half)) & fw
        kmax = x if sa > x else sa
        inc = 0
        children = np.empty(2 * x + 1, dtype=np.int64)
        nc = 0
        for k in range(1, kmax + 1):
            inc |= 1 << ((k - 1) * w)
            child = s + inc - (k << (2 * half))
            if _field(s, k - 1, w) == 0:
                pos = x + (x - k)
                child &= ~(fw << (pos * w))
            children[nc] = _swap(child, x, w)
            nc += 1
        for i in range(x):
            if _field(s, i, w) == x - i:
                child = s & ~(fw << (i * w))
                for j in range(i + 1, x):
                    child += 1 << (j * w)
                children[nc] = _swap(child, x, w)
                nc += 1
        if nc == 0:
            other = _swap(s, x, w)
            if has_move(other, x, w):
                children[0] = other
                nc = 1
        for c in range(nc):
            slot, found = _lookup(children[c], keys, dummy)
            if not found:
                if (n + 1) * 8 >= keys.shape[0] * 7:
                    stats[0] = n
                    return -1
                keys[slot] = children[c] + 1
                n += 1
                if top == stack.shape[0]:
                    bigger = np.empty(stack.shape[0] * 2, dtype=np.int64)
                    bigger[:top] = stack[:top]
                    stack = bigger
                stack[top] = children[c]
                top += 1
    stats[0] = n
    return n


# -- alpha-beta with a bounds table: proving the value of big positions ------------------------
#
# ``bounds`` holds, for each stored key, the lower bound in bits 0-13 and the upper bound in bits
# 14-27 (both offset by 2**13), and in bits 28-31 the best (or refuting) child's place in the
# move order plus one (0: none), tried first when the position comes back.  Entries are true
# bounds whatever the window they came from, so a lossy table (new entries refused when full)
# never makes an answer wrong.

_INF = 8000
_OFF = 8192
UNIT = 4  # score units per bean
FORMAT = 2  # of the saved tables: bump when the layout of ``bounds`` changes


@njit(cache=True, inline="always")
def _bounds(slot, found, bounds):
    if not found:
        return -_INF, _INF, -1
    b = np.int64(bounds[slot])
    return (b & 0x3FFF) - _OFF, ((b >> 14) & 0x3FFF) - _OFF, ((b >> 28) & 0xF) - 1


@njit(cache=True, inline="always")
def _pack_bounds(lo, hi, best):
    m = best + 1 if 0 <= best < 15 else 0
    v = (lo + _OFF) | ((hi + _OFF) << 14) | (m << 28)
    if v >= 1 << 31:
        v -= 1 << 32
    return v


@njit(cache=True)
def _children(key, x, w, out_keys, out_gain, out_order):
    """The children of ``key`` (seen from their mover), the immediate bowl gain of each
    (``out_gain``) and an ordering score (``out_order``), sorted by that score, best first; a
    pass is returned as one child of gain 0; 0 children at the end of the game."""
    fw = (1 << w) - 1
    half = x * w
    sa = (key >> (2 * half)) & fw
    kmax = x if sa > x else sa
    inc = 0
    n = 0
    for k in range(1, kmax + 1):
        inc |= 1 << ((k - 1) * w)
        child = key + inc - (k << (2 * half))
        gain = 0
        if _field(key, k - 1, w) == 0:
            pos = x + (x - k)
            gain = _field(key, pos, w)
            child &= ~(fw << (pos * w))
        out_keys[n] = _swap(child, x, w)
        out_gain[n] = gain
        n += 1
    for i in range(x):
        if _field(key, i, w) == x - i:
            child = key & ~(fw << (i * w))
            for j in range(i + 1, x):
                child += 1 << (j * w)
            out_keys[n] = _swap(child, x, w)
            out_gain[n] = 1
            n += 1
    if n == 0:
        other = _swap(key, x, w)
        if has_move(other, x, w):
            out_keys[0] = other
            out_gain[0] = 0
            out_order[0] = 0
            return 1
        return 0
    # order: immediate gain plus what the cups promise (``_key_eval``), best first; a good
    # order makes the alpha-beta cut early (this halved the nodes of hard 20-bean positions)
    for c in range(n):
        out_order[c] = out_gain[c] * UNIT - _key_eval(out_keys[c], x, w)
    # insertion sort, biggest first (stable: fewer beans dropped first among equals)
    for i in range(1, n):
        kk = out_keys[i]
        gg = out_gain[i]
        oo = out_order[i]
        j = i - 1
        while j >= 0 and out_order[j] < oo:
            out_keys[j + 1] = out_keys[j]
            out_gain[j + 1] = out_gain[j]
            out_order[j + 1] = out_order[j]
            j -= 1
        out_keys[j + 1] = kk
        out_gain[j + 1] = gg
        out_order[j + 1] = oo
    return n


@njit(cache=True, inline="always")
def _key_eval(key, x, w):
    """``evaluate``'s cup terms on a packed key (quarter beans for its mover)."""
    score = 0
    for i in range(x):
        d = x - i
        c = _field(key, i, w)
        if c == d:
            score += 2
        elif c > d:
            score -= 2 * c
        c = _field(key, x + i, w)
        if c == d:
            score -= 2
        elif c > d:
            score += 2 * c
    return score


@njit(cache=True, inline="always")
def _static_bounds(key, x, w, count_left):
    """Bounds on the value of ``key`` known without searching.  Every bean still outside the
    bowls (``left``) can change the difference by at most one.  Without ``count_left`` a blocked
    cup (more beans than its distance) is never sown, so its beans can only stay or go to the
    opponent: the mover gains at most ``left`` minus the beans in its blocked cups, and the
    opponent likewise."""
    left = 0
    mine = 0
    theirs = 0
    for i in range(2 * x + 2):
        left += _field(key, i, w)
    for i in range(x):
        d = x - i
        c = _field(key, i, w)
        if c > d:
            mine += c
        c = _field(key, x + i, w)
        if c > d:
            theirs += c
    if count_left:
        return -left, left
    return -(left - theirs), left - mine


MAX_PLY = 1024  # deeper than any game: every move but a pass takes a bean from a stock or cup


@njit(int64(int64, int64, int64, int64, int64, int64, int64[:], int32[:], int64[:], int64[:, ::1],
            int64[:, ::1], int64[:, ::1], int64), cache=True)
def _prove(key, alpha, beta, x, w, count_left, keys, bounds, stats, ck, cg, co, ply):
    slot, found = _lookup(key, keys, bounds)
    lo, hi, hint = _bounds(slot, found, bounds)
    slo, shi = _static_bounds(key, x, w, count_left)
    if slo > lo:
        lo = slo
    if shi < hi:
        hi = shi
    if lo >= beta:
        return lo
    if hi <= alpha:
        return hi
    if lo == hi:
        return lo
    if lo > alpha:
        alpha = lo
    if hi < beta:
        beta = hi
    stats[STATS_NODES] += 1
    if stats[STATS_BUDGET] > 0 and stats[STATS_NODES] > stats[STATS_BUDGET]:
        stats[STATS_ABORTED] = 1
        return 0
    keys_here = ck[ply]
    gains_here = cg[ply]
    n = _children(key, x, w, keys_here, gains_here, co[ply])
    best_c = -1
    if n == 0:
        best = 0
        if count_left:
            for i in range(x):
                best += _field(key, i, w) - _field(key, x + i, w)
        lo = best
        hi = best
    else:
        if 0 < hint < n:
            # the move that was best (or cut) last time goes first
            kk = keys_here[hint]
            gg = gains_here[hint]
            for j in range(hint, 0, -1):
                keys_here[j] = keys_here[j - 1]
                gains_here[j] = gains_here[j - 1]
            keys_here[0] = kk
            gains_here[0] = gg
        best = -_INF
        # enhanced transposition cutoff: a child already known to refute the window ends the
        # node before any search below it
        for c in range(n):
            cslot, cfound = _lookup(keys_here[c], keys, bounds)
            if cfound:
                clo, chi, _ = _bounds(cslot, cfound, bounds)
                if gains_here[c] - chi >= beta:
                    best = gains_here[c] - chi
                    best_c = c
                    break
        a = alpha
        for c in range(n if best < beta else 0):
            g = gains_here[c]
            v = g - _prove(keys_here[c], g - beta, g - a, x, w, count_left, keys, bounds, stats,
                           ck, cg, co, ply + 1)
            if stats[STATS_ABORTED]:
                return 0
            if v > best:
                best = v
                best_c = c
                if v > a:
                    a = v
                    if a >= beta:
                        break
        # the place of the best child in the ordering before the hint moved it
        if best_c == 0 and 0 < hint < n:
            best_c = hint
        elif 0 < best_c <= hint:
            best_c -= 1
        if best <= alpha:
            hi = best if best < hi else hi
        elif best >= beta:
            lo = best if best > lo else lo
        else:
            lo = best
            hi = best
    slot, found = _lookup(key, keys, bounds)
    if found or stats[STATS_FILLED] * 8 < keys.shape[0] * 7:
        if not found:
            keys[slot] = key + 1
            stats[STATS_FILLED] += 1
        bounds[slot] = _pack_bounds(lo, hi, best_c)
    else:
        # without the table the search would become a tree search, exponentially slower:
        # give up so that the caller grows the table and asks again
        stats[STATS_DROPPED] += 1
        stats[STATS_ABORTED] = 2
        return 0
    return best


@njit(int64(int64, int64, int64, int64, int64, int64, int64[:], int32[:], int64[:]), cache=True)
def prove(key, alpha, beta, x, w, count_left, keys, bounds, stats):
    """A fail-soft alpha-beta value of ``key``: exact when it lies strictly inside
    (alpha, beta), else a bound on the side it fell."""
    ck = np.empty((MAX_PLY, 2 * x + 1), dtype=np.int64)
    cg = np.empty((MAX_PLY, 2 * x + 1), dtype=np.int64)
    co = np.empty((MAX_PLY, 2 * x + 1), dtype=np.int64)
    return _prove(key, alpha, beta, x, w, count_left, keys, bounds, stats, ck, cg, co, 0)


# -- depth-limited alpha-beta for positions too big to prove -----------------------------------
#
# Works on arrays (any number of cups and beans): ``cups`` is (2, X), ``stocks`` (2,), ``me`` the
# player to move.  Scores are in quarter beans for the mover: the bowl gains along the line,
# times 4, plus at the horizon ``evaluate``.  ``stats[STATS_HORIZON]`` is set when a line was cut
# by the depth, i.e. when the score is an estimate rather than proven.
#
# A transposition table (``Memo``'s arrays, direct-mapped on a 64-bit hash of the position)
# keeps for each position searched the depth, fail-soft bounds, the best move and whether the
# bounds are proven (no line below was cut by the depth: then they hold at every depth).  Kept
# between the depths of an iterative deepening, it puts last depth's best move first.

STATS_HORIZON = 5
SEARCH_STATS_SIZE = 6

# the evaluation's terms (``features``), each for the mover minus the opponent unless said
F_SOWABLE, F_BLOCKED, F_MY_CAPTURE, F_THEIR_CAPTURE, F_STOCK, F_WAITING, F_TEMPO = range(7)
FEATURES = 7


@njit(cache=True)
def features(cups, stocks, me, x, out):
    """The evaluation's terms of a position for ``me`` (to move), in beans:
    sowable cups (holding exactly their distance), beans in blocked cups (more than their
    distance: never sown, waiting to be captured), the biggest capture ``me`` has now, the
    biggest the opponent would have if it were their turn, beans in the stocks, beans in the
    other cups (still short of their distance), and 1 (the move in hand)."""
    for f in range(FEATURES):
        out[f] = 0.0
    for p in range(2):
        sign = 1.0 if p == me else -1.0
        for i in range(x):
            c = cups[p, i]
            d = x - i
            if c == d:
                out[F_SOWABLE] += sign
            elif c > d:
                out[F_BLOCKED] += sign * c
            else:
                out[F_WAITING] += sign * c
        out[F_STOCK] += sign * stocks[p]
    for p in range(2):
        q = 1 - p
        best = 0
        kmax = x if stocks[p] > x else stocks[p]
        for k in range(1, kmax + 1):
            if cups[p, k - 1] == 0 and cups[q, x - k] > best:
                best = cups[q, x - k]
        if p == me:
            out[F_MY_CAPTURE] = best
        else:
            out[F_THEIR_CAPTURE] = best
    out[F_TEMPO] = 1.0


# the first evaluation (before issue 22's tuning): +1/2 bean per sowable cup, -1/2 per bean in
# a blocked cup, nothing else; kept so that bench/cups.py can compare
SIMPLE_WEIGHTS = np.array([0.5, -0.5, 0.0, 0.0, 0.0, 0.0, 0.0])


@njit(cache=True)
def evaluate(cups, stocks, me, x, weights):
    """A guess (quarter beans, for ``me``) of what the rest of the game will add to the bowl
    difference: the ``features`` weighed by ``weights`` (beans per unit of each term)."""
    f = np.empty(FEATURES, dtype=np.float64)
    features(cups, stocks, me, x, f)
    s = 0.0
    for i in range(FEATURES):
        s += weights[i] * f[i]
    return int(round(UNIT * s))


@njit(cache=True)
def _side_has_move(cups, stocks, p, x):
    if stocks[p] > 0:
        return True
    for i in range(x):
        if cups[p, i] == x - i:
            return True
    return False


@njit(cache=True, inline="always")
def _hash(cups, stocks, me, x):
    h = np.uint64(me + 1)
    m = np.uint64(0x9E3779B97F4A7C15)
    for p in range(2):
        for i in range(x):
            h = (h ^ np.uint64(cups[p, i] + 1)) * m
            h ^= h >> np.uint64(29)
        h = (h ^ np.uint64(stocks[p] + 7)) * m
        h ^= h >> np.uint64(31)
    return np.int64(h | np.uint64(1))  # never 0, the empty slot


_NO_MOVE = 0


@njit(cache=True)
def search(cups, stocks, me, x, depth, alpha, beta, count_left, stats, weights, tt_keys, tt_info):
    """Alpha-beta value (quarter beans, for ``me``) of the position searched ``depth`` plies;
    ``tt_keys``/``tt_info`` a transposition table (power-of-two size; see ``Memo``)."""
    stats[STATS_NODES] += 1
    if stats[STATS_BUDGET] > 0 and stats[STATS_NODES] > stats[STATS_BUDGET]:
        stats[STATS_ABORTED] = 1
        return 0
    opp = 1 - me
    if not _side_has_move(cups, stocks, me, x):
        if _side_has_move(cups, stocks, opp, x):
            return -search(cups, stocks, opp, x, depth, -beta, -alpha, count_left, stats, weights,
                           tt_keys, tt_info)
        end = 0
        if count_left:
            for i in range(x):
                end += cups[me, i] - cups[opp, i]
        return UNIT * end
    if depth <= 0:
        stats[STATS_HORIZON] = 1
        return evaluate(cups, stocks, me, x, weights)
    # the table: info = depth | proven << 8 | (best move code + 64) << 9 | (lo + 2**19) << 16
    #                   | (hi + 2**19) << 36
    h = _hash(cups, stocks, me, x)
    slot = h & (tt_keys.shape[0] - 1)
    hinted = _NO_MOVE
    if tt_keys[slot] == h:
        info = tt_info[slot]
        t_depth = info & 0xFF
        t_proven = (info >> 8) & 1
        hinted = ((info >> 9) & 0x7F) - 64
        t_lo = ((info >> 16) & 0xFFFFF) - (1 << 19)
        t_hi = ((info >> 36) & 0xFFFFF) - (1 << 19)
        if t_proven or t_depth >= depth:
            if t_lo >= beta or t_hi <= alpha or t_lo == t_hi:
                if not t_proven:
                    stats[STATS_HORIZON] = 1
                return t_lo if t_lo >= beta or t_lo == t_hi else t_hi
    alpha0 = alpha
    # moves: code k > 0 drops k, code -(i+1) sows cup index i; ordered by immediate gain, the
    # table's best move first
    codes = np.empty(2 * x, dtype=np.int64)
    gains = np.empty(2 * x, dtype=np.int64)
    n = 0
    kmax = x if stocks[me] > x else stocks[me]
    for k in range(1, kmax + 1):
        codes[n] = k
        gains[n] = cups[opp, x - k] if cups[me, k - 1] == 0 else 0
        n += 1
    for i in range(x):
        if cups[me, i] == x - i:
            codes[n] = -(i + 1)
            gains[n] = 1
            n += 1
    for m in range(n):
        if codes[m] == hinted:
            gains[m] += 1 << 20
    for i in range(1, n):
        cc = codes[i]
        gg = gains[i]
        j = i - 1
        while j >= 0 and gains[j] < gg:
            codes[j + 1] = codes[j]
            gains[j + 1] = gains[j]
            j -= 1
        codes[j + 1] = cc
        gains[j + 1] = gg
    cut_above = stats[STATS_HORIZON]
    stats[STATS_HORIZON] = 0
    best = -(1 << 40)
    best_code = _NO_MOVE
    for m in range(n):
        code = codes[m]
        if code > 0:
            k = code
            taken = 0
            if cups[me, k - 1] == 0:
                taken = cups[opp, x - k]
                cups[opp, x - k] = 0
            for i in range(k):
                cups[me, i] += 1
            stocks[me] -= k
            g = UNIT * taken
            v = g - search(cups, stocks, opp, x, depth - 1, g - beta, g - alpha, count_left, stats,
                           weights, tt_keys, tt_info)
            stocks[me] += k
            for i in range(k):
                cups[me, i] -= 1
            cups[opp, x - k] += taken
        else:
            i = -code - 1
            cups[me, i] = 0
            for j in range(i + 1, x):
                cups[me, j] += 1
            v = UNIT - search(cups, stocks, opp, x, depth - 1, UNIT - beta, UNIT - alpha, count_left,
                              stats, weights, tt_keys, tt_info)
            for j in range(i + 1, x):
                cups[me, j] -= 1
            cups[me, i] = x - i
        if stats[STATS_ABORTED]:
            return 0
        if v > best:
            best = v
            best_code = code
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    proven = 1 - stats[STATS_HORIZON]
    if cut_above:
        stats[STATS_HORIZON] = 1
    lo = -(1 << 19) + 1
    hi = (1 << 19) - 1
    if best <= alpha0:
        hi = best
    elif best >= beta:
        lo = best
    else:
        lo = best
        hi = best
    if -(1 << 18) < best < (1 << 18):
        d = depth if depth < 255 else 255
        tt_keys[slot] = h
        tt_info[slot] = (d | (proven << 8) | ((best_code + 64) << 9) | ((lo + (1 << 19)) << 16)
                         | ((hi + (1 << 19)) << 36))
    return best
