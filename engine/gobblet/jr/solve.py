"""Exact values of Gobblet Jr. positions: win or loss with the distance to the end in plies.

What "value" means here (as a solved game is usually defined): the game graph is played
without the repetition rule.  A position is a win in ``d`` when the side to move can force a
line within ``d`` plies (its own move counts as ply 1) and not sooner; a loss in ``d`` when the
opponent can force one within ``d`` plies however the side to move defends, ``d`` being the
slowest such loss.  Positions neither side can force are draws: play can go on for ever, and
under the real rules a repetition would end it.

Wins and losses are proved by two bounded searches over canonical positions (``engine.gobblet.jr.model``):
``win(s, d)`` (some move forces a line within ``d`` plies) and ``lose(s, d)`` (every move lets
the opponent force one within ``d``).  Both are monotone in ``d``, so iterative deepening over
``d`` gives the exact distance, and their results are memoised per canonical position.  A draw
cannot be proved by a bounded search; ``JrValue.proven`` is False for it and ``horizon`` says
how far no forced result exists.

The exact table (``engine.gobblet.jr.exact``, solved backwards by ``engine.gobblet.jr.build`` and cached by
``engine.gobblet.jr.table``) holds every value, draws included: a solver given it answers from it, and
searches only where a partial table does not reach.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from . import model as jr

WIN = "win"
LOSS = "loss"
DRAW = "draw"
MAX_PLIES = 60


@dataclass(frozen=True)
class JrValue:
    """The value of a position for the side to move.

    ``result`` is WIN, LOSS or DRAW; ``plies`` the distance to the end under perfect play
    (fastest win, slowest loss), None for a draw; ``proven`` is True when the value is exact and
    False for a draw that is only known to hold for ``horizon`` plies (no forced line within)."""

    result: str
    plies: int | None = None
    proven: bool = True
    horizon: int = 0

    def after_move(self) -> "JrValue":
        """The value of the position before the move that led here, for the player who made
        it (win and loss swap, one more ply)."""
        if self.result == DRAW:
            return self
        flipped = LOSS if self.result == WIN else WIN
        return JrValue(flipped, (self.plies or 0) + 1, self.proven, self.horizon)

    def rank(self) -> tuple[int, int]:
        """Sort key, best for the side to move first: fast wins, draws, slow losses."""
        if self.result == WIN:
            return (0, self.plies or 0)
        if self.result == DRAW:
            return (1, 0)
        return (2, -(self.plies or 0))

    def text(self) -> str:
        """``win in 13``, ``loss in 4``, ``draw`` (``draw?`` when not proven)."""
        if self.result == DRAW:
            return "draw" if self.proven else "draw?"
        return f"{self.result} in {self.plies}"


class Timeout(Exception):
    """The solver ran out of its time."""


@dataclass(frozen=True)
class MoveValue:
    """A move (``(size, to, frm)``) with its value for the mover; ``optimal`` moves keep the
    position's value (same result and distance)."""

    move: tuple[int, int, int | None]
    value: JrValue | None  # None when not determined in time (and not optimal)
    optimal: bool


class ExactLookup(Protocol):
    """What the solver needs of an exact table (``engine.gobblet.jr.exact.ExactTable``)."""

    def covers(self, state: int) -> bool: ...

    def code(self, state: int) -> int | None: ...

    def value(self, state: int) -> JrValue | None: ...


