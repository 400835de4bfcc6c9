"""From a stream of observations to the engine moves that explain them.

The tracker never trusts per-square labels on their own.  It waits for a *stable* state (the
board found, nothing moving over it, no square hidden, the same reading for ``settle_s``), then
asks which legal continuation of the known position — one move, or up to three made while a
hand hid the board — predicts exactly the tops it sees, using the engine's memory of hidden
pieces for what a lift reveals.  An explanation is committed only when the picture shows it:
every move leaves its cup on top where it landed, every square it changes had a hand over it
or changed in the picture since the last move, and the readings are confident; otherwise it
waits for a person.  A still board with too many squares read too faintly to judge is never
waited on in silence: when its faint readings fit a continuation whose changes a hand reached
(as read, else with the faint cups' colours in doubt, else with one cup a hand reached one size
off), that is put to the players (never committed on faint readings), and the lifts seen go
with that question.  So is a board the game explains unchanged but for a square a hand reached
that cannot be read, where that square's faint readings show a change
(``Tracker._faint_where_unread``: a cup put down that reads only faintly for good).  A square
read only faintly at a still board where no hand has been since its top was known, looking like
that top or its size in the other colour, keeps that look as that top's
(``Tracker._learn_looks``): while it shows that look it reads as the top (where a hand has been
since, as the top or whatever else looks alike, so a move from it is only
proposed and the accounts changing it are offered), and it no longer makes every later board
too faint to judge.  When nothing else explains the board, or what does needs a move on a
square that cannot be read, two moves in which the reply gobbled the cup just put down are an
account too, only ever proposed (that cup is never seen).  A hand over a square it cannot read may have put a cup
there unseen: an account that has that move first is asked about beside the one the picture
shows.  A cup read one size off where a hand was, making a legal move look illegal, is asked
about with that move, not alarmed; and offered beside a cup read gone, or beside accounts of
more moves, that the same picture fits (the move made must be among the candidates).  What it
cannot explain it reports: a hidden piece that is
not what memory says, a physical move that breaks a named rule, or plainly a board that
disagrees.
While a hand is seen over the board it watches for lifts (touch-move).  Deciding legality is the
engine's job; the tracker only proposes explanations.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from engine.gobblet import Board, Move
from engine.gobblet.notation import format_moves
from engine.gobblet.rules import COLOUR_NAMES

from .observation import CUP, OCCLUDED, Observation

# A square as the tracker sees it: None for empty, (colour, logical size), or one of these.
# (None, size) is a cup of that size whose colour is in doubt (a glossy top under a lamp).
UNKNOWN = "unknown"  # a cup whose size class plays no part in the rules in use
HIDDEN = "hidden"  # occluded, or too doubtful to use
Label = tuple[int, int] | tuple[None, int] | str | None | frozenset
# A frozenset of labels: a doubted square a hand reached, still showing its misread look: it
# holds the game's top, or whatever else looks the same (see Tracker._apply_doubts).


@dataclass(frozen=True)
class BoardView:
    """An observation in the engine's terms: a label and a confidence per square."""

    labels: tuple[Label, ...]
    confidences: tuple[float, ...]
    # what each square was read as, however doubtfully (HIDDEN only where occluded): a still
    # board too doubtful to judge is put to the players from these, never committed on them
    faint: tuple[Label, ...] | None = None

    @property
    def complete(self) -> bool:
        """True when every square was read."""
        return HIDDEN not in self.labels


def to_view(obs: Observation, logical_sizes: Sequence[int | None], min_confidence: float) -> BoardView:
    """Translate an observation (size classes from 0) into engine labels (sizes from 1);
    a reading below ``min_confidence`` counts as hidden (its label is kept in ``faint``)."""
    labels: list[Label] = []
    faint: list[Label] = []
    for r in obs.squares:
        if r.state == OCCLUDED:
            label: Label = HIDDEN
        elif r.state == CUP:
            size = logical_sizes[r.size] if r.size is not None and r.size < len(logical_sizes) else None
            label = (int(r.colour), size) if size is not None else UNKNOWN
        else:
            label = None
        faint.append(label)
        labels.append(HIDDEN if r.confidence < min_confidence else label)
    return BoardView(tuple(labels), tuple(r.confidence for r in obs.squares), tuple(faint))


def board_labels(board: Board) -> tuple[Label, ...]:
    """The tops of the engine's position, as labels."""
    return tuple(board.top(sq) for sq in range(board.rules.squares))


# ---------------------------------------------------------------------------- verdicts
@dataclass(frozen=True)
class Explained:
    """The stable board is the known position after ``moves`` (one, or two in quick play)."""

    moves: tuple[Move, ...]
    confidence: float


@dataclass(frozen=True)
class Ambiguous:
    """Several continuations explain the board equally well; a person must choose."""

    candidates: tuple[Explained, ...]


@dataclass(frozen=True)
class HiddenMismatch:
    """``move`` explains the board except what its lift revealed on ``square``."""

    move: Move
    square: int
    expected: Label
    seen: Label


@dataclass(frozen=True)
class IllegalPhysical:
    """The board shows a physical move the rules forbid: ``description`` and ``reason``."""

    description: str
    reason: str
    squares: tuple[int, ...]


@dataclass(frozen=True)
class Disagrees:
    """Nothing explains the board: the squares that differ, what was expected and seen."""

    squares: tuple[int, ...]
    expected: tuple[Label, ...]
    seen: tuple[Label, ...]


@dataclass(frozen=True)
class Unchanged:
    """The stable board is the known position."""


@dataclass(frozen=True)
class Earlier:
    """The board shows an earlier position of this game: the one after ``ply`` moves (``0``
    is the start), e.g. a camera replaying from its start after a restart, or moves not yet
    put back after a take-back.  ``squares`` differ from the known position."""

    ply: int
    squares: tuple[int, ...]


Verdict = Explained | Ambiguous | HiddenMismatch | IllegalPhysical | Disagrees | Unchanged | Earlier


@dataclass(frozen=True)
class Doubt:
    """A square whose picture disagrees with the game although nothing physical explains it:
    it *looks like* ``seen`` while it is taken to hold ``belief`` (what the game says there,
    or what the one legal move that fits the rest of the picture leaves there).  ``expected``
    is the game's top when the doubt arose.  While the square still looks like ``seen`` it is
    read as ``belief``; when it shows what the game says the doubt ends; when it shows
    anything else, a doubt about colour alone (``seen`` is ``belief``'s size in the other
    colour) still trusts the reading but for its colour, and any other doubt makes the square
    count as hidden.  ``confirmed``: a player said the game is right (the
    look is then just how that cup looks here); ``denied``: a player said it is wrong (the
    square stays hidden until the picture agrees with the game).  ``gone``: the cup reads as
    gone and shows nowhere else (``Tracker._vanished``); until a player answers, the moves
    the board shows around it are only proposed."""

    square: int
    expected: Label
    belief: Label
    seen: Label
    confirmed: bool = False
    denied: bool = False
    gone: bool = False


def label_text(label: Label) -> str:
    """A label in words: ``dark size 2``, ``empty``, ``an unknown cup``."""
    if label is None:
        return "empty"
    if label == UNKNOWN:
        return "a cup of a size not in this game"
    if label == HIDDEN:
        return "hidden"
    if isinstance(label, frozenset):
        return " or ".join(sorted(label_text(x) for x in label))
    colour, size = label  # type: ignore[misc]
    if colour is None:
        return f"size {size} of either colour"
    return f"{('light', 'dark')[colour]} size {size}"


def looks_text(label: Label) -> str:
    """A label as what a square looks like: ``a dark size 4``, ``empty``."""
    return f"a {label_text(label)}" if isinstance(label, tuple) else label_text(label)


def explain(board: Board, view: BoardView, max_moves: int = 2, history_first: bool = False) -> Verdict:
    """Which continuation of ``board`` (up to ``max_moves`` moves) the complete ``view`` shows.

    A view showing an earlier position of the game is ``Earlier`` unless one legal move
    explains it (a player may move a piece back: that is how repetitions happen); with
    ``history_first`` (the board has not been seen to match the game yet, e.g. after a
    restart) the earlier position wins even over a single move."""
    current = board_labels(board)
    seen = view.labels
    # a doubtful square (HIDDEN in a stable view) matches anything: it neither shows a change
    # nor rules an explanation out, and an explanation that moves it stays doubtful
    diff = frozenset(sq for sq, (a, b) in enumerate(zip(current, seen)) if not _fits(a, b))
    if not diff:
        return Unchanged()
    earlier = _earlier_position(board, seen, diff)
    if history_first and earlier is not None:
        return earlier
    singles = _explaining_moves(board, seen, diff, current)
    if singles:
        return _decide(singles)
    if earlier is not None:
        return earlier
    for length in range(2, max_moves + 1):  # fewest moves first: the simplest account wins
        if len(diff) > 2 * length:
            continue
        found = _explaining_sequences(board, seen, diff, length)
        if length == 2 and (not found or _unseen_moves(found, diff)):
            found += _covering_pairs(board, seen, diff)
        if found:
            return _decide(found)
    hidden = _hidden_mismatch(board, seen, diff, current)
    if hidden is not None:
        return hidden
    illegal = _illegal_physical(board, seen, diff, current)
    if illegal is not None:
        return illegal
    squares = tuple(sorted(diff))
    return Disagrees(squares, tuple(current[s] for s in squares), tuple(seen[s] for s in squares))


