"""The frontier of the search: the children of a node scored from the move and the node's
bitboards, without playing them, when that gives what playing them and searching would.

``Frontier.scan`` searches such a node: a depth-1 node of the negamax (its children are leaves:
the quiescence step's positions) or a node of the quiescence step (its children are replies to
a threat).  Each child is a leaf whose score is settled (an uncovered line of the opponent, a
repeated position), lost (the opponent, to move there, wins at once), or the quiescence step's,
which is the static evaluation unless the mover then threatens a win in one: only then is the
move played and the child searched.  The child's tops, largest tops and hash are a few bit
operations away; whether a side has a winning move there is read from its completing squares
and the pieces that can reach them (``Frontier._wins``); the evaluation's reserve and buried
terms change only on the two squares the move touches (from the node's, which the board keeps
up to date), and so do its line terms: the line term of a child comes from a memo, or else
from the node's per-line terms redone on the lines through those squares, each line's term
read with one mask and one look-up (``evaluation.masked_line_terms``).  (The side to move at
such a node never has a win in one: the search checks that before it gets there.)

Speed is the point of this module, so ``scan`` is one loop with everything it reads bound to
locals, the facts about bitboards come from the flat tables of ``engine.gobblet.bitboard_tables`` and
the moves are made as the loop asks for them (``staged_moves``, ``ThreatReplies.replies``).
Everything follows what playing each move and searching the child would do, node counts
included; ``Searcher(_fast_frontier=False)`` plays every move, for the tests to compare.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from ..bitboard_tables import completing_table, hot_lines_table, square_table
from ..board import Board
from ..evaluation import (
    COUNTS_MASK,
    LINE_MEMO_LIMIT,
    PACKED_EXTRA,
    TERM_SHIFT,
    line_score_memo,
    masked_line_terms,
    weights,
)
from ..movegen import is_legal_now, ordered_moves
from ..rules import ENTRY_EMPTY, ENTRY_FREE
from .scores import EXACT, LOWER, MATE, UPPER, from_tt

if TYPE_CHECKING:
    from .searcher import Searcher


class Frontier:
    """The frontier scan of the nodes at one ply (see the module's docstring).  The search
    keeps one per ply, made once per search; a node above the frontier uses its ply's to find
    the children lost at once without playing them (``refuted``)."""

    __slots__ = ("searcher", "stats", "board", "ply", "me", "counts", "their_counts", "largest",
                 "zp", "stacked", "stacks", "seen", "lines_through", "first_line", "completing", "hot_lines",
                 "squares", "lines", "masks", "terms", "touched", "entry",
                 "reserve_w", "buried_w", "lost", "o_wins", "qtt", "bigger", "ready", "their_ready", "fixed",
                 "wins_fixed")

    def __init__(self, searcher: Searcher, ply: int) -> None:
        # what stays the same for every node at this ply during one search
        board = searcher._board
        rules = board.rules
        w = weights(rules)
        self.searcher = searcher
        self.stats = searcher._stats
        self.board = board
        self.ply = ply
        self.qtt = searcher._qtt
        self.largest = rules.sizes
        self.zp = board._z.piece
        self.stacked = board.stacked
        self.stacks = board.stacks
        self.seen = board.seen
        self.entry = rules.entry
        self.lines_through = board.geo.lines_through
        self.first_line = board._first_line  # the first line a bitboard shows, 0 for none
        self.completing = completing_table(rules.board, rules.line)
        self.hot_lines = hot_lines_table(rules.board, rules.line)
        self.squares = square_table(rules.squares)
        # line scores of children, shared with ``evaluate`` (the child's mover is ``theirs``)
        self.lines = line_score_memo(rules)
        self.masks, self.terms = masked_line_terms(rules)
        self.touched = lines_touched(board.geo.lines_through)
        self.reserve_w = w.reserve
        self.buried_w = w.buried
        self.lost = -(MATE - ply - 1)
        self.o_wins = -(MATE - ply - 2)
        # what ``scan`` and ``_wins`` read, unpacked at once
        self.wins_fixed = (self.stacks, self.largest, self.entry, self.lines_through, self.squares)
        self.fixed = (searcher, board, self.stats, ply, self.largest, self.zp, board._z.turn, self.reserve_w,
                      self.buried_w, self.stacks, self.seen, self.first_line, self.completing, self._wins,
                      self.lost, self.o_wins, searcher._limits.nodes is not None, searcher._tick, self.qtt,
                      searcher._qsearch, self.masks, self.lines, self.terms, self.touched, len(self.stacks))
        self.reset()

    def reset(self) -> Frontier:
        """Ready ``_wins`` for the children of the node now on the board (``scan`` calls it
        for each node it scans)."""
        board = self.board
        me = board.turn
        self.me = me
        self.counts = board.reserve[me]
        self.their_counts = board.reserve[1 - me]
        self.bigger = None  # ``_bigger_tops``, computed on first need
        return self

    def scan(self, moves: Iterable[tuple | None], alpha: int, beta: int, qdepth: int, replies: bool,
             best: int) -> tuple[int | None, tuple | None]:
        """Search the node now on the board (at this object's ply) over ``moves`` within the
        window ``(alpha, beta)``, ``best`` the score to beat: the best score and move, as
        playing each move and searching the child would give; ``(None, None)`` when ``moves``
        says there is no legal move (a None from ``staged_moves``).

        ``qdepth`` is the children's quiescence depth.  With ``replies`` the node is the
        quiescence step's: each reply counts as a node before it is scored.  Otherwise it is a
        depth-1 node of the negamax: a quiet child counts as a node, a played one as the
        quiescence node it leads to, and a cut-off updates the killers and history."""
        (searcher, board, stats, ply, largest, zp, z_turn, reserve_w, buried_w, stacks, seen, first_line,
         completing, wins, lost, o_wins, limited, tick, qtt, qsearch, masks, lines, terms, touched,
         n_squares) = self.fixed
        self.reset()
        me = self.me
        counts = self.counts
        tops = board.tops
        mine0 = tops[me]
        theirs0 = tops[1 - me]
        big0 = board.size_bb[largest]
        reserve0 = reserve_w * (self.their_counts[largest] - counts[largest])
        # the buried term for the children's side to move (``Board.buried`` is White's)
        buried0 = buried_w * board.buried if me else -buried_w * board.buried
        sel = ply >= stats.seldepth  # a quiet child may raise the deepest ply visited
        # whether each side has a piece to enter (a reserve's count at index 0 is always 0)
        my_reserve = any(counts)
        their_reserve = any(self.their_counts)
        nodes = stats.nodes
        best_move = None
        parent_terms = parent_total = None
        if len(lines) > LINE_MEMO_LIMIT:  # (checked here, not at each of the scan's additions)
            lines.clear()
        twice_n = 2 * n_squares
        # The child of a board move can repeat an earlier position only if the three moves
        # before it were board moves too: an entry adds a piece for good, the position one
        # move back cannot come back (a move cannot undo the other side's move) and the one
        # two moves back has the other side to move.  Its hash is needed only then.
        undo = board._undo
        reps = False
        if len(undo) >= 3:
            m1 = undo[-1][0]
            m2 = undo[-2][0]
            m3 = undo[-3][0]
            reps = (m1 is not None and m1[2] is not None and m2 is not None and m2[2] is not None
                    and m3 is not None and m3[2] is not None)
        h0 = board.hash ^ z_turn if reps else 0
        for move in moves:
            if move is None:  # (from ``staged_moves``) no legal move
                stats.nodes = nodes
                return None, None
            if replies:
                nodes += 1
                if limited or nodes & 255 == 0:
                    stats.nodes = nodes
                    tick()
            # the child's tops, largest tops and (when it may repeat) hash
            size, to, frm = move
            tbit = 1 << to
            mine = mine0 | tbit
            theirs = theirs0 & ~tbit
            big = big0
            reserve = reserve0
            revealed = False
            if frm is None:
                h = None
                if size == largest:
                    big |= tbit
                    reserve += reserve_w
            else:
                fbit = 1 << frm
                h = h0 ^ zp[to][size * 2 + me] ^ zp[frm][size * 2 + me] if reps else None
                mine ^= fbit
                if size == largest:
                    big ^= fbit | tbit
                src = stacks[frm]
                if len(src) > 1:
                    if src[-2] & 1 == me:
                        mine |= fbit
                    else:
                        theirs |= fbit
                        revealed = True
            score = None
            if revealed and first_line[theirs]:
                # nobody showed a line before the move, so any line of theirs now is new: the
                # move uncovered it, and it wins first
                score = lost
            if score is None:
                if h is not None and h in seen:
                    stats.rep_hits += 1
                    score = 0
                else:
                    # The usual answers need no call to ``wins``: a hole left empty wins at
                    # once for a side with a piece to enter there (a board move leaves the
                    # mover's reserve as it was), and holes that all show a largest piece
                    # cannot be filled.
                    hot = completing[theirs]
                    if hot and (their_reserve and hot & ~(mine | theirs)
                                or hot & ~big and wins(move, 1 - me, theirs, mine, hot)):
                        score = o_wins
                    else:
                        if qdepth:
                            hot = completing[mine]
                            threat = hot and (frm is not None and my_reserve and hot & ~(mine | theirs)
                                              or hot & ~big and wins(move, me, mine, theirs, hot))
                        else:
                            threat = False
                        if threat:
                            # the mover threatens a win: play the move and search the child
                            board.push(move)
                            if replies:
                                stats.nodes = nodes
                            else:
                                stats.nodes = nodes = nodes + 1
                                if limited or nodes & 255 == 0:
                                    tick()
                            score = -qsearch(-beta, -alpha, ply + 1, qdepth)
                            board.pop()
                            nodes = stats.nodes
                        else:
                            # a quiet child: counted and timed as the quiescence step would be
                            if sel:
                                if ply >= stats.seldepth:
                                    stats.seldepth = ply + 1
                                sel = False
                            if not replies:
                                nodes += 1
                                if limited or nodes & 255 == 0:
                                    stats.nodes = nodes
                                    tick()
                            if not qdepth:
                                # the quiescence step at depth 0 trusts its table first (the
                                # entry may come from a deeper quiescence search of the child)
                                if h is None:
                                    h = child_hash(board, move)
                                entry = qtt.get(h)
                                if entry is not None:
                                    s = from_tt(entry[2], ply + 1)
                                    flag = entry[1]
                                    if (flag == EXACT or (flag == LOWER and s >= -alpha)
                                            or (flag == UPPER and s <= -beta)):
                                        score = -s
                            if score is None:
                                key = theirs | mine << n_squares | big << twice_n
                                value = lines.get(key)
                                if value is None:
                                    # the parent's line terms, redone on the lines the move
                                    # changed (``evaluation.masked_line_terms``)
                                    if parent_terms is None:
                                        key0 = theirs0 | mine0 << n_squares | big0 << twice_n
                                        parent_terms = [terms[key0 & m] for m in masks]
                                        parent_total = sum(parent_terms)
                                    total = parent_total
                                    for i in touched[to][n_squares if frm is None else frm]:
                                        total += terms[key & masks[i]] - parent_terms[i]
                                    # (``evaluation.packed_line_score``, written out)
                                    lines[key] = value = (total >> TERM_SHIFT) + PACKED_EXTRA[total & COUNTS_MASK]
                                # the buried term changes only where the move lands on a stack
                                # topped by theirs (all of it is then under my piece) or
                                # uncovers their piece (what was under mine is now under theirs)
                                buried = buried0
                                dest = stacks[to]
                                if dest and dest[-1] & 1 != me:
                                    buried -= buried_w * len(dest)
                                if revealed:
                                    buried += buried_w * (len(src) - 1)
                                score = -(value + reserve + buried)
            if score > best:
                best = score
                best_move = move
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        if not replies:
                            searcher._cutoff(move, 1, ply, me)
                        break
        stats.nodes = nodes
        return best, best_move

    def refuted(self, move: tuple) -> int | None:
        """For a node above the frontier (after ``reset``, the node on the board): the score
        of the child after ``move`` when the other side wins at once there, because the move
        uncovers a line of theirs or leaves them a winning move, as playing the move would give
        (``search._settled_score``, ``tactics.has_winning_move``); None when the child needs a
        search.  The child must not repeat a position (the search checks that first), and
        the side to move has no win in one (the search never reaches a node that has one)."""
        size, to, frm = move
        me = self.me
        tops = self.board.tops
        tbit = 1 << to
        mine = tops[me] | tbit
        theirs = tops[1 - me] & ~tbit
        if frm is not None:
            fbit = 1 << frm
            mine ^= fbit
            src = self.stacks[frm]
            if len(src) > 1:
                if src[-2] & 1 == me:
                    mine |= fbit
                else:
                    theirs |= fbit
                    if self.first_line[theirs]:  # uncovered (as in ``scan``)
                        return self.lost
        hot = self.completing[theirs]
        if not hot:
            return None
        # (as in ``scan``: a hole left empty and a piece to enter there win, holes that all show
        # a largest piece cannot be filled)
        if hot & ~(mine | theirs) and any(self.their_counts):
            return self.o_wins
        largest = self.largest
        big = self.board.size_bb[largest]  # the child's squares showing a largest piece
        if size == largest:
            big = big | tbit if frm is None else big ^ (fbit | tbit)
        if hot & ~big and self._wins(move, 1 - me, theirs, mine, hot):
            return self.o_wins
        return None

    def _bigger_tops(self) -> list[int]:
        """``[k]``: the squares of the node's tops larger than size ``k`` (kept until the next
        ``reset``); also sets ``ready`` and ``their_ready``, the largest size each side can
        enter here (0: none)."""
        size_bb = self.board.size_bb
        largest = self.largest
        bigger = [0] * (largest + 1)
        acc = 0
        for k in range(largest - 1, -1, -1):
            acc |= size_bb[k + 1]
            bigger[k] = acc
        self.bigger = bigger
        self.ready = _largest_held(self.counts, largest)
        self.their_ready = _largest_held(self.their_counts, largest)
        return bigger

    def _wins(self, move: tuple, c: int, own: int, other: int, hot: int) -> bool:
        """True when ``c`` has a move that wins at once in the child after ``move``, whose tops
        are ``own`` (``c``'s) and ``other``; ``hot`` is ``c``'s completing squares there.
        (``tactics.has_winning_move`` on the child, read from the parent's stacks.)"""
        size, to, frm = move
        stacks, largest, entry, lines_through, squares = self.wins_fixed
        bigger = self.bigger
        if bigger is None:
            bigger = self._bigger_tops()
        if frm is None:
            src = None
            if c == self.me:
                entered = True
                counts = self.counts
            else:
                entered = False
                ready = self.their_ready
        else:
            src = stacks[frm]
            entered = False
            ready = self.ready if c == self.me else self.their_ready
        guarded = None  # squares on lines where the other side shows all tops but one
        moved = 1 << to if frm is None else 1 << to | 1 << frm
        for h in squares[hot]:
            # the top at h in the child
            if h == to:
                k = size
            elif h == frm:
                k = src[-2] >> 1 if len(src) > 1 else 0
            else:
                st = stacks[h]
                k = st[-1] >> 1 if st else 0
            # an entry never uncovers anything, so any allowed entry completes the line
            if entered:
                # the reserve after the move's entry
                for s in range(largest, k, -1):
                    n = counts[s]
                    if s == size:
                        n -= 1
                    elif s == size - 1 and self.stacked:
                        n += 1
                    if n:
                        break
                else:
                    s = 0
            else:
                s = ready
            if s > k:
                if not k or entry == ENTRY_FREE:
                    return True
                if entry != ENTRY_EMPTY:
                    # (the top at h is the other side's: h is a hole of c's line; whether an
                    # entry may go there does not depend on its size)
                    if guarded is None:
                        guarded = self.hot_lines[other]
                    if guarded >> h & 1:
                        return True
            hbit = 1 << h
            # the pieces that can cover h: the parent's tops larger than k, besides the two
            # squares the move changed (checked one by one)
            for g in squares[own & ~hbit & (bigger[k] | moved)]:
                if g == to:
                    if size <= k:
                        continue
                    st = stacks[to]
                    under = st[-1] if st else None
                elif g == frm:
                    if src[-2] >> 1 <= k:
                        continue
                    under = src[-3] if len(src) > 2 else None
                else:
                    st = stacks[g]
                    under = st[-2] if len(st) > 1 else None
                gbit = 1 << g
                after = (own | hbit) & ~gbit
                if under is not None:
                    if under & 1 == c:
                        after |= gbit
                    else:
                        # lifting uncovers the other side's piece: a line of theirs loses
                        rest = (other & ~hbit) | gbit
                        for line in lines_through[g]:
                            if rest & line == line:
                                break
                        else:
                            line = 0
                        if line:
                            continue
                for line in lines_through[h]:
                    if after & line == line:
                        return True
        return False


def _largest_held(counts: list[int], largest: int) -> int:
    """The largest size with a nonzero count in a reserve's ``counts`` (0: none)."""
    s = largest
    while s and not counts[s]:
        s -= 1
    return s


_TOUCHED: dict[tuple, tuple[tuple[tuple[int, ...], ...], ...]] = {}


def lines_touched(lines_through: tuple[tuple[int, ...], ...]) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """``[to][frm]``: the indices (in ``Geometry.lines``) of the lines through either square,
    ``frm`` = the number of squares for an entry: the lines a move changes."""
    out = _TOUCHED.get(lines_through)
    if out is None:
        # (``Geometry.lines`` is sorted, and every line runs through some square)
        index = {line: i for i, line in enumerate(sorted({line for through in lines_through for line in through}))}
        n = len(lines_through)

        def touched(to: int, frm: int) -> tuple[int, ...]:
            lines = lines_through[to] + (lines_through[frm] if frm < n else ())
            return tuple(sorted({index[line] for line in lines}))

        out = tuple(tuple(touched(to, frm) for frm in range(n + 1)) for to in range(n))
        _TOUCHED[lines_through] = out
    return out


def staged_moves(board: Board, first: list, killers: list, history: dict,
                 threats: bool = False) -> Iterator[tuple | None]:
    """The moves of a negamax node in the search's order: ``first`` (the table's move and
    maybe a killer before it, each legal here), then the other killers legal here, then the
    others from ``ordered_moves`` (with ``threats``: moves that make a threat early), each
    stage made only when the one before has been searched; None alone when there is no legal
    move."""
    yield from first
    tried = list(first)
    for k in killers:
        # (each checked only when the moves before it have not cut the node off)
        if k is not None and k not in first and is_legal_now(board, k):
            tried.append(k)
            yield k
    rest = ordered_moves(board, tuple(tried), killers, history, threats)
    if not rest and not tried:
        yield None
    yield from rest


def child_hash(board: Board, move: tuple) -> int:
    """The Zobrist hash of the position after ``move`` (a legal move), without playing it: the
    value ``Board.push`` would set."""
    size, to, frm = move
    c = board.turn
    z = board._z
    p = size * 2 + c
    h = board.hash ^ z.turn ^ z.piece[to][p]
    if frm is None:
        counts = board.reserve[c]
        zr = z.reserve[c]
        k = counts[size]
        h ^= zr[size][k] ^ zr[size][k - 1]
        if board.stacked and size > 1:
            k = counts[size - 1]
            h ^= zr[size - 1][k] ^ zr[size - 1][k + 1]
    else:
        h ^= z.piece[frm][p]
    return h