class JrSolver:
    """Proves values by bounded search, remembering what it proved.  With an ``exact`` table
    (``engine.gobblet.jr.exact``) the positions it covers are answered from it, draws included; a
    ``table`` of canonical positions near the start (``{key: code}``, the horizon-limited table
    of ``engine.gobblet.jr.table``) only shortens the searches."""

    def __init__(self, table: Mapping[int, int] | None = None, table_horizon: int = 0,
                 exact: ExactLookup | None = None) -> None:
        self.table = table or {}
        self.table_horizon = table_horizon
        self.exact = exact
        self.win_no: dict[int, int] = {}  # key -> largest d with win(s, d) False
        self.win_yes: dict[int, int] = {}  # key -> smallest d with win(s, d) True
        self.lose_no: dict[int, int] = {}
        self.lose_yes: dict[int, int] = {}
        self.nodes = 0
        self._deadline: float | None = None

    # ------------------------------------------------------------------ bounded proofs
    def win(self, s: int, d: int) -> bool:
        """True when the side to move in ``s`` can force a line within ``d`` plies."""
        self._count()
        ch = jr.children(s)
        for _, _, r in ch:
            if r == jr.WINS:
                return True
        if d < 2:
            return False
        exact = self._exact_code(s)
        if exact is not None:
            return 0 < exact <= d
        k = jr.canonical(s)
        code = self.table.get(k)
        if code is not None:
            known = _known(code, self.table_horizon, d)
            if known is not None:
                return known[0] == WIN
        if self.win_no.get(k, 0) >= d:
            return False
        y = self.win_yes.get(k)
        if y is not None and y <= d:
            return True
        cand = [c for _, c, r in ch if r == jr.ONGOING]
        if d >= 4:
            cand.sort(key=_threats, reverse=True)
        for c in cand:
            if self.lose(c, d - 1):
                if y is None or d < y:
                    self.win_yes[k] = d
                return True
        self.win_no[k] = d
        return False

    def lose(self, s: int, d: int) -> bool:
        """True when every move in ``s`` lets the opponent force a line within ``d`` plies
        (the move itself counting as the first)."""
        self._count()
        ch = jr.children(s)
        for _, _, r in ch:
            if r == jr.WINS:
                return False
        if d < 2:
            return all(r == jr.LOSES for _, _, r in ch)
        exact = self._exact_code(s)
        if exact is not None:
            return 128 < exact <= 128 + d
        k = jr.canonical(s)
        code = self.table.get(k)
        if code is not None:
            known = _known(code, self.table_horizon, d)
            if known is not None:
                return known[0] == LOSS
        if self.lose_no.get(k, 0) >= d:
            return False
        y = self.lose_yes.get(k)
        if y is not None and y <= d:
            return True
        cand = [c for _, c, r in ch if r == jr.ONGOING]
        if d >= 4:
            cand.sort(key=_threats, reverse=True)
        for c in cand:
            if not self.win(c, d - 1):
                self.lose_no[k] = d
                return False
        if y is None or d < y:
            self.lose_yes[k] = d
        return True

    def _exact_code(self, s: int) -> int | None:
        if self.exact is None:
            return None
        return self.exact.code(s)

    def _count(self) -> None:
        self.nodes += 1
        if self._deadline is not None and self.nodes & 1023 == 0 and time.perf_counter() > self._deadline:
            raise Timeout

    def clear_if_larger(self, entries: int) -> None:
        """Forget what was proved when the memo holds more than ``entries`` positions."""
        if len(self.win_no) + len(self.lose_no) > entries:
            self.win_no.clear()
            self.win_yes.clear()
            self.lose_no.clear()
            self.lose_yes.clear()

    # ------------------------------------------------------------------ values
    def value(self, s: int, seconds: float | None = None, max_plies: int = MAX_PLIES) -> JrValue:
        """The value of ``s`` for its side to move.  Stops at ``max_plies`` or after
        ``seconds``, returning an unproven draw with the horizon reached."""
        mine, theirs = jr.tops(s)
        if jr.has_line(theirs):
            return JrValue(LOSS, 0)
        if jr.has_line(mine):
            return JrValue(WIN, 0)
        if self.exact is not None:
            known = self.exact.value(s)
            if known is not None:
                self.nodes += 1
                return known
        code = self.table.get(jr.canonical(s))
        if code is not None and code != 0:
            return decode(code)
        old = self._deadline
        if seconds is not None:
            self._deadline = time.perf_counter() + seconds
        horizon = 0
        try:
            for d in range(1, max_plies + 1):
                if self.win(s, d):
                    return JrValue(WIN, d)
                if self.lose(s, d):
                    return JrValue(LOSS, d)
                horizon = d
        except Timeout:
            pass
        finally:
            self._deadline = old
        return JrValue(DRAW, None, False, horizon)

    def analyse(self, s: int, seconds: float = 1.0) -> tuple[JrValue, list[MoveValue]]:
        """The value of ``s`` and of every move, optimal moves first, within about
        ``seconds`` (the root value gets most of the time)."""
        if self.exact is not None and self.exact.covers(s):
            return self._exact_analysis(s)
        start = time.perf_counter()
        root = self.value(s, seconds * 0.6)
        out: list[MoveValue] = []
        for move, child, result in jr.children(s):
            if result == jr.WINS:
                v = JrValue(WIN, 1)
                out.append(MoveValue(move, v, root.result == WIN and root.plies == 1))
                continue
            if result == jr.LOSES:
                v = JrValue(LOSS, 1)
                out.append(MoveValue(move, v, root.result == LOSS and root.plies == 1))
                continue
            left = max(0.0, seconds - (time.perf_counter() - start))
            out.append(self._move_value(move, child, root, left / 2 + 0.01))
        out.sort(key=lambda mv: (not mv.optimal, mv.value.rank() if mv.value else (3, 0)))
        return root, out

    def _exact_analysis(self, s: int) -> tuple[JrValue, list[MoveValue]]:
        """Every value from the exact table (which covers the children of what it covers)."""
        assert self.exact is not None
        root = self.value(s)
        out = []
        for move, child, result in jr.children(s):
            if result == jr.WINS:
                v = JrValue(WIN, 1)
            elif result == jr.LOSES:
                v = JrValue(LOSS, 1)
            else:
                known = self.exact.value(child)
                assert known is not None
                self.nodes += 1
                v = known.after_move()
            out.append(MoveValue(move, v, v == root))
        out.sort(key=lambda mv: (not mv.optimal, mv.value.rank() if mv.value else (3, 0)))
        return root, out

    def _move_value(self, move, child: int, root: JrValue, seconds: float) -> MoveValue:
        old = self._deadline
        self._deadline = time.perf_counter() + seconds
        try:
            if root.result == WIN and root.proven:
                assert root.plies is not None
                if self.lose(child, root.plies - 1):
                    return MoveValue(move, root, True)
            elif root.result == LOSS:
                assert root.plies is not None
                for k in range(1, root.plies):
                    if self.win(child, k):
                        v = JrValue(WIN, k).after_move()
                        return MoveValue(move, v, v == root)
            self._deadline = old
            v = self.value(child, seconds).after_move()
            keeps = root.result == DRAW and v.result == DRAW
            return MoveValue(move, v, keeps)
        except Timeout:
            return MoveValue(move, None, False)
        finally:
            self._deadline = old