def _earlier_position(board: Board, seen: Sequence[Label], diff: frozenset[int]) -> Earlier | None:
    """The latest earlier position of the game whose tops are exactly ``seen``."""
    past = board.copy()
    while past.can_pop:
        if past.pop() is None:
            continue  # an ending action, not a position
        if all(_fits(a, b) for a, b in zip(board_labels(past), seen)):
            return Earlier(past.ply, tuple(sorted(diff)))
    return None


def _fits(predicted: Label, seen: Label) -> bool:
    """True when a seen label is consistent with a predicted one (doubtful fits anything, a
    cup of doubtful colour any cup of its size)."""
    if seen == HIDDEN:
        return True
    if isinstance(seen, frozenset):
        return predicted in seen
    if isinstance(seen, tuple) and seen[0] is None:
        return isinstance(predicted, tuple) and predicted[1] == seen[1]
    return predicted == seen


def _changed(move: Move) -> tuple[int, ...]:
    return (move.to,) if move.frm is None else (move.frm, move.to)


def _squares_of(moves: Sequence[Move]) -> set[int]:
    """Every square the moves change."""
    return {s for m in moves for s in _changed(m)}


def _confidence(view_conf: Sequence[float], squares: Sequence[int]) -> float:
    return min(view_conf[s] for s in squares)


def _explaining_moves(
    board: Board, seen: Sequence[Label], diff: frozenset[int], current: Sequence[Label]
) -> list[tuple[tuple[Move, ...], frozenset[int]]]:
    found = []
    if len(diff) > 2:
        return found
    for move in board.legal_moves():
        changed = _changed(move)
        if not diff <= set(changed):
            continue
        board.push(move)
        ok = all(_fits(board.top(sq), seen[sq]) for sq in changed)
        board.pop()
        if ok:
            found.append(((move,), frozenset(changed)))
    return found


def _explaining_sequences(
    board: Board, seen: Sequence[Label], diff: frozenset[int], length: int,
    unread: frozenset[int] | None = None,
) -> list[tuple[tuple[Move, ...], frozenset[int]]]:
    """Every sequence of exactly ``length`` legal moves after which the tops fit ``seen``,
    each of whose moves shows in the picture.  Given ``unread`` (squares a hand reached
    that cannot be read), only the sequences that change nothing but ``diff`` and those
    squares, where a cup may also be put down and then covered or carried on unseen.

    A move shows when the piece it put down is still on top where it landed: a later move
    of the sequence that covers it or carries it on leaves no trace of it, so the picture
    does not show that move was made (a misread square is then 'explained' by a cup entered
    and covered at once).  A move changes at most two squares, so a sequence that still has
    more changed squares to account for than its remaining moves can touch is cut off early."""
    found: list[tuple[tuple[Move, ...], frozenset[int]]] = []

    def extend(moves: tuple[Move, ...], changed: frozenset[int], landed: frozenset[int]) -> None:
        left = length - len(moves)
        if left == 0:
            if diff <= changed and all(_fits(board.top(sq), seen[sq]) for sq in changed):
                found.append((moves, changed))
            return
        if len(diff - changed) > 2 * left or board.outcome() is not None:
            return
        for move in board.legal_moves():
            if unread is not None and not set(_changed(move)) <= diff | unread:
                continue
            if (move.to in landed or move.frm in landed) and not (
                    unread is not None and {move.to, move.frm} & landed <= unread):
                continue  # it would hide an earlier move of the sequence
            now = changed | frozenset(_changed(move))
            if len(diff - now) > 2 * (left - 1):
                continue
            board.push(move)
            extend(moves + (move,), now, landed | {move.to})
            board.pop()

    extend((), frozenset(), frozenset())
    return found


def _unseen_moves(found: Sequence[tuple[tuple[Move, ...], frozenset[int]]], diff: frozenset[int]) -> bool:
    """True when an account of ``found`` changes a square the picture shows no change on (an
    unread one): a move of it is not seen, and a cup put down and gobbled at once is
    no less likely an unseen move, so those accounts are offered beside it."""
    return any(changed - diff for _, changed in found)


def _covering_pairs(
    board: Board, seen: Sequence[Label], diff: frozenset[int]
) -> list[tuple[tuple[Move, ...], frozenset[int]]]:
    """Every pair of legal moves, the player to move's then the opponent's, in which the
    second covers the cup the first put down (a quick gobble of it), after which the tops fit
    ``seen``.

    The picture shows the second move, and of the first only the square it left (if it came
    from the board), so such an account is only ever proposed (``covers``): several first
    moves often fit, and a misread larger cup on one square would be 'explained' by a cup
    entered and gobbled at once.  Each move changes at most two squares and the pair lands
    on one, so the first move must change only squares that show a change or cannot be read:
    a few dozen pairs at most are tried."""
    found: list[tuple[tuple[Move, ...], frozenset[int]]] = []
    if len(diff) > 3 or board.outcome() is not None:
        return found
    open_squares = diff | {sq for sq, label in enumerate(seen) if label == HIDDEN}
    for first in board.legal_moves():
        if not set(_changed(first)) <= open_squares:
            continue
        board.push(first)
        if board.outcome() is None:  # a win ends the game: no second move
            for second in board.legal_moves():
                changed = frozenset(_changed(first)) | frozenset(_changed(second))
                if second.to != first.to or not diff <= changed:
                    continue
                board.push(second)
                if all(_fits(board.top(sq), seen[sq]) for sq in changed):
                    found.append(((first, second), changed))
                board.pop()
        board.pop()
    return found


def _candidates(verdict: Verdict) -> tuple[Explained, ...]:
    """The accounts a verdict offers: its one, its candidates, or none."""
    if isinstance(verdict, Explained):
        return (verdict,)
    return verdict.candidates if isinstance(verdict, Ambiguous) else ()


def _only_covering(verdict: Verdict) -> bool:
    """True when the verdict's accounts all have a cup covered at once (``covers``)."""
    found = _candidates(verdict)
    return bool(found) and all(covers(c.moves) for c in found)


def covers(moves: Sequence[Move]) -> bool:
    """True when a move of ``moves`` lands on or lifts from the square an earlier one landed
    on: the picture after them does not show that earlier move."""
    return any(later.to == m.to or later.frm == m.to
               for k, m in enumerate(moves) for later in moves[k + 1:])


def _decide(found: list[tuple[tuple[Move, ...], frozenset[int]]]) -> Verdict:
    # Confidence is attached by the tracker, which knows the readings' confidences.
    return _one_or_ambiguous([Explained(moves, 1.0) for moves, _ in found])


def _one_or_ambiguous(accounts: Sequence[Explained]) -> Explained | Ambiguous:
    """The one account, or the players' choice between several."""
    return accounts[0] if len(accounts) == 1 else Ambiguous(tuple(accounts))


def _hidden_mismatch(
    board: Board, seen: Sequence[Label], diff: frozenset[int], current: Sequence[Label]
) -> HiddenMismatch | None:
    """A legal board move that explains everything but the square it was lifted from."""
    if len(diff) != 2:
        return None
    for move in board.legal_moves():
        if move.frm is None or {move.frm, move.to} != diff:
            continue
        board.push(move)
        to_ok = board.top(move.to) == seen[move.to]
        expected = board.top(move.frm)
        board.pop()
        if to_ok and expected != seen[move.frm]:
            return HiddenMismatch(move, move.frm, expected, seen[move.frm])
    return None


def _illegal_physical(
    board: Board, seen: Sequence[Label], diff: frozenset[int], current: Sequence[Label]
) -> IllegalPhysical | None:
    """A single physical move (ignoring the rules) that explains the board, with the rule
    it breaks."""
    names = board.geo.names
    mover = board.turn

    def fits(top_size: int, sq: int) -> bool:  # a cup can only cover a smaller one
        return current[sq] is None or current[sq][1] < top_size  # type: ignore[index]

    if len(diff) == 1:
        (to,) = diff
        piece = seen[to]
        if not isinstance(piece, tuple) or piece[0] is None or not fits(piece[1], to):
            return None  # a cup of doubtful colour names no player's move
        colour, size = piece
        if colour != mover:
            return IllegalPhysical(
                f"{COLOUR_NAMES[colour]} put a size {size} on {names[to]}",
                f"it is {COLOUR_NAMES[mover]}'s turn",
                (to,),
            )
        reason = board.illegal_reason(Move(size, to, None))
        if reason is None:  # legal: it would have been explained; stay silent
            return None
        return IllegalPhysical(f"{COLOUR_NAMES[colour]} entered a size {size} on {names[to]}", reason, (to,))
    if len(diff) == 2:
        for frm in diff:
            (to,) = diff - {frm}
            piece = current[frm]
            if not isinstance(piece, tuple) or seen[to] != piece or not fits(piece[1], to):
                continue
            below = board.stack(frm)[-2] if len(board.stack(frm)) > 1 else None
            if seen[frm] != below:
                continue
            colour, size = piece
            what = f"{COLOUR_NAMES[colour]}'s size {size} went from {names[frm]} to {names[to]}"
            if colour != mover:
                return IllegalPhysical(what, f"it is {COLOUR_NAMES[mover]}'s turn", (frm, to))
            reason = board.illegal_reason(Move(size, to, frm))
            if reason is not None:
                return IllegalPhysical(what, reason, (frm, to))
    return None


