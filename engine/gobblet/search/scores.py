"""The search's score scale and the bounds its tables store, shared by ``engine.gobblet.search.searcher`` and
``engine.gobblet.search.frontier``.

Scores are from the side to move's point of view.  A win reached by the move at ply ``p`` (the
root move is ply 1) scores ``MATE - p``, a loss ``-(MATE - p)``; everything else is an
evaluation, far below ``MATE_BOUND``.  A table stores a forced result as a distance from the
position itself (``to_tt``) and gives it back as one from the root (``from_tt``).
"""

from __future__ import annotations

MATE = 1_000_000
MATE_BOUND = MATE - 10_000
INF = MATE + 1
QDEPTH = 4  # plies of forced replies to threats at the horizon

EXACT, LOWER, UPPER = 0, 1, 2  # what a stored score is: the value, or a bound from below or above


def to_tt(score: int, ply: int) -> int:
    """``score`` at ``ply`` as a table stores it."""
    if score > MATE_BOUND:
        return score + ply
    if score < -MATE_BOUND:
        return score - ply
    return score


def from_tt(score: int, ply: int) -> int:
    """A stored score as it counts at ``ply``."""
    if score > MATE_BOUND:
        return score - ply
    if score < -MATE_BOUND:
        return score + ply
    return score
