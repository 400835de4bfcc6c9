"""Scripted stress of the live referee's tracker: random legal games played to the real
``Tracker`` as streams of ``Observation`` values, spoiled the ways a camera spoils them, with
players who answer the phone with the truth.  Shared by ``tests/test_tracker_stress.py``
(hypothesis, a few small examples) and ``bench/tracker_stress.py`` (big runs).

A script is a random legal game and the camera's faults over it (``Spoil``): a square
unreadable (below the tracker's ``min_confidence``) or read with low confidence, a size one
off, a colour flipped (plainly or faintly), a cup read as gone, each for a while or for good;
plus two moves made under one hand visit (no still board between them), hands that only
hover, a hand also over other squares, and the mover lifting the cup before carrying it on.

Each move is a hand over the square it leaves (the board as before), then over the square it
lands on (as after), then ``STILL`` still frames.  After each still board the players look at
the phone, as ``bench/referee.py``'s players do: a question with the move made among its
candidates is confirmed (*asked*), one without it dismissed and the move tapped in
(*asked without it*); a square in doubt is answered truthfully; an alert while a move made is
not on the record is a *false alarm* (the move is tapped in); a move still missing at the end
with nothing on the phone is *missed* and its game *stalled*.  A commit of moves the script
did not make is a *wrong commit*: the players take it back when they next look.

Nothing is rendered: the tracker's judgement is all that is under test."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine import variant
from engine.gobblet import Board, Move
from engine.gobblet.notation import format_moves
from vision.observation import CUP, EMPTY, OCCLUDED, Observation, SquareReading
from vision.tracking import Ambiguous, Explained, HiddenMismatch, Tracker, TrackerConfig, TrackEvent

# the games and the size class -> logical size of their usual piece sets
GAMES = {"gobblet": (1, 2, 3, 4), "gobblet-jr": (1, 2, 3), "storer": (None, 1, 2, 3, 4)}
KINDS = ("unreadable", "faint", "size", "colour", "colour-faint", "gone")
STILL = 8  # still frames after each hand visit
HAND = 2  # frames a hand is over each square a move changes
PLAIN = 0.95  # a plain reading's confidence
FAINT = 0.65  # readable, below the tracker's commit confidence
UNREAD = 0.3  # below its min_confidence: the square counts as hidden
ALERTS = ("illegal", "disagrees", "hidden-mismatch", "behind", "touch-move", "touch-opponent")
QUESTIONS = ("pending", "ambiguous", "hidden-mismatch")
FOR_GOOD = 10**6


@dataclass(frozen=True)
class Spoil:
    """How the camera reads ``square`` while plies ``first`` to ``last`` (inclusive) are on
    the board: ``kind`` is one of ``KINDS``; ``delta`` the size error of a ``size`` spoil."""

    kind: str
    square: int
    first: int
    last: int = FOR_GOOD
    delta: int = -1


@dataclass(frozen=True)
class Script:
    """A random legal game (``moves``, texts) and what the camera and the hands do over it.
    ``quick``: plies k whose move and the next are made under one hand visit; ``hovers``:
    plies after which a hand comes and goes over a square without moving anything;
    ``lifts``: plies whose board move's cup is lifted and held before it lands; ``extra``:
    per ply, a square a hand also passes over."""

    game: str
    moves: tuple[str, ...]
    spoils: tuple[Spoil, ...] = ()
    quick: frozenset[int] = frozenset()
    hovers: frozenset[int] = frozenset()
    lifts: frozenset[int] = frozenset()
    extra: tuple[tuple[int, int], ...] = ()


@dataclass
class Tally:
    """What the tracker did over scripts, per game set."""

    games: int = 0
    moves: int = 0
    alone: int = 0  # committed by the tracker alone, right
    asked: int = 0  # asked with the move among the candidates
    asked_without: int = 0  # asked without it (dismissed, tapped in)
    false_alarms: int = 0  # an alert while the move made was legal (tapped in)
    missed: int = 0  # never recorded, nothing on the phone
    stalled: int = 0  # games with a missed move
    wrong: int = 0  # commits of moves the script did not make
    fooled: int = 0  # ... that the camera showed plainly, and questions without the move so (``Run.shows``)
    alerts: int = 0  # every alert event (all moves are legal: each is false)
    doubts: int = 0  # squares in doubt answered
    notes: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        """Add ``other``'s figures to these."""
        for name in ("games", "moves", "alone", "asked", "asked_without", "false_alarms", "missed", "stalled",
                     "wrong", "fooled", "alerts", "doubts"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.notes += other.notes


def random_script(game: str, rng: random.Random, plies: int = 12, spoils: int = 1, quick: float = 0.15,
                  hover: float = 0.1, lift: float = 0.2, extra: float = 0.1) -> Script:
    """A random legal game of at most ``plies`` moves (it stops at a result) and ``spoils``
    random camera faults over it, with quick pairs, hovers, lifts and extra hands at the
    given chances per ply."""
    board = Board(variant(game))
    moves: list[str] = []
    while len(moves) < plies and board.outcome() is None:
        move = rng.choice(list(board.legal_moves()))
        moves.append(board.move_text(move))
        board.push(move)
    n, squares = len(moves), board.rules.squares
    faults = []
    for _ in range(spoils):
        first = rng.randint(1, max(1, n))
        last = FOR_GOOD if rng.random() < 0.5 else first + rng.randint(0, 3)
        faults.append(Spoil(rng.choice(KINDS), rng.randrange(squares), first, last, rng.choice((-1, 1))))
    return Script(
        game, tuple(moves), tuple(faults),
        frozenset(k for k in range(1, n) if rng.random() < quick),
        frozenset(k for k in range(1, n + 1) if rng.random() < hover),
        frozenset(k for k in range(1, n + 1) if rng.random() < lift),
        tuple((k, rng.randrange(squares)) for k in range(1, n + 1) if rng.random() < extra),
    )


def spoiled(board: Board, ply: int, spoils: Sequence[Spoil]) -> list[tuple[object, float]]:
    """Per square, the label and confidence the camera gives ``board`` (the truth after
    ``ply`` moves) under ``spoils``."""
    out: list[tuple[object, float]] = [(board.top(sq), PLAIN) for sq in range(board.rules.squares)]
    for s in spoils:
        if not s.first <= ply <= s.last or s.square >= len(out):
            continue
        label, _ = out[s.square]
        stack = board.stack(s.square)
        if s.kind == "unreadable":
            out[s.square] = (label, UNREAD)
        elif s.kind == "faint":
            out[s.square] = (label, FAINT)
        elif s.kind == "size" and isinstance(label, tuple) and 1 <= label[1] + s.delta <= board.rules.sizes:
            out[s.square] = ((label[0], label[1] + s.delta), PLAIN)
        elif s.kind in ("colour", "colour-faint") and isinstance(label, tuple):
            out[s.square] = ((1 - label[0], label[1]), PLAIN if s.kind == "colour" else FAINT)
        elif s.kind == "gone" and stack:
            out[s.square] = (stack[-2] if len(stack) > 1 else None, PLAIN)
    return out


def observation(readings: Sequence[tuple[object, float]], sizes: Sequence[int | None],
                hand: Sequence[int] = ()) -> Observation:
    """The observation that reads ``readings`` (engine labels), with a hand over ``hand``."""
    size_class = {size: k for k, size in enumerate(sizes) if size is not None}
    squares = []
    for sq, (label, conf) in enumerate(readings):
        if sq in hand:
            squares.append(SquareReading(OCCLUDED, confidence=0.0))
        elif label is None:
            squares.append(SquareReading(EMPTY, confidence=conf))
        else:
            squares.append(SquareReading(CUP, label[0], size_class[label[1]], conf))  # type: ignore[index]
    return Observation(tuple(squares), True, (0, 1, 2, 3), hand=bool(hand))


class Run:
    """One script played to a fresh tracker, the players answering; its ``tally``."""

    def __init__(self, script: Script, config: TrackerConfig | None = None) -> None:
        self.script = script
        self.rules = variant(script.game)
        self.sizes = GAMES[script.game]
        self.tracker = Tracker(self.sizes, config)
        self.record = Board(self.rules)  # the game as the phone shows it
        self.truths = [Board(self.rules)]  # the game on the table after each ply
        for text in script.moves:
            self.truths.append(self.truths[-1].copy())
            self.truths[-1].push(self.truths[-1].parse_move(text))
        self.made = 0  # moves made on the table so far
        self.t = 0.0
        self.pending: list[tuple[Move, ...]] | None = None
        self.problems: list[TrackEvent] = []  # alerts since the players last looked
        self.how: dict[int, str] = {}
        self.tally = Tally(games=1, moves=len(script.moves))
        self.last_labels: list | None = None
        self.readings: list[tuple[object, float]] = []  # the last frame's, per square
        self.hands: set[int] = set()  # squares a hand was over or that changed since the record did
        self.violations: list[str] = []  # broken invariants, in words

    # ------------------------------------------------------------------ frames
    def frame(self, ply: int, hand: Sequence[int] = (), lifted: int | None = None) -> None:
        """One frame of the truth after ``ply`` moves, a hand over ``hand``; the top of
        ``lifted`` in the air (its square showing what lies beneath)."""
        shown = self.truths[ply]
        readings = spoiled(shown, ply, self.script.spoils)
        if lifted is not None:
            stack = shown.stack(lifted)
            readings[lifted] = (stack[-2] if len(stack) > 1 else None, PLAIN)
        labels = [r[0] for r in readings]
        touched = [sq for sq, label in enumerate(labels) if self.last_labels is not None
                   and label != self.last_labels[sq]] if hand else []
        self.last_labels = labels
        self.readings = readings
        self.hands.update(hand, touched)
        self.t += 0.1
        if self.record.outcome() is not None:
            return
        events = self.tracker.update(self.record, observation(readings, self.sizes, hand), self.t,
                                     motion=bool(hand), touched=touched)
        for event in events:
            self.act(event)

    def act(self, event: TrackEvent) -> None:
        """What the referee does with a tracker event (``companion.referee.Referee._act``)."""
        if event.kind == "moves":
            moves = event.verdict.moves
            ply = self.record.ply
            made = tuple(self.truths[self.made].move_stack[ply: ply + len(moves)])
            self.pending = None
            if moves != made:
                what = (f"wrong commit at ply {ply}: {event.text} (made "
                        f"{' '.join(self.script.moves[ply: ply + len(moves)]) or 'nothing'})")
                if self.shows(moves):
                    self.tally.fooled += 1
                    self.tally.notes.append(f"{self.script.game}: fooled: {what}")
                else:
                    self.tally.wrong += 1
                    self.violations.append(what)
            for move in moves:
                self.how[self.record.ply] = "alone"
                self.push(move)
        elif event.kind in ("pending", "ambiguous", "hidden-mismatch"):
            v = event.verdict
            if isinstance(v, Explained):
                self.pending = [v.moves]
            elif isinstance(v, Ambiguous):
                self.pending = [c.moves for c in v.candidates]
            elif isinstance(v, HiddenMismatch):
                self.pending = [(v.move,)]
            self.problems.append(event)
        elif event.kind == "restored":
            self.pending = None
        if event.kind in ALERTS:
            self.tally.alerts += 1
            self.problems.append(event)
            self.tally.notes.append(f"{self.script.game} ply {self.record.ply}: {event.kind}: {event.text}")

    def push(self, move: Move) -> None:
        """``move`` goes on the record."""
        self.record.push(move)
        self.hands = set()

    def shows(self, moves: Sequence[Move]) -> bool:
        """True when the camera plainly shows ``moves`` made instead of what was: every square
        reads with the commit confidence as the record after them, and every square they
        change had a hand over it or changed in the picture (a camera fault the tracker cannot
        tell from a move)."""
        after = self.record.copy()
        for move in moves:
            after.push(move)
        changed = {s for m in moves for s in (m.to, m.frm) if s is not None}
        return changed <= self.hands and all(
            conf >= self.tracker.config.commit_confidence and label == after.top(sq)
            for sq, (label, conf) in enumerate(self.readings))

    def still(self, ply: int, frames: int = STILL) -> None:
        """``frames`` still frames of the truth after ``ply`` moves."""
        for _ in range(frames):
            self.frame(ply)

    def move(self, ply: int) -> None:
        """The hand making move ``ply`` (1-based): over the square it leaves with the board as
        before, over the square it lands on with the board as after."""
        move = self.truth_move(ply)
        extra = tuple(sq for k, sq in self.script.extra if k == ply)
        if move.frm is not None:
            for _ in range(HAND):
                self.frame(ply - 1, (move.frm,) + extra)
            if ply in self.script.lifts:  # held over where it lands, its square showing beneath
                for _ in range(5):
                    self.frame(ply - 1, (move.to,), lifted=move.frm)
        self.made = ply
        for _ in range(HAND):
            self.frame(ply, (move.to,) + extra)

    def truth_move(self, ply: int) -> Move:
        return self.truths[ply].move_stack[ply - 1]

    # ------------------------------------------------------------------ players
    def look(self, k: int, final: bool = False) -> None:
        """The players look at the phone with the script's first ``k`` moves on the table."""
        truth = self.truths[k]
        self.take_back_wrong()
        for _ in range(4):
            doubts = self.tracker.open_doubts(self.record)
            if self.pending is None and not doubts:
                break
            self.still(k, 20)  # reading the phone
            if self.pending is not None and self.record.ply < k:
                self.answer(k)
            elif self.pending is not None:
                self.pending = None  # a question about nothing the players did
            for doubt in self.tracker.open_doubts(self.record):
                right = truth.stack(doubt.square) == self.record.stack(doubt.square)
                self.tracker.answer_doubt(doubt.square, right)
                self.tally.doubts += 1
            self.still(k, 10)
        ply = self.record.ply
        if ply < k and (self.problems or final):
            kind = "false-alarm" if self.problems else "missed"
            if not self.problems:
                self.tally.stalled = 1
                self.violations.append(f"missed {' '.join(self.script.moves[ply:k])} at the end")
            else:
                self.violations.append(f"false alarm at ply {ply} ({self.problems[-1].kind}: "
                                       f"{self.problems[-1].text}; made {' '.join(self.script.moves[ply:k])})")
            self.pending = None
            for p in range(ply, k):
                self.how[p] = kind
                self.push(truth.move_stack[p])
            if not final:
                self.still(k, 10)
        self.problems = []

    def take_back_wrong(self) -> None:
        """Take back the moves on the record that were not made (a wrong commit)."""
        good = 0
        stack = self.record.move_stack
        made = self.truths[self.made].move_stack
        while good < len(stack) and good < len(made) and stack[good] == made[good]:
            good += 1
        while self.record.ply > good:
            self.record.pop()
            self.how.pop(self.record.ply, None)
        self.pending = None if good < len(stack) else self.pending

    def answer(self, k: int) -> None:
        """Confirm the candidate that is the moves made, or dismiss and tap them in."""
        ply = self.record.ply
        truth = self.truths[k]
        made = tuple(truth.move_stack[ply:k])
        assert self.pending is not None
        for moves in self.pending:
            if moves and moves == made[: len(moves)]:
                for move in moves:
                    self.how[self.record.ply] = "asked"
                    self.push(move)
                self.pending = None
                return
        texts = " or ".join(" ".join(format_moves(self.record.copy(), c)) for c in self.pending)
        what = f"asked without the move at ply {ply}: {texts} (made {' '.join(self.script.moves[ply:k])})"
        fooled = any(self.shows(c) for c in self.pending)
        if fooled:
            self.tally.notes.append(f"{self.script.game}: fooled: {what}")
        else:
            self.violations.append(what)
        self.pending = None
        for p in range(ply, k):
            self.how[p] = "asked-fooled" if fooled else "asked-without"
            self.push(truth.move_stack[p])

    # ------------------------------------------------------------------ the game
    def play(self) -> Tally:
        """Play the whole script; its tally."""
        s = self.script
        n = len(s.moves)
        self.still(0)
        k = 0
        while k < n:
            self.look(k)
            self.move(k + 1)
            k += 1
            if k in s.quick and k < n:
                self.move(k + 1)
                k += 1
            self.still(k)
            if k in s.hovers:
                sq = k % self.rules.squares
                for _ in range(HAND * 2):
                    self.frame(k, (sq,))
                self.still(k)
            if self.record.outcome() is not None:
                break
        self.look(k, final=True)
        t = self.tally
        for p in range(len(self.record.move_stack)):
            how = self.how.get(p, "missed")
            t.alone += how == "alone"
            t.asked += how == "asked"
            t.asked_without += how == "asked-without"
            t.fooled += how == "asked-fooled"
            t.false_alarms += how == "false-alarm"
            t.missed += how == "missed"
        t.notes += [f"{s.game} {' '.join(s.moves)} {s.spoils}: {v}" for v in self.violations]
        return t