# ---------------------------------------------------------------------------- stream
@dataclass
class TrackerConfig:
    """How patient and how sure the tracker is."""

    settle_s: float = 0.5  # a state counts once it has held this long
    min_frames: int = 3  # ... over at least this many frames
    min_confidence: float = 0.5  # below this a reading counts as hidden
    commit_confidence: float = 0.8  # below this a detected move waits for a person
    # ... and below this while a square a hand reached cannot be read (the cup may be there)
    plain_confidence: float = 0.95
    agreement: float = 0.6  # share of the window's frames a square's reading needs
    max_doubtful: int = 2  # squares without such a reading that a stable state may have
    lift_frames: int = 2  # frames of a run reading a top gone, with the square's picture steady, that make a lift
    lift_sustained: int = 4  # ... or frames in a row it must be seen while it changes (a hand's shade can read as a lift)
    max_moves: int = 3  # moves one stable state may explain (quick play under one hand)
    odd_frames: int = 2  # frames in a row without the board, or moving with no hand seen, that reset


@dataclass(frozen=True)
class TrackEvent:
    """What the tracker reports: ``kind`` is one of ``stable``, ``moves``, ``pending``,
    ``ambiguous``, ``hidden-mismatch``, ``illegal``, ``disagrees``, ``behind``, ``restored``, ``lifted``,
    ``touch-opponent``, ``touch-move``, ``doubt`` (a square set aside as misread: ``verdict`` is
    its ``Doubt``), ``doubt-cleared`` (it reads as the game says again); ``verdict`` carries
    the details."""

    kind: str
    time: float
    text: str
    verdict: object = None
    squares: tuple[int, ...] = ()
    confidence: float = 1.0


