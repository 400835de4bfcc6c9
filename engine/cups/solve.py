"""Counting moves (perft), exact values, and a depth-limited search for Cups.

Exact values.  The value of a position is the final bowl difference (side to move minus the
other) under perfect play.  The game has no cycles: a drop takes at least one bean out of a
stock, a sow puts one into a bowl, and a forced pass is followed by a move or ends the game (two
passes in a row), so ordering positions by (beans in stocks, beans outside bowls) every move goes
strictly down, and a memoised negamax over the positions below is exact.  ``ExactSolver`` proves
values with an alpha-beta search over a table of bounds (``kernel.prove``, MTD(f) windows) on a
packed position key; it applies when the key fits in 63 bits (X = 3 or 4 with up to 63 beans a
player; X = 5 with up to 31...).  Everything else, and exact searches that do not finish in their
time, fall back to ``search_moves``: iterative-deepening alpha-beta with an evaluation, which
says how deep it looked and whether its answer is proven (no line cut by the depth).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import kernel
from .game import CupsGame, CupsMove
from .rules import CupsRules

# nodes per second of the compiled searches on this machine (measured by bench/cups.py,
# rounded down), used to turn a time limit into a node budget the compiled code can check
PROVE_RATE = 1_500_000
SEARCH_RATE = 3_000_000
MAX_LOG2 = 27
GUESS_DEPTH = 6


def perft(game: CupsGame, depth: int) -> int:
    """The number of move sequences of ``depth`` moves from ``game`` (passes count as moves;
    a game that ends earlier contributes nothing)."""
    if depth == 0:
        return 1
    moves = game.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        game._play(move)
        total += perft(game, depth - 1)
        game.pop()
    return total


def key_width(rules: CupsRules) -> int | None:
    """Bits per field of the packed key, or None when a position of these rules does not fit."""
    w = max(rules.beans.bit_length(), 1)
    return w if w * (2 * rules.cups + 2) <= 63 else None


def pack(game: CupsGame, w: int) -> int:
    """The packed key of ``game`` seen from the side to move (see ``kernel``)."""
    me, opp = game.turn, 1 - game.turn
    fields = [*game.cups[me], *game.cups[opp], game.stocks[me], game.stocks[opp]]
    key = 0
    for i, v in enumerate(fields):
        key |= v << (i * w)
    return key


@dataclass(frozen=True)
class MoveValue:
    """A move with its value for the side that plays it: the final bowl difference (exact) or a
    search score in beans (``proven`` False: an estimate from ``depth`` plies)."""

    move: CupsMove
    value: float
    gain: int  # beans the move itself puts into the mover's bowl
    exact: bool


@dataclass(frozen=True)
class SearchResult:
    """Ranked moves (best first) with how they were found."""

    moves: tuple[MoveValue, ...]
    exact: bool
    depth: int  # plies searched (0 for exact answers)
    nodes: int
    seconds: float


class ExactSolver:
    """Exact values of the positions of one rule set, with a table kept between questions."""

    def __init__(self, rules: CupsRules, log2_capacity: int = 20, max_log2: int = MAX_LOG2) -> None:
        w = key_width(rules)
        if w is None:
            raise ValueError(f"{rules.token}: positions do not fit the exact solver's key")
        self.rules = rules
        self.w = w
        self.max_log2 = max_log2
        self.keys = np.zeros(1 << log2_capacity, dtype=np.int64)
        self.bounds = np.zeros(1 << log2_capacity, dtype=np.int32)
        self.stats = np.zeros(kernel.STATS_SIZE, dtype=np.int64)

    @property
    def entries(self) -> int:
        """How many positions the table holds bounds for."""
        return int(self.stats[kernel.STATS_FILLED])

    @property
    def nbytes(self) -> int:
        """Memory of the table in bytes."""
        return self.keys.nbytes + self.bounds.nbytes

    def _grow(self) -> None:
        """Double the table (up to 2**MAX_LOG2 slots) when it refused entries."""
        if self.stats[kernel.STATS_DROPPED] == 0 or self.keys.shape[0] >= 1 << self.max_log2:
            return
        keys = np.zeros(self.keys.shape[0] * 2, dtype=np.int64)
        bounds = np.zeros(self.keys.shape[0] * 2, dtype=np.int32)
        kernel.rehash(self.keys, self.bounds, keys, bounds)
        self.keys, self.bounds = keys, bounds
        self.stats[kernel.STATS_DROPPED] = 0

    def value_of_key(self, key: int, budget: int = 0, guess: int = 0) -> int | None:
        """The exact future value of a packed key for its mover (None if over ``budget`` nodes;
        0 = no limit), found by null-window searches (MTD(f)) from ``guess``."""
        rules = self.rules
        lo, hi, g = -10_000, 10_000, guess
        spent = 0
        while lo < hi:
            beta = g + 1 if g == lo else g
            if budget and spent >= budget:
                return None
            start = int(self.stats[kernel.STATS_NODES])
            self.stats[kernel.STATS_BUDGET] = start + (budget - spent) if budget else 0
            self.stats[kernel.STATS_ABORTED] = 0
            result = kernel.prove(key, beta - 1, beta, rules.cups, self.w, int(rules.count_left),
                                  self.keys, self.bounds, self.stats)
            spent += int(self.stats[kernel.STATS_NODES]) - start
            aborted = int(self.stats[kernel.STATS_ABORTED])
            self.stats[kernel.STATS_ABORTED] = 0
            if aborted == 2 and self.keys.shape[0] < 1 << self.max_log2:
                self._grow()  # the table was full: ask the same window again with a bigger one
                continue
            if aborted:
                self._grow()
                return None
            g = result
            if g < beta:
                hi = g
            else:
                lo = g
        self._grow()
        return g

    def value(self, game: CupsGame, budget: int = 0) -> int | None:
        """The final bowl difference for the side to move under perfect play (None if over
        ``budget`` nodes)."""
        future = self.value_of_key(pack(game, self.w), budget)
        if future is None:
            return None
        return future + game.bowls[game.turn] - game.bowls[1 - game.turn]

    def move_values(self, game: CupsGame, budget: int = 0) -> list[MoveValue] | None:
        """Every legal move with its exact value for the mover, best first (None if over
        ``budget`` nodes in all)."""
        me = game.turn
        out = []
        # guesses from a shallow search start each MTD(f) near its answer: every null-window
        # pass only moves the bound a little, so a guess 16 beans off costs ~16 passes
        guesses = {mv.move: mv.value for mv in search_moves(game, fixed_depth=GUESS_DEPTH).moves}
        for move in game.legal_moves():
            before = game.bowls[me]
            game._play(move)
            gain = game.bowls[me] - before
            try:
                if game.is_over():
                    v = _final_difference(game, me)
                else:
                    spent = int(self.stats[kernel.STATS_NODES])
                    own = game.bowls[me] - game.bowls[1 - me]
                    guess = round(guesses.get(move, own) - own)
                    child = self.value_of_key(pack(game, self.w), budget,
                                              guess if game.turn == me else -guess)
                    if child is None:
                        return None
                    if budget:
                        budget = max(1, budget - (int(self.stats[kernel.STATS_NODES]) - spent))
                    # the child's value is the opponent's (or ours again after their pass)
                    mover_next = game.turn
                    own = game.bowls[me] - game.bowls[1 - me]
                    v = own + (child if mover_next == me else -child)
            finally:
                game.pop()
            out.append(MoveValue(move, v, gain, True))
        out.sort(key=lambda mv: -mv.value)
        return out

    def save(self, path: Path) -> None:
        """Write the table (keys and bounds) to ``path`` (.npz), atomically: a reader never
        sees half a table (a server's hints load it while it is prepared in the background)."""
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as f:
            np.savez(f, keys=self.keys, bounds=self.bounds, token=self.rules.token,
                     filled=self.stats[kernel.STATS_FILLED], format=kernel.FORMAT)
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path, rules: CupsRules) -> "ExactSolver":
        """A solver whose table is read from ``path`` (written by ``save`` for ``rules``)."""
        data = np.load(path)
        made = int(data["format"]) if "format" in data.files else 1
        if made != kernel.FORMAT:
            raise ValueError(f"{path}: a table in an older layout ({made}, now {kernel.FORMAT}); prepare it again")
        if str(data["token"]) != rules.token:
            raise ValueError(f"{path}: a table for {data['token']}, not {rules.token}")
        solver = cls(rules, 1)
        solver.keys = np.array(data["keys"])
        solver.bounds = np.array(data["bounds"])
        solver.stats[kernel.STATS_FILLED] = int(data["filled"])
        return solver


