"""A static evaluation of Gobblet-family positions, from the side to move's point of view.

The position is read line by line: a line where only one colour shows tops is worth more the
more tops it has (a line one short of complete is a threat) and the larger they are (a largest
piece cannot be gobbled); lines where both colours show are blocked and worth little.  Pieces
buried under the opponent's tops count against their owner (they are out of play until the
opponent lifts, which may free them); largest pieces still
playable from the reserve are potential.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from .board import Board
from .geometry import geometry
from .rules import WHITE, Rules

# Score units: a won game is far above any evaluation (see engine.gobblet.search.searcher.MATE).
THREAT = 60  # a line one top short, not blocked
TEMPO = 8  # being the side to move
LINE_MEMO_LIMIT = 1 << 18  # line scores remembered before the memo starts afresh


@dataclass(frozen=True)
class Weights:
    """The weights of the evaluation terms for one line length."""

    line: tuple[int, ...]  # value of an unblocked line by the number of own tops in it
    big: int  # per largest-size top in an unblocked line
    buried: int  # per own piece hidden under an opponent top
    reserve: int  # per largest-size piece still playable from the reserve


_LINE_VALUES = {
    3: (0, 4, THREAT, 0),
    4: (0, 2, 12, THREAT, 0),
    5: (0, 1, 6, 20, THREAT, 0),
}


@cache
def _weights(line_length: int) -> Weights:
    return Weights(_LINE_VALUES[line_length], big=3, buried=6, reserve=4)


# line scores per geometry, keyed ``mine | theirs << n | big << 2 * n`` on a board of n
# squares: the same tops recur all the time (``line_score_memo``)
_LINE_SCORES: dict[tuple[int, int], dict[int, int]] = {}


def weights(rules: Rules) -> Weights:
    """The evaluation weights used under ``rules``."""
    return _weights(rules.line)


def line_score_memo(rules: Rules) -> dict[int, int]:
    """The memo of ``line_score`` for the geometry of ``rules``, keyed
    ``mine | theirs << n | big << 2 * n`` on a board of ``n`` squares (one int: cheaper to make
    and to find than a tuple).  The search's frontier reads and fills it directly."""
    return _LINE_SCORES.setdefault((rules.board, rules.line), {})


def line_score(rules: Rules, mine: int, theirs: int, big: int) -> int:
    """The line part of the evaluation (tempo included) for the side whose tops are ``mine``,
    against ``theirs``, with ``big`` the squares showing a largest piece; memoised."""
    return _line_scorer(rules.board, rules.line)(mine, theirs, big)


@cache
def _line_scorer(board: int, line_length: int) -> Callable[[int, int, int], int]:
    geo = geometry(board, line_length)
    w = _weights(line_length)
    memo = _LINE_SCORES.setdefault((board, line_length), {})
    shift = board * board
    lines = geo.lines
    line_values = w.line
    big_w = w.big
    threat = line_length - 1

    def score_lines(mine: int, theirs: int, big: int) -> int:
        key = mine | theirs << shift | big << 2 * shift
        score = memo.get(key)
        if score is not None:
            return score
        score = TEMPO
        threats_me = threats_them = 0
        for line in lines:
            a = mine & line
            b = theirs & line
            if b:
                if not a:
                    n = b.bit_count()
                    score -= line_values[n]
                    if b & big:
                        score -= big_w * (b & big).bit_count()
                    if n == threat:
                        threats_them += 1
            elif a:
                n = a.bit_count()
                score += line_values[n]
                if a & big:
                    score += big_w * (a & big).bit_count()
                if n == threat:
                    threats_me += 1
        # two threats at once usually cannot both be stopped
        if threats_me >= 2:
            score += THREAT
        if threats_them >= 2:
            score -= THREAT
        if len(memo) > LINE_MEMO_LIMIT:
            memo.clear()
        memo[key] = score
        return score

    return score_lines


def evaluate(board: Board) -> int:
    """The position's value for the side to move, in evaluation units (no search)."""
    rules = board.rules
    w = _weights(rules.line)
    me = board.turn
    tops = board.tops
    largest = rules.sizes
    score = line_score(rules, tops[me], tops[1 - me], board.size_bb[largest])
    score += w.reserve * (board.reserve[me][largest] - board.reserve[1 - me][largest])
    # (the board keeps the buried count up to date: ``Board.buried``, White's balance)
    return score + w.buried * (board.buried if me == WHITE else -board.buried)