class Tracker:
    """Feed it every frame's observation (with the engine's current position); it returns
    the events that frame caused.

    A state is stable when, over the last ``settle_s`` of quiet frames (board found, no hand,
    no motion), every square shows one reading in at least ``agreement`` of the frames: a
    single misread or doubtful frame does not break it, a hand or motion starts again."""

    def __init__(self, logical_sizes: Sequence[int | None], config: TrackerConfig | None = None) -> None:
        self.logical_sizes = tuple(logical_sizes)
        self.config = config or TrackerConfig()
        self._window: list[tuple[float, BoardView]] = []
        self._reported: tuple[Label, ...] | None = None
        # the game as it stood when ``_reported`` was judged: a move played or taken back
        # since (confirmed on the phone, tapped in) has the same picture judged again
        self._reported_game: tuple | None = None
        # per square, the frames in a row it showed what lies under its top while hands were
        # seen, and how many of them with its picture steady (``_watch_lifts``)
        self._lift_streak: dict[int, tuple[int, int]] = {}
        # squares a hand was seen over, or whose picture changed, since the last move was
        # committed: a cup cannot come or go where nothing did, so a move changing another
        # square is a misread, not a move
        self._reached: set[int] = set()
        # the game's moves at the last frame, and the moves this tracker committed since (the
        # referee plays them): any other change was made by the players (``update``)
        self._moves: tuple[Move, ...] = ()
        self._committing: tuple[Move, ...] = ()
        self._taken_back: set[tuple[int, Move]] = set()  # (ply, move) the players took back
        self._odd_frames = 0
        self.lifted: set[int] = set()  # own squares lifted since the last stable state
        self.touched_opponent: set[int] = set()
        self.last_verdict: Verdict | None = None
        self.last_stable_time: float | None = None
        self._pending: tuple[Move, ...] = ()  # a doubtful explanation seen at the last stable state
        # False once a stable board did not match the game, until one does again: lifts are
        # judged against the known position, so they are only watched while it holds
        self.in_sync = True
        # True from a restart until the board matches the game: what differs may be the past,
        # so nothing is set aside as misread meanwhile
        self._resyncing = False
        # squares whose picture disagrees with the game without a physical move to explain
        # it: later moves are explained around them (see Doubt)
        self.doubts: dict[int, Doubt] = {}
        # True when the pending explanation leans on a doubt's belief (a colour taken for
        # the other): only a later state that adds moves to it confirms it
        self._pending_leans = False
        # per square read only faintly at a still board while no hand had reached it since
        # the game's top there was known: (that faint look, that top); see ``_known_looks``
        self._faint_looks: dict[int, tuple[Label, Label]] = {}
        # ... those learnt at the still board being judged, used from the next hands on (the
        # same picture is not judged again for them)
        self._looks_learnt: dict[int, tuple[Label, Label]] = {}

    def expect_resync(self) -> None:
        """The board has not been seen yet (e.g. a resumed game): until a stable state matches
        the known position, pictures of earlier positions are taken as such, not as moves,
        and lifts are not judged."""
        self.in_sync = False
        self._resyncing = True
        self._reported = None

    def update(self, board: Board, obs: Observation, t: float, motion: bool = False,
               touched: Sequence[int] = ()) -> list[TrackEvent]:
        """Process one frame's observation taken at time ``t``; ``motion`` says the picture
        moved since the last frame and ``touched`` on which squares (``vision.motion``)."""
        cfg = self.config
        moves = tuple(board.move_stack)
        if moves != self._moves:
            if moves != self._moves + self._committing:
                kept = 0
                while kept < min(len(moves), len(self._moves)) and moves[kept] == self._moves[kept]:
                    kept += 1
                if len(moves) > kept:
                    # the players put moves on the record (confirmed, tapped in): they said what
                    # the hands did, so where hands were is no evidence of more
                    self._reached.clear()
                # a move taken back left its cups where nothing on the record explains them:
                # its squares are where hands were (a move nobody made may have been taken back
                # for the one made there)
                self._reached |= _squares_of(self._moves[kept:])
                # ... and the players said it was not that move: the same picture does not
                # commit it again there (a cup misread for good keeps showing it)
                self._taken_back |= {(ply, m) for ply, m in enumerate(self._moves[kept:], kept)}
            self._moves, self._committing = moves, ()
        if obs.board_found:
            self._reached.update(touched)
        occluded = obs.board_found and any(r.state == OCCLUDED for r in obs.squares)
        if not obs.board_found or (motion and not obs.hand and not occluded):
            # one odd frame (a glitch, a flash) is skipped; more in a row start again
            self._odd_frames += 1
            if self._odd_frames < cfg.odd_frames:
                return []
            self._window.clear()
            if not obs.board_found:
                return []
        else:
            self._odd_frames = 0
        view = to_view(obs, self.logical_sizes, cfg.min_confidence)
        if obs.hand or motion or occluded:
            self._reached.update(sq for sq, r in enumerate(obs.squares) if r.state == OCCLUDED)
            self._window.clear()
            self._reported = None  # after hands, judge the board again even if it looks the same
            self._faint_looks.update(self._looks_learnt)
            self._looks_learnt = {}
            if not obs.hand:
                # something moves that the picture does not show as a hand (a pale palm over
                # pale wood can read as an empty square): no lift is judged on such frames
                self._lift_streak.clear()
                return []
            return self._watch_lifts(board, view, t, frozenset(touched))
        self._lift_streak.clear()
        window = self._window
        window.append((t, view))
        while len(window) > 1 and t - window[1][0] >= cfg.settle_s:
            window.pop(0)
        if t - window[0][0] < cfg.settle_s or len(window) < cfg.min_frames:
            return []
        views = [v for _, v in window]
        stable = self._consensus([self._known_looks(board, v) for v in views])
        # a board judged only thanks to known looks, with a square a hand reached still
        # unread, is judged as faint: the move may be there (asked, never waited on)
        faint = stable is None or (bool(self._faint_looks) and self._consensus(views) is None
                                   and bool(self._unread(stable, ())))
        if faint:
            stable = self._consensus(views, faint=True)
        game = (board.ply, board_labels(board))
        if stable is None or (stable.labels == self._reported and game == self._reported_game):
            return []
        self._reported = stable.labels
        self._reported_game = game
        self.last_stable_time = t
        if faint:
            self._learn_looks(board, stable)
            return self._judge_faint(board, stable, t)
        faint_view = self._consensus(views, faint=True)
        self._learn_looks(board, faint_view)
        return self._judge(board, stable, t) + self._faint_where_unread(board, stable, faint_view, t)

    def _faint_where_unread(self, board: Board, stable: BoardView, faint: BoardView | None,
                            t: float) -> list[TrackEvent]:
        """A still board the game explains unchanged but for squares a hand reached that
        cannot be read, where their faint readings show a change: that board is judged as a
        faint one (``_judge_faint``: put to the players, never committed).  Waiting for such a
        square to read plainly can wait for ever (a dark 4 put down read at 0.02-0.14 in most
        frames of a still board), with nothing on the phone.  ``faint`` is the still board's
        faint consensus (``BoardView.faint``)."""
        if not isinstance(self.last_verdict, Unchanged) or faint is None:
            return []
        unread = self._unread(stable, ())
        game = board_labels(board)
        if not unread or all(_fits(game[sq], faint.labels[sq]) for sq in unread):
            return []
        return [e for e in self._judge_faint(board, faint, t) if e.kind != "stable"]

    def _consensus(self, views: list[BoardView], faint: bool = False) -> BoardView | None:
        """The reading each square shows in enough of ``views`` (HIDDEN where none does), or
        None when too many squares are in doubt to judge the board.  With ``faint``, readings
        below ``min_confidence`` vote too (``BoardView.faint``)."""
        need = self.config.agreement * len(views)
        labels: list[Label] = []
        confidences: list[float] = []
        for sq in range(len(views[0].labels)):
            votes: dict[Label, list[float]] = {}
            for v in views:
                seen = v.faint[sq] if faint and v.faint is not None else v.labels[sq]
                if seen != HIDDEN:
                    votes.setdefault(seen, []).append(v.confidences[sq])
            label, confs = max(votes.items(), key=lambda kv: len(kv[1])) if votes else (HIDDEN, [])
            if len(confs) < need:
                label, confs = HIDDEN, []  # doubtful: explanations may not rely on it
            labels.append(label)
            confidences.append(sum(confs) / len(views))  # doubtful or other frames lower it
        if labels.count(HIDDEN) > self.config.max_doubtful:
            return None
        return BoardView(tuple(labels), tuple(confidences))

    def _learn_looks(self, board: Board, faint: BoardView | None) -> None:
        """Keep, per square of the still board ``faint`` (its faint readings) read below
        ``min_confidence`` that no hand reached since the last move was put on the record, its
        look and the game's top there, when the look is that top or its size in the other
        colour (``_same_or_recoloured``): no cup came or went where no hand was, so that look
        is how that top reads here (a dark top under a lamp read faintly as light, for as long
        as it stands).  Looks of squares whose top has changed since are forgotten.  Nothing
        is learnt while the board does not match the game.  What this board teaches is used
        from the next hands on (``_looks_learnt``): the same picture is not judged twice."""
        for sq, (_, top) in list(self._faint_looks.items()):
            if board.top(sq) != top:
                del self._faint_looks[sq]
        self._looks_learnt = {}
        if faint is None or not self.in_sync or self._resyncing:
            return
        for sq, (look, conf) in enumerate(zip(faint.labels, faint.confidences)):
            top = board.top(sq)
            if (conf < self.config.min_confidence and _same_or_recoloured(look, top) and sq not in self._reached
                    and sq not in self.doubts):
                self._looks_learnt[sq] = (look, top)

    def _known_looks(self, board: Board, view: BoardView) -> BoardView:
        """``view`` with each square read too faintly to count that shows the faint look it
        had while the game's top (still the same) stood there untouched (``_learn_looks``)
        read as that top; where a hand has reached it since, as that top or whatever else
        looks the same (a cup may have left in a way that reads alike, as for a doubt): a
        move from or to it is then not in the picture, only proposed.  Else a square read
        faintly for good (a dark top under a lamp) makes every later still board too faint
        to judge, and each later move is asked about, never committed."""
        if not self._faint_looks or view.faint is None:
            return view
        labels = list(view.labels)
        for sq, (look, top) in self._faint_looks.items():
            if labels[sq] == HIDDEN and view.faint[sq] == look and board.top(sq) == top and sq not in self.doubts:
                labels[sq] = frozenset((top, look)) if sq in self._reached else top
        return replace(view, labels=tuple(labels))

    # ------------------------------------------------------------------ stable states
    def _judge_faint(self, board: Board, view: BoardView, t: float) -> list[TrackEvent]:
        """A still board with too many squares read only faintly to judge (``view`` holds the
        faint readings).  Waiting for them to read plainly can wait for ever (a dark set under
        a light that leaves every dark top in doubt), so when the faint readings fit a
        continuation whose every changed square a hand reached, it is put to the players; it
        is never committed, nor confirmed by a later picture, since faint readings are all it
        rests on.  When nothing fits the faint readings as read, the faint cups' colours are
        taken as in doubt (a dark top faintly read light is the commonest faint misread), then
        also one cup a hand reached as read one size off (``_size_misread``), and what fits
        then is put to the players the same way.  Only accounts whose every changed
        square a hand reached are offered.  Anything else (the game unchanged, nothing fitting)
        waits silently."""
        events = [TrackEvent("stable", t, "the board is still", view)]
        verdict = explain(board, view, self.config.max_moves, history_first=not self.in_sync)
        verdict = self._or_doubts_left_alone(board, view, verdict)
        if isinstance(verdict, (HiddenMismatch, IllegalPhysical, Disagrees)):
            blind = self._faint_colours_in_doubt(view)
            verdict = explain(board, blind, self.config.max_moves, history_first=not self.in_sync)
            if isinstance(verdict, (HiddenMismatch, IllegalPhysical, Disagrees)):
                resized = self._size_misread(board, blind)
                verdict = resized[0] if resized is not None else verdict
        if isinstance(verdict, Ambiguous):
            verdict = self._where_hands_were(verdict, view)
        names = board.geo.names
        faint = [s for s, c in enumerate(view.confidences) if c < self.config.min_confidence]
        note = f" (the camera reads {', '.join(names[s] for s in faint)} only faintly)"
        # a change with no hand where it happened is a faint misread
        accounts = [c for c in _candidates(verdict) if _squares_of(c.moves) <= self._reached]
        if accounts:
            # the lifts seen belong to the moves put to the players, as in ``_judge``: kept,
            # they would be judged with the next board and alarm (a reply's cup taken from
            # the board read as the opponent touched)
            self.lifted, self.touched_opponent = set(), set()
        if len(accounts) == 1:
            squares = tuple(sorted(_squares_of(accounts[0].moves)))
            conf = _confidence(view.confidences, squares)
            verdict = Explained(accounts[0].moves, conf)
            self._pending, self._pending_leans = (), False
            events.append(TrackEvent("pending", t, _moves_text(board, verdict.moves) + note, verdict, squares, conf))
        elif accounts:
            texts = " or ".join(_moves_text(board, c.moves) for c in accounts)
            events.append(TrackEvent("ambiguous", t, f"the board fits {texts}{note}", Ambiguous(tuple(accounts))))
        return events

    def _or_doubts_left_alone(self, board: Board, view: BoardView, verdict: Verdict) -> Verdict:
        """``verdict`` of a faint board, with the accounts that leave every doubted square as
        the game has it added first, where the board read with those squares unread has any:
        the camera is known to misread them, so a faint look of one that fits an account
        only by changing it (a dark 4 read by turns as a 1 and a 3: "4b4-d2, 3b4", its 4
        leaving and another cup coming) is no reason to leave out the move the other
        squares show (4d2).  Only added: a doubted square may still have changed.  A doubted
        square showing its known misread look is left as it is."""
        # a square showing its known misread look keeps the accounts as they are (read as the
        # game's top it would open faint accounts of the other squares, guesses that stay silent
        # now); one showing a new look is the camera misreading it another way
        unread = {sq for sq, d in self.doubts.items() if view.labels[sq] not in (HIDDEN, board.top(sq), d.seen)}
        if not unread:
            return verdict
        labels = [HIDDEN if sq in unread else label for sq, label in enumerate(view.labels)]
        second = explain(board, replace(view, labels=tuple(labels)), self.config.max_moves,
                         history_first=not self.in_sync)
        alone = [c for c in _candidates(second) if not _squares_of(c.moves) & unread]
        known = {c.moves for c in alone}
        accounts = alone + [c for c in _candidates(verdict) if c.moves not in known]
        return _one_or_ambiguous(accounts) if alone else verdict

    def _faint_colours_in_doubt(self, view: BoardView) -> BoardView:
        """``view`` with every cup read below ``min_confidence`` taken as a cup of its size in
        either colour."""
        labels = [(None, label[1]) if isinstance(label, tuple) and conf < self.config.min_confidence else label
                  for label, conf in zip(view.labels, view.confidences)]
        return replace(view, labels=tuple(labels))

    def _judge(self, board: Board, view: BoardView, t: float) -> list[TrackEvent]:
        names = board.geo.names
        events = [TrackEvent("stable", t, "the board is still", view)]
        raw = view
        recoloured_first: Explained | None = None  # a colour's account asked beside cups gobbled at once
        misread_text = ""  # what a question adds about a reading taken as a misread (``_size_misread``, ``_foreign_sizes``)
        recoloured_texts: dict[tuple[Move, ...], str] = {}  # per account, the colour it takes on trust
        view, cleared, leaning = self._apply_doubts(board, view, t)
        events += cleared
        verdict = explain(board, view, self.config.max_moves, history_first=not self.in_sync)
        if not self._resyncing:
            verdict, misread = self._past_misreads(board, view, verdict)
            for sq in misread:
                doubt = Doubt(sq, board.top(sq), board.top(sq), view.labels[sq])
                self.doubts[sq] = doubt
                events.append(TrackEvent("doubt", t, doubt_text(board, doubt), doubt, (sq,)))
            # one colour at a time is taken on trust, and never on the picture that needs it;
            # a cup gobbled at once leaves the picture a misread colour leaves too: both are put
            # to the players, and a later picture can still confirm the colour's account
            covered = _only_covering(verdict)
            if (isinstance(verdict, (IllegalPhysical, Disagrees)) or covered) and not leaning:
                recolourings = self._colour_misreads(board, view)
                if len(recolourings) > 1 and not covered:
                    # several squares' colours each explain the board: the players are asked
                    # which (the one misread becomes a doubt once the game holds the move)
                    verdict = Ambiguous(tuple(single for single, _ in recolourings))
                    recoloured_texts = {single.moves: self._colour_text(board, doubt)
                                        for single, doubt in recolourings}
                if len(recolourings) == 1:
                    single, doubt = recolourings[0]
                    self.doubts[doubt.square] = doubt
                    leaning = leaning | {doubt.square}
                    self._pending = ()
                    if covered:
                        verdict = Ambiguous((single, *_candidates(verdict)))
                        recoloured_first = single
                    else:
                        verdict = single
            if isinstance(verdict, (IllegalPhysical, Disagrees)):
                found = self._vanished(board, view)
                if found is not None:
                    verdict, gone = found
                    for sq in gone:
                        doubt = Doubt(sq, board.top(sq), board.top(sq), view.labels[sq], gone=True)
                        self.doubts[sq] = doubt
                        events.append(TrackEvent("doubt", t, doubt_text(board, doubt), doubt, (sq,)))
            elif isinstance(verdict, Ambiguous) and not recoloured_texts and recoloured_first is None:
                # accounts of more moves than a cup read a size off needs are no likelier
                verdict, misread_text = self._or_size_misread(board, view, verdict, shorter=True)
            if isinstance(verdict, (IllegalPhysical, Disagrees)):
                found_resized = self._size_misread(board, view)
                if found_resized is not None:
                    alarm = verdict
                    verdict, resized = found_resized
                    misread_text = f" ({names[resized]} looks like {looks_text(view.labels[resized])})"
                    if isinstance(alarm, IllegalPhysical):  # the players know which it was
                        misread_text += f", or {alarm.description}: {alarm.reason}"
            if isinstance(verdict, (IllegalPhysical, Disagrees)):
                found_foreign = self._foreign_sizes(board, view)
                if found_foreign is not None:
                    verdict, foreign = found_foreign
                    misread_text = (f" ({', '.join(names[s] for s in foreign)} "
                                    f"{'looks' if len(foreign) == 1 else 'look'} like {looks_text(UNKNOWN)})")
        # a cup read gone that nobody has answered for still reads so: the account holds only
        # if that is a misread
        vanished = any(d.gone and not d.confirmed and raw.labels[sq] == d.seen for sq, d in self.doubts.items())
        if vanished and isinstance(verdict, Explained) and not misread_text and not self._resyncing:
            # the cup read gone may be the one that moved, read a size off where it landed
            verdict, misread_text = self._or_size_misread(board, view, verdict)
        if isinstance(verdict, Explained) and not self._resyncing:
            verdict = self._or_unread(board, raw, view, verdict)
        if isinstance(verdict, Ambiguous):
            verdict = self._where_hands_were(verdict, view)
        elif isinstance(verdict, Explained) and len(verdict.moves) > 1 and not self._resyncing:
            verdict = self._or_one_colour_misread(board, view, verdict)
        previous, self.last_verdict = self.last_verdict, verdict
        self.in_sync = isinstance(verdict, (Unchanged, Explained))
        self._resyncing = self._resyncing and not self.in_sync
        lifted, self.lifted = self.lifted, set()
        touched, self.touched_opponent = self.touched_opponent, set()
        if not isinstance(verdict, Explained):
            self._pending = ()
        if isinstance(verdict, Unchanged):
            # a square a hand reached that cannot be read may hold a cup put there: that hand
            # stays evidence until the square reads, a move is committed or the players say
            self._reached = self._unread(raw, ())
            if previous is not None and not isinstance(previous, (Unchanged, Explained)):
                events.append(TrackEvent("restored", t, "the board matches the game again"))
            for sq in sorted(lifted):
                events.append(
                    TrackEvent(
                        "touch-move", t,
                        f"touch-move: the piece lifted from {names[sq]} was put back; it must be moved",
                        squares=(sq,),
                    )
                )
            events.extend(self._opponent_touches(board, touched, (), t))
            return events
        if isinstance(verdict, Explained):
            squares = tuple(sorted(_squares_of(verdict.moves)))
            conf = _confidence(view.confidences, squares)
            verdict = Explained(verdict.moves, conf)
            self.last_verdict = verdict
            texts = _moves_text(board, verdict.moves)
            first = verdict.moves[0]
            if first.frm is not None and lifted and first.frm not in lifted:
                sq = sorted(lifted)[0]
                events.append(
                    TrackEvent(
                        "touch-move", t,
                        f"touch-move: {names[sq]} was lifted but {names[first.frm]} was moved",
                        squares=(sq, first.frm),
                    )
                )
            second_from = (verdict.moves[1].frm,) if len(verdict.moves) > 1 else ()
            events.extend(self._opponent_touches(board, touched, second_from, t))
            # a doubtful explanation is confirmed when a later, separate stable state is
            # explained by the same move(s) followed by more
            confirmed = bool(self._pending) and verdict.moves[: len(self._pending)] == self._pending
            keep: set[int] = set()
            if self._pending_leans:  # the same picture again is no new evidence for a colour
                confirmed = confirmed and len(verdict.moves) > len(self._pending)
            if confirmed and len(verdict.moves) > len(self._pending):
                # the later state vouches for the moves that waited, not for what it adds: those
                # are committed, and the moves after them judged on their own evidence once
                # the game holds them (the board is judged again when the game changes)
                rest = _squares_of(verdict.moves[len(self._pending):])
                if _confidence(view.confidences, tuple(rest)) < self.config.commit_confidence or (
                        rest - self._reached):
                    keep = rest & self._reached  # the hands seen there are still evidence
                    squares = tuple(sorted(_squares_of(self._pending)))
                    conf = _confidence(view.confidences, squares)
                    verdict = Explained(self._pending, conf)
                    self.last_verdict = verdict
                    texts = _moves_text(board, verdict.moves)
            unreached = [s for s in squares if s not in self._reached]
            # a square a hand reached that cannot be read may be where the cup really went, the
            # account's squares then misread: the account leads that rival plainly only when
            # every square it changes reads plainly (no account changes the unread square:
            # those were put to the players as ambiguous)
            unread = self._unread(raw, squares) if conf < self.config.plain_confidence else set()
            # a move that lands where the picture shows the other colour is only taken on trust
            leans = [s for s in squares if s in leaning]
            # a doubted square a hand reached that still shows its misread look shows no change:
            # a move from or to it is not in the picture there (a persistent 'empty' misread
            # and a misread where a cup landed would make a move nobody made)
            unshown = [s for s in squares if isinstance(view.labels[s], frozenset)]
            # a cup put down and gobbled at once by the next move is not in the picture: which
            # cup it was is inferred, never seen
            covered = covers(verdict.moves)
            # the players said the game is wrong on a square: a move is missing from it, made
            # before this one, so this account is in the wrong turns or leaves that move out
            denied = sorted(sq for sq, d in self.doubts.items() if d.denied)
            refused = any((ply, m) in self._taken_back for ply, m in enumerate(verdict.moves, board.ply))
            guess = (vanished or bool(unshown) or covered or bool(misread_text) or bool(denied)
                     or verdict.moves in recoloured_texts or refused)
            if ((conf >= self.config.commit_confidence or confirmed) and not unreached and not unread
                    and (confirmed or not leans) and not guess):
                self._pending = ()
                self._pending_leans = False
                self._reached = set(keep)
                self._committing = verdict.moves
                events.append(TrackEvent("moves", t, texts, verdict, squares, conf))
            else:
                if not (self._pending and verdict.moves[: len(self._pending)] == self._pending):
                    self._pending_leans = bool(leans)  # a new account, not the old one extended
                else:
                    self._pending_leans = self._pending_leans or bool(leans)
                self._pending = verdict.moves
                if unreached:
                    texts += f" (no hand was seen at {', '.join(names[s] for s in unreached)})"
                if unread:
                    texts += f" ({', '.join(names[s] for s in sorted(unread))} cannot be read yet)"
                if covered:
                    texts += f" ({names[verdict.moves[0].to]}: the first cup was covered at once, not seen)"
                    texts += _or_out_of_turn(board, view)
                texts += self._trusted_text(board, leans) + misread_text
                if denied:
                    texts += f" (the game is not right on {', '.join(names[s] for s in denied)}, you said)"
                if refused:
                    texts += " (taken back before)"
                events.append(TrackEvent("pending", t, texts, verdict, squares, conf))
                if guess:
                    # an account that needed cups read gone to be misreads, or a change the
                    # picture does not show, is a guess (the cup may be the one that moved,
                    # misread where it landed): a person confirms it, no later picture does
                    self._pending = ()
                    self._pending_leans = False
            return events
        if isinstance(verdict, Ambiguous):
            texts = " or ".join(_moves_text(board, c.moves) + self._if_recoloured(board, c, leaning)
                                + recoloured_texts.get(c.moves, "") for c in verdict.candidates)
            if recoloured_first is not None and recoloured_first in verdict.candidates:
                # the reply, once seen, confirms the colour's account as it does on its own
                self._pending, self._pending_leans = recoloured_first.moves, True
            doubted = sorted(s for s in self.doubts if view.labels[s] == HIDDEN)
            if doubted:
                texts += f" ({', '.join(names[s] for s in doubted)} in doubt: waiting)"
            if any(covers(c.moves) for c in verdict.candidates):
                texts += _or_out_of_turn(board, view)
            texts += misread_text
            events.append(TrackEvent("ambiguous", t, f"the board fits {texts}", verdict))
            return events
        if verdict == previous:
            return events  # the same problem, already reported
        if isinstance(verdict, HiddenMismatch):
            text = (
                f"under {names[verdict.square]} memory says {label_text(verdict.expected)}; "
                f"the camera sees {label_text(verdict.seen)}"
            )
            events.append(TrackEvent("hidden-mismatch", t, text, verdict, (verdict.square, verdict.move.to)))
        elif isinstance(verdict, Earlier):
            back = board.ply - verdict.ply
            where = ", ".join(names[s] for s in verdict.squares)
            text = (
                f"the board shows the game as it was {back} move{'s' if back > 1 else ''} ago; "
                f"waiting for the current position (differs on {where})"
            )
            events.append(TrackEvent("behind", t, text, verdict, verdict.squares))
        elif isinstance(verdict, IllegalPhysical):
            events.append(
                TrackEvent("illegal", t, f"{verdict.description}: {verdict.reason}", verdict, verdict.squares)
            )
        elif isinstance(verdict, Disagrees):
            parts = [
                f"{names[s]} looks like {looks_text(raw.labels[s] if s in self.doubts else o)}, "
                f"the game says {looks_text(e)}"
                for s, e, o in zip(verdict.squares, verdict.expected, verdict.seen)
            ]
            events.append(
                TrackEvent("disagrees", t, "the board disagrees: " + "; ".join(parts), verdict, verdict.squares)
            )
        return events

    def _if_recoloured(self, board: Board, candidate: Explained, leaning: Collection[int]) -> str:
        """What an account of an ambiguous board takes on trust, in words: ``", if b2 is a light
        size 3 (it looks like a dark size 3)"`` for a move landing on a square read in the other
        colour, else nothing."""
        return self._trusted_text(board, {m.to for m in candidate.moves} & set(leaning))

    def _trusted_text(self, board: Board, squares: Collection[int]) -> str:
        """For doubted ``squares`` an account takes on trust: ``", if b2 is a light size 3 (it
        looks like a dark size 3)"`` for each."""
        return "".join(self._colour_text(board, self.doubts[s]) for s in sorted(squares))

    def _or_unread(self, board: Board, raw: BoardView, view: BoardView, verdict: Explained) -> Verdict:
        """``verdict``, or ``Ambiguous`` between it and the other accounts (as many moves or
        fewer) that change a square a hand reached that cannot be read: the cup may have gone
        there.  An unreadable square no such account changes does not hold the account (an
        empty square read with doubt beside the one a cup landed on is no reason to wait)."""
        # a square read by its known faint look where a hand was may have lost its cup in a way
        # that reads alike: the accounts that change it are offered too
        unread = self._unread(raw, _squares_of(verdict.moves), looks=False)
        if not unread:
            return verdict
        labels = [HIDDEN if s in unread else label for s, label in enumerate(view.labels)]
        second = explain(board, BoardView(tuple(labels), view.confidences), len(verdict.moves))
        if isinstance(second, Ambiguous) and any(_squares_of(c.moves) & unread for c in second.candidates):
            return second
        # a cup put on (or taken from) the unread square is a move the picture does not show,
        # and an account with that move too fits as well.  Made after the others, it is only
        # not seen yet (the account committed is still the game's start of it); made before
        # them, the account's moves are in the wrong turns (3b4 unseen, then 4b2 and 3b3 under
        # one hand, reads as 3b3 and 4b2): then the players are asked
        length = len(verdict.moves) + 1
        if length > self.config.max_moves:
            return verdict
        diff = frozenset(sq for sq, (a, b) in enumerate(zip(board_labels(board), labels)) if not _fits(a, b))
        found = _explaining_sequences(board, labels, diff, length, unread=frozenset(unread))
        longer = [Explained(moves, 1.0) for moves, changed in found
                  if changed & unread and moves[: len(verdict.moves)] != verdict.moves]
        return Ambiguous((verdict, *longer)) if longer else verdict

    def _unread(self, raw: BoardView, squares: Collection[int], looks: bool = True) -> set[int]:
        """The squares a hand reached, outside ``squares`` and not in doubt, that cannot be read
        (hidden, or below ``min_confidence``); with ``looks``, not those read by their known
        faint look (``_known_looks``)."""
        return {s for s in self._reached if s not in self.doubts and s not in squares
                and (raw.labels[s] == HIDDEN or (raw.confidences[s] < self.config.min_confidence
                                                 and not (looks and self._looks_known(raw, s))))}

    def _looks_known(self, view: BoardView, square: int) -> bool:
        """True when ``square`` of the still ``view`` was read as the game's top by its known
        faint look (``_known_looks``)."""
        known = self._faint_looks.get(square)
        return known is not None and view.labels[square] in (known[1], frozenset(known))

    def _past_misreads(self, board: Board, view: BoardView, verdict: Verdict) -> tuple[Verdict, list[int]]:
        """``verdict``, or what the board shows once the squares that show what no move could
        have left there are set aside as misread (then also those squares).

        Such a square (a cup read smaller than the top that stands there, or of the other
        colour, where memory says it is not what lies beneath) is a misread: glare, a shadow.
        Left as it is, it would stall every later move behind a board that disagrees, so it
        becomes a doubt and later moves are explained around it.  A square that reads as the
        piece under its top, or as a larger cup, is left alone: a hand the camera missed may
        have moved it.  Only a verdict that cannot be committed is reconsidered; the board
        must then be the game unchanged, or have one explanation that does not touch the
        squares set aside, and at most ``max_doubtful`` squares in all may be doubtful.

        A square set aside still says what it can: a cup of the top's size in the other
        colour is still a cup of that size (so the top did not leave), anything else says
        nothing.  Where a hand was, a cup may have left: then the account must be the only
        one even when the square set aside may have changed, or nothing is set aside (a cup
        lifted to show a piece memory did not expect is a hidden mismatch, not a misread)."""
        if isinstance(verdict, (Unchanged, Earlier)):
            return verdict, []
        if isinstance(verdict, Explained) and _squares_of(verdict.moves) <= self._reached:
            return verdict, []
        misread = [sq for sq in range(board.rules.squares) if _impossible(board, sq, view.labels[sq])]
        if isinstance(verdict, (Disagrees, IllegalPhysical)):
            # nothing legal explains the board: a square no hand reached (nor any change in the
            # picture) that reads unlike the game is a misread too, whatever it reads
            misread += [sq for sq in range(board.rules.squares)
                        if sq not in misread and sq not in self._reached and sq not in self.doubts
                        and view.labels[sq] not in (HIDDEN, UNKNOWN) and not isinstance(view.labels[sq], frozenset)
                        and view.labels[sq] != board.top(sq)]
        # squares already in doubt are known misreads, not doubt about this picture
        unknown = sum(1 for sq, label in enumerate(view.labels) if label == HIDDEN and sq not in self.doubts)
        if not misread or unknown + len(misread) > self.config.max_doubtful:
            return verdict, []
        labels = list(view.labels)
        for sq in misread:
            seen, top = view.labels[sq], board.top(sq)
            same_size = isinstance(seen, tuple) and isinstance(top, tuple) and seen[1] == top[1]
            labels[sq] = (None, seen[1]) if same_size else HIDDEN  # type: ignore[index]
        around = self._around(board, view, labels, misread, only=bool(set(misread) & self._reached))
        return (around, misread) if around is not None else (verdict, [])

    def _vanished(self, board: Board, view: BoardView) -> tuple[Verdict, list[int]] | None:
        """When nothing legal explains the board: what it shows once every cup that reads as
        gone (its square shows what lies beneath it) and shows nowhere else is taken for a
        misread, and those squares; None when there is no such cup, or the rest still has no
        single account that leaves them alone.

        In these games a cup never leaves the board: one that moved shows where it landed.  A
        cup read as gone that shows nowhere is a misread (a pale top on pale wood read empty;
        after a hand passes, several at once), so the players are asked about the square
        instead of being told the board is wrong, and what the rest shows is only proposed
        (the cup may have moved and be misread where it landed too)."""
        seen = view.labels
        shown = [label for sq, label in enumerate(seen)
                 if isinstance(label, tuple) and label != board.top(sq)]
        gone = []
        for sq in range(board.rules.squares):
            stack = board.stack(sq)
            if not stack or sq in self.doubts:
                continue
            below = stack[-2] if len(stack) > 1 else None
            colour, size = stack[-1]
            if seen[sq] == below and not any(label[1] == size and label[0] in (colour, None) for label in shown):
                gone.append(sq)
        if not gone:
            return None
        labels = [HIDDEN if sq in gone else label for sq, label in enumerate(seen)]
        around = self._around(board, view, labels, gone)
        return (around, gone) if around is not None else None

    def _around(self, board: Board, view: BoardView, labels: Sequence[Label], aside: Collection[int],
                only: bool = False) -> Unchanged | Explained | None:
        """What ``view`` read as ``labels`` (``aside``, squares set aside as misread, relabelled)
        shows: the game unchanged, or the single account that leaves ``aside`` alone; None when
        there is no such account.  ``only``: that account must also be the only one of all,
        counting those that change the squares set aside (a hand was there: a cup may have left)."""
        second = explain(board, replace(view, labels=tuple(labels)), self.config.max_moves)
        if isinstance(second, Unchanged):
            return second
        found = [second] if isinstance(second, Explained) else (
            list(second.candidates) if isinstance(second, Ambiguous) else [])
        if only and len(found) != 1:
            return None
        possible = [c for c in found if not _squares_of(c.moves) & set(aside)]
        return possible[0] if len(possible) == 1 else None

    def _where_hands_were(self, verdict: Ambiguous, view: BoardView) -> Verdict:
        """The one candidate that changes only squares a hand reached, when the others
        differ from it on a doubted square that shows neither its look nor the game (its
        reading is worth nothing, but a cup cannot leave where no hand was); else
        ``verdict``."""
        unsure = {s for s in self.doubts if view.labels[s] == HIDDEN}
        if not any(_squares_of(c.moves) & unsure for c in verdict.candidates):
            return verdict
        reached = [c for c in verdict.candidates if _squares_of(c.moves) <= self._reached]
        return reached[0] if len(reached) == 1 else verdict

    def _or_one_colour_misread(self, board: Board, view: BoardView, verdict: Explained) -> Verdict:
        """``verdict`` (several moves), or ``Ambiguous`` between it and a shorter account in
        which one square it lands on, showing the game's top in the other colour, is that top
        misread: "White's 4 went from d1 to b2 and Black put a 4 on d1" and "White put a 4
        on b2, d1's 4 is misread" show the same picture, and a glossy top is no rarer than
        two quick moves, so a person chooses."""
        for sq in sorted({m.to for m in verdict.moves}):
            seen, top = view.labels[sq], board.top(sq)
            if not (isinstance(seen, tuple) and isinstance(top, tuple) and seen[1] == top[1] and seen != top):
                continue
            labels = list(view.labels)
            labels[sq] = (None, seen[1])
            shorter = explain(board, BoardView(tuple(labels), view.confidences), len(verdict.moves) - 1)
            if isinstance(shorter, Explained) and len(shorter.moves) < len(verdict.moves):
                return Ambiguous((verdict, shorter))
        return verdict

    def _size_misread(self, board: Board, view: BoardView) -> tuple[Explained | Ambiguous, int] | None:
        """The legal accounts of the board once one square a hand reached, showing a cup,
        is read one size larger or smaller (a rounded 3 read as a 2) and a move lands there,
        and that square; None when no single square's size explains the board so.  A cup
        read at a size its player cannot put there by any legal move (a dark 4 read as a 1
        on a square just entered, when no reserve has a 1 on top) is tried at every other
        size too, when one size off explains nothing (``_sizes_off``).

        Such a board otherwise reads as an illegal move ("White entered a size 2 on d4: ... no
        external stack with a size 2") or a board that disagrees, an alarm for a legal move:
        the players are asked instead, never on this picture alone committed."""
        found: dict[int, list[Explained]] = {}
        for sq in sorted(self._reached):
            seen = view.labels[sq]
            if not isinstance(seen, tuple) or seen[0] is None or sq in self.doubts or seen == board.top(sq):
                continue  # a square showing the game's top shows no move landing there
            for sizes in _sizes_off(board, sq, seen):
                for size in sizes:
                    if (seen[0], size) == board.top(sq):
                        continue
                    labels = list(view.labels)
                    labels[sq] = (seen[0], size)
                    second = explain(board, BoardView(tuple(labels), view.confidences), self.config.max_moves)
                    found.setdefault(sq, []).extend(
                        c for c in _candidates(second) if sq in {m.to for m in c.moves})
                if found.get(sq):
                    break  # sizes further off only where the nearer ones explain nothing
        fitting = [(sq, accounts) for sq, accounts in found.items() if accounts]
        if len(fitting) != 1:
            return None
        sq, accounts = fitting[0]
        return _one_or_ambiguous(accounts), sq

    def _or_size_misread(self, board: Board, view: BoardView, verdict: Explained | Ambiguous,
                         shorter: bool = False) -> tuple[Explained | Ambiguous, str]:
        """``verdict``, or ``Ambiguous`` between its accounts and those of the board with one
        cup a hand reached read one size off (``_size_misread``), and what the question then
        adds about that square (else nothing).  With ``shorter``, only when those accounts
        have fewer moves than every account of ``verdict``.

        A cup that moved and reads a size off where it landed leaves the picture of a cup
        read gone plus another cup entered, or of two moves made under one hand: the move
        made must be among those the players choose from."""
        found = self._size_misread(board, view)
        if found is None:
            return verdict, ""
        resized, sq = found
        accounts = _candidates(verdict)
        known = {a.moves for a in accounts}
        extra = [c for c in _candidates(resized) if c.moves not in known]
        if not extra:
            return verdict, ""
        if shorter:
            if max(len(c.moves) for c in extra) >= min(len(a.moves) for a in accounts):
                return verdict, ""
            merged = (*extra, *accounts)
        else:
            merged = (*accounts, *extra)
        return Ambiguous(merged), f" ({board.geo.names[sq]} looks like {looks_text(view.labels[sq])})"

    def _foreign_sizes(self, board: Board, view: BoardView) -> tuple[Explained | Ambiguous, list[int]] | None:
        """The legal accounts of the board once the squares read as a cup of a size this game
        does not use are taken as unread, when such accounts exist and none of them moves a
        cup from or to those squares; and those squares.  None otherwise.

        A cup of a size not in the game is seldom on the board: more often the camera took a
        shadow or the lamp's reflection for one (Storer's set has sizes its games leave out).
        Alarming then would be a false alarm for a legal move, so the players are asked, never
        committed to on this picture alone.  A real foreign cup put down as the move leaves no
        account here (nothing else changed): that stays an alarm."""
        foreign = [sq for sq, seen in enumerate(view.labels) if seen == UNKNOWN]
        if not foreign:
            return None
        labels = [HIDDEN if seen == UNKNOWN else seen for seen in view.labels]
        second = explain(board, BoardView(tuple(labels), view.confidences), self.config.max_moves)
        accounts = [c for c in _candidates(second) if not _squares_of(c.moves) & set(foreign)]
        if not accounts:
            return None
        return _one_or_ambiguous(accounts), foreign

    def _colour_misreads(self, board: Board, view: BoardView) -> list[tuple[Explained, Doubt]]:
        """Per square that shows a cup and, read in the other colour (a glossy top under a
        lamp), has the board explained by one legal account landing there: that account and
        the square's doubt.

        The cup's arrival is real (the square changed); only its colour is in doubt, so the
        explanation is proposed, never committed on this picture alone."""
        found: list[tuple[Explained, Doubt]] = []
        for sq, seen in enumerate(view.labels):
            if not isinstance(seen, tuple) or seen == board.top(sq) or sq in self.doubts:
                continue
            belief = (1 - seen[0], seen[1])
            labels = list(view.labels)
            labels[sq] = belief
            second = explain(board, BoardView(tuple(labels), view.confidences), self.config.max_moves)
            if isinstance(second, Explained) and sq in {m.to for m in second.moves}:
                found.append((second, Doubt(sq, board.top(sq), belief, seen)))
        return found

    def _colour_text(self, board: Board, doubt: Doubt) -> str:
        """``", if b2 is a light size 3 (it looks like a dark size 3)"``."""
        return (f", if {board.geo.names[doubt.square]} is {looks_text(doubt.belief)}"
                f" (it looks like {looks_text(doubt.seen)})")

    def _apply_doubts(
        self, board: Board, view: BoardView, t: float
    ) -> tuple[BoardView, list[TrackEvent], frozenset[int]]:
        """The view with the doubted squares read as ``Doubt`` says, the events of the doubts
        that ended (the square reads as the game says again), and the squares read as a
        belief the game does not hold yet."""
        if not self.doubts:
            return view, [], frozenset()
        labels = list(view.labels)
        events: list[TrackEvent] = []
        leaning: set[int] = set()
        for sq, doubt in list(self.doubts.items()):
            top, seen = board.top(sq), labels[sq]
            if top == doubt.belief != doubt.expected:  # the move taken on trust is the game's now
                doubt = self.doubts[sq] = replace(doubt, expected=top)
            if seen == HIDDEN:
                continue
            if seen == top:
                del self.doubts[sq]
                events.append(TrackEvent(
                    "doubt-cleared", t, f"{board.geo.names[sq]} reads as the game says again: {label_text(top)}",
                    doubt, (sq,)))
            elif top != doubt.belief and top != doubt.expected:
                # the game changed there since (the cup moved on, was taken back, ...): the
                # doubt was about a cup no longer there; the square is read afresh
                del self.doubts[sq]
            elif seen == doubt.seen and not doubt.denied:
                labels[sq] = doubt.belief
                if doubt.belief != top:
                    leaning.add(sq)
                elif sq in self._reached:
                    # a hand was there: the cup may have left or changed in a way that reads
                    # the same as the misread (a light top read empty, then moved away)
                    labels[sq] = frozenset((top, seen))
            elif _colour_only(doubt) and not doubt.denied:
                # it changed: the camera reads this square's colour wrong, not its size
                labels[sq] = (None, seen[1]) if isinstance(seen, tuple) else seen
            else:
                labels[sq] = HIDDEN  # it changed, and its reading is not to be trusted
        return BoardView(tuple(labels), view.confidences), events, frozenset(leaning)

    # ------------------------------------------------------------------ people
    def open_doubts(self, board: Board) -> list[Doubt]:
        """The doubts the players are asked about: the square looks unlike what the game says
        there, and nobody has said the game is right (those they said is wrong stay, until
        the square reads as the game says or they change their mind)."""
        return [d for sq, d in sorted(self.doubts.items())
                if not d.confirmed and d.belief == board.top(sq)]

    def answer_doubt(self, square: int, game_is_right: bool) -> Doubt:
        """A player's answer about a doubted square: the game is right (its look is then how
        that cup looks here, for as long as it stands there), or it is not (the square stays
        hidden to the tracker until the picture agrees with the game).  KeyError when the
        square is not in doubt."""
        doubt = self.doubts[square]
        doubt = replace(doubt, confirmed=game_is_right, denied=not game_is_right)
        self.doubts[square] = doubt
        self._reported = None  # the board as it stands is judged again with the answer
        return doubt

    def restore_doubt(self, doubt: Doubt) -> None:
        """Take up a doubt answered before a restart."""
        self.doubts[doubt.square] = doubt

    def _opponent_touches(
        self, board: Board, touched: set[int], allowed: Sequence[int | None], t: float
    ) -> list[TrackEvent]:
        names = board.geo.names
        return [
            TrackEvent(
                "touch-opponent", t,
                f"{COLOUR_NAMES[board.turn]} touched {COLOUR_NAMES[1 - board.turn]}'s piece on {names[sq]}",
                squares=(sq,),
            )
            for sq in sorted(touched)
            if sq not in allowed
        ]

    # ------------------------------------------------------------------ lifts
    def _watch_lifts(self, board: Board, view: BoardView, t: float, changed: Collection[int] = ()) -> list[TrackEvent]:
        """While hands move: a top that gives way to what memory says lies under it was lifted.

        A top read as gone counts as lifted once, in one unbroken run of frames reading it
        gone, its picture stayed as in the frame before (``changed``) in ``lift_frames`` of them
        (a hand's shade or fingers passing over a top can read as the piece beneath for a few
        frames; a lifted cup leaves its square steady once the hand has carried it off), or the
        run reaches ``lift_sustained`` frames whatever changed."""
        events: list[TrackEvent] = []
        if not self.in_sync:
            return events
        for sq in range(board.rules.squares):
            stack = board.stack(sq)
            if not stack or view.labels[sq] == HIDDEN:
                self._lift_streak.pop(sq, None)
                continue
            below = stack[-2] if len(stack) > 1 else None
            if view.labels[sq] != below:
                self._lift_streak.pop(sq, None)
                continue
            streak, clear = self._lift_streak.get(sq, (0, 0))
            streak, clear = streak + 1, clear + (sq not in changed)
            self._lift_streak[sq] = (streak, clear)
            if clear < self.config.lift_frames and streak < self.config.lift_sustained:
                continue
            owner = stack[-1][0]
            if owner == board.turn and sq not in self.lifted:
                self.lifted.add(sq)
                events.append(TrackEvent("lifted", t, f"{board.geo.names[sq]} lifted", squares=(sq,)))
            elif owner != board.turn and sq not in self.touched_opponent:
                self.touched_opponent.add(sq)
        return events