def _threats(c: int) -> int:
    """Ordering key for a child position: how many lines the player who just moved has two
    tops in, with the third square free of the opponent's largest piece."""
    m1, m2, m3 = c >> 27 & 511, c >> 36 & 511, c >> 45 & 511
    o2, o3 = c >> 9 & 511, c >> 18 & 511
    big = m3 | o3
    mid = (m2 | o2) & ~big
    mine = m3 | (m2 & ~big) | (m1 & ~big & ~mid)
    n = 0
    for line in jr.LINES:
        x = mine & line
        if x != line and x & (x - 1) and not (line & ~x & o3):
            n += 1
    return n


# ------------------------------------------------------------------ value codes
def encode(value: JrValue) -> int:
    """A value as one byte: 0 no forced result (within the table's horizon), 1-127 win in
    that many plies, 128 + d loss in d plies."""
    if value.result == DRAW:
        return 0
    assert value.plies is not None and 0 <= value.plies < 128
    return value.plies if value.result == WIN else 128 + value.plies


def decode(code: int) -> JrValue:
    """The value of a byte from ``encode`` (0 gives an unproven draw)."""
    if code == 0:
        return JrValue(DRAW, None, False)
    if code < 128:
        return JrValue(WIN, code)
    return JrValue(LOSS, code - 128)


def _known(code: int, horizon: int, d: int) -> tuple[str, int] | None:
    """What a table code says about "forced result within d plies": (result, plies) or
    (DRAW, 0) when nothing is forced within d; None when the table cannot say."""
    if code == 0:
        return (DRAW, 0) if d <= horizon else None
    v = decode(code)
    assert v.plies is not None
    return (v.result, v.plies) if v.plies <= d else (DRAW, 0)
