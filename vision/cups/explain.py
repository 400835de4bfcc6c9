"""Which after-state does the picture show?  A pure scorer for the referee.

The referee knows the state before the move and lists the after-state of every legal move (the
engine's job, not this module's); the reader gives, per container, whether it changed since the
last stable frame and a bean count with a range.  Each candidate is scored by how well it
explains the readings: a container the move changes must read as changed, one it leaves alone
must read as unchanged, and the candidate's count should lie in the reading's range, each
weighed by how sure the reading is; a change not seen costs less than a change seen where the
move makes none, since a bean can land hidden while a still table does not change by itself.
The best candidate comes back with its margin over the next: a referee commits a move only
when the margin is wide enough and asks otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hardware.cups.state import TableState

from .reader import ContainerReading, TableReading

CHANGE_WEIGHT = 3.0  # a container read as changed when the move leaves it (a still frame)
MISSED_WEIGHT = 2.0  # a container read as unchanged when the move changes it: a bean can land
#                      out of sight under the rim, so this costs less ...
HIDDEN_SHARE = 0.5  # ... and less again where beans were already: it may lie on a like one
COUNT_WEIGHT = 1.5  # per bean outside a reading's range, scaled by the reading's confidence
COUNT_CAP = 4.0  # no one count costs more than this many bean-misses
NEAR_WEIGHT = 0.1  # within the range, how far from the estimate (breaks ties between counts)


@dataclass(frozen=True)
class CandidateScore:
    """A candidate after-state, its position in the list given, its score (0 = explains
    everything; more negative is worse) and the containers it fails to explain."""

    index: int
    state: TableState
    score: float
    misfits: tuple[str, ...]


@dataclass(frozen=True)
class Explanation:
    """The best candidate (its index in the list given and its state), its margin over the
    next best (infinite when there was only one), and every candidate's score, best first."""

    best_index: int
    best: TableState
    margin: float
    scores: tuple[CandidateScore, ...]


def _score(before: tuple[int, ...], after: tuple[int, ...], readings: Sequence[ContainerReading],
           names: Sequence[str]) -> tuple[float, tuple[str, ...]]:
    total = 0.0
    misfits = []
    for b, a, r, name in zip(before, after, readings, names):
        moved = a != b
        if moved != r.changed:
            if not moved:
                weight = CHANGE_WEIGHT
            elif a > b > 0:
                weight = MISSED_WEIGHT * HIDDEN_SHARE  # the new bean may lie on a like one
            else:
                weight = MISSED_WEIGHT  # a bean in an empty container, or beans taken: seen
            total -= weight * (0.5 + 0.5 * r.confidence)
            misfits.append(f"{name} read {'unchanged' if moved else 'changed'}, the move "
                           f"{'changes' if moved else 'leaves'} it")
        if a < r.count_low or a > r.count_high:
            miss = (r.count_low - a) if a < r.count_low else (a - r.count_high)
            # the doubt of a count grows with it: a bean off a heap of 30 matters less
            rel = miss / max(1.0, 0.15 * a) if a > r.count_high else miss / max(1.0, 0.15 * r.count_low)
            total -= COUNT_WEIGHT * r.confidence * min(COUNT_CAP, rel)
            misfits.append(f"{name} holds {a}, read {r.count_low}-{r.count_high}")
        else:
            total -= NEAR_WEIGHT * r.confidence * abs(a - r.count_estimate) / max(1.0, r.count_high - r.count_low)
    return total, tuple(misfits)


def explain_readings(before: TableState, candidates: Sequence[TableState],
                     readings: TableReading | Sequence[ContainerReading]) -> Explanation:
    """Score each candidate after-state against the readings (relative to ``before``, the
    last stable state) and return the best with its margin.  ValueError when there are no
    candidates or the shapes do not match."""
    rs = readings.containers if isinstance(readings, TableReading) else tuple(readings)
    if not candidates:
        raise ValueError("no candidate after-states to choose from")
    b = before.as_counts()
    if len(rs) != len(b):
        raise ValueError(f"{len(rs)} readings for a table of {len(b)} containers")
    x = before.cups_per_row
    names = ([f"south cup {i + 1}" for i in range(x)] + [f"north cup {i + 1}" for i in range(x)]
             + ["south bowl", "north bowl", "south stock", "north stock"])
    scored = []
    for i, cand in enumerate(candidates):
        a = cand.as_counts()
        if len(a) != len(b):
            raise ValueError(f"candidate {i} has {len(a)} containers; the table has {len(b)}")
        s, misfits = _score(b, a, rs, names)
        scored.append(CandidateScore(i, cand, s, misfits))
    scored.sort(key=lambda c: -c.score)
    margin = scored[0].score - scored[1].score if len(scored) > 1 else float("inf")
    return Explanation(scored[0].index, scored[0].state, margin, tuple(scored))