# The line term per line, packed for summing: a line held by one side only is worth
# ``value << TERM_SHIFT`` plus a mark if it is a threat, ``OWN_THREAT`` for the side to move's
# and ``OPP_THREAT`` for the opponent's.  Summed over the lines (at most 12, so the two 6-bit
# counts never overflow), ``total >> TERM_SHIFT`` is the lines' value and the counts say
# whether a side has two threats (``packed_line_score``).  The search's frontier scores a child
# from its parent's per-line terms this way, redoing only the lines through the two squares
# a move changes.
TERM_SHIFT = 12
OWN_THREAT = 1 << 6
OPP_THREAT = 1
COUNTS_MASK = (1 << TERM_SHIFT) - 1  # the two threat counts of a total
# ``packed_line_score`` less the lines' value, by the two threat counts (``total & COUNTS_MASK``):
# the tempo and the double-threat terms in one look-up
PACKED_EXTRA: tuple[int, ...] = tuple(
    TEMPO + (THREAT if counts >> 6 >= 2 else 0) - (THREAT if counts & 63 >= 2 else 0)
    for counts in range(1 << TERM_SHIFT)
)


def line_terms(rules: Rules) -> tuple[dict[tuple[int, int], int], dict[tuple[int, int], int]]:
    """The packed terms of a line held by one side, keyed ``(held, largest)``: the line's
    squares showing that side's tops and those of them showing a largest piece; for the side
    to move, and for the opponent."""
    return _line_terms(rules.board, rules.line)


@cache
def _line_terms(board: int, line_length: int) -> tuple[dict, dict]:
    geo = geometry(board, line_length)
    w = _weights(line_length)
    own: dict[tuple[int, int], int] = {}
    opp: dict[tuple[int, int], int] = {}
    for line in geo.lines:
        squares = geo.line_squares(line)
        subsets = [0]
        for sq in squares:
            subsets += [x | 1 << sq for x in subsets]
        for held in subsets[1:]:
            n = held.bit_count()
            for largest in subsets:
                if largest & ~held:
                    continue
                value = w.line[n] + w.big * largest.bit_count()
                threat = n == line_length - 1
                own[held, largest] = (value << TERM_SHIFT) + (OWN_THREAT if threat else 0)
                opp[held, largest] = (-value << TERM_SHIFT) + (OPP_THREAT if threat else 0)
    return own, opp


def masked_line_terms(rules: Rules) -> tuple[tuple[int, ...], dict[int, int]]:
    """``(masks, terms)``: the packed term of each line (``line_terms``) read with one mask and
    one look-up.  ``masks[i]`` is ``line | line << n | line << 2 * n`` for the ``i``-th line of
    ``Geometry.lines`` on a board of ``n`` squares, and ``terms[key & masks[i]]`` is that line's
    term for ``key = own | opp << n | big << 2 * n`` (the tops of the side to move, the
    opponent's, and the squares showing a largest piece), 0 for a blocked or empty line.  (A
    term depends only on how many tops and largest pieces a line holds, so two lines whose
    masked keys coincide agree on it.)"""
    return _masked_line_terms(rules.board, rules.line)


@cache
def _masked_line_terms(board: int, line_length: int) -> tuple[tuple[int, ...], dict[int, int]]:
    geo = geometry(board, line_length)
    own, opp = _line_terms(board, line_length)
    n = board * board
    masks = tuple(line | line << n | line << 2 * n for line in geo.lines)
    terms: dict[int, int] = {}
    for line in geo.lines:
        # each square of the line: empty, or either side's top, largest or not
        keys = [0]
        for sq in geo.line_squares(line):
            bit = 1 << sq
            keys = [k | extra for k in keys for extra in (0, bit, bit | bit << 2 * n, bit << n, bit << n | bit << 2 * n)]
        for key in keys:
            a = key & line
            b = key >> n & line
            big = key >> 2 * n
            if a and not b:
                terms[key] = own[a, big]
            elif b and not a:
                terms[key] = opp[b, big]
            else:
                terms[key] = 0
    return masks, terms


def packed_line_score(total: int) -> int:
    """``line_score`` from the sum of the packed terms of every line (``line_terms``)."""
    return (total >> TERM_SHIFT) + PACKED_EXTRA[total & COUNTS_MASK]