def _impossible(board: Board, sq: int, seen: Label) -> bool:
    """True when no move on ``sq`` alone can make it show ``seen``: not its top, not what lies
    under the top (a lift), not a larger cup (a cup put on it)."""
    if seen == HIDDEN or seen == UNKNOWN or isinstance(seen, frozenset):
        return False
    stack = board.stack(sq)
    top = stack[-1] if stack else None
    if seen == top:
        return False
    if seen is None:
        return len(stack) != 1
    if len(stack) > 1 and seen == stack[-2]:
        return False
    return top is not None and seen[1] <= top[1]


def _sizes_off(board: Board, sq: int, seen: tuple[int, int]) -> list[list[int]]:
    """The sizes to try for a cup read as ``seen`` on ``sq`` (``Tracker._size_misread``), the
    nearest first: one size off; then, when the player to move has read a cup there that no
    legal move of theirs puts there (a size no reserve has on top and no cup of theirs on the
    board can bring), every other size.  A size the rules do let them put there keeps the
    search to one size off, so a real illegal move is still alarmed (a cup entered where the
    rules forbid is read at a size that could be placed elsewhere, not at an impossible one)."""
    near = [s for s in (seen[1] - 1, seen[1] + 1) if 1 <= s <= board.rules.sizes]
    if seen[0] != board.turn or _placeable(board, seen[1]):
        return [near]
    far = [s for s in range(1, board.rules.sizes + 1) if s != seen[1] and s not in near]
    return [near, far]


