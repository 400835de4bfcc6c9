"""Fast tactical facts about a board, computed from its bitboards without playing moves:
what a move would end in, which squares complete a line, which moves win at once.

The search and the hints use these on every node, so they read the board's internals
(``tops``, ``size_bb``, ``stacks``, ``reserve``) directly; they never change the board.
"""

from __future__ import annotations

from .bitboard_tables import completing_table, hot_lines_table
from .board import Board
from .values import Move
from .geometry import Geometry, squares_of
from .rules import ENTRY_EMPTY, ENTRY_FREE

ONGOING = 0
WINS = 1  # the move shows the mover's line and not the opponent's
LOSES = 2  # after the move the opponent shows a line (the move uncovered it)


def move_result(board: Board, move: Move, colour: int | None = None) -> int:
    """What ``move`` by ``colour`` (default: the side to move) would end in: ONGOING, WINS or
    LOSES, judged after the whole move as the rules say.  The board must not be over."""
    c = board.turn if colour is None else colour
    size, to, frm = move
    tops = board.tops
    tbit = 1 << to
    mine = tops[c] | tbit
    theirs = tops[1 - c] & ~tbit
    geo = board.geo
    if frm is not None:
        fbit = 1 << frm
        mine &= ~fbit
        stack = board.stacks[frm]
        if len(stack) >= 2:
            if stack[-2] & 1 == c:
                mine |= fbit
            else:
                theirs |= fbit
                for line in geo.lines_through[frm]:
                    if theirs & line == line:
                        return LOSES
    for line in geo.lines_through[to]:
        if mine & line == line:
            return WINS
    return ONGOING


# facts about the lines of a tops bitboard, memoised per geometry: a tops bitboard recurs very
# often in a search, and the lines loop costs far more than a dict look-up
_MEMO_LIMIT = 1 << 18
def _memo(store: dict, geo: Geometry) -> dict:
    """``store``'s memo for ``geo`` (made empty on first use)."""
    cache = store.get((geo.size, geo.line_length))
    if cache is None:
        cache = store.setdefault((geo.size, geo.line_length), {})
    return cache


def _remember(cache: dict, bb: int, value):
    """Store ``value`` for ``bb``, starting afresh when the memo has grown too large."""
    if len(cache) > _MEMO_LIMIT:
        cache.clear()
    cache[bb] = value
    return value


def completing_squares(board: Board, colour: int) -> int:
    """Squares that would complete a line of ``colour``: the one square missing from each line
    in which ``colour`` shows all tops but one."""
    geo = board.geo
    return completing_table(geo.size, geo.line_length)[board.tops[colour]]


def completing_of(geo: Geometry, bb: int) -> int:
    """``completing_squares`` for a tops bitboard ``bb``."""
    return completing_table(geo.size, geo.line_length)[bb]


def hot_lines_of(geo: Geometry, bb: int) -> int:
    """The squares of every line in which the tops ``bb`` show all but one (or all) of the
    line: where a defensive entry against them is allowed (``Board._hot_lines``)."""
    return hot_lines_table(geo.size, geo.line_length)[bb]


_THREAT_LINES: dict[tuple[int, int], dict[int, tuple[int, ...]]] = {}


def threat_lines(board: Board, colour: int) -> list[int]:
    """Lines in which ``colour`` shows all tops but one."""
    bb = board.tops[colour]
    geo = board.geo
    cache = _memo(_THREAT_LINES, geo)
    out = cache.get(bb)
    if out is None:
        need = geo.line_length - 1
        out = tuple(line for line in geo.lines if (bb & line).bit_count() == need) if bb.bit_count() >= need else ()
        _remember(cache, bb, out)
    return list(out)


_NEAR_LINES: dict[tuple[int, int], dict[int, tuple[int, ...]]] = {}


def threat_lines_minus_one(board: Board, colour: int) -> tuple[int, ...]:
    """Lines in which ``colour`` shows all tops but two: one more top there makes a threat."""
    bb = board.tops[colour]
    geo = board.geo
    cache = _memo(_NEAR_LINES, geo)
    out = cache.get(bb)
    if out is None:
        need = geo.line_length - 2
        out = _remember(cache, bb, tuple(line for line in geo.lines if (bb & line).bit_count() == need))
    return out


