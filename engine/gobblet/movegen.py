"""Move generation for the search: every legal move, already ordered, as plain tuples.

``Board.legal_moves`` builds ``Move`` objects in a fixed order; the search wants them ordered
by promise and makes tens of thousands of lists a second, so this generator reads the board's
bitboards directly, scores each move as it makes it and returns ``(size, to, frm)`` tuples
(equal to, and hashing like, the ``Move`` with the same fields; ``Board.push`` takes either).

Order: moves onto a line where the opponent shows all tops but one (blocks and gobbles there),
then the killer moves of the ply, then (when the search asks, above its frontier) moves that
make a new line of the mover's one top short, then by the history heuristic, gobbling an
opponent piece and size.
"""

from __future__ import annotations

from operator import attrgetter, itemgetter

from .bitboard_tables import completing_table, square_table, threat_lines_table
from .board import Board
from .rules import ENTRY_DEFENSIVE, ENTRY_EMPTY, ENTRY_FREE
from .tactics import candidate_moves_to, threat_lines

BLOCK_BONUS = 1 << 32
KILLER_BONUS = 1 << 30
CAPTURE_BONUS = 1 << 25
# Above the search's frontier a refutation that threatens a win is cheap to search: most of the
# opponent's replies then lose at once, which the search sees without searching them.  (At the
# frontier itself a threatening child costs a quiescence search, so there it is not preferred.)
THREAT_BONUS = 1 << 28

_SQUARES: dict[int, tuple[int, ...]] = {}


def squares(bb: int) -> tuple[int, ...]:
    """The set bits of ``bb``, lowest first (memoised: a search meets the same few thousand
    bitboards over and over)."""
    out = _SQUARES.get(bb)
    if out is None:
        sq = []
        b = bb
        while b:
            low = b & -b
            sq.append(low.bit_length() - 1)
            b ^= low
        out = tuple(sq)
        if len(_SQUARES) > 1 << 18:
            _SQUARES.clear()
        _SQUARES[bb] = out
    return out


def ordered_moves(board: Board, tried: tuple, killers: list, history: dict,
                  threats: bool = False) -> list[tuple]:
    """The legal moves of the side to move, best first, without those in ``tried`` (moves
    already searched).  With ``threats``, a move after which the mover's tops show all but one
    square of a line they did not before (``THREAT_BONUS``; the hole may be out of reach: it is
    only an ordering) comes before the captures.  The board must not be over."""
    c = board.turn
    tops = board.tops
    size_bb = board.size_bb
    rules = board.rules
    sizes = rules.sizes
    sq = square_table(rules.squares)
    mine = tops[c]
    theirs = tops[1 - c]
    empty = board.geo.full ^ (mine | theirs)
    below = [empty]
    m = empty
    for s in range(1, sizes + 1):
        below.append(m)
        m |= size_bb[s]
    hot = threat_lines_table(rules.board, rules.line)[theirs]
    # the search tries its legal killers before generating the rest, so they are usually in
    # ``tried``; a move is looked up in either only when its destination is ``marked``
    marked = 0
    for mv in tried:
        marked |= 1 << mv[1]
    kill = ()
    for mv in killers:
        if mv is not None and mv not in tried:
            kill += (mv,)
            marked |= 1 << mv[1]
    # what a move gets for its destination: blocking a line of theirs, gobbling one of theirs
    bonus = [0] * len(board.stacks)
    for to in sq[hot]:
        bonus[to] = BLOCK_BONUS
    for to in sq[theirs]:
        bonus[to] += CAPTURE_BONUS
    get = history.get
    scored: list[tuple[int, tuple]] = []
    append = scored.append
    entry = rules.entry
    counts = board.reserve[c]
    co = completing_table(rules.board, rules.line) if threats else None
    holes = co[mine] if threats else 0  # the squares completing the mover's lines now
    for s in range(sizes, 0, -1):
        if not counts[s]:
            continue
        if entry == ENTRY_FREE:
            targets = below[s]
        elif entry == ENTRY_EMPTY or not hot:
            targets = empty
        elif entry == ENTRY_DEFENSIVE:
            targets = empty | (below[s] & hot & theirs)
        else:  # Storer: any smaller top on such a line
            targets = empty | (below[s] & hot)
        for to in sq[targets]:
            mv = (s, to, None)
            v = get(mv, 0) + s + bonus[to]
            if co is not None and co[mine | 1 << to] & ~holes:
                v += THREAT_BONUS
            if marked >> to & 1:
                if mv in tried:
                    continue
                if mv in kill:
                    v += KILLER_BONUS
            append((v, mv))
    stacks = board.stacks
    # the scoring below repeats the entries' on purpose: a helper call per move costs the
    # search about a tenth of its speed
    for frm in sq[mine]:
        s = stacks[frm][-1] >> 1
        for to in sq[below[s] & ~(1 << frm)]:
            mv = (s, to, frm)
            v = get(mv, 0) + s + bonus[to]
            if co is not None and co[(mine | 1 << to) & ~(1 << frm)] & ~holes:
                v += THREAT_BONUS
            if marked >> to & 1:
                if mv in tried:
                    continue
                if mv in kill:
                    v += KILLER_BONUS
            append((v, mv))
    scored.sort(key=_first, reverse=True)
    return list(map(_second, scored))


def moves_to(board: Board, targets: int) -> list[tuple]:
    """The legal moves of the side to move onto the squares of ``targets`` (a bitboard),
    largest piece first, then by destination, entries before board moves, then by source:
    ``tactics.candidate_moves_to`` for the side to move, stably sorted by size, as tuples.
    (The search's quiescence step makes the same moves lazily, ``threat_replies``; this is
    the plain form its tests and slow path compare with.)  The board must not be over."""
    moves = sorted(candidate_moves_to(board, board.turn, targets), key=attrgetter("size"), reverse=True)
    return [tuple(m) for m in moves]


def is_legal_now(board: Board, move: tuple) -> bool:
    """True when ``move`` (a killer from another position) is legal here; cheaper than
    generating every move.  The board must not be over."""
    size, to, frm = move
    c = board.turn
    stacks = board.stacks
    dest = stacks[to]
    if dest and dest[-1] >> 1 >= size:
        return False
    if frm is None:
        if not board.reserve[c][size]:
            return False
        entry = board.rules.entry
        if not dest or entry == ENTRY_FREE:
            return True
        if entry == ENTRY_EMPTY:
            return False
        hot = 0
        for line in threat_lines(board, 1 - c):
            hot |= line
        if not hot >> to & 1:
            return False
        return entry != ENTRY_DEFENSIVE or dest[-1] & 1 != c
    if frm == to:
        return False
    src = stacks[frm]
    return bool(src) and src[-1] == size * 2 + c


_first = itemgetter(0)
_second = itemgetter(1)