def _placeable(board: Board, size: int) -> bool:
    """True when some legal move of the player to move puts a cup of ``size`` anywhere (from
    a reserve or from the board): only a size they cannot play at all marks a reading of
    theirs as impossible."""
    return any(m.size == size for m in board.legal_moves())


def _same_or_recoloured(look: Label, top: Label) -> bool:
    """True when ``look`` is ``top``, or a cup of its size read in the other colour (or in
    doubt): no move a hand was not seen making leaves a square looking so.  A faint look
    of anything else (a cup where the game has none, another size) may be a cup put down
    by a hand the camera missed, so it is not how that top looks."""
    if look == top:
        return look != HIDDEN
    return isinstance(look, tuple) and isinstance(top, tuple) and look[1] == top[1]


def _colour_only(doubt: Doubt) -> bool:
    """True when the doubt is about colour alone: the look is the belief's size, other colour."""
    seen, belief = doubt.seen, doubt.belief
    return (isinstance(seen, tuple) and isinstance(belief, tuple) and seen[1] == belief[1]
            and seen[0] is not None and seen[0] != belief[0])


def doubt_text(board: Board, doubt: Doubt) -> str:
    """What a doubt asks: ``d1 looks like dark size 4, the game says light size 4: is the
    game right?``."""
    return (f"{board.geo.names[doubt.square]} looks like {looks_text(doubt.seen)}, "
            f"the game says {looks_text(doubt.belief)}: is the game right?")


def _or_out_of_turn(board: Board, view: BoardView) -> str:
    """The physical move that breaks a rule which the board also shows, in words to add to
    a question about a covered cup (``", or White's size 4 went from a1 to c3: it is Black's
    turn"``), or nothing: a cup gobbled at once and a player moving out of turn leave the same
    picture, and the players know which it was."""
    single = explain(board, view, max_moves=1)
    return f", or {single.description}: {single.reason}" if isinstance(single, IllegalPhysical) else ""


def _moves_text(board: Board, moves: Sequence[Move]) -> str:
    return ", ".join(format_moves(board, tuple(moves)))