def candidate_moves_to(board: Board, colour: int, targets: int) -> list[Move]:
    """Legal-as-if-to-move moves of ``colour`` whose destination is in ``targets`` (a bitboard).

    For the side to move these are exactly its legal moves to those squares; for the other side
    they are the moves it could make there on its next turn if the position stayed as it is."""
    out: list[Move] = []
    if not targets:
        return out
    stacks = board.stacks
    size_bb = board.size_bb
    sizes = board.rules.sizes
    entry = board.rules.entry
    own = board.tops[colour]
    counts = board.reserve[colour]
    below = None
    for to in squares_of(targets):
        stack = stacks[to]
        top = stack[-1] >> 1 if stack else 0
        for s in range(sizes, top, -1):
            if not counts[s]:
                continue
            if top and entry != ENTRY_FREE:
                if entry == ENTRY_EMPTY:
                    continue
                if below is None:
                    below = board.below_masks()
                if not board.entry_targets(s, below, colour) >> to & 1:
                    continue
            out.append(Move(s, to, None))
        bigger = 0
        for s in range(top + 1, sizes + 1):
            bigger |= size_bb[s]
        for frm in squares_of(own & bigger & ~(1 << to)):
            out.append(Move(stacks[frm][-1] >> 1, to, frm))
    return out


def has_winning_move(board: Board, colour: int | None = None) -> bool:
    """True when ``colour`` (default: the side to move) has a move that wins at once; the
    same answer as ``bool(winning_moves(...))``, without building the moves.

    It walks the moves as ``candidate_moves_to`` does, written out again on purpose: it runs
    for every child in the search, and sharing one generator cost 2-10 % of nodes/s."""
    c = board.turn if colour is None else colour
    hot = completing_squares(board, c)
    if not hot:
        return False
    stacks = board.stacks
    size_bb = board.size_bb
    sizes = board.rules.sizes
    entry = board.rules.entry
    counts = board.reserve[c]
    own = board.tops[c]
    below = None
    for to in squares_of(hot):
        stack = stacks[to]
        top = stack[-1] >> 1 if stack else 0
        # an entry never uncovers anything, so any allowed entry completes the line
        for s in range(sizes, top, -1):
            if counts[s]:
                if not top or entry == ENTRY_FREE:
                    return True
                if entry != ENTRY_EMPTY:
                    if below is None:
                        below = board.below_masks()
                    if board.entry_targets(s, below, c) >> to & 1:
                        return True
        bigger = 0
        for s in range(top + 1, sizes + 1):
            bigger |= size_bb[s]
        for frm in squares_of(own & bigger & ~(1 << to)):
            if move_result(board, (stacks[frm][-1] >> 1, to, frm), c) == WINS:
                return True
    return False


def threat_targets(board: Board, colour: int) -> int:
    """The squares a move must reach to stop every win in one of ``colour`` (a bitboard): its
    threatened lines and the sources of its winning board moves; 0 when ``colour`` has no
    winning move.  (The search reads the same from ``threat_replies``; this is the plain form
    its tests and its slow path compare with.)"""
    wins = winning_moves(board, colour)
    if not wins:
        return 0
    out = 0
    for line in threat_lines(board, colour):
        out |= line
    for m in wins:
        if m.frm is not None:
            out |= 1 << m.frm
    return out


def winning_moves(board: Board, colour: int | None = None) -> list[Move]:
    """The moves with which ``colour`` (default: the side to move) would win at once."""
    c = board.turn if colour is None else colour
    hot = completing_squares(board, c)
    if not hot:
        return []
    return [m for m in candidate_moves_to(board, c, hot) if move_result(board, m, c) == WINS]


def game_result(board: Board):
    """The outcome of the last move (line, reveal or repetition) without counting moves; None
    while the game goes on.  (``Board.outcome`` also counts legal moves, which the search
    cannot afford on every node; a position without moves is handled by the search itself.)"""
    return board.decided


def play_safe_random(board: Board, rng, plies: int) -> bool:
    """Play up to ``plies`` random moves on ``board`` that neither win nor leave a win in one
    to the opponent (varied, quiet openings for self-play and benchmarks); False when such
    play got stuck before ``plies``."""
    for _ in range(plies):
        safe = []
        for m in board.legal_moves():
            board.push(m)
            if board.decided is None and not winning_moves(board):
                safe.append(m)
            board.pop()
        if not safe:
            return False
        board.push(rng.choice(safe))
    return True
