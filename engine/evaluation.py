"""A static evaluation of Gobblet-family positions, from the side to move's point of view.

The position is read line by line: a line where only one colour shows tops is worth more the
more tops it has (a line one short of complete is a threat) and the larger they are (a largest
piece cannot be gobbled); lines where both colours show are blocked and worth little.  Pieces
buried under the opponent's tops count against their owner (they are out of play until the
opponent lifts, which may free them); largest pieces still
playable from the reserve are potential.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from .board import Board
from .geometry import geometry
from .rules import Rules

# Score units: a won game is far above any evaluation (see engine.search.MATE).
THREAT = 60  # a line one top short, not blocked
TEMPO = 8  # being the side to move


@dataclass(frozen=True)
class _Weights:
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
def _weights(line_length: int) -> _Weights:
    return _Weights(_LINE_VALUES[line_length], big=3, buried=6, reserve=4)


# line scores by (mine, theirs, largest tops) per geometry: the same tops recur all the time
_LINE_SCORES: dict[tuple[int, int], dict[tuple[int, int, int], int]] = {}


def evaluate(board: Board) -> int:
    """The position's value for the side to move, in evaluation units (no search)."""
    rules = board.rules
    w = _weights(rules.line)
    me = board.turn
    tops = board.tops
    mine, theirs = tops[me], tops[1 - me]
    big = board.size_bb[rules.sizes]
    cache = _LINE_SCORES.get((rules.board, rules.line))
    if cache is None:
        cache = _LINE_SCORES.setdefault((rules.board, rules.line), {})
    key = (mine, theirs, big)
    score = cache.get(key)
    if score is None:
        score = _line_score(rules, mine, theirs, big)
        if len(cache) > 1 << 18:
            cache.clear()
        cache[key] = score
    largest = rules.sizes
    score += w.reserve * (board.reserve[me][largest] - board.reserve[1 - me][largest])
    for stack in board.stacks:
        if len(stack) > 1:
            top_colour = stack[-1] & 1
            for p in stack[:-1]:
                if p & 1 != top_colour:
                    score += -w.buried if p & 1 == me else w.buried
    return score


def _line_score(rules: Rules, mine: int, theirs: int, big: int) -> int:
    """The line part of the evaluation (tempo included)."""
    geo = geometry(rules.board, rules.line)
    w = _weights(rules.line)
    line_values = w.line
    score = TEMPO
    threats_me = threats_them = 0
    for line in geo.lines:
        a = mine & line
        b = theirs & line
        if a and not b:
            n = a.bit_count()
            score += line_values[n] + w.big * (a & big).bit_count()
            if n == rules.line - 1:
                threats_me += 1
        elif b and not a:
            n = b.bit_count()
            score -= line_values[n] + w.big * (b & big).bit_count()
            if n == rules.line - 1:
                threats_them += 1
    # two threats at once usually cannot both be stopped
    if threats_me >= 2:
        score += THREAT
    if threats_them >= 2:
        score -= THREAT
    return score