def _final_difference(game: CupsGame, player: int) -> int:
    scores = game.scores()
    return scores[player] - scores[1 - player]


# the evaluation's weights, beans per unit of each of ``kernel.features``' terms (sowable cups,
# beans in blocked cups, my best capture, theirs, stocks, beans in the other cups, the move in
# hand), fitted to exact values of 4-cup positions with at most 20 stock beans so that they rank
# sibling positions (``bench/cups.py --fit``); ``kernel.SIMPLE_WEIGHTS`` was the first, hand-made
# evaluation
WEIGHTS = np.array([1.22, -0.36, 0.4, -0.23, 0.37, 0.17, 0.19])


@dataclass
class SearchMemo:
    """The depth-limited search's transposition table (``kernel.search``): kept between the
    depths of one iterative deepening, and between searches of one game if the caller keeps it."""

    keys: np.ndarray
    info: np.ndarray

    @classmethod
    def new(cls, log2_size: int = 20) -> "SearchMemo":
        """An empty table of 2**log2_size entries (16 bytes each)."""
        return cls(np.zeros(1 << log2_size, dtype=np.int64), np.zeros(1 << log2_size, dtype=np.int64))


ASPIRATION = 2 * kernel.UNIT  # half-width of the window around last depth's score of a move


def _root_child(game: CupsGame, me: int, depth: int, guess: int | None, stats: np.ndarray,
                weights: np.ndarray, memo: "SearchMemo") -> int:
    """The score (quarter beans, for ``me``) of the position after one of ``me``'s moves,
    searched ``depth`` plies: first in a narrow window around ``guess`` (last depth's score),
    again with an open one if the score falls outside it."""
    cups = np.array(game.cups, dtype=np.int64)
    stocks = np.array(game.stocks, dtype=np.int64)
    sign = 1 if game.turn == me else -1
    args = (int(game.rules.count_left), stats, weights, memo.keys, memo.info)
    if guess is not None:
        lo, hi = guess - ASPIRATION, guess + ASPIRATION
        a, b = (lo, hi) if sign == 1 else (-hi, -lo)
        horizon = stats[kernel.STATS_HORIZON]
        v = sign * kernel.search(cups, stocks, game.turn, game.rules.cups, depth, a, b, *args)
        if lo < v < hi or stats[kernel.STATS_ABORTED]:
            return v
        stats[kernel.STATS_HORIZON] = horizon  # the open search below says it again
    return sign * kernel.search(cups, stocks, game.turn, game.rules.cups, depth, -(1 << 40), 1 << 40, *args)


def search_moves(game: CupsGame, seconds: float = 1.0, max_depth: int = 200,
                 fixed_depth: int | None = None, weights: np.ndarray | None = None,
                 memo: SearchMemo | None = None) -> SearchResult:
    """Iterative-deepening alpha-beta: every legal move scored (in beans, for the mover) at the
    deepest depth finished within ``seconds`` (or at ``fixed_depth``); ``exact`` when no line
    was cut by the depth.  ``weights`` chooses the evaluation (default ``WEIGHTS``); ``memo``
    the transposition table (default a fresh one)."""
    start = time.perf_counter()
    weights = WEIGHTS if weights is None else np.asarray(weights, dtype=np.float64)
    memo = SearchMemo.new() if memo is None else memo
    rules = game.rules
    me = game.turn
    moves = game.legal_moves()
    stats = np.zeros(kernel.SEARCH_STATS_SIZE, dtype=np.int64)
    best: list[MoveValue] = []
    depth_done = 0
    exact = False
    nodes = 0
    depths = [fixed_depth] if fixed_depth is not None else range(1, max_depth + 1)
    previous: dict[CupsMove, int] = {}  # last depth's score of each move, quarter beans
    took: list[float] = []  # seconds each depth took
    for depth in depths:
        elapsed = time.perf_counter() - start
        if fixed_depth is None and best:
            # each depth costs a few times the one before: do not start one that cannot finish
            growth = max(2.0, took[-1] / took[-2]) if len(took) >= 2 and took[-2] > 0 else 4.0
            if elapsed + took[-1] * growth > seconds:
                break
        began = time.perf_counter()
        budget = 0 if fixed_depth is not None else max(1000, int((seconds - elapsed) * SEARCH_RATE))
        scored = []
        scores: dict[CupsMove, int] = {}
        stats[kernel.STATS_HORIZON] = 0
        aborted = False
        # last depth's best first: its table entries then help the others
        for move in sorted(moves, key=lambda m: -previous.get(m, 0)):
            before = game.bowls[me]
            game._play(move)
            gain = game.bowls[me] - before
            try:
                stats[kernel.STATS_BUDGET] = stats[kernel.STATS_NODES] + budget if budget else 0
                stats[kernel.STATS_ABORTED] = 0
                if game.is_over():
                    v = kernel.UNIT * (_final_difference(game, me) - (game.bowls[me] - game.bowls[1 - me])) \
                        if rules.count_left else 0
                else:
                    v = _root_child(game, me, depth - 1, previous.get(move), stats, weights, memo)
                if stats[kernel.STATS_ABORTED]:
                    aborted = True
                    break
                scores[move] = v
                own = game.bowls[me] - game.bowls[1 - me]
                scored.append(MoveValue(move, own + v / kernel.UNIT, gain, False))
            finally:
                game.pop()
        nodes = int(stats[kernel.STATS_NODES])
        if aborted:
            break
        took.append(time.perf_counter() - began)
        previous = scores
        exact = bool(stats[kernel.STATS_HORIZON] == 0)
        best = sorted(scored, key=lambda mv: -mv.value)
        depth_done = depth
        if exact:
            best = [MoveValue(mv.move, mv.value, mv.gain, True) for mv in best]
            break
    return SearchResult(tuple(best), exact, depth_done, nodes, time.perf_counter() - start)

